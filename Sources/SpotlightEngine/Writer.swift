import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// The write path of one transaction.
///
/// New items get new ids (`meta.nextItem`, increasing, never reused; an update is a delete and an insert), and
/// their postings are gathered in memory and written at the end of the transaction as one new segment
/// (`SegmentMerger.writeSegment`), or several for a batch too large to hold (`SegmentMerger.flushThreshold`).
/// A deleted item's postings stay in their segment, dead, until a merge drops them. Document frequencies are updated
/// once per transaction, and so are the prefix lists (`PrefixLists`) by a larger write; a small one leaves its
/// items' list changes pending (`PendingPrefixes`), and its frequency decrements (`PendingFrequencies`).
struct Writer {
    let db: Database
    let store: IndexStore
    var newTerms: [String: Int64]
    let now: Date
    /// Document-frequency changes by term text (the term table's key).
    private var dfDelta: [String: Int] = [:]
    /// The id the next new term gets (terms are never deleted, so the largest id plus one), once looked up.
    private var nextTermID: Int64? = nil
    private var pendingPostings: [(term: Int64, item: Int64, tiers: UInt8)] = []
    /// The ids allocated since the last segment was written (`pendingFirst...nextItem - 1`), and how many of them
    /// were deleted again in this transaction.
    private var pendingFirst: Int64? = nil
    private var pendingItems = 0
    private var pendingDead = 0
    private var nextItem: Int64? = nil
    private var prefixes = PrefixLists.Changes()
    /// Whether this transaction updates the prefix lists itself (`prefixes`, with `prefixes.hot` read), rather than
    /// leaving its changes pending (`pendingChanges`): from its first prepared upsert, or once it changes more than
    /// `PendingPrefixes.smallWrite` items' lists.
    private var updatesLists = false
    /// Whether this transaction has prepared upserts (a large write: it also applies the pending list changes).
    private var isLarge = false
    private var pendingChanges: [PendingPrefixes.Change] = []
    /// Whether this transaction wrote a segment or deleted items (the merge policy may have work).
    private(set) var changedSegments = false
    /// Whether an item row was inserted or deleted.
    private var itemsChanged = false
    /// Records of new items bound for blocks (`RecordBlocks`) and not written yet, by item id (their rows have an
    /// empty `attrs`); the ids of the closed blocks and of the open one, in order.
    private var unwrittenRecords: [Int64: [UInt8]] = [:]
    private var closedBlocks: [[Int64]] = []
    private var openBlock: [Int64] = []
    private var openBlockBytes = 0

    /// The dictionary new records are compressed with (`RecordDictionary`), if the index has one.
    let dictionary: RecordDictionary?

    init(db: Database, store: IndexStore, newTerms: [String: Int64], now: Date, dictionary: RecordDictionary? = nil) {
        self.db = db
        self.store = store
        self.dictionary = dictionary
        self.newTerms = newTerms
        self.now = now
    }

    /// From now on the transaction updates the lists itself, with the changes it had kept for pending so far.
    private mutating func updateListsFromNowOn() throws {
        guard !updatesLists else { return }
        updatesLists = true
        prefixes.hot = try PrefixLists.hotPrefixes(db)
        for change in pendingChanges { fold(change) }
        pendingChanges.removeAll()
    }

    /// Adds an item's list change to `prefixes`.
    private mutating func fold(_ change: PendingPrefixes.Change) {
        if change.removed {
            prefixes.remove(item: change.item, terms: change.terms)
        } else if let added = change.added {
            prefixes.add(item: change.item, uid: added.uid, terms: change.terms, name: added.name, hintPoints: added.hintPoints)
        }
    }

    /// Notes an item's list change: into `prefixes`, or kept for `PendingPrefixes`.
    private mutating func noteListChange(_ change: PendingPrefixes.Change) throws {
        if updatesLists {
            fold(change)
            return
        }
        pendingChanges.append(change)
        if pendingChanges.count > PendingPrefixes.smallWrite { try updateListsFromNowOn() }
    }

    mutating func apply(_ operation: IndexOperation, prepared: PreparedUpsert? = nil) throws {
        switch operation {
        case .upsert(let item, let isUpdate, let cleared, let clearedCustom):
            try upsert(item, isUpdate: isUpdate, cleared: cleared, clearedCustom: clearedCustom, prepared: isUpdate ? nil : prepared)
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
            unwrittenRecords.removeAll()
            closedBlocks.removeAll()
            openBlock.removeAll()
            openBlockBytes = 0
            pendingPostings.removeAll()
            pendingFirst = nil
            pendingItems = 0
            pendingDead = 0
            // (No list is left, so no long prefix has one.)
            prefixes = PrefixLists.Changes()
            pendingChanges.removeAll()
            dfDelta.removeAll()
            try db.execute(sql: """
                DELETE FROM postings; DELETE FROM segment; DELETE FROM segmentDead; DELETE FROM item; DELETE FROM prefixTop; DELETE FROM attrValue;
                DELETE FROM recordBlock; DELETE FROM postingData; DELETE FROM prefixPending; DELETE FROM dfPending;
                UPDATE term SET df = 0 WHERE df != 0;
                DELETE FROM meta WHERE key = 'clientState'
                """)
            changedSegments = true
            itemsChanged = true
        }
    }

    /// Deletes expired items; returns how many.
    @discardableResult
    mutating func purgeExpired(now: Date) throws -> Int {
        // Cached statements here and below: every single write runs them, and preparing one (SQLite's parser) was
        // 7 % of a single write.
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT id, domain, attrs, hint, lastUsed FROM item WHERE expires <= ? AND expires < \(IndexStore.neverExpires)
            """), arguments: [now.timeIntervalSinceReferenceDate])
        for row in rows { try deleteRow(row) }
        return rows.count
    }

    /// Writes everything gathered: the new segment, document frequencies, prefix lists, the next item id.
    mutating func finish() throws {
        try flushSegment()
        try writeRecordBlocks(final: true)
        // A small write leaves its decrements pending, one row for all of them (`PendingFrequencies`): each would
        // otherwise write a page of the vocabulary. Increments are written at once (a stored frequency is never
        // below the true one).
        var decrementsWait = !updatesLists && dfDelta.values.contains(where: { $0 < 0 })
        if decrementsWait { decrementsWait = try PendingFrequencies.count(db) < PendingFrequencies.limit }
        var decrements: [(term: String, count: Int)] = []
        let update = try db.cachedStatement(sql: "UPDATE term SET df = max(0, df + ?) WHERE text = ?")
        for (term, delta) in dfDelta where delta != 0 {
            if delta < 0, decrementsWait {
                decrements.append((term, -delta))
            } else {
                try update.execute(arguments: [delta, term])
            }
        }
        try PendingFrequencies.record(decrements, db: db)
        dfDelta.removeAll()
        if !updatesLists, !pendingChanges.isEmpty,
           try PendingPrefixes.count(db) + pendingChanges.count > PendingPrefixes.limit {
            try updateListsFromNowOn()
        }
        if updatesLists {
            var asOf = now
            if isLarge {
                // With every change still pending, which are older than this transaction's (an item it deleted that
                // came in a pending write is not added: its row is gone).
                asOf = try PendingPrefixes.drain(into: &prefixes, db: db, now: now)
            }
            try PrefixLists.apply(prefixes, db: db, now: asOf)
            let hot = prefixes.hot
            prefixes = PrefixLists.Changes()
            prefixes.hot = hot
        } else {
            try PendingPrefixes.record(pendingChanges, now: now, db: db)
            pendingChanges.removeAll()
        }
        if let nextItem {
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES('nextItem', ?)").execute(arguments: [nextItem])
        }
        if let nextTermID {
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES('nextTerm', ?)").execute(arguments: [nextTermID])
        }
        if itemsChanged {
            // Tells the maintenance that items changed since it read a snapshot (`IndexStore.itemsState`).
            try db.cachedStatement(sql: """
                INSERT INTO meta(key, value) VALUES('itemChanges', 1)
                ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1
                """).execute()
            itemsChanged = false
        }
    }

    /// Closed blocks held before they are written (about 1 MB of records): a large batch streams them.
    static let blocksHeld = 256

    /// Writes the closed blocks (and with `final` the open one) of records not written yet. A block left with fewer
    /// than `RecordBlocks.minimumRecords` records (the last of a write, or one whose items this write deleted
    /// again) stores them in their rows instead.
    private mutating func writeRecordBlocks(final: Bool) throws {
        if final, !openBlock.isEmpty {
            closedBlocks.append(openBlock)
            openBlock.removeAll()
            openBlockBytes = 0
        }
        guard !closedBlocks.isEmpty else { return }
        var blocks: [[(id: Int64, plain: [UInt8])]] = []
        var alone: [(id: Int64, plain: [UInt8])] = []
        for ids in closedBlocks {
            let records = ids.compactMap { id in unwrittenRecords.removeValue(forKey: id).map { (id: id, plain: $0) } }
            if records.count >= RecordBlocks.minimumRecords { blocks.append(records) } else { alone += records }
        }
        closedBlocks.removeAll()
        try RecordBlocks.write(blocks, dictionary: dictionary, db: db)
        let update = try db.cachedStatement(sql: "UPDATE item SET attrs = ? WHERE id = ?")
        for record in alone {
            try update.execute(arguments: [Data(ValueCodec.stored(plain: record.plain, dictionary: dictionary)), record.id])
        }
    }

    private mutating func flushSegment() throws {
        guard let first = pendingFirst, let nextItem else { return }
        if !pendingPostings.isEmpty {
            // Every term of the pending postings went through `termID(for:)`: their texts, for the rows' keys.
            var texts: [Int64: String] = [:]
            texts.reserveCapacity(newTerms.count)
            for (text, id) in newTerms { texts[id] = text }
            let db = self.db
            try SegmentMerger.writeSegment(db, postings: &pendingPostings, firstItem: first, lastItem: nextItem - 1,
                                           items: pendingItems, deadItems: pendingDead) { term in
                try texts[term] ?? SegmentMerger.termText(db, term)
            }
            changedSegments = true
        }
        pendingFirst = nil
        pendingItems = 0
        pendingDead = 0
    }

    /// Allocates the id of a new item row.
    private mutating func allocateItemID() throws -> Int64 {
        let id: Int64
        if let nextItem {
            id = nextItem
        } else {
            let stored = try Int64.fetchOne(db.cachedStatement(sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'nextItem'")) ?? 1
            let highest = try Int64.fetchOne(db.cachedStatement(sql: "SELECT coalesce(max(id), 0) FROM item")) ?? 0
            id = max(stored, highest + 1)
        }
        nextItem = id + 1
        if pendingFirst == nil { pendingFirst = id }
        pendingItems += 1
        return id
    }

    /// The attributes of the item row `row` (with `id` and `attrs`): from the row, a record not written yet, or its
    /// block.
    private func record(_ row: Row) throws -> (attributes: [String: AttributeValue], custom: [String: CustomAttribute]) {
        let id: Int64 = try row.stored("id")
        let stored = [UInt8](try row.stored("attrs") as Data)
        if stored.isEmpty, let plain = unwrittenRecords[id] { return try ValueCodec.decode(plain) }
        return try ValueCodec.decode(stored, item: id, in: db)
    }

    private mutating func deleteRow(_ row: Row) throws {
        let id: Int64 = try row.stored("id")
        let decoded = try record(row)
        if (try row.stored("attrs") as Data).isEmpty {
            // In a block: not written yet (it never will be), or counted dead in its block.
            if unwrittenRecords.removeValue(forKey: id) == nil { try RecordBlocks.noteDeleted(item: id, db: db) }
        }
        let terms = TextIndexer.terms(attributes: decoded.attributes, custom: decoded.custom, domain: try row.stored("domain"))
        for text in terms.keys {
            dfDelta[text, default: 0] -= 1
        }
        try noteListChange(.init(item: id, removed: true, terms: terms))
        try removeValues(item: id, AttributeValueIndex.values(attributes: decoded.attributes, custom: decoded.custom))
        try db.cachedStatement(sql: "DELETE FROM item WHERE id = ?").execute(arguments: [id])
        itemsChanged = true
        // Its postings stay behind, dead, until their segment is merged.
        if let first = pendingFirst, id >= first {
            pendingDead += 1
        } else if !terms.isEmpty {
            try SegmentMerger.noteDeleted(db, item: id)
            changedSegments = true
        }
    }

    private mutating func upsert(_ item: StoredItem, isUpdate: Bool, cleared: Set<String>, clearedCustom: Set<String>,
                                 prepared: PreparedUpsert?) throws {
        let existing = try Row.fetchOne(db.cachedStatement(sql: "SELECT id, domain, attrs, hint, lastUsed FROM item WHERE uid = ?"),
                                        arguments: [item.uniqueIdentifier])
        if item.expirationDate <= now {
            // Deviation: indexing an item that has already expired removes it: it could never be returned.
            if let existing { try deleteRow(existing) }
            return
        }
        var attributes = item.attributes
        var custom = item.customAttributes
        var domain = item.domainIdentifier
        if let existing {
            if isUpdate {
                let old = try record(existing)
                attributes = old.attributes.merging(item.attributes) { _, new in new }
                for name in cleared { attributes[name] = nil }
                custom = old.custom.merging(item.customAttributes) { _, new in new }
                for name in clearedCustom { custom[name] = nil }
                domain = try item.domainIdentifier ?? existing.stored("domain")
            }
            // A replaced item is deleted and inserted again under a new id: segments are immutable, so its old
            // postings die with the old id.
            try deleteRow(existing)
        } else if isUpdate {
            // Apple's header: an update of an item that does not exist is dropped.
            return
        }
        let merged = StoredItem(uniqueIdentifier: item.uniqueIdentifier, domainIdentifier: domain,
                                expirationDate: item.expirationDate, attributes: attributes, customAttributes: custom)
        // A prepared record (a large write's new item) goes into a block; another is stored in its row.
        let bytes = prepared == nil ? Data(ValueCodec.stored(attributes: attributes, custom: custom, dictionary: dictionary)) : Data()
        let hint = merged.rankingHint
        let lastUsed = merged.lastUsedDate?.timeIntervalSinceReferenceDate
        if pendingPostings.count >= SegmentMerger.flushThreshold { try flushSegment() }
        let id = try allocateItemID()
        itemsChanged = true
        let name = prepared?.name ?? NameSignals(attributes: attributes)
        let newTerms = prepared?.terms ?? TextIndexer.terms(attributes: attributes, custom: custom, domain: domain)
        try db.cachedStatement(sql: """
            INSERT INTO item(id, uid, domain, expires, hint, lastUsed, attrs, nameWords, nameFirst, nameKey, initials)
            VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [id, item.uniqueIdentifier, domain, item.expirationDate.timeIntervalSinceReferenceDate,
                                 hint, lastUsed, bytes, name.words, name.first, Int64(bitPattern: name.key),
                                 prepared?.initials ?? Data(Initials.encode(newTerms))])
        if let prepared {
            unwrittenRecords[id] = prepared.plain
            openBlock.append(id)
            openBlockBytes += prepared.plain.count
            if openBlockBytes >= RecordBlocks.targetBytes || openBlock.count >= RecordBlocks.maximumRecords {
                closedBlocks.append(openBlock)
                openBlock.removeAll(keepingCapacity: true)
                openBlockBytes = 0
                if closedBlocks.count >= Self.blocksHeld { try writeRecordBlocks(final: false) }
            }
        }
        for (text, tiers) in newTerms {
            let termID = try termID(for: text)
            pendingPostings.append((termID, id, tiers))
            dfDelta[text, default: 0] += 1
        }
        let hintPoints = Ranking.hintPoints(hint) + Ranking.recencyPoints(lastUsed: lastUsed, now: now)
        if let prepared {
            // (A prepared upsert is part of a large write: it updates the lists.)
            isLarge = true
            try updateListsFromNowOn()
            if prepared.hot == prefixes.hot {
                prefixes.add(item: id, uid: item.uniqueIdentifier, points: prepared.prefixPoints, hintPoints: hintPoints)
            } else {
                prefixes.add(item: id, uid: item.uniqueIdentifier, terms: newTerms, name: name, hintPoints: hintPoints)
            }
        } else {
            try noteListChange(.init(item: id, removed: false, terms: newTerms,
                                     added: (uid: item.uniqueIdentifier, name: name, hintPoints: hintPoints)))
        }
        let insertValue = try db.cachedStatement(sql: "INSERT OR IGNORE INTO attrValue(attr, value, item) VALUES(?, ?, ?)")
        for entry in prepared?.values ?? AttributeValueIndex.values(attributes: attributes, custom: custom) {
            try insertValue.execute(arguments: [AttributeValueIndex.code(entry.attribute), entry.value, id])
        }
    }

    private func removeValues(item: Int64, _ values: Set<AttributeValueIndex.Entry>) throws {
        guard !values.isEmpty else { return }
        let delete = try db.cachedStatement(sql: "DELETE FROM attrValue WHERE attr = ? AND value = ? AND item = ?")
        for entry in values {
            try delete.execute(arguments: [AttributeValueIndex.code(entry.attribute), entry.value, item])
        }
    }

    /// The id the next new term gets: `meta.nextTerm` (format 7, kept by `finish`), or for a store without the row
    /// one more than the largest id in the vocabulary (a scan: the vocabulary has no index by id since format 7).
    private func storedNextTermID() throws -> Int64 {
        if let next = try Int64.fetchOne(db.cachedStatement(sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'nextTerm'")),
           next > 0 {
            return next
        }
        return try Int64.fetchOne(db, sql: "SELECT coalesce(max(id), 0) + 1 FROM term") ?? 1
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
        let id = try nextTermID ?? storedNextTermID()
        nextTermID = id + 1
        try db.cachedStatement(sql: "INSERT INTO term(text, id) VALUES(?, ?)").execute(arguments: [text, id])
        newTerms[text] = id
        return id
    }
}

/// What an upsert needs that depends on the item alone, computed before the write transaction and on every core
/// (`prepare`): a bulk load spends most of its time tokenizing and encoding, and none of that needs the write
/// lock.
struct PreparedUpsert: Sendable {
    var terms: [String: UInt8]
    var values: Set<AttributeValueIndex.Entry>
    /// The item's record, not compressed: it goes into a block of records (`RecordBlocks`).
    var plain: [UInt8]
    var name: NameSignals
    /// `Initials.encode(terms)`.
    var initials: Data
    /// The item's best word points per prefix for the long prefixes that had lists when it was prepared
    /// (`hot`); used only if the transaction finds the same set.
    var prefixPoints: PrefixLists.PrefixPoints
    var hot: PrefixLists.HotPrefixes

    /// Below this many replacing upserts a batch is prepared inside the transaction, as before.
    static let parallelThreshold = 64

    /// The prepared form of each replacing upsert (`isUpdate == false`, whose attributes are the item's own), by
    /// position in `operations`; empty for small batches.
    /// Operations prepared at once: a larger batch is prepared a window at a time, so memory stays bounded, and the
    /// next window is prepared (`Background`) while the transaction applies one.
    static let window = 2_048

    /// A window prepared on other threads while the caller goes on.
    final class Background: Sendable {
        private let done = DispatchSemaphore(value: 0)
        private let prepared = Mutex<[Int: PreparedUpsert]>([:])

        init(_ operations: [IndexOperation], in range: Range<Int>, hot: PrefixLists.HotPrefixes, dictionary: RecordDictionary?) {
            DispatchQueue.global(qos: .userInitiated).async { [self] in
                let result = PreparedUpsert.prepare(operations, in: range, hot: hot, dictionary: dictionary)
                prepared.withLock { $0 = result }
                done.signal()
            }
        }

        /// Waits for the window.
        func result() -> [Int: PreparedUpsert] {
            done.wait()
            done.signal()
            return prepared.withLock { $0 }
        }
    }

    static func prepare(_ operations: [IndexOperation], in range: Range<Int>, hot: PrefixLists.HotPrefixes,
                        dictionary: RecordDictionary?) -> [Int: PreparedUpsert] {
        let positions = range.filter {
            if case .upsert(_, false, _, _) = operations[$0] { return true }
            return false
        }
        guard positions.count >= parallelThreshold else { return [:] }
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))
        let chunk = (positions.count + workers - 1) / workers
        let results = Mutex<[Int: PreparedUpsert]>([:])
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var local: [Int: PreparedUpsert] = [:]
            for position in positions.dropFirst(worker * chunk).prefix(chunk) {
                guard case .upsert(let item, _, _, _) = operations[position] else { continue }
                let terms = TextIndexer.terms(attributes: item.attributes, custom: item.customAttributes,
                                              domain: item.domainIdentifier)
                let name = NameSignals(attributes: item.attributes)
                local[position] = PreparedUpsert(
                    terms: terms,
                    values: AttributeValueIndex.values(attributes: item.attributes, custom: item.customAttributes),
                    plain: ValueCodec.encode(attributes: item.attributes, custom: item.customAttributes),
                    name: name,
                    initials: Data(Initials.encode(terms)),
                    prefixPoints: PrefixLists.bestPoints(terms, hot: hot, name: name), hot: hot)
            }
            results.withLock { $0.merge(local) { a, _ in a } }
        }
        return results.withLock { $0 }
    }
}
