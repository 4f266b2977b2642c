import Foundation
import GRDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension IndexStore {
    /// Copies the store into a new SQLite file at `destination` with SQLite's online backup API: a consistent
    /// snapshot of every committed change, taken while other processes keep reading and writing. The copy is one
    /// self-contained file (rollback journal, not WAL), written beside the destination and renamed into place, with
    /// mode 0600. Copying the `.sqlite` file by hand is not a backup: committed changes may still be in the `-wal`.
    ///
    /// - Returns: the number of item rows in the copy.
    /// - Throws: `EngineError` `.indexUnavailable` when `destination` exists or cannot be written.
    @discardableResult
    package func backup(to destination: URL) throws -> Int {
        let fm = FileManager.default
        if fm.fileExists(atPath: destination.path) {
            throw EngineError(.indexUnavailable, "\(destination.path) already exists; a backup never overwrites a file")
        }
        let temporary = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).partial-\(getpid())")
        let fd = open(temporary.path, O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd < 0 {
            throw EngineError(.indexUnavailable, "cannot create \(temporary.path): \(String(cString: strerror(errno)))")
        }
        closeDescriptor(fd)
        do {
            let copy = try DatabaseQueue(path: temporary.path)
            try mapped { try pool.backup(to: copy) }
            let items = try copy.writeWithoutTransaction { db in
                // The source is in WAL mode and the backup copies its header: make the copy a plain one-file database.
                try db.execute(sql: "PRAGMA journal_mode = DELETE")
                let check = try String.fetchAll(db, sql: "PRAGMA quick_check")
                if check != ["ok"] {
                    throw EngineError(.corruptIndex, "the backup of \(url.path) does not check: \(check.prefix(3).joined(separator: "; "))")
                }
                return try ItemCatalog(db).count()
            }
            try copy.close()
            if rename(temporary.path, destination.path) != 0 {
                throw EngineError(.indexUnavailable, "cannot move the backup to \(destination.path): \(String(cString: strerror(errno)))")
            }
            return items
        } catch {
            for suffix in ["", "-journal", "-wal", "-shm"] { unlink(temporary.path + suffix) }
            if let error = error as? DatabaseError { throw EngineError(.indexUnavailable, "backup to \(destination.path): \(error.message ?? "\(error)")") }
            throw error
        }
    }
}
