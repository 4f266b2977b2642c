import Foundation
import OpenCoreSpotlight

/// One colleague.
struct Employee: Sendable {
    var id: String
    var name: String
    var department: String
    var jobTitle: String
    var phone: String
    var office: Office

    var email: String {
        name.lowercased().replacingOccurrences(of: " ", with: ".").folding(options: .diacriticInsensitive, locale: nil)
            + "@example.com"
    }

    /// The domain of the employee's item: `employees.<department>`, so a department can be deleted at once.
    var domainIdentifier: String { "employees." + department.lowercased() }

    /// The Core Spotlight item ("All Records").
    var searchableItem: CSSearchableItem {
        CSSearchableItem(uniqueIdentifier: id, domainIdentifier: domainIdentifier, attributeSet: attributes(relatedItem: false))
    }

    /// The metadata shared by the item and the activity of viewing the employee.
    func attributes(relatedItem: Bool) -> CSSearchableItemAttributeSet {
        let attributes = CSSearchableItemAttributeSet(contentType: .contact)
        attributes.title = name
        attributes.displayName = name
        attributes.contentDescription = "\(jobTitle), \(department)"
        attributes.keywords = [department, jobTitle, office.city]
        attributes.phoneNumbers = [phone]
        attributes.supportsPhoneCall = true
        attributes.emailAddresses = [email]
        attributes.namedLocation = office.city
        attributes.latitude = NSNumber(value: office.latitude)
        attributes.longitude = NSNumber(value: office.longitude)
        attributes.supportsNavigation = true
        // The card can be dragged or shared out of search: `spotlight data` / `spotlight file` ask the extension.
        attributes.providerDataTypeIdentifiers = [UTType.vCard.identifier, UTType.plainText.identifier]
        attributes.providerFileTypeIdentifiers = [UTType.vCard.identifier]
        if relatedItem { attributes.relatedUniqueIdentifier = id }
        return attributes
    }

    /// The employee's card as a vCard 3.0.
    var vCard: String {
        let parts = name.split(separator: " ")
        return [
            "BEGIN:VCARD", "VERSION:3.0", "FN:\(name)", "N:\(parts.dropFirst().joined(separator: " "));\(parts.first ?? "");;;",
            "TITLE:\(jobTitle)", "ORG:Example;\(department)", "TEL;TYPE=WORK:\(phone)", "EMAIL:\(email)", "END:VCARD",
        ].joined(separator: "\r\n") + "\r\n"
    }

    /// The employee's card, as the app shows it.
    var card: String {
        """
        \(name)
          \(jobTitle), \(department)
          \(email) · \(phone)
          Office: \(office.city)
        """
    }
}

struct Office: Sendable {
    var city: String
    var latitude: Double
    var longitude: Double

    static let cupertino = Office(city: "Cupertino", latitude: 37.3349, longitude: -122.0090)
    static let austin = Office(city: "Austin", latitude: 30.3922, longitude: -97.7252)
    static let london = Office(city: "London", latitude: 51.5142, longitude: -0.1419)
    static let paris = Office(city: "Paris", latitude: 48.8708, longitude: 2.3319)
}

/// The company directory: 25 colleagues.
enum Directory {
    static let all: [Employee] = {
        let people: [(String, String, String, Office)] = [
            ("Brent Reid", "Engineering", "Senior Software Engineer", .cupertino),
            ("Ava Thompson", "Engineering", "Engineering Manager", .cupertino),
            ("Marcus Chen", "Engineering", "Software Engineer", .austin),
            ("Priya Patel", "Engineering", "Site Reliability Engineer", .london),
            ("Jonas Weber", "Engineering", "Software Engineer", .paris),
            ("Sofia Alvarez", "Engineering", "Principal Engineer", .cupertino),
            ("Liam O'Brien", "Design", "Product Designer", .london),
            ("Chloé Martin", "Design", "Design Director", .paris),
            ("Noah Kim", "Design", "Interaction Designer", .cupertino),
            ("Emma Rossi", "Marketing", "Marketing Manager", .london),
            ("Oliver Brown", "Marketing", "Content Strategist", .austin),
            ("Mia Johansson", "Marketing", "Brand Lead", .paris),
            ("Ethan Walker", "Sales", "Account Executive", .austin),
            ("Isabella Moreau", "Sales", "Sales Director", .paris),
            ("Lucas Silva", "Sales", "Account Executive", .cupertino),
            ("Amelia Clarke", "Sales", "Sales Operations Analyst", .london),
            ("Henry Adeyemi", "Support", "Support Specialist", .austin),
            ("Grace Liu", "Support", "Support Team Lead", .cupertino),
            ("Jack Murphy", "Support", "Support Specialist", .london),
            ("Zoe Fischer", "Finance", "Controller", .paris),
            ("Daniel Novak", "Finance", "Financial Analyst", .austin),
            ("Hannah Schmidt", "Finance", "Payroll Specialist", .london),
            ("Samuel Okafor", "People", "Recruiter", .cupertino),
            ("Lily Tanaka", "People", "People Partner", .austin),
            ("Victor Dubois", "People", "Head of People", .paris),
        ]
        return people.enumerated().map { i, p in
            Employee(id: "employee-\(i + 1)", name: p.0, department: p.1, jobTitle: p.2,
                     phone: String(format: "+1 555 01%02d", i + 1), office: p.3)
        }
    }()

    static func employee(id: String) -> Employee? {
        all.first { $0.id == id }
    }

    /// An employee by identifier, full name (case-insensitive) or a unique part of the name.
    static func find(_ text: String) -> Employee? {
        if let e = employee(id: text) { return e }
        let folded = text.lowercased()
        if let e = all.first(where: { $0.name.lowercased() == folded }) { return e }
        let matches = all.filter { $0.name.lowercased().contains(folded) }
        return matches.count == 1 ? matches[0] : nil
    }

    /// The app's own search over its data (for continuing a search from the system).
    static func search(_ text: String) -> [Employee] {
        let words = text.lowercased().split(separator: " ").map(String.init)
        return all.filter { e in
            let haystack = "\(e.name) \(e.department) \(e.jobTitle) \(e.office.city)".lowercased()
            return words.allSatisfy { haystack.contains($0) }
        }
    }
}
