import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// Stored records compressed a block at a time (format 7): the records of a large write are kept together in
/// blocks of about `targetBytes` of plain records, each block one zstd frame (with the store's dictionary,
/// `RecordDictionary`), and their item rows keep an empty `attrs`.
///
/// One record compressed alone keeps what is particular to it, and a frame's own header (Debian: 213 bytes a
/// record); a block also shares what its records have in common with each other: 148 bytes a record on Debian, 51
/// instead of 78 on PyPI, for 4–6 µs to decompress a block (measured with Debian's libzstd, level 3).
///
/// - `recordBlock(id, last, count, dead, data)`: `id` is the first item id of the block and `last` the last one (the
///   ids of one write, so blocks never overlap); `count` records, `dead` of them deleted since. The block of an
///   item is the one with the largest `id` not above it.
/// - A block's plain bytes: a varint count, the items' ids as varint deltas (the first from the block's id), then
///   since format 19 a 0 byte and the records laid out by attribute (`RecordColumns`: each attribute's values side
///   by side, names once a block; PyPI's frames 10 % smaller), or as formats 7 to 18 wrote them (and 19 does
///   for records that do not parse), the records' lengths as varints and the records (`ValueCodec.encode`'s
///   bytes) one after the other.
/// - A *catalogue block* (format 13, `catalog = 1`) holds catalogued items, which have no item row: its plain bytes
///   start with a 0 byte (a block's count is never 0) and the length of its catalogue section as a varint, then the
///   section (`ItemCatalog.Fields` of each item, in the block's order), then the bytes above; what does not
///   compress (each name's 64-bit key, a hash) is in `rawFields`, outside the frame (formats 13 to 16 kept the
///   items' initials there too; in the section since format 17, where zstd takes PyPI's 11.6 bytes an item to
///   about 5). `gone` has a bit per position of its items deleted since (`dead` counts them too).
/// - A catalogue block's *head* (everything before its records: the section, the ids, the records' lengths; about a
///   tenth of PyPI's plain bytes) closes a zstd block of its own inside the frame (`compressed`, a flush), so that
///   what reads fields alone (ranking signals and initials before a segment's columns are read, the columns
///   themselves, the ids of a block with gaps) decompresses the head and stops (`decodeHead`). The frame is still one standard frame: a reader
///   of any version reads it whole, and blocks written before heads were kept apart read whole through
///   `decodeHead` too. No format change: PyPI's index grew by 0.07 %.
///
/// A block is written once and never changed but for its `dead` count (and its frame, compressed again with the
/// same records when the store gets its dictionary later, `compressRecordsWithDictionary`): deleting the last live
/// record deletes it,
/// and the maintenance gives the live records of a block more than half dead back to their rows
/// (`compactSparse`). Single writes keep their records in their rows, as before; only a write of at least
/// `minimumRecords` new items makes blocks. Every byte of a block goes through `ValueCodec.compressed` and
/// `ValueCodec.plain` (the one place a cipher for protection classes would go).
enum RecordBlocks {
    /// A block is closed once its plain records reach this many bytes (until the store's blocks have shown how
    /// they compress, `plainTarget`), or `maximumRecords`.
    static let targetBytes = 4_096
    static let maximumRecords = 64
    /// Fewer records than this stay in their rows (a block's frame and row would cost more than they save).
    static let minimumRecords = 4

    static let tableSQL = """
        CREATE TABLE IF NOT EXISTS recordBlock(
            id INTEGER PRIMARY KEY, last INTEGER NOT NULL, count INTEGER NOT NULL, dead INTEGER NOT NULL DEFAULT 0,
            data BLOB NOT NULL, catalog INTEGER NOT NULL DEFAULT 0, gone INTEGER NOT NULL DEFAULT 0, rawFields BLOB);
        \(sparseIndexSQL)
        """

    /// What format 13 adds to a format 7–12 table: whether a block holds catalogued items, and which of them are
    /// gone.
    static let catalogueColumnsSQL = """
        ALTER TABLE recordBlock ADD COLUMN catalog INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE recordBlock ADD COLUMN gone INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE recordBlock ADD COLUMN rawFields BLOB
        """

    /// The catalogue blocks, with what counting and listing catalogued items reads of them (format 13): a scan of
    /// the table itself would read every block's records (each row fills a page).
    static let catalogueIndexSQL = """
        CREATE INDEX IF NOT EXISTS recordBlock_catalog ON recordBlock(id, last, count, dead, gone) WHERE catalog = 1
        """

    /// Finds the blocks more than half dead (`sparseCondition`), which the maintenance looks for after every commit
    /// that deleted or replaced items. SQLite uses an index on the expression, but not a partial index whose
    /// condition compares two columns: format 7's `recordBlock_sparse ON recordBlock(id) WHERE dead * 2 > count`
    /// was never used, and the check read the whole table (10 MB at 63,000 items) after each single delete, on
    /// the core the next writes needed. Adding the index or dropping the old one changes no format: any version's
    /// writes keep both up to date, and its queries are right without them.
    static let sparseIndexSQL = """
        CREATE INDEX IF NOT EXISTS recordBlock_dead ON recordBlock(dead * 2 - count) WHERE dead > 0;
        DROP INDEX IF EXISTS recordBlock_sparse
        """

    /// The condition of a block more than half dead, in the words of `recordBlock_dead`.
    static let sparseCondition = "dead > 0 AND dead * 2 - count > 0"

    /// A block's plain bytes; with `catalogue` (the fields of each record's item, in the same order), a catalogue
    /// block's.
    /// The records are laid out by attribute (`RecordColumns`, format 19) unless `byAttribute` is false or a record
    /// is not one `ValueCodec.encode` writes; then one after the other, each with its length (formats 7 to 18).
    static func encode(_ records: [(id: Int64, plain: [UInt8])], catalogue: [ItemCatalog.Fields]? = nil,
                       byAttribute: Bool = true) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(records.reduce(16) { $0 + $1.plain.count + 4 })
        if let catalogue {
            let section = ItemCatalog.Fields.encode(catalogue)
            out.append(0)
            ValueCodec.writeVarint(UInt64(section.count), to: &out)
            out += section
        }
        ValueCodec.writeVarint(UInt64(records.count), to: &out)
        var previous = records.first?.id ?? 0
        for record in records {
            ValueCodec.writeVarint(UInt64(record.id - previous), to: &out)
            previous = record.id
        }
        if byAttribute, RecordColumns.encode(records.lazy.map(\.plain), to: &out) { return out }
        for record in records { ValueCodec.writeVarint(UInt64(record.plain.count), to: &out) }
        for record in records { out += record.plain }
        return out
    }

    /// A block's plain bytes compressed: a catalogue block's head (`headLength`: its fields, ids and the records'
    /// lengths, about a tenth of PyPI's blocks) closes a zstd block of its own, so ranking signals, columns and ids
    /// are read without decompressing the records (`decodedHead`).
    static func compressed(_ plain: [UInt8], dictionary: RecordDictionary?) -> [UInt8] {
        guard plain.first == 0, let head = plain.withUnsafeBytes({ headLength($0) }) else {
            return ValueCodec.compressed(plain, dictionary: dictionary)
        }
        return ValueCodec.compressed(plain, dictionary: dictionary, head: head)
    }

    /// Where the records start in a catalogue block's plain bytes, `prefix` of them: nil when `prefix` ends before
    /// (or is not a catalogue block's). Records laid out by attribute start after the 0 byte that says so (the head
    /// ends with it); records one after the other, after their lengths. Total: any bytes give a length within them
    /// or nil.
    static func headLength(_ prefix: UnsafeRawBufferPointer) -> Int? {
        guard prefix.first == 0 else { return nil }
        var offset = 1
        func varint() -> UInt64? { try? PostingCodec.Reader.varint(prefix, &offset) }
        guard let section = varint(), section <= UInt64(prefix.count - offset) else { return nil }
        offset += Int(section)
        // Each item's id delta, then the 0 byte of records laid out by attribute, or each record's length.
        guard let count = varint(), count <= UInt64(prefix.count) else { return nil }
        for _ in 0..<Int(count) { guard varint() != nil else { return nil } }
        guard offset < prefix.count else { return nil }
        if prefix[offset] == 0 { return offset + 1 }
        for _ in 0..<Int(count) { guard varint() != nil else { return nil } }
        return offset
    }

    /// A block read back: its items and their records (where each one's record is in `bytes`, or for records laid
    /// out by attribute, `layout`), and a catalogue block's fields.
    struct Decoded: Sendable {
        var ids: [Int64]
        var ranges: [Range<Int>]
        var bytes: [UInt8]
        /// Records laid out by attribute (`RecordColumns`, format 19), each rebuilt when it is asked for.
        var layout: RecordColumns.Layout? = nil
        /// A catalogue block's fields of its items, in the order of `ids`; nil for another block.
        var catalogue: ItemCatalog.FieldsTable? = nil
        /// False for a catalogue block's head alone (`decodeHead`): no records, `ranges` and `bytes` empty.
        var hasRecords = true

        /// The position of `item` in the block, if it has one.
        func position(of item: Int64) -> Int? {
            // Ids are increasing: a binary search.
            var low = 0, high = ids.count
            while low < high {
                let middle = (low + high) / 2
                if ids[middle] < item { low = middle + 1 } else { high = middle }
            }
            guard low < ids.count, ids[low] == item else { return nil }
            return low
        }

        func record(of item: Int64) -> ArraySlice<UInt8>? {
            guard hasRecords else { return nil }
            return position(of: item).map(record(at:))
        }

        /// The record at `position` (of a block read with its records).
        func record(at position: Int) -> ArraySlice<UInt8> {
            if let layout { return ArraySlice(layout.record(at: position)) }
            return bytes[ranges[position]]
        }
    }

    /// Decodes a block's plain bytes, with a catalogue block's `rawFields` its fields (without them, its records
    /// only); damage throws `.corruptIndex`, never traps.
    static func decode(_ bytes: [UInt8], id: Int64, rawFields: [UInt8]? = nil) throws -> Decoded {
        try decode(bytes, id: id, rawFields: rawFields, records: true)
    }

    /// `decode`, or with `records` false only a catalogue block's head (`headLength`'s bytes at least: the fields,
    /// the ids and the records' lengths, the records themselves not checked or kept).
    private static func decode(_ bytes: [UInt8], id: Int64, rawFields: [UInt8]?, records: Bool) throws -> Decoded {
        var reader = ValueCodec.Reader(bytes: bytes)
        var section: ArraySlice<UInt8>? = nil
        if bytes.first == 0 {
            reader.offset = 1
            section = try reader.rawBytes(try reader.count(minimumBytesEach: 1))
        }
        // (At least an id's delta each; a head read alone, of records laid out by attribute, has nothing else.)
        let count = try reader.count(minimumBytesEach: 1)
        var ids: [Int64] = []
        ids.reserveCapacity(count)
        var item = id
        for k in 0..<count {
            let delta = try reader.varint()
            guard delta < UInt64(Int64.max / 2), k == 0 || delta > 0 else { throw damaged(id) }
            item += Int64(delta)
            ids.append(item)
        }
        var decoded: Decoded
        if count > 0, reader.offset < bytes.count, bytes[reader.offset] == 0 {
            // Records laid out by attribute (`RecordColumns`): a 0 byte where a first record's length would be.
            reader.offset += 1
            decoded = Decoded(ids: ids, ranges: [], bytes: [], hasRecords: records)
            if records { decoded.layout = try RecordColumns.decode(&reader, count: count, block: id) }
        } else {
            decoded = try recordsOneAfterAnother(&reader, ids: ids, records: records, block: id)
        }
        if let section, let rawFields {
            decoded.catalogue = try ItemCatalog.FieldsTable(section: Array(section), raw: rawFields, count: count, block: id)
        }
        return decoded
    }

    /// A block of `ids` whose records are one after the other with their lengths (formats 7 to 18), from `reader`'s
    /// offset; with `records` false, a head read alone (the lengths checked, the records not kept).
    private static func recordsOneAfterAnother(_ reader: inout ValueCodec.Reader, ids: [Int64], records: Bool,
                                               block id: Int64) throws -> Decoded {
        let bytes = reader.bytes
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(ids.count)
        var lengths: [Int] = []
        var total = 0
        for _ in 0..<ids.count {
            let length = try reader.varint()
            // (A head read alone has the lengths of records it does not hold.)
            guard length <= UInt64(records ? bytes.count : ValueCodec.maximumRecordSize) else { throw damaged(id) }
            lengths.append(Int(length))
            total += Int(length)
        }
        if records {
            guard total == bytes.count - reader.offset else { throw damaged(id) }
            var start = reader.offset
            for length in lengths {
                ranges.append(start..<(start + length))
                start += length
            }
            return Decoded(ids: ids, ranges: ranges, bytes: bytes)
        }
        guard total >= bytes.count - reader.offset else { throw damaged(id) }
        return Decoded(ids: ids, ranges: [], bytes: [], hasRecords: false)
    }

    /// Decodes a block's stored frame (the store's dictionaries read from `db`).
    static func decode(frame: [UInt8], id: Int64, rawFields: [UInt8]? = nil, in db: Database) throws -> Decoded {
        try decode(try ValueCodec.plain(frame, dictionary: { try RecordDictionary.named($0, in: db) }), id: id, rawFields: rawFields)
    }

    /// A catalogue block's head from its stored frame: its items' ids and fields, without its records, whose zstd
    /// blocks are not decompressed when the frame was written with its head apart (`compressed`).
    static func decodeHead(frame: UnsafeRawBufferPointer, id: Int64, rawFields: [UInt8], in db: Database) throws -> Decoded {
        headsRead.add(1, ordering: .relaxed)
        let plain = try ValueCodec.plainHead(frame, dictionary: { try RecordDictionary.named($0, in: db) },
                                             enough: { headLength($0) != nil })
        guard plain.first == 0 else { throw damaged(id) }
        return try decode(plain, id: id, rawFields: rawFields, records: false)
    }

    /// How many heads this process decoded (tests check that a path read heads alone).
    static let headsRead = Atomic<Int>(0)

    static func damaged(_ id: Int64) -> EngineError {
        EngineError(.corruptIndex, "the block of records \(id) is damaged")
    }

    // MARK: Reading

    /// Blocks decompressed lately, by store file, block id and the hash of their stored bytes (a store replaced at
    /// the same path by recovery has other bytes under the same ids). Small: a search reads a few dozen records.
    private static let cache = Mutex<(entries: [CacheKey: Decoded], order: [CacheKey])>(([:], []))
    private static let cacheCapacity = 256

    private struct CacheKey: Hashable {
        var path: String
        var id: Int64
        var length: Int
        var hash: UInt64
        /// Of a catalogue block's `rawFields` (0: read without them).
        var raw: UInt64 = 0
        /// The head alone (`decodeHead`), never given for a read of records.
        var headOnly = false
    }

    /// A hash of a block's stored bytes, eight at a time (multiply and rotate, as FxHash does): the cache's key tells
    /// blocks apart that recovery or recompression put under one id, not bytes chosen to collide. `Hasher`'s
    /// SipHash over a 4 KB block took longer than the lookup that found it (5 % of an attribute query).
    static func fingerprint(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let k: UInt64 = 0x9E37_79B9_7F4A_7C15
        var h = UInt64(bytes.count) &* k
        var i = 0
        while i + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            h = ((h ^ word) &* k)
            h = (h << 31) | (h >> 33)
            i += 8
        }
        var tail: UInt64 = 0
        while i < bytes.count {
            tail = tail << 8 | UInt64(bytes[i])
            i += 1
        }
        h = (h ^ tail) &* k
        return h ^ (h >> 29)
    }

    /// The plain record of `item`, which its row (or its catalogue block) says is in a block.
    static func record(of item: Int64, in db: Database) throws -> [UInt8] {
        let statement = try db.cachedStatement(sql: "SELECT id, data FROM recordBlock WHERE id <= ? ORDER BY id DESC LIMIT 1")
        var found: [UInt8]? = nil
        try IndexStore.forEachRawRow(db, statement, int64: item) { h in
            found = try decoded(id: sqlite3_column_int64(h, 0), data: try PostingStore.blob(h, column: 1), in: db)
                .record(of: item).map(Array.init)
        }
        guard let found else {
            throw EngineError(.corruptIndex, "the record of item \(item) is in no block of records")
        }
        return found
    }

    /// The block `id` decoded from its stored bytes `data` (and a catalogue block's `rawFields`, for its items'
    /// fields), from the cache when it was decoded lately; with `cached` false, decoded and not kept (a scan).
    /// With `headOnly`, a catalogue block's head (`decodeHead`: ids and fields, no records; `rawFields` needed).
    static func decoded(id: Int64, data: UnsafeRawBufferPointer, rawFields: UnsafeRawBufferPointer? = nil,
                        headOnly: Bool = false, cached: Bool = true, in db: Database) throws -> Decoded {
        func decoded() throws -> Decoded {
            if headOnly, let rawFields { return try decodeHead(frame: data, id: id, rawFields: [UInt8](rawFields), in: db) }
            return try decode(frame: [UInt8](data), id: id, rawFields: rawFields.map { [UInt8]($0) }, in: db)
        }
        guard cached else { return try decoded() }
        let raw = rawFields.map { fingerprint($0) | 1 } ?? 0
        let key = CacheKey(path: storePath(db), id: id, length: data.count, hash: fingerprint(data), raw: raw,
                           headOnly: headOnly && rawFields != nil)
        if let cached = cache.withLock({ $0.entries[key] }) { return cached }
        let decoded = try decoded()
        cache.withLock { cache in
            if cache.entries.count >= cacheCapacity, !cache.order.isEmpty {
                let evicted = cache.order.prefix(cacheCapacity / 4)
                for key in evicted { cache.entries[key] = nil }
                cache.order.removeFirst(evicted.count)
            }
            if cache.entries.updateValue(decoded, forKey: key) == nil { cache.order.append(key) }
        }
        return decoded
    }

    private static func storePath(_ db: Database) -> String {
        sqlite3_db_filename(db.sqliteConnection, "main").map { String(cString: $0) } ?? ""
    }

    // MARK: Writing

    /// A block to write: its records, and for a catalogue block their items' fields.
    struct Plain: Sendable {
        var records: [(id: Int64, plain: [UInt8])]
        var catalogue: [ItemCatalog.Fields]? = nil
    }

    /// A block compressed: its item ids in order, its frame, and for a catalogue block its items' fields.
    struct Frame: Sendable {
        var ids: [Int64]
        var frame: [UInt8]
        var catalogue: [ItemCatalog.Fields]? = nil
    }

    // MARK: Rows that fill a page

    /// Blocks' rows are sized so that two fill a page of the store's table. Rows are laid in pages in id order,
    /// each page taking the next rows while they fit: two rows of up to `rowLimit` bytes share a 4 KB page (its
    /// header, two cell pointers and cell headers beside them); a row of more than SQLite's 4,061 bytes of local
    /// payload spills into overflow pages. Blocks of 4 KB of plain records made rows of about 1.2 KB on PyPI, three
    /// to a page and 15 % of `recordBlock`'s pages empty (10 MB); a larger block also compresses better (its records
    /// share more).
    ///
    /// So the records of a run of closed blocks (consecutive, `pack`) are cut again into rows of about `rowTarget`
    /// bytes: each row takes the records that the bytes of the rows before it suggest, is compressed, and is
    /// compressed again with fewer records if it came out above `rowLimit`, or with more if it came out below
    /// `rowLow`. The first guess of a write comes from the store's writes before it (`RowSizing`). PyPI's record
    /// blocks: 81.5 → 71 MB with the initials in the section (format 17; BENCHMARKS.md, 2026-12-06). Aimed at 1,880
    /// bytes with rows from 1,700 (until 2026-12-07), both corpora's pages left 7.4 MB empty (9.7 %); aimed at
    /// 1,950 from 1,880, 5.3 MB, for a bulk load within the noise of alternating runs (a row compressed twice
    /// costs more than a few bytes of a page left empty: aimed at 1,930 from 1,700, PyPI's load took 3 % more CPU
    /// than with 4 KB blocks, at 1,880 1 %). A third try, halfway, for rows still below the band, gave back only
    /// 0.15 MB more.
    ///
    /// Why two rows a page and not one: reading a record decompresses its whole block, and the records of a
    /// search's hits are read one block each. Rows of a page each (3,850 bytes, ~16 KB of plain records) made
    /// PyPI's records 4 MB smaller still, but a search's p50 0.85 → 1.03 ms; two a page (~8 KB), 0.95 ms. Halving
    /// the rows that spilled, instead of compressing them again, left rows of 2.1 KB that could not share a page
    /// (18 % of the pages empty).
    static let rowTarget = 1_950
    static let rowLow = 1_880
    static let rowLimit = 2_020
    /// What a row holds besides its frame and raw fields: its record header and integer columns.
    static let rowOverhead = 24

    /// How the blocks of one store came out as rows, for the first guess of its next writes' rows
    /// (`IndexStore.recordRows`). A write takes its figure once, at its start (`Writer`), and notes what its rows
    /// came to at its end, so its blocks do not depend on when the compressions running beside it finish.
    final class RowSizing: Sendable {
        /// Row bytes per 65,536 plain record bytes, by zstd's dictionary id (0 for none): a moving average over
        /// writes (a wrong guess costs a row compressed twice).
        private let ratios = Mutex<[UInt32: Int]>([:])

        init() {}

        /// The plain record bytes expected to make a row of `rowTarget` bytes with `dictionary`: `targetBytes`
        /// until a write with it has stored blocks.
        func plainTarget(dictionary: RecordDictionary?) -> Int {
            guard let ratio = ratios.withLock({ $0[dictionary?.id ?? 0] }), ratio > 0 else { return targetBytes }
            return max(targetBytes / 4, min(rowTarget * 65_536 / ratio, 64 * rowTarget))
        }

        /// Takes in how `plain` record bytes came out as rows of `rows` bytes.
        func note(plain: Int, rows: Int, dictionary: RecordDictionary?) {
            guard plain > 0, rows > 0 else { return }
            let observed = max(1, rows * 65_536 / plain)
            ratios.withLock { ratios in
                let key = dictionary?.id ?? 0
                ratios[key] = ratios[key].map { ($0 * 3 + observed) / 4 } ?? observed
            }
        }
    }

    /// The bytes of a block's row of `count` records: its frame, a catalogue block's raw fields (8 bytes an item,
    /// `ItemCatalog.Fields.encodeRaw`) and the rest.
    static func rowBytes(frame: Int, count: Int, catalogue: Bool) -> Int {
        frame + rowOverhead + (catalogue ? 8 * count : 0)
    }

    /// Rows packed from a run of blocks, with the plain record bytes they hold and their bytes.
    struct Packed: Sendable {
        var frames: [Frame] = []
        var plain = 0
        var rows = 0

        mutating func append(_ other: Packed) {
            frames += other.frames
            plain += other.plain
            rows += other.rows
        }
    }

    /// The records of `blocks` (consecutive blocks of one write, in id order) compressed as rows that fill a page
    /// (`rowTarget`), the first guessed from `plainTarget` plain bytes a row. Catalogue blocks and others are
    /// packed apart (a write makes only one kind).
    static func pack(_ blocks: [Plain], dictionary: RecordDictionary?, plainTarget: Int) -> Packed {
        var packed = Packed()
        var k = 0
        while k < blocks.count {
            let catalogued = blocks[k].catalogue != nil
            var end = k
            while end < blocks.count, (blocks[end].catalogue != nil) == catalogued { end += 1 }
            let run = blocks[k..<end]
            packed.append(pack(records: run.flatMap(\.records), catalogue: catalogued ? run.flatMap { $0.catalogue! } : nil,
                               dictionary: dictionary, plainTarget: plainTarget))
            k = end
        }
        return packed
    }

    private static func pack(records: [(id: Int64, plain: [UInt8])], catalogue: [ItemCatalog.Fields]?,
                             dictionary: RecordDictionary?, plainTarget: Int) -> Packed {
        var packed = Packed()
        // Row bytes per plain byte: the guess, then what the run's rows came to.
        var ratio = Double(rowTarget) / Double(max(plainTarget, 1))
        var start = 0
        func make(_ n: Int) -> (frame: [UInt8], row: Int, plain: Int) {
            let slice = Array(records[start..<(start + n)])
            let fields = catalogue.map { Array($0[start..<(start + n)]) }
            let frame = compressed(encode(slice, catalogue: fields), dictionary: dictionary)
            return (frame, rowBytes(frame: frame.count, count: n, catalogue: fields != nil), slice.reduce(0) { $0 + $1.plain.count })
        }
        while start < records.count {
            let most = min(maximumRecords, records.count - start)
            // As many records as the ratio says fill `row` bytes (at least one).
            func guess(_ row: Int) -> Int {
                var bytes = 0, n = 0
                while n < most {
                    bytes += records[start + n].plain.count
                    n += 1
                    if Double(bytes) * ratio >= Double(row) { break }
                }
                return n
            }
            var n = guess(rowTarget)
            // A tail too short to be worth a row of its own is tried in this one.
            if records.count - start - n < minimumRecords { n = most }
            var made = make(n)
            while made.row > rowLimit, n > 1 {
                n = max(1, min(n - 1, Int(Double(n) * Double(rowTarget) / Double(made.row))))
                made = make(n)
            }
            if made.row < rowLow, n < most {
                let more = min(most, max(n + 1, Int(Double(n) * Double(rowTarget) / Double(made.row))))
                let larger = make(more)
                if larger.row <= rowLimit { (n, made) = (more, larger) }
            }
            // (Smoothed: a row's own ratio varies by a few percent, and most of each guess's error is that.)
            if made.plain > 0 { ratio = (ratio + Double(made.row) / Double(made.plain)) / 2 }
            packed.frames.append(Frame(ids: records[start..<(start + n)].map(\.id), frame: made.frame,
                                       catalogue: catalogue.map { Array($0[start..<(start + n)]) }))
            packed.plain += made.plain
            packed.rows += made.row
            start += n
        }
        return packed
    }

    /// Compresses blocks (on every core when there are several, each packing a contiguous share of them) and
    /// inserts them; returns what `pack` made of them.
    @discardableResult
    static func write(_ blocks: [Plain], dictionary: RecordDictionary?, plainTarget: Int = targetBytes,
                      db: Database, keys: inout [(uid: String, id: Int64)]) throws -> Packed {
        guard !blocks.isEmpty else { return Packed() }
        let parts = shares(of: blocks.count)
        var packed = Packed()
        if parts.count == 1 {
            packed = pack(blocks, dictionary: dictionary, plainTarget: plainTarget)
        } else {
            let made = Mutex<[Int: Packed]>([:])
            DispatchQueue.concurrentPerform(iterations: parts.count) { worker in
                let part = pack(Array(blocks[parts[worker]]), dictionary: dictionary, plainTarget: plainTarget)
                made.withLock { $0[worker] = part }
            }
            let all = made.withLock { $0 }
            for worker in parts.indices { all[worker].map { packed.append($0) } }
        }
        try insert(packed.frames.map { ($0, []) }, db: db, keys: &keys)
        return packed
    }

    /// The fewest blocks a thread compresses when a write's blocks are compressed on several.
    static let partBlocks = 4

    /// How `count` blocks are shared out to be compressed on several threads: contiguous ranges in order, one per
    /// core (8 at most), of equal size but the last, `partBlocks` blocks or more each on average; one range when
    /// there are fewer (`0..<0` for none).
    static func shares(of count: Int) -> [Range<Int>] {
        let parts = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8, count / partBlocks))
        let share = max(1, (count + parts - 1) / parts)
        return stride(from: 0, to: max(count, 1), by: share).map { $0..<min(count, $0 + share) }
    }

    /// Inserts compressed blocks, each with the positions of its records that are dead (deleted by the write
    /// meanwhile). A catalogue block's live items get their expiry's entries, and their identifiers with their ids
    /// are added to `keys`, for `ItemCatalog.writeKeys`.
    static func insert(_ blocks: [(block: Frame, dead: [Int])], db: Database, keys: inout [(uid: String, id: Int64)]) throws {
        let insert = try db.cachedStatement(sql: "INSERT INTO recordBlock(id, last, count, dead, data) VALUES(?, ?, ?, ?, ?)")
        let catalogue = ItemCatalog(db)
        for (block, dead) in blocks {
            guard let first = block.ids.first, let last = block.ids.last else { continue }
            if let fields = block.catalogue {
                try catalogue.insertBlock(first: first, last: last, ids: block.ids, fields: fields, frame: block.frame, dead: dead,
                                            keys: &keys)
            } else {
                try insert.execute(arguments: [first, last, block.ids.count, dead.count, Data(block.frame)])
            }
        }
    }

    /// Blocks compressed (`pack`), and records left alone stored, by `compress`.
    typealias Compressed = (blocks: Packed, alone: [(id: Int64, stored: Data)])

    /// Compresses closed blocks and stores the records left alone (run on another core while the write goes on:
    /// `Writer.writeRecordBlocks`).
    static func compress(blocks: [Plain], alone: [(id: Int64, plain: [UInt8])], dictionary: RecordDictionary?,
                         plainTarget: Int = targetBytes) -> Compressed {
        let stored = alone.map { (id: $0.id, stored: Data(ValueCodec.stored(plain: $0.plain, dictionary: dictionary))) }
        return (pack(blocks, dictionary: dictionary, plainTarget: plainTarget), stored)
    }

    /// Counts the deletion of `item`, whose record is in a block; deletes the block with its last live record.
    static func noteDeleted(item: Int64, db: Database) throws {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT id, count, dead FROM recordBlock WHERE id <= ? ORDER BY id DESC LIMIT 1
            """), arguments: [item]) else { return }
        let id: Int64 = try row.stored(0)
        let count: Int = try row.stored(1)
        let dead: Int = try row.stored(2)
        if dead + 1 >= count {
            try db.cachedStatement(sql: "DELETE FROM recordBlock WHERE id = ?").execute(arguments: [id])
        } else {
            try db.cachedStatement(sql: "UPDATE recordBlock SET dead = dead + 1 WHERE id = ?").execute(arguments: [id])
        }
    }

    /// Gives the live records of blocks more than half dead back to their rows (compressed alone, as a single
    /// write stores them) and deletes the blocks: a block's dead records are bytes no one reads. Returns how many
    /// blocks it removed; at most `limit` per call (a transaction of the maintenance).
    static func compactSparse(_ db: Database, dictionary: RecordDictionary?, limit: Int = 64) throws -> Int {
        // In the index's order, not by id: ordered by id, SQLite would rather scan the table in id order.
        let blocks = try Row.fetchAll(db, sql: "SELECT id, last, data, catalog, gone, rawFields FROM recordBlock WHERE \(sparseCondition) LIMIT ?",
                                      arguments: [limit])
        let catalog = ItemCatalog(db)
        for row in blocks {
            let id: Int64 = try row.stored(0)
            let last: Int64 = try row.stored(1)
            let data: Data = try row.stored(2)
            let raw = (try row.stored(5) as Data?).map { [UInt8]($0) }
            let decoded = try decode(frame: [UInt8](data), id: id, rawFields: raw, in: db)
            if try row.stored(3) as Int64 != 0 {
                // Catalogued items have no row: the live ones get one (their fields and their record), and lose
                // their catalogue entries.
                try catalog.moveToRows(block: id, decoded: decoded, gone: UInt64(bitPattern: try row.stored(4)),
                                       dictionary: dictionary)
                try db.execute(sql: "DELETE FROM recordBlock WHERE id = ?", arguments: [id])
                continue
            }
            for item in try catalog.idsWithBlockRecords(in: id...max(id, last)) {
                guard let record = decoded.record(of: item) else { throw damaged(id) }
                try catalog.setRecordIfInBlock(of: item, to: Data(ValueCodec.stored(plain: Array(record), dictionary: dictionary)))
            }
            try db.execute(sql: "DELETE FROM recordBlock WHERE id = ?", arguments: [id])
        }
        return blocks.count
    }
}
