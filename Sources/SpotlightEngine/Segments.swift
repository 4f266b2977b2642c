import Foundation
import GRDB
import GRDBSQLite
import Synchronization

// The text index of format 2: immutable segments of block-compressed posting lists, stored as rows of the store's
// own SQLite file so that SQLite's transaction stays the one commit point (ARCHITECTURE.md, "Segments").
//
// - `segment(id, firstItem, lastItem, items, postings, deadItems)`: one row per segment. Item ids are allocated in
//   increasing order and never reused (`meta.nextItem`), and an update gives the item a new id, so every segment
//   covers its own range of ids and segments in id order never overlap. `deadItems` counts the deletes its writer
//   knew of; later ones are counted in `segmentDead(segment, dead)` (`noteDeleted`).
// - A segment's lists: packed into its row when small (`PackedSegment`), else in term blocks (format 11,
//   `TermBlocks`: its terms in byte order, in blocks of one page each, with a directory of their first terms).
//   Format 7 to 10 kept them as `postings(text, segment, count, data)` rows, one per (term, segment), keyed by
//   segment and then the term's text; those are still read, and written again as blocks by the maintenance.
//
// A deleted (or updated) item leaves its postings behind until a merge: its item row is gone, and every reader
// keeps only postings whose item row exists (`IndexStore.search` reads item rows for the hits it returns, the
// planners for the candidates they check). `SegmentMerger` merges adjacent segments of similar size and drops the
// dead postings.

/// Encodes and decodes one posting list: items in increasing order, each with its tier mask (`TextIndexer`).
///
/// Layout (all integers LEB128 varints):
///
///     version (1 byte, 1) · count · blockCount
///     blockCount × (lastItemDelta · byteLength · tierUnion (1 byte))        the skip data
///     blockCount × block: entries of (itemDelta << 5 | tiers)                 at most `blockSize` entries each
///
/// Deltas are from the previous item (the first item of a block from the previous block's last item, the first of
/// the list from 0). A block's `tierUnion` is the OR of its entries' masks, so its best tier bounds the points of
/// every posting in it (block-max); its last item lets a reader with few candidates skip blocks that hold none.
///
/// A list of one posting (format 15) is `singleTag | tiers` (1 byte) · item: four bytes for an item below 2²¹
/// instead of twelve. Most of a large vocabulary's terms have one item (PyPI: 1.04 million of the 1.34 million
/// lists in its term blocks, 12.4 MB of their 32.4), and the directory and the block repeated its item.
///
/// Decoding is total: damaged bytes throw `.corruptIndex`, never trap.
enum PostingCodec {
    static let blockSize = 128
    static let version: UInt8 = 1
    /// The first byte of a one-posting list is this tag with the posting's tiers in its low five bits (0x40–0x5F:
    /// neither `version` nor `LongLists.marker`).
    static let singleTag: UInt8 = 0x40

    /// Encodes postings sorted by item (ascending, distinct).
    static func encode<C: RandomAccessCollection>(_ postings: C) -> [UInt8] where C.Element == (item: Int64, tiers: UInt8) {
        if postings.count == 1, let only = postings.first, only.item >= 0 {
            var out: [UInt8] = [singleTag | (only.tiers & 0x1F)]
            appendVarint(UInt64(only.item), to: &out)
            return out
        }
        var out: [UInt8] = []
        out.reserveCapacity(postings.count * 2 + 16)
        out.append(version)
        appendVarint(UInt64(postings.count), to: &out)
        let blockCount = (postings.count + blockSize - 1) / blockSize
        appendVarint(UInt64(blockCount), to: &out)
        var blocks: [UInt8] = []
        blocks.reserveCapacity(postings.count * 2)
        var directory: [UInt8] = []
        directory.reserveCapacity(blockCount * 5)
        var previous: Int64 = 0
        var previousBlockLast: Int64 = 0
        var index = postings.startIndex
        while index != postings.endIndex {
            let start = blocks.count
            var union: UInt8 = 0
            var n = 0
            while index != postings.endIndex, n < blockSize {
                let p = postings[index]
                let delta = UInt64(p.item &- previous)
                appendVarint(delta << 5 | UInt64(p.tiers & 0x1F), to: &blocks)
                union |= p.tiers & 0x1F
                previous = p.item
                n += 1
                index = postings.index(after: index)
            }
            appendVarint(UInt64(previous &- previousBlockLast), to: &directory)
            appendVarint(UInt64(blocks.count - start), to: &directory)
            directory.append(union)
            previousBlockLast = previous
        }
        out += directory
        out += blocks
        return out
    }

    /// How many postings a list holds, from its head alone (a one-posting list's tag, or its count).
    static func count(_ bytes: UnsafeRawBufferPointer) throws -> Int {
        guard let first = bytes.first else { throw Reader.damaged }
        if first & 0xE0 == singleTag { return 1 }
        guard first == version else { throw Reader.damaged }
        var offset = 1
        let count = try Reader.varint(bytes, &offset)
        guard count <= UInt64(bytes.count) else { throw Reader.damaged }
        return Int(count)
    }

    @inline(__always)
    static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    /// One block's skip data.
    struct Block {
        var lastItem: Int64
        var offset: Int
        var length: Int
        var tierUnion: UInt8
    }

    /// A decoder over bytes it does not own (a blob SQLite hands out, valid until the statement steps). It
    /// allocates nothing: the skip directory is checked once when it is made and walked again by each read (a
    /// prefix's terms are thousands of short lists, read once each).
    struct Reader {
        let bytes: UnsafeRawBufferPointer
        private(set) var count = 0
        private(set) var blockCount = 0
        /// Where the skip directory starts, and where the first block's postings start.
        private var directory = 0
        private var data = 0

        /// A one-posting list's item (`PostingCodec.singleTag`); -1 for a list of blocks.
        private var singleItem: Int64 = -1

        init(_ bytes: UnsafeRawBufferPointer) throws {
            self.bytes = bytes
            var offset = 0
            guard bytes.count >= 1 else { throw Self.damaged }
            if bytes[0] & 0xE0 == PostingCodec.singleTag {
                offset = 1
                let item = try Self.varint(bytes, &offset)
                guard offset == bytes.count, item <= UInt64(Int64.max) else { throw Self.damaged }
                singleItem = Int64(item)
                count = 1
                blockCount = 1
                data = 1
                return
            }
            guard bytes[0] == PostingCodec.version else { throw Self.damaged }
            offset = 1
            let count = try Self.varint(bytes, &offset)
            let blockCount = try Self.varint(bytes, &offset)
            guard count <= UInt64(bytes.count) * 1, blockCount <= count,
                  blockCount == (count + UInt64(PostingCodec.blockSize) - 1) / UInt64(PostingCodec.blockSize) else {
                throw Self.damaged
            }
            self.count = Int(count)
            self.blockCount = Int(blockCount)
            directory = offset
            var last: Int64 = 0
            var total = 0
            for _ in 0..<Int(blockCount) {
                let delta = try Self.varint(bytes, &offset)
                let length = try Self.varint(bytes, &offset)
                guard offset < bytes.count, delta <= UInt64(Int64.max), length <= UInt64(bytes.count) else { throw Self.damaged }
                offset += 1   // the block's tier union
                let (sum, overflow) = last.addingReportingOverflow(Int64(delta))
                guard !overflow else { throw Self.damaged }
                last = sum
                total += Int(length)
                guard total <= bytes.count else { throw Self.damaged }
            }
            data = offset
            guard data + total == bytes.count else { throw Self.damaged }
        }

        static let damaged = EngineError(.corruptIndex, "a posting list of the index is damaged")

        @inline(__always)
        static func varint(_ bytes: UnsafeRawBufferPointer, _ offset: inout Int) throws -> UInt64 {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while offset < bytes.count {
                let byte = bytes[offset]
                offset += 1
                guard shift < 64 else { throw damaged }
                result |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return result }
                shift += 7
            }
            throw damaged
        }

        /// Calls `visit` with each block's skip data in order (its index, the previous block's last item, the
        /// block) until it returns false.
        @inline(__always)
        func forEachBlock(_ visit: (Int, Int64, Block) throws -> Bool) throws {
            if singleItem >= 0 {
                _ = try visit(0, 0, Block(lastItem: singleItem, offset: data, length: bytes.count - data,
                                          tierUnion: bytes[0] & 0x1F))
                return
            }
            var offset = directory
            var position = data
            var last: Int64 = 0
            for b in 0..<blockCount {
                // Checked when the reader was made.
                let delta = try Self.varint(bytes, &offset)
                let length = Int(try Self.varint(bytes, &offset))
                let union = bytes[offset]
                offset += 1
                let previous = last
                last = previous &+ Int64(delta)
                let block = Block(lastItem: last, offset: position, length: length, tierUnion: union)
                position += length
                if try !visit(b, previous, block) { return }
            }
        }

        /// Calls `body` with every posting of block `b` (after `previous`, the last item of the block before), in
        /// item order.
        @inline(__always)
        func forEach(inBlock b: Int, _ block: Block, after previous: Int64, _ body: (Int64, UInt8) throws -> Void) throws {
            if singleItem >= 0 {
                // (Checked when the reader was made; a block handed in is this list's one block.)
                try body(singleItem, bytes[0] & 0x1F)
                return
            }
            var offset = block.offset
            let end = block.offset + block.length
            var item: Int64 = b == 0 ? 0 : previous
            var n = 0
            let expected = b == blockCount - 1 ? count - b * PostingCodec.blockSize : PostingCodec.blockSize
            while offset < end {
                var value: UInt64
                let first = bytes[offset]
                if first < 0x80 {
                    value = UInt64(first)
                    offset += 1
                } else {
                    value = try Self.varint(bytes, &offset)
                    guard offset <= end else { throw Self.damaged }
                }
                let delta = value >> 5
                guard delta > 0 || (b == 0 && n == 0), delta <= UInt64(Int64.max) else { throw Self.damaged }
                let (next, overflow) = item.addingReportingOverflow(Int64(delta))
                guard !overflow else { throw Self.damaged }
                item = next
                n += 1
                try body(item, UInt8(truncatingIfNeeded: value & 0x1F))
            }
            guard n == expected, item == block.lastItem else { throw Self.damaged }
        }

        /// Every posting, in item order.
        func forEach(_ body: (Int64, UInt8) throws -> Void) throws {
            try forEachBlock { b, previous, block in
                try forEach(inBlock: b, block, after: previous, body)
                return true
            }
        }

        /// The postings of the blocks holding a posting in one of `tiers` (a block's tier union says): the others
        /// are skipped without decoding. `body` still sees the other postings of a decoded block.
        @inline(__always)
        func forEach(tiers: UInt8, _ body: (Int64, UInt8) throws -> Void) throws {
            try forEachBlock { b, previous, block in
                if block.tierUnion & tiers != 0 { try forEach(inBlock: b, block, after: previous, body) }
                return true
            }
        }

        /// The postings of the blocks that may hold one of `candidates` (sorted ascending); blocks whose range
        /// holds none are skipped without decoding. `body` still sees other items of a decoded block.
        func forEach(near candidates: [Int64], tiers: UInt8 = 0xFF, _ body: (Int64, UInt8) throws -> Void) throws {
            var c = 0
            try forEachBlock { b, previous, block in
                let low = b == 0 ? 0 : previous &+ 1
                while c < candidates.count, candidates[c] < low { c += 1 }
                if c == candidates.count { return false }
                if candidates[c] <= block.lastItem, block.tierUnion & tiers != 0 {
                    try forEach(inBlock: b, block, after: previous, body)
                }
                return true
            }
        }
    }

    /// Decodes a whole list (tests, merges).
    static func decode(_ data: [UInt8]) throws -> [(item: Int64, tiers: UInt8)] {
        try data.withUnsafeBytes { raw in
            let reader = try Reader(raw)
            var result: [(item: Int64, tiers: UInt8)] = []
            result.reserveCapacity(reader.count)
            try reader.forEach { result.append(($0, $1)) }
            return result
        }
    }
}

/// Reads posting lists without copying their bytes: out of the term blocks of large segments (format 11,
/// `TermBlocks`), the `postings` rows of format 7 to 10's, and packed segments.
///
/// Format 7 to 10's table is keyed by (segment, term text), so each segment's rows are one contiguous range. A term
/// is one lookup per large segment; there are a few (six at 900,000 items), the small segments being packed.
enum PostingStore {
    /// The segments stored as posting rows (format 10 and before; not packed, not blocks), in id order.
    static func rowSegments(_ db: Database) throws -> [Int64] {
        try BlockedSegment.current(db).rows
    }

    /// Every segment that is not packed, in id order (a store without term blocks).
    static func allRowSegments(_ db: Database) throws -> [Int64] {
        try Int64.fetchAll(db.cachedStatement(sql: "SELECT id FROM segment WHERE packed IS NULL ORDER BY id"))
    }

    /// The segments of one read, by how they are stored: what a caller that looks up many terms reads once.
    struct Segments {
        var rows: [Int64]
        var blocked: [BlockedSegment]
        var packed: [PackedSegment]

        init(_ db: Database) throws {
            (rows, blocked) = try BlockedSegment.current(db)
            packed = try PackedSegment.current(db)
        }
    }

    /// Calls `body` with each posting list of the term (one per segment).
    /// `segments`: the segments of this read, when the caller looks up many terms (else read here).
    static func forEachList(_ db: Database, text: String, segments: Segments? = nil,
                            _ body: (PostingCodec.Reader) throws -> Void) throws {
        let segments = try segments ?? Segments(db)
        let bytes = Array(text.utf8)
        for segment in segments.blocked {
            try segment.withList(db, text: bytes, body)
        }
        let statement = try db.cachedStatement(sql: "SELECT data FROM postings WHERE segment = ? AND text = ?")
        for segment in segments.rows {
            try IndexStore.forEachRawRow(db, statement, [segment, text]) { h in
                try withReader(db, h, column: 0, body)
            }
        }
        for segment in segments.packed {
            guard let i = segment.position(of: bytes) else { continue }
            try segment.withList(i, body)
        }
    }

    /// Calls `body` with each posting list of every term in `[low, high)`, segment by segment, and whether the
    /// term is `low` itself. (`high` is `low` + U+10FFFF: the terms that start with `low`.) A term no live item
    /// holds any more has only dead postings: readers drop them with the other dead postings.
    static func forEachList(_ db: Database, termsFrom low: String, below high: String,
                            _ body: (Bool, PostingCodec.Reader) throws -> Void) throws {
        let segments = try Segments(db)
        let lowBytes = Array(low.utf8), highBytes = Array(high.utf8)
        for segment in segments.blocked {
            try segment.forEachList(db, from: lowBytes, below: highBytes, body)
        }
        let statement = try db.cachedStatement(sql: """
            SELECT text = ?1, data FROM postings WHERE segment = ?3 AND text >= ?1 AND text < ?2
            """)
        for segment in segments.rows {
            try IndexStore.forEachRawRow(db, statement, [low, high, segment]) { h in
                let exact = sqlite3_column_int64(h, 0) != 0
                try withReader(db, h, column: 1) { try body(exact, $0) }
            }
        }
        for segment in segments.packed {
            for i in segment.positions(startingWith: lowBytes) {
                try segment.withList(i) { try body(segment.texts[i].count == lowBytes.count, $0) }
            }
        }
    }

    /// A blob column's bytes, valid until the statement steps (an empty or NULL blob is damage).
    @inline(__always)
    static func blob(_ h: OpaquePointer, column: Int32) throws -> UnsafeRawBufferPointer {
        let count = Int(sqlite3_column_bytes(h, column))
        guard count > 0, let pointer = sqlite3_column_blob(h, column) else { throw PostingCodec.Reader.damaged }
        return UnsafeRawBufferPointer(start: pointer, count: count)
    }

    /// Calls `body` with the posting list in a `postings` row's `data` column: the list itself, or a reference to
    /// a long one in `postingData` (`LongLists`), read here. The reader is valid inside `body` only.
    @inline(__always)
    static func withReader<T>(_ db: Database, _ h: OpaquePointer, column: Int32,
                              _ body: (PostingCodec.Reader) throws -> T) throws -> T {
        let bytes = try blob(h, column: column)
        guard bytes[0] == LongLists.marker else { return try body(try PostingCodec.Reader(bytes)) }
        return try LongLists.withList(db, reference: bytes, body)
    }
}

/// A small segment (a commit of a few items) stored as one blob in its `segment` row instead of one `postings`
/// row per term, so that a single-item write touches a few pages, not one B-tree leaf per term.
///
/// Layout (varints): version (1 byte, 1) · termCount · termCount × (termID · textLength · text (UTF-8) · listLength ·
/// list (`PostingCodec`)). Readers decode it once and keep it by the segment's random `token` (segments are
/// immutable, so the decoded form stays right for as long as the segment exists, in every process). Since format
/// 16 the vocabulary is the segments' own terms and `termID` is 0 (before, the term's id in the global `term`
/// table, which readers never needed: they find a term by its text).
package final class PackedSegment: Sendable {
    /// The segment's random token (`segment.token`), when read through `current` (0 otherwise).
    let token: Int64
    /// In UTF-8 byte order since format 4 (writers sort the lists by text); format 2 and 3 packed them by term id,
    /// and their blobs stay as they are: those are read through `order`.
    let texts: [[UInt8]]
    /// The positions of `texts` in byte order: nil when they are in it already.
    private let order: [Int]?
    private let lists: [UInt8]
    private let ranges: [Range<Int>]

    /// Segments whose postings count is at most this are packed: a commit of a few items, and the merges of such
    /// commits up to 8 × 8 × 8 single-item writes. Written as posting rows (one B-tree insertion per term), a merge
    /// of 8 small segments held the write lock for 15–25 ms, and one of 8 segments of ~8,000 postings (70,000 in
    /// all, every 64 single writes) 40–60 ms, the longest wait of a single write; packed, the blob is encoded
    /// before the lock is taken, and the commit writes it as a run of pages. Readers find a term or a prefix by
    /// binary search over the sorted texts. Tests lower it to get row segments from small data.
    package static let defaultLimit = 262_144
    package static let limit = Atomic<Int>(defaultLimit)

    init(_ bytes: UnsafeRawBufferPointer, token: Int64 = 0) throws {
        self.token = token
        var offset = 0
        guard bytes.count >= 1, bytes[0] == 1 else { throw PostingCodec.Reader.damaged }
        offset = 1
        let count = try PostingCodec.Reader.varint(bytes, &offset)
        guard count <= UInt64(bytes.count) else { throw PostingCodec.Reader.damaged }
        var texts: [[UInt8]] = [], lists: [UInt8] = [], ranges: [Range<Int>] = []
        for _ in 0..<Int(count) {
            let term = try PostingCodec.Reader.varint(bytes, &offset)
            let textLength = try PostingCodec.Reader.varint(bytes, &offset)
            guard term <= UInt64(Int64.max), textLength <= UInt64(bytes.count - offset) else { throw PostingCodec.Reader.damaged }
            let text = Array(bytes[offset..<(offset + Int(textLength))])
            offset += Int(textLength)
            let listLength = try PostingCodec.Reader.varint(bytes, &offset)
            guard listLength <= UInt64(bytes.count - offset) else { throw PostingCodec.Reader.damaged }
            let list = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + Int(listLength))])
            _ = try PostingCodec.Reader(list)   // validated once here
            offset += Int(listLength)
            texts.append(text)
            ranges.append(lists.count..<(lists.count + list.count))
            lists += list
        }
        guard offset == bytes.count else { throw PostingCodec.Reader.damaged }
        self.texts = texts
        var sorted = true
        for i in texts.indices.dropFirst() where !texts[i - 1].lexicographicallyPrecedes(texts[i]) {
            sorted = false
            break
        }
        self.order = sorted ? nil : texts.indices.sorted { texts[$0].lexicographicallyPrecedes(texts[$1]) }
        self.lists = lists
        self.ranges = ranges
    }

    /// The position of the term of rank `rank` in text order.
    func position(rank: Int) -> Int { order?[rank] ?? rank }

    /// The position of the term `text`, if the segment has it.
    func position(of text: [UInt8]) -> Int? {
        let k = lowerBound(text)
        guard k < texts.count else { return nil }
        let i = order?[k] ?? k
        return texts[i] == text ? i : nil
    }

    /// The positions of the terms that start with `prefix`, in text order.
    func positions(startingWith prefix: [UInt8]) -> [Int] {
        var result: [Int] = []
        var k = lowerBound(prefix)
        while k < texts.count {
            let i = order?[k] ?? k
            guard texts[i].starts(with: prefix) else { break }
            result.append(i)
            k += 1
        }
        return result
    }

    /// Calls `body` with each term in `[low, high)` (byte order) and its postings' count, in order.
    func forEachTerm(from low: [UInt8], below high: [UInt8], _ body: (UnsafeRawBufferPointer, Int) throws -> Void) throws {
        var k = lowerBound(low)
        while k < texts.count {
            let i = order?[k] ?? k
            guard TermBlocks.precedes(texts[i], high) else { break }
            let count = try listCount(i)
            try texts[i].withUnsafeBytes { try body($0, count) }
            k += 1
        }
    }

    /// How many postings the segment holds for `text` (0 when it has no such term).
    func count(of text: [UInt8]) throws -> Int {
        guard let i = position(of: text) else { return 0 }
        return try listCount(i)
    }

    /// How many postings list `i` holds, from its head.
    private func listCount(_ i: Int) throws -> Int {
        try lists.withUnsafeBytes { try PostingCodec.count(UnsafeRawBufferPointer(rebasing: $0[ranges[i]])) }
    }

    /// The first rank (in text order) whose text does not precede `text`.
    private func lowerBound(_ text: [UInt8]) -> Int {
        var low = 0, high = texts.count
        while low < high {
            let middle = (low + high) / 2
            if texts[order?[middle] ?? middle].lexicographicallyPrecedes(text) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    func withList<T>(_ i: Int, _ body: (PostingCodec.Reader) throws -> T) throws -> T {
        try lists.withUnsafeBytes { raw in
            try body(try PostingCodec.Reader(UnsafeRawBufferPointer(rebasing: raw[ranges[i]])))
        }
    }

    static func encode(_ lists: [(text: String, data: [UInt8])]) -> [UInt8] {
        var out: [UInt8] = [1]
        PostingCodec.appendVarint(UInt64(lists.count), to: &out)
        for list in lists {
            out.append(0)   // the term id of formats 2 to 15 (none since 16)
            let text = Array(list.text.utf8)
            PostingCodec.appendVarint(UInt64(text.count), to: &out)
            out += text
            PostingCodec.appendVarint(UInt64(list.data.count), to: &out)
            out += list.data
        }
        return out
    }

    private static let cache = SegmentCache<PackedSegment>()

    /// The packed segments `db` sees, decoded (from the cache when another search already did).
    static func current(_ db: Database) throws -> [PackedSegment] {
        let tokens = try Int64.fetchAll(db.cachedStatement(sql: "SELECT token FROM segment WHERE packed IS NOT NULL"))
        if tokens.isEmpty { return [] }
        let cached = cache.cached(tokens)
        var result: [PackedSegment] = []
        var built: [Int64: PackedSegment] = [:]
        for (token, segment) in zip(tokens, cached) {
            if let segment { result.append(segment); continue }
            let statement = try db.cachedStatement(sql: "SELECT packed FROM segment WHERE token = ? AND packed IS NOT NULL")
            try IndexStore.forEachRawRow(db, statement, [token]) { h in
                let segment = try PackedSegment(try PostingStore.blob(h, column: 0), token: token)
                built[token] = segment
                result.append(segment)
            }
        }
        cache.add(built, current: tokens, db: db)
        return result
    }
}

/// Writes new segments and merges old ones.
enum SegmentMerger {
    /// Segments of the same size level are merged when this many are adjacent.
    static let mergeFactor = 8
    /// The size (postings) below which every segment counts as level 0.
    static let levelBase = 4_096
    /// A segment with more than this share of dead items is rewritten without them.
    static let expungeShare = 0.25
    /// Postings gathered in memory before a large batch writes them as a segment (streaming, bounded memory).
    static let flushThreshold = 4_000_000

    /// One term's encoded postings in a segment being written.
    struct EncodedList {
        var text: String
        var count: Int
        var data: [UInt8]
    }

    /// Writes postings gathered for the items `firstItem...lastItem` as a new segment: packed when small
    /// (`PackedSegment`), else term blocks. Postings name their terms by the writer's numbers, which `text` names.
    static func writeSegment(_ db: Database, postings: inout [(term: Int64, item: Int64, tiers: UInt8)],
                             firstItem: Int64, lastItem: Int64, items: Int, deadItems: Int,
                             text: (Int64) throws -> String) throws {
        guard !postings.isEmpty else { return }
        var segment = try encodeSegment(postings, text: text)
        postings.removeAll(keepingCapacity: true)
        try insertSegment(db, segment: &segment, firstItem: firstItem, lastItem: lastItem, items: items, deadItems: deadItems)
    }

    /// A new segment's lists, encoded apart from the database (`encodeSegment`), so that a writer can encode them
    /// on another core while its transaction goes on (`Writer.finish`).
    struct EncodedSegment: Sendable {
        /// In text order.
        var lists: [EncodedList]
        var postings: Int
        /// The packed blob, for a segment of at most `PackedSegment.limit` postings.
        var packed: [UInt8]?
        /// The term blocks of a larger one (then `lists` is empty).
        var blocks: TermBlocks.Encoded? = nil
    }

    /// Sorts and encodes postings as a segment's lists, in text order, and packs them when the segment is small.
    /// `text` names a term by the writer's number for it.
    static func encodeSegment(_ postings: [(term: Int64, item: Int64, tiers: UInt8)],
                              text: (Int64) throws -> String) rethrows -> EncodedSegment {
        let postings = sortedByTermThenItem(postings)
        var lists: [EncodedList] = []
        var start = 0
        while start < postings.count {
            let term = postings[start].term
            var end = start + 1
            while end < postings.count, postings[end].term == term { end += 1 }
            lists.append(EncodedList(text: try text(term), count: end - start,
                                     data: PostingCodec.encode(postings[start..<end].lazy.map { (item: $0.item, tiers: $0.tiers) })))
            start = end
        }
        // In key order: rows go in at the end of their range, and a packed segment reads the same.
        lists.sort { UTF8Order.precedes($0.text, $1.text) }
        let small = postings.count <= PackedSegment.limit.load(ordering: .relaxed)
        let packed = small ? PackedSegment.encode(lists.map { ($0.text, $0.data) }) : nil
        if !small, !TermBlocks.writesRows.load(ordering: .relaxed) {
            return EncodedSegment(lists: [], postings: postings.count, packed: nil, blocks: TermBlocks.encode(lists))
        }
        return EncodedSegment(lists: lists, postings: postings.count, packed: packed)
    }

    /// Inserts an encoded segment (`encodeSegment`) of the items `firstItem...lastItem`.
    static func insertSegment(_ db: Database, segment: inout EncodedSegment, firstItem: Int64, lastItem: Int64,
                              items: Int, deadItems: Int) throws {
        try insertSegment(db, lists: &segment.lists, postings: segment.postings, firstItem: firstItem,
                          lastItem: lastItem, items: items, deadItems: deadItems, encoded: segment.packed,
                          blocks: segment.blocks, sorted: true)
    }

    /// Postings sorted by (term, item). A writer appends them item by item in increasing id order, so a stable
    /// counting sort by term (linear, a count per term number) gives that order; postings that came otherwise are
    /// sorted by comparison.
    static func sortedByTermThenItem(_ postings: [(term: Int64, item: Int64, tiers: UInt8)]) -> [(term: Int64, item: Int64, tiers: UInt8)] {
        let byComparison = {
            postings.sorted { $0.term != $1.term ? $0.term < $1.term : $0.item < $1.item }
        }
        var maximum: Int64 = 0
        for p in postings {
            guard p.term >= 0 else { return byComparison() }
            maximum = max(maximum, p.term)
        }
        // Term numbers are the writer's, from 0: a count array is at most a few million entries.
        guard postings.count >= 64, maximum < 1 << 26, maximum <= Int64(postings.count) * 64 else { return byComparison() }
        var start = [Int](repeating: 0, count: Int(maximum) + 2)
        for p in postings { start[Int(p.term) + 1] += 1 }
        for t in 1..<start.count { start[t] += start[t - 1] }
        var sorted = postings
        for p in postings {
            sorted[start[Int(p.term)]] = p
            start[Int(p.term)] += 1
        }
        for i in 1..<sorted.count where sorted[i].term == sorted[i - 1].term && sorted[i].item <= sorted[i - 1].item {
            return byComparison()
        }
        return sorted
    }

    /// Writes a segment's encoded lists (one per term, in any order unless `sorted`: in text order): packed when
    /// small, else as term blocks (`TermBlocks`). `encoded`, `blocks`: the packed blob or the blocks, when the
    /// caller encoded them already (a merge before the lock, a bulk load on another core).
    static func insertSegment(_ db: Database, lists: inout [EncodedList], postings: Int,
                              firstItem: Int64, lastItem: Int64, items: Int, deadItems: Int,
                              encoded: [UInt8]? = nil, blocks: TermBlocks.Encoded? = nil, sorted: Bool = false) throws {
        guard postings > 0 else { return }
        var packed: Data? = encoded.map { Data($0) }
        var blocks = blocks
        if packed == nil, blocks == nil {
            // In text order: a packed segment and blocks are read by binary search, rows go in at the end of their
            // range.
            if !sorted { lists.sort { UTF8Order.precedes($0.text, $1.text) } }
            if postings <= PackedSegment.limit.load(ordering: .relaxed) {
                packed = Data(PackedSegment.encode(lists.map { ($0.text, $0.data) }))
            } else if !TermBlocks.writesRows.load(ordering: .relaxed) {
                blocks = TermBlocks.encode(lists)
            }
        }
        try db.cachedStatement(sql: """
            INSERT INTO segment(firstItem, lastItem, items, postings, deadItems, token, packed) VALUES(?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [firstItem, lastItem, items, postings, deadItems, Int64.random(in: .min ... .max), packed])
        guard packed == nil else { return }
        let segment = db.lastInsertedRowID
        if let blocks {
            try TermBlocks.insert(db, segment: segment, blocks)
            return
        }
        // Format 10's posting rows (`TermBlocks.writesRows`: tests that make stores of that format).
        let insert = try db.cachedStatement(sql: "INSERT INTO postings(text, segment, count, data) VALUES(?, ?, ?, ?)")
        let handle = insert.sqliteStatement
        var long = 0
        for k in lists.indices where lists[k].data.count > LongLists.threshold {
            // A long list in `postingData`, its row a reference to it.
            lists[k].data = try LongLists.store(lists[k].data, segment: segment, number: long, db)
            long += 1
        }
        for list in lists {
            var text = list.text
            try text.withUTF8 { utf8 in
                try bindAndStep(db, handle) {
                    sqlite3_bind_text(handle, 1, utf8.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                                      Int32(utf8.count), SQLITE_TRANSIENT)
                    sqlite3_bind_int64(handle, 2, segment)
                    sqlite3_bind_int64(handle, 3, Int64(list.count))
                    _ = list.data.withUnsafeBytes { sqlite3_bind_blob(handle, 4, $0.baseAddress, Int32($0.count), SQLITE_TRANSIENT) }
                }
            }
        }
    }

    /// Counts a deleted item against the segment that holds its postings.
    static func noteDeleted(_ db: Database, item: Int64) throws {
        // Counted in a row of its own: a packed segment's row holds the whole segment (up to a megabyte), which an
        // update of its count rewrote, every overflow page of it, in the single write that deleted one item.
        try db.cachedStatement(sql: """
            INSERT INTO segmentDead(segment, dead) SELECT id, 1 FROM segment WHERE firstItem <= ?1 AND lastItem >= ?1
            ON CONFLICT(segment) DO UPDATE SET dead = dead + 1
            """).execute(arguments: [item])
    }

    /// Items deleted from a segment after it was written (`noteDeleted`), by segment id; `segment.deadItems` holds
    /// those its writer knew of. A row whose segment is gone names no other (segment ids are never reused).
    /// Created by every store opened for writing, whatever its format (an older version neither reads nor writes
    /// it: its deletes count in `segment.deadItems`, so the two still add up).
    static let deadTableSQL = "CREATE TABLE IF NOT EXISTS segmentDead(segment INTEGER PRIMARY KEY, dead INTEGER NOT NULL)"

    /// `segment.deadItems` plus the later deletes, as an SQL expression over `segment` (for a store without the
    /// table, opened read-only, the column alone).
    static func deadItemsSQL(_ db: Database) throws -> String {
        try db.tableExists("segmentDead")
            ? "(deadItems + coalesce((SELECT dead FROM segmentDead WHERE segmentDead.segment = segment.id), 0))"
            : "deadItems"
    }

    struct SegmentInfo {
        var id: Int64
        /// The segment's random token: an id alone could name another segment after a removal of every item.
        var token: Int64 = 0
        var firstItem: Int64
        var lastItem: Int64
        var items: Int
        var postings: Int
        var deadItems: Int
        /// Stored as posting rows (format 10 and before), to be written again as term blocks.
        var storedAsRows = false

        var level: Int {
            var level = 0
            var size = max(postings, 1) / SegmentMerger.levelBase
            while size > 0 {
                level += 1
                size /= SegmentMerger.mergeFactor
            }
            return level
        }
    }

    static func segments(_ db: Database) throws -> [SegmentInfo] {
        let rows = Set(try PostingStore.rowSegments(db))
        return try Row.fetchAll(db.cachedStatement(sql: "SELECT id, firstItem, lastItem, items, postings, \(deadItemsSQL(db)), token FROM segment ORDER BY firstItem")).map {
            SegmentInfo(id: try $0.stored(0), token: try $0.stored(6), firstItem: try $0.stored(1), lastItem: try $0.stored(2),
                        items: try $0.stored(3), postings: try $0.stored(4), deadItems: try $0.stored(5),
                        storedAsRows: rows.contains(try $0.stored(0)))
        }
    }

    /// The next merge the policy asks for, if any: `mergeFactor` adjacent segments of one level (from the newest
    /// run of one level that has as many, its oldest), else one segment with too many dead items, else a stranded
    /// run with its smaller neighbour (`strandedRun`), else one a store of format 10 or before stored as posting
    /// rows (written again alone, as term blocks: an upgraded store gets their size).
    static func nextMerge(_ segments: [SegmentInfo]) -> [SegmentInfo]? {
        var end = segments.count
        while end > 0 {
            let level = segments[end - 1].level
            var start = end - 1
            while start > 0, segments[start - 1].level == level { start -= 1 }
            // The run's oldest `mergeFactor`: what is left of it is its newest, next to the segments that come next,
            // which it is merged with later. (Merging the newest left the oldest between two higher levels for good:
            // a maintenance run that found nine of a bulk load's segments of one level, not eight, left one behind,
            // so the index at rest had stranded segments or not by the merges' timing: both corpora's bulk load ended with
            // 18 segments and 152.6 MB, or 4 and 149.7 MB.)
            if end - start >= mergeFactor { return Array(segments[start..<(start + mergeFactor)]) }
            end = start
        }
        if let worst = segments.filter({ $0.items > 0 && Double($0.deadItems) > Double($0.items) * expungeShare })
            .max(by: { Double($0.deadItems) / Double($0.items) < Double($1.deadItems) / Double($1.items) }) {
            return [worst]
        }
        if let stranded = strandedRun(segments) { return stranded }
        // (Not while tests make format 10 stores: the rewrite would be rows again, for ever.)
        if !TermBlocks.writesRows.load(ordering: .relaxed), let rows = segments.last(where: \.storedAsRows) {
            return [rows]
        }
        return nil
    }

    /// The oldest stranded run with its smaller neighbour, if any. A run of one level is stranded when the
    /// segments on both sides of it are of higher levels (or, for the oldest run, the one after it): only adjacent
    /// segments merge, and whatever is written later lands after the higher neighbour, so the run never reaches
    /// `mergeFactor` and no level's merge takes it. The newest run is never stranded (later writes join it).
    ///
    /// Runs are stranded by a large write that follows small ones (an app's few single writes, then a batch of
    /// thousands: the single writes' segments lie between the older segments and the batch's, for good), by a
    /// segment rewritten without its dead items that fell a level below both neighbours, and in stores written
    /// before 2026-12-07 by the policy itself (it merged the newest `mergeFactor` of a run: the oldest of nine was
    /// left between two higher levels; both corpora's bulk load so kept 18 segments at rest where 4 were due).
    /// Merged with the smaller neighbour, such a run costs at most that neighbour's rewrite once, and a search
    /// then visits one segment where it visited the run and its neighbour.
    static func strandedRun(_ segments: [SegmentInfo]) -> [SegmentInfo]? {
        var start = 0
        while start < segments.count {
            let level = segments[start].level
            var end = start + 1
            while end < segments.count, segments[end].level == level { end += 1 }
            guard end < segments.count else { return nil }
            let newer = segments[end]
            let older = start > 0 ? segments[start - 1] : nil
            if newer.level > level, older.map({ $0.level > level }) ?? true {
                if let older, older.postings < newer.postings { return Array(segments[(start - 1)..<end]) }
                return Array(segments[start...end])
            }
            start = end
        }
        return nil
    }

    /// A merge read from a snapshot, ready to be written: the heavy part (reading, filtering and encoding every
    /// posting) runs outside the write lock, so writers never wait for it.
    struct PreparedMerge {
        var run: [SegmentInfo]
        var liveItems: Int
        /// One encoded list per term, in text order.
        var lists: [EncodedList]
        var postings: Int
        /// The packed segment's blob, when the result is small enough to be packed.
        var packed: [UInt8]? = nil
        /// Else its term blocks.
        var blocks: TermBlocks.Encoded? = nil
    }

    /// Reads `run` (adjacent segments, in id order) and encodes it as one segment without the dead postings.
    static func prepare(_ db: Database, _ run: [SegmentInfo]) throws -> PreparedMerge {
        guard let first = run.first, let last = run.last else { return PreparedMerge(run: run, liveItems: 0, lists: [], postings: 0) }
        // The live items of the range, as a bitset relative to its first id.
        let span = Int(last.lastItem - first.firstItem + 1)
        var live = [UInt64](repeating: 0, count: span / 64 + 1)
        var liveCount = 0
        try ItemCatalog(db).forEachID(in: first.firstItem...max(first.firstItem, last.lastItem)) { id in
            let offset = Int(id - first.firstItem)
            live[offset >> 6] |= 1 << UInt64(offset & 63)
            liveCount += 1
        }
        @inline(__always) func isLive(_ id: Int64) -> Bool {
            let offset = Int(id - first.firstItem)
            return offset >= 0 && offset < span && live[offset >> 6] & (1 << UInt64(offset & 63)) != 0
        }
        // Postings are gathered a term at a time and encoded at once, so a merge holds the encoded lists (about a
        // byte per posting), never every posting of the run decoded.
        var lists: [EncodedList] = []
        var total = 0
        var current: [(item: Int64, tiers: UInt8)] = []
        func emit(_ text: String) {
            guard !current.isEmpty else { return }
            // Lists of one term come in segment order, which is id order, and packed segments' after: sort.
            current.sort { $0.item < $1.item }
            lists.append(EncodedList(text: text, count: current.count, data: PostingCodec.encode(current)))
            total += current.count
            current.removeAll(keepingCapacity: true)
        }
        // Every segment of the run is stepped in text order and merged term by term, so a merge holds one term's
        // postings decoded at a time: the packed ones (small, decoded whole) by rank, the others through their
        // posting rows or term blocks. (The packed segments' postings were gathered in a table by term first: the
        // text made and hashed per term and segment was two fifths of a merge of a bulk load's segments.)
        var packedRuns: [(segment: PackedSegment, rank: Int)] = []
        let packedRow = try db.cachedStatement(sql: "SELECT packed FROM segment WHERE id = ? AND packed IS NOT NULL")
        var packedIDs: Set<Int64> = []
        for segment in run {
            try IndexStore.forEachRawRow(db, packedRow, [segment.id]) { h in
                packedIDs.insert(segment.id)
                packedRuns.append((try PackedSegment(try PostingStore.blob(h, column: 0)), 0))
            }
        }
        let blockedIDs = Set(try BlockedSegment.current(db).blocked.map(\.id))
        var cursors: [TermCursor] = []
        for segment in run where !packedIDs.contains(segment.id) {
            cursors.append(blockedIDs.contains(segment.id)
                ? try TermCursor(db, blockedSegment: segment.id) : try TermCursor(db, rowSegment: segment.id))
        }
        while true {
            var smallest: [UInt8]? = nil
            for cursor in cursors {
                guard let text = cursor.text else { continue }
                if smallest == nil || text.lexicographicallyPrecedes(smallest!) { smallest = text }
            }
            for (packed, rank) in packedRuns where rank < packed.texts.count {
                let text = packed.texts[packed.position(rank: rank)]
                if smallest == nil || text.lexicographicallyPrecedes(smallest!) { smallest = text }
            }
            guard let smallest else { break }
            // Every segment at this term is read, then stepped.
            for cursor in cursors where cursor.text == smallest {
                try cursor.withList { list in
                    try list.forEach { item, tiers in
                        if isLive(item) { current.append((item, tiers)) }
                    }
                }
                try cursor.step()
            }
            for n in packedRuns.indices where packedRuns[n].rank < packedRuns[n].segment.texts.count {
                let packed = packedRuns[n].segment
                let i = packed.position(rank: packedRuns[n].rank)
                guard packed.texts[i] == smallest else { continue }
                try packed.withList(i) { list in
                    try list.forEach { item, tiers in
                        if isLive(item) { current.append((item, tiers)) }
                    }
                }
                packedRuns[n].rank += 1
            }
            emit(String(decoding: smallest, as: UTF8.self))
        }
        // (In text order: the terms were taken smallest first.)
        var merged = PreparedMerge(run: run, liveItems: liveCount, lists: lists, postings: total)
        if total > 0, total <= PackedSegment.limit.load(ordering: .relaxed) {
            merged.packed = PackedSegment.encode(lists.map { ($0.text, $0.data) })
            merged.lists = []
        } else if total > 0, !TermBlocks.writesRows.load(ordering: .relaxed) {
            merged.blocks = TermBlocks.encode(lists)
            merged.lists = []
        }
        return merged
    }

    /// Writes a prepared merge unless its segments changed since it was read (another merge took them): returns
    /// whether it was written. Items deleted since the snapshot stay in the merged lists as dead postings, counted.
    static func commit(_ db: Database, _ merge: PreparedMerge) throws -> Bool {
        guard let first = merge.run.first, let last = merge.run.last else { return false }
        let ids = merge.run.map(\.id)
        let placeholders = ids.map { _ in "?" }.joined(separator: ",")
        let arguments = StatementArguments(ids)
        // The very segments it read (same ids and tokens), or nothing: another process may have merged them, or
        // removed every item since.
        let present = try Int.fetchOne(db, sql: "SELECT count(*) FROM segment WHERE id IN (\(placeholders)) AND token IN (\(placeholders))",
                                       arguments: arguments + StatementArguments(merge.run.map(\.token))) ?? 0
        guard present == ids.count else { return false }
        let liveNow = try ItemCatalog(db).count(in: first.firstItem...max(first.firstItem, last.lastItem))
        try db.execute(sql: "DELETE FROM postings WHERE segment IN (\(placeholders))", arguments: arguments)
        try db.execute(sql: "DELETE FROM segment WHERE id IN (\(placeholders))", arguments: arguments)
        try db.execute(sql: "DELETE FROM segmentDead WHERE segment IN (\(placeholders))", arguments: arguments)
        for id in ids {
            try LongLists.delete(segment: id, db)
            try TermBlocks.delete(segment: id, db)
        }
        var lists = merge.lists
        try insertSegment(db, lists: &lists, postings: merge.postings, firstItem: first.firstItem,
                          lastItem: last.lastItem, items: merge.liveItems, deadItems: max(0, merge.liveItems - liveNow),
                          encoded: merge.packed, blocks: merge.blocks)
        return true
    }

    static func bindAndStep(_ db: Database, _ handle: OpaquePointer, _ bind: () -> Void) throws {
        sqlite3_reset(handle)
        bind()
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            sqlite3_reset(handle)
            throw IndexStore.stepError(db, code)
        }
        sqlite3_reset(handle)
    }
}

/// Posting lists too long to stay in their `postings` row (format 8), in a rowid table of their own:
/// `postingData(id, data)`, the row keeping a reference (`marker`, then the id as a varint).
///
/// `postings` is a WITHOUT ROWID table, whose rows keep at most ~1 KB in their B-tree page: a longer list spilled
/// into overflow pages, the last one mostly empty (2 KB on average: 1.7 MB of Debian's 11 MB of posting rows, 5.4 MB
/// of PyPI's 52 MB). A rowid table keeps a row of up to ~4 KB in its page, next to others, and a longer one on
/// full overflow pages. A list's id is its segment's id × 2²⁴ plus its number in the segment, so a segment's long
/// lists are one range of ids: appended when it is written, deleted as a range when it is merged away.
enum LongLists {
    /// The first byte of a reference (a list starts with `PostingCodec.version`, 1).
    static let marker: UInt8 = 0
    /// Lists longer than this go to `postingData` (a row of `postings` also keeps the term and segment).
    static let threshold = 960
    static let tableSQL = "CREATE TABLE IF NOT EXISTS postingData(id INTEGER PRIMARY KEY, data BLOB NOT NULL)"

    static func store(_ data: [UInt8], segment: Int64, number: Int, _ db: Database) throws -> [UInt8] {
        guard number < 1 << 24 else { throw EngineError(.corruptIndex, "a segment with more than 2^24 long posting lists") }
        let id = segment << 24 | Int64(number)
        try db.cachedStatement(sql: "INSERT INTO postingData(id, data) VALUES(?, ?)").execute(arguments: [id, Data(data)])
        var reference: [UInt8] = [marker]
        PostingCodec.appendVarint(UInt64(id), to: &reference)
        return reference
    }

    /// Calls `body` with the list a reference names; damage (a reference that does not decode or names no list)
    /// throws `.corruptIndex`.
    static func withList<T>(_ db: Database, reference: UnsafeRawBufferPointer,
                            _ body: (PostingCodec.Reader) throws -> T) throws -> T {
        var varint = ValueCodec.Reader(bytes: Array(reference.dropFirst()))
        guard let id = try? varint.varint(), varint.offset == varint.bytes.count, id <= UInt64(Int64.max) else {
            throw PostingCodec.Reader.damaged
        }
        return try withList(db, id: Int64(id), body)
    }

    /// Calls `body` with the list of `postingData` row `id`; a missing row is damage.
    static func withList<T>(_ db: Database, id: Int64, _ body: (PostingCodec.Reader) throws -> T) throws -> T {
        // A fresh statement when the cached one is in use (a reader of a long list inside another's body).
        let cached = try db.cachedStatement(sql: "SELECT data FROM postingData WHERE id = ?")
        let statement = sqlite3_stmt_busy(cached.sqliteStatement) != 0
            ? try db.makeStatement(sql: "SELECT data FROM postingData WHERE id = ?") : cached
        return try withExtendedLifetime(statement) {
            let h = statement.sqliteStatement
            sqlite3_reset(h)
            defer { sqlite3_reset(h) }
            sqlite3_bind_int64(h, 1, id)
            let code = sqlite3_step(h)
            guard code == SQLITE_ROW else {
                if code == SQLITE_DONE { throw PostingCodec.Reader.damaged }
                throw IndexStore.stepError(db, code)
            }
            return try body(try PostingCodec.Reader(try PostingStore.blob(h, column: 0)))
        }
    }

    /// Deletes the long lists of a segment.
    static func delete(segment: Int64, _ db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM postingData WHERE id >= ? AND id < ?")
            .execute(arguments: [segment << 24, (segment + 1) << 24])
    }
}

/// SQLite's "copy the bytes now" destructor, which Swift cannot import as a constant.
let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// Decoded segments by token, per process, with the file of their store (`PackedSegment.current`,
/// `BlockedSegment.current`): segments never change, and a token names one segment of one store.
final class SegmentCache<Segment: Sendable>: Sendable {
    private let entries = Mutex<[Int64: (segment: Segment, store: String)]>([:])

    /// Past this many segments, those of every store but the reading one's current ones are dropped (read again
    /// when needed).
    private let bound = 4_096

    /// The cached segments of `tokens`, nil for each one not cached.
    func cached(_ tokens: [Int64]) -> [Segment?] {
        entries.withLock { entries in tokens.map { entries[$0]?.segment } }
    }

    /// Adds the segments `db` read (`built`); `current`: the tokens of every segment of its kind `db` sees. The
    /// segments this store merged away are dropped when it has new ones (a bulk load makes and merges away
    /// hundreds, which list builds read: kept until 4,096, they held 150 MB after a load of both corpora).
    func add(_ built: [Int64: Segment], current: [Int64], db: Database) {
        guard !built.isEmpty else { return }
        let store = String(cString: sqlite3_db_filename(db.sqliteConnection, "main"))
        let keep = Set(current)
        entries.withLock { entries in
            let full = entries.count + built.count > bound
            entries = entries.filter { keep.contains($0.key) || (!full && $0.value.store != store) }
            entries.merge(built.mapValues { ($0, store) }) { a, _ in a }
        }
    }
}
