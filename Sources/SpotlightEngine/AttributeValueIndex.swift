import Foundation

/// Which attribute values go into the `attrValue` table: every number, Boolean (0/1) and date (seconds since
/// 2001-01-01) of the built-in attributes, under their canonical name, and of searchable custom keys, under the
/// key name. Array elements are indexed one by one.
enum AttributeValueIndex {
    /// The `attrValue.attr` of an attribute name (format 5): a 31-bit FNV-1a hash of its UTF-8 bytes, 4 bytes in a
    /// row where the name took up to 30 (`contentModificationDate` is 23; PyPI's 886,000 dates took 37 MB, now 19).
    /// Two names with one code only widen a lookup: every item a lookup names is checked against the whole query
    /// or filter, as the items a term lookup names are.
    static func code(_ name: String) -> Int64 {
        var hash: UInt32 = 0x811C_9DC5
        for byte in name.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        return Int64(hash & 0x7FFF_FFFF)
    }

    struct Entry: Hashable {
        var attribute: String
        var value: Double
    }

    static func values(attributes: [String: AttributeValue], custom: [String: CustomAttribute]) -> Set<Entry> {
        var result = Set<Entry>()
        func add(_ name: String, _ value: AttributeValue) {
            for element in value.elements {
                switch element {
                case .int, .double, .bool:
                    if let n = element.numericValue, n.isFinite { result.insert(Entry(attribute: name, value: n)) }
                case .date(let d):
                    let t = d.timeIntervalSinceReferenceDate
                    if t.isFinite { result.insert(Entry(attribute: name, value: t)) }
                default:
                    break
                }
            }
        }
        for (name, value) in attributes { add(name, value) }
        for (name, attribute) in custom where attribute.isSearchable { add(name, attribute.value) }
        return result
    }
}
