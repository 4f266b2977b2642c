import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// The vocabulary's terms of one first letter, in the vocabulary's order, held in memory for typo tolerance's walk
/// (`Typos.vocabularySpans`), per store and per letter: at most `byteLimit` for a store and `processByteLimit` for
/// every store of the process together.
///
/// A word of nine letters or more tolerates two typos, and its walk steps 28,000–45,000 terms of its letter and
/// seeks a thousand times (PyPI: `s3transfe`, `pycparser`, `platformd`): at about 0.4 µs a step through SQLite, 13–20
/// ms, most of such a keystroke. The same walk over the letter's terms in memory steps and seeks by binary search in
/// a tenth of that.
///
/// The vocabulary's rows are never deleted, and every term added takes the next id and raises `meta.nextTerm` in the
/// same transaction: a letter read in a snapshot whose `nextTerm` a search's snapshot also has holds exactly that
/// snapshot's terms. A search never waits for a letter: it walks the vocabulary in SQLite, as it did, while the
/// letter is read on a background queue for the searches after it (as `ColumnCache` reads columns); a write that
/// adds a term makes the letters read before it stale, and each is read again when a search next needs it.
/// Frequencies are not kept (they change with every write): the walk's matches are looked up afterwards.
final class VocabularyLetters: Sendable {
    /// A letter's terms as UTF-8 bytes, one after the other, sorted as SQLite's `BINARY` collation sorts them.
    struct Letter: Sendable {
        /// `meta.nextTerm` of the snapshot they were read in.
        let version: Int64
        let bytes: [UInt8]
        /// Term `i` is `bytes[starts[i] ..< starts[i + 1]]`.
        let starts: [UInt32]

        var count: Int { starts.count - 1 }
        var byteCount: Int { bytes.count + 4 * starts.count }

        /// The position of the first term not below `key` (byte order).
        func lowerBound(_ key: [UInt8]) -> Int {
            bytes.withUnsafeBufferPointer { all in
                key.withUnsafeBufferPointer { key in
                    var low = 0, high = count
                    while low < high {
                        let mid = (low + high) / 2
                        let start = Int(starts[mid]), length = Int(starts[mid + 1]) - start
                        let common = min(length, key.count)
                        let order = common == 0 ? 0 : memcmp(all.baseAddress! + start, key.baseAddress!, common)
                        if order < 0 || (order == 0 && length < key.count) { low = mid + 1 } else { high = mid }
                    }
                    return low
                }
            }
        }
    }

    private struct State {
        var letters: [String: Letter] = [:]
        /// Least recently used first.
        var order: [String] = []
        /// When each letter was last used or read, on the process's clock (`clock`).
        var used: [String: UInt64] = [:]
        var bytes = 0
        /// When each letter's last read was scheduled (`DispatchTime` nanoseconds).
        var scheduled: [String: UInt64] = [:]

        mutating func remove(_ letter: String) {
            bytes -= letters.removeValue(forKey: letter)?.byteCount ?? 0
            order.removeAll { $0 == letter }
            used[letter] = nil
        }
    }

    private let state = Mutex(State())
    /// Every store's letters in this process together hold at most this many bytes (tests lower it): a `spotlight`
    /// search or a desktop provider reads the stores of many apps, each allowed `byteLimit`. The least recently used
    /// letter of any store goes first.
    static let processByteLimit = Atomic<Int>(64 << 20)
    /// The stores' letters in this process, for the process's limit.
    private static let all = Mutex<[Registered]>([])
    private struct Registered {
        weak var letters: VocabularyLetters?
    }
    /// The order of uses across the stores (`State.used`).
    private static let clock = Atomic<UInt64>(0)

    init() {
        Self.all.withLock { all in
            all.removeAll { $0.letters == nil }
            all.append(Registered(letters: self))
        }
    }

    /// The bytes this store's letters hold, and whether it holds `letter` (tests, diagnostics).
    var heldBytes: Int { state.withLock { $0.bytes } }
    func holds(_ letter: String) -> Bool { state.withLock { $0.letters[letter] != nil } }
    private let building = Mutex<Set<String>>([])
    private let stopped = Atomic<Bool>(false)
    private let queue = BackgroundQueue(label: "OpenSpotlight.VocabularyLetters")
    /// The most bytes the letters of one store hold together; the least recently used go first. (PyPI's whole
    /// vocabulary, 1.19 million terms, takes about 19 MB.)
    static let byteLimit = 24 << 20
    /// Letters read so far (tests, diagnostics).
    let lettersRead = Atomic<Int>(0)
    /// A letter is read again at most this often (nanoseconds; tests set 0): an app that writes terms between
    /// every two keystrokes would otherwise have each typo search read its letter again (PyPI's `p`: ~30 ms of a
    /// core), while the searches in between walk SQLite as they did before.
    let rereadInterval = Atomic<UInt64>(1_000_000_000)

    /// The vocabulary's version in `db`'s snapshot: `meta.nextTerm`, or nil for a store without it (the letters are
    /// then never used).
    static func version(_ db: Database) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'nextTerm'"))
    }

    /// The terms of `letter` (one scalar, as text) as of `db`'s snapshot when this cache holds them; otherwise nil,
    /// and a read of them is scheduled through `store`'s reads.
    func terms(of letter: String, _ db: Database, store: IndexStore) throws -> Letter? {
        guard let version = try Self.version(db) else { return nil }
        let found = state.withLock { state -> Letter? in
            guard let terms = state.letters[letter], terms.version == version else { return nil }
            if let at = state.order.firstIndex(of: letter), at != state.order.count - 1 {
                state.order.remove(at: at)
                state.order.append(letter)
            }
            state.used[letter] = Self.clock.add(1, ordering: .relaxed).newValue
            return terms
        }
        if found == nil { scheduleRead(letter, store: store) }
        return found
    }

    /// The terms of `word`'s first letter, as `terms(of:_:store:)` gives them.
    func terms(startingAs word: String, _ db: Database, store: IndexStore) throws -> Letter? {
        guard let first = word.unicodeScalars.first else { return nil }
        return try terms(of: String(first), db, store: store)
    }

    /// Reads a letter's terms in one read transaction (the vocabulary's range of one letter: ~100,000 terms for
    /// PyPI's commonest, 20–40 ms).
    static func read(_ letter: String, _ db: Database) throws -> Letter? {
        guard let version = try version(db) else { return nil }
        let low = Array(letter.utf8), high = low + Typos.SpanWalk.beyond
        var bytes: [UInt8] = []
        var starts: [UInt32] = [0]
        let statement = try db.cachedStatement(sql: "SELECT text FROM term WHERE text >= ?1 AND text < ?2").sqliteStatement
        sqlite3_reset(statement)
        defer { sqlite3_reset(statement) }
        low.withUnsafeBufferPointer { _ = sqlite3_bind_text(statement, 1, $0.baseAddress, Int32($0.count), SQLITE_TRANSIENT) }
        high.withUnsafeBufferPointer { _ = sqlite3_bind_text(statement, 2, $0.baseAddress, Int32($0.count), SQLITE_TRANSIENT) }
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw IndexStore.stepError(db, code) }
            let count = Int(sqlite3_column_bytes(statement, 0))
            if count > 0, let text = sqlite3_column_text(statement, 0) {
                bytes.append(contentsOf: UnsafeBufferPointer(start: text, count: count))
            }
            // (A vocabulary past 4 GB of one letter's text is no index this engine writes: left to SQLite's walk.)
            guard bytes.count < Int(UInt32.max) else { return nil }
            starts.append(UInt32(bytes.count))
        }
        return Letter(version: version, bytes: bytes, starts: starts)
    }

    private func scheduleRead(_ letter: String, store: IndexStore) {
        let now = DispatchTime.now().uptimeNanoseconds
        let due = state.withLock { state -> Bool in
            if let last = state.scheduled[letter], now &- last < rereadInterval.load(ordering: .relaxed) { return false }
            state.scheduled[letter] = now
            return true
        }
        guard due, building.withLock({ $0.insert(letter).inserted }) else { return }
        queue.async { [weak self, weak store] in
            guard let self else { return }
            defer { self.building.withLock { _ = $0.remove(letter) } }
            guard let store, !self.stopped.load(ordering: .acquiring),
                  let read = try? store.read({ try Self.read(letter, $0) }) else { return }
            self.lettersRead.add(1, ordering: .relaxed)
            self.state.withLock { state in
                state.remove(letter)
                state.letters[letter] = read
                state.order.append(letter)
                state.used[letter] = Self.clock.add(1, ordering: .relaxed).newValue
                state.bytes += read.byteCount
                while state.bytes > Self.byteLimit, state.order.count > 1 {
                    state.remove(state.order[0])
                }
            }
            Self.keepProcessLimit()
        }
    }

    /// Drops the least recently used letters of every store in this process until they hold `processByteLimit` at
    /// most. Each store's lock is taken on its own (never two at once): a letter used since it was found oldest is
    /// kept, and the next oldest looked for.
    static func keepProcessLimit() {
        let limit = processByteLimit.load(ordering: .relaxed)
        while true {
            let stores = all.withLock { all -> [VocabularyLetters] in
                all.removeAll { $0.letters == nil }
                return all.compactMap(\.letters)
            }
            var total = 0
            var oldest: (store: VocabularyLetters, letter: String, used: UInt64)? = nil
            for store in stores {
                store.state.withLock { state in
                    total += state.bytes
                    for (letter, used) in state.used where oldest.map({ used < $0.used }) ?? true {
                        oldest = (store, letter, used)
                    }
                }
            }
            guard total > limit, let oldest else { return }
            oldest.store.state.withLock { state in
                if state.used[oldest.letter] == oldest.used { state.remove(oldest.letter) }
            }
        }
    }

    /// Stops reading letters and waits for a read in progress (the store is closing).
    func stop() {
        stopped.store(true, ordering: .releasing)
        queue.sync()
        // A closed store's letters count toward no limit.
        state.withLock { $0 = State() }
    }

    /// Waits for the letters being read in the background (tests, measurements).
    func waitForReads() {
        queue.sync()
    }
}
