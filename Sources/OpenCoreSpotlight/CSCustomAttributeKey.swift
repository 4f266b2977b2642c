import Foundation

/// A key for a custom attribute of a searchable item.
///
/// ```swift
/// let priority = CSCustomAttributeKey(keyName: "com_acme_priority", searchable: true, searchableByDefault: false,
///                                     unique: false, multiValued: false)!
/// attributes.setValue(NSNumber(value: 3), forCustomKey: priority)
/// // query: "com_acme_priority > 2"
/// ```
///
/// - `searchable`: the attribute can be named in a query (`com_acme_priority > 2`). A non-searchable attribute is
///   stored and returned but never matches a query.
/// - `searchableByDefault`: its text is part of free-text search (`CSUserQuery`, `*`/`**` in queries).
/// - `unique`: a hint that values repeat a lot; stored once per distinct value. It is not a uniqueness constraint.
/// - `multiValued`: values are arrays; a single value is rejected with `CSIndexError.invalidItemError` and an
///   array given to a key that is not multi-valued likewise.
///
/// Keys are equal when their names are equal.
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/cscustomattributekey>
open class CSCustomAttributeKey: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: every stored property is immutable.

    /// The name of the attribute, used with `setValue(_:forCustomKey:)` and in query strings.
    public let keyName: String
    /// Whether the attribute can be used in queries.
    public let isSearchable: Bool
    /// Whether the attribute's text is searched by free-text queries.
    public let isSearchableByDefault: Bool
    /// A hint that values of this attribute repeat a lot.
    public let isUnique: Bool
    /// Whether the attribute's values are arrays.
    public let isMultiValued: Bool

    /// Creates a searchable key that is not searchable by default, not unique and not multi-valued.
    ///
    /// Returns `nil` when the name is not valid: ASCII letters, digits and `_` only, starting with a letter or `_`,
    /// not starting with `kMD`.
    public convenience init?(keyName: String) {
        self.init(keyName: keyName, searchable: true, searchableByDefault: false, unique: false, multiValued: false)
    }

    /// Creates a key with the given behaviour; `nil` when the name is not valid.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cscustomattributekey/init(keyname:searchable:searchablebydefault:unique:multivalued:)>
    public init?(keyName: String, searchable: Bool, searchableByDefault: Bool, unique: Bool, multiValued: Bool) {
        guard Self.isValidKeyName(keyName) else { return nil }
        self.keyName = keyName
        self.isSearchable = searchable
        self.isSearchableByDefault = searchableByDefault
        self.isUnique = unique
        self.isMultiValued = multiValued
        super.init()
    }

    static func isValidKeyName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !name.hasPrefix("kMD") else { return false }
        guard first == "_" || (first.isASCII && first.properties.isAlphabetic) else { return false }
        return name.unicodeScalars.allSatisfy {
            $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
        }
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    open override func isEqual(_ object: Any?) -> Bool {
        // Apple's key also compares equal to a plain string equal to its name.
        if let other = object as? CSCustomAttributeKey { return other.keyName == keyName }
        if let other = object as? String { return other == keyName }
        return false
    }

    open override var hash: Int { keyName.hashValue }

    open override var description: String { "<CSCustomAttributeKey: \(keyName)>" }
}
