import Foundation

/// One app's indexes behind one API: which indexes are the app's, opening them, and ranked search across them
/// with the one merge rule. `AppSearch`, `CSUserQuery`, `CSSearchQuery` and the system search (`spotlight`) all
/// go through it, so the same query over the same stores gives the same results whichever asks.
///
/// ```swift
/// let indexes = AppIndexes(applicationIdentifier: "com.example.smoothies", root: root)
/// let hits = try indexes.search("berry", options: TextSearchOptions(limit: 20))
/// ```
///
/// The app's indexes are its default index and its named ones; system indexes (`_activities`, and any other name
/// starting with `_`) hold what the system shows and are not the app's items. Merged hits are ordered by score
/// (higher first), then unique identifier, then index name, so equal scores always come out in the same order.
package struct AppIndexes: Sendable {
    package let applicationIdentifier: String
    package let root: URL

    package init(applicationIdentifier: String, root: URL) {
        self.applicationIdentifier = applicationIdentifier
        self.root = root
    }

    /// Whether an index name is one of the app's own indexes (not a system index).
    package static func isAppIndex(_ name: String) -> Bool {
        name == StoreLocation.defaultIndexName || !name.hasPrefix("_")
    }

    /// The app's own indexes that have a store file, by name.
    package func indexNames() -> [String] {
        StoreLocation.indexNames(app: applicationIdentifier, root: root).filter(Self.isAppIndex)
    }

    /// Opens the app's own indexes (never creating one). An index that cannot be opened fails the call; one removed
    /// since it was listed is left out.
    package func stores() throws -> [(name: String, store: IndexStore)] {
        try indexNames().compactMap { name in
            do {
                return (name, try StoreRegistry.store(app: applicationIdentifier, indexName: name, root: root, create: false))
            } catch let error as EngineError where error.code == .indexUnavailable
                && !FileManager.default.fileExists(atPath: StoreLocation.storeURL(app: applicationIdentifier, indexName: name, root: root).path) {
                return nil
            }
        }
    }

    /// The app's own indexes, as `stores()` gives them, when every one is open in this process already and has a
    /// reader free (else `nil`): then a short read may run on a thread that must not wait (opening a store can
    /// take tens of milliseconds).
    package func storesReadableWithoutWaiting() -> [(name: String, store: IndexStore)]? {
        var open: [(name: String, store: IndexStore)] = []
        for name in indexNames() {
            let url = StoreLocation.storeURL(app: applicationIdentifier, indexName: name, root: root)
            guard let store = StoreRegistry.openStore(at: url), store.hasFreeReader else { return nil }
            open.append((name, store))
        }
        return open
    }

    /// A hit and the index it came from.
    package struct Hit: Sendable {
        package var indexName: String
        package var hit: SearchHit
        package init(indexName: String, hit: SearchHit) {
            self.indexName = indexName
            self.hit = hit
        }
    }

    /// The one merge rule: score (higher first), then unique identifier, then index name; the best `limit` (0: all).
    package static func merge(_ hits: [Hit], limit: Int) -> [Hit] {
        var hits = hits
        hits.sort { a, b in
            if a.hit.score != b.hit.score { return a.hit.score > b.hit.score }
            if a.hit.item.uniqueIdentifier != b.hit.item.uniqueIdentifier {
                return a.hit.item.uniqueIdentifier < b.hit.item.uniqueIdentifier
            }
            return a.indexName < b.indexName
        }
        if limit > 0, hits.count > limit { hits.removeLast(hits.count - limit) }
        return hits
    }

    /// Searches the given stores (by default the app's own) for typed text and merges the hits; `options.limit`
    /// bounds each store's hits and the merged list.
    package func search(_ text: String, options: TextSearchOptions,
                       in stores: [(name: String, store: IndexStore)]? = nil) throws -> [Hit] {
        // Every store gets the same options, so the same clock: recency scores compare.
        var hits: [Hit] = []
        for (name, store) in try stores ?? self.stores() {
            hits += try store.search(text, options: options).map { Hit(indexName: name, hit: $0) }
        }
        return Self.merge(hits, limit: options.limit)
    }
}
