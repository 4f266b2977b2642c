import Foundation

/// Something a compiled query can be evaluated against: one searchable item as the query language sees it.
///
/// ```swift
/// struct Note: QueryItem {
///     var title: String
///     func queryValues(forAttribute name: String) -> [QueryValue]? {
///         name == "title" || name == "kMDItemTitle" ? [.string(title)] : nil
///     }
///     func defaultSearchableText() -> [String] { [title] }
/// }
/// ```
public protocol QueryItem {
    /// The values of an attribute, or `nil` if the item does not have it.
    ///
    /// - Parameter name: the attribute name exactly as written in the query (`title`, `kMDItemTitle`, a custom
    ///   key's name); resolving aliases is the implementer's job. Names are case-sensitive.
    /// - Returns: one value for a single-valued attribute, every element for a multi-valued one; `nil` (or an
    ///   empty array, treated the same) when absent. Booleans are numbers 0 and 1.
    func queryValues(forAttribute name: String) -> [QueryValue]?

    /// Every text value searched by the `*` and `**` attributes: all string and string-array attributes and
    /// custom string keys that are searchable by default.
    func defaultSearchableText() -> [String]
}

/// One attribute value as the query language compares it.
public enum QueryValue: Sendable, Hashable {
    /// Text, compared with string patterns.
    case string(String)
    /// A number (integers, doubles, booleans as 0/1), compared with numbers.
    case number(Double)
    /// A point in time, compared with `$time` expressions and with numbers (seconds since 2001-01-01T00:00:00Z).
    case date(Date)
}
