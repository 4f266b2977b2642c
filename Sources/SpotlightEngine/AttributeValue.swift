import Foundation

/// A value stored in an item's attribute dictionary.
///
/// The engine never sees Apple's Objective-C-shaped types (`NSNumber`, `CSPerson`, …): the API layer converts them to
/// `AttributeValue` on the way in and back on the way out, preserving the kind (a `Bool` stays a `Bool`, a `Date`
/// stays a `Date`) so that values round-trip type-exactly.
package enum AttributeValue: Sendable, Hashable {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case date(Date)
    case data(Data)
    case url(URL)
    /// A person: display name, handles (phone numbers, e-mail addresses…), the handle kind and an optional contact id.
    case person(PersonValue)
    /// Localizations of one string, language tag → text (`CSLocalizedString`).
    case localized([String: String])
    case array([AttributeValue])
    /// `NSNull` stored as a custom attribute value.
    case null
}

/// The engine's representation of `CSPerson`.
package struct PersonValue: Sendable, Hashable {
    package var displayName: String?
    package var handles: [String]
    package var handleIdentifier: String
    package var contactIdentifier: String?

    package init(displayName: String?, handles: [String], handleIdentifier: String, contactIdentifier: String? = nil) {
        self.displayName = displayName
        self.handles = handles
        self.handleIdentifier = handleIdentifier
        self.contactIdentifier = contactIdentifier
    }
}

extension AttributeValue {
    /// The deepest nesting of arrays the engine stores (a plain value has depth 0, an array of strings depth 1).
    /// Deeper values are refused with `.invalidItem` when written and are damage when read (`ValueCodec`), so no
    /// path recurses deeper than this.
    package static let maximumNestingDepth = 64

    /// How deeply arrays nest in this value, counted without recursion (a hostile value may nest deeper than the
    /// stack allows) and without looking further than one level past `limit`.
    package func nestingDepth(upTo limit: Int = AttributeValue.maximumNestingDepth) -> Int {
        // (Most values are not arrays: no work list for them. Validating a bulk load's values allocated one each.)
        guard case .array(let elements) = self else { return 0 }
        // A flat array (a content type's tree, keywords: most arrays) is one deep, without a work list (a bulk load
        // checks every item's, in the API's conversion and again before its write).
        if !elements.contains(where: { if case .array = $0 { return true } else { return false } }) { return 1 }
        var deepest = 0
        var pending: [(AttributeValue, Int)] = [(self, 0)]
        while let (value, depth) = pending.popLast() {
            guard case .array(let elements) = value else { continue }
            let inner = depth + 1
            deepest = max(deepest, inner)
            if inner > limit { return inner }
            for element in elements {
                if case .array = element { pending.append((element, inner)) }
            }
        }
        return deepest
    }

    /// Every string this value contributes to text search, in order (array elements, a person's name and handles,
    /// every localization).
    package var searchableStrings: [String] {
        switch self {
        case .string(let s): return [s]
        case .url(let u): return [u.absoluteString]
        case .person(let p): return (p.displayName.map { [$0] } ?? []) + p.handles
        case .localized(let l): return l.keys.sorted().compactMap { l[$0] }
        case .array(let a): return a.flatMap(\.searchableStrings)
        case .int, .double, .bool, .date, .data, .null: return []
        }
    }

    /// Calls `body` with each of `searchableStrings`, in order, without gathering them in an array (a bulk load
    /// asks every value of every item).
    package func forEachSearchableString(_ body: (String) -> Void) {
        switch self {
        case .string(let s): body(s)
        case .array(let a): for element in a { element.forEachSearchableString(body) }
        case .int, .double, .bool, .date, .data, .null: break
        default: for s in searchableStrings { body(s) }
        }
    }

    /// The elements of an array value, or the value itself.
    package var elements: [AttributeValue] {
        if case .array(let a) = self { return a }
        return [self]
    }

    /// The numeric value, if this is a number or a Boolean (stored as 0/1).
    package var numericValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .bool(let b): return b ? 1 : 0
        default: return nil
        }
    }

    /// A rough size in bytes, used for the documented per-value limits.
    package var approximateByteCount: Int {
        switch self {
        case .string(let s): return s.utf8.count
        case .int, .double, .date: return 8
        case .bool: return 1
        case .data(let d): return d.count
        case .url(let u): return u.absoluteString.utf8.count
        case .person(let p):
            return (p.displayName?.utf8.count ?? 0) + p.handles.reduce(0) { $0 + $1.utf8.count }
                + p.handleIdentifier.utf8.count + (p.contactIdentifier?.utf8.count ?? 0)
        case .localized(let l): return l.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        case .array(let a): return a.reduce(0) { $0 + $1.approximateByteCount }
        case .null: return 0
        }
    }
}
