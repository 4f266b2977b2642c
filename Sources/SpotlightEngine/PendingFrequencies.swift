import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// The document-frequency decrements of small writes, kept as one row per write and applied to the vocabulary later
/// (format 10).
///
/// Deleting or replacing an item lowers the document frequency (`term.df`) of each of its terms: ~60 rows of the
/// vocabulary for a Debian package, spread over as many of its pages, so a single delete wrote ~60 pages to the WAL
/// (64 frames at the 90th percentile, against 19 without them) and brought the checkpoints that many times sooner.
/// Now a write that leaves its prefix-list changes pending (`PendingPrefixes`, a small write) records its net
/// decrements as one row of `dfPending(seq, terms)` (a page or two), and
///
/// - the maintenance applies them once writes have paused (`IndexStore.listPause`), or at once when `catchUpRows`
///   wait, in short write transactions (`IndexStore.applyPendingFrequencies`);
/// - a write that would leave more than `limit` rows waiting updates the vocabulary itself.
///
/// Increments are never left pending: a term's stored frequency is then never below its true one, so every SQL
/// condition `df > 0` names a superset of the live terms (a term only dead postings hold reads nothing more).
/// Whatever depends on the exact figure (typo tolerance's threshold, completions and corrections with their counts,
/// `documentFrequency(of:)`) subtracts the pending decrements (`FrequencyDeltas`), read once per change of the
/// rows and kept up to date row by row: results stay what they were with the vocabulary updated at once.
///
/// Rows are only ever deleted oldest first (applied) or all together (`deleteAll`), and `seq` is AUTOINCREMENT, so a
/// number is never used twice and the rows waiting are the run `min(seq)...max(seq)`.
enum PendingFrequencies {
    static let tableSQL = """
        CREATE TABLE IF NOT EXISTS dfPending(seq INTEGER PRIMARY KEY AUTOINCREMENT, terms BLOB NOT NULL)
        """

    /// The most rows waiting: a write that would go past it updates the vocabulary itself.
    static let limit = 2_048
    /// With this many rows waiting, the maintenance applies them without waiting for writes to pause.
    static let catchUpRows = 1_024
    /// The rows the maintenance applies at a time, and for how long (seconds) it goes on in one write transaction:
    /// a write that comes meanwhile waits for one such slice. A row is ~60 updates of the vocabulary.
    static let catchUpChunk = 8
    static let catchUpSlice = 0.002

    /// The first and last waiting row, or nil when none waits (or a store of an earlier format, opened read-only,
    /// has no table).
    static func range(_ db: Database) throws -> (first: Int64, last: Int64)? {
        guard try db.tableExists("dfPending") else { return nil }
        let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT (SELECT min(seq) FROM dfPending), (SELECT max(seq) FROM dfPending)
            """))
        guard let row, let first = row[0] as Int64?, let last = row[1] as Int64? else { return nil }
        return (first, last)
    }

    /// The number of rows waiting.
    static func count(_ db: Database) throws -> Int {
        guard let range = try range(db) else { return 0 }
        return Int(range.last - range.first + 1)
    }

    /// Records one write's decrements (term → how much its frequency goes down).
    static func record(_ decrements: [(term: String, count: Int)], db: Database) throws {
        guard !decrements.isEmpty else { return }
        try db.cachedStatement(sql: "INSERT INTO dfPending(terms) VALUES(?)").execute(arguments: [Data(encode(decrements))])
    }

    /// Each term as its UTF-8 length (varint) and bytes, then its decrement (varint).
    static func encode(_ decrements: [(term: String, count: Int)]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(decrements.count * 10)
        for (term, count) in decrements where count > 0 {
            ValueCodec.writeVarint(UInt64(term.utf8.count), to: &bytes)
            bytes.append(contentsOf: term.utf8)
            ValueCodec.writeVarint(UInt64(count), to: &bytes)
        }
        return bytes
    }

    /// The decrements of one row. Damaged bytes (a length past the end, a count out of range) are `.corruptIndex`.
    static func decode(_ raw: UnsafeRawBufferPointer) throws -> [(term: String, count: Int)] {
        var result: [(term: String, count: Int)] = []
        var offset = 0
        func damaged() -> EngineError { EngineError(.corruptIndex, "a pending document-frequency row is damaged") }
        while offset < raw.count {
            guard let length = try? PostingCodec.Reader.varint(raw, &offset), length <= UInt64(raw.count - offset) else {
                throw damaged()
            }
            let term = String(decoding: UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + Int(length))]), as: UTF8.self)
            offset += Int(length)
            guard let count = try? PostingCodec.Reader.varint(raw, &offset), count <= UInt64(Int32.max) else { throw damaged() }
            result.append((term, Int(count)))
        }
        return result
    }

    /// The rows `first...last`, in order.
    static func rows(_ db: Database, from first: Int64, through last: Int64) throws -> [FrequencyDeltas.Row] {
        var rows: [FrequencyDeltas.Row] = []
        try IndexStore.forEachRawRow(db, db.cachedStatement(sql: """
            SELECT seq, terms FROM dfPending WHERE seq >= ? AND seq <= ? ORDER BY seq
            """), [first, last]) { h in
            rows.append(.init(seq: try RawColumn.integer(h, 0), decrements: try decode(try RawColumn.bytes(h, 1))))
        }
        return rows
    }

    /// Applies the oldest `limit` rows to the vocabulary and deletes them, in the caller's write transaction;
    /// returns how many there were.
    @discardableResult
    static func apply(_ db: Database, limit: Int) throws -> Int {
        guard let range = try range(db) else { return 0 }
        let last = min(range.last, range.first + Int64(max(limit, 1)) - 1)
        let rows = try rows(db, from: range.first, through: last)
        var total: [String: Int] = [:]
        for row in rows {
            for (term, count) in row.decrements { total[term, default: 0] += count }
        }
        let update = try db.cachedStatement(sql: "UPDATE term SET df = max(0, df - ?) WHERE text = ?")
        // In text order: neighbouring terms share pages.
        for (term, count) in total.sorted(by: { $0.key < $1.key }) {
            try update.execute(arguments: [count, term])
        }
        try db.cachedStatement(sql: "DELETE FROM dfPending WHERE seq <= ?").execute(arguments: [last])
        return rows.count
    }
}

/// The decrements waiting in `dfPending` as of one snapshot: what readers subtract from a stored document frequency.
struct FrequencyDeltas: Sendable {
    struct Row: Sendable {
        var seq: Int64
        var decrements: [(term: String, count: Int)]
    }

    static let empty = FrequencyDeltas()

    /// The rows these deltas hold (`first...last`), in order.
    private(set) var rows: [Row] = []
    /// The total decrement of each term, by the term's first UTF-8 byte (a prefix's sum reads one bucket).
    private var buckets: [UInt8: [String: Int]] = [:]

    var isEmpty: Bool { rows.isEmpty }
    var first: Int64? { rows.first?.seq }
    var last: Int64? { rows.last?.seq }

    /// How much `term`'s stored frequency is above its true one.
    func decrement(of term: String) -> Int {
        guard !rows.isEmpty, let byte = term.utf8.first else { return 0 }
        return buckets[byte]?[term] ?? 0
    }

    /// How much the stored frequencies of the terms starting with `prefix` are above their true ones, together.
    func decrement(ofPrefix prefix: String) -> Int {
        guard !rows.isEmpty, let byte = prefix.utf8.first, let bucket = buckets[byte] else { return 0 }
        var sum = 0
        for (term, count) in bucket where term.hasPrefix(prefix) { sum += count }
        return sum
    }

    /// How many terms starting with `prefix` have decrements.
    func terms(withPrefix prefix: String) -> Int {
        guard !rows.isEmpty, let byte = prefix.utf8.first, let bucket = buckets[byte] else { return 0 }
        return bucket.keys.reduce(0) { $0 + ($1.hasPrefix(prefix) ? 1 : 0) }
    }

    /// A stored frequency made true.
    func adjusted(_ stored: Int, of term: String) -> Int {
        max(0, stored - decrement(of: term))
    }

    mutating func add(_ row: Row) {
        rows.append(row)
        for (term, count) in row.decrements {
            guard let byte = term.utf8.first else { continue }
            buckets[byte, default: [:]][term, default: 0] += count
        }
    }

    /// Drops the rows before `seq` (applied since).
    mutating func drop(before seq: Int64) {
        let gone = rows.prefix { $0.seq < seq }
        guard !gone.isEmpty else { return }
        for row in gone {
            for (term, count) in row.decrements {
                guard let byte = term.utf8.first, let current = buckets[byte]?[term] else { continue }
                buckets[byte]![term] = current - count > 0 ? current - count : nil
            }
        }
        rows.removeFirst(gone.count)
    }
}

/// A store's pending decrements as last read (`IndexStore.frequencyDeltas`), brought up to date row by row.
final class FrequencyDeltasCache: Sendable {
    private let cached = Mutex<FrequencyDeltas?>(nil)

    /// The deltas as of the snapshot `db` reads.
    func deltas(_ db: Database) throws -> FrequencyDeltas {
        guard let range = try PendingFrequencies.range(db) else { return .empty }
        // Up to date: returned as it is. Else taken out of the cache while it is brought up to date, so that it is
        // changed in place rather than copied whole (a reader meanwhile reads its rows afresh).
        let (taken, current) = cached.withLock { cached -> (FrequencyDeltas?, Bool) in
            if let deltas = cached, deltas.first == range.first, deltas.last == range.last { return (deltas, true) }
            defer { cached = nil }
            return (cached, false)
        }
        if current, let taken { return taken }
        var deltas = taken ?? .empty
        // Rows are immutable and their numbers never reused: rows applied since are dropped, newer ones read.
        // A snapshot older than the cache's (another reader's) reads its rows afresh.
        if let last = deltas.last, last <= range.last, let first = deltas.first, first <= range.first {
            deltas.drop(before: range.first)
            for row in try PendingFrequencies.rows(db, from: max(last + 1, range.first), through: range.last) { deltas.add(row) }
        } else {
            deltas = .empty
            for row in try PendingFrequencies.rows(db, from: range.first, through: range.last) { deltas.add(row) }
        }
        cached.withLock { $0 = deltas }
        return deltas
    }
}
