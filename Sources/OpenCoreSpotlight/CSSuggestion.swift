import Foundation

/// The attribute that marks the part of a suggestion to emphasise: the text the user has not typed yet.
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/cssuggestionhighlightattributename>
public let CSSuggestionHighlightAttributeName = NSAttributedString.Key("CSSuggestionHighlightAttributeName")

extension NSAttributedString.Key {
    /// The suggestion highlight attribute (`CSSuggestionHighlightAttributeName`).
    public static let suggestionHighlight = CSSuggestionHighlightAttributeName
}

/// The `AttributedString` key of the suggestion highlight: `true` on the part to emphasise.
public enum SuggestionHighlightAttribute: AttributedStringKey {
    public typealias Value = Bool
    public static let name = "CSSuggestionHighlightAttributeName"
}

extension AttributeScopes {
    /// Core Spotlight's attributes for `AttributedString`.
    public struct CoreSpotlightAttributes: AttributeScope {
        public let suggestionHighlight: SuggestionHighlightAttribute
    }

    public var coreSpotlight: CoreSpotlightAttributes.Type { CoreSpotlightAttributes.self }
}

extension AttributeDynamicLookup {
    public subscript<T: AttributedStringKey>(
        dynamicMember keyPath: KeyPath<AttributeScopes.CoreSpotlightAttributes, T>
    ) -> T {
        self[T.self]
    }
}

/// A completion or correction of what the user typed, from the app's indexed words and past searches.
///
/// Suggestions of a `CSUserQuery` come from, best first: queries the user engaged with before that start with the
/// typed text; the typed words with the last one completed (and a misspelled word corrected) from the words of the
/// app's live items, most frequent first. A suggestion is offered only when it finds at least one live item.
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/cssuggestion>
open class CSSuggestion: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: every stored property is immutable.

    /// The suggested query text.
    internal let text: String
    /// What the user had typed.
    internal let typed: String
    /// Position in the ranked list (0 = best), when ranked.
    internal let rank: Int?
    /// Higher is better.
    internal let score: Double
    private let kind: SuggestionKind

    internal init(text: String, typed: String, rank: Int?, score: Double, kind: SuggestionKind = .default) {
        self.text = text
        self.typed = typed
        self.rank = rank
        self.score = score
        self.kind = kind
        super.init()
    }

    /// The suggestion to show, with the part the user has not typed marked with `CSSuggestionHighlightAttributeName`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssuggestion/localizedattributedsuggestion>
    open var localizedAttributedSuggestion: AttributedString {
        var string = AttributedString(text)
        let typedPrefix = typedPrefixLength
        if typedPrefix < text.count {
            let start = string.index(string.startIndex, offsetByCharacters: typedPrefix)
            string[start..<string.endIndex][SuggestionHighlightAttribute.self] = true
        }
        return string
    }

    /// How many leading characters of the suggestion the user already typed (case and diacritics ignored).
    internal var typedPrefixLength: Int {
        var count = 0
        for (a, b) in zip(text, typed) {
            guard String(a).compare(String(b), options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame else { break }
            count += 1
        }
        return count
    }

    /// What kind of suggestion this is.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssuggestion/suggestionkind-swift.property>
    open var suggestionKind: SuggestionKind { kind }

    /// Orders ranked suggestions: `.orderedAscending` when `self` ranks before `other`. Ranked before unranked;
    /// then by score, then by text.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssuggestion/compare(byrank:)>
    open func compare(byRank other: CSSuggestion) -> ComparisonResult {
        switch (rank, other.rank) {
        case let (a?, b?) where a != b: return a < b ? .orderedAscending : .orderedDescending
        case (.some, nil): return .orderedAscending
        case (nil, .some): return .orderedDescending
        default: return compare(other)
        }
    }

    /// A total order of suggestions: `.default` before `.custom` before `.none`, then higher score first, then
    /// the text (case-insensitive).
    // Deviation: Apple's `compare(_:)` only tests equality; this is a real ordering.
    open func compare(_ other: CSSuggestion) -> ComparisonResult {
        func order(_ k: SuggestionKind) -> Int { k == .default ? 0 : (k == .custom ? 1 : 2) }
        if order(kind) != order(other.kind) { return order(kind) < order(other.kind) ? .orderedAscending : .orderedDescending }
        if score != other.score { return score > other.score ? .orderedAscending : .orderedDescending }
        return text.caseInsensitiveCompare(other.text)
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CSSuggestion else { return false }
        return text == other.text && kind == other.kind
    }

    open override var hash: Int { text.hashValue }

    open override var description: String { "<CSSuggestion: \(text)>" }

    /// Kinds of suggestion.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssuggestion/suggestionkind-swift.enum>
    public enum SuggestionKind: Int, Sendable, Hashable {
        case none = 0
        case custom = 1
        case `default` = 2
    }
}
