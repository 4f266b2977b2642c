import Foundation

/// One item as the engine stores it: identity, lifetime and attribute values.
public struct StoredItem: Sendable, Hashable {
    public var uniqueIdentifier: String
    public var domainIdentifier: String?
    /// When the item stops existing. Items at or past it are never returned and are purged.
    public var expirationDate: Date
    /// Attribute values by attribute name (`"title"`, `"keywords"`, …).
    public var attributes: [String: AttributeValue]
    /// Custom attribute values by key name, with the behaviour their key declared.
    public var customAttributes: [String: CustomAttribute]

    public init(
        uniqueIdentifier: String, domainIdentifier: String? = nil, expirationDate: Date,
        attributes: [String: AttributeValue] = [:], customAttributes: [String: CustomAttribute] = [:]
    ) {
        self.uniqueIdentifier = uniqueIdentifier
        self.domainIdentifier = domainIdentifier
        self.expirationDate = expirationDate
        self.attributes = attributes
        self.customAttributes = customAttributes
    }

    /// The item's `rankingHint` attribute, clamped to 0…100.
    public var rankingHint: Double? {
        attributes["rankingHint"]?.numericValue.map { min(max($0, 0), 100) }
    }

    /// The item's `lastUsedDate` attribute.
    public var lastUsedDate: Date? {
        if case .date(let d) = attributes["lastUsedDate"] { return d }
        return nil
    }
}

/// A custom attribute value and the flags of the `CSCustomAttributeKey` that set it.
public struct CustomAttribute: Sendable, Hashable {
    public var value: AttributeValue
    public var isSearchable: Bool
    public var isSearchableByDefault: Bool
    public var isUnique: Bool
    public var isMultiValued: Bool

    public init(
        value: AttributeValue, isSearchable: Bool = true, isSearchableByDefault: Bool = false,
        isUnique: Bool = false, isMultiValued: Bool = false
    ) {
        self.value = value
        self.isSearchable = isSearchable
        self.isSearchableByDefault = isSearchableByDefault
        self.isUnique = isUnique
        self.isMultiValued = isMultiValued
    }
}

/// One change to an index.
public enum IndexOperation: Sendable, Hashable {
    /// Insert or replace an item. With `isUpdate`, merge into the stored item instead: only the given attributes
    /// change, `clearedAttributes`/`clearedCustomKeys` are removed, and an item that does not exist is dropped.
    case upsert(StoredItem, isUpdate: Bool, clearedAttributes: Set<String>, clearedCustomKeys: Set<String>)
    /// Delete items by unique identifier; unknown identifiers are ignored.
    case delete(identifiers: [String])
    /// Delete items whose domain is one of these or below one of these (`a.b` also deletes `a.b.c`).
    case deleteDomains([String])
    /// Delete every item and forget the client state.
    case deleteAll

    /// A plain insert-or-replace.
    public static func upsert(_ item: StoredItem) -> IndexOperation {
        .upsert(item, isUpdate: false, clearedAttributes: [], clearedCustomKeys: [])
    }
}
