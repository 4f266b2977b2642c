import Foundation
import SpotlightEngine

/// The documented limits on what one item may hold. Past them, indexing fails with
/// `CSIndexError.invalidItemError` and nothing of the call is indexed.
public enum IndexLimits {
    /// The longest `uniqueIdentifier` or `domainIdentifier`, in UTF-8 bytes.
    public static let maximumIdentifierLength = 1_024
    /// The largest single attribute value (a `textContent`, a `thumbnailData`…), in bytes.
    public static let maximumValueSize = 4 * 1_024 * 1_024
    /// The largest item (all its values together), in bytes.
    public static let maximumItemSize = 16 * 1_024 * 1_024
}

/// Validates items and turns them into engine operations.
enum ItemConversion {
    static func operation(for item: CSSearchableItem, now: Date) throws -> IndexOperation {
        let stored = try storedItem(item, now: now)
        let set = item.attributeSet
        return .upsert(stored, isUpdate: item.isUpdate, clearedAttributes: set.clearedAttributes,
                       clearedCustomKeys: Set(set.clearedCustomKeys.keys))
    }

    static func storedItem(_ item: CSSearchableItem, now: Date) throws -> StoredItem {
        let id = item.uniqueIdentifier
        func invalid(_ message: String) -> CSIndexError {
            CSIndexError(.invalidItemError, message: "item \"\(id.prefix(80))\": \(message)")
        }
        guard !id.isEmpty else { throw invalid("the unique identifier is empty") }
        // Deviation: NUL is refused (Apple does not say); it would cut the identifier short in the store ("a\0b"
        // would replace "a").
        guard !id.utf8.contains(0) else { throw invalid("the unique identifier contains a NUL character") }
        guard id.utf8.count <= IndexLimits.maximumIdentifierLength else {
            throw invalid("the unique identifier is longer than \(IndexLimits.maximumIdentifierLength) bytes")
        }
        let domain = item.domainIdentifier
        if let domain {
            guard !domain.isEmpty else { throw invalid("the domain identifier is empty") }
            guard !domain.utf8.contains(0) else { throw invalid("the domain identifier contains a NUL character") }
            guard domain.utf8.count <= IndexLimits.maximumIdentifierLength else {
                throw invalid("the domain identifier is longer than \(IndexLimits.maximumIdentifierLength) bytes")
            }
        }
        let set = item.attributeSet
        var total = 0
        for (name, value) in set.attributes {
            guard value.nestingDepth() <= 1 else { throw invalid("\(name) holds nested arrays") }
            try check(value, name: name, invalid: invalid)
            total += value.approximateByteCount
        }
        // Deviation: coordinates out of range are rejected (Apple does not say).
        for (latitudeOrLongitude, range) in coordinateRanges {
            if let v = set.attributes[latitudeOrLongitude]?.numericValue, !range.contains(v) {
                throw invalid("\(latitudeOrLongitude) \(v) is outside \(range.lowerBound)…\(range.upperBound)")
            }
        }
        if let invalidKey = set.invalidCustomKeys.sorted().first {
            throw invalid("the value for custom key \"\(invalidKey)\" is not a property-list value (NSString, NSNumber, NSDate, NSData, NSNull, CSPerson or an array of them)")
        }
        var custom: [String: CustomAttribute] = [:]
        for (name, entry) in set.customAttributes {
            // Apple documents no check of a value's shape against `multiValued`: an array for a single-valued key
            // (or a scalar for a multi-valued one) is stored as given, and queries match any of an array's values.
            guard entry.value.nestingDepth() <= 1 else { throw invalid("custom key \"\(name)\" holds nested arrays") }
            try check(entry.value, name: name, invalid: invalid)
            total += entry.value.approximateByteCount
            custom[name] = CustomAttribute(
                value: entry.value, isSearchable: entry.key.isSearchable,
                isSearchableByDefault: entry.key.isSearchableByDefault, isUnique: entry.key.isUnique,
                isMultiValued: entry.key.isMultiValued)
        }
        guard total <= IndexLimits.maximumItemSize else {
            throw invalid("the item holds \(total) bytes; the limit is \(IndexLimits.maximumItemSize)")
        }
        var attributes = set.attributes
        // (Copied once at the size it grows to: the copy that the first insertion made, then grown for the second,
        // was a third of converting an item.)
        attributes.reserveCapacity(attributes.count + 2)
        // The index records the content type's conformance tree, so queries on a supertype find the item; the
        // app's attribute set is left as the app made it.
        if attributes["contentTypeTree"] == nil, case .string(let identifier)? = attributes["contentType"] {
            let type = UTType(identifier) ?? UTType(_unknownIdentifier: identifier)
            attributes["contentTypeTree"] = .array(type._conformanceTree.map { .string($0) })
        }
        // The item's domain is also readable as the attribute set's `domainIdentifier`.
        if attributes["domainIdentifier"] == nil, let domain { attributes["domainIdentifier"] = .string(domain) }
        let expiration = item.hasExplicitExpirationDate ? item.expirationDate! : CSSearchableItem.defaultExpiration(from: now)
        guard expiration.timeIntervalSinceReferenceDate.isFinite else { throw invalid("the expiration date is not finite") }
        return StoredItem(uniqueIdentifier: id, domainIdentifier: domain ?? set._string("domainIdentifier"),
                          expirationDate: expiration, attributes: attributes, customAttributes: custom)
    }

    /// The coordinates' valid ranges (a constant: written in the loop, the array was made for every item).
    private static let coordinateRanges = [("latitude", -90.0...90.0), ("longitude", -180.0...180.0)]

    private static func check(_ value: AttributeValue, name: String, invalid: (String) -> CSIndexError) throws {
        switch value {
        case .double(let d) where !d.isFinite:
            throw invalid("\(name) is \(d); numbers must be finite")
        case .date(let d) where !d.timeIntervalSinceReferenceDate.isFinite:
            throw invalid("\(name) is not a valid date")
        case .array(let a):
            for element in a { try check(element, name: name, invalid: invalid) }
        default:
            break
        }
        let size = value.approximateByteCount
        if size > IndexLimits.maximumValueSize {
            throw invalid("\(name) holds \(size) bytes; the limit for one value is \(IndexLimits.maximumValueSize)")
        }
    }

    /// Rebuilds an API item from a stored one, with only the wanted attributes (`nil`: all but `textContent`).
    static func searchableItem(_ stored: StoredItem, fetchAttributes: [String]?) -> CSSearchableItem {
        let set = CSSearchableItemAttributeSet()
        if let fetchAttributes {
            for name in fetchAttributes {
                if let descriptor = AttributeCatalog.descriptor(named: name), let value = stored.attributes[descriptor.name] {
                    set.attributes[descriptor.name] = value
                } else if let custom = stored.customAttributes[name],
                          let key = CSCustomAttributeKey(keyName: name, searchable: custom.isSearchable,
                                                         searchableByDefault: custom.isSearchableByDefault,
                                                         unique: custom.isUnique, multiValued: custom.isMultiValued) {
                    set.customAttributes[name] = (key, custom.value)
                }
            }
        } else {
            set.attributes = stored.attributes
            // As Apple's: textContent is searchable but never returned.
            set.attributes["textContent"] = nil
            for (name, custom) in stored.customAttributes {
                if let key = CSCustomAttributeKey(keyName: name, searchable: custom.isSearchable,
                                                  searchableByDefault: custom.isSearchableByDefault,
                                                  unique: custom.isUnique, multiValued: custom.isMultiValued) {
                    set.customAttributes[name] = (key, custom.value)
                }
            }
        }
        set.attributes["textContent"] = nil
        let item = CSSearchableItem(uniqueIdentifier: stored.uniqueIdentifier, domainIdentifier: stored.domainIdentifier,
                                    attributeSet: set)
        item.expirationDate = stored.expirationDate
        return item
    }
}
