import Foundation
import SpotlightEngine

/// A person associated with an item: a message's author or recipient, or a custom attribute value.
///
/// ```swift
/// let sender = CSPerson(displayName: "Brent Reid", handles: ["brent@example.com"], handleIdentifier: "emailAddresses")
/// sender.contactIdentifier = "410FE041-5C4E-48DA-B4DE-04C15EA3DBAC"
/// attributes.authors = [sender]
/// ```
///
/// Queries on a person-valued attribute match its display name and each of its handles.
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/csperson>
open class CSPerson: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: like Apple's class, a person is mutated (`contactIdentifier`) from one thread at a time;
    // attribute sets copy its value when it is assigned, so the index never shares the object.

    private let _displayName: String?
    private let _handles: [String]
    private let _handleIdentifier: String

    /// Creates a person from a display name and handles of one kind.
    ///
    /// - Parameters:
    ///   - displayName: The name to show for the person, if any.
    ///   - handles: Ways to reach the person: phone numbers, e-mail addresses, …
    ///   - handleIdentifier: The kind of the handles, as a Contacts property key, such as `"phoneNumbers"`
    ///     (`CNContactPhoneNumbersKey`) or `"emailAddresses"` (`CNContactEmailAddressesKey`).
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/csperson/init(displayname:handles:handleidentifier:)>
    public init(displayName: String?, handles: [String], handleIdentifier: String) {
        _displayName = displayName
        _handles = handles
        _handleIdentifier = handleIdentifier
        super.init()
    }

    /// The name to show for the person.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/csperson/displayname>
    open var displayName: String? { _displayName }

    /// Ways to reach the person, such as phone numbers or e-mail addresses.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/csperson/handles>
    open var handles: [String] { _handles }

    /// The kind of the handles, as a Contacts property key such as `"phoneNumbers"`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/csperson/handleidentifier>
    open var handleIdentifier: String { _handleIdentifier }

    /// The identifier of the contact the person was resolved to, if known; spares a lookup by name or handle.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/csperson/contactidentifier>
    open var contactIdentifier: String?

    // MARK: - Engine value

    /// A person with the engine's value.
    internal convenience init(_ value: PersonValue) {
        self.init(displayName: value.displayName, handles: value.handles, handleIdentifier: value.handleIdentifier)
        contactIdentifier = value.contactIdentifier
    }

    /// The engine's value of this person.
    internal var _value: PersonValue {
        PersonValue(displayName: displayName, handles: handles, handleIdentifier: handleIdentifier,
                    contactIdentifier: contactIdentifier)
    }

    // MARK: - NSObject

    /// Two people are equal when their names, handles, handle kinds and contact identifiers are.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CSPerson else { return false }
        return _value == other._value
    }

    open override var hash: Int { _value.hashValue }

    open override var description: String {
        "<CSPerson: \(displayName ?? "(no name)") \(handles) (\(handleIdentifier))>"
    }

    // MARK: - NSCopying

    open func copy(with zone: NSZone? = nil) -> Any {
        CSPerson(_value)
    }

    // MARK: - NSSecureCoding

    public static var supportsSecureCoding: Bool { true }

    private enum CodingKey {
        static let displayName = "displayName"
        static let handles = "handles"
        static let handleIdentifier = "handleIdentifier"
        static let contactIdentifier = "contactIdentifier"
    }

    open func encode(with coder: NSCoder) {
        coder.encode(displayName.map { NSString(string: $0) }, forKey: CodingKey.displayName)
        coder.encode(NSArray(array: handles.map { NSString(string: $0) }), forKey: CodingKey.handles)
        coder.encode(NSString(string: handleIdentifier), forKey: CodingKey.handleIdentifier)
        coder.encode(contactIdentifier.map { NSString(string: $0) }, forKey: CodingKey.contactIdentifier)
    }

    public required init?(coder: NSCoder) {
        guard let handleIdentifier = coder.decodeObject(of: NSString.self, forKey: CodingKey.handleIdentifier) else {
            return nil
        }
        let handles = coder.decodeObject(of: [NSArray.self, NSString.self], forKey: CodingKey.handles) as? NSArray
        _displayName = coder.decodeObject(of: NSString.self, forKey: CodingKey.displayName).map { $0 as String }
        _handles = (handles ?? NSArray()).compactMap { ($0 as? NSString).map { $0 as String } }
        _handleIdentifier = handleIdentifier as String
        contactIdentifier = coder.decodeObject(of: NSString.self, forKey: CodingKey.contactIdentifier)
            .map { $0 as String }
        super.init()
    }
}
