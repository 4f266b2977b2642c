import Foundation

/// Which attribute values go into the `attrValue` table: every number, Boolean (0/1) and date (seconds since
/// 2001-01-01) of the built-in attributes, under their canonical name, and of searchable custom keys, under the
/// key name. Array elements are indexed one by one.
enum AttributeValueIndex {
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
