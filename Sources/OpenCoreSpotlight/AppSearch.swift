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
        /// The engine's copy of the item.
        public let stored: StoredItem
        /// The name of the index holding the item (`_default` for the default index).
        public let indexName: String
        /// Higher is better.
        public let score: Double
        /// Why the result scored what it did.
        public let explanation: RankingExplanation
    }

    /// Searches the app's indexes for typed text.
    ///
    /// - Parameters:
    ///   - text: what the user typed. Empty text returns items by `rankingHint` and `lastUsedDate`.
    ///   - limit: the number of results, best first (0: all).
    ///   - boosts: extra points per unique identifier (engagement), bounded by the caller.
    public func search(_ text: String, limit: Int = 20, boosts: [String: Double] = [:],
                       filter: (@Sendable (StoredItem) -> Bool)? = nil) throws -> [Result] {
        var options = TextSearchOptions(limit: limit)
        options.boosts = boosts
        options.filter = filter
        do {
            // The one search path (`AppIndexes`): the app's own indexes, the one merge rule.
            return try AppIndexes(applicationIdentifier: applicationIdentifier, root: root).search(text, options: options).map {
                Result(stored: $0.hit.item, indexName: $0.indexName, score: $0.hit.score, explanation: $0.hit.explanation)
            }
        } catch {
            throw CSIndexError.from(error)
        }
    }
}
