import Foundation
import SpotlightEngine

/// Ranked free-text search over every index of one app, with explanations. Beyond Apple: `CSUserQuery` is built on
/// it, and the `spotlight` command uses it for every app on the machine.
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
        var results: [Result] = []
        do {
            for name in StoreLocation.indexNames(app: applicationIdentifier, root: root) {
                let store = try StoreRegistry.store(app: applicationIdentifier, indexName: name, root: root, create: false)
                results += try store.search(text, options: options).map {
                    Result(stored: $0.item, indexName: name, score: $0.score, explanation: $0.explanation)
                }
            }
        } catch {
            throw CSIndexError.from(error)
        }
        results.sort {
            $0.score != $1.score ? $0.score > $1.score : $0.stored.uniqueIdentifier < $1.stored.uniqueIdentifier
        }
        if limit > 0, results.count > limit { results.removeLast(results.count - limit) }
        return results
    }
}
