import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one recovery policy for a store file that cannot be used, shared by apps (`CSSearchableIndex`) and the
/// system (`spotlight doctor`, `spotlight` searches): it is moved aside, never deleted and never overwritten.
///
/// - Only damage (`.corruptIndex`) and a newer format (`.unsupportedFormat`) are recovered from
///   (`needsRecovery`). A store this user may not read or write (`.permissionDenied`) or cannot open for another
///   reason (`.indexUnavailable`) is left alone and the error is reported.
/// - `<name>.sqlite` becomes `<name>.sqlite.damaged-<UTC time>-<random>` beside it, with its `-wal` and `-shm`
///   under the same name. The name is unique (a rescued copy from the same second is never replaced) and stays in
///   the app's own folder, so apps never share rescued copies.
/// - The files are renamed in place (no copy, no new folder: it works on a full disk). If any cannot be moved,
///   the ones already moved are put back, the store stays where it is, untouched, and the error says the index is
///   unavailable and why.
/// - A line is appended to `recovery.log` beside the store (opened without following a symbolic link).
///
/// The caller then opens a new, empty store and has the app reindex (`openStore` for an app; the doctor issues a
/// reindex request).
package enum StoreRecovery {
    /// What was rescued: where the store's files went.
    package struct Rescue: Sendable, Hashable {
        /// The store file as it is now named (its `-wal` and `-shm`, if any, carry the same name plus suffix).
        package var movedTo: URL
        /// Every file moved: old and new paths.
        package var movedFiles: [Pair]
        package var reason: String

        package struct Pair: Sendable, Hashable {
            package var from: String
            package var to: String
        }
    }

    /// Whether an error opening or checking a store means the store must be moved aside and rebuilt: damage or a
    /// newer format. Permission problems and other failures to open are not.
    package static func needsRecovery(_ error: any Error) -> Bool {
        guard let error = error as? EngineError else { return false }
        return error.code == .corruptIndex || error.code == .unsupportedFormat
    }

    /// Opens the store of one (app, index name); a damaged or newer-format store is moved aside and a new, empty
    /// one opened in its place. `rescue` says what was moved (the caller asks the app to reindex).
    ///
    /// - Throws: the opening error when it is not damage; `.indexUnavailable` when the damaged store cannot be
    ///   moved aside (it is left in place).
    package static func openStore(app: String, indexName: String, root: URL? = nil) throws -> (store: IndexStore, rescue: Rescue?) {
        do {
            return (try StoreRegistry.store(app: app, indexName: indexName, root: root), nil)
        } catch let error where needsRecovery(error) {
            let url = StoreLocation.storeURL(app: app, indexName: indexName, root: root)
            let rescue = try moveAside(url, reason: (error as? EngineError)?.message ?? "\(error)")
            return (try StoreRegistry.store(app: app, indexName: indexName, root: root), rescue)
        }
    }

    /// Moves a store file (and its WAL and shared-memory files) aside to a new, unique name and forgets any open
    /// handle on it. Nothing is deleted or overwritten.
    ///
    /// - Throws: `EngineError` `.indexUnavailable` (or `.permissionDenied`) when a file cannot be moved; then every
    ///   file is where it was.
    @discardableResult
    package static func moveAside(_ url: URL, reason: String, now: Date = Date()) throws -> Rescue {
        StoreRegistry.forget(url)
        let suffixes = ["", "-wal", "-shm"].filter { StoreLocation.exists(URL(fileURLWithPath: url.path + $0)) }
        guard !suffixes.isEmpty else {
            throw EngineError(.indexUnavailable, "no index at \(url.path) to move aside")
        }
        let base = try uniqueBase(for: url, now: now)
        // The log first and the main file last: a -wal left beside a new, empty store would be replayed into it.
        var moved: [Rescue.Pair] = []
        for suffix in ["-wal", "-shm", ""] where suffixes.contains(suffix) {
            let from = url.path + suffix, to = base + suffix
            if rename(from, to) != 0 {
                let failure = EngineError.fromErrno(errno, "cannot move the damaged index \(from) aside")
                for pair in moved.reversed() { _ = rename(pair.to, pair.from) }
                // Deviation: a damaged index that cannot be moved aside is left in place and reported unavailable.
                throw EngineError(failure.code, failure.message + "; it was left in place, and the index is unavailable until it can be moved")
            }
            moved.append(Rescue.Pair(from: from, to: to))
        }
        appendToLog(beside: url, "\(timestamp(now)) moved \(url.lastPathComponent) aside to \((base as NSString).lastPathComponent): \(reason)\n")
        return Rescue(movedTo: URL(fileURLWithPath: base), movedFiles: moved, reason: reason)
    }

    /// `<store>.damaged-<time>-<random>`, free for the store file and its `-wal` and `-shm`.
    private static func uniqueBase(for url: URL, now: Date) throws -> String {
        let stamp = timestamp(now).replacingOccurrences(of: ":", with: "").replacingOccurrences(of: "-", with: "")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            let random = String(UInt32.random(in: .min ... .max, using: &generator), radix: 16)
            let base = url.path + ".damaged-\(stamp)-\(String(repeating: "0", count: 8 - random.count))\(random)"
            if ["", "-wal", "-shm"].allSatisfy({ !StoreLocation.exists(URL(fileURLWithPath: base + $0)) }) {
                return base
            }
        }
        throw EngineError(.indexUnavailable, "no free name to move \(url.path) aside; it was left in place")
    }

    private static func timestamp(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }

    /// Appends to `recovery.log` beside the store, creating it 0600; a symbolic link there is not followed.
    /// A log that cannot be written does not undo the rescue (the files are safe; the log only tells about it).
    private static func appendToLog(beside url: URL, _ line: String) {
        let log = url.deletingLastPathComponent().appendingPathComponent("recovery.log").path
        let fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        defer { _ = close(fd) }
        let bytes = Array(line.utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}
