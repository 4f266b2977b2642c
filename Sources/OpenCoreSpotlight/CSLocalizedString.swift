import Foundation

/// A string with several localizations, usable wherever an attribute takes a string.
///
/// ```swift
/// let name = CSLocalizedString(localizedStrings: ["en": "Song", "fr": "Chanson"])
/// name.localizedString()          // "Chanson" for a French reader, "Song" otherwise
/// ```
///
/// The string's own characters (`length`, `character(at:)`, `description`) are those of the localization that
/// `localizedString()` returned when it was created.
///
/// Which localization is chosen: for each of the reader's preferred languages in order, the exact tag (`fr-CA`,
/// compared case-insensitively, `_` and `-` alike), then its language (`fr`), then another tag of that language
/// (`fr-FR`); then English (`en`); then the first tag in sorted order. Apple documents no order; this one is the
/// specification's.
///
/// On Linux, assigning a `CSLocalizedString` to a `String` attribute bridges it to a plain `String`, which keeps
/// only the chosen localization (see the deviation below).
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/cslocalizedstring>
open class CSLocalizedString: NSString {
    // Deviation: on Linux, `attributes.displayName = localized as String` (or any `String` property) bridges the
    // object to a native `String`, losing the subclass: the index stores only the localization chosen at assignment,
    // not all of them. On Apple platforms the bridged `String` keeps the `CSLocalizedString` and every localization.

    /// Language tag → localized text.
    internal let _localizations: [String: String]
    /// The text this string's characters are, in UTF-16.
    private let _utf16: [unichar]

    /// Creates a string from a dictionary of language tags (such as `"en"`, `"fr-CA"`) to localized text.
    ///
    /// Entries whose key or value is not a string are ignored.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cslocalizedstring/init(localizedstrings:)>
    public init(localizedStrings: [AnyHashable: Any]) {
        var localizations: [String: String] = [:]
        for (key, value) in localizedStrings {
            guard let tag = CSLocalizedString.string(key.base), let text = CSLocalizedString.string(value) else {
                continue
            }
            localizations[tag] = text
        }
        let utf16 = Array((CSLocalizedString._bestLocalization(localizations) ?? "").utf16)
        _localizations = localizations
        _utf16 = utf16
        #if canImport(Darwin)
        super.init()
        #else
        super.init(characters: utf16, length: utf16.count)
        #endif
    }

    /// Returns the localization for the reader's current language.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cslocalizedstring/localizedstring()>
    open func localizedString() -> String {
        Self._bestLocalization(_localizations) ?? ""
    }

    // MARK: - Choosing a localization

    /// The localization for the current preferred languages, or `nil` when there is none at all.
    internal static func _bestLocalization(_ localizations: [String: String]) -> String? {
        _bestLocalization(localizations, preferredLanguages: Locale.preferredLanguages)
    }

    /// The localization for the given preferred languages, in the documented fallback order.
    internal static func _bestLocalization(_ localizations: [String: String], preferredLanguages: [String])
        -> String?
    {
        guard !localizations.isEmpty else { return nil }
        let byTag = Dictionary(localizations.map { (normalized($0.key), $0.value) },
                               uniquingKeysWith: { first, _ in first })
        let sortedTags = byTag.keys.sorted()
        for preferred in preferredLanguages.map(normalized) {
            if let exact = byTag[preferred] { return exact }
            let language = languageSubtag(preferred)
            if let base = byTag[language] { return base }
            if let sibling = sortedTags.first(where: { languageSubtag($0) == language }) { return byTag[sibling] }
        }
        if let english = byTag["en"] { return english }
        return localizations[localizations.keys.sorted()[0]]
    }

    private static func normalized(_ tag: String) -> String {
        tag.replacingOccurrences(of: "_", with: "-").lowercased()
    }

    private static func languageSubtag(_ tag: String) -> String {
        String(tag.prefix { $0 != "-" })
    }

    private static func string(_ value: Any) -> String? {
        if let string = value as? String { return string }
        if let string = value as? NSString { return string as String }
        return nil
    }

    // MARK: - NSString

    open override var length: Int { _utf16.count }

    open override func character(at index: Int) -> unichar { _utf16[index] }

    /// A localized string is immutable: copies are the string itself.
    open override func copy(with zone: NSZone? = nil) -> Any { self }

    // MARK: - Required initializers

    /// Creates a string with one localization, for the `en` tag.
    public required convenience init(string aString: String) {
        self.init(localizedStrings: ["en": aString])
    }

    /// Creates a string with one localization, for the `en` tag.
    public required convenience init(stringLiteral value: StaticString) {
        self.init(string: value.description)
    }

    /// Creates a string with one localization, for the `en` tag.
    public required convenience init(unicodeScalarLiteral value: StaticString) {
        self.init(string: value.description)
    }

    /// Creates a string with one localization, for the `en` tag.
    public required convenience init(extendedGraphemeClusterLiteral value: StaticString) {
        self.init(string: value.description)
    }

    // MARK: - NSSecureCoding

    // Deviation: swift-corelibs-foundation's NSKeyedArchiver writes every NSString subclass as a plain string, so
    // archiving a CSLocalizedString on Linux keeps only its text; these methods keep every localization when called
    // directly.

    private static let localizationsKey = "CSLocalizedStrings"

    open override func encode(with coder: NSCoder) {
        let localizations = NSMutableDictionary()
        for (tag, text) in _localizations {
            localizations[NSString(string: tag)] = NSString(string: text)
        }
        coder.encode(localizations, forKey: Self.localizationsKey)
    }

    public required convenience init?(coder: NSCoder) {
        guard let dictionary = coder.decodeObject(of: [NSDictionary.self, NSString.self],
                                                  forKey: Self.localizationsKey) as? NSDictionary
        else { return nil }
        var localizations: [AnyHashable: Any] = [:]
        for (key, value) in dictionary {
            if let key = key as? NSString { localizations[key as String] = value }
        }
        self.init(localizedStrings: localizations)
    }
}
