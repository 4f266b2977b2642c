import Foundation
import GRDB
import GRDBSQLite

/// The prefix-list changes of small writes, kept as rows and applied to the lists later (format 9).
///
/// Keeping the lists (`PrefixLists`) up to date was half of a single write's transaction: one item offers itself
/// to ~150 lists of its words' prefixes (Debian), and an update also takes its old version out of them, so each
/// write read ~150 lists to find that most stay as they are. Now a write of at most `smallWrite` items (an update
/// counts twice: its old version leaves, its new one comes) records what each item brings instead, one row per item
/// in `prefixPending(seq, item, removed, at, terms)`: the item id, whether it left or came, the write's time (a list
/// key's recency is computed as of then, as the write would have: recency only decays, so the key stays an upper
/// bound for any later search), and its free-text terms with their best tier (`encode`). The lists are brought up
/// to date by
///
/// - the maintenance, once writes have paused (`IndexStore.listPause`), or at once when `catchUpRows` are waiting
///   (`IndexStore.catchUpPrefixLists`);
/// - a large write (one that prepares its items on every core, `PreparedUpsert`): it takes every pending row with it
///   (`drain`), as it reads most lists anyway.
///
/// A small write that would leave more than `limit` rows waiting updates the lists itself, as a larger write does.
///
/// Searches stay exact meanwhile. An item that left is skipped wherever a list still names it (it has no row), and
/// taking an item out of a list never breaks a list's promise (every item outside an incomplete list scores at most
/// its last key). An item that came and is not in the lists yet is scored as one more entry of the list, its key
/// computed from its pending terms as a list would (`PendingItem.key`): `IndexStore.searchShortPrefix` merges them.
enum PendingPrefixes {
    static let tableSQL = """
        CREATE TABLE IF NOT EXISTS prefixPending(
            seq INTEGER PRIMARY KEY, item INTEGER NOT NULL, removed INTEGER NOT NULL, at REAL NOT NULL,
            terms BLOB NOT NULL)
        """

    /// A write that changes the lists of at most this many items (rows) leaves the changes pending.
    static let smallWrite = 64
    /// The most rows waiting: a write that would go past it updates the lists itself (searches go through every
    /// waiting row).
    static let limit = 2_048
    /// With this many rows waiting, the maintenance applies them without waiting for writes to pause. Below it, a
    /// burst of small writes (each a commit of about a millisecond without the lists) is not slowed by the
    /// catch-up's slices.
    static let catchUpRows = 1_024
    /// The rows the maintenance applies at a time, and for how long (seconds) it goes on in one write transaction
    /// (`IndexStore.catchUpPrefixLists`): a write that comes meanwhile waits for one such slice. A row costs about a
    /// millisecond (Debian: an item's ~150 lists are read, and those it enters written).
    static let catchUpChunk = 2
    static let catchUpSlice = 0.002

    /// One item's change, recorded by a small write.
    struct Change {
        var item: Int64
        var removed: Bool
        var terms: [String: UInt8]
        /// What the transaction knows of an item that came, for when it updates the lists after all.
        var added: (uid: String, name: NameSignals, hintPoints: Double)? = nil
    }

    /// The number of rows waiting. They are only ever deleted all at once, so their sequence numbers are one run
    /// (two B-tree probes, not a count).
    static func count(_ db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT coalesce(max(seq) - min(seq) + 1, 0) FROM prefixPending")) ?? 0
    }

    /// Records a write's changes; `now` is the write's time.
    static func record(_ changes: [Change], now: Date, db: Database) throws {
        guard !changes.isEmpty else { return }
        let insert = try db.cachedStatement(sql: "INSERT INTO prefixPending(item, removed, at, terms) VALUES(?, ?, ?, ?)")
        for change in changes {
            try insert.execute(arguments: [change.item, change.removed, now.timeIntervalSinceReferenceDate, Data(encode(change.terms))])
        }
    }

    /// Moves the oldest `limit` waiting rows (all by default) into `changes`, in the order they were written, and
    /// deletes them. An item that came and is gone again is not added (its row is gone: the row of its leaving
    /// follows).
    /// Keys are computed as of each row's write, or `now` if that is earlier. Returns the earliest time used (`now`
    /// when there were no rows): the time to apply the changes as of (a list refilled then gets keys no lower);
    /// and the latest (nil when no item came), which the lists note (`PrefixLists.noteKeys`).
    @discardableResult
    static func drain(into changes: inout PrefixLists.Changes, db: Database, now: Date,
                      limit: Int = -1) throws -> (earliest: Date, latest: Date?) {
        var earliest = now
        var latest: Date? = nil
        let rows = try db.cachedStatement(sql: "SELECT item, removed, terms, seq, at FROM prefixPending ORDER BY seq LIMIT ?")
        let catalog = ItemCatalog(db)
        var added: [(item: Int64, terms: [String: UInt8], at: Double?)] = []
        var last: Int64? = nil
        try IndexStore.forEachRawRow(db, rows, [limit]) { h in
            last = try RawColumn.integer(h, 3)
            let item = try RawColumn.integer(h, 0)
            let terms = decodeTerms(try RawColumn.bytes(h, 2))
            if try RawColumn.integer(h, 1) != 0 {
                changes.remove(item: item, terms: terms)
            } else {
                added.append((item, terms, try RawColumn.real(h, 4)))
            }
        }
        // The items' signals are read once the pending rows are (an item gone since has none: its coming is moot).
        for (item, terms, written) in added {
            guard let signals = try catalog.signals(of: item) else { continue }
            let at = min(now, Date(timeIntervalSinceReferenceDate: written ?? now.timeIntervalSinceReferenceDate))
            earliest = min(earliest, at)
            latest = max(latest ?? at, at)
            let hintPoints = Ranking.hintPoints(signals.hint) + Ranking.recencyPoints(lastUsed: signals.lastUsed, now: at)
            changes.add(item: item, uid: signals.uid, terms: terms, name: signals.name, hintPoints: hintPoints)
        }
        if let last { try db.cachedStatement(sql: "DELETE FROM prefixPending WHERE seq <= ?").execute(arguments: [last]) }
        return (earliest, latest)
    }

    /// An item whose coming is pending, as a search reads it.
    struct PendingItem: Sendable {
        var item: Int64
        var uid: String
        var name: NameSignals
        var hint: Double?
        var lastUsed: Double?
        /// Its terms' UTF-8 bytes, one after another, and where each ends, with the term's best tier.
        var bytes: [UInt8]
        var ends: [(end: Int32, tier: UInt8)]

        /// The list key this item would have in the list of `prefix` (as `PrefixLists.refill` computes it), or nil
        /// when no term of it starts with `prefix`.
        func key(for prefix: [UInt8], prefixText: String, prefixHash: UInt64, now: Date) -> Double? {
            var best: Double = -1
            var start = 0
            bytes.withUnsafeBufferPointer { buffer in
                for (end, tier) in ends {
                    let length = Int(end) - start
                    defer { start = Int(end) }
                    guard length >= prefix.count else { continue }
                    var matches = true
                    for i in 0..<prefix.count where buffer[start + i] != prefix[i] {
                        matches = false
                        break
                    }
                    guard matches else { continue }
                    let kind: RankingExplanation.MatchKind = length == prefix.count ? .exact : .prefix
                    best = max(best, Ranking.tierWeights[Int(tier)] * Ranking.kindFactor(kind))
                }
            }
            guard best >= 0 else { return nil }
            return PrefixLists.key(points: best, prefix: prefixText, prefixHash: prefixHash, name: name, hint: hint,
                                   lastUsed: lastUsed, now: now)
        }
    }

    /// The items whose coming is pending and that are still there. A store of a format before 9 (opened read-only)
    /// has none.
    static func items(_ db: Database) throws -> [PendingItem] {
        guard try db.tableExists("prefixPending") else { return [] }
        let rows = try db.cachedStatement(sql: "SELECT item, terms FROM prefixPending WHERE removed = 0")
        var pending: [(item: Int64, bytes: [UInt8], ends: [(end: Int32, tier: UInt8)])] = []
        try IndexStore.forEachRawRow(db, rows, []) { h in
            var bytes: [UInt8] = []
            var ends: [(end: Int32, tier: UInt8)] = []
            forEachTerm(try RawColumn.bytes(h, 1)) { term, tier in
                bytes.append(contentsOf: term)
                ends.append((Int32(bytes.count), tier))
            }
            pending.append((try RawColumn.integer(h, 0), bytes, ends))
        }
        let catalog = ItemCatalog(db)
        return try pending.compactMap { item, bytes, ends in
            guard let signals = try catalog.signals(of: item) else { return nil }
            return PendingItem(item: item, uid: signals.uid, name: signals.name, hint: signals.hint,
                               lastUsed: signals.lastUsed, bytes: bytes, ends: ends)
        }
    }

    /// The terms that make prefix-list entries (free-text terms, not the index's own), each as its best tier (one
    /// byte), its UTF-8 length (varint) and bytes.
    static func encode(_ terms: [String: UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(terms.count * 10)
        for (term, tiers) in terms {
            guard !TextIndexer.isOwnTerm(term), let tier = TextIndexer.bestTier(tiers) else { continue }
            bytes.append(UInt8(tier))
            ValueCodec.writeVarint(UInt64(term.utf8.count), to: &bytes)
            bytes.append(contentsOf: term.utf8)
        }
        return bytes
    }

    /// Calls `body` with each encoded term and its tier; damage (bytes that end inside a term, a tier out of range)
    /// ends the terms there, never a trap.
    static func forEachTerm(_ raw: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer, UInt8) -> Void) {
        var offset = 0
        while offset < raw.count {
            let tier = raw[offset]
            offset += 1
            guard Int(tier) < Ranking.tierWeights.count,
                  let length = try? PostingCodec.Reader.varint(raw, &offset), length <= UInt64(raw.count - offset) else { return }
            body(UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + Int(length))]), tier)
            offset += Int(length)
        }
    }

    /// The terms as `TextIndexer.terms` gives them (each with its best tier's bit only: all that the lists read).
    static func decodeTerms(_ raw: UnsafeRawBufferPointer) -> [String: UInt8] {
        var terms: [String: UInt8] = [:]
        forEachTerm(raw) { term, tier in terms[String(decoding: term, as: UTF8.self)] = 1 << tier }
        return terms
    }
}
