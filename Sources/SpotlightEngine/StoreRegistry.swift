import Foundation
import Synchronization

/// Opens each store file once per process and hands out the shared `IndexStore`.
package enum StoreRegistry {
    private static let stores = LockedBox<[String: IndexStore]>([:])

    /// The store of one (app, index name), opened (and created) on first use.
    ///
    /// - Throws: `.invalidItem` for an app identifier or index name containing NUL (it could not be told apart
    ///   from others in a file name or a C string); what `IndexStore.init` throws.
    package static func store(app: String, indexName: String, root: URL? = nil, create: Bool = true) throws -> IndexStore {
        // Deviation: an index name with NUL fails every call with invalidItemError (Apple does not say; "" and "\0"
        // would share a file name).
        guard !indexName.utf8.contains(0), !app.utf8.contains(0) else {
            throw EngineError(.invalidItem, "the index name \(indexName.debugDescription) or app identifier \(app.debugDescription) contains a NUL character")
        }
        let location = self.location(app: app, indexName: indexName, root: root)
        return try store(at: location.url, key: location.key, create: create)
    }

    /// The store file of one (app, index name) under a root (nil: `StoreLocation.rootDirectory`) and the registry's
    /// key for it (`url.standardizedFileURL.path`), made once per process: a pure function of the three, which
    /// every write and every store lookup asks for. Building the URL component by component and standardizing it
    /// took ~60–90 µs of each single write (perf, PyPI's writes phase: a few per cent of its latency).
    package static func location(app: String, indexName: String, root: URL? = nil) -> (url: URL, key: String) {
        let place = Place(root: root ?? StoreLocation.rootDirectory, app: app, indexName: indexName)
        if let known = located.withLock({ $0[place] }) { return known }
        let url = StoreLocation.storeURL(app: app, indexName: indexName, root: place.root)
        let found = (url: url, key: url.standardizedFileURL.path)
        located.withLock { located in
            // Bounded: a process that names thousands of indexes (the system's scans) keeps the latest.
            if located.count >= 1_024 { located.removeAll() }
            located[place] = found
        }
        return found
    }

    private struct Place: Hashable {
        var root: URL
        var app: String
        var indexName: String
    }

    private static let located = Mutex<[Place: (url: URL, key: String)]>([:])

    /// The store at a path, opened on first use.
    package static func store(at url: URL, create: Bool = true) throws -> IndexStore {
        try store(at: url, key: url.standardizedFileURL.path, create: create)
    }

    /// The store at a path whose key (`url.standardizedFileURL.path`) the caller made already.
    static func store(at url: URL, key: String, create: Bool) throws -> IndexStore {
        if let store = stores.value[key] {
            // A store whose file was deleted behind our back (by a user, or `spotlight doctor`) is reopened.
            // So is one whose WAL was deleted under it (its commits were copied into the main file).
            if FileManager.default.fileExists(atPath: key), !store.needsReopening { return store }
            forget(url)
        }
        // Opened under the lock: two threads opening the same new file at once would race to set it up.
        return try stores.withLock { stores in
            if let existing = stores[key] { return existing }
            let store = try IndexStore(url: url, create: create)
            stores[key] = store
            installExitHook
            return store
        }
    }

    /// The store at a path if this process has it open already (nothing is opened).
    package static func openStore(at url: URL) -> IndexStore? {
        openStore(key: url.standardizedFileURL.path)
    }

    /// The store open under a key (`url.standardizedFileURL.path`), if any.
    static func openStore(key: String) -> IndexStore? {
        stores.value[key].flatMap { $0.needsReopening ? nil : $0 }
    }

    /// Every store of an app that exists on disk.
    package static func stores(app: String, root: URL? = nil) throws -> [IndexStore] {
        try StoreLocation.indexNames(app: app, root: root).map {
            try store(app: app, indexName: $0, root: root, create: false)
        }
    }

    /// Drops the cached store for a path (after the file was removed or replaced).
    package static func forget(_ url: URL) {
        let key = url.standardizedFileURL.path
        let removed = stores.withLock { $0.removeValue(forKey: key) }
        try? removed?.close()
    }

    /// Closes every open store when the process exits normally (`exit`, or returning from `main`), so a short-lived
    /// process leaves its committed data in the `.sqlite` files, not only in their WALs (`IndexStore.close`).
    /// A killed process skips this; its commits are in the WAL, which the next open replays.
    private static let installExitHook: Void = {
        atexit { StoreRegistry.forgetAll() }
    }()

    /// Drops every cached store (tests use it between cases that relocate the root).
    package static func forgetAll() {
        let all = stores.withLock { stores -> [IndexStore] in
            defer { stores.removeAll() }
            return Array(stores.values)
        }
        for store in all { try? store.close() }
    }
}
