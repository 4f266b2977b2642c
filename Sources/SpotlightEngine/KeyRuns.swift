import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// The identifiers of catalogued items (format 18), as sorted runs: each large write's new catalogued items' (identifier,
/// id) pairs are written as one run, sorted by the identifiers' UTF-8 bytes and cut into front-coded blocks
/// (`keyBlock`), with a Bloom filter per run (`keyRun`). Format 13 to 17 kept them in `itemKey(uid TEXT PRIMARY
/// KEY, id) WITHOUT ROWID`, a B-tree entry per item: 27.6 MB of PyPI's 171 MB (the identifier, its id, a cell's
/// overhead and a page's slack), and one B-tree insert per item of a bulk load. In sorted blocks an identifier
/// shares its leading bytes with the one before it (`pypi:` and more), and nothing is inserted but whole blocks.
///
/// A run is never changed. Deleting an item writes nothing here (its block's `gone` bit already says it is gone):
/// a lookup gives *candidates*, ids a run holds for the identifier, and the catalogue keeps the one still catalogued
/// under that identifier (`ItemCatalog.cataloguedID(of:)`; at most one live item holds an identifier, so the runs'
/// order does not matter). Deletes are counted (`meta.keyGarbage`); runs are merged when a write adds one:
/// - eight runs of one size class (`level`, a power of 8 of their count) become one, an identifier found in
///   several keeping its highest id (ids are never reused, and the later item replaced the earlier);
/// - when the deletes counted pass half of every run's entries, all runs become one holding only the live items.
/// Both run in the write's transaction: a merge of eight runs of 10,000 is a few milliseconds.
///
/// Blocks are at most `blockBytes` (the first identifier in its column, the rest in `data`), below the 1,002 bytes
/// an index page keeps in its cell: no block spills into an overflow page.
struct KeyRuns {
    /// The tables (format 18).
    static let tablesSQL = """
        CREATE TABLE IF NOT EXISTS keyRun(id INTEGER PRIMARY KEY, count INTEGER NOT NULL, salt INTEGER NOT NULL, filter BLOB NOT NULL);
        CREATE TABLE IF NOT EXISTS keyBlock(run INTEGER NOT NULL, first BLOB NOT NULL, data BLOB NOT NULL, PRIMARY KEY(run, first)) WITHOUT ROWID;
        """

    /// A block's bytes at most (its first identifier and its data): with the row's header and run, a cell of 1,002
    /// bytes at most, four to a 4 KB page.
    static let blockBytes = 988
    /// Runs of one level that are merged into one.
    static let mergeWidth = 8

    /// A run as `keyRun` lists it.
    struct Run: Equatable {
        var id: Int64
        var count: Int
        var salt: Int64
    }

    /// The size class of a run of `count` entries: runs of one class are merged together.
    static func level(_ count: Int) -> Int {
        count < 8 ? 0 : (Int.bitWidth - 1 - count.leadingZeroBitCount) / 3
    }

    let db: Database

    init(_ db: Database) {
        self.db = db
    }

    /// The runs, newest first.
    func runs() throws -> [Run] {
        var runs: [Run] = []
        let statement = try db.cachedStatement(sql: "SELECT id, count, salt FROM keyRun ORDER BY id DESC").sqliteStatement
        sqlite3_reset(statement)
        try IndexStore.stepRows(db, statement) {
            runs.append(Run(id: try RawColumn.integer($0, 0), count: Int(try RawColumn.integer($0, 1)),
                            salt: try RawColumn.integer($0, 2)))
        }
        return runs
    }

    // MARK: - Lookup

    /// Calls `body` with each id run `run` holds for `key` (the bytes of an identifier) until it returns true.
    /// With a `filter`, a run that cannot hold the key is not read; `hash`: the key's `KeyFilter.hash` (computed once
    /// by the caller, which asks every run).
    func candidates(in run: Run, key: [UInt8], hash: UInt64, filter: KeyFilter?,
                    _ body: (Int64) throws -> Bool) throws -> Bool {
        if let filter, !filter.mayContain(hash) { return false }
        let statement = try db.cachedStatement(sql: """
            SELECT first, data FROM keyBlock WHERE run = ?1 AND first <= ?2 ORDER BY first DESC LIMIT 1
            """).sqliteStatement
        sqlite3_reset(statement)
        sqlite3_bind_int64(statement, 1, run.id)
        RawBind.blob(statement, 2, key)
        var ids: [Int64] = []
        try IndexStore.stepRows(db, statement) { h in
            let first = try RawColumn.bytes(h, 0), data = try RawColumn.bytes(h, 1)
            try Self.forEachEntry(first: first, data: data) { entry, id in
                let order = Self.compare(entry, key)
                if order == 0 { ids.append(id) }
                return order > 0
            }
        }
        sqlite3_reset(statement)
        for id in ids where try body(id) { return true }
        return false
    }

    /// The filter of a run, read from the store or the process's cache.
    func filter(of run: Run) throws -> KeyFilter {
        if let cached = KeyFilter.cached(run.salt) { return cached }
        var filter: KeyFilter?
        let statement = try db.cachedStatement(sql: "SELECT filter FROM keyRun WHERE id = ?").sqliteStatement
        sqlite3_reset(statement)
        sqlite3_bind_int64(statement, 1, run.id)
        try IndexStore.stepRows(db, statement) { filter = try KeyFilter(stored: try RawColumn.bytes($0, 0)) }
        sqlite3_reset(statement)
        guard let filter else { throw EngineError(.corruptIndex, "identifier run \(run.id) has no filter") }
        KeyFilter.remember(filter, salt: run.salt)
        return filter
    }

    // MARK: - Reading runs in order

    /// A run's entries a block at a time, in order, from the first identifier after `after` (all with nil).
    struct Cursor {
        let run: Int64
        /// The block read last, and where the cursor is in it.
        var block = KeyList()
        var position = 0
        /// The block's first identifier (the next block's is greater).
        var blockFirst: [UInt8]? = nil
        var done = false

        init(run: Int64) {
            self.run = run
        }

        /// The current entry's index in `block`, reading the next block when this one is used up; nil at the end.
        mutating func current(_ runs: KeyRuns) throws -> Int? {
            while !done, position >= block.count {
                try runs.readBlock(into: &self)
            }
            return done ? nil : position
        }
    }

    /// A cursor on `run` at its first identifier after `after`.
    func cursor(on run: Int64, after: [UInt8]?) throws -> Cursor {
        var cursor = Cursor(run: run)
        guard let after else { return cursor }
        // The block holding `after` (or the first after it), then its entries up to `after` skipped.
        let statement = try db.cachedStatement(sql: """
            SELECT first FROM keyBlock WHERE run = ?1 AND first <= ?2 ORDER BY first DESC LIMIT 1
            """).sqliteStatement
        sqlite3_reset(statement)
        sqlite3_bind_int64(statement, 1, run)
        RawBind.blob(statement, 2, after)
        var start: [UInt8]?
        try IndexStore.stepRows(db, statement) { start = Array(try RawColumn.bytes($0, 0)) }
        sqlite3_reset(statement)
        if let start {
            try readBlock(into: &cursor, at: start)
        }
        while let index = try cursor.current(self), Self.compare(cursor.block.key(index), after) <= 0 {
            cursor.position += 1
        }
        return cursor
    }

    /// Reads the cursor's next block (the one whose first identifier is `at`, or the one after its block).
    private func readBlock(into cursor: inout Cursor, at: [UInt8]? = nil) throws {
        let sql = at != nil ? "SELECT first, data FROM keyBlock WHERE run = ?1 AND first = ?2"
            : cursor.blockFirst == nil ? "SELECT first, data FROM keyBlock WHERE run = ?1 ORDER BY first LIMIT 1"
            : "SELECT first, data FROM keyBlock WHERE run = ?1 AND first > ?2 ORDER BY first LIMIT 1"
        let statement = try db.cachedStatement(sql: sql).sqliteStatement
        sqlite3_reset(statement)
        sqlite3_bind_int64(statement, 1, cursor.run)
        if let key = at ?? cursor.blockFirst { RawBind.blob(statement, 2, key) }
        var list = KeyList(), first: [UInt8]?
        try IndexStore.stepRows(db, statement) { h in
            let bytes = try RawColumn.bytes(h, 0)
            first = Array(bytes)
            try Self.forEachEntry(first: bytes, data: try RawColumn.bytes(h, 1)) { key, id in
                list.append(key, id: id)
                return false
            }
        }
        sqlite3_reset(statement)
        guard let first else {
            cursor.done = true
            return
        }
        cursor.block = list
        cursor.position = 0
        cursor.blockFirst = first
    }

    // MARK: - Writing

    /// Writes `list` (sorted, `KeyList.sorted`) as a new run, then merges what the merge policy asks for;
    /// `live` gives the catalogued items' ids, increasing, when every run is merged into one.
    func write(_ list: KeyList, live: () throws -> [Int64]) throws {
        guard list.count > 0 else { return }
        try insertRun(list)
        while let level = try levelToMerge() {
            let dropped = try merge(runs: level, live: nil)
            try db.execute(sql: """
                UPDATE meta SET value = max(0, CAST(value AS INTEGER) - ?) WHERE key = 'keyGarbage'
                """, arguments: [dropped])
        }
        let total = try Int.fetchOne(db, sql: "SELECT coalesce(sum(count), 0) FROM keyRun") ?? 0
        let garbage = try Int.fetchOne(db, sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'keyGarbage'") ?? 0
        if garbage * 2 > total, total >= 64 {
            _ = try merge(runs: try runs(), live: try live())
            try db.execute(sql: "DELETE FROM meta WHERE key = 'keyGarbage'")
        }
    }

    /// The runs of the lowest level that has `mergeWidth` of them, if any.
    private func levelToMerge() throws -> [Run]? {
        let byLevel = Dictionary(grouping: try runs(), by: { Self.level($0.count) })
        guard let level = byLevel.filter({ $0.value.count >= Self.mergeWidth }).keys.min() else { return nil }
        return byLevel[level]!
    }

    /// Counts a catalogued item's deletion (its identifier stays in its run until a merge).
    static func noteDeleted(_ db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO meta(key, value) VALUES('keyGarbage', 1)
            ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1
            """).execute()
    }

    /// Merges `runs` into one, a block of each at a time: an identifier in several keeps its highest id; with
    /// `live` (increasing), only live ids are kept. Returns how many entries it dropped.
    @discardableResult
    func merge(runs: [Run], live: [Int64]?) throws -> Int {
        let before = runs.reduce(0) { $0 + $1.count }
        var cursors = try runs.map { try cursor(on: $0.id, after: nil) }
        // The identifier being merged, copied into one buffer for the whole merge, not an array per entry: the merges
        // of a bulk load run in a batch's transaction, on its thread alone.
        var key: [UInt8] = []
        key.reserveCapacity(256)
        let written = try writeRun(capacity: before) { add in
            while true {
                // The run whose next entry has the least identifier (runs are few: a linear pick, compared in place).
                var least = -1
                for c in cursors.indices {
                    guard let index = try cursors[c].current(self) else { continue }
                    if least >= 0, Self.compare(cursors[c].block.key(index), cursors[least].block.key(cursors[least].position)) >= 0 {
                        continue
                    }
                    least = c
                }
                guard least >= 0 else { break }
                key.removeAll(keepingCapacity: true)
                key.append(contentsOf: cursors[least].block.key(cursors[least].position))
                var best: Int64?
                for c in cursors.indices {
                    while let index = try cursors[c].current(self), Self.compare(cursors[c].block.key(index), key) == 0 {
                        let id = cursors[c].block.ids[index]
                        if live.map({ Self.contains($0, id) }) ?? true, id > best ?? .min { best = id }
                        cursors[c].position += 1
                    }
                }
                if let best { try add(key[...], best) }
            }
        }
        for run in runs {
            try db.execute(sql: "DELETE FROM keyBlock WHERE run = ?; DELETE FROM keyRun WHERE id = ?", arguments: [run.id, run.id])
        }
        return before - written
    }

    private static func contains(_ sorted: [Int64], _ id: Int64) -> Bool {
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low < sorted.count && sorted[low] == id
    }

    /// Inserts a sorted list as one run (none for an empty list).
    func insertRun(_ list: KeyList) throws {
        try writeRun(capacity: list.count) { add in
            for i in 0..<list.count { try add(list.key(i), list.ids[i]) }
        }
    }

    /// Writes one run of the entries `produce` adds, in order (at most `capacity`, which sizes the filter), its
    /// blocks inserted as they fill; none when it adds none. Returns how many entries the run holds.
    @discardableResult
    func writeRun(capacity: Int,
                  _ produce: (_ add: (ArraySlice<UInt8>, Int64) throws -> Void) throws -> Void) throws -> Int {
        let salt = Int64.random(in: .min ... .max)
        try db.execute(sql: "INSERT INTO keyRun(count, salt, filter) VALUES(0, ?, x'')", arguments: [salt])
        let run = db.lastInsertedRowID
        let insert = try db.cachedStatement(sql: "INSERT INTO keyBlock(run, first, data) VALUES(?, ?, ?)").sqliteStatement
        func store(_ block: (first: [UInt8], data: [UInt8])) throws {
            try SegmentMerger.bindAndStep(db, insert) {
                sqlite3_bind_int64(insert, 1, run)
                RawBind.blob(insert, 2, block.first)
                RawBind.blob(insert, 3, block.data)
            }
        }
        var encoder = RunEncoder(capacity: capacity)
        try produce { key, id in
            if let block = encoder.add(key, id) { try store(block) }
        }
        if let block = encoder.finish() { try store(block) }
        guard encoder.count > 0 else {
            try db.execute(sql: "DELETE FROM keyRun WHERE id = ?", arguments: [run])
            return 0
        }
        try db.execute(sql: "UPDATE keyRun SET count = ?, filter = ? WHERE id = ?",
                       arguments: [encoder.count, Data(encoder.filter.stored), run])
        // (Kept for this process's lookups; a transaction rolled back leaves a filter no run has, never a wrong one.)
        KeyFilter.remember(encoder.filter, salt: salt)
        return encoder.count
    }

    // MARK: - Block format

    /// A sorted list cut into blocks, with the run's filter (`RunEncoder`).
    static func encode(_ list: KeyList) -> (blocks: [(first: [UInt8], data: [UInt8])], filter: KeyFilter) {
        var encoder = RunEncoder(capacity: list.count)
        var blocks: [(first: [UInt8], data: [UInt8])] = []
        for i in 0..<list.count {
            if let block = encoder.add(list.key(i), list.ids[i]) { blocks.append(block) }
        }
        if let block = encoder.finish() { blocks.append(block) }
        return (blocks, encoder.filter)
    }

    /// Cuts sorted entries into blocks (each its first identifier, and its entries as (shared bytes with the entry
    /// before, the rest's length, the rest, the id's difference from the entry before's, zigzag) varints, the first
    /// entry sharing all of `first` and its id counted from 0), and fills the run's filter. An identifier given twice
    /// keeps its first entry (`KeyList.sorted` puts the highest id first). (A write's items get increasing ids in
    /// the order it was given them: a corpus given in name order makes differences of a byte, not three.)
    struct RunEncoder {
        private(set) var filter: KeyFilter
        private(set) var count = 0
        private var first: [UInt8] = [], data: [UInt8] = [], entry: [UInt8] = []
        private var previous: [UInt8] = []
        private var started = false
        private var previousID: Int64 = 0

        init(capacity: Int) {
            filter = KeyFilter(count: capacity)
        }

        private mutating func encodeEntry(_ key: ArraySlice<UInt8>, _ id: Int64, after p: ArraySlice<UInt8>, _ pid: Int64) {
            var shared = 0
            let limit = min(p.count, key.count)
            while shared < limit, p[p.startIndex + shared] == key[key.startIndex + shared] { shared += 1 }
            entry.removeAll(keepingCapacity: true)
            ValueCodec.writeVarint(UInt64(shared), to: &entry)
            ValueCodec.writeVarint(UInt64(key.count - shared), to: &entry)
            entry += key.dropFirst(shared)
            let delta = id &- pid
            ValueCodec.writeVarint(UInt64(bitPattern: (delta << 1) ^ (delta >> 63)), to: &entry)
        }

        /// Adds an entry; returns the block it closed, if any.
        mutating func add(_ key: ArraySlice<UInt8>, _ id: Int64) -> (first: [UInt8], data: [UInt8])? {
            if started, KeyRuns.compare(key, previous) == 0 { return nil }
            filter.insert(KeyFilter.hash(key))
            count += 1
            var closed: (first: [UInt8], data: [UInt8])?
            if started { encodeEntry(key, id, after: previous[...], previousID) }
            if !started || first.count + data.count + entry.count > blockBytes {
                if started { closed = (first, data) }
                first = Array(key)
                data.removeAll(keepingCapacity: true)
                encodeEntry(key, id, after: key, 0)
            }
            data += entry
            previous.removeAll(keepingCapacity: true)
            previous += key
            previousID = id
            started = true
            return closed
        }

        /// The last block, if any.
        mutating func finish() -> (first: [UInt8], data: [UInt8])? {
            guard started else { return nil }
            started = false
            return (first, data)
        }
    }

    /// Calls `body` with each entry of a block (its identifier's bytes, valid during the call, and its id) until it
    /// returns true. Damage throws `.corruptIndex`, never traps.
    static func forEachEntry(first: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer,
                             _ body: (ArraySlice<UInt8>, Int64) throws -> Bool) throws {
        var key = [UInt8](first)
        var offset = 0
        var id: Int64 = 0
        func varint() throws -> UInt64 {
            guard let value = try? PostingCodec.Reader.varint(data, &offset) else { throw damaged }
            return value
        }
        while offset < data.count {
            let shared = try varint(), rest = try varint()
            guard shared <= UInt64(key.count), rest <= UInt64(data.count - offset) else { throw damaged }
            key.removeSubrange(Int(shared)...)
            key.append(contentsOf: data[offset..<(offset + Int(rest))])
            offset += Int(rest)
            let zigzag = try varint()
            id = id &+ (Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1))
            if try body(key[...], id) { return }
        }
    }

    private static var damaged: EngineError { EngineError(.corruptIndex, "a damaged block of item identifiers") }

    /// The order of two identifiers' bytes (SQLite's for blobs, and for text with its binary collation).
    static func compare(_ a: ArraySlice<UInt8>, _ b: some Collection<UInt8>) -> Int {
        a.withUnsafeBufferPointer { x in
            let order = b.withContiguousStorageIfAvailable { y -> Int in
                let common = min(x.count, y.count)
                let c = common == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, common)
                return c != 0 ? Int(c) : x.count - y.count
            }
            if let order { return order }
            return x.lexicographicallyPrecedes(b) ? -1 : x.elementsEqual(b) ? 0 : 1
        }
    }
}

/// Identifiers' bytes with their ids, in one buffer.
struct KeyList {
    private(set) var bytes: [UInt8] = []
    private(set) var ends: [Int] = []
    private(set) var ids: [Int64] = []

    var count: Int { ids.count }

    func key(_ i: Int) -> ArraySlice<UInt8> {
        bytes[(i == 0 ? 0 : ends[i - 1])..<ends[i]]
    }

    mutating func reserve(keys: Int, bytes count: Int) {
        bytes.reserveCapacity(count)
        ends.reserveCapacity(keys)
        ids.reserveCapacity(keys)
    }

    mutating func append(_ key: some Collection<UInt8>, id: Int64) {
        bytes.append(contentsOf: key)
        ends.append(bytes.count)
        ids.append(id)
    }

    /// The identifiers with their ids, sorted by the identifiers' bytes, the highest id first among equals.
    static func sorted(_ keys: [(uid: String, id: Int64)]) -> KeyList {
        var unsorted = KeyList()
        unsorted.reserve(keys: keys.count, bytes: keys.reduce(0) { $0 + $1.uid.utf8.count })
        for (uid, id) in keys { unsorted.append(uid.utf8, id: id) }
        return unsorted.sorted()
    }

    /// This list sorted by the identifiers' bytes, the highest id first among equals.
    func sorted() -> KeyList {
        var order = Array(0..<count)
        order.sort { a, b in
            let c = KeyRuns.compare(key(a), key(b))
            return c != 0 ? c < 0 : ids[a] > ids[b]
        }
        var list = KeyList()
        list.reserve(keys: count, bytes: bytes.count)
        for i in order { list.append(key(i), id: ids[i]) }
        return list
    }
}

/// A Bloom filter of a run's identifiers: 10 bits per identifier and 7 probes, about 1 % of lookups of an
/// identifier the run does not hold read one of its blocks. A filter is kept by the process once read (runs never
/// change; the cache is keyed by the run's random salt, so another store's run, or a run written again under the same
/// id, is never taken for it).
struct KeyFilter: Sendable {
    private(set) var words: [UInt64]

    static let bitsPerKey = 10
    static let probes: UInt64 = 7

    init(count: Int) {
        words = [UInt64](repeating: 0, count: max(1, (count * Self.bitsPerKey + 63) / 64))
    }

    /// A filter as `stored` wrote it.
    init(stored: UnsafeRawBufferPointer) throws {
        guard stored.count >= 8, stored.count % 8 == 0 else {
            throw EngineError(.corruptIndex, "a damaged filter of item identifiers")
        }
        words = (0..<(stored.count / 8)).map { UInt64(littleEndian: stored.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self)) }
    }

    var stored: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(words.count * 8)
        for word in words { ValueCodec.writeFixed(word, to: &out) }
        return out
    }

    /// FNV-1a, finished with MurmurHash3's mix.
    static func hash(_ key: some Collection<UInt8>) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key {
            h ^= UInt64(byte)
            h = h &* 0x100_0000_01b3
        }
        h ^= h >> 33
        h = h &* 0xff51_afd7_ed55_8ccd
        h ^= h >> 33
        h = h &* 0xc4ce_b9fe_1a85_ec53
        h ^= h >> 33
        return h
    }

    mutating func insert(_ hash: UInt64) {
        let bits = UInt64(words.count * 64), step = (hash >> 32) | 1
        for i in 0..<Self.probes {
            let bit = (hash &+ i &* step) % bits
            words[Int(bit >> 6)] |= 1 << (bit & 63)
        }
    }

    func mayContain(_ hash: UInt64) -> Bool {
        let bits = UInt64(words.count * 64), step = (hash >> 32) | 1
        for i in 0..<Self.probes {
            let bit = (hash &+ i &* step) % bits
            if words[Int(bit >> 6)] & (1 << (bit & 63)) == 0 { return false }
        }
        return true
    }

    /// The filters this process read, by their run's salt (forgotten all at once past `cacheBytes`).
    static let cache = Mutex<(filters: [Int64: KeyFilter], bytes: Int)>(([:], 0))
    static let cacheBytes = 32 << 20

    /// The filter of the run with this salt, if this process has read it.
    static func cached(_ salt: Int64) -> KeyFilter? {
        cache.withLock { $0.filters[salt] }
    }

    static func remember(_ filter: KeyFilter, salt: Int64) {
        cache.withLock {
            if $0.bytes + filter.words.count * 8 > cacheBytes { $0 = ([:], 0) }
            $0.filters[salt] = filter
            $0.bytes += filter.words.count * 8
        }
    }
}
