import Foundation
import GRDB
import Synchronization

/// Work that keeps a store fast but changes nothing anyone can observe in results: merging segments and dropping
/// dead postings (`SegmentMerger`), applying the prefix-list changes small writes left pending (`PendingPrefixes`), building prefix lists for long prefixes that searches found busy, and rebuilding lists whose recency went stale
/// (`PrefixLists`).
///
/// It is never a side effect of a read: searches only *note* what they found (`noteForMaintenance`). It runs in
/// the process that writes the store, on a background queue, in write transactions of its own after the commits
/// that called for it (so no commit waits for it, and a crash during it loses nothing committed), and whenever
/// anyone calls `performMaintenance()` (`spotlight doctor`, tests).
final class MaintenanceScheduler: Sendable {
    struct Notes {
        var hotPrefixes: Set<String> = []
        var stalePrefixes: Set<String> = []
        var isEmpty: Bool { hotPrefixes.isEmpty && stalePrefixes.isEmpty }
    }

    let notes = Mutex(Notes())
    /// Whether a run is waiting on the queue, one that runs when its delay is up, and whether the store closed.
    private let state = Mutex<(scheduled: Bool, delayed: Bool, stopped: Bool)>((false, false, false))
    private let queue = BackgroundQueue(label: "OpenSpotlight.Maintenance")
    /// Runs scheduled and not finished (`wait`).
    private let runs = DispatchGroup()

    /// Runs `work` on the maintenance queue (after `delay` seconds) unless a run of the same kind is already
    /// waiting. A delayed run (the work that waits for writes to pause) never holds back one without delay (merges
    /// do not wait).
    func schedule(after delay: TimeInterval = 0, _ work: @escaping @Sendable () -> Void) {
        let delayed = delay > 0
        let go = state.withLock { s -> Bool in
            if s.stopped || (delayed ? s.delayed : s.scheduled) { return false }
            if delayed { s.delayed = true } else { s.scheduled = true }
            return true
        }
        guard go else { return }
        runs.enter()
        let run: @Sendable () -> Void = { [self] in
            defer { runs.leave() }
            let run = state.withLock { s -> Bool in
                if delayed { s.delayed = false } else { s.scheduled = false }
                return !s.stopped
            }
            if run { work() }
        }
        if delayed { queue.asyncAfter(deadline: .now() + delay, execute: run) } else { queue.async(execute: run) }
    }

    /// Waits until the maintenance scheduled so far has run, also what waits for writes to pause, and what those
    /// runs scheduled in turn.
    func wait() {
        runs.wait()
    }

    /// Waits for the run in progress, if any.
    func waitForRunInProgress() {
        queue.sync()
    }

    /// Stops scheduling (the store is closing) and waits for a run in progress (a delayed run still waiting does
    /// nothing when its time comes).
    func stop() {
        state.withLock { $0.stopped = true }
        queue.sync()
    }

}

extension IndexStore {
    /// Notes what a search found for the maintenance to do: a long prefix with many matches and no list yet, or a
    /// list that fell short because its recency went stale.
    func noteForMaintenance(prefix: String, stale: Bool) {
        maintenance.notes.withLock { notes in
            if stale { notes.stalePrefixes.insert(prefix) } else { notes.hotPrefixes.insert(prefix) }
            return
        }
    }

    /// Called after a commit: schedules the maintenance when the merge policy or a search's notes ask for some.
    func scheduleMaintenanceIfNeeded(segmentsChanged: Bool, after delay: TimeInterval = 0) {
        guard !isReadOnly else { return }
        guard segmentsChanged || !maintenance.notes.withLock({ $0.isEmpty }) else { return }
        maintenance.schedule(after: delay) { [weak self] in
            guard let self, !self.closed.withLock({ $0 }) else { return }
            do {
                _ = try self.runMaintenance(listsWaitForPause: true)
            } catch let error as EngineError where error.code == .cancelled {
            } catch {
                // Nothing committed is at risk (each step is its own transaction); the next commit tries again.
                EngineLog.logger.warning("maintenance of the index at \(self.url.path) failed: \(error)")
            }
        }
    }

    /// Runs the store's maintenance now, to the end: every merge the policy asks for, and the prefix lists that
    /// searches asked for. Returns the number of merges. A store opened read-only has none to do.
    @discardableResult
    package func performMaintenance() throws -> Int {
        guard !isReadOnly else { return 0 }
        maintenance.waitForRunInProgress()
        var merges = try runMaintenance(listsWaitForPause: false)
        while !maintenance.notes.withLock({ $0.isEmpty }) {
            merges += try runMaintenance(listsWaitForPause: false)
        }
        return merges
    }

    /// Waits for the maintenance that commits have scheduled so far (tests; measuring).
    package func waitForMaintenance() {
        maintenance.wait()
    }

    /// Waits for the segments' static columns this store object reads in the background after its first search
    /// (`ColumnCache`), and the value columns after its first range (`ValueColumnCache`; measurements: a new
    /// reader's warm-up would otherwise share the CPU with what is timed next).
    package func waitForColumnReads() {
        columnCache.waitForBuilds()
        valueColumnCache.waitForBuilds()
    }

    /// Waits until the checkpoint scheduled for when writes pause has run: the store is at rest, its WAL emptied
    /// when a bulk load had grown it (`IdleCheckpointer`).
    package func waitUntilSettled() {
        checkpointer.waitUntilSettled()
    }

    /// The main file's pages, the free ones among them and the page size, as of the last commit (measurements:
    /// what a store at rest still keeps free).
    package func pageCounts() throws -> (pages: Int, free: Int, pageSize: Int) {
        try read { db in
            (try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0, try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0,
             try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0)
        }
    }

    /// Prefix lists built per maintenance run.
    static let listsPerRun = 8
    /// How long writes must have paused before a scheduled run builds prefix lists.
    static let listPause: TimeInterval = 0.1

    /// `listsWaitForPause`: prefix lists wait until writes have paused for `listPause` (the run is scheduled again
    /// for then). A list build reads a prefix's every posting and its items' rows, tens of milliseconds of CPU for a
    /// short prefix: after a burst of searches had noted many, the builds that the next writes set off took the
    /// CPU from those writes (single writes of 10–12 ms instead of 2). Searches are right without the lists
    /// meanwhile; merges do not wait.
    private func runMaintenance(listsWaitForPause: Bool) throws -> Int {
        // (A write in flight is no pause, however long since the last commit: a commit that waited 120 ms for the
        // disk had a catch-up start behind it that then held up the next twenty writes a slice each.)
        let deferLists = listsWaitForPause && !writesPaused
        let notes = maintenance.notes.withLock { notes -> MaintenanceScheduler.Notes in
            if deferLists { return .init() }
            defer { notes = .init() }
            return notes
        }
        // Merges first: they keep every search fast.
        var merges = 0
        while !closed.withLock({ $0 }) {
            // Read and encode on a snapshot; then one short write transaction swaps the segments.
            guard let prepared = try read({ db -> SegmentMerger.PreparedMerge? in
                guard let run = SegmentMerger.nextMerge(try SegmentMerger.segments(db)) else { return nil }
                return try SegmentMerger.prepare(db, run)
            }) else { break }
            let merged = try mapped { try writeTransaction(durable: false) { try SegmentMerger.commit($0, prepared) } }
            guard merged else { break }
            merges += 1
            // A merge of large segments decodes and encodes millions of postings: what it freed is given back at
            // rest (merges of packed segments, after single writes, are small).
            if prepared.packed == nil { memoryToRelease.store(true, ordering: .relaxed) }
        }
        // Blocks of records mostly deleted give their live records back to their rows (`RecordBlocks`).
        while !closed.withLock({ $0 }),
              try read({ try Int.fetchOne($0.cachedStatement(sql: "SELECT EXISTS(SELECT 1 FROM recordBlock WHERE \(RecordBlocks.sparseCondition))")) ?? 0 }) > 0 {
            _ = try mapped { try writeTransaction(durable: false) { db in try RecordBlocks.compactSparse(db, dictionary: try RecordDictionary.current(in: db)) } }
        }
        // A store that grew by small writes (or that an earlier format filled) gets its record dictionary.
        try compressRecordsWithDictionary()
        // The lists' pending changes, once writes have paused (applying them reads the lists of every prefix of the
        // items' words: it would take the write lock and the CPU from a burst of writes), or at once when many
        // wait (searches go through all of them).
        var listsPending = false
        // Whether a catch-up gave way to writes that came (it goes on once they pause again).
        var yielded = false
        if !closed.withLock({ $0 }) {
            let waiting = try read { try PendingPrefixes.count($0) }
            if waiting >= PendingPrefixes.catchUpRows || (waiting > 0 && !deferLists) {
                if try !catchUpPrefixLists(yieldingToWrites: listsWaitForPause) { yielded = true }
            } else {
                listsPending = waiting > 0
            }
        }
        listsPending = listsPending || yielded
        // Then at most `listsPerRun` prefix lists, the rest noted again for the next run, so that merges are never
        // held up behind many list builds.
        let wanted = notes.stalePrefixes.union(notes.hotPrefixes).sorted()
        func notesStale(_ prefix: String) -> Bool { notes.stalePrefixes.contains(prefix) }
        let later = wanted.dropFirst(Self.listsPerRun)
        if !later.isEmpty {
            maintenance.notes.withLock { notes in
                for prefix in later {
                    if wanted.contains(prefix), notesStale(prefix) { notes.stalePrefixes.insert(prefix) } else { notes.hotPrefixes.insert(prefix) }
                }
            }
        }
        for prefix in wanted.prefix(Self.listsPerRun) {
            guard !closed.withLock({ $0 }) else { break }
            let rebuild = notes.stalePrefixes.contains(prefix)
            // Built on a snapshot, written by a short transaction only if no item changed in between (a list
            // built from an older state could miss an item the writers never offered it).
            guard let built = try read({ db -> (state: Int64, entries: [PrefixLists.Entry], complete: Bool, asOf: Date)? in
                if !rebuild, try PrefixLists.list(prefix, db: db) != nil { return nil }
                let now = Date()
                let (entries, complete) = try PrefixLists.refill(prefix, db: db, now: now)
                return (try Self.itemsState(db), entries, complete, now)
            }) else { continue }
            try mapped {
                try writeTransaction(durable: false) { db in
                    guard try Self.itemsState(db) == built.state else {
                        // Items changed meanwhile: built again by a later run.
                        maintenance.notes.withLock { notes in
                            if rebuild { notes.stalePrefixes.insert(prefix) } else { notes.hotPrefixes.insert(prefix) }
                            return
                        }
                        return
                    }
                    try PrefixLists.store(prefix, entries: built.entries, complete: built.complete, keysAsOf: built.asOf, db: db)
                }
            }
        }
        // Last, free pages go back to the file system, once writes have paused (a run again after the pause).
        var pagesPending = false
        if !closed.withLock({ $0 }) { pagesPending = try !releaseFreePages(waitingForPause: listsWaitForPause) }
        if !closed.withLock({ $0 }), listsPending || pagesPending || !maintenance.notes.withLock({ $0.isEmpty }) {
            let wait = deferLists || yielded || pagesPending ? max(Self.listPause - checkpointer.secondsSinceLastCommit, 0) + 0.01 : 0
            scheduleMaintenanceIfNeeded(segmentsChanged: listsPending || pagesPending, after: wait)
        }
        return merges
    }

    /// Free pages a store keeps (a megabyte): fewer are not worth a write transaction.
    static let freePagesKept = 256
    /// Free pages released per write transaction (4 MB): a write that comes meanwhile waits for one slice.
    static let releaseSlice = 1_024

    /// Gives the store's free pages back to the file system, a slice per write transaction (SQLite's
    /// `incremental_vacuum`: pages from the end of the file move into free ones, and the checkpoint truncates the
    /// file). Merges, refilled lists and deletes free pages that SQLite otherwise keeps for later writes: after
    /// a bulk load of both corpora, 1.5 MB. Only stores made since format 20 can (`auto_vacuum = INCREMENTAL`,
    /// which SQLite sets only on a file without tables: `IndexStore.init`); older ones keep their free pages, as
    /// they did. Returns whether none is left to release; with `waitingForPause`, stops (false) while writes go on.
    func releaseFreePages(waitingForPause: Bool) throws -> Bool {
        // (Fixed for the file's life: read once.)
        var releasable = incrementalVacuum.withLock { $0 }
        if releasable == nil {
            releasable = try read { try Int.fetchOne($0, sql: "PRAGMA auto_vacuum") } == 2
            incrementalVacuum.withLock { $0 = releasable }
        }
        guard releasable == true else { return true }
        var first = true
        while !closed.withLock({ $0 }) {
            let free = try read { try Int.fetchOne($0, sql: "PRAGMA freelist_count") ?? 0 }
            guard free >= (first ? Self.freePagesKept : 1) else { return true }
            // (A slice's own commit is no write: only writes that wait stop the slices after the first.)
            guard !waitingForPause || (first ? writesPaused : durableWritesInFlight.load(ordering: .relaxed) == 0) else { return false }
            first = false
            try mapped {
                try writeTransaction(durable: false) { try $0.execute(sql: "PRAGMA incremental_vacuum(\(Self.releaseSlice))") }
            }
            pagesReleased.add(1, ordering: .relaxed)
        }
        return true
    }

    /// Whether this process's writes have paused: none waits for the writer or runs, and the last commit is
    /// `listPause` old.
    var writesPaused: Bool {
        durableWritesInFlight.load(ordering: .relaxed) == 0 && checkpointer.secondsSinceLastCommit >= Self.listPause
    }

    /// Applies the prefix-list changes that small writes left pending (`PendingPrefixes`), in write transactions
    /// of at most `PendingPrefixes.catchUpSlice` each (a few rows at a time, until the time is up, or until a
    /// write waits for the writer), so that a write that comes meanwhile waits for one chunk, not for all of them.
    ///
    /// `yieldingToWrites`: with fewer than `PendingPrefixes.catchUpRows` rows left, stops once writes come (the
    /// rows wait for the next pause; searches are exact meanwhile). Returns whether no row is left.
    @discardableResult
    func catchUpPrefixLists(yieldingToWrites: Bool = false) throws -> Bool {
        try catchUp(yieldingToWrites: yieldingToWrites, slice: PendingPrefixes.catchUpSlice,
                    mustContinue: { try PendingPrefixes.count($0) >= PendingPrefixes.catchUpRows }) { db, state in
            if state.hot == nil { state.hot = try PrefixLists.hotPrefixes(db) }
            guard try PendingPrefixes.count(db) > 0 else { return false }
            var changes = PrefixLists.Changes()
            changes.hot = state.hot!
            let drained = try PendingPrefixes.drain(into: &changes, db: db, now: state.now, limit: PendingPrefixes.catchUpChunk)
            // (The drained keys are computed as of their writes' times, none later than the catch-up's.)
            try PrefixLists.apply(changes, db: db, now: drained.earliest, keysAsOf: drained.latest)
            return true
        }
    }

    /// What one catch-up's chunks share within a transaction.
    struct CatchUpState {
        var hot: PrefixLists.HotPrefixes? = nil
        var now = Date()
    }

    /// Runs `chunk` (false: nothing was left) in write transactions of at most `slice` seconds each; a transaction
    /// ends early when one of this process's writes waits for the writer (it runs one chunk at least, so the
    /// catch-up always progresses). `yieldingToWrites`: stops once writes have come, unless `mustContinue`.
    /// Returns whether `chunk` found nothing left.
    private func catchUp(yieldingToWrites: Bool, slice: TimeInterval, mustContinue: (Database) throws -> Bool,
                         _ chunk: (Database, inout CatchUpState) throws -> Bool) throws -> Bool {
        while !closed.withLock({ $0 }) {
            let more = try mapped {
                try writeTransaction(durable: false) { db -> Bool in
                    let started = DispatchTime.now().uptimeNanoseconds
                    var state = CatchUpState()
                    repeat {
                        guard try chunk(db, &state) else { return false }
                    } while Double(DispatchTime.now().uptimeNanoseconds - started) < slice * 1e9
                        && durableWritesInFlight.load(ordering: .relaxed) == 0
                    return true
                }
            }
            guard more else { return true }
            if yieldingToWrites, !writesPaused, try !read(mustContinue) { return false }
        }
        return false
    }

    /// Records compressed again per write transaction of `compressRecordsWithDictionary`.
    static let recompressionChunk = 500

    /// For a store with `RecordDictionary.trainingMinimum` items or more and no record dictionary (it grew by
    /// writes too small to train one, or an earlier format wrote it): trains one on a sample of its records, then
    /// compresses every record written without it again, a chunk at a time, each chunk its own short write
    /// transaction (the item ids and contents stay; only the bytes shrink). Tried once per process.
    func compressRecordsWithDictionary() throws {
        guard !isReadOnly else { return }
        let known = writeDictionary.withLock { $0 }
        guard known.dictionary == nil, !known.trainingTried else { return }
        let samples = try read { db -> [[UInt8]]? in
            if let stored = try RecordDictionary.current(in: db) {
                // Another process trained it: the next writes use it, and there is nothing to train.
                writeDictionary.withLock { $0 = .init(looked: true, dictionary: stored, trainingTried: $0.trainingTried) }
                return nil
            }
            let catalog = ItemCatalog(db)
            let count = try catalog.count()
            guard count >= RecordDictionary.trainingMinimum else { return nil }
            let step = max(1, count / RecordDictionary.trainingSamples)
            var samples: [[UInt8]] = []
            var position = 0
            try catalog.forEachRecord { id, _, record in
                defer { position += 1 }
                guard position % step == 0 else { return true }
                let plain = try ValueCodec.decode(record, item: id, in: db)
                samples.append(ValueCodec.encode(attributes: plain.attributes, custom: plain.custom))
                return samples.count < RecordDictionary.trainingSamples
            }
            return samples
        }
        // (None when the store has a dictionary, or too few items yet.)
        guard let samples else { return }
        writeDictionary.withLock { $0.trainingTried = true }
        guard let dictionary = RecordDictionary.train(samples: samples) else { return }
        var stored = false
        // Writes that began before the dictionary was stored write their records without it, also after the passes
        // below went by their ids (a batch committed while they ran kept 400 of 1,600 records plain): the passes
        // run again while items changed meanwhile (at most twice more; writes from then on use the dictionary).
        for _ in 0..<3 {
            let state = try read { try Self.itemsState($0) }
            // Records in their rows (`length(attrs) = 0`: in a block, compressed with it), then the blocks
            // (`RecordBlocks`): their records the same, their frame new.
            guard try recompress(select: { db, after, limit in try ItemCatalog(db).recordsInRows(after: after, limit: limit).map { ($0.id, $0.record) } },
                                 update: { db, id, old, new in try ItemCatalog(db).replaceRecord(of: id, old, with: new) },
                                 chunk: Self.recompressionChunk, dictionary: dictionary, stored: &stored, { db, id, old in
                let plain = try ValueCodec.decode([UInt8](old), item: id, in: db)
                return ValueCodec.stored(attributes: plain.attributes, custom: plain.custom, dictionary: dictionary)
            }) else { return }
            guard try recompress(select: { db, after, limit in
                                     try Row.fetchAll(db, sql: "SELECT id, data FROM recordBlock WHERE id > ? ORDER BY id LIMIT ?",
                                                      arguments: [after, limit]).map { (try $0.stored(0), try $0.stored(1)) }
                                 },
                                 update: { db, id, old, new in
                                     try db.cachedStatement(sql: "UPDATE recordBlock SET data = ? WHERE id = ? AND data = ?")
                                         .execute(arguments: [new, id, old])
                                 },
                                 chunk: Self.recompressionChunk / 16, dictionary: dictionary, stored: &stored, { db, _, old in
                guard ValueCodec.dictionaryID(of: old) != dictionary.id else { return old }
                let plain = try ValueCodec.plain(old, dictionary: { try RecordDictionary.named($0, in: db) })
                return RecordBlocks.compressed(plain, dictionary: dictionary)
            }) else { return }
            guard try read({ try Self.itemsState($0) }) != state, !closed.withLock({ $0 }) else { break }
        }
    }

    /// Rewrites the rows `select` names (ids and bytes, in id order: those after an id, a `chunk` at a time) with
    /// what `recompress` makes of their bytes, where that is smaller, one short transaction per chunk that also stores
    /// `dictionary`. Ids are never reused and a row's bytes never change in place but for this, so a row still there
    /// with the bytes read holds the same content (`update`, given the old bytes and the new, checks them). False when another process stored other bytes under the
    /// dictionary's id (`RecordDictionary.Conflict`).
    private func recompress(select: (Database, _ after: Int64, _ limit: Int) throws -> [(id: Int64, bytes: Data)],
                            update: (Database, _ id: Int64, _ old: Data, _ new: Data) throws -> Void,
                            chunk: Int, dictionary: RecordDictionary, stored: inout Bool,
                            _ recompress: (Database, Int64, [UInt8]) throws -> [UInt8]) throws -> Bool {
        var after = Int64.min
        while !closed.withLock({ $0 }) {
            let rows = try read { db -> [(id: Int64, old: Data, new: Data)] in
                try select(db, after, chunk).map { row in
                    (row.id, row.bytes, Data(try recompress(db, row.id, [UInt8](row.bytes))))
                }
            }
            guard let last = rows.last else { break }
            after = last.id
            let changed = rows.filter { $0.new.count < $0.old.count }
            if changed.isEmpty && stored { continue }
            do {
                try mapped {
                    try writeTransaction(durable: false) { db in
                        try RecordDictionary.ensureStored(dictionary, db)
                        for row in changed { try update(db, row.id, row.old, row.new) }
                    }
                }
            } catch is RecordDictionary.Conflict {
                return false
            }
            if !stored {
                // In the file now: the writes from here on compress their records with it.
                writeDictionary.withLock { $0 = .init(looked: true, dictionary: dictionary, trainingTried: true) }
            }
            stored = true
        }
        return true
    }

    /// Changes whenever an item is added, replaced or deleted (every write transaction that does so counts it).
    static func itemsState(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'itemChanges'")) ?? 0
    }

    /// The store's segments, oldest first: (items, postings, dead items) each (inspection, tests).
    package func segmentSummary() throws -> [(items: Int, postings: Int, deadItems: Int)] {
        try read { db in try SegmentMerger.segments(db).map { ($0.items, $0.postings, $0.deadItems) } }
    }
}
