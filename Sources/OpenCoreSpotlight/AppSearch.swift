import Foundation
import SpotlightEngine

/// Ranked free-text search over the app's own indexes, with explanations (beyond Apple). It, `CSUserQuery` and the
/// `spotlight` command search through the engine's one path (`AppIndexes`), so they agree on the same query.
///
/// ```swift
/// let results = try AppSearch().search("berry smo", limit: 5)
/// for result in results {
///     print(result.item.attributeSet.title ?? "", result.explanation)
/// }
/// ```
///
/// Typed text matches as Spotlight's search field does: every word must match a word of the item (case and
/// diacritics ignored), the last word as a prefix. Results are ordered by `Ranking` (see `RankingExplanation`).
public struct AppSearch: Sendable {
    /// The app whose indexes are searched.
    public let applicationIdentifier: String
    private let root: URL

    /// A search over the indexes of `applicationIdentifier` (default: this process's app).
    public init(applicationIdentifier: String = OpenSpotlight.applicationIdentifier, rootDirectory: URL? = nil) {
        self.applicationIdentifier = applicationIdentifier
        self.root = rootDirectory ?? OpenSpotlight.rootDirectory
    }

    /// One ranked result.
    public struct Result: Sendable {
        /// The item with every stored attribute except `textContent`.
        public var item: CSSearchableItem {
            ItemConversion.searchableItem(stored, fetchAttributes: nil)
        }
        /// The item's unique identifier.
        public var uniqueIdentifier: String { stored.uniqueIdentifier }
        /// The engine's copy of the item.
        package let stored: StoredItem
        /// The name of the index holding the item (`_default` for the default index).
        public let indexName: String
        /// Higher is better.
        public let score: Double
        /// Why the result scored what it did: its parts add up to `score`.
        public let explanation: Explanation
        /// The engine's explanation, for highlighting.
        package let ranking: RankingExplanation

        /// What matched, to show: the result's name (`title`, else `displayName`) with the typed words it matched,
        /// and the passage of its description or text that matches the most typed words. Computed when asked for.
        ///
        /// ```swift
        /// let h = result.highlights()
        /// h.name?.pieces.map { $0.isMatch ? "[\($0.text)]" : String($0.text) }.joined()   // "[Milk] Shake"
        /// h.snippet?.text                                                              // "Classic vanilla milk"
        /// ```
        ///
        /// - Parameter snippetLength: about how many characters the passage has (it ends between words).
        public func highlights(snippetLength: Int = 160) -> Highlights {
            let engine = HitHighlights(item: stored, explanation: ranking, snippetLength: snippetLength)
            return Highlights(name: engine.name.map(Highlight.init), snippet: engine.snippet.map(Highlight.init))
        }
    }

    /// A text of a result with the ranges the typed words matched (`Result.highlights`). Ours, beyond Apple's API.
    public struct Highlight: Sendable, Hashable {
        /// The attribute the text comes from: `title`, `displayName`, `contentDescription`, `textContent`, …
        public let attribute: String
        /// The text: the whole name, or a passage of a longer text, whitespace collapsed, with `…` where the text
        /// goes on.
        public let text: String
        /// The matched ranges of `text`, in order, not overlapping, on Character boundaries.
        public let ranges: [Range<String.Index>]

        /// The ranges as `NSRange`s (UTF-16 offsets), as `NSAttributedString` and Apple's text APIs count.
        public var nsRanges: [NSRange] { ranges.map { NSRange($0, in: text) } }

        /// `text` cut into matched and unmatched pieces, in order, for display.
        public var pieces: [(text: Substring, isMatch: Bool)] {
            var result: [(text: Substring, isMatch: Bool)] = []
            var last = text.startIndex
            for range in ranges {
                if last < range.lowerBound { result.append((text[last..<range.lowerBound], false)) }
                result.append((text[range], true))
                last = range.upperBound
            }
            if last < text.endIndex { result.append((text[last...], false)) }
            return result
        }

        init(_ engine: TextHighlight) {
            attribute = engine.attribute
            text = engine.text
            ranges = engine.ranges
        }
    }

    /// A result's name and snippet with what matched (`Result.highlights`).
    public struct Highlights: Sendable, Hashable {
        /// The name with the matched words; nil when the item has no title or display name.
        public let name: Highlight?
        /// The best matching passage of the description or text; nil when no typed word matches there.
        public let snippet: Highlight?
    }

    /// Why a result scored what it did (`Documentation/Ranking.md`): one entry per query word, plus the static
    /// signals. The parts add up to the result's score.
    public struct Explanation: Sendable, Hashable, CustomStringConvertible {
        /// How a query word matched a word of the item.
        public enum MatchKind: String, Sendable, Hashable {
            /// The word itself, or a word it begins (the word being typed).
            case exact, prefix
            /// Within the word's typo budget (`points` tell one typo of the whole word, 0.6 of the field's weight,
            /// from two or from a typo of a beginning only, 0.55).
            case typo

            init(_ engine: RankingExplanation.MatchKind) {
                switch engine {
                case .exact: self = .exact
                case .prefix: self = .prefix
                case .typo, .weakTypo: self = .typo
                }
            }
        }

        /// Where in the item a word matched, best first.
        public enum Field: Int, Sendable, Hashable {
            /// `title`, `displayName`.
            case name = 0
            /// `keywords`, `alternateNames`.
            case keywords = 1
            /// `contentDescription` and other descriptions.
            case description = 2
            /// `textContent`, other text, custom keys searchable by default.
            case body = 3
        }

        /// One query word's best match in the item.
        public struct WordMatch: Sendable, Hashable {
            public var queryWord: String
            /// The item's word (folded) it matched.
            public var matchedWord: String
            public var kind: MatchKind
            public var field: Field
            public var points: Double
        }

        public var words: [WordMatch]
        /// The typed text is the item's whole name (`title`, else `displayName`), after folding and joiners: 3.5, or
        /// 2.1 when it is once its misspelled words are corrected (`langauges` for `languages`).
        public var exactNamePoints: Double
        /// The first typed word matched the first word of the item's name.
        public var nameStartPoints: Double
        /// A typed word matched the item's name; more for a shorter name.
        public var nameLengthPoints: Double
        public var rankingHintPoints: Double
        public var recencyPoints: Double
        public var engagementPoints: Double
        /// The sum of every part: the result's score.
        public var total: Double
        public let description: String

        init(_ engine: RankingExplanation) {
            words = engine.words.map {
                WordMatch(queryWord: $0.queryWord, matchedWord: $0.matchedTerm,
                          kind: MatchKind($0.kind),
                          field: Field(rawValue: $0.tier) ?? .body, points: $0.points)
            }
            exactNamePoints = engine.exactNamePoints
            nameStartPoints = engine.nameStartPoints
            nameLengthPoints = engine.nameLengthPoints
            rankingHintPoints = engine.rankingHintPoints
            recencyPoints = engine.recencyPoints
            engagementPoints = engine.engagementPoints
            total = engine.total
            description = engine.description
        }
    }

    /// Searches the app's indexes for typed text.
    ///
    /// - Parameters:
    ///   - text: what the user typed. Empty text returns items by `rankingHint` and `lastUsedDate`.
    ///   - limit: the number of results, best first (0: all).
    ///   - boosts: extra points per unique identifier (engagement), bounded by the caller.
    public func search(_ text: String, limit: Int = 20, boosts: [String: Double] = [:]) throws -> [Result] {
        try search(text, limit: limit, boosts: boosts, filter: nil)
    }

    /// `search` with a predicate on the engine's items (the system's own filters).
    package func search(_ text: String, limit: Int = 20, boosts: [String: Double] = [:],
                        filter: (@Sendable (StoredItem) -> Bool)?) throws -> [Result] {
        var options = TextSearchOptions(limit: limit)
        options.boosts = boosts
        options.filter = filter
        do {
            // The one search path (`AppIndexes`): the app's own indexes, the one merge rule.
            return try AppIndexes(applicationIdentifier: applicationIdentifier, root: root).search(text, options: options).map {
                Result(stored: $0.hit.item, indexName: $0.indexName, score: $0.hit.score,
                       explanation: Explanation($0.hit.explanation), ranking: $0.hit.explanation)
            }
        } catch {
            throw CSIndexError.from(error)
        }
    }
}
