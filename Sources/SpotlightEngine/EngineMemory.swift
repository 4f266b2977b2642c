import Foundation
import GRDBSQLite
import Synchronization

/// Where a process's memory goes, and giving back what a large write left behind.
///
/// A bulk load prepares its items on every core: each thread's allocations come from a malloc arena of its own,
/// and what they free stays in those arenas, resident, until the allocator is asked to give it back. Measured
/// after PyPI's bulk load (886,000 items, 2026-11-27): 688 MB of anonymous memory, 480 MB once the free memory was
/// given back (Debian: 258 → 154 MB); the writer's page cache held 33 MB more that no search reads. So once a large
/// write's store is at rest (`IdleCheckpointer`: writes paused for half a second, the WAL checkpointed), the
/// writer's page cache is released and the C heap's free pages go back to the system (`trimHeap`), as Ruby does
/// after a full collection. Nothing is dropped that anything uses: both are caches or free memory.
package enum EngineMemory {
    /// Bytes SQLite holds now (page caches, statements, schemas, in every connection of the process), and the
    /// most it held since the last `resetSQLitePeak()`.
    package static func sqlite() -> (current: Int, peak: Int) {
        var current: sqlite3_int64 = 0
        var peak: sqlite3_int64 = 0
        sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &current, &peak, 0)
        return (Int(current), Int(peak))
    }

    package static func resetSQLitePeak() {
        var current: sqlite3_int64 = 0
        var peak: sqlite3_int64 = 0
        sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &current, &peak, 1)
    }

    /// glibc's `malloc_trim`, looked up at run time (another C library has none: trimming is then a no-op).
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()

    /// glibc's `malloc_info`, looked up at run time.
    private static let mallocInfo: (@convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_info") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32).self)
    }()

    /// The C heap, every arena summed (glibc's `malloc_info`; `nil` elsewhere): bytes the heap has from the system
    /// (its arenas and its chunks mapped alone), and bytes of free chunks it keeps. Resident memory beyond
    /// `system - free` is free memory not given back, or pages only partly in use. For diagnostics: it writes and
    /// parses a report of every arena.
    package static func heap() -> (system: Int, free: Int)? {
        guard let mallocInfo else { return nil }
        var buffer: UnsafeMutablePointer<CChar>? = nil
        var length = 0
        guard let stream = open_memstream(&buffer, &length) else { return nil }
        let status = mallocInfo(0, stream)
        fclose(stream)
        defer { free(buffer) }
        guard status == 0, let buffer else { return nil }
        // The totals follow the last arena: <total type="fast"|"rest"|"mmap" count=".." size=".."/> and
        // <system type="current" size=".."/>.
        let report = String(cString: buffer)
        guard let tail = report.range(of: "</heap>", options: .backwards).map({ report[$0.upperBound...] }) else { return nil }
        func size(_ tag: String) -> Int {
            guard let start = tail.range(of: tag) else { return 0 }
            let rest = tail[start.upperBound...]
            guard let open = rest.range(of: "size=\""), let close = rest[open.upperBound...].firstIndex(of: "\"") else { return 0 }
            return Int(rest[open.upperBound..<close]) ?? 0
        }
        let mapped = size("<total type=\"mmap\"")
        return (size("<system type=\"current\"") + mapped, size("<total type=\"fast\"") + size("<total type=\"rest\""))
    }

    /// How many times the heap was trimmed (tests, diagnostics).
    package static let trims = Atomic<Int>(0)

    /// Gives the C heap's free pages back to the system (every arena's, not only the top of the main one). Takes
    /// each arena's lock in turn while it walks its free chunks: run when writes have paused, never on a commit's
    /// path.
    package static func trimHeap() {
        guard let mallocTrim else { return }
        _ = mallocTrim(0)
        trims.add(1, ordering: .relaxed)
    }
}
