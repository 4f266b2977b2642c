import Foundation
import GRDB
import OpenCoreSpotlight

/// An attribute of `CSSearchableItemAttributeSet` that a declared value feeds.
///
/// The common ones are static members (`.title`, `.keywords`…); any other attribute of the catalogue is named by
/// its key path, and custom attributes by their key:
///
/// ```swift
/// attributes: [
///     .title: .column("name"),
///     SpotlightAttribute("city", \.city): .column("town"),
///     .custom(CSCustomAttributeKey(keyName: "com_example_stars")!): .column("stars"),
/// ]
/// ```
///
/// Database values are converted to the attribute's type: text and numbers to strings, several values joined with
/// ", " for a single-valued text attribute; dates from GRDB's date formats or Unix timestamps; numbers from integers,
/// reals or numeric text; URLs from text. NULL values are skipped.
public struct SpotlightAttribute: Sendable, Hashable, CustomStringConvertible {
    typealias Path<Value> = ReferenceWritableKeyPath<CSSearchableItemAttributeSet, Value> & Sendable

    enum Setter: Sendable {
        case string(Path<String?>)
        case strings(Path<[String]?>)
        case date(Path<Date?>)
        case number(Path<NSNumber?>)
        case url(Path<URL?>)
        case custom(CSCustomAttributeKey)
    }

    /// The attribute's name, as in queries (`title`, `keywords`, or the custom key's name).
    public let name: String
    let setter: Setter

    /// A text attribute.
    public init(_ name: String, _ keyPath: ReferenceWritableKeyPath<CSSearchableItemAttributeSet, String?> & Sendable) {
        self.name = name
        self.setter = .string(keyPath)
    }

    /// A multi-valued text attribute.
    public init(_ name: String, _ keyPath: ReferenceWritableKeyPath<CSSearchableItemAttributeSet, [String]?> & Sendable) {
        self.name = name
        self.setter = .strings(keyPath)
    }

    /// A date attribute.
    public init(_ name: String, _ keyPath: ReferenceWritableKeyPath<CSSearchableItemAttributeSet, Date?> & Sendable) {
        self.name = name
        self.setter = .date(keyPath)
    }

    /// A number attribute.
    public init(_ name: String, _ keyPath: ReferenceWritableKeyPath<CSSearchableItemAttributeSet, NSNumber?> & Sendable) {
        self.name = name
        self.setter = .number(keyPath)
    }

    /// A URL attribute.
    public init(_ name: String, _ keyPath: ReferenceWritableKeyPath<CSSearchableItemAttributeSet, URL?> & Sendable) {
        self.name = name
        self.setter = .url(keyPath)
    }

    /// A custom attribute. Text stays text, numbers become `NSNumber`, blobs `NSData`; a multi-valued key gets an
    /// array of every value.
    public static func custom(_ key: CSCustomAttributeKey) -> SpotlightAttribute {
        SpotlightAttribute(name: key.keyName, setter: .custom(key))
    }

    private init(name: String, setter: Setter) {
        self.name = name
        self.setter = setter
    }

    public var description: String { name }
    public static func == (lhs: SpotlightAttribute, rhs: SpotlightAttribute) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    // MARK: - The common attributes

    public static let displayName = SpotlightAttribute("displayName", \.displayName)
    public static let title = SpotlightAttribute("title", \.title)
    public static let contentDescription = SpotlightAttribute("contentDescription", \.contentDescription)
    public static let keywords = SpotlightAttribute("keywords", \.keywords)
    public static let alternateNames = SpotlightAttribute("alternateNames", \.alternateNames)
    public static let textContent = SpotlightAttribute("textContent", \.textContent)
    public static let comment = SpotlightAttribute("comment", \.comment)
    public static let authorNames = SpotlightAttribute("authorNames", \.authorNames)
    public static let namedLocation = SpotlightAttribute("namedLocation", \.namedLocation)
    public static let contentCreationDate = SpotlightAttribute("contentCreationDate", \.contentCreationDate)
    public static let contentModificationDate = SpotlightAttribute("contentModificationDate", \.contentModificationDate)
    public static let rating = SpotlightAttribute("rating", \.rating)
    public static let contentURL = SpotlightAttribute("contentURL", \.contentURL)

    // MARK: - Applying values

    /// Sets the attribute on `set` from the non-NULL `values`; no values leave it unset.
    func apply(_ values: [DatabaseValue], to set: CSSearchableItemAttributeSet) {
        let values = values.filter { !$0.isNull }
        guard !values.isEmpty else { return }
        switch setter {
        case .string(let path):
            let strings = values.compactMap(Self.string(from:))
            if !strings.isEmpty { set[keyPath: path] = strings.joined(separator: ", ") }
        case .strings(let path):
            let strings = values.compactMap(Self.string(from:))
            if !strings.isEmpty { set[keyPath: path] = strings }
        case .date(let path):
            if let date = values.lazy.compactMap(Self.date(from:)).first { set[keyPath: path] = date }
        case .number(let path):
            if let number = values.lazy.compactMap(Self.number(from:)).first { set[keyPath: path] = number }
        case .url(let path):
            if let url = values.lazy.compactMap(Self.string(from:)).compactMap({ URL(string: $0) }).first {
                set[keyPath: path] = url
            }
        case .custom(let key):
            let objects = values.compactMap(Self.object(from:))
            if key.isMultiValued {
                set.setValue(NSArray(array: objects), forCustomKey: key)
            } else if let first = objects.first {
                set.setValue(first, forCustomKey: key)
            }
        }
    }

    static func string(from value: DatabaseValue) -> String? {
        switch value.storage {
        case .string(let s): return s
        case .int64(let i): return String(i)
        case .double(let d): return d.rounded() == d && abs(d) < 1e15 ? String(Int64(d)) : String(d)
        case .blob(let data): return String(data: data, encoding: .utf8)
        case .null: return nil
        }
    }

    static func date(from value: DatabaseValue) -> Date? {
        switch value.storage {
        case .int64(let i): return Date(timeIntervalSince1970: TimeInterval(i))
        case .double(let d): return Date(timeIntervalSince1970: d)
        default: return Date.fromDatabaseValue(value)
        }
    }

    static func number(from value: DatabaseValue) -> NSNumber? {
        switch value.storage {
        case .int64(let i): return NSNumber(value: i)
        case .double(let d): return NSNumber(value: d)
        case .string(let s):
            if let i = Int64(s) { return NSNumber(value: i) }
            return Double(s).map { NSNumber(value: $0) }
        default: return nil
        }
    }

    static func object(from value: DatabaseValue) -> (any NSSecureCoding)? {
        switch value.storage {
        case .string(let s): return NSString(string: s)
        case .int64(let i): return NSNumber(value: i)
        case .double(let d): return NSNumber(value: d)
        case .blob(let data): return NSData(data: data)
        case .null: return nil
        }
    }
}
