import Foundation
import GRDB
import GRDBSQLite

/// The item catalogue: every read and write of what a store keeps per item apart from its postings and values (its
/// identifier, domain, expiry, static ranking signals and record) goes through here, in the snapshot or write
/// transaction of `db`.
///
/// Format 12 and before keep the catalogue as one row of the `item` table per item (with a unique index by
/// identifier). The catalogue is its own type so that its storage can change without touching its readers (issue
/// 12: bulk-written items kept in their segments, as Lucene and Tantivy keep their documents, where a row and an
/// index entry per item is most of what PyPI's items cost apart from their text). Only the upgrades of older
/// formats (`IndexStore`'s `upgradeFromFormat…`) read the table directly: they read the format they upgrade.
///
/// A catalogue object prepares each statement once and reuses it (GRDB's `cachedStatement(sql:)` hashes the SQL
/// text at each call): make one per transaction or search, not per item. Not thread-safe, as `Database` is not.
final class ItemCatalog {
    let db: Database

    init(_ db: Database) {
        self.db = db
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

        /// The item with its record decoded.
        func storedItem(in db: Database) throws -> StoredItem {
            let decoded = try ValueCodec.decode(record, item: id, in: db)
            return StoredItem(uniqueIdentifier: uid, domainIdentifier: domain,
                              expirationDate: Date(timeIntervalSinceReferenceDate: expires),
                              attributes: decoded.attributes, customAttributes: decoded.custom)
        }

        /// The decoded record.
        func attributes(in db: Database) throws -> (attributes: [String: AttributeValue], custom: [String: CustomAttribute]) {
            try ValueCodec.decode(record, item: id, in: db)
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

    private var byID: Statement?
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
        // Most upserts of a bulk load are of new items: the lookup steps through the C API, and only a row found
        // is read.
        let handle = try statement(&byUID, "SELECT \(Self.entryColumns) FROM item WHERE uid = ?").sqliteStatement
        var found: Entry?
        sqlite3_reset(handle)
        RawBind.text(handle, 1, uid)
        try IndexStore.stepRows(db, handle) { found = try Self.entry($0) }
        guard let found, found.expires > now else { return nil }
        return found
    }

    /// The item with this id; with `now`, only if it has not expired by then.
    func entry(id: Int64, liveAt now: Double = -.infinity) throws -> Entry? {
        let handle = try statement(&liveByID, "SELECT \(Self.entryColumns) FROM item WHERE id = ?1 AND expires > ?2").sqliteStatement
        var found: Entry?
        sqlite3_reset(handle)
        sqlite3_bind_int64(handle, 1, id)
        sqlite3_bind_double(handle, 2, now)
        try IndexStore.stepRows(db, handle) { found = try Self.entry($0) }
        return found
    }

    /// The item with this id, its record decoded; nil when it is gone or, with `now`, expired.
    func item(id: Int64, liveAt now: Double = -.infinity) throws -> StoredItem? {
        try entry(id: id, liveAt: now)?.storedItem(in: db)
    }

    /// The id of the item with this identifier (expired or not).
    func id(of uid: String) throws -> Int64? {
        guard uid.isStorableKey else { return nil }
        var found: Int64?
        try IndexStore.forEachRawRow(db, try statement(&idByUID, "SELECT id FROM item WHERE uid = ?"), text: uid) {
            found = try RawColumn.integer($0, 0)
        }
        return found
    }

    /// The static ranking signals of an item; nil when it is gone or, with `now`, expired.
    func signals(of id: Int64, liveAt now: Double? = nil) throws -> Signals? {
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
        return found
    }

    /// Runs `body` with an item's initials (`Initials`), if it exists; the bytes are valid during the call.
    func withInitials(of id: Int64, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        try IndexStore.forEachRawRow(db, try statement(&initialsByID, "SELECT initials FROM item WHERE id = ?"), int64: id) {
            try body(try RawColumn.bytes($0, 0))
        }
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
        // The entry is read before `body` runs, which may read the store (a query's delivery never runs while the
        // statement is stepping a row it still reads).
        var stop = false
        while !stop {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                sqlite3_reset(handle)
                throw IndexStore.stepError(db, code)
            }
            let entry = try Self.entry(handle)
            do {
                stop = try !body(entry)
            } catch {
                sqlite3_reset(handle)
                throw error
            }
        }
        sqlite3_reset(handle)
    }

    /// Every item's id, identifier and stored record, in the table's order (the integrity check and the sampling
    /// of records read them so): a NULL identifier (damage) is nil, a NULL record empty. `body` returns false to
    /// stop.
    func forEachRecord(_ body: (_ id: Int64, _ uid: String?, _ record: [UInt8]) throws -> Bool) throws {
        let cursor = try Row.fetchCursor(db, sql: "SELECT id, uid, attrs FROM item")
        while let row = try cursor.next() {
            let uid = try row.stored(1) as String?
            let record = (try row.stored(2) as Data?).map { [UInt8]($0) } ?? []
            guard try body(try row.stored(0), uid, record) else { return }
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
        return entries
    }

    /// The items that have expired by `now` (items that never expire are not read: `item_expires` holds only
    /// the others).
    func expired(at now: Double) throws -> [Entry] {
        let statement = try db.cachedStatement(sql: """
            SELECT \(Self.entryColumns) FROM item WHERE expires <= ? AND expires < \(IndexStore.neverExpires)
            """)
        var entries: [Entry] = []
        try IndexStore.forEachRawRow(db, statement, [now]) { entries.append(try Self.entry($0)) }
        return entries
    }

    /// The `limit` items with the best ranking hint, then the most recent use, of those not expired by `now`.
    func bestByStaticSignals(limit: Int, liveAt now: Double) throws -> [Int64] {
        try Int64.fetchAll(db, sql: "SELECT id FROM item WHERE expires > ? ORDER BY hint DESC, lastUsed DESC LIMIT ?",
                           arguments: [now, limit])
    }

    /// Every domain identifier in use with its number of items not expired by `now`, by domain.
    func domains(liveAt now: Double) throws -> [(domain: String, count: Int)] {
        try Row.fetchAll(db, sql: """
            SELECT domain, count(*) AS n FROM item WHERE domain IS NOT NULL AND expires > ?
            GROUP BY domain ORDER BY domain
            """, arguments: [now]).map { (try $0.stored("domain"), try $0.stored("n")) }
    }

    // MARK: - Counts and ids

    /// How many items the catalogue holds, expired ones not yet purged included.
    func count() throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM item") ?? 0
    }

    /// How many items have not expired by `now`: every item less the expired ones (found through `item_expires`,
    /// which holds only items that expire).
    func count(liveAt now: Double) throws -> Int {
        try Int.fetchOne(db, sql: """
            SELECT (SELECT count(*) FROM item)
                 - (SELECT count(*) FROM item WHERE expires <= ? AND expires < \(IndexStore.neverExpires))
            """, arguments: [now]) ?? 0
    }

    /// How many items of `domain` and its sub-domains have not expired by `now`, counted through the index of
    /// items by domain (a store without exact domain terms).
    func countThroughDomainIndex(_ domain: String, liveAt now: Double) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM item WHERE expires > ? AND \(DomainMatch.sql)",
                         arguments: StatementArguments([now as any DatabaseValueConvertible] + DomainMatch.arguments(domain))) ?? 0
    }

    /// How many items have an id in `range`.
    func count(in range: ClosedRange<Int64>) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM item WHERE id BETWEEN ? AND ?",
                         arguments: [range.lowerBound, range.upperBound]) ?? 0
    }

    /// The ids in `range` of the items that exist, increasing.
    func forEachID(in range: ClosedRange<Int64>, _ body: (Int64) throws -> Void) throws {
        let cursor = try Int64.fetchCursor(db, sql: "SELECT id FROM item WHERE id BETWEEN ? AND ?",
                                           arguments: [range.lowerBound, range.upperBound])
        while let id = try cursor.next() { try body(id) }
    }

    /// The ids in `range` of the items whose record is in a record block (not in their row).
    func idsWithBlockRecords(in range: ClosedRange<Int64>) throws -> [Int64] {
        try Int64.fetchAll(db, sql: "SELECT id FROM item WHERE id BETWEEN ? AND ? AND length(attrs) = 0",
                           arguments: [range.lowerBound, range.upperBound])
    }

    /// One more than the largest item id `db` sees (every item it holds has a smaller id); 1 when it holds none.
    func nextID() throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT coalesce(max(id), 0) + 1 FROM item")) ?? 1
    }

    // MARK: - Static columns

    /// The statement `StaticColumns` reads a range of ids with (two parameters: the first and last id), in its
    /// order: id, hint, lastUsed, uid, nameWords, nameFirst, nameKey, initials.
    static func columnRowsStatement(_ db: Database) throws -> Statement {
        try db.cachedStatement(sql: """
            SELECT id, hint, lastUsed, uid, nameWords, nameFirst, nameKey, initials FROM item WHERE id BETWEEN ? AND ?
            """)
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

    /// Removes an item (its postings stay behind, dead, until their segment is merged).
    func delete(id: Int64) throws {
        try statement(&deleteStatement, "DELETE FROM item WHERE id = ?").execute(arguments: [id])
    }

    /// Removes every item.
    func deleteAll() throws {
        try db.execute(sql: "DELETE FROM item")
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
