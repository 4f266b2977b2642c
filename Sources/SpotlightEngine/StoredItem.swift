import Foundation
import GRDB

/// One item as the engine stores it: identity, lifetime and attribute values.
package struct StoredItem: Sendable, Hashable {
    package var uniqueIdentifier: String
    package var domainIdentifier: String?
    /// When the item stops existing. Items at or past it are never returned and are purged.
    package var expirationDate: Date
    /// Attribute values by attribute name (`"title"`, `"keywords"`, …).
    package var attributes: [String: AttributeValue]
    /// Custom attribute values by key name, with the behaviour their key declared.
    package var customAttributes: [String: CustomAttribute]

    package init(
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
    package var rankingHint: Double? {
        attributes["rankingHint"]?.numericValue.map { min(max($0, 0), 100) }
    }

    /// The item's `lastUsedDate` attribute.
    package var lastUsedDate: Date? {
        if case .date(let d) = attributes["lastUsedDate"] { return d }
        return nil
    }
}

/// A custom attribute value and the flags of the `CSCustomAttributeKey` that set it.
package struct CustomAttribute: Sendable, Hashable {
    package var value: AttributeValue
    package var isSearchable: Bool
    package var isSearchableByDefault: Bool
    package var isUnique: Bool
    package var isMultiValued: Bool

    package init(
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
package enum IndexOperation: Sendable, Hashable {
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
    package static func upsert(_ item: StoredItem) -> IndexOperation {
        .upsert(item, isUpdate: false, clearedAttributes: [], clearedCustomKeys: [])
    }
}

/// Which items belong to a domain, the same for deleting, counting and listing: the domain itself exactly, and its
/// sub-domains by the case-sensitive prefix `domain + "."` ("Mail" holds "Mail.inbox", not "mail" or "Mailbox").
///
/// The prefix is a range of the binary collation, `[domain + ".", domain + "/")` ('/' follows '.'), which matches
/// exactly the strings starting with `domain + "."`, byte for byte, and uses the `item_domain` index — no `LIKE`,
/// whose case folding and wildcards made "Mail" delete "mail.inbox". Since format 12 a store finds a domain's
/// items through their exact domain terms instead (`postedItems`), and checks each row with `matches`.
enum DomainMatch {
    // Deviation: sub-domains are matched case-sensitively by `domain + "."` (Apple only says "a.b" deletes "a.b.c").
    static let sql = "(domain = ? OR (domain >= ? AND domain < ?))"

    static func arguments(_ domain: String) -> [any DatabaseValueConvertible] {
        [domain, domain + ".", domain + "/"]
    }

    /// `sql`'s condition in Swift, on the UTF-8 bytes as SQLite compares them: `stored` is `domain` or starts
    /// with `domain + "."`.
    static func matches(_ stored: String?, _ domain: String) -> Bool {
        guard let stored else { return false }
        let bytes = stored.utf8, prefix = domain.utf8
        guard bytes.starts(with: prefix) else { return false }
        let rest = bytes.dropFirst(prefix.count)
        return rest.isEmpty || rest.first == UInt8(ascii: ".")
    }

    /// Whether the store finds a domain's items through their exact domain terms (`TextIndexer.exactDomainTerms`,
    /// `meta.exactDomainTerms`, set when a format 12 store is created), and so has no `item_domain` index; a store
    /// of an older format reads the index.
    static func usesTerms(_ db: Database) throws -> Bool {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'exactDomainTerms'")) == 1
    }

    /// The ids posted under the exact domain term of `domain`, in the segments `db` sees, increasing and without
    /// repeats: every item of `domain` and its sub-domains, and others (items deleted since, and for
    /// `TextIndexer.longDomainTerm` items of other long domains), which the caller drops by their rows (`matches`).
    /// Nil, and no list decoded past it, when more than `limit` are posted.
    static func postedItems(_ db: Database, _ domain: String, adding more: [Int64] = [], limit: Int = .max) throws -> [Int64]? {
        var ids = more
        var posted = 0
        try PostingStore.forEachList(db, text: TextIndexer.exactDomainTerm(for: domain)) { reader in
            posted += reader.count
            guard posted <= limit else { return }
            try reader.forEach { item, _ in ids.append(item) }
        }
        guard posted <= limit else { return nil }
        ids.sort()
        var unique: [Int64] = []
        unique.reserveCapacity(ids.count)
        for id in ids where unique.last != id { unique.append(id) }
        return unique
    }
}

extension String {
    /// Whether this string can be an identifier or domain in a store: it has no NUL, which SQLite's text binding
    /// (GRDB passes -1 as the length, so SQLite reads up to the first NUL) would cut it at. A string that cannot be
    /// stored matches nothing when looked up or deleted.
    var isStorableKey: Bool { !utf8.contains(0) }
}

extension Row {
    /// The value of a column. Damage can give a column any type (SQLite does not enforce declared types), and
    /// GRDB's subscripts trap on a value they cannot convert: here that is `.corruptIndex`, so a damaged row fails
    /// its reader instead of crashing it.
    func stored<Value: DatabaseValueConvertible>(_ column: String, as type: Value.Type = Value.self) throws -> Value {
        do {
            return try decode(Value.self, forColumn: column)
        } catch {
            throw EngineError(.corruptIndex, "a damaged value in column \(column): \(error)")
        }
    }

    /// The value at a column index; see `stored(_:as:)`.
    func stored<Value: DatabaseValueConvertible>(_ index: Int, as type: Value.Type = Value.self) throws -> Value {
        do {
            return try decode(Value.self, atIndex: index)
        } catch {
            throw EngineError(.corruptIndex, "a damaged value in column \(index): \(error)")
        }
    }
}
