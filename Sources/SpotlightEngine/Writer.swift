import Foundation
import GRDB
import GRDBSQLite

/// The write path of one transaction.
///
/// Postings of newly inserted items are collected and written at the end of the transaction sorted by term, so a
/// bulk load appends to each term's range instead of jumping around the B-tree. Anything that touches an existing
/// row (a replace, a delete, a purge) first writes the collected postings, so it always sees a complete index.
/// Document frequencies and the prefix lists (`PrefixLists`) are updated once per transaction.
struct Writer {
    let db: Database
    let store: IndexStore
    var newTerms: [String: Int64]
    let now: Date
    private var dfDelta: [Int64: Int] = [:]
    private var pendingPostings: [(term: Int64, item: Int64, tiers: UInt8)] = []
    private var prefixes = PrefixLists.Changes()

    init(db: Database, store: IndexStore, newTerms: [String: Int64], now: Date) {
        self.db = db
        self.store = store
        self.newTerms = newTerms
        self.now = now
        self.prefixes.hot = (try? PrefixLists.hotPrefixes(db)) ?? []
    }

    mutating func apply(_ operation: IndexOperation) throws {
        switch operation {
        case .upsert(let item, let isUpdate, let cleared, let clearedCustom):
            try upsert(item, isUpdate: isUpdate, cleared: cleared, clearedCustom: clearedCustom)
        case .delete(let identifiers):
            // Deviation: deleting an identifier or domain with NUL deletes nothing. Such a key cannot be stored
            // (`IndexStore.validate`), so it matches nothing; binding it would cut it at the NUL and delete another.
            for uid in identifiers where uid.isStorableKey {
                if let row = try Row.fetchOne(db, sql: "SELECT id, domain, attrs, hint, lastUsed FROM item WHERE uid = ?", arguments: [uid]) {
                    try deleteRow(row)
                }
            }
        case .deleteDomains(let domains):
            for domain in domains where domain.isStorableKey {
                let rows = try Row.fetchAll(db, sql: "SELECT id, domain, attrs, hint, lastUsed FROM item WHERE \(DomainMatch.sql)",
                                            arguments: StatementArguments(DomainMatch.arguments(domain)))
                for row in rows { try deleteRow(row) }
            }
        case .deleteAll:
            pendingPostings.removeAll()
            prefixes = PrefixLists.Changes()
            dfDelta.removeAll()
            try db.execute(sql: """
                DELETE FROM posting; DELETE FROM item; DELETE FROM prefixTop; DELETE FROM attrValue; UPDATE term SET df = 0 WHERE df != 0;
                DELETE FROM meta WHERE key = 'clientState'
                """)
        }
    }

    /// Deletes expired items; returns how many.
    @discardableResult
    mutating func purgeExpired(now: Date) throws -> Int {
        let rows = try Row.fetchAll(db, sql: "SELECT id, domain, attrs, hint, lastUsed FROM item WHERE expires <= ?",
                                    arguments: [now.timeIntervalSinceReferenceDate])
        for row in rows { try deleteRow(row) }
        return rows.count
    }

    /// Writes everything collected: postings, document frequencies, prefix lists.
    mutating func finish() throws {
        try flushPostings()
        let update = try db.cachedStatement(sql: "UPDATE term SET df = max(0, df + ?) WHERE id = ?")
        for (term, delta) in dfDelta where delta != 0 {
            try update.execute(arguments: [delta, term])
        }
        dfDelta.removeAll()
        try PrefixLists.apply(prefixes, db: db, now: now)
        let hot = prefixes.hot
        prefixes = PrefixLists.Changes()
        prefixes.hot = hot
    }

    private mutating func flushPostings() throws {
        guard !pendingPostings.isEmpty else { return }
        pendingPostings.sort { $0.term != $1.term ? $0.term < $1.term : $0.item < $1.item }
        let insert = try db.cachedStatement(sql: "INSERT INTO posting(term, item, tiers) VALUES(?, ?, ?)")
        // The hottest statement of a bulk load: bound through SQLite's C API, without GRDB's argument boxing.
        let handle = insert.sqliteStatement
        for p in pendingPostings {
            sqlite3_reset(handle)
            sqlite3_bind_int64(handle, 1, p.term)
            sqlite3_bind_int64(handle, 2, p.item)
            sqlite3_bind_int64(handle, 3, Int64(p.tiers))
            let code = sqlite3_step(handle)
            guard code == SQLITE_DONE else {
                sqlite3_reset(handle)
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
            }
        }
        sqlite3_reset(handle)
        pendingPostings.removeAll(keepingCapacity: true)
    }


    private mutating func deleteRow(_ row: Row) throws {
        try flushPostings()
        let id: Int64 = try row.stored("id")
        let decoded = try ValueCodec.decode([UInt8](try row.stored("attrs") as Data))
        let terms = TextIndexer.terms(attributes: decoded.attributes, custom: decoded.custom, domain: try row.stored("domain"))
        try removePostings(item: id, terms: Array(terms.keys))
        prefixes.remove(item: id, terms: terms)
        try removeValues(item: id, AttributeValueIndex.values(attributes: decoded.attributes, custom: decoded.custom))
        try db.execute(sql: "DELETE FROM item WHERE id = ?", arguments: [id])
    }

    private mutating func upsert(_ item: StoredItem, isUpdate: Bool, cleared: Set<String>, clearedCustom: Set<String>) throws {
        let existing = try Row.fetchOne(db.cachedStatement(sql: "SELECT id, domain, attrs, hint, lastUsed FROM item WHERE uid = ?"),
                                        arguments: [item.uniqueIdentifier])
        if existing != nil { try flushPostings() }
        if item.expirationDate <= now {
            // Deviation: indexing an item that has already expired removes it: it could never be returned.
            if let existing { try deleteRow(existing) }
            return
        }
        var attributes = item.attributes
        var custom = item.customAttributes
        var domain = item.domainIdentifier
        var oldTerms: [String: UInt8] = [:]
        var oldValues: Set<AttributeValueIndex.Entry> = []
        if let existing {
            let old = try ValueCodec.decode([UInt8](try existing.stored("attrs") as Data))
            oldTerms = TextIndexer.terms(attributes: old.attributes, custom: old.custom, domain: try existing.stored("domain"))
            oldValues = AttributeValueIndex.values(attributes: old.attributes, custom: old.custom)
            if isUpdate {
                attributes = old.attributes.merging(item.attributes) { _, new in new }
                for name in cleared { attributes[name] = nil }
                custom = old.custom.merging(item.customAttributes) { _, new in new }
                for name in clearedCustom { custom[name] = nil }
                domain = try item.domainIdentifier ?? existing.stored("domain")
            }
        } else if isUpdate {
            // Apple's header: an update of an item that does not exist is dropped.
            return
        }
        let merged = StoredItem(uniqueIdentifier: item.uniqueIdentifier, domainIdentifier: domain,
                                expirationDate: item.expirationDate, attributes: attributes, customAttributes: custom)
        let bytes = Data(ValueCodec.encode(attributes: attributes, custom: custom))
        let hint = merged.rankingHint
        let lastUsed = merged.lastUsedDate?.timeIntervalSinceReferenceDate
        let id: Int64
        if let existing {
            id = try existing.stored("id")
            try db.cachedStatement(sql: "UPDATE item SET domain = ?, expires = ?, hint = ?, lastUsed = ?, attrs = ? WHERE id = ?")
                .execute(arguments: [domain, item.expirationDate.timeIntervalSinceReferenceDate, hint, lastUsed, bytes, id])
        } else {
            try db.cachedStatement(sql: "INSERT INTO item(uid, domain, expires, hint, lastUsed, attrs) VALUES(?, ?, ?, ?, ?, ?)")
                .execute(arguments: [item.uniqueIdentifier, domain, item.expirationDate.timeIntervalSinceReferenceDate,
                                     hint, lastUsed, bytes])
            id = db.lastInsertedRowID
        }
        let newTerms = TextIndexer.terms(attributes: attributes, custom: custom, domain: domain)
        if existing != nil {
            prefixes.remove(item: id, terms: oldTerms)
            let removed = oldTerms.keys.filter { newTerms[$0] == nil }
            try removePostings(item: id, terms: removed)
            let upsertPosting = try db.cachedStatement(sql: """
                INSERT INTO posting(term, item, tiers) VALUES(?, ?, ?)
                ON CONFLICT(term, item) DO UPDATE SET tiers = excluded.tiers
                """)
            for (text, tiers) in newTerms where oldTerms[text] != tiers {
                let termID = try termID(for: text)
                try upsertPosting.execute(arguments: [termID, id, Int(tiers)])
                if oldTerms[text] == nil { dfDelta[termID, default: 0] += 1 }
            }
        } else {
            for (text, tiers) in newTerms {
                let termID = try termID(for: text)
                pendingPostings.append((termID, id, tiers))
                dfDelta[termID, default: 0] += 1
            }
        }
        prefixes.add(item: id, uid: item.uniqueIdentifier, terms: newTerms,
                     hintPoints: Ranking.hintPoints(hint) + Ranking.recencyPoints(lastUsed: lastUsed, now: now))
        let newValues = AttributeValueIndex.values(attributes: attributes, custom: custom)
        try removeValues(item: id, oldValues.subtracting(newValues))
        let insertValue = try db.cachedStatement(sql: "INSERT OR IGNORE INTO attrValue(attr, value, item) VALUES(?, ?, ?)")
        for entry in newValues.subtracting(oldValues) {
            try insertValue.execute(arguments: [entry.attribute, entry.value, id])
        }
    }

    private func removeValues(item: Int64, _ values: Set<AttributeValueIndex.Entry>) throws {
        guard !values.isEmpty else { return }
        let delete = try db.cachedStatement(sql: "DELETE FROM attrValue WHERE attr = ? AND value = ? AND item = ?")
        for entry in values {
            try delete.execute(arguments: [entry.attribute, entry.value, item])
        }
    }

    private mutating func removePostings(item: Int64, terms: [String]) throws {
        guard !terms.isEmpty else { return }
        let delete = try db.cachedStatement(sql: "DELETE FROM posting WHERE term = ? AND item = ?")
        for text in terms {
            guard let termID = try existingTermID(for: text) else { continue }
            try delete.execute(arguments: [termID, item])
            if db.changesCount > 0 { dfDelta[termID, default: 0] -= 1 }
        }
    }

    private func existingTermID(for text: String) throws -> Int64? {
        if let id = newTerms[text] ?? store.cachedTermID(text) { return id }
        return try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM term WHERE text = ?"), arguments: [text])
    }

    private mutating func termID(for text: String) throws -> Int64 {
        if let id = try existingTermID(for: text) {
            newTerms[text] = id
            return id
        }
        try db.cachedStatement(sql: "INSERT INTO term(text) VALUES(?)").execute(arguments: [text])
        let id = db.lastInsertedRowID
        newTerms[text] = id
        return id
    }
}
