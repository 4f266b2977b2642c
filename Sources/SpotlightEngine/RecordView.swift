import Foundation
import GRDB
import SpotlightQueryLanguage

/// An item's plain record (`ValueCodec.encode`'s bytes) with the place of each entry found, so a query reads the
/// attributes it names and nothing else.
///
/// Decoding a whole record makes a string of every attribute and a dictionary of them all: for an attribute query
/// on Debian's `keywords`, the long description of every candidate was decoded to be thrown away, and again for the
/// item delivered, whose attributes a `CSSearchQuery` without `fetchAttributes` never reads. Finding the entries
/// walks the record once, checking every length, tag and nesting depth as `ValueCodec.decode` does (a damaged record
/// is `.corruptIndex` here, as it was there), without making anything.
struct RecordEntries {
    /// One entry of the record: an attribute (`custom` nil) or a custom attribute with its flags byte.
    struct Entry {
        var name: Range<Int>
        var value: Range<Int>
        var custom: UInt8?
    }

    let bytes: [UInt8]
    private(set) var entries: [Entry] = []

    init(_ bytes: [UInt8]) throws {
        self.bytes = bytes
        var reader = ValueCodec.Reader(bytes: bytes)
        let count = try reader.count(minimumBytesEach: 3)
        entries.reserveCapacity(count)
        for _ in 0..<count {
            let (flags, name) = try reader.entryHead()
            let start = reader.offset
            try reader.skipValue(depth: 0)
            entries.append(Entry(name: name, value: start..<reader.offset, custom: flags))
        }
        guard reader.offset == bytes.count else {
            throw EngineError(.corruptIndex, "\(bytes.count - reader.offset) stray bytes after the attribute record")
        }
    }

    /// The value of the attribute `name` (an attribute set's property, by its own name), if the record has it.
    func attribute(_ name: String) -> AttributeValue? {
        // (The last entry of a name wins, as it does in `ValueCodec.decode`'s dictionary.)
        guard let entry = entries.last(where: { $0.custom == nil && matches($0, name) }) else { return nil }
        return value(entry)
    }

    /// The custom attribute `name`, if the record has it.
    func customAttribute(_ name: String) -> CustomAttribute? {
        guard let entry = entries.last(where: { $0.custom != nil && matches($0, name) }), let flags = entry.custom,
              let value = value(entry) else { return nil }
        return CustomAttribute(value: value, storedFlags: flags)
    }

    /// The attributes and custom attributes named in `names` (all of them when `names` is nil), as
    /// `ValueCodec.decode` would decode them.
    func decoded(only names: Set<String>? = nil) -> (attributes: [String: AttributeValue], custom: [String: CustomAttribute]) {
        var attributes: [String: AttributeValue] = [:]
        var custom: [String: CustomAttribute] = [:]
        // (A `CSSearchQuery` without `fetchAttributes` asks for none: no name is made.)
        if names?.isEmpty == true { return (attributes, custom) }
        if names == nil { attributes.reserveCapacity(entries.count) }
        for entry in entries {
            let name = String(decoding: bytes[entry.name], as: UTF8.self)
            if let names, !names.contains(name) { continue }
            guard let value = value(entry) else { continue }
            if let flags = entry.custom {
                custom[name] = CustomAttribute(value: value, storedFlags: flags)
            } else {
                attributes[name] = value
            }
        }
        return (attributes, custom)
    }

    /// Whether an entry's name is `name` as a decoded record's dictionary would find it: the same bytes, or (for
    /// names that are not ASCII) the same string once decoded, invalid UTF-8 repaired and canonically equivalent
    /// spellings equal, as `String` compares them.
    private func matches(_ entry: Entry, _ name: String) -> Bool {
        let stored = bytes[entry.name]
        if name.utf8.elementsEqual(stored) { return true }
        if name.utf8.allSatisfy({ $0 < 0x80 }), stored.allSatisfy({ $0 < 0x80 }) { return false }
        return String(decoding: stored, as: UTF8.self) == name
    }

    /// An entry's value. Its bytes were checked when the entries were found, so this cannot fail.
    private func value(_ entry: Entry) -> AttributeValue? {
        var reader = ValueCodec.Reader(bytes: bytes)
        reader.offset = entry.value.lowerBound
        return try? reader.value(depth: 0)
    }
}

/// Lets the query language evaluate a predicate over a stored item whose record is read one attribute at a time
/// (`RecordEntries`); answers as `StoredItemQueryView` over the decoded item does.
struct RecordQueryView: QueryItem {
    let uniqueIdentifier: String
    let domainIdentifier: String?
    let expires: Double
    let record: RecordEntries

    func queryValues(forAttribute name: String) -> [QueryValue]? {
        StoredItemQueryView.queryValues(forAttribute: name, uniqueIdentifier: uniqueIdentifier,
                                        domainIdentifier: domainIdentifier,
                                        expirationDate: Date(timeIntervalSinceReferenceDate: expires),
                                        attribute: record.attribute, customAttribute: record.customAttribute)
    }

    func defaultSearchableText() -> [String] {
        let decoded = record.decoded()
        return StoredItemQueryView.defaultSearchableText(attributes: decoded.attributes, custom: decoded.custom)
    }
}

extension ItemCatalog.Entry {
    /// The item's plain record, wherever it is stored (its block's, its row's, or its row's compressed).
    func plainRecord(in db: Database) throws -> [UInt8] {
        if let plain { return Array(plain) }
        return try ValueCodec.plain(record, item: id, in: db)
    }

    /// The item with the attributes named in `names` decoded (every one when `names` is nil), from its record
    /// read as `entries`.
    func storedItem(_ entries: RecordEntries, only names: Set<String>?) -> StoredItem {
        let decoded = entries.decoded(only: names)
        return StoredItem(uniqueIdentifier: uid, domainIdentifier: domain,
                          expirationDate: Date(timeIntervalSinceReferenceDate: expires),
                          attributes: decoded.attributes, customAttributes: decoded.custom)
    }
}
