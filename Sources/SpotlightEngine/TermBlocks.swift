import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// A large segment's term dictionary and posting lists as blocks of about 4 KB (format 11), as Lucene's block
/// tree and Tantivy's term dictionary store them: the segment's terms in UTF-8 byte order, each with its list,
/// cut into blocks that each fill one page of a rowid table (`termBlock(id, data)`), and a directory of every
/// block's first term, read once per process and segment.
///
/// Format 7 to 10 stored one row of `postings(text, segment, count, data)` per term and segment: the term's text
/// again in every row, with the row's key and cell overhead, a B-tree insertion per term in a bulk load, and pages
/// left partly empty. PyPI's 1.34 million rows took 54 MB for 23 MB of lists. In blocks a term costs its bytes
/// after the prefix it shares with the term before it (about 5 for PyPI's names), three varints, and its list.
///
/// Layout (varints):
///
///     directory (row id segment × 2²⁴ + 2²⁴ − 1): version (1) · count · count × (shared · suffixLength · suffix)
///     block n   (row id segment × 2²⁴ + n):       version (1) · entries of (shared · suffixLength · suffix ·
///                                                 dataLength · data) · restartCount × restart offset (UInt16 LE)
///                                                 · restartCount (UInt16 LE)
///
/// `shared` is the length of the prefix a term shares with the one before it; every `restartInterval`th entry of a
/// block (the first included) shares none and its offset is a restart, so a lookup binary-searches the restarts'
/// whole terms and scans at most `restartInterval` entries (the directory's entries share with the previous
/// block's first term). `data`
/// is the term's list (`PostingCodec`, first byte 1), or for a list longer than `LongLists.threshold` a reference
/// (`LongLists.marker`, then the list's number in the segment: its `postingData` row is segment × 2²⁴ + number), so
/// a whole segment is encoded before its id is known: on another core in a bulk load, on a snapshot in a merge.
/// Every read and write of these bytes goes through this type and `LongLists` (room for encryption at rest).
/// Decoding is total: damaged bytes throw `.corruptIndex`.
enum TermBlocks {
    static let tableSQL = "CREATE TABLE IF NOT EXISTS termBlock(id INTEGER PRIMARY KEY, data BLOB NOT NULL)"
    static let version: UInt8 = 1
    /// A block is closed before an entry would take it past this many bytes: a rowid table keeps a row of up to
    /// 4,061 bytes of payload (the blob and its record header) in its 4 KB page, so a block is one page.
    static let targetBytes = 4_050
    /// Every this many entries one shares no prefix with the entry before (a restart point, as in LevelDB's and
    /// RocksDB's blocks): a lookup binary-searches the restarts and scans at most this many entries.
    static let restartInterval = 16
    /// The directory's number within its segment's range of ids.
    static let directoryNumber: Int64 = (1 << 24) - 1
    /// Tests set it to write segments as format 10 did (`postings` rows), to make stores of that format.
    static let writesRows = Atomic<Bool>(false)

    static let damaged = EngineError(.corruptIndex, "a term block of the index is damaged")

    /// A segment's lists as blocks, ready to be written under the segment's id.
    struct Encoded: Sendable {
        var directory: [UInt8]
        var blocks: [[UInt8]]
        /// The lists too long for a block, by their number (`LongLists`).
        var longLists: [[UInt8]]
    }

    /// How many segments this process encoded as blocks (tests check that a path wrote some).
    static let encodings = Atomic<Int>(0)

    /// Encodes lists in UTF-8 byte order of their texts (`UTF8Order`).
    static func encode(_ lists: [SegmentMerger.EncodedList]) -> Encoded {
        encodings.add(1, ordering: .relaxed)
        var encoded = Encoded(directory: [version], blocks: [], longLists: [])
        var firsts: [[UInt8]] = []
        var block: [UInt8] = []
        var restarts: [Int] = []
        var entries = 0
        var previous: [UInt8] = []
        var entry: [UInt8] = []
        func close() {
            for restart in restarts { block += [UInt8(restart & 0xFF), UInt8(restart >> 8)] }
            block += [UInt8(restarts.count & 0xFF), UInt8(restarts.count >> 8)]
            encoded.blocks.append(block)
            block.removeAll(keepingCapacity: true)
            restarts.removeAll(keepingCapacity: true)
            entries = 0
        }
        for list in lists {
            let text = Array(list.text.utf8)
            var data = list.data
            if data.count > LongLists.threshold {
                // (Format 16: the list's count follows its number, so the vocabulary's walks count a long list's
                // postings without reading it.)
                var reference: [UInt8] = [LongLists.marker]
                PostingCodec.appendVarint(UInt64(encoded.longLists.count), to: &reference)
                PostingCodec.appendVarint(UInt64(list.count), to: &reference)
                encoded.longLists.append(data)
                data = reference
            }
            func append(shared: Int) {
                entry.removeAll(keepingCapacity: true)
                PostingCodec.appendVarint(UInt64(shared), to: &entry)
                PostingCodec.appendVarint(UInt64(text.count - shared), to: &entry)
                entry += text[shared...]
                PostingCodec.appendVarint(UInt64(data.count), to: &entry)
                entry += data
            }
            let restart = entries % restartInterval == 0
            append(shared: restart ? 0 : sharedPrefix(previous, text))
            // The block with this entry and its restarts' trailer (2 bytes each, and their count).
            if !block.isEmpty, block.count + entry.count + 2 * (restarts.count + (restart ? 1 : 0)) + 2 > targetBytes {
                close()
                append(shared: 0)
            }
            if block.isEmpty {
                block.append(version)
                firsts.append(text)
            }
            if entries % restartInterval == 0 {
                // (Below `targetBytes` by construction: a later entry is added only while the block fits.)
                restarts.append(block.count)
            }
            block += entry
            entries += 1
            previous = text
        }
        if !block.isEmpty { close() }
        PostingCodec.appendVarint(UInt64(firsts.count), to: &encoded.directory)
        var before: [UInt8] = []
        for first in firsts {
            let shared = sharedPrefix(before, first)
            PostingCodec.appendVarint(UInt64(shared), to: &encoded.directory)
            PostingCodec.appendVarint(UInt64(first.count - shared), to: &encoded.directory)
            encoded.directory += first[shared...]
            before = first
        }
        return encoded
    }

    /// Whether `a` sorts before `b` in byte order (`memcmp`, where `lexicographicallyPrecedes` steps through
    /// generic code).
    @inline(__always)
    static func precedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        let common = min(a.count, b.count)
        let order = common == 0 ? 0 : a.withUnsafeBytes { x in b.withUnsafeBytes { y in memcmp(x.baseAddress!, y.baseAddress!, common) } }
        return order != 0 ? order < 0 : a.count < b.count
    }

    private static func sharedPrefix(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var n = 0
        let limit = min(a.count, b.count)
        while n < limit, a[n] == b[n] { n += 1 }
        return n
    }

    /// Writes a segment's blocks, directory and long lists.
    static func insert(_ db: Database, segment: Int64, _ encoded: Encoded) throws {
        guard encoded.blocks.count < Int(directoryNumber), encoded.longLists.count < 1 << 24 else {
            throw EngineError(.corruptIndex, "a segment with more than 2^24 term blocks or long posting lists")
        }
        let insert = try db.cachedStatement(sql: "INSERT INTO termBlock(id, data) VALUES(?, ?)").sqliteStatement
        func write(_ number: Int64, _ bytes: [UInt8]) throws {
            try SegmentMerger.bindAndStep(db, insert) {
                sqlite3_bind_int64(insert, 1, segment << 24 | number)
                _ = bytes.withUnsafeBytes { sqlite3_bind_blob(insert, 2, $0.baseAddress, Int32($0.count), SQLITE_TRANSIENT) }
            }
        }
        for (number, list) in encoded.longLists.enumerated() {
            _ = try LongLists.store(list, segment: segment, number: number, db)
        }
        for (number, block) in encoded.blocks.enumerated() { try write(Int64(number), block) }
        try write(directoryNumber, encoded.directory)
    }

    /// Deletes a segment's blocks and directory (its long lists: `LongLists.delete`).
    static func delete(segment: Int64, _ db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM termBlock WHERE id >= ? AND id < ?")
            .execute(arguments: [segment << 24, (segment + 1) << 24])
    }

    /// Whether the store has the table (format 11; a store of an older format opened read-only has not).
    static func exists(_ db: Database) throws -> Bool {
        try db.tableExists("termBlock")
    }

    /// Calls `body` with an entry's list: the bytes in the block, or the long list they name.
    @inline(__always)
    static func withList<T>(_ db: Database, segment: Int64, _ data: UnsafeRawBufferPointer,
                            _ body: (PostingCodec.Reader) throws -> T) throws -> T {
        guard data[0] == LongLists.marker else { return try body(try PostingCodec.Reader(data)) }
        let (number, _) = try reference(data)
        return try LongLists.withList(db, id: segment << 24 | Int64(number), body)
    }

    /// A long list's reference: its number in the segment, and (format 16) its postings' count.
    static func reference(_ data: UnsafeRawBufferPointer) throws -> (number: UInt64, count: Int?) {
        var offset = 1
        let number = try PostingCodec.Reader.varint(data, &offset)
        guard number < 1 << 24 else { throw damaged }
        if offset == data.count { return (number, nil) }
        let count = try PostingCodec.Reader.varint(data, &offset)
        guard offset == data.count, count > 0, count <= 1 << 40 else { throw damaged }
        return (number, Int(count))
    }

    /// How many postings an entry's list holds: read from the list's head, or from a long list's reference (a
    /// reference written before format 16 has no count: the list's head is read).
    static func count(_ db: Database, segment: Int64, _ data: UnsafeRawBufferPointer) throws -> Int {
        guard data[0] == LongLists.marker else { return try PostingCodec.count(data) }
        let (number, count) = try reference(data)
        if let count { return count }
        return try LongLists.withList(db, id: segment << 24 | Int64(number)) { $0.count }
    }

    /// The data of the entry whose term is `target` in a block whose first term is `first`, or nil.
    static func find(_ target: [UInt8], in bytes: UnsafeRawBufferPointer, first: [UInt8]) throws -> UnsafeRawBufferPointer? {
        guard let found = try seek(target, in: bytes, first: first), found.isTarget else { return nil }
        return found.data
    }

    /// The first entry of a block (whose first term is `first`) whose term is at least `target`, if any: where it
    /// starts, whether it is `target`, its data, and how many of `target`'s bytes stand for the term before it (its
    /// shared prefix is no longer: `Entries.resume`).
    ///
    /// Lucene's scan of a block's leaf entries: it keeps how many bytes the entry before shares with `target`
    /// (`matched`; that entry sorts before `target`), so an entry sharing more than that with the one before sorts
    /// before `target` too and is skipped unread, and one sharing less sorts after it and ends the scan; only an
    /// entry sharing exactly `matched` bytes has its suffix compared. Point lookups (a query's words, typo
    /// tolerance's near terms) and the start of a prefix's range then cost about one pass over the block's bytes,
    /// where rebuilding each term made them several times a posting row's.
    static func seek(_ target: [UInt8], in bytes: UnsafeRawBufferPointer, first: [UInt8]) throws
        -> (start: Int, isTarget: Bool, data: UnsafeRawBufferPointer, previous: Int)? {
        let layout = try Layout(bytes)
        // A restart's entry holds its whole term: the first one is the directory's name for the block.
        func restartTerm(_ k: Int) throws -> UnsafeRawBufferPointer {
            var offset = layout.restart(k)
            guard try PostingCodec.Reader.varint(bytes, &offset) == 0 else { throw damaged }
            let length = try PostingCodec.Reader.varint(bytes, &offset)
            guard length <= UInt64(layout.end - offset) else { throw damaged }
            return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + Int(length))])
        }
        guard try restartTerm(0).elementsEqual(first) else { throw damaged }
        // The last restart whose term does not follow `target` (else the first).
        var low = 0, high = layout.restarts
        while low < high {
            let middle = (low + high) / 2
            if target.lexicographicallyPrecedes(try restartTerm(middle)) { high = middle } else { low = middle + 1 }
        }
        let from = max(0, low - 1)
        return try target.withUnsafeBufferPointer { target in
            var offset = layout.restart(from)
            var matched = 0
            var previousLength = 0
            var isFirst = true
            while offset < layout.end {
                let start = offset
                let shared = Int(try PostingCodec.Reader.varint(bytes, &offset))
                let suffix = try PostingCodec.Reader.varint(bytes, &offset)
                guard shared <= previousLength, suffix <= UInt64(layout.end - offset) else { throw damaged }
                let suffixStart = offset
                offset += Int(suffix)
                let length = try PostingCodec.Reader.varint(bytes, &offset)
                guard length > 0, length <= UInt64(layout.end - offset) else { throw damaged }
                let data = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + Int(length))])
                offset += Int(length)
                let termLength = shared + Int(suffix)
                if isFirst {
                    isFirst = false
                } else if shared > matched {
                    previousLength = termLength
                    continue
                } else if shared < matched {
                    return (start, false, data, matched)
                }
                var i = 0
                while i < Int(suffix), matched + i < target.count, bytes[suffixStart + i] == target[matched + i] { i += 1 }
                if i == Int(suffix) {
                    if termLength == target.count { return (start, true, data, matched) }
                } else if matched + i == target.count || bytes[suffixStart + i] > target[matched + i] {
                    return (start, false, data, matched)
                }
                matched += i
                previousLength = termLength
            }
            return nil
        }
    }

    /// Where a block's entries end and its restarts are (the trailer checked once).
    struct Layout {
        let bytes: UnsafeRawBufferPointer
        /// Where the entries end (the restarts' trailer starts).
        let end: Int
        let restarts: Int

        init(_ bytes: UnsafeRawBufferPointer) throws {
            guard bytes.count >= 4, bytes[0] == TermBlocks.version else { throw TermBlocks.damaged }
            let restarts = Int(bytes[bytes.count - 2]) | Int(bytes[bytes.count - 1]) << 8
            guard restarts > 0, 1 + 2 * restarts + 2 <= bytes.count else { throw TermBlocks.damaged }
            self.bytes = bytes
            self.restarts = restarts
            end = bytes.count - 2 - 2 * restarts
            var previous = 0
            for k in 0..<restarts {
                let offset = Int(bytes[end + 2 * k]) | Int(bytes[end + 2 * k + 1]) << 8
                // In order, the first at the first entry, each inside the entries.
                guard k == 0 ? offset == 1 : offset > previous, offset < end else { throw TermBlocks.damaged }
                previous = offset
            }
        }

        @inline(__always)
        func restart(_ k: Int) -> Int {
            Int(bytes[end + 2 * k]) | Int(bytes[end + 2 * k + 1]) << 8
        }
    }

    /// Steps through the entries of one block (bytes it does not own).
    struct Entries {
        let bytes: UnsafeRawBufferPointer
        /// Where the entries end (`Layout`).
        private let end: Int
        private var offset = 1
        /// The current entry's term.
        private(set) var term: [UInt8] = []
        /// The current entry's data (`withList`).
        private(set) var data: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)

        init(_ bytes: UnsafeRawBufferPointer) throws {
            self.bytes = bytes
            end = try Layout(bytes).end
        }

        /// Over a block whose layout was checked already (`Layout(bytes).end`): a cursor stepping one entry at a
        /// time does not check its restarts again for every term.
        init(_ bytes: UnsafeRawBufferPointer, end: Int) {
            self.bytes = bytes
            self.end = end
        }

        /// Where the next entry starts.
        var position: Int { offset }

        /// Continues from a position `position` gave, after the entry whose term is `term`.
        mutating func resume(at position: Int, term: [UInt8]) throws {
            guard position >= 1, position <= end else { throw TermBlocks.damaged }
            offset = position
            self.term = term
        }

        /// Moves to the next entry; false at the block's end.
        @inline(__always)
        mutating func next() throws -> Bool {
            guard offset < end else { return false }
            let shared = try PostingCodec.Reader.varint(bytes, &offset)
            let suffix = try PostingCodec.Reader.varint(bytes, &offset)
            guard shared <= UInt64(term.count), suffix <= UInt64(end - offset) else { throw TermBlocks.damaged }
            term.removeLast(term.count - Int(shared))
            term.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + Int(suffix))]))
            offset += Int(suffix)
            let length = try PostingCodec.Reader.varint(bytes, &offset)
            guard length > 0, length <= UInt64(end - offset) else { throw TermBlocks.damaged }
            data = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + Int(length))])
            offset += Int(length)
            return true
        }
    }
}

/// A segment stored as term blocks (`TermBlocks`): its id and the first term of each block, decoded once per
/// process and kept by the segment's random token (segments are immutable).
final class BlockedSegment: Sendable {
    let id: Int64
    /// The segment's random token (`segment.token`): what caches of its immutable contents are keyed by.
    let token: Int64
    let firsts: [[UInt8]]

    init(id: Int64, token: Int64 = 0, directory: UnsafeRawBufferPointer) throws {
        var offset = 0
        guard directory.count >= 2, directory[0] == TermBlocks.version else { throw TermBlocks.damaged }
        offset = 1
        let count = try PostingCodec.Reader.varint(directory, &offset)
        guard count > 0, count <= UInt64(directory.count) else { throw TermBlocks.damaged }
        var firsts: [[UInt8]] = []
        firsts.reserveCapacity(Int(count))
        var term: [UInt8] = []
        for _ in 0..<Int(count) {
            let shared = try PostingCodec.Reader.varint(directory, &offset)
            let suffix = try PostingCodec.Reader.varint(directory, &offset)
            guard shared <= UInt64(term.count), suffix <= UInt64(directory.count - offset) else { throw TermBlocks.damaged }
            term.removeLast(term.count - Int(shared))
            term.append(contentsOf: UnsafeRawBufferPointer(rebasing: directory[offset..<(offset + Int(suffix))]))
            offset += Int(suffix)
            if let last = firsts.last, !last.lexicographicallyPrecedes(term) { throw TermBlocks.damaged }
            firsts.append(term)
        }
        guard offset == directory.count else { throw TermBlocks.damaged }
        self.id = id
        self.token = token
        self.firsts = firsts
    }

    /// The first block that may hold `text` or terms after it: the last whose first term does not follow it.
    func block(from text: [UInt8]) -> Int {
        var low = 0, high = firsts.count
        while low < high {
            let middle = (low + high) / 2
            if TermBlocks.precedes(text, firsts[middle]) { high = middle } else { low = middle + 1 }
        }
        return max(0, low - 1)
    }

    /// Calls `body` with the list of the term `text`, if the segment has it: one block read, scanned without
    /// rebuilding its terms (`TermBlocks.find`).
    func withList(_ db: Database, text: [UInt8], _ body: (PostingCodec.Reader) throws -> Void) throws {
        let number = block(from: text)
        try withBlock(db, number) { bytes in
            guard let data = try TermBlocks.find(text, in: bytes, first: firsts[number]) else { return }
            try TermBlocks.withList(db, segment: id, data, body)
        }
    }

    /// Calls `body` with the bytes of block `number` (valid inside `body` only); a missing block is damage.
    private func withBlock(_ db: Database, _ number: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let sql = "SELECT data FROM termBlock WHERE id = ?"
        let cached = try db.cachedStatement(sql: sql)
        // A fresh statement when the cached one is in use (a read inside another segment's).
        let statement = sqlite3_stmt_busy(cached.sqliteStatement) != 0 ? try db.makeStatement(sql: sql) : cached
        var found = false
        try withExtendedLifetime(statement) {
            try IndexStore.forEachRawRow(db, statement, int64: id << 24 | Int64(number)) { h in
                found = true
                try body(try PostingStore.blob(h, column: 0))
            }
        }
        guard found else { throw TermBlocks.damaged }
    }

    /// Calls `body` with each list of a term in `[low, high)` (byte order), in order, and whether it is `low`.
    func forEachList(_ db: Database, from low: [UInt8], below high: [UInt8],
                     _ body: (Bool, PostingCodec.Reader) throws -> Void) throws {
        try forEachEntry(db, from: low, below: high) { term, data in
            // (Worked out before the list's closure, which then captures no array: retained around every list.)
            let exact = term.count == low.count && !TermBlocks.precedes(low, term)
            try TermBlocks.withList(db, segment: id, data) { try body(exact, $0) }
        }
    }

    /// How many postings the segment holds for `text` (0 when it has no such term), read from its entry without
    /// decoding the list (`TermBlocks.count`).
    func count(_ db: Database, text: [UInt8]) throws -> Int {
        let number = block(from: text)
        var count = 0
        try withBlock(db, number) { bytes in
            guard let data = try TermBlocks.find(text, in: bytes, first: firsts[number]) else { return }
            count = try TermBlocks.count(db, segment: id, data)
        }
        return count
    }

    /// Calls `body` with each term that is one of `keys` (`exact`) or starts with one (sorted in byte order), with
    /// the key's index and the postings its list holds: the keys that fall in one block read it once, and a key
    /// no term has costs a seek in that block. (Typo tolerance's first-letter spellings, ~74 per word: a range read
    /// per spelling and segment was a quarter of a one-typo search on PyPI's four large segments.)
    func forEachTerm(matching keys: [[UInt8]], exact: Bool, _ db: Database,
                     _ body: (Int, UnsafeRawBufferPointer, Int) throws -> Void) throws {
        var k = 0
        while k < keys.count {
            let number = block(from: keys[k])
            var end = k + 1
            while end < keys.count, block(from: keys[end]) == number { end += 1 }
            // Keys whose terms may go on into the next block: read there as a range.
            var spilling: [Int] = []
            try withBlock(db, number) { bytes in
                let layout = try TermBlocks.Layout(bytes)
                for index in k..<end {
                    let key = keys[index]
                    guard let start = try TermBlocks.seek(key, in: bytes, first: firsts[number]) else {
                        // Past the block's last term: the next block's first may start with the key.
                        if !exact, number + 1 < firsts.count, firsts[number + 1].starts(with: key) { spilling.append(index) }
                        continue
                    }
                    if exact {
                        if start.isTarget {
                            try body(index, UnsafeRawBufferPointer(start: nil, count: 0), try TermBlocks.count(db, segment: id, start.data))
                        }
                        continue
                    }
                    var entries = TermBlocks.Entries(bytes, end: layout.end)
                    try entries.resume(at: start.start, term: Array(key[0..<start.previous]))
                    var reachedEnd = true
                    while try entries.next() {
                        guard entries.term.starts(with: key) else { reachedEnd = false; break }
                        let count = try TermBlocks.count(db, segment: id, entries.data)
                        try entries.term.withUnsafeBytes { try body(index, $0, count) }
                    }
                    if reachedEnd, number + 1 < firsts.count, firsts[number + 1].starts(with: key) { spilling.append(index) }
                }
            }
            for index in spilling {
                // (From the next block on: this one's terms were visited.)
                let from = firsts[number + 1]
                try forEachTerm(db, from: from, below: keys[index] + Typos.SpanWalk.beyond) { try body(index, $0, $1) }
            }
            k = end
        }
    }

    /// Calls `body` with each term in `[low, high)` (byte order) and how many postings its list holds, in order.
    func forEachTerm(_ db: Database, from low: [UInt8], below high: [UInt8],
                     _ body: (UnsafeRawBufferPointer, Int) throws -> Void) throws {
        try forEachEntry(db, from: low, below: high) { term, data in
            let count = try TermBlocks.count(db, segment: id, data)
            try term.withUnsafeBytes { try body($0, count) }
        }
    }

    /// Calls `visit` with each entry whose term is in `[low, high)`, in order. The first block is entered where
    /// `low` would be (`TermBlocks.seek`); the blocks after it start past `low`.
    private func forEachEntry(_ db: Database, from low: [UInt8], below high: [UInt8],
                              _ visit: ([UInt8], UnsafeRawBufferPointer) throws -> Void) throws {
        let first = block(from: low)
        // The last block whose first term is below `high`.
        var a = first, b = firsts.count
        while a < b {
            let middle = (a + b) / 2
            if TermBlocks.precedes(firsts[middle], high) { a = middle + 1 } else { b = middle }
        }
        let last = a - 1
        guard last >= first else { return }
        let sql = "SELECT id, data FROM termBlock WHERE id >= ? AND id <= ? ORDER BY id"
        let cached = try db.cachedStatement(sql: sql)
        // A fresh statement when the cached one is in use (a read inside another segment's).
        let statement = sqlite3_stmt_busy(cached.sqliteStatement) != 0 ? try db.makeStatement(sql: sql) : cached
        var number = first
        var stopped = false
        try withExtendedLifetime(statement) {
            try IndexStore.forEachRawRow(db, statement, [id << 24 | Int64(first), id << 24 | Int64(last)]) { h in
                guard !stopped else { return }
                guard sqlite3_column_int64(h, 0) == id << 24 | Int64(number) else { throw TermBlocks.damaged }
                defer { number += 1 }
                let bytes = try PostingStore.blob(h, column: 1)
                var entries = try TermBlocks.Entries(bytes)
                if number == first {
                    guard let start = try TermBlocks.seek(low, in: bytes, first: firsts[number]) else { return }
                    try entries.resume(at: start.start, term: Array(low[0..<start.previous]))
                    guard try entries.next() else { throw TermBlocks.damaged }
                } else {
                    guard try entries.next(), entries.term == firsts[number] else { throw TermBlocks.damaged }
                }
                repeat {
                    if !TermBlocks.precedes(entries.term, high) {
                        stopped = true
                        return
                    }
                    try visit(entries.term, entries.data)
                } while try entries.next()
            }
        }
        guard stopped || number == last + 1 else { throw TermBlocks.damaged }
    }

    private static let cache = SegmentCache<BlockedSegment>()

    /// The segments `db` sees, in id order: those stored as posting rows (format 10 and before: their ids) and
    /// those stored as term blocks, decoded (from the cache when another read already did).
    static func current(_ db: Database) throws -> (rows: [Int64], blocked: [BlockedSegment]) {
        guard try TermBlocks.exists(db) else { return (try PostingStore.allRowSegments(db), []) }
        var rows: [Int64] = []
        var found: [(id: Int64, token: Int64)] = []
        let statement = try db.cachedStatement(sql: """
            SELECT id, token, EXISTS(SELECT 1 FROM termBlock WHERE termBlock.id = (segment.id << 24) + \(TermBlocks.directoryNumber))
            FROM segment WHERE packed IS NULL ORDER BY id
            """)
        try IndexStore.forEachRawRow(db, statement, []) { h in
            let id = sqlite3_column_int64(h, 0)
            if sqlite3_column_int64(h, 2) != 0 {
                found.append((id, sqlite3_column_int64(h, 1)))
            } else {
                rows.append(id)
            }
        }
        if found.isEmpty { return (rows, []) }
        let cached = cache.cached(found.map(\.token))
        var blocked: [BlockedSegment] = []
        var built: [Int64: BlockedSegment] = [:]
        let directory = try db.cachedStatement(sql: "SELECT data FROM termBlock WHERE id = ?")
        for (segment, cached) in zip(found, cached) {
            if let cached, cached.id == segment.id { blocked.append(cached); continue }
            try IndexStore.forEachRawRow(db, directory, [segment.id << 24 | TermBlocks.directoryNumber]) { h in
                let decoded = try BlockedSegment(id: segment.id, token: segment.token,
                                                 directory: try PostingStore.blob(h, column: 0))
                built[segment.token] = decoded
                blocked.append(decoded)
            }
        }
        cache.add(built, current: found.map(\.token), db: db)
        return (rows, blocked)
    }
}

/// Steps through one segment's terms in byte order, with their lists, for a merge: a format 10 segment's posting
/// rows, or a segment's term blocks.
final class TermCursor {
    private enum Source {
        case rows
        case blocks(segment: Int64)
    }

    private let db: Database
    private let statement: Statement
    private let source: Source
    /// The current term; nil past the end.
    private(set) var text: [UInt8]?
    /// The current block (a copy: the statement moves on) and the position in it.
    private var block: [UInt8] = []
    private var offset = 0
    private var blockEnd = 0
    private var blockTerm: [UInt8] = []
    private var data: Range<Int> = 0..<0
    private var nextBlock: Int64 = 0

    init(_ db: Database, rowSegment segment: Int64) throws {
        self.db = db
        source = .rows
        statement = try db.makeStatement(sql: "SELECT text, data FROM postings WHERE segment = ? ORDER BY text")
        try statement.setArguments([segment])
        try step()
    }

    init(_ db: Database, blockedSegment segment: Int64) throws {
        self.db = db
        source = .blocks(segment: segment)
        statement = try db.makeStatement(sql: "SELECT id, data FROM termBlock WHERE id >= ? AND id < ? ORDER BY id")
        try statement.setArguments([segment << 24, segment << 24 | TermBlocks.directoryNumber])
        try step()
    }

    deinit { sqlite3_reset(statement.sqliteStatement) }

    /// Steps the statement: true with a row.
    private func stepStatement() throws -> Bool {
        let h = statement.sqliteStatement
        switch sqlite3_step(h) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            throw IndexStore.stepError(db, code)
        }
    }

    /// Moves to the next term.
    func step() throws {
        let h = statement.sqliteStatement
        switch source {
        case .rows:
            text = try stepStatement()
                ? Array(UnsafeBufferPointer(start: sqlite3_column_text(h, 0), count: Int(sqlite3_column_bytes(h, 0)))) : nil
        case .blocks(let segment):
            while true {
                if offset < blockEnd {
                    try block.withUnsafeBytes { bytes in
                        var entries = TermBlocks.Entries(bytes, end: blockEnd)
                        try entries.resume(at: offset, term: blockTerm)
                        guard try entries.next() else { return }
                        blockTerm = entries.term
                        offset = entries.position
                        data = (entries.data.baseAddress! - bytes.baseAddress!) ..< (entries.data.baseAddress! - bytes.baseAddress! + entries.data.count)
                    }
                    text = blockTerm
                    return
                }
                guard try stepStatement() else {
                    text = nil
                    return
                }
                guard sqlite3_column_int64(h, 0) == segment << 24 | nextBlock else { throw TermBlocks.damaged }
                nextBlock += 1
                block = Array(try PostingStore.blob(h, column: 1))
                blockEnd = try block.withUnsafeBytes { try TermBlocks.Layout($0).end }
                offset = 1
                blockTerm = []
            }
        }
    }

    /// Calls `body` with the current term's list.
    func withList<T>(_ body: (PostingCodec.Reader) throws -> T) throws -> T {
        switch source {
        case .rows:
            return try PostingStore.withReader(db, statement.sqliteStatement, column: 1, body)
        case .blocks(let segment):
            return try block.withUnsafeBytes { bytes in
                try TermBlocks.withList(db, segment: segment, UnsafeRawBufferPointer(rebasing: bytes[data]), body)
            }
        }
    }
}
