import Foundation
import SpotlightEngine

/// `spotlight backup`: a consistent copy of one app's index, taken with SQLite's online backup API while the app
/// keeps writing.
///
/// An index is a SQLite database in WAL mode: committed changes may still be in `<name>.sqlite-wal`, so copying the
/// `.sqlite` file alone (or copying the two files while a writer runs) is not a backup. The copy made here is one
/// self-contained file, written beside the destination and renamed into place, mode 0600; it opens as an index
/// (put it back at `<root>/apps/<app>/indexes/<name>.sqlite` while the app is not running to restore it).
public enum IndexBackup {
    /// What a backup copied.
    public struct Summary: Sendable, Equatable {
        public var source: URL
        public var destination: URL
        public var items: Int
        public var bytes: Int
    }

    /// Backs up the index `indexName` of `app` to `destination`, which must not exist.
    public static func backup(app: String, indexName: String, to destination: URL, root: URL? = nil) throws -> Summary {
        let source = StoreLocation.storeURL(app: app, indexName: indexName, root: root)
        guard FileManager.default.fileExists(atPath: source.path) else {
            let names = StoreLocation.indexNames(app: app, root: root)
            throw SystemError("\(app) has no index named \(indexName) (at \(source.path))"
                + (names.isEmpty ? "" : "; its indexes: \(names.joined(separator: ", "))"))
        }
        do {
            let store = try StoreRegistry.store(at: source, create: false)
            let items = try store.backup(to: destination)
            let bytes = (try? FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int) ?? 0
            return Summary(source: source, destination: destination, items: items, bytes: bytes)
        } catch let error as EngineError {
            throw SystemError("cannot back up \(source.path): \(error.message)")
        }
    }
}
