import Foundation
import SpotlightEngine
import XCTest

@testable import OpenCoreSpotlight

/// `CSPerson`: Apple's initializer and properties, copying, equality, coding and its engine value.
final class CSPersonTests: XCTestCase {
    func testInitializerAndProperties() {
        let person = CSPerson(displayName: "Brent Reid", handles: ["brent@example.com", "b@example.org"],
                              handleIdentifier: "emailAddresses")
        XCTAssertEqual(person.displayName, "Brent Reid")
        XCTAssertEqual(person.handles, ["brent@example.com", "b@example.org"])
        XCTAssertEqual(person.handleIdentifier, "emailAddresses")
        XCTAssertNil(person.contactIdentifier)
        person.contactIdentifier = "410FE041-5C4E-48DA-B4DE-04C15EA3DBAC"
        XCTAssertEqual(person.contactIdentifier, "410FE041-5C4E-48DA-B4DE-04C15EA3DBAC")
        person.contactIdentifier = nil
        XCTAssertNil(person.contactIdentifier)

        let anonymous = CSPerson(displayName: nil, handles: [], handleIdentifier: "phoneNumbers")
        XCTAssertNil(anonymous.displayName)
        XCTAssertEqual(anonymous.handles, [])
    }

    func testCopiesAreEqualAndIndependent() {
        let person = CSPerson(displayName: "Ann", handles: ["555-0100"], handleIdentifier: "phoneNumbers")
        person.contactIdentifier = "c1"
        let copy = person.copy() as! CSPerson
        XCTAssertFalse(copy === person)
        XCTAssertEqual(copy, person)
        XCTAssertEqual(copy.hash, person.hash)
        copy.contactIdentifier = "c2"
        XCTAssertEqual(person.contactIdentifier, "c1")
        XCTAssertNotEqual(copy, person)
    }

    func testEqualityComparesEveryField() {
        func make(_ name: String? = "Ann", _ handles: [String] = ["1"], _ kind: String = "phoneNumbers") -> CSPerson {
            CSPerson(displayName: name, handles: handles, handleIdentifier: kind)
        }
        XCTAssertEqual(make(), make())
        XCTAssertNotEqual(make(), make(nil))
        XCTAssertNotEqual(make(), make("Ann", ["2"]))
        XCTAssertNotEqual(make(), make("Ann", ["1"], "emailAddresses"))
        XCTAssertFalse(make().isEqual("Ann"))
    }

    func testEngineValueRoundTrips() {
        let person = CSPerson(displayName: "Ann", handles: ["a@example.com"], handleIdentifier: "emailAddresses")
        person.contactIdentifier = "c1"
        let value = person._value
        XCTAssertEqual(value, PersonValue(displayName: "Ann", handles: ["a@example.com"],
                                          handleIdentifier: "emailAddresses", contactIdentifier: "c1"))
        XCTAssertEqual(CSPerson(value), person)
        XCTAssertEqual(AttributeValue.person(value).searchableStrings, ["Ann", "a@example.com"])
    }

    func testAttributeSetStoresAValueNotTheObject() {
        let person = CSPerson(displayName: "Ann", handles: ["a@example.com"], handleIdentifier: "emailAddresses")
        let set = CSSearchableItemAttributeSet()
        set.authors = [person]
        person.contactIdentifier = "changed later"
        XCTAssertNil(set.authors?.first?.contactIdentifier)
    }

    func testSecureCodingRoundTrip() throws {
        let person = CSPerson(displayName: "Ann", handles: ["555-0100", "555-0101"], handleIdentifier: "phoneNumbers")
        person.contactIdentifier = "c1"
        XCTAssertTrue(CSPerson.supportsSecureCoding)
        let data = try NSKeyedArchiver.archivedData(withRootObject: person, requiringSecureCoding: true)
        let decoded = try XCTUnwrap(try NSKeyedUnarchiver.unarchivedObject(ofClass: CSPerson.self, from: data))
        XCTAssertEqual(decoded, person)
        XCTAssertEqual(decoded.contactIdentifier, "c1")

        let anonymous = CSPerson(displayName: nil, handles: [], handleIdentifier: "emailAddresses")
        let anonymousData = try NSKeyedArchiver.archivedData(withRootObject: anonymous, requiringSecureCoding: true)
        XCTAssertEqual(try NSKeyedUnarchiver.unarchivedObject(ofClass: CSPerson.self, from: anonymousData), anonymous)
    }

    func testLocalizedStringCodingKeepsEveryLocalization() throws {
        // swift-corelibs-foundation's NSKeyedArchiver writes any NSString subclass as a plain string, so the coding
        // methods are exercised directly.
        let localized = CSLocalizedString(localizedStrings: ["en": "Song", "fr": "Chanson"])
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        localized.encode(with: archiver)
        archiver.finishEncoding()
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: archiver.encodedData)
        let decoded = try XCTUnwrap(CSLocalizedString(coder: unarchiver))
        XCTAssertEqual(decoded._localizations, ["en": "Song", "fr": "Chanson"])
        XCTAssertEqual(decoded.localizedString(), localized.localizedString())
    }
}
