import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

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
        listing().map(\.name)
    }

    /// Opens the app's own indexes (never creating one). An index that cannot be opened fails the call; one removed
    /// since it was listed is left out.
    package func stores() throws -> [(name: String, store: IndexStore)] {
        try listing().compactMap { index in
            do {
                return (index.name, try StoreRegistry.store(at: index.url, key: index.key, create: false))
            } catch let error as EngineError where error.code == .indexUnavailable
                && !FileManager.default.fileExists(atPath: index.key) {
                return nil
            }
        }
    }

    /// The app's own indexes, as `stores()` gives them, when every one is open in this process already and has a
    /// reader free (else `nil`): then a short read may run on a thread that must not wait (opening a store can
    /// take tens of milliseconds).
    package func storesReadableWithoutWaiting() -> [(name: String, store: IndexStore)]? {
        var open: [(name: String, store: IndexStore)] = []
        for index in listing() {
            guard let store = StoreRegistry.openStore(key: index.key), store.hasFreeReader else { return nil }
            open.append((index.name, store))
        }
        return open
    }

    /// One of the app's indexes as its folder lists it: the name, the store file and the registry's key for it.
    struct ListedIndex: Sendable {
        var name: String
        var url: URL
        var key: String
    }

    /// The app's own indexes, from the listing of its `indexes` folder this process made last while the folder's
    /// modification time has not changed since (one `stat` a call). Every query asks which indexes the app has:
    /// listing the folder and building each store's path took a tenth of an attribute query (Debian, 0.5 ms).
    ///
    /// A file created in the same tick of the file system's clock as the listing leaves the folder's time as it
    /// was (Linux stamps files with a clock of a few milliseconds), so a listing is only kept once it was made a
    /// second after the folder's last change (as Git treats an index entry as racy when the file changed in the
    /// second the entry was written); until then every call lists again.
    func listing() -> [ListedIndex] {
        let directory = StoreLocation.indexesPath(app: applicationIdentifier, root: root)
        var info = stat()
        guard stat(directory, &info) == 0 else { return [] }
        let modified = FileTime(seconds: info.st_mtim.tv_sec, nanoseconds: info.st_mtim.tv_nsec)
        if let cached = Self.listings.withLock({ $0[directory] }), cached.modified == modified { return cached.indexes }
        let indexes = StoreLocation.indexNames(app: applicationIdentifier, root: root).filter(Self.isAppIndex).map { name in
            let location = StoreRegistry.location(app: applicationIdentifier, indexName: name, root: root)
            return ListedIndex(name: name, url: location.url, key: location.key)
        }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let settled = Double(now.tv_sec - modified.seconds) + Double(now.tv_nsec - modified.nanoseconds) / 1e9 > 1
        Self.listings.withLock { listings in
            if settled {
                if listings.count >= 64 { listings.removeAll() }
                listings[directory] = Listing(modified: modified, indexes: indexes)
            } else {
                listings[directory] = nil
            }
        }
        return indexes
    }

    private struct FileTime: Equatable, Sendable {
        var seconds: Int
        var nanoseconds: Int
    }

    private struct Listing: Sendable {
        var modified: FileTime
        var indexes: [ListedIndex]
    }

    /// The process's listings, by folder (a few apps at most; emptied past 64).
    private static let listings = Mutex<[String: Listing]>([:])

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
