import Foundation
import GRDB
import GRDBSQLite
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The turnstile that makes the write lock of a store fair between processes.
///
/// SQLite gives its write lock to whichever connection asks first after it is released; a waiting connection polls
/// (its busy handler sleeps between tries), so a process committing batches back to back takes the lock again
/// before a waiting process wakes up, and a small writer can wait for dozens of batches. Invariant kept here: a
/// writer takes the turnstile — an exclusive `flock` on `<store>-writers` — before it asks SQLite for the write
/// lock (`BEGIN IMMEDIATE`), and gives the turnstile back as soon as it holds the lock. The turnstile is therefore
/// held only by a writer that is *waiting*, and the holder is the next to get the SQLite lock: the writer in its
/// transaction cannot start its next one before the waiter has had its turn. The holder waits for at most the
/// transaction in progress. Several waiters poll the turnstile (it is not first-come first-served among them), but a
/// writer that just began its transaction is not polling, so while others wait, a process committing back to back
/// gets at most one transaction between two of theirs.
///
/// A batch stays one transaction; nothing is split. If the turnstile file cannot be opened (a read-only
/// directory), or the turnstile is not free within the busy timeout (a stopped process holding it), the writer goes
/// on without it, as SQLite alone would. The kernel releases a `flock` when its process dies, so a killed writer
/// never leaves the turnstile taken.
final class WriterTurnstile: Sendable {
    private let path: String
    /// The open descriptor (-1 until first use or when the file cannot be opened), and whether this process holds it.
    private let state = Mutex<(fd: Int32, opened: Bool, held: Bool)>((-1, false, false))

    init(storePath: String) {
        path = storePath + "-writers"
    }

    /// Takes the turnstile, waiting at most `timeout`. Returns whether it is held.
    func acquire(timeout: TimeInterval) -> Bool {
        let fd: Int32 = state.withLock { s in
            if !s.opened {
                s.opened = true
                // 0600 like the store; never through a symbolic link.
                s.fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            }
            return s.fd
        }
        guard fd >= 0 else { return false }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1e9)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if errno != EWOULDBLOCK && errno != EINTR { return false }
            if DispatchTime.now().uptimeNanoseconds > deadline { return false }
            usleep(500)
        }
        state.withLock { $0.held = true }
        return true
    }

    /// Gives the turnstile back (does nothing when it is not held).
    func release() {
        state.withLock { s in
            guard s.held else { return }
            s.held = false
            _ = flock(s.fd, LOCK_UN)
        }
    }

    /// Closes the descriptor (when the store closes).
    func close() {
        state.withLock { s in
            if s.fd >= 0 { closeDescriptor(s.fd) }
            s.fd = -1
            s.held = false
        }
    }
}

/// How a connection waits for a lock another process holds: short sleeps, so a writer holding the turnstile takes
/// the lock within a couple of milliseconds of its release (SQLite's own busy timeout sleeps up to 100 ms at a
/// time), for at least `IndexStore.busyTimeout` in all. The first sleeps are shorter still (100, 200, 400, 800,
/// 1,600 µs, then 2 ms each): most waits are for a lock held a fraction of a millisecond (a checkpoint asking for a
/// restart, the WAL index rebuilt after the WAL was emptied), which a first sleep of 2 ms made a 2 ms wait of a
/// single write. While the store closes, nothing waits: the last checkpoint takes what it can without blocking.
final class BusyPolicy: Sendable {
    private let closing = Atomic<Bool>(false)
    static let pollMicroseconds: UInt32 = 2_000

    /// The sleep before try `tries + 1` (0-based), in microseconds.
    static func sleep(after tries: Int) -> UInt32 {
        tries < 5 ? 100 << UInt32(tries) : pollMicroseconds
    }

    /// The time slept before try `tries` (0-based), in seconds.
    static func slept(before tries: Int) -> Double {
        let ramp = (0..<min(tries, 5)).reduce(0) { $0 + Double(sleep(after: $1)) }
        return (ramp + Double(max(0, tries - 5)) * Double(pollMicroseconds)) / 1e6
    }

    var callback: Database.BusyCallback {
        { [self] tries in
            if closing.load(ordering: .relaxed) { return false }
            if Self.slept(before: Int(tries)) >= IndexStore.busyTimeout { return false }
            usleep(Self.sleep(after: Int(tries)))
            return true
        }
    }

    func beginClosing() { closing.store(true, ordering: .relaxed) }
}

/// Checkpoints the WAL into the main file off the commit path, on a connection of its own.
///
/// SQLite's automatic checkpoint copies 1,000 pages inside the commit that pushes the WAL past them, on the store's
/// single writer connection: the next write waited for it (25–40 ms, the p99 of single writes). It is replaced by a
/// WAL hook on the writer connection (`install(on:)`, which turns the automatic checkpoint off):
/// - past `backgroundFrames` frames, and again every `backgroundStep` frames more, a commit schedules a PASSIVE
///   checkpoint on this object's own connection, on a background queue: it copies the pages while writes go on
///   (SQLite's checkpoint lock is not the write lock);
/// - the WAL starts over from its beginning only when a write transaction begins with every frame copied, which a
///   stream of writes seldom leaves time for: past `inlineFrames` frames, every commit that finds no background
///   checkpoint running schedules one, so they chase the last commits' frames; one that copied every frame asks
///   for a restart (a RESTART checkpoint that gives up at once when a writer or reader is busy), and the next
///   write starts the WAL over, reusing the file's blocks (`IndexStore.journalSizeLimit`). Past twice that (a
///   reader keeps the checkpoints from finishing, or writes leave them no gap) a commit checkpoints whatever is
///   left itself. That bounds the WAL to about 32 MB. (An earlier policy checkpointed inline from `inlineFrames`
///   on: that commit and the next, which truncated the file, were the slowest single writes, 3–18 ms.);
/// - any commit schedules a checkpoint for when the store has been idle for `delay`, so committed data does not
///   stay in the WAL for long (a short-lived writer's data, a naive copy of the `.sqlite` file).
final class IdleCheckpointer: Sendable {
    /// How long the store must be idle before the checkpoint runs.
    static let delay: TimeInterval = 0.5
    /// WAL frames (pages) from which commits schedule background checkpoints, and how many more each time.
    static let backgroundFrames = 1_000, backgroundStep = 500
    /// WAL frames from which background checkpoints chase the commits so that the WAL can start over; past twice
    /// this, a commit checkpoints inline.
    static let inlineFrames = 4_000
    private let state = Mutex<(lastCommit: UInt64, scheduled: Bool, stopped: Bool, pendingCommits: Int, urgent: Bool,
                               scheduledAtFrames: Int)>((0, false, false, 0, false, 0))
    private let queue = DispatchQueue(label: "OpenSpotlight.IdleCheckpointer", qos: .utility)
    /// How many times a commit found the WAL started over after it had passed `backgroundFrames`, and how many
    /// commits checkpointed inline (diagnostics, tests).
    let restarts = Atomic<Int>(0), inlineCheckpoints = Atomic<Int>(0)
    /// The checkpoints' own connection to the store (raw SQLite: it runs nothing but `sqlite3_wal_checkpoint_v2`),
    /// opened on first use; used only on `queue`.
    private let connection = Mutex<OpaquePointer?>(nil)
    private let path: String
    /// Runs on this object's queue after each checkpoint for a pause in writes (`IndexStore` releases what a
    /// large write left in memory: `EngineMemory`); `waitUntilSettled` waits for it too.
    private let restHandler = Mutex<(@Sendable () -> Void)?>(nil)

    init(path: String) {
        self.path = path
    }

    /// Installs the WAL hook on a connection of the store (only the writer's commits call it). The store keeps this
    /// object for as long as its connections.
    func install(on handle: OpaquePointer?) {
        sqlite3_wal_hook(handle, { context, handle, name, frames in
            guard let context else { return SQLITE_OK }
            let checkpointer = Unmanaged<IdleCheckpointer>.fromOpaque(context).takeUnretainedValue()
            if checkpointer.noteWAL(frames: Int(frames)) {
                // The write lock is released already (SQLite calls the hook after it): other processes' writers go
                // on; this store's next write waits for the pages left (past twice the bound only).
                _ = sqlite3_wal_checkpoint_v2(handle, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            }
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Notes the WAL's size after a commit: schedules a background checkpoint when it has grown enough since the
    /// last one, and returns whether the commit should checkpoint inline.
    func noteWAL(frames: Int) -> Bool {
        let (schedule, inline) = state.withLock { s -> (Bool, Bool) in
            if frames < s.scheduledAtFrames {  // The WAL started over.
                s.scheduledAtFrames = 0
                restarts.add(1, ordering: .relaxed)
            }
            guard !s.stopped else { return (false, false) }
            if frames >= Self.inlineFrames {
                // Past twice the bound (a reader keeps the background checkpoints from finishing, or writes leave
                // them no gap), the commit copies whatever is left.
                if frames >= 2 * Self.inlineFrames {
                    inlineCheckpoints.add(1, ordering: .relaxed)
                    return (false, true)
                }
                // Else background checkpoints chase the last commits' frames, one after the other, until one
                // finishes between two commits: the next write then starts the WAL over. (Copying them inline, in
                // the commit, made that commit and the next one the slowest single writes: 3–18 ms.)
                if s.urgent { return (false, false) }
                s.urgent = true
                s.scheduledAtFrames = frames
                return (true, false)
            }
            guard !s.urgent, frames >= Self.backgroundFrames,
                  frames >= s.scheduledAtFrames + Self.backgroundStep else { return (false, false) }
            s.urgent = true
            s.scheduledAtFrames = frames
            return (true, false)
        }
        if schedule {
            let restart = frames >= Self.inlineFrames
            queue.async { [self] in
                guard state.withLock({ s -> Bool in !s.stopped }) else { return }
                let done = checkpoint()
                // Near the bound, with every frame copied: have the next write start the WAL over. It takes the
                // write lock only to see that (copying even a few commits' frames under it, and syncing the main
                // file, held the next write up for 8 ms). Without a busy handler it gives up at once when a writer
                // or a reader is in the way; the next commit schedules another try. The frames of the commits that
                // came while the first checkpoint copied are copied by a second one first, without the write lock
                // (a single write every 2 ms always left some: traced, the RESTART held a write up for 8 ms).
                if restart, let done, done.log == done.copied, let again = checkpoint(), again.log == again.copied {
                    checkpoint(restarting: true)
                }
                state.withLock { $0.urgent = false }
            }
        }
        return inline
    }

    /// Sets what runs when the store comes to rest (after the checkpoint for a pause in writes).
    func onRest(_ handler: @escaping @Sendable () -> Void) {
        restHandler.withLock { $0 = handler }
    }

    /// How long ago this store's last commit was (infinity before the first).
    var secondsSinceLastCommit: TimeInterval {
        let last = state.withLock { $0.lastCommit }
        guard last > 0 else { return .infinity }
        return Double(DispatchTime.now().uptimeNanoseconds - last) / 1e9
    }

    /// Notes a commit: schedules a checkpoint for when writes pause.
    func noteCommit() {
        let schedule = state.withLock { s -> Bool in
            s.lastCommit = DispatchTime.now().uptimeNanoseconds
            s.pendingCommits += 1
            if s.scheduled || s.stopped { return false }
            s.scheduled = true
            return true
        }
        if schedule { scheduleCheck(after: Self.delay) }
    }

    /// A PASSIVE checkpoint on the checkpoints' connection. Failures (another process checkpointing, a busy
    /// reader) are left for the next one: the data is safe in the WAL either way.
    ///
    /// With `truncating`, a WAL file larger than `IndexStore.walSizeLimit` (a bulk load's transactions leave one
    /// of their own size: 71 MB after PyPI's 886,000 items) is emptied when nothing reads or writes it (a TRUNCATE
    /// checkpoint, which waits for no one here: without a busy handler it does what PASSIVE does and reports
    /// SQLITE_BUSY). SQLite itself truncates to `journal_size_limit` only when the next write starts the WAL over,
    /// so an index written once and then only read kept the whole WAL on disk.
    /// With `restarting`, a RESTART checkpoint: the next write starts the WAL over, from the start of the file it
    /// has (it does nothing when a writer or reader is busy).
    /// Returns the WAL's frames and how many of them are in the main file, when it could tell.
    @discardableResult
    private func checkpoint(truncating: Bool = false, restarting: Bool = false) -> (log: Int, copied: Int)? {
        connection.withLock { handle -> (log: Int, copied: Int)? in
            if handle == nil {
                var opened: OpaquePointer?
                guard sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else {
                    sqlite3_close_v2(opened)
                    return nil
                }
                // A connection learns that the file is in WAL mode when it first reads it: until then a checkpoint
                // does nothing.
                guard sqlite3_exec(opened, "PRAGMA schema_version", nil, nil, nil) == SQLITE_OK else {
                    sqlite3_close_v2(opened)
                    return nil
                }
                handle = opened
            }
            var log: Int32 = 0, copied: Int32 = 0
            var mode = SQLITE_CHECKPOINT_PASSIVE
            var info = stat()
            if restarting {
                mode = SQLITE_CHECKPOINT_RESTART
            } else if truncating, stat(path + "-wal", &info) == 0, Int(info.st_size) > IndexStore.walSizeLimit {
                mode = SQLITE_CHECKPOINT_TRUNCATE
            }
            guard sqlite3_wal_checkpoint_v2(handle, nil, mode, &log, &copied) == SQLITE_OK,
                  copied >= 0, log >= 0 else { return nil }
            return (Int(log), Int(copied))
        }
    }

    private func scheduleCheck(after seconds: TimeInterval) {
        queue.asyncAfter(deadline: .now() + seconds) { [self] in
            let wait = state.withLock { s -> TimeInterval? in
                if s.stopped { s.scheduled = false; return nil }
                let idle = Double(DispatchTime.now().uptimeNanoseconds - s.lastCommit) / 1e9
                if idle < Self.delay { return Self.delay - idle }
                s.scheduled = false
                s.pendingCommits = 0
                return 0
            }
            guard let wait else { return }
            if wait > 0 { scheduleCheck(after: wait); return }
            // PASSIVE first, which never holds writers up; then, with every frame copied, the TRUNCATE that empties
            // a large WAL holds the write lock for the truncation only (copying a bulk load's 26 MB of frames under
            // it held the next write up for 8 ms).
            if let done = checkpoint(), done.log == done.copied {
                checkpoint(truncating: true)
            }
            restHandler.withLock { $0 }?()
        }
    }

    /// Waits until no idle checkpoint is scheduled or running: the store is at rest (benchmarks measure its disk
    /// then, tests that the WAL was emptied).
    func waitUntilSettled() {
        while state.withLock({ $0.scheduled && !$0.stopped }) {
            Thread.sleep(forTimeInterval: 0.02)
        }
        queue.sync {}
    }

    /// Stops scheduling (when the store closes), waits for a checkpoint in progress and closes the connection.
    func stop() {
        state.withLock { $0.stopped = true }
        restHandler.withLock { $0 = nil }
        queue.sync {}
        connection.withLock { handle in
            sqlite3_close_v2(handle)
            handle = nil
        }
    }
}

extension IndexStore {
    /// Runs `body` in one IMMEDIATE transaction, taking the write lock fairly (`WriterTurnstile`), and schedules a
    /// checkpoint off the commit path (`IdleCheckpointer`).
    ///
    /// `durable: false` (the maintenance's transactions: merges, pending changes applied, lists built) commits
    /// without syncing the WAL (`synchronous = NORMAL` for that transaction only). Nothing anyone waits for is in
    /// them, and the WAL is written in order, so the next synced commit (or checkpoint) syncs their frames too; a
    /// power loss before it leaves the state before them, which holds the same items. Their sync held the write
    /// lock ~0.5 ms longer, and a single write that came meanwhile waited for it.
    func writeTransaction<T>(durable: Bool = true, _ body: (Database) throws -> T) throws -> T {
        var result: T?
        writeTransactions.add(1, ordering: .relaxed)
        if durable { durableWritesInFlight.add(1, ordering: .relaxed) }
        defer { if durable { durableWritesInFlight.subtract(1, ordering: .relaxed) } }
        try pool.writeWithoutTransaction { db in
            // (SQLite changes the setting only outside a transaction.) A durable write finds FULL again even if
            // setting it back failed.
            if !durable {
                syncRelaxed.store(true, ordering: .relaxed)
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            } else if syncRelaxed.load(ordering: .relaxed) {
                try db.execute(sql: "PRAGMA synchronous = FULL")
                syncRelaxed.store(false, ordering: .relaxed)
            }
            defer {
                if !durable, (try? db.execute(sql: "PRAGMA synchronous = FULL")) != nil { syncRelaxed.store(false, ordering: .relaxed) }
            }
            let turn = turnstile.acquire(timeout: Self.busyTimeout)
            defer { if turn { turnstile.release() } }
            try db.inTransaction(.immediate) {
                // The lock is ours once BEGIN IMMEDIATE returned: let the next waiter queue up behind us.
                if turn { turnstile.release() }
                result = try body(db)
                return .commit
            }
            // The WAL was deleted behind our back (a user's `rm`, a cleaner): this connection still holds the
            // deleted file open and the commit went there, where no one else will ever read it. Copy it into the main
            // file now, and have the registry reopen the store with a new WAL (issue 17: such commits were lost).
            if access(url.path + "-wal", F_OK) != 0 {
                _ = try? db.checkpoint(.passive)
                walLost.store(true, ordering: .relaxed)
            }
        }
        checkpointer.noteCommit()
        return result!
    }
}
