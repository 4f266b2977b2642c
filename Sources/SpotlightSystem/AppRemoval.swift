import Foundation
import OpenCoreSpotlight
import SpotlightEngine

/// Forgetting an app, or one of its indexes: what `spotlight forget` does (and demos and samples, to clean up after
/// themselves).
///
/// Forgetting an index deletes its store files (the database, its WAL and shared memory), the system's memory of it
/// (`system/indexes.json`, so no later pass "rebuilds" it) and the requests pending for it. Forgetting an app does
/// that for every index of the app, deletes its saved activities and engagement, and removes its registration from
/// this user's applications directory. Copies of damaged indexes that recovery moved aside (`StoreRecovery`,
/// `<name>.sqlite.damaged-…` beside the store) are kept either way: `spotlight doctor --clean` removes old ones.
public enum AppRemoval {
    /// What is (or was) forgotten.
    public struct Summary: Codable, Sendable, Hashable {
        public var applicationIdentifier: String
        public var displayName: String
        public var indexes: [String]
        public var items: Int
        public var bytes: Int
        public var registration: String?
    }

    /// What forgetting would remove, without removing anything.
    public static func plan(app: String, indexName: String? = nil,
                            root: URL = OpenSpotlight.rootDirectory) throws -> Summary {
        let known = Set(AppInventory.indexNames(of: app, root: root))
        let summary = AppInventory.apps(root: root).first { $0.applicationIdentifier == app }
        let names: [String]
        if let indexName {
            guard known.contains(indexName) else {
                throw SystemError("\(summary?.displayName ?? app) has no index \"\(indexName)\""
                    + (known.isEmpty ? "" : "; its indexes are: \(known.sorted().joined(separator: ", "))"))
            }
            names = [indexName]
        } else {
            names = known.sorted()
        }
        let chosen = (summary?.indexes ?? []).filter { names.contains($0.name) }
        return Summary(applicationIdentifier: app, displayName: summary?.displayName ?? app, indexes: names,
                       items: chosen.reduce(0) { $0 + ($1.items ?? 0) }, bytes: chosen.reduce(0) { $0 + $1.bytes },
                       registration: indexName == nil ? SpotlightApp.registered(app)?.desktopFile?.path : nil)
    }

    /// Forgets an index of an app, or (with no index name) the whole app. Returns what was removed.
    @discardableResult
    public static func forget(app: String, indexName: String? = nil,
                              root: URL = OpenSpotlight.rootDirectory) throws -> Summary {
        let summary = try plan(app: app, indexName: indexName, root: root)
        var manifest = IndexManifest.load(root: root)
        for name in summary.indexes {
            let url = StoreLocation.storeURL(app: app, indexName: name, root: root)
            StoreRegistry.forget(url)
            for suffix in ["", "-wal", "-shm"] {
                let file = URL(fileURLWithPath: url.path + suffix)
                if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
            }
            manifest.remove(app: app, indexName: name)
        }
        if indexName == nil {
            manifest.apps[app] = nil
            try removeKeepingRescuedCopies(StoreLocation.appDirectory(for: app, root: root))
            try SpotlightApp.unregister(app)
        }
        try manifest.save(root: root)
        let requests = ReindexRequestStore(root: root)
        for request in requests.pending(app: app) where indexName == nil || request.indexName == indexName {
            requests.remove(request)
        }
        return summary
    }

    /// Removes a folder and everything in it except rescued copies of damaged indexes (and the folders holding
    /// them).
    private static func removeKeepingRescuedCopies(_ folder: URL) throws {
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names {
            let url = folder.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            let isLink = (try? fm.destinationOfSymbolicLink(atPath: url.path)) != nil
            if !isLink, fm.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
                try removeKeepingRescuedCopies(url)
            } else if !name.contains(".damaged-") {
                try fm.removeItem(at: url)
            }
        }
        if (try? fm.contentsOfDirectory(atPath: folder.path))?.isEmpty == true { try fm.removeItem(at: folder) }
    }
}
