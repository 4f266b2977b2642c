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
    /// parses a report of every arena. `mapped`: bytes of the chunks mapped alone (`mappedThreshold`), also in
    /// `system`.
    package static func heap() -> (system: Int, free: Int, mapped: Int)? {
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
        return (size("<system type=\"current\"") + mapped, size("<total type=\"fast\"") + size("<total type=\"rest\""), mapped)
    }

    /// glibc's `mallopt`, looked up at run time.
    private static let mallopt: (@convention(c) (Int32, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
    }()

    /// The allocation size from which the C heap maps memory of its own (`M_MMAP_THRESHOLD`) once a store is
    /// opened: 4 MB, fixed.
    ///
    /// glibc starts at 128 KB and raises the threshold to the size of every mapped block freed, up to 32 MB. A bulk
    /// load allocates and frees blocks of megabytes all along (prepared windows, encoded segments, merges), so
    /// after the first ones are freed the rest come from the arenas, between small blocks that live on, and stay
    /// resident when freed: `malloc_trim` gives back whole free pages only. A fixed threshold turns the raising
    /// off. Measured with both corpora (949,759 items, 2026-12-07, `spotlight-bench`: the process that loaded them,
    /// then searching; glibc's own threshold against 1 MB and 4 MB, set through `MALLOC_MMAP_THRESHOLD_`): anonymous
    /// memory after the load 522–528 → 453–454 (1 MB) and 451 MB (4 MB); peak RSS while searching 663–672 → 591
    /// and 588 MB, below every peer's (FTS5 657, Xapian 723, Tantivy 815–847); the load's rate and the searches'
    /// p99 within the runs' noise. Unlike fewer arenas (`MALLOC_ARENA_MAX`, slower loads), it costs nothing
    /// measured, so the engine sets it rather than leave it to each app.
    static let mappedThreshold: Int32 = 4 << 20
    /// `mallopt`'s parameter numbers for it and for the trim threshold (glibc's `malloc.h`), and glibc's trim
    /// threshold before any raising (`DEFAULT_TRIM_THRESHOLD`).
    private static let mmapThresholdParameter: Int32 = -3, trimThresholdParameter: Int32 = -1
    private static let defaultTrimThreshold: Int32 = 128 << 10
    /// Whether `fixMappedThreshold` set the thresholds (tests, diagnostics).
    package static let thresholdsFixed = Atomic<Bool>(false)

    /// Sets `mappedThreshold`, once per process: a process-wide setting, as `trimHeap` is. Left alone when the
    /// process was started with thresholds of its own (`MALLOC_MMAP_THRESHOLD_` or `MALLOC_TRIM_THRESHOLD_`, or
    /// either in `GLIBC_TUNABLES`), and by another C library (no `mallopt`). An app that calls `mallopt` for them
    /// itself does so after its first store opens.
    ///
    /// The trim threshold goes back to glibc's first one too (128 KB): each raise of the mapped threshold before
    /// the first store opened (an app's own large blocks, the benchmark's corpus) set it to twice as much, up to
    /// 64 MB kept free at the top of each arena. Setting only the mapped threshold left both corpora's load 30 MB
    /// larger than the same threshold set at the process's start (485 against 451–454 MB; peak while searching 624
    /// against 588–591 MB); with the trim threshold too, 455 and 593 MB.
    static func fixMappedThreshold() {
        _ = fixOnce
    }

    private static let fixOnce: Void = {
        let environment = ProcessInfo.processInfo.environment
        guard environment["MALLOC_MMAP_THRESHOLD_"] == nil, environment["MALLOC_TRIM_THRESHOLD_"] == nil,
              !(environment["GLIBC_TUNABLES"] ?? "").contains("_threshold"),
              let mallopt, mallopt(mmapThresholdParameter, mappedThreshold) == 1 else { return }
        _ = mallopt(trimThresholdParameter, defaultTrimThreshold)
        thresholdsFixed.store(true, ordering: .relaxed)
    }()

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
