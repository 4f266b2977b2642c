import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// The item catalogue: every read and write of what a store keeps per item apart from its postings and values (its
/// identifier, domain, expiry, static ranking signals and record) goes through here, in the snapshot or write
/// transaction of `db`.
///
/// Two kinds of items (format 13):
/// - **Row items** have a row of the `item` table (with a unique index by identifier): single writes, updates, the
///   few records a large write leaves alone, and every item of a store written before format 13.
/// - **Catalogued items** have no row: a large write's new items (those whose records go into blocks) keep their
///   fields (`Fields`) in their record block's catalogue section, their identifier in a sorted run (`KeyRuns`,
///   format 18; `itemKey(uid, id)` in formats 13 to 17), when they expire their expiry in `itemExpiry(expires,
///   id)`, and when they have a hint or a last use both in `itemRanked`. A row and an index entry per item were 93 MB of PyPI's
///   262 MB (item rows 65 MB: ~66 bytes each, identifier 18, domain, expiry, name signals, initials, row
///   overhead; the identifier index 28 MB); in its block an item's fields compress with its record (its
///   identifier and first name word repeat its name, its domain and expiry its neighbours'). Deleting one sets
///   its bit in the block's `gone` mask (and counts it in `dead`), and removes its `itemExpiry` entry (its
///   identifier stays in its run until a merge: a lookup keeps only the candidate still catalogued under it). The
///   maintenance gives the live items of a block more than half dead rows of their own (`moveToRows`), as it
///   gives other blocks' records back to their rows.
///
/// Ids are never reused and an id's content never changes, so an id names one item whichever kind it is. Only the
/// upgrades of older formats (`IndexStore`'s `upgradeFromFormat…`) read the `item` table directly: they read the
/// format they upgrade.
///
/// A catalogue object prepares each statement once and reuses it (GRDB's `cachedStatement(sql:)` hashes the SQL
/// text at each call): make one per transaction or search, not per item. Not thread-safe, as `Database` is not.
final class ItemCatalog {
    let db: Database

    /// Whether large writes catalogue their new items (on by default; tests turn it off to compare, or to write
    /// row items in bulk).
    static let cataloguesLargeWrites = Atomic<Bool>(true)

    init(_ db: Database) {
        self.db = db
    }

    /// Where an item is kept.
    enum Location: Equatable {
        /// A row of the `item` table.
        case row
        /// A catalogue block (`block` is its id) at `position`.
        case block(Int64, position: Int)
        /// Added by the write under way and not stored yet (`pending`).
        case pending
    }

    /// An item as the catalogue keeps it.
    struct Entry {
        var id: Int64
        var uid: String
        var domain: String?
        /// Seconds since the reference date.
        var expires: Double
        var hint: Double?
        var lastUsed: Double?
        /// The stored record (`ValueCodec.stored`): its bytes, or none when the record is in a record block
        /// (`RecordBlocks`).
        var record: [UInt8]
        var location: Location = .row
        /// A catalogued item's block, read with its records, and its position there: its plain record (`plain`) is
        /// taken out of the block only when it is asked for (a search reads the fields of many more entries than
        /// it returns records of, and a record laid out by attribute is rebuilt to be read, `RecordColumns`).
        var block: (decoded: RecordBlocks.Decoded, position: Int)? = nil

        /// A catalogued item's plain record, from its block.
        var plain: ArraySlice<UInt8>? { block.map { $0.decoded.record(at: $0.position) } }

        /// The item with its record decoded.
        func storedItem(in db: Database) throws -> StoredItem {
            let decoded = try attributes(in: db)
            return StoredItem(uniqueIdentifier: uid, domainIdentifier: domain,
                              expirationDate: Date(timeIntervalSinceReferenceDate: expires),
                              attributes: decoded.attributes, customAttributes: decoded.custom)
        }

        /// The decoded record.
        func attributes(in db: Database) throws -> (attributes: [String: AttributeValue], custom: [String: CustomAttribute]) {
            if let plain { return try ValueCodec.decode(Array(plain)) }
            return try ValueCodec.decode(record, item: id, in: db)
        }
    }

    /// What the catalogue keeps of a catalogued item in its block (and of a pending one in memory).
    struct Fields: Sendable, Equatable {
        var uid: String
        var domain: String?
        var expires: Double
        var hint: Double?
        var lastUsed: Double?
        var name: NameSignals
        var initials: [UInt8]

        init(uid: String, domain: String?, expires: Double, hint: Double?, lastUsed: Double?, name: NameSignals,
             initials: [UInt8]) {
            self.uid = uid
            self.domain = domain
            self.expires = expires
            self.hint = hint
            self.lastUsed = lastUsed
            // (What writes compute for prefix-list keys is not stored.)
            self.name = NameSignals(words: name.words, first: name.first, key: name.key)
            self.initials = initials
        }

        /// The never-expiring date as stored (`IndexStore.neverExpires`).
        static let never = Double(IndexStore.neverExpires)!

        /// A catalogue section: each item's identifier, domain (0, or 1 and the text), a byte of flags (1: it
        /// expires, 2: a hint, 4: a last-used date, each then 8 bytes; 8: its initials are here), its name's word
        /// count and first word, and its initials (a byte of length, then the bytes). Its name's key is in
        /// `encodeRaw`'s bytes.
        ///
        /// Format 17 moved the initials into the section, which is compressed: a catalogue section of format 13 to
        /// 16 has no flag 8, and its items' initials follow their keys in the raw bytes (read as they are). The
        /// initials are a few 4-bit codes that repeat from item to item: PyPI's, 11.6 bytes an item beside the
        /// frame, take about 5 in it (zstd, a block's items at a time; `BENCHMARKS.md`, 2026-12-06).
        static func encode(_ all: [Fields]) -> [UInt8] {
            var out: [UInt8] = []
            out.reserveCapacity(all.count * 60)
            for fields in all {
                ValueCodec.writeString(fields.uid, to: &out)
                ValueCodec.writeOptionalString(fields.domain, to: &out)
                let expires = fields.expires < never
                out.append((expires ? 1 : 0) | (fields.hint != nil ? 2 : 0) | (fields.lastUsed != nil ? 4 : 0) | 8)
                if expires { ValueCodec.writeFixed(fields.expires.bitPattern, to: &out) }
                if let hint = fields.hint { ValueCodec.writeFixed(hint.bitPattern, to: &out) }
                if let lastUsed = fields.lastUsed { ValueCodec.writeFixed(lastUsed.bitPattern, to: &out) }
                ValueCodec.writeVarint(UInt64(fields.name.words), to: &out)
                ValueCodec.writeString(fields.name.first, to: &out)
                out.append(UInt8(fields.initials.count))
                out += fields.initials
            }
            return out
        }

        /// What of the fields does not compress, kept beside the frame: each item's name key (8 bytes, a hash).
        static func encodeRaw(_ all: [Fields]) -> [UInt8] {
            var out: [UInt8] = []
            out.reserveCapacity(all.count * 8)
            for fields in all { ValueCodec.writeFixed(fields.name.key, to: &out) }
            return out
        }
    }

    /// A catalogue block's fields (its section and raw bytes, `Fields.encode` and `encodeRaw`), checked whole when
    /// made and read in place: an item's `Fields` are made when asked for, and column reads take an item's
    /// identifier and initials as bytes. (Every item's `Fields` made at once, an identifier, a first word and an
    /// initials array each, were most of what a search ranking from the blocks spent, in making and freeing them.)
    struct FieldsTable: Sendable, RandomAccessCollection {
        private let section: [UInt8]
        private let raw: [UInt8]
        /// Where each item's entry starts in `section` and in `raw`.
        private let starts: [UInt32]
        private let rawStarts: [UInt32]

        /// An item's entry; its initials are a range of the section, or with `rawInitials` (format 13 to 16) of
        /// the raw bytes.
        private typealias Parts = (uid: Range<Int>, domain: Range<Int>?, expires: Double, hint: Double?, lastUsed: Double?,
                                   words: Int, first: Range<Int>, key: UInt64, initials: Range<Int>, rawInitials: Bool)

        /// Checks a section of `count` items and its raw bytes; damage throws `.corruptIndex`, never traps.
        init(section: [UInt8], raw: [UInt8], count: Int, block: Int64) throws {
            guard section.count < Int(UInt32.max), raw.count < Int(UInt32.max), count <= section.count else {
                throw RecordBlocks.damaged(block)
            }
            var reader = ValueCodec.Reader(bytes: section)
            var rawReader = ValueCodec.Reader(bytes: raw)
            var starts: [UInt32] = [], rawStarts: [UInt32] = []
            starts.reserveCapacity(count)
            rawStarts.reserveCapacity(count)
            for _ in 0..<count {
                starts.append(UInt32(reader.offset))
                rawStarts.append(UInt32(rawReader.offset))
                _ = try Self.parts(&reader, &rawReader, block: block)
            }
            guard reader.offset == section.count, rawReader.offset == raw.count else { throw RecordBlocks.damaged(block) }
            self.section = section
            self.raw = raw
            self.starts = starts
            self.rawStarts = rawStarts
        }

        /// One item's entry from where the readers are: the identifier, domain, first word and initials as ranges of
        /// the bytes.
        private static func parts(_ reader: inout ValueCodec.Reader, _ rawReader: inout ValueCodec.Reader, block: Int64) throws -> Parts {
            let uid = try reader.rawBytes(try reader.count(minimumBytesEach: 1)).indices
            let domain = try reader.byte() == 0 ? nil : try reader.rawBytes(try reader.count(minimumBytesEach: 1)).indices
            let flags = try reader.byte()
            guard flags < 16 else { throw RecordBlocks.damaged(block) }
            let expires = flags & 1 != 0 ? Double(bitPattern: try reader.fixed()) : Fields.never
            let hint = flags & 2 != 0 ? Double(bitPattern: try reader.fixed()) : nil
            let lastUsed = flags & 4 != 0 ? Double(bitPattern: try reader.fixed()) : nil
            let words = try reader.varint()
            guard words <= 255 else { throw RecordBlocks.damaged(block) }
            let first = try reader.rawBytes(try reader.count(minimumBytesEach: 1)).indices
            let inSection = flags & 8 == 0 ? nil : try reader.rawBytes(Int(try reader.byte())).indices
            let key = try rawReader.fixed()
            let initials = try inSection ?? rawReader.rawBytes(Int(try rawReader.byte())).indices
            guard Initials.isValid(count: initials.count) else { throw RecordBlocks.damaged(block) }
            return (uid, domain, expires, hint, lastUsed, Int(words), first, key, initials, inSection == nil)
        }

        /// The bytes of an item's initials.
        private func initials(_ e: Parts) -> ArraySlice<UInt8> {
            e.rawInitials ? raw[e.initials] : section[e.initials]
        }

        /// The entry at `position`, checked when the table was made: reading it again cannot fail (were it to, the
        /// item would read as one with nothing, never a trap).
        private func parts(at position: Int) -> Parts {
            var reader = ValueCodec.Reader(bytes: section)
            var rawReader = ValueCodec.Reader(bytes: raw)
            reader.offset = Int(starts[position])
            rawReader.offset = Int(rawStarts[position])
            return (try? Self.parts(&reader, &rawReader, block: 0)) ?? (0..<0, nil, 0, nil, nil, 0, 0..<0, 0, 0..<0, true)
        }

        var startIndex: Int { 0 }
        var endIndex: Int { starts.count }

        subscript(position: Int) -> Fields {
            let e = parts(at: position)
            return Fields(uid: String(decoding: section[e.uid], as: UTF8.self),
                          domain: e.domain.map { String(decoding: section[$0], as: UTF8.self) }, expires: e.expires,
                          hint: e.hint, lastUsed: e.lastUsed,
                          name: NameSignals(words: e.words, first: String(decoding: section[e.first], as: UTF8.self), key: e.key),
                          initials: Array(initials(e)))
        }

        /// The column row of the item `id` at `position`, its identifier and initials as bytes valid during `body`.
        func withColumnRow(_ position: Int, id: Int64, _ body: (ColumnRow) throws -> Void) rethrows {
            let e = parts(at: position)
            try section.withUnsafeBufferPointer { section in
                try (e.rawInitials ? raw : self.section).withUnsafeBytes { initials in
                    try body(ColumnRow(id: id, hint: e.hint, lastUsed: e.lastUsed, uid: UnsafeBufferPointer(rebasing: section[e.uid]),
                                       nameWords: e.words, nameFirst: String(decoding: section[e.first], as: UTF8.self),
                                       nameKey: e.key, initials: UnsafeRawBufferPointer(rebasing: initials[e.initials])))
                }
            }
        }

        /// Whether the item at `position` has the identifier whose bytes are `key`.
        func holds(_ key: [UInt8], at position: Int) -> Bool {
            section[parts(at: position).uid].elementsEqual(key)
        }

        /// The ranking signals and expiry of the item at `position` (no domain or initials made).
        func signals(at position: Int) -> (signals: Signals, expires: Double) {
            let e = parts(at: position)
            return (Signals(uid: String(decoding: section[e.uid], as: UTF8.self), hint: e.hint, lastUsed: e.lastUsed,
                            name: NameSignals(words: e.words, first: String(decoding: section[e.first], as: UTF8.self), key: e.key)),
                    e.expires)
        }
    }

    /// Items the write under way added to the catalogue and has not stored yet (their block is not written), by
    /// id, and their ids by identifier: the writer's lookups find them here.
    var pending: [Int64: Fields] = [:]
    var pendingIDs: [String: Int64] = [:]

    /// Notes a catalogued item the write under way added (stored with its block, `insertBlock`).
    func addPending(id: Int64, _ fields: Fields) {
        pending[id] = fields
        pendingIDs[fields.uid] = id
    }

    private func removePending(_ id: Int64) {
        if let fields = pending.removeValue(forKey: id), pendingIDs[fields.uid] == id { pendingIDs[fields.uid] = nil }
    }

    private static func entry(_ id: Int64, _ fields: Fields, location: Location,
                              block: (decoded: RecordBlocks.Decoded, position: Int)? = nil) -> Entry {
        Entry(id: id, uid: fields.uid, domain: fields.domain, expires: fields.expires, hint: fields.hint,
              lastUsed: fields.lastUsed, record: [], location: location, block: block)
    }

    /// The tables of catalogued items (format 13; with `RecordBlocks.catalogueColumnsSQL`).
    static let tablesSQL = """
        \(KeyRuns.tablesSQL)
        CREATE TABLE IF NOT EXISTS itemExpiry(expires REAL NOT NULL, id INTEGER NOT NULL, PRIMARY KEY(expires, id)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS itemRanked(id INTEGER PRIMARY KEY, hint REAL, lastUsed REAL);
        CREATE INDEX IF NOT EXISTS itemRanked_order ON itemRanked(hint DESC, lastUsed DESC, id);
        \(RecordBlocks.catalogueIndexSQL)
        """

    /// Whether the store has the tables of catalogued items (format 13; a store of an older format opened to be
    /// read only has none, and no catalogued items).
    var hasCatalogue: Bool {
        get throws { try keySource != .none }
    }

    /// Where catalogued items' identifiers are.
    private enum KeySource {
        /// No catalogued items (a store older than format 13 opened to be read only).
        case none
        /// `itemKey(uid, id)`: format 13 to 17, opened to be read only (opened for writing, it is upgraded).
        case table
        /// Sorted runs (`KeyRuns`, format 18).
        case runs
    }

    private var keySource: KeySource {
        get throws {
            if let known = keySourceKnown { return known }
            let known: KeySource = try db.tableExists("keyRun") ? .runs : try db.tableExists("itemKey") ? .table : .none
            keySourceKnown = known
            return known
        }
    }
    private var keySourceKnown: KeySource?

    /// A catalogue block as read: its row's counts and mask, and its bytes decoded.
    struct Block {
        var id: Int64
        var count: Int
        var dead: Int
        var gone: UInt64
        var decoded: RecordBlocks.Decoded

        func isGone(_ position: Int) -> Bool { position < 64 && gone & (1 << UInt64(position)) != 0 }
    }
    private var blockHolding: Statement?
    private var blockByID: Statement?

    /// The last block `block(holding:)` found, with its last id: readers that go through many items in id order (a
    /// prefix list's refill reads thousands) find each block once. Forgotten by every write through this object.
    private var lastBlock: (block: Block, last: Int64)?
    /// The same for the blocks `block(holding:headOnly:)` read without their records.
    private var lastHead: (block: Block, last: Int64)?

    /// The last block read whose range holds `item`, if any; with `headOnly`, a head read alone will do.
    private func rememberedBlock(holding item: Int64, headOnly: Bool) -> Block? {
        // (Not a loop over an array of the two: the array was allocated at every lookup.)
        if headOnly, let memo = lastHead, memo.block.id <= item, item <= memo.last { return memo.block }
        if let memo = lastBlock, memo.block.id <= item, item <= memo.last { return memo.block }
        return nil
    }

    /// Whether `block(holding:headOnly:)` decodes through the process's cache of decoded blocks (`RecordBlocks`).
    /// A refill turns it off: it reads one item in each of thousands of blocks, which evicted what searches read
    /// and took the cache's lock from every core.
    var decodesThroughCache = true

    private func forgetBlocks() {
        lastBlock = nil
        lastHead = nil
    }

    /// The catalogue block whose range holds `item` (nil when the block there, if any, is not a catalogue block);
    /// with `headOnly`, its ids and fields without its records (`RecordBlocks.decodeHead`: what ranking signals,
    /// initials and counts read, a tenth of PyPI's plain bytes).
    private func block(holding item: Int64, headOnly: Bool = false) throws -> Block? {
        guard try hasCatalogue else { return nil }
        if let memo = rememberedBlock(holding: item, headOnly: headOnly) { return memo }
        let statement = try self.statement(&blockHolding, """
            SELECT id, count, dead, gone, data, rawFields, last FROM recordBlock WHERE id <= ? AND catalog = 1 ORDER BY id DESC LIMIT 1
            """)
        var found: Block?
        try IndexStore.forEachRawRow(db, statement, int64: item) { h in
            let last = try RawColumn.integer(h, 6)
            guard last >= item else { return }
            let block = try Self.block(h, db, cached: decodesThroughCache, headOnly: headOnly)
            found = block
            if headOnly { lastHead = (block, last) } else { lastBlock = (block, last) }
        }
        return found
    }

    private var blockBelow: Statement?

    /// Where the catalogue blocks that may hold ids from `lower` on start: the id of the block whose range may hold
    /// `lower` (blocks never overlap), else `lower`. Asking for the blocks with `id <= upper AND last >= lower`
    /// stepped `recordBlock_catalog` from its first entry (no index orders by `last`): PyPI's 14,000 entries for
    /// every small segment's columns a search built after a single write (upsert visible p50 1.3 → 8.5 ms).
    private func firstBlock(from lower: Int64) throws -> Int64 {
        var found = lower
        try IndexStore.forEachRawRow(db, try statement(&blockBelow, """
            SELECT id FROM recordBlock WHERE catalog = 1 AND id <= ? ORDER BY id DESC LIMIT 1
            """), int64: lower) { found = try RawColumn.integer($0, 0) }
        return found
    }

    /// The catalogue block `id`; `cached`: through the process's cache of decoded blocks; `headOnly`: without its
    /// records (`block(holding:headOnly:)`).
    private func block(id: Int64, cached: Bool, headOnly: Bool = false) throws -> Block? {
        let statement = try self.statement(&blockByID, "SELECT id, count, dead, gone, data, rawFields FROM recordBlock WHERE id = ? AND catalog = 1")
        var found: Block?
        try IndexStore.forEachRawRow(db, statement, int64: id) { found = try Self.block($0, db, cached: cached, headOnly: headOnly) }
        return found
    }

    private static func block(_ h: OpaquePointer, _ db: Database, cached: Bool = true, headOnly: Bool = false) throws -> Block {
        let id = try RawColumn.integer(h, 0)
        let decoded = try RecordBlocks.decoded(id: id, data: try PostingStore.blob(h, column: 4),
                                               rawFields: try RawColumn.bytes(h, 5), headOnly: headOnly, cached: cached, in: db)
        guard let catalogue = decoded.catalogue, catalogue.count == decoded.ids.count else { throw RecordBlocks.damaged(id) }
        return Block(id: id, count: Int(try RawColumn.integer(h, 1)), dead: Int(try RawColumn.integer(h, 2)),
                     gone: UInt64(bitPattern: try RawColumn.integer(h, 3)), decoded: decoded)
    }

    /// The block and position of the catalogued item `id`, unless it is gone; `headOnly`: the block without its
    /// records.
    private func cataloguedPlace(_ id: Int64, headOnly: Bool = false) throws -> (block: Block, position: Int)? {
        guard let block = try block(holding: id, headOnly: headOnly), let position = block.decoded.position(of: id),
              !block.isGone(position) else { return nil }
        return (block, position)
    }

    /// The catalogued item `id`, unless it is gone.
    private func catalogued(_ id: Int64) throws -> Entry? {
        guard let (block, position) = try cataloguedPlace(id) else { return nil }
        return Self.entry(id, block.decoded.catalogue![position], location: .block(block.id, position: position),
                          block: (block.decoded, position))
    }

    /// The live entries of a catalogue block, in id order.
    private static func liveEntries(_ block: Block) -> [Entry] {
        var entries: [Entry] = []
        entries.reserveCapacity(block.decoded.ids.count)
        for (position, id) in block.decoded.ids.enumerated() where !block.isGone(position) {
            entries.append(entry(id, block.decoded.catalogue![position], location: .block(block.id, position: position),
                                 block: (block.decoded, position)))
        }
        return entries
    }

    /// Every catalogue block that holds ids from `range`, in id order (read one at a time, so the blocks of a large
    /// range are not all held at once). `body` returns false to stop. Decoded apart from the process's cache of
    /// decoded blocks: a scan reads each block once, and through the cache the background read of a large
    /// segment's columns (PyPI: 14,000 blocks) pushed out every block the searches meanwhile read, and shared its
    /// lock with them (perf: 8.6 % of a cold process's first PyPI search waiting on it; that search's time did not
    /// move beyond the noise, 15–19 ms either way).
    private func forEachBlock(in range: ClosedRange<Int64>, headOnly: Bool = false, _ body: (Block) throws -> Bool) throws {
        // (The ranges first, then each block: the blocks of a range are few next to their items, 64 at most each.)
        for entry in try blockEntries(in: range) {
            guard let block = try block(id: entry.id, cached: false, headOnly: headOnly) else { continue }
            guard try body(block) else { return }
        }
    }

    /// The `recordBlock_catalog` entries of the catalogue blocks that hold ids from `range`, in id order (none for a
    /// store without a catalogue).
    private func blockEntries(in range: ClosedRange<Int64>) throws -> [(id: Int64, last: Int64, count: Int64, gone: UInt64)] {
        guard try hasCatalogue else { return [] }
        return try Row.fetchAll(db.cachedStatement(sql: """
            SELECT id, last, count, gone FROM recordBlock WHERE catalog = 1 AND id BETWEEN ? AND ? AND last >= ? ORDER BY id
            """), arguments: [try firstBlock(from: range.lowerBound), range.upperBound, range.lowerBound]).map { row in
            (try row.stored(0), try row.stored(1), try row.stored(2), UInt64(bitPattern: try row.stored(3)))
        }
    }

    /// An item's static ranking signals.
    struct Signals {
        var uid: String
        var hint: Double?
        var lastUsed: Double?
        var name: NameSignals
    }

    /// The columns an `Entry` is read from, in `entry(_:)`'s order.
    private static let entryColumns = "id, uid, domain, expires, hint, lastUsed, attrs"

    private var byUID: Statement?
    private var liveByID: Statement?
    private var idByUID: Statement?
    private var signalsByID: Statement?
    private var liveSignalsByID: Statement?
    private var initialsByID: Statement?
    private var insertStatement: Statement?
    private var deleteStatement: Statement?
    private var recordUpdate: Statement?

    private func statement(_ slot: inout Statement?, _ sql: String) throws -> Statement {
        if let statement = slot { return statement }
        let statement = try db.cachedStatement(sql: sql)
        slot = statement
        return statement
    }

    /// The `Entry` of the current row of a statement selecting `entryColumns`.
    private static func entry(_ h: OpaquePointer) throws -> Entry {
        guard let expires = try RawColumn.real(h, 3) else {
            throw EngineError(.corruptIndex, "an item without an expiration date")
        }
        return Entry(id: try RawColumn.integer(h, 0), uid: try RawColumn.text(h, 1), domain: try RawColumn.optionalText(h, 2),
                     expires: expires, hint: try RawColumn.real(h, 4), lastUsed: try RawColumn.real(h, 5),
                     record: [UInt8](try RawColumn.bytes(h, 6)))
    }

    // MARK: - One item

    /// The item with this identifier; with `now`, only if it has not expired by then. Nil for an identifier that
    /// cannot be stored (`isStorableKey`).
    func entry(uid: String, liveAt now: Double = -.infinity) throws -> Entry? {
        guard uid.isStorableKey else { return nil }
        if let id = pendingIDs[uid], let fields = pending[id] {
            return fields.expires > now ? Self.entry(id, fields, location: .pending) : nil
        }
        // Most upserts of a bulk load are of new items: the lookup steps through the C API, and only a row found
        // is read.
        let handle = try statement(&byUID, "SELECT \(Self.entryColumns) FROM item WHERE uid = ?").sqliteStatement
        var found: Entry?
        sqlite3_reset(handle)
        RawBind.text(handle, 1, uid)
        try IndexStore.stepRows(db, handle) { found = try Self.entry($0) }
        if found == nil, let id = try cataloguedID(of: uid, headOnly: false) { found = try catalogued(id) }
        guard let found, found.expires > now else { return nil }
        return found
    }

    private var keyLookup: Statement?

    /// The id of the catalogued item with this identifier, if one is; with `headOnly`, its block is read without its
    /// records (the caller does not read them).
    private func cataloguedID(of uid: String, headOnly: Bool) throws -> Int64? {
        switch try keySource {
        case .none:
            return nil
        case .table:
            var found: Int64?
            try IndexStore.forEachRawRow(db, try statement(&keyLookup, "SELECT id FROM itemKey WHERE uid = ?"), text: uid) {
                found = try RawColumn.integer($0, 0)
            }
            return found
        case .runs:
            // The runs give candidates: ids once catalogued under this identifier, deleted or not. The live one is
            // the one still catalogued under it (ids are never reused).
            let runs = KeyRuns(db)
            let all = try keyRuns ?? runs.runs()
            keyRuns = all
            keyLookups += 1
            let key = Array(uid.utf8)
            let hash = KeyFilter.hash(key)
            var found: Int64?
            for run in all {
                // A run's filter is read once a catalogue object looks up several identifiers (a large write's
                // lookups); a single lookup reads one block per run instead.
                let filter = try KeyFilter.cached(run.salt) ?? (keyLookups > 4 ? runs.filter(of: run) : nil)
                let done = try runs.candidates(in: run, key: key, hash: hash, filter: filter) { id in
                    guard let (block, position) = try cataloguedPlace(id, headOnly: headOnly),
                          block.decoded.catalogue!.holds(key, at: position) else { return false }
                    found = id
                    return true
                }
                if done { break }
            }
            return found
        }
    }

    /// The identifier runs (`KeyRuns`), read once per catalogue object; forgotten when it writes one.
    private var keyRuns: [KeyRuns.Run]?
    private var keyLookups = 0

    /// The item with this id; with `now`, only if it has not expired by then.
    func entry(id: Int64, liveAt now: Double = -.infinity) throws -> Entry? {
        if let fields = pending[id] { return fields.expires > now ? Self.entry(id, fields, location: .pending) : nil }
        let handle = try statement(&liveByID, "SELECT \(Self.entryColumns) FROM item WHERE id = ?1 AND expires > ?2").sqliteStatement
        var found: Entry?
        sqlite3_reset(handle)
        sqlite3_bind_int64(handle, 1, id)
        sqlite3_bind_double(handle, 2, now)
        try IndexStore.stepRows(db, handle) { found = try Self.entry($0) }
        if found == nil, let entry = try catalogued(id), entry.expires > now { found = entry }
        return found
    }

    /// The item with this id, its record decoded; nil when it is gone or, with `now`, expired.
    func item(id: Int64, liveAt now: Double = -.infinity) throws -> StoredItem? {
        try entry(id: id, liveAt: now)?.storedItem(in: db)
    }

    /// The id of the item with this identifier (expired or not).
    func id(of uid: String) throws -> Int64? {
        guard uid.isStorableKey else { return nil }
        if let id = pendingIDs[uid] { return id }
        var found: Int64?
        try IndexStore.forEachRawRow(db, try statement(&idByUID, "SELECT id FROM item WHERE uid = ?"), text: uid) {
            found = try RawColumn.integer($0, 0)
        }
        return try found ?? cataloguedID(of: uid, headOnly: true)
    }

    /// The static ranking signals of an item; nil when it is gone or, with `now`, expired.
    func signals(of id: Int64, liveAt now: Double? = nil) throws -> Signals? {
        if let fields = pending[id] {
            guard fields.expires > now ?? -.infinity else { return nil }
            return Signals(uid: fields.uid, hint: fields.hint, lastUsed: fields.lastUsed, name: fields.name)
        }
        // The block read for the candidate before often holds this one too (a search's candidates come in id
        // order): an id it holds has no row, so the row is not looked for.
        if let memo = rememberedBlock(holding: id, headOnly: true), let position = memo.decoded.position(of: id) {
            guard !memo.isGone(position) else { return nil }
            let (signals, expires) = memo.decoded.catalogue!.signals(at: position)
            return expires > now ?? -.infinity ? signals : nil
        }
        var found: Signals?
        let read: (OpaquePointer) throws -> Void = { h in
            found = Signals(uid: try RawColumn.text(h, 0), hint: try RawColumn.real(h, 1), lastUsed: try RawColumn.real(h, 2),
                            name: try RawColumn.nameSignals(h, words: 3, first: 4, key: 5))
        }
        if let now {
            let handle = try statement(&liveSignalsByID, """
                SELECT uid, hint, lastUsed, nameWords, nameFirst, nameKey FROM item WHERE id = ?1 AND expires > ?2
                """).sqliteStatement
            sqlite3_reset(handle)
            sqlite3_bind_int64(handle, 1, id)
            sqlite3_bind_double(handle, 2, now)
            try IndexStore.stepRows(db, handle, read)
        } else {
            try IndexStore.forEachRawRow(db, try statement(&signalsByID, """
                SELECT uid, hint, lastUsed, nameWords, nameFirst, nameKey FROM item WHERE id = ?
                """), int64: id, read)
        }
        if found == nil, let (block, position) = try cataloguedPlace(id, headOnly: true) {
            let (signals, expires) = block.decoded.catalogue!.signals(at: position)
            guard expires > now ?? -.infinity else { return nil }
            found = signals
        }
        return found
    }

    /// Runs `body` with an item's initials (`Initials`), if it exists; the bytes are valid during the call.
    func withInitials(of id: Int64, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        var found = false
        try IndexStore.forEachRawRow(db, try statement(&initialsByID, "SELECT initials FROM item WHERE id = ?"), int64: id) {
            found = true
            try body(try RawColumn.bytes($0, 0))
        }
        guard !found else { return }
        let initials: [UInt8]
        if let fields = pending[id] {
            initials = fields.initials
        } else if let (block, position) = try cataloguedPlace(id, headOnly: true) {
            initials = block.decoded.catalogue![position].initials
        } else {
            return
        }
        try initials.withUnsafeBytes { try body($0) }
    }

    // MARK: - Many items

    /// Every item in id order; with `now`, only those that have not expired by then. `from`: the first id.
    /// `body` returns false to stop.
    func forEachEntry(liveAt now: Double = -.infinity, from first: Int64 = .min, _ body: (Entry) throws -> Bool) throws {
        let handle = try db.cachedStatement(sql: """
            SELECT \(Self.entryColumns) FROM item WHERE id >= ?1 AND expires > ?2 ORDER BY id
            """).sqliteStatement
        sqlite3_reset(handle)
        sqlite3_bind_int64(handle, 1, first)
        sqlite3_bind_double(handle, 2, now)
        defer { sqlite3_reset(handle) }
        // Each entry is read before `body` runs, which may read the store (a query's delivery never runs while the
        // statement is stepping a row it still reads). Rows and catalogue blocks are merged by id.
        func nextRow() throws -> Entry? {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return nil }
            guard code == SQLITE_ROW else { throw IndexStore.stepError(db, code) }
            return try Self.entry(handle)
        }
        var row = try nextRow()
        var stopped = false
        try forEachBlock(in: first...Int64.max) { block in
            for entry in Self.liveEntries(block) where entry.id >= first && entry.expires > now {
                while let current = row, current.id < entry.id {
                    guard try body(current) else { stopped = true; return false }
                    row = try nextRow()
                }
                guard try body(entry) else { stopped = true; return false }
            }
            return true
        }
        guard !stopped else { return }
        while let current = row {
            guard try body(current) else { return }
            row = try nextRow()
        }
    }

    /// Every item's id, identifier and stored record, rows in the table's order, then catalogued items (the
    /// integrity check and the sampling of records read them so): a NULL identifier (damage) is nil, a NULL record
    /// empty. A catalogue block that does not decode is passed to `damaged` (the integrity check reports it), or
    /// throws. `body` returns false to stop.
    func forEachRecord(damaged: ((_ block: Int64, _ error: any Error) -> Bool)? = nil,
                       _ body: (_ id: Int64, _ uid: String?, _ record: [UInt8]) throws -> Bool) throws {
        let cursor = try Row.fetchCursor(db, sql: "SELECT id, uid, attrs FROM item")
        while let row = try cursor.next() {
            let uid = try row.stored(1) as String?
            let record = (try row.stored(2) as Data?).map { [UInt8]($0) } ?? []
            guard try body(try row.stored(0), uid, record) else { return }
        }
        // Catalogued items after the rows (their records are in their blocks: an empty record).
        guard try hasCatalogue else { return }
        for id in try Int64.fetchAll(db, sql: "SELECT id FROM recordBlock WHERE catalog = 1 ORDER BY id") {
            let block: Block?
            do {
                block = try self.block(id: id, cached: false)
            } catch {
                guard let damaged else { throw error }
                guard damaged(id, error) else { return }
                continue
            }
            guard let block else { continue }
            for entry in Self.liveEntries(block) {
                guard try body(entry.id, entry.uid, []) else { return }
            }
        }
    }

    /// The items with these ids (those that exist), in no particular order.
    func entries(ids: [Int64]) throws -> [Entry] {
        var entries: [Entry] = []
        for id in ids {
            if let entry = try entry(id: id) { entries.append(entry) }
        }
        return entries
    }

    /// The items of `domain` and its sub-domains (`DomainMatch`); with `now`, only those that have not expired. A
    /// store with exact domain terms finds them through their postings (and `adding`: ids of a write's items not
    /// yet in a segment); nil when more than `limit` items are posted there. An older store reads its index of
    /// items by domain (`limit` and `adding` do not apply: its rows are its items).
    func entries(ofDomain domain: String, liveAt now: Double = -.infinity, adding more: [Int64] = [],
                 limit: Int = .max) throws -> [Entry]? {
        guard domain.isStorableKey else { return [] }
        guard try DomainMatch.usesTerms(db) else {
            let handle = try db.cachedStatement(sql: """
                SELECT \(Self.entryColumns) FROM item WHERE expires > ? AND \(DomainMatch.sql)
                """)
            var entries: [Entry] = []
            try IndexStore.forEachRawRow(db, handle, StatementArguments([now as any DatabaseValueConvertible] + DomainMatch.arguments(domain))) {
                entries.append(try Self.entry($0))
            }
            return entries
        }
        guard let posted = try DomainMatch.postedItems(db, domain, adding: more, limit: limit) else { return nil }
        return try posted.compactMap { id in
            guard let entry = try entry(id: id, liveAt: now), DomainMatch.matches(entry.domain, domain) else { return nil }
            return entry
        }
    }

    /// A page of the items in identifier order (after `identifier`), only those that have not expired by `now`;
    /// with `domain`, only its items and its sub-domains' (checked row by row: `entries(ofDomain:)` finds a small
    /// domain's items faster).
    func page(after identifier: String?, domain: String?, limit: Int, liveAt now: Double) throws -> [Entry] {
        var sql = "SELECT \(Self.entryColumns) FROM item WHERE expires > ?"
        var arguments: [any DatabaseValueConvertible] = [now]
        if let domain {
            sql += " AND \(DomainMatch.sql)"
            arguments += DomainMatch.arguments(domain)
        }
        if let identifier {
            sql += " AND uid > ?"
            arguments.append(identifier)
        }
        sql += " ORDER BY uid LIMIT ?"
        arguments.append(limit)
        var entries: [Entry] = []
        try IndexStore.forEachRawRow(db, try db.makeStatement(sql: sql), StatementArguments(arguments)) {
            entries.append(try Self.entry($0))
        }
        guard try hasCatalogue, limit > 0 else { return entries }
        // The catalogued items' first `limit` in identifier order (through their identifiers' runs, or `itemKey`),
        // merged with the rows'.
        var catalogued: [Entry] = []
        func consider(_ id: Int64, uid: ArraySlice<UInt8>?) throws {
            guard let entry = try self.catalogued(id), entry.expires > now else { return }
            // (A run's entry whose item was deleted, or given a row, is not the item's.)
            if let uid, !entry.uid.utf8.elementsEqual(uid) { return }
            if let domain, !DomainMatch.matches(entry.domain, domain) { return }
            catalogued.append(entry)
        }
        if try keySource == .runs {
            let runs = KeyRuns(db)
            let after = identifier.map { Array($0.utf8) }
            var cursors = try runs.runs().map { try runs.cursor(on: $0.id, after: after) }
            // A merge of the runs' cursors in identifier order.
            while catalogued.count < limit {
                var least: (cursor: Int, index: Int)?
                for c in cursors.indices {
                    guard let index = try cursors[c].current(runs) else { continue }
                    if let l = least,
                       KeyRuns.compare(cursors[c].block.key(index), cursors[l.cursor].block.key(l.index)) >= 0 { continue }
                    least = (c, index)
                }
                guard let (c, index) = least else { break }
                try consider(cursors[c].block.ids[index], uid: cursors[c].block.key(index))
                cursors[c].position += 1
            }
        } else {
            let keys = try identifier.map {
                try Row.fetchCursor(db, sql: "SELECT id FROM itemKey WHERE uid > ? ORDER BY uid", arguments: [$0])
            } ?? Row.fetchCursor(db, sql: "SELECT id FROM itemKey ORDER BY uid")
            while catalogued.count < limit, let key = try keys.next() {
                try consider(try key.stored(0), uid: nil)
            }
        }
        guard !catalogued.isEmpty else { return entries }
        return Array((entries + catalogued).sorted { UTF8Order.precedes($0.uid, $1.uid) }.prefix(limit))
    }

    /// The items that have expired by `now` (items that never expire are not read: `item_expires` holds only
    /// the others).
    func expired(at now: Double) throws -> [Entry] {
        // Both statements cached, their text made once: every write runs them. The catalogue's was prepared at each
        // call, SQLite's parser and GRDB's preparation ~0.1 ms of a single write (perf, PyPI's writes phase).
        let statement = try db.cachedStatement(sql: Self.expiredRowsSQL)
        var entries: [Entry] = []
        try IndexStore.forEachRawRow(db, statement, [now]) { entries.append(try Self.entry($0)) }
        guard try hasCatalogue else { return entries }
        var ids: [Int64] = []
        try IndexStore.forEachRawRow(db, db.cachedStatement(sql: "SELECT id FROM itemExpiry WHERE expires <= ?"), [now]) {
            ids.append(sqlite3_column_int64($0, 0))
        }
        for id in ids {
            if let entry = try catalogued(id) { entries.append(entry) }
        }
        return entries
    }

    private static let expiredRowsSQL = """
        SELECT \(entryColumns) FROM item WHERE expires <= ? AND expires < \(IndexStore.neverExpires)
        """

    /// The `limit` items with the best ranking hint, then the most recent use, of those not expired by `now`.
    /// (Ties go to the lower id, so the same items give the same answer whichever kind they are.)
    func bestByStaticSignals(limit: Int, liveAt now: Double) throws -> [Int64] {
        guard limit > 0 else { return [] }
        let rows = try Row.fetchAll(db, sql: """
            SELECT id, hint, lastUsed FROM item WHERE expires > ? ORDER BY hint DESC, lastUsed DESC, id LIMIT ?
            """, arguments: [now, limit])
        guard try hasCatalogue else { return try rows.map { try $0.stored(0) } }
        // SQLite's order: a number before NULL (descending), then the lower id first among equals.
        typealias Ranked = (id: Int64, hint: Double?, lastUsed: Double?)
        func precedes(_ a: Ranked, _ b: Ranked) -> Bool {
            if a.hint != b.hint { return b.hint == nil || (a.hint != nil && a.hint! > b.hint!) }
            if a.lastUsed != b.lastUsed { return b.lastUsed == nil || (a.lastUsed != nil && a.lastUsed! > b.lastUsed!) }
            return a.id < b.id
        }
        // The catalogued items' best `limit`: those with a hint or a last use through `itemRanked` (in this very
        // order), then, while there are too few, the others by id (no block is decoded but the candidates'; a scan
        // of every block decoded all of PyPI's records for one empty search).
        var catalogued: [Ranked] = []
        let ranked = try Int64.fetchCursor(db, sql: "SELECT id FROM itemRanked ORDER BY hint DESC, lastUsed DESC, id")
        while catalogued.count < limit, let id = try ranked.next() {
            if let entry = try self.catalogued(id), entry.expires > now { catalogued.append((id, entry.hint, entry.lastUsed)) }
        }
        if catalogued.count < limit {
            try forEachCataloguedID(in: Int64.min...Int64.max) { id in
                guard catalogued.count < limit, let entry = try self.catalogued(id), entry.expires > now,
                      entry.hint == nil, entry.lastUsed == nil else { return }
                catalogued.append((id, nil, nil))
            }
        }
        let rowsRanked: [Ranked] = try rows.map { (try $0.stored(0), try $0.stored(1), try $0.stored(2)) }
        return (rowsRanked + catalogued).sorted(by: precedes).prefix(limit).map(\.id)
    }

    /// Every domain identifier in use with its number of items not expired by `now`, by domain.
    func domains(liveAt now: Double) throws -> [(domain: String, count: Int)] {
        let rows = try Row.fetchAll(db, sql: """
            SELECT domain, count(*) AS n FROM item WHERE domain IS NOT NULL AND expires > ?
            GROUP BY domain ORDER BY domain
            """, arguments: [now]).map { (domain: try $0.stored("domain") as String, count: try $0.stored("n") as Int) }
        guard try hasCatalogue else { return rows }
        var counts: [String: Int] = [:]
        for row in rows { counts[row.domain] = row.count }
        try forEachBlock(in: Int64.min...Int64.max) { block in
            for entry in Self.liveEntries(block) where entry.expires > now {
                if let domain = entry.domain { counts[domain, default: 0] += 1 }
            }
            return true
        }
        return counts.map { (domain: $0.key, count: $0.value) }.sorted { UTF8Order.precedes($0.domain, $1.domain) }
    }

    // MARK: - Counts and ids

    /// How many items the catalogue holds, expired ones not yet purged included.
    func count() throws -> Int {
        try (Int.fetchOne(db, sql: "SELECT count(*) FROM item") ?? 0) + cataloguedCount()
    }

    /// How many catalogued items there are (each block's items less its dead ones).
    private func cataloguedCount() throws -> Int {
        guard try hasCatalogue else { return 0 }
        return try Int.fetchOne(db, sql: "SELECT coalesce(sum(count - dead), 0) FROM recordBlock WHERE catalog = 1") ?? 0
    }

    /// How many items have not expired by `now`: every item less the expired ones (found through `item_expires`,
    /// which holds only items that expire).
    func count(liveAt now: Double) throws -> Int {
        let rows = try Int.fetchOne(db, sql: """
            SELECT (SELECT count(*) FROM item)
                 - (SELECT count(*) FROM item WHERE expires <= ? AND expires < \(IndexStore.neverExpires))
            """, arguments: [now]) ?? 0
        guard try hasCatalogue else { return rows }
        let expired = try Int.fetchOne(db, sql: "SELECT count(*) FROM itemExpiry WHERE expires <= ?", arguments: [now]) ?? 0
        return rows + (try cataloguedCount()) - expired
    }

    /// How many items of `domain` and its sub-domains have not expired by `now`, counted through the index of
    /// items by domain (a store without exact domain terms).
    func countThroughDomainIndex(_ domain: String, liveAt now: Double) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM item WHERE expires > ? AND \(DomainMatch.sql)",
                         arguments: StatementArguments([now as any DatabaseValueConvertible] + DomainMatch.arguments(domain))) ?? 0
    }

    /// How many items have an id in `range`.
    func count(in range: ClosedRange<Int64>) throws -> Int {
        var count = try Int.fetchOne(db, sql: "SELECT count(*) FROM item WHERE id BETWEEN ? AND ?",
                                     arguments: [range.lowerBound, range.upperBound]) ?? 0
        try forEachCataloguedID(in: range) { _ in count += 1 }
        return count
    }

    /// The ids in `range` of the items that exist, increasing.
    func forEachID(in range: ClosedRange<Int64>, _ body: (Int64) throws -> Void) throws {
        var catalogued: [Int64] = []
        try forEachCataloguedID(in: range) { catalogued.append($0) }
        var next = 0
        let cursor = try Int64.fetchCursor(db, sql: "SELECT id FROM item WHERE id BETWEEN ? AND ? ORDER BY id",
                                           arguments: [range.lowerBound, range.upperBound])
        while let id = try cursor.next() {
            while next < catalogued.count, catalogued[next] < id {
                try body(catalogued[next])
                next += 1
            }
            try body(id)
        }
        for id in catalogued[next...] { try body(id) }
    }

    /// The ids in `range` of the catalogued items that exist, increasing. A block whose ids are all of its range
    /// (most are: a write's new items get consecutive ids) is read from `recordBlock_catalog` alone, its gone mask
    /// naming the positions deleted; only a block with gaps (ids the write gave to items it stored otherwise) is
    /// decoded. (Decoding every block of a range made a merge during PyPI's bulk load decompress every record of
    /// the segments it merged, and the load 13 % slower.)
    func forEachCataloguedID(in range: ClosedRange<Int64>, _ body: (Int64) throws -> Void) throws {
        for (first, last, count, gone) in try blockEntries(in: range) {
            if last - first + 1 == count, count <= 64 {
                for position in 0..<Int(count) where gone & (1 << UInt64(position)) == 0 {
                    let id = first + Int64(position)
                    if range.contains(id) { try body(id) }
                }
            } else if let block = try block(id: first, cached: false, headOnly: true) {
                for (position, id) in block.decoded.ids.enumerated() where range.contains(id) && !block.isGone(position) {
                    try body(id)
                }
            }
        }
    }

    /// The ids in `range` of the items whose record is in a record block (not in their row).
    func idsWithBlockRecords(in range: ClosedRange<Int64>) throws -> [Int64] {
        try Int64.fetchAll(db, sql: "SELECT id FROM item WHERE id BETWEEN ? AND ? AND length(attrs) = 0",
                           arguments: [range.lowerBound, range.upperBound])
    }

    /// One more than the largest item id `db` sees (every item it holds has a smaller id); 1 when it holds none.
    func nextID() throws -> Int64 {
        let rows = try Int64.fetchOne(db.cachedStatement(sql: "SELECT coalesce(max(id), 0) + 1 FROM item")) ?? 1
        guard try hasCatalogue else { return rows }
        // (Blocks never overlap: the last one by id ends last. Its last item may be gone: an upper bound.)
        let blocks = try Int64.fetchOne(db.cachedStatement(sql: "SELECT last + 1 FROM recordBlock WHERE catalog = 1 ORDER BY id DESC LIMIT 1")) ?? 1
        return max(rows, blocks)
    }

    // MARK: - Static columns

    /// One item's static signals as `SegmentColumns` reads them (the buffers are valid during the call only).
    struct ColumnRow {
        var id: Int64
        var hint: Double?
        var lastUsed: Double?
        var uid: UnsafeBufferPointer<UInt8>
        var nameWords: Int
        var nameFirst: String
        var nameKey: UInt64
        var initials: UnsafeRawBufferPointer
    }

    /// The static signals of every item with an id in `range`, in no particular order (`SegmentColumns`).
    func forEachColumnRow(in range: ClosedRange<Int64>, _ body: (ColumnRow) throws -> Void) throws {
        let statement = try db.cachedStatement(sql: """
            SELECT id, hint, lastUsed, uid, nameWords, nameFirst, nameKey, initials FROM item WHERE id BETWEEN ? AND ?
            """)
        try IndexStore.forEachRawRow(db, statement, [range.lowerBound, range.upperBound]) { h in
            let uid = UnsafeBufferPointer(start: sqlite3_column_text(h, 3), count: Int(sqlite3_column_bytes(h, 3)))
            let first = sqlite3_column_text(h, 5).map {
                String(decoding: UnsafeBufferPointer(start: $0, count: Int(sqlite3_column_bytes(h, 5))), as: UTF8.self)
            }
            let initials = Int(sqlite3_column_bytes(h, 7))
            try body(ColumnRow(id: sqlite3_column_int64(h, 0),
                               hint: sqlite3_column_type(h, 1) == SQLITE_NULL ? nil : sqlite3_column_double(h, 1),
                               lastUsed: sqlite3_column_type(h, 2) == SQLITE_NULL ? nil : sqlite3_column_double(h, 2),
                               uid: uid, nameWords: Int(sqlite3_column_int64(h, 4)), nameFirst: first ?? "",
                               nameKey: UInt64(bitPattern: sqlite3_column_int64(h, 6)),
                               initials: UnsafeRawBufferPointer(start: initials > 0 ? sqlite3_column_blob(h, 7) : nil, count: initials)))
        }
        try forEachBlock(in: range, headOnly: true) { block in
            let catalogue = block.decoded.catalogue!
            for (position, id) in block.decoded.ids.enumerated() where range.contains(id) && !block.isGone(position) {
                try catalogue.withColumnRow(position, id: id, body)
            }
            return true
        }
    }

    // MARK: - Writes

    /// Adds an item under a new id (`id`, never used before). `record`: its stored bytes, or none when a record
    /// block will hold them.
    func insert(id: Int64, uid: String, domain: String?, expires: Double, hint: Double?, lastUsed: Double?,
                record: Data, name: NameSignals, initials: Data) throws {
        // Bound through SQLite's C API, as the other statements a bulk load runs for each item: GRDB's arguments
        // (an array of boxed values per statement) were a tenth of PyPI's transaction thread.
        let insert = try statement(&insertStatement, """
            INSERT INTO item(id, uid, domain, expires, hint, lastUsed, attrs, nameWords, nameFirst, nameKey, initials)
            VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).sqliteStatement
        try SegmentMerger.bindAndStep(db, insert) {
            sqlite3_bind_int64(insert, 1, id)
            RawBind.text(insert, 2, uid)
            RawBind.text(insert, 3, domain)
            sqlite3_bind_double(insert, 4, expires)
            RawBind.double(insert, 5, hint)
            RawBind.double(insert, 6, lastUsed)
            RawBind.blob(insert, 7, record)
            sqlite3_bind_int64(insert, 8, Int64(name.words))
            RawBind.text(insert, 9, name.first)
            sqlite3_bind_int64(insert, 10, Int64(bitPattern: name.key))
            RawBind.blob(insert, 11, initials)
        }
    }

    /// Removes an item (its postings stay behind, dead, until their segment is merged). A row item whose record is
    /// in a block is the caller's to count dead there (`RecordBlocks.noteDeleted`).
    func delete(_ entry: Entry) throws {
        forgetBlocks()
        switch entry.location {
        case .row:
            try statement(&deleteStatement, "DELETE FROM item WHERE id = ?").execute(arguments: [entry.id])
        case .pending:
            removePending(entry.id)
        case .block(let id, let position):
            // The whole block, as the lookup that found the entry read it: the process's cache has it.
            guard let block = try block(id: id, cached: true), !block.isGone(position) else { return }
            if block.dead + 1 >= block.count {
                try db.cachedStatement(sql: "DELETE FROM recordBlock WHERE id = ?").execute(arguments: [id])
            } else {
                try db.cachedStatement(sql: "UPDATE recordBlock SET dead = dead + 1, gone = gone | ? WHERE id = ?")
                    .execute(arguments: [Int64(bitPattern: 1 << UInt64(position)), id])
            }
            try removeKeys(entry.id, uid: entry.uid, expires: entry.expires, ranked: entry.hint != nil || entry.lastUsed != nil)
        }
    }

    /// Removes a catalogued item's expiry and ranking entries; its identifier stays in its run, counted as
    /// garbage until a merge drops it (`KeyRuns`).
    private func removeKeys(_ id: Int64, uid: String, expires: Double, ranked: Bool) throws {
        if ranked { try db.cachedStatement(sql: "DELETE FROM itemRanked WHERE id = ?").execute(arguments: [id]) }
        if try keySource == .table {
            try db.cachedStatement(sql: "DELETE FROM itemKey WHERE uid = ? AND id = ?").execute(arguments: [uid, id])
        } else {
            try KeyRuns.noteDeleted(db)
        }
        if expires < Fields.never {
            try db.cachedStatement(sql: "DELETE FROM itemExpiry WHERE expires = ? AND id = ?").execute(arguments: [expires, id])
        }
    }

    /// Removes every item (the writer deletes the record blocks).
    func deleteAll() throws {
        forgetBlocks()
        try db.execute(sql: "DELETE FROM item")
        pending.removeAll()
        pendingIDs.removeAll()
        switch try keySource {
        case .none: return
        case .table: try db.execute(sql: "DELETE FROM itemKey")
        case .runs: try db.execute(sql: "DELETE FROM keyBlock; DELETE FROM keyRun; DELETE FROM meta WHERE key = 'keyGarbage'")
        }
        keyRuns = nil
        try db.execute(sql: "DELETE FROM itemExpiry; DELETE FROM itemRanked")
    }

    /// Gives a pending item a row (its block kept too few records), with its record stored alone.
    func insertPendingAsRow(_ id: Int64, record: Data) throws {
        guard let fields = pending[id] else { return }
        try insert(id: id, uid: fields.uid, domain: fields.domain, expires: fields.expires, hint: fields.hint,
                   lastUsed: fields.lastUsed, record: record, name: fields.name, initials: Data(fields.initials))
        removePending(id)
    }

    /// Stores a catalogue block (`first…last`, its items `ids` with their `fields`, compressed as `frame`), the
    /// positions in `dead` deleted already (by the write that made it): the live items get their expiry entries,
    /// are no longer pending, and their identifiers with their ids are added to `keys` (written as a run by
    /// `writeKeys`, once per write).
    func insertBlock(first: Int64, last: Int64, ids: [Int64], fields: [Fields], frame: [UInt8], dead: [Int],
                     keys: inout [(uid: String, id: Int64)]) throws {
        forgetBlocks()
        guard ids.count == fields.count, ids.count <= 64 else { throw EngineError(.corruptIndex, "a catalogue block of \(ids.count) items") }
        var gone: UInt64 = 0
        for position in dead { gone |= 1 << UInt64(position) }
        try db.cachedStatement(sql: """
            INSERT INTO recordBlock(id, last, count, dead, data, catalog, gone, rawFields) VALUES(?, ?, ?, ?, ?, 1, ?, ?)
            """).execute(arguments: [first, last, ids.count, dead.count, Data(frame), Int64(bitPattern: gone),
                                    Data(Fields.encodeRaw(fields))])
        for (position, id) in ids.enumerated() where gone & (1 << UInt64(position)) == 0 {
            let item = fields[position]
            keys.append((item.uid, id))
            if item.expires < Fields.never {
                try db.cachedStatement(sql: "INSERT INTO itemExpiry(expires, id) VALUES(?, ?)").execute(arguments: [item.expires, id])
            }
            if item.hint != nil || item.lastUsed != nil {
                try db.cachedStatement(sql: "INSERT INTO itemRanked(id, hint, lastUsed) VALUES(?, ?, ?)")
                    .execute(arguments: [id, item.hint, item.lastUsed])
            }
            removePending(id)
        }
    }

    /// Writes the identifiers of the catalogued items a write stored (`insertBlock`'s `keys`) as one run, and merges
    /// runs as `KeyRuns` says.
    func writeKeys(_ keys: [(uid: String, id: Int64)]) throws {
        guard !keys.isEmpty else { return }
        guard try keySource == .runs else {
            throw EngineError(.corruptIndex, "catalogued items written to a store without identifier runs")
        }
        keyRuns = nil
        try KeyRuns(db).write(KeyList.sorted(keys)) {
            var live: [Int64] = []
            try forEachCataloguedID(in: Int64.min...Int64.max) { live.append($0) }
            return live
        }
    }

    /// Gives the live items of catalogue block `block` rows of their own (each record stored alone) and removes
    /// their catalogue entries; the caller deletes the block.
    func moveToRows(block: Int64, decoded: RecordBlocks.Decoded, gone: UInt64, dictionary: RecordDictionary?) throws {
        forgetBlocks()
        guard let catalogue = decoded.catalogue, catalogue.count == decoded.ids.count else { throw RecordBlocks.damaged(block) }
        for (position, id) in decoded.ids.enumerated() where position >= 64 || gone & (1 << UInt64(position)) == 0 {
            let fields = catalogue[position]
            let record = Data(ValueCodec.stored(plain: Array(decoded.record(at: position)), dictionary: dictionary))
            try removeKeys(id, uid: fields.uid, expires: fields.expires, ranked: fields.hint != nil || fields.lastUsed != nil)
            try insert(id: id, uid: fields.uid, domain: fields.domain, expires: fields.expires, hint: fields.hint,
                       lastUsed: fields.lastUsed, record: record, name: fields.name, initials: Data(fields.initials))
        }
    }

    /// Stores an item's record in its row (`bytes`), in place of what it had.
    func setRecord(of id: Int64, to bytes: Data) throws {
        try statement(&recordUpdate, "UPDATE item SET attrs = ? WHERE id = ?").execute(arguments: [bytes, id])
    }

    /// Stores an item's record in its row if it is in a record block now (its row holds none).
    func setRecordIfInBlock(of id: Int64, to bytes: Data) throws {
        try db.cachedStatement(sql: "UPDATE item SET attrs = ? WHERE id = ? AND length(attrs) = 0").execute(arguments: [bytes, id])
    }

    /// The records kept in their rows with an id above `after`, in id order, at most `limit` (the maintenance
    /// compresses them again with a dictionary, `replaceRecord`).
    func recordsInRows(after: Int64, limit: Int) throws -> [(id: Int64, record: Data)] {
        try Row.fetchAll(db, sql: "SELECT id, attrs FROM item WHERE id > ? AND length(attrs) > 0 ORDER BY id LIMIT ?",
                         arguments: [after, limit]).map { (try $0.stored(0), try $0.stored(1)) }
    }

    /// Replaces an item's record in its row with `new` if it still holds `old` (a write may have replaced the
    /// item meanwhile: then its id is gone, and nothing changes).
    func replaceRecord(of id: Int64, _ old: Data, with new: Data) throws {
        try db.cachedStatement(sql: "UPDATE item SET attrs = ? WHERE id = ? AND attrs = ?").execute(arguments: [new, id, old])
    }
}
