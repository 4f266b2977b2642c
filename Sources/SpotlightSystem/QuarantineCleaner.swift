import Foundation
import OpenCoreSpotlight
import SpotlightEngine

/// Removes the copies of damaged indexes that recovery moved aside, once they are old: what
/// `spotlight doctor --clean` does. Recovery never deletes; this is the person's explicit choice.
///
/// Rescued copies are every file under `<root>/system/quarantine/` and every `*.damaged-*` file beside an app's
/// indexes (with its `-wal` and `-shm`). A copy is old when it was last modified more than `days` days ago.
public enum QuarantineCleaner {
    /// A rescued file.
    public struct RescuedFile: Codable, Sendable, Hashable {
        public var path: String
        public var bytes: Int
        public var modified: Date
    }

    /// Every rescued copy under `root`, oldest first.
    public static func rescuedFiles(root: URL = OpenSpotlight.rootDirectory) -> [RescuedFile] {
        let fm = FileManager.default
        var files: [URL] = []
        let quarantine = SystemLocations.systemDirectory(root: root).appendingPathComponent("quarantine", isDirectory: true)
        if let walker = fm.enumerator(at: quarantine, includingPropertiesForKeys: [.isRegularFileKey]) {
            for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                files.append(url)
            }
        }
        for app in StoreLocation.installedApps(root: root) {
            let indexes = StoreLocation.appDirectory(for: app, root: root).appendingPathComponent("indexes", isDirectory: true)
            for name in (try? fm.contentsOfDirectory(atPath: indexes.path)) ?? [] where name.contains(".damaged-") {
                files.append(indexes.appendingPathComponent(name))
            }
        }
        return files.compactMap { url -> RescuedFile? in
            guard let attributes = try? fm.attributesOfItem(atPath: url.path),
                  let modified = attributes[.modificationDate] as? Date else { return nil }
            return RescuedFile(path: url.path, bytes: (attributes[.size] as? Int) ?? 0, modified: modified)
        }.sorted { $0.modified != $1.modified ? $0.modified < $1.modified : $0.path < $1.path }
    }

    /// Removes the rescued copies older than `days` days (and quarantine folders left empty). Returns what it
    /// removed; a file that cannot be removed is reported in `failures` and left.
    public static func clean(olderThan days: Int, root: URL = OpenSpotlight.rootDirectory,
                             now: Date = Date()) -> (removed: [RescuedFile], failures: [String]) {
        let cutoff = now.addingTimeInterval(-Double(days) * 86_400)
        var removed: [RescuedFile] = []
        var failures: [String] = []
        for file in rescuedFiles(root: root) where file.modified < cutoff {
            do {
                try FileManager.default.removeItem(atPath: file.path)
                removed.append(file)
            } catch {
                failures.append("\(file.path): \(error.localizedDescription)")
            }
        }
        let quarantine = SystemLocations.systemDirectory(root: root).appendingPathComponent("quarantine", isDirectory: true)
        for folder in ((try? FileManager.default.contentsOfDirectory(atPath: quarantine.path)) ?? []) {
            let url = quarantine.appendingPathComponent(folder)
            if (try? FileManager.default.contentsOfDirectory(atPath: url.path))?.isEmpty == true {
                try? FileManager.default.removeItem(at: url)
            }
        }
        return (removed, failures)
    }
}
