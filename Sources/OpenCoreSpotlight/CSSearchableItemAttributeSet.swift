import Foundation
import SpotlightEngine

/// A set of attributes that describes an item's content for search.
///
/// ```swift
/// let attributes = CSSearchableItemAttributeSet(contentType: .text)
/// attributes.title = "Brent Reid"
/// attributes.contentDescription = "Engineering"
/// ```
///
/// Every attribute is optional; an attribute that was never set is absent and is neither stored nor searched.
/// The typed properties live in the category files (`CSSearchableItemAttributeSet+General.swift`, …), named after
/// Apple's header categories.
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset>
open class CSSearchableItemAttributeSet: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: like Apple's class, an attribute set must be mutated from one thread at a time; it is
    // copied (value snapshot) when handed to the index, so the index never shares it.

    /// Attribute name (the Swift property name, e.g. `"title"`) → value.
    internal var attributes: [String: AttributeValue] = [:]
    /// Names of attributes that were explicitly set to `nil`: with `CSSearchableItem.isUpdate`, they are removed
    /// from the stored item.
    internal var clearedAttributes: Set<String> = []
    /// Custom attribute values, by key name, with the key that declares their behaviour.
    internal var customAttributes: [String: (key: CSCustomAttributeKey, value: AttributeValue)] = [:]
    /// Custom keys explicitly set to `nil`.
    internal var clearedCustomKeys: [String: CSCustomAttributeKey] = [:]

    /// Creates an empty attribute set with no content type.
    public override init() {
        super.init()
    }

    /// Creates an attribute set for the given content type.
    ///
    /// `contentType` is set to the type's identifier. When the item is indexed, the index also records
    /// `contentTypeTree` (the type and the types it conforms to, most specific first) unless the app set it, so
    /// `contentTypeTree == "public.image"` finds JPEG items; the attribute set itself keeps `contentTypeTree` nil,
    /// as Apple's does.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/init(contenttype:)>
    public convenience init(contentType: UTType) {
        self.init()
        // Room for what an app sets next (a title, a description, keywords, dates…) and the two attributes the
        // index adds (`ItemConversion`): grown from empty one attribute at a time, the dictionary is reallocated
        // and rehashed at its second, fourth and seventh attribute, and the index's copy grew it again.
        attributes.reserveCapacity(CSSearchableItemAttributeSet.initialCapacity)
        attributes["contentType"] = .string(contentType.identifier)
    }

    /// How many attributes a set made with a content type has room for before it grows.
    static let initialCapacity = 8

    /// Creates an attribute set for the given uniform type identifier string.
    ///
    /// Apple marks this initializer "to be deprecated" in favour of `init(contentType:)`, which does not warn; so
    /// it does not warn here either.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/init(itemcontenttype:)>
    public convenience init(itemContentType: String) {
        self.init(contentType: UTType(itemContentType) ?? UTType(_unknownIdentifier: itemContentType))
    }

    public func copy(with zone: NSZone? = nil) -> Any {
        let copy = CSSearchableItemAttributeSet()
        copy.attributes = attributes
        copy.clearedAttributes = clearedAttributes
        copy.customAttributes = customAttributes
        copy.clearedCustomKeys = clearedCustomKeys
        return copy
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CSSearchableItemAttributeSet else { return false }
        return attributes == other.attributes
            && customAttributes.mapValues(\.value) == other.customAttributes.mapValues(\.value)
    }

    open override var hash: Int {
        attributes.count ^ customAttributes.count
    }

    open override var description: String {
        let names = (attributes.keys.sorted() + customAttributes.keys.sorted()).joined(separator: ", ")
        return "<CSSearchableItemAttributeSet: \(names)>"
    }

    // MARK: - Custom attributes

    /// Sets the value of a custom attribute.
    ///
    /// Values must be property-list scalars (`NSString`, `NSNumber`, `NSNull`, `NSData`, `NSDate`), `CSPerson`, or
    /// arrays of these; `nil` removes the value. A value of another type is remembered as invalid and makes
    /// `indexSearchableItems` fail with `CSIndexError.invalidItemError`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/setvalue(_:forcustomkey:)>
    public func setValue(_ value: (any NSSecureCoding)?, forCustomKey key: CSCustomAttributeKey) {
        guard let value else {
            customAttributes[key.keyName] = nil
            clearedCustomKeys[key.keyName] = key
            return
        }
        clearedCustomKeys[key.keyName] = nil
        let converted = Self.attributeValue(fromObject: value)
        customAttributes[key.keyName] = (key, converted ?? .array([.null, .null]))
        if converted == nil {
            invalidCustomKeys.insert(key.keyName)
        } else {
            invalidCustomKeys.remove(key.keyName)
        }
    }

    /// Names of custom keys whose value was of an unsupported type.
    internal var invalidCustomKeys: Set<String> = []

    /// Returns the value of a custom attribute, or `nil` if it is not set.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/value(forcustomkey:)>
    public func value(forCustomKey key: CSCustomAttributeKey) -> (any NSSecureCoding)? {
        guard let entry = customAttributes[key.keyName], !invalidCustomKeys.contains(key.keyName) else { return nil }
        return Self.object(from: entry.value)
    }

    // MARK: - Typed storage used by the category files

    internal func _value(_ name: String) -> AttributeValue? { attributes[name] }

    internal func _setValue(_ name: String, _ value: AttributeValue?) {
        if let value {
            attributes[name] = value
            // (Most sets never clear an attribute: the name is not hashed again for an empty set.)
            if !clearedAttributes.isEmpty { clearedAttributes.remove(name) }
        } else {
            attributes[name] = nil
            clearedAttributes.insert(name)
        }
    }

    internal func _string(_ name: String) -> String? {
        switch attributes[name] {
        case .string(let s): return s
        case .localized(let l): return CSLocalizedString._bestLocalization(l)
        default: return nil
        }
    }

    internal func _setString(_ name: String, _ value: String?) {
        if let localized = value.flatMap({ $0 as Any as? CSLocalizedString }) {
            _setValue(name, .localized(localized._localizations))
        } else {
            _setValue(name, value.map { .string($0) })
        }
    }

    internal func _strings(_ name: String) -> [String]? {
        guard case .array(let a) = attributes[name] else { return nil }
        return a.compactMap { if case .string(let s) = $0 { return s } else { return nil } }
    }

    internal func _setStrings(_ name: String, _ value: [String]?) {
        _setValue(name, value.map { .array($0.map { .string($0) }) })
    }

    internal func _number(_ name: String) -> NSNumber? {
        switch attributes[name] {
        case .bool(let b): return NSNumber(value: b)
        case .int(let i): return NSNumber(value: i)
        case .double(let d): return NSNumber(value: d)
        default: return nil
        }
    }

    internal func _setNumber(_ name: String, _ value: NSNumber?) {
        _setValue(name, value.map(Self.attributeValue(from:)))
    }

    internal func _date(_ name: String) -> Date? {
        guard case .date(let d) = attributes[name] else { return nil }
        return d
    }

    internal func _setDate(_ name: String, _ value: Date?) {
        _setValue(name, value.map { .date($0) })
    }

    internal func _dates(_ name: String) -> [Date]? {
        guard case .array(let a) = attributes[name] else { return nil }
        return a.compactMap { if case .date(let d) = $0 { return d } else { return nil } }
    }

    internal func _setDates(_ name: String, _ value: [Date]?) {
        _setValue(name, value.map { .array($0.map { .date($0) }) })
    }

    internal func _url(_ name: String) -> URL? {
        guard case .url(let u) = attributes[name] else { return nil }
        return u
    }

    internal func _setURL(_ name: String, _ value: URL?) {
        _setValue(name, value.map { .url($0) })
    }

    internal func _data(_ name: String) -> Data? {
        guard case .data(let d) = attributes[name] else { return nil }
        return d
    }

    internal func _setData(_ name: String, _ value: Data?) {
        _setValue(name, value.map { .data($0) })
    }

    internal func _persons(_ name: String) -> [CSPerson]? {
        guard case .array(let a) = attributes[name] else { return nil }
        return a.compactMap { if case .person(let p) = $0 { return CSPerson(p) } else { return nil } }
    }

    internal func _setPersons(_ name: String, _ value: [CSPerson]?) {
        _setValue(name, value.map { .array($0.map { .person($0._value) }) })
    }

    // MARK: - Conversions between Foundation objects and engine values

    internal static func attributeValue(from number: NSNumber) -> AttributeValue {
        // Booleans are a distinct NSNumber subclass (`__NSCFBoolean`); `objCType` tells floating point ("f"/"d").
        if String(describing: type(of: number)).hasSuffix("Boolean") { return .bool(number.boolValue) }
        switch String(cString: number.objCType) {
        case "f", "d":
            return .double(number.doubleValue)
        default:
            return .int(number.int64Value)
        }
    }

    internal static func attributeValue(fromObject object: Any) -> AttributeValue? {
        switch object {
        case let s as String: return .string(s)
        case let s as NSString: return .string(s as String)
        case let n as NSNumber: return attributeValue(from: n)
        case is NSNull: return .null
        case let d as Data: return .data(d)
        case let d as NSData: return .data(d as Data)
        case let d as Date: return .date(d)
        case let d as NSDate: return .date(d as Date)
        case let p as CSPerson: return .person(p._value)
        case let u as URL: return .url(u)
        case let u as NSURL: return (u as URL?).map { .url($0) }
        case let a as [Any]:
            return arrayValue(a)
        case let a as NSArray:
            return arrayValue(a.map { $0 })
        default:
            return nil
        }
    }

    /// An array of plain values; an array inside is refused before it is converted, so a value nested thousands
    /// deep is rejected at once instead of recursing through it.
    private static func arrayValue(_ elements: [Any]) -> AttributeValue? {
        var values: [AttributeValue] = []
        values.reserveCapacity(elements.count)
        for element in elements {
            if element is [Any] || element is NSArray { return nil }
            guard let v = attributeValue(fromObject: element) else { return nil }
            values.append(v)
        }
        return .array(values)
    }

    internal static func object(from value: AttributeValue) -> (any NSSecureCoding)? {
        switch value {
        case .string(let s): return NSString(string: s)
        case .int(let i): return NSNumber(value: i)
        case .double(let d): return NSNumber(value: d)
        case .bool(let b): return NSNumber(value: b)
        case .date(let d): return NSDate(timeIntervalSinceReferenceDate: d.timeIntervalSinceReferenceDate)
        case .data(let d): return NSData(data: d)
        case .url(let u): return NSURL(string: u.absoluteString)
        case .person(let p): return CSPerson(p)
        case .localized(let l): return NSString(string: CSLocalizedString._bestLocalization(l) ?? "")
        case .array(let a): return NSArray(array: a.compactMap { object(from: $0) })
        case .null: return NSNull()
        }
    }
}
