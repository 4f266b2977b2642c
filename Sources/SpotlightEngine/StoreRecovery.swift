import Foundation

/// What happens to a store file that cannot be used: it is moved aside, never deleted, so nothing is lost for good.
///
/// `<name>.sqlite` becomes `<name>.sqlite.damaged-<timestamp>` (with its `-wal` and `-shm` files), and a line is
/// added to `recovery.log` beside it. The caller then opens a new, empty store and asks the app to reindex.
public enum StoreRecovery {
    /// Moves a store file (and its WAL and shared-memory files) aside and forgets any open handle on it.
    public static func moveAside(_ url: URL, reason: String, now: Date = Date()) throws {
        StoreRegistry.forget(url)
        let stamp = Int(now.timeIntervalSince1970)
        let fm = FileManager.default
        for suffix in ["", "-wal", "-shm"] {
            let source = URL(fileURLWithPath: url.path + suffix)
            guard fm.fileExists(atPath: source.path) else { continue }
            let target = URL(fileURLWithPath: url.path + ".damaged-\(stamp)" + suffix)
            try? fm.removeItem(at: target)
            do {
                try fm.moveItem(at: source, to: target)
            } catch {
                throw EngineError(.indexUnavailable, "cannot move the damaged index \(source.path) aside: \(error)")
            }
        }
        let log = url.deletingLastPathComponent().appendingPathComponent("recovery.log")
        let line = "\(ISO8601DateFormatter().string(from: now)) moved \(url.lastPathComponent) aside: \(reason)\n"
        if let handle = try? FileHandle(forWritingTo: log) {
            handle.seekToEndOfFile()
            handle.write(Data(line.utf8))
            try? handle.close()
        } else {
            _ = fm.createFile(atPath: log.path, contents: Data(line.utf8), attributes: [.posixPermissions: 0o600])
        }
    }
}
