import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// The write path of one transaction.
///
/// New items get new ids (`meta.nextItem`, increasing, never reused; an update is a delete and an insert), and
/// their postings are gathered in memory and written at the end of the transaction as one new segment
/// (`SegmentMerger.writeSegment`), or several for a batch too large to hold (`SegmentMerger.flushThreshold`).
/// A deleted item's postings stay in their segment, dead, until a merge drops them. The prefix lists (`PrefixLists`)
/// are updated once per transaction by a larger write; a small one leaves its items' list changes pending
/// (`PendingPrefixes`).
///
/// Since format 16 a write keeps no vocabulary apart from its segment's own dictionary (`SegmentVocabulary`): its
/// postings name their terms by numbers of its own (`terms`), and the segment's lists are keyed by the terms' text.
/// Formats 5 to 15 looked every term up in a global `term` table, inserted the new ones and updated every term's
/// document frequency (a tenth of a bulk load's CPU, and 23 MB of PyPI's index).
struct Writer {
    let db: Database
    let store: IndexStore
    let now: Date
    /// This transaction's terms, numbered from 0 in the order it met them: its postings name them by number.
    private(set) var terms = TermTable()
    private var pendingPostings: [(term: Int64, item: Int64, tiers: UInt8)] = []
    /// The ids allocated since the last segment was written (`pendingFirst...nextItem - 1`), and how many of them
    /// were deleted again in this transaction.
    private var pendingFirst: Int64? = nil
    private var pendingItems = 0
    private var pendingDead = 0
    private var nextItem: Int64? = nil
    private var prefixes = PrefixLists.Changes()
    /// A window's offers being taken into `prefixes` on another core (`endWindow`): until `settlePrefixes()`,
    /// `prefixes` holds only `hot` (which every prepared upsert compares) and the changes are the merge's. Taking them in on the transaction's thread was 8 % of
    /// it in PyPI's bulk load (perf); the transaction applies the next window meanwhile.
    private var prefixMerge: Concurrently<PrefixLists.Changes>? = nil
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
    /// The plain record bytes expected to fill a block's row (`RecordBlocks.RowSizing`), taken once per write; and
    /// what the write's rows came to, noted at its end.
    private let blockTarget: Int
    private var packedSizes = (plain: 0, rows: 0)
    /// Closed blocks being compressed on another core (`RecordBlocks.compress`), oldest first; their records
    /// stay in `unwrittenRecords` until their rows are inserted.
    private var compressing: [Concurrently<RecordBlocks.Compressed>] = []

    /// The window of prepared upserts being applied (`PreparedUpsert.Window`): its terms' numbers in `terms`, and
    /// the ids of its items whose prefix offers the window made, by position from the window's first (0: none), and
    /// the other way; taken in at the window's end (`endWindow`).
    private var window = PreparedUpsert.Window()
    private var windowNumbers: [Int32] = []
    private var windowItems: [Int64] = []
    private var windowPositions: [Int64: Int] = [:]
    /// Whether the window's offers were made for this transaction's long prefixes (`prefixes.hot`), once known.
    private var windowOffersFit: Bool? = nil

    /// The dictionary new records are compressed with (`RecordDictionary`), if the index has one.
    let dictionary: RecordDictionary?

    /// The items, through one object for the transaction: it keeps its statements, and the catalogued items this
    /// write added until their block is stored.
    let catalog: ItemCatalog
    /// Whether this write catalogues its large write's new items (`ItemCatalog`): a format 13 store that finds
    /// domains through their terms (an older store's domain lookups read the index of item rows by domain).
    private var catalogues: Bool?

    private mutating func cataloguesItems() throws -> Bool {
        if let catalogues { return catalogues }
        let known = try ItemCatalog.cataloguesLargeWrites.load(ordering: .relaxed) && catalog.hasCatalogue && DomainMatch.usesTerms(db)
        catalogues = known
        return known
    }
    /// The number and date index (`ValueIndex`), and the groups of this large write's new items (written by
    /// `finish`).
    private var values: ValueIndex { ValueIndex(db) }
    private var pendingValues = PendingValueGroups()
    private var groupsValues: Bool?

    /// Whether this write's large write's new items' values go into groups (a store of format 14).
    private mutating func groupsItemValues() throws -> Bool {
        if let groupsValues { return groupsValues }
        let known = try ValueIndex.groupsLargeWrites.load(ordering: .relaxed) && values.hasGroups
        groupsValues = known
        return known
    }

    init(db: Database, store: IndexStore, now: Date, dictionary: RecordDictionary? = nil) {
        self.db = db
        self.catalog = ItemCatalog(db)
        self.store = store
        self.dictionary = dictionary
        self.now = now
        self.blockTarget = store.recordRows.plainTarget(dictionary: dictionary)
    }

    /// From now on the transaction updates the lists itself, with the changes it had kept for pending so far.
    private mutating func updateListsFromNowOn() throws {
        guard !updatesLists else { return }
        updatesLists = true
        settlePrefixes()
        prefixes.hot = try PrefixLists.hotPrefixes(db)
        for change in pendingChanges { fold(change) }
        pendingChanges.removeAll()
    }

    /// Waits for the window offers being taken in on another core (`prefixMerge`), if any: `prefixes` is theirs
    /// again.
    private mutating func settlePrefixes() {
        guard let merge = prefixMerge else { return }
        prefixMerge = nil
        prefixes = merge.value()
    }

    /// Adds an item's list change to `prefixes`.
    private mutating func fold(_ change: PendingPrefixes.Change) {
        settlePrefixes()
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

    /// Starts applying the operations of a prepared window (after taking in the previous one's): its terms are
    /// numbered among the transaction's (hashed once, where they were prepared).
    mutating func begin(_ window: PreparedUpsert.Window) throws {
        endWindow()
        self.window = window
        windowNumbers = terms.add(window.terms)
        windowItems = [Int64](repeating: 0, count: window.range.count)
        windowOffersFit = nil
    }

    /// Takes in what the window's items added: their prefix offers.
    private mutating func endWindow() {
        if let offers = window.offers, !windowPositions.isEmpty {
            settlePrefixes()
            let items = windowItems, start = window.range.lowerBound
            // (Moved, not copied: the handoff holds the only reference to the changes' tables while it merges.)
            let hot = prefixes.hot
            let handoff = PrefixLists.ChangesHandoff(prefixes)
            prefixes = PrefixLists.Changes()
            prefixes.hot = hot
            prefixMerge = Concurrently {
                handoff.merging(offers) { position in
                    let id = items[Int(position) - start]
                    return id == 0 ? nil : id
                }
            }
        }
        // Freed on another thread: a window's 2,048 prepared items (their terms' tables, records and offers) took a
        // twentieth of PyPI's bulk load on the transaction's thread to free.
        let finished = window
        window = PreparedUpsert.Window()
        if !finished.items.isEmpty { Self.freeElsewhere(finished) }
        windowNumbers = []
        windowItems = []
        windowPositions.removeAll()
        windowOffersFit = nil
    }

    /// `position`: the operation's in its batch (the prepared window's items are numbered by it).
    mutating func apply(_ operation: IndexOperation, at position: Int? = nil) throws {
        switch operation {
        case .upsert(let item, let isUpdate, let cleared, let clearedCustom):
            let prepared = isUpdate ? nil : position.flatMap { window.item(at: $0) }
            try upsert(item, isUpdate: isUpdate, cleared: cleared, clearedCustom: clearedCustom, prepared: prepared,
                       position: position)
        case .delete(let identifiers):
            // Deviation: deleting an identifier or domain with NUL deletes nothing. Such a key cannot be stored
            // (`IndexStore.validate`), so it matches nothing; binding it would cut it at the NUL and delete another.
            for uid in identifiers where uid.isStorableKey {
                if let entry = try catalog.entry(uid: uid) { try deleteRow(entry) }
            }
        case .deleteDomains(let domains):
            for domain in domains where domain.isStorableKey {
                for entry in try entries(ofDomain: domain) { try deleteRow(entry) }
            }
        case .deleteAll:
            unwrittenRecords.removeAll()
            closedBlocks.removeAll()
            // (What is being compressed is left to finish unread.)
            compressing.removeAll()
            // The window's items so far are gone: nothing of theirs is taken in at its end (and its offers were
            // made for long prefixes that no longer have lists).
            windowItems = [Int64](repeating: 0, count: windowItems.count)
            windowPositions.removeAll()
            windowOffersFit = nil
            openBlock.removeAll()
            openBlockBytes = 0
            pendingPostings.removeAll()
            pendingFirst = nil
            pendingItems = 0
            pendingDead = 0
            // (No list is left, so no long prefix has one; a merge under way is left to finish unread.)
            prefixMerge = nil
            prefixes = PrefixLists.Changes()
            pendingChanges.removeAll()
            pendingValues.removeAll()
            try values.deleteAll()
            try db.execute(sql: """
                DELETE FROM postings; DELETE FROM segment; DELETE FROM segmentDead; DELETE FROM prefixTop;
                DELETE FROM recordBlock; DELETE FROM postingData; DELETE FROM termBlock; DELETE FROM prefixPending;
                DELETE FROM meta WHERE key = 'clientState'
                """)
            try catalog.deleteAll()
            changedSegments = true
            itemsChanged = true
        }
    }

    /// Deletes expired items; returns how many.
    @discardableResult
    mutating func purgeExpired(now: Date) throws -> Int {
        // Cached statements here and below: every single write runs them, and preparing one (SQLite's parser) was
        // 7 % of a single write.
        let expired = try catalog.expired(at: now.timeIntervalSinceReferenceDate)
        for entry in expired { try deleteRow(entry) }
        return expired.count
    }

    /// Writes everything gathered: the new segment, record blocks, values, prefix lists, the next item id.
    mutating func finish() throws {
        endWindow()
        // The new segment and the last record blocks are encoded on the pool's threads while the prefix lists are
        // read and their merges started (for a large write, on the pool too); the blocks are written, then the
        // segment is inserted before the lists are written: a list refilled from the postings must find this
        // write's items. (Compressing the last blocks before reading the lists left one core idle at the end of
        // every batch of a bulk load.)
        let segment = startEncodingSegment()
        compressRemainingRecordBlocks()
        if !updatesLists, !pendingChanges.isEmpty,
           try PendingPrefixes.count(db) + pendingChanges.count > PendingPrefixes.limit {
            try updateListsFromNowOn()
        }
        var lists: PrefixLists.Application? = nil
        settlePrefixes()
        if updatesLists {
            var asOf = now
            if isLarge {
                // With every change still pending, which are older than this transaction's (an item it deleted that
                // came in a pending write is not added: its row is gone).
                asOf = try PendingPrefixes.drain(into: &prefixes, db: db, now: now).earliest
            }
            // (A large write holds the write lock by now: a read sees the store as the write found it.)
            let store = self.store
            let snapshot: PrefixLists.Snapshot = { body in try store.read(body) }
            lists = try PrefixLists.begin(prefixes, db: db, now: asOf, keysAsOf: now, onEveryCore: isLarge,
                                          snapshot: isLarge ? snapshot : nil)
            let hot = prefixes.hot
            prefixes = PrefixLists.Changes()
            prefixes.hot = hot
        } else {
            try PendingPrefixes.record(pendingChanges, now: now, db: db)
            pendingChanges.removeAll()
        }
        try writeRecordBlocks(final: true)
        try pendingValues.write(values)
        if let segment { try insertSegment(segment) } else { try flushSegment() }
        // (Refills read the postings, the transaction's segment among them.)
        try lists?.finish(db: db)
        // The lists' reads and merges and the encoded segment of a large write are freed on another thread, as a
        // window's prepared items are: freeing what the batch was done with was a fifth of what the transaction's
        // thread did alone at the end of each batch of a bulk load, the other core idle (perf, PyPI).
        if isLarge { Self.freeElsewhere((lists, segment)) }
        // Updated in place: `INSERT OR REPLACE` deleted the row and inserted it under a new rowid, which also
        // rewrote its entry in the key's index, one more page in every write's commit.
        if let nextItem {
            try db.cachedStatement(sql: Self.setMeta).execute(arguments: ["nextItem", nextItem])
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

    /// Sets a `meta` value, keeping the row where it is.
    static let setMeta = "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"

    /// Closed blocks held before they are compressed on another core (up to 128 KB of records): a large batch
    /// streams them. With 256 (about 1 MB), a batch of 10,000 of PyPI's short records (156 blocks) compressed
    /// every block at its end, with the transaction waiting.
    static let blocksHeld = 32

    /// Closes the open block and starts compressing every closed block on the pool's threads, in parts of at
    /// least `RecordBlocks.partBlocks` blocks (one per core at most), for `writeRecordBlocks(final: true)` to
    /// write. A write with fewer blocks (a single item's) leaves them to that call, on its own thread: a hop to
    /// the pool would cost a single write more than compressing its record.
    private mutating func compressRemainingRecordBlocks() {
        guard closedBlocks.count + (openBlock.isEmpty ? 0 : 1) >= RecordBlocks.partBlocks else { return }
        closeOpenBlock()
        startCompressingClosedBlocks(shared: true)
    }

    /// Moves the open block, if it holds records, to the closed ones.
    private mutating func closeOpenBlock() {
        guard !openBlock.isEmpty else { return }
        closedBlocks.append(openBlock)
        openBlock.removeAll()
        openBlockBytes = 0
    }

    /// Starts compressing the closed blocks on the pool's threads (their records stay waiting until the blocks are
    /// inserted): as one task, or `shared` in `RecordBlocks.shares`, the records left alone with the last.
    private mutating func startCompressingClosedBlocks(shared: Bool) {
        guard !closedBlocks.isEmpty else { return }
        let (blocks, alone) = takeClosedBlocks(keepingRecords: true)
        let parts = shared ? RecordBlocks.shares(of: blocks.count) : [blocks.indices]
        for (k, range) in parts.enumerated() {
            let some = Array(blocks[range]), lonely = k == parts.count - 1 ? alone : []
            compressing.append(Concurrently { [dictionary, blockTarget] in
                RecordBlocks.compress(blocks: some, alone: lonely, dictionary: dictionary, plainTarget: blockTarget)
            })
        }
    }

    /// Writes the closed blocks (and with `final` the open one) of records not written yet. A block left with fewer
    /// than `RecordBlocks.minimumRecords` records (the last of a write, or one whose items this write deleted
    /// again) stores them in their rows instead.
    ///
    /// Until the last call (`final`), the blocks are compressed on another core while the transaction goes on
    /// (compressing was a tenth of a bulk load's transaction thread), and written by the last call, which waits for
    /// them: a record whose item this write deleted meanwhile is counted dead in its block, as a delete after the
    /// block's write would.
    private mutating func writeRecordBlocks(final: Bool) throws {
        guard final else { return startCompressingClosedBlocks(shared: false) }
        closeOpenBlock()
        // The identifiers of the items catalogued in the blocks, written as one run at the end.
        var keys: [(uid: String, id: Int64)] = []
        for compression in compressing {
            let (packed, alone) = compression.value()
            packedSizes.plain += packed.plain
            packedSizes.rows += packed.rows
            var written: [(block: RecordBlocks.Frame, dead: [Int])] = []
            for block in packed.frames {
                // (Ids are never reused: a record no longer waiting was deleted by this write.)
                let dead = block.ids.indices.filter { unwrittenRecords.removeValue(forKey: block.ids[$0]) == nil }
                if dead.count < block.ids.count { written.append((block, dead)) }
            }
            try RecordBlocks.insert(written, db: db, keys: &keys)
            for record in alone where unwrittenRecords.removeValue(forKey: record.id) != nil {
                try storeAlone(record.id, Data(record.stored))
            }
        }
        compressing.removeAll()
        if !closedBlocks.isEmpty {
            let (blocks, alone) = takeClosedBlocks(keepingRecords: false)
            let packed = try RecordBlocks.write(blocks, dictionary: dictionary, plainTarget: blockTarget, db: db, keys: &keys)
            packedSizes.plain += packed.plain
            packedSizes.rows += packed.rows
            for record in alone {
                try storeAlone(record.id, Data(ValueCodec.stored(plain: record.plain, dictionary: dictionary)))
            }
        }
        try catalog.writeKeys(keys)
        // (What the rows came to guides the next write's guess.)
        store.recordRows.note(plain: packedSizes.plain, rows: packedSizes.rows, dictionary: dictionary)
        packedSizes = (0, 0)
    }

    /// Stores a record left alone (its block kept too few): in its item's row, or for a catalogued item in a row
    /// of its own it gets now.
    private func storeAlone(_ id: Int64, _ stored: Data) throws {
        if catalog.pending[id] != nil {
            try catalog.insertPendingAsRow(id, record: stored)
        } else {
            try catalog.setRecord(of: id, to: stored)
        }
    }

    /// The closed blocks' records still waiting (those this write deleted are gone), as blocks, and as records
    /// left alone where a block kept fewer than `RecordBlocks.minimumRecords`; the closed blocks are emptied.
    private mutating func takeClosedBlocks(keepingRecords: Bool)
        -> (blocks: [RecordBlocks.Plain], alone: [(id: Int64, plain: [UInt8])])
    {
        var blocks: [RecordBlocks.Plain] = []
        var alone: [(id: Int64, plain: [UInt8])] = []
        for ids in closedBlocks {
            let records = ids.compactMap { id in
                (keepingRecords ? unwrittenRecords[id] : unwrittenRecords.removeValue(forKey: id)).map { (id: id, plain: $0) }
            }
            guard records.count >= RecordBlocks.minimumRecords else {
                alone += records
                continue
            }
            // A write catalogues all of its prepared items or none.
            let fields = records.compactMap { catalog.pending[$0.id] }
            blocks.append(RecordBlocks.Plain(records: records, catalogue: fields.count == records.count ? fields : nil))
        }
        closedBlocks.removeAll()
        return (blocks, alone)
    }

    private mutating func flushSegment() throws {
        guard let first = pendingFirst, let nextItem else { return }
        if !pendingPostings.isEmpty {
            let terms = self.terms
            try SegmentMerger.writeSegment(db, postings: &pendingPostings, firstItem: first, lastItem: nextItem - 1,
                                           items: pendingItems, deadItems: pendingDead) { terms.string(Int($0)) }
            changedSegments = true
        }
        pendingFirst = nil
        pendingItems = 0
        pendingDead = 0
    }

    /// A segment of the pending postings being encoded on another core, with what its row needs.
    private struct EncodingSegment {
        var encoding: Concurrently<SegmentMerger.EncodedSegment>
        var first: Int64
        var last: Int64
        var items: Int
        var dead: Int
    }

    /// Starts encoding the pending postings' segment on another core; nil when there is none.
    private mutating func startEncodingSegment() -> EncodingSegment? {
        guard let first = pendingFirst, let nextItem, !pendingPostings.isEmpty else { return nil }
        let terms = self.terms
        let postings = pendingPostings
        pendingPostings.removeAll(keepingCapacity: true)
        let segment = EncodingSegment(
            encoding: Concurrently { SegmentMerger.encodeSegment(postings) { terms.string(Int($0)) } },
            first: first, last: nextItem - 1, items: pendingItems, dead: pendingDead)
        pendingFirst = nil
        pendingItems = 0
        pendingDead = 0
        return segment
    }

    /// Inserts a segment `startEncodingSegment` began.
    private mutating func insertSegment(_ segment: EncodingSegment) throws {
        var encoded = segment.encoding.value()
        try SegmentMerger.insertSegment(db, segment: &encoded, firstItem: segment.first, lastItem: segment.last,
                                        items: segment.items, deadItems: segment.dead)
        changedSegments = true
        if isLarge { Self.freeElsewhere(encoded) }
    }

    /// Frees `value` on one of libdispatch's utility threads: what a large write is done with (only values that
    /// hold no database object, which must be freed on the connection's thread).
    static func freeElsewhere<Value>(_ value: consuming Value) {
        let box = Leftover(value)
        DispatchQueue.global(qos: .utility).async { withExtendedLifetime(box) {} }
    }

    /// A value handed to another thread only to be freed there (`freeElsewhere`).
    private final class Leftover<Value>: @unchecked Sendable {
        let value: Value
        init(_ value: consuming Value) { self.value = value }
    }

    /// Allocates the id of a new item row.
    private mutating func allocateItemID() throws -> Int64 {
        let id: Int64
        if let nextItem {
            id = nextItem
        } else {
            let stored = try Int64.fetchOne(db.cachedStatement(sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'nextItem'")) ?? 1
            id = max(stored, try catalog.nextID())
        }
        nextItem = id + 1
        if pendingFirst == nil { pendingFirst = id }
        pendingItems += 1
        return id
    }

    /// The attributes of an item: from its row, a record not written yet, or its block.
    private func record(_ entry: ItemCatalog.Entry) throws -> (attributes: [String: AttributeValue], custom: [String: CustomAttribute]) {
        if entry.record.isEmpty, let plain = unwrittenRecords[entry.id] { return try ValueCodec.decode(plain) }
        return try entry.attributes(in: db)
    }

    /// The items of a domain and its sub-domains (`DomainMatch`): found through their exact domain terms, in the
    /// segments and in this write's postings not yet in one, where the store has them; else through
    /// `item_domain`.
    private func entries(ofDomain domain: String) throws -> [ItemCatalog.Entry] {
        var pending: [Int64] = []
        if let term = terms.existingNumber(of: TextIndexer.exactDomainTerm(for: domain)).map(Int64.init) {
            for posting in pendingPostings where posting.term == term { pending.append(posting.item) }
        }
        return try catalog.entries(ofDomain: domain, adding: pending) ?? []
    }

    private mutating func deleteRow(_ entry: ItemCatalog.Entry) throws {
        let id = entry.id
        let decoded = try record(entry)
        switch entry.location {
        case .row where entry.record.isEmpty:
            // In a block: not written yet (it never will be), or counted dead in its block.
            if unwrittenRecords.removeValue(forKey: id) == nil { try RecordBlocks.noteDeleted(item: id, db: db) }
        case .pending:
            // Its block is not written yet (it never will be with it), or is being compressed (then it is counted
            // gone in it).
            unwrittenRecords.removeValue(forKey: id)
        case .row, .block:
            // (A catalogued item is counted gone in its block by `catalog.delete`.)
            break
        }
        let terms = TextIndexer.terms(attributes: decoded.attributes, custom: decoded.custom, domain: entry.domain)
        if let position = windowPositions.removeValue(forKey: id) {
            // Added in this window, whose offers are taken in at its end: its offer is simply left out.
            windowItems[position - window.range.lowerBound] = 0
        } else {
            try noteListChange(.init(item: id, removed: true, terms: terms))
        }
        try removeValues(item: id, AttributeValueIndex.values(attributes: decoded.attributes, custom: decoded.custom))
        try catalog.delete(entry)
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
                                 prepared: PreparedUpsert?, position: Int?) throws {
        let existing = try catalog.entry(uid: item.uniqueIdentifier)
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
                domain = item.domainIdentifier ?? existing.domain
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
        // (A prepared item's terms are numbered in its window: made as text only if a list change needs them.)
        let computedTerms = prepared == nil ? TextIndexer.terms(attributes: attributes, custom: custom, domain: domain) : nil
        let initials = prepared?.initials ?? Data(Initials.encode(computedTerms ?? [:]))
        if prepared != nil, try cataloguesItems() {
            // Stored with its block (or in a row, if its block keeps too few records).
            catalog.addPending(id: id, ItemCatalog.Fields(
                uid: item.uniqueIdentifier, domain: domain, expires: item.expirationDate.timeIntervalSinceReferenceDate,
                hint: hint, lastUsed: lastUsed, name: name, initials: [UInt8](initials)))
        } else {
            try catalog.insert(id: id, uid: item.uniqueIdentifier, domain: domain,
                               expires: item.expirationDate.timeIntervalSinceReferenceDate, hint: hint, lastUsed: lastUsed,
                               record: bytes, name: name, initials: initials)
        }
        if let prepared {
            unwrittenRecords[id] = prepared.plain
            openBlock.append(id)
            openBlockBytes += prepared.plain.count
            if openBlockBytes >= blockTarget || openBlock.count >= RecordBlocks.maximumRecords {
                closedBlocks.append(openBlock)
                openBlock.removeAll(keepingCapacity: true)
                openBlockBytes = 0
                if closedBlocks.count >= Self.blocksHeld { try writeRecordBlocks(final: false) }
            }
        }
        if let prepared {
            // The window's terms, numbered once each when the window began.
            for (index, tiers) in prepared.termIndexes {
                pendingPostings.append((Int64(windowNumbers[Int(index)]), id, tiers))
            }
        } else {
            for (text, tiers) in computedTerms ?? [:] {
                pendingPostings.append((Int64(terms.number(of: text)), id, tiers))
            }
        }
        let hintPoints = Ranking.hintPoints(hint) + Ranking.recencyPoints(lastUsed: lastUsed, now: now)
        if let prepared {
            // (A prepared upsert is part of a large write: it updates the lists.)
            isLarge = true
            try updateListsFromNowOn()
            if windowOffersFit == nil { windowOffersFit = window.offers != nil && window.hot == prefixes.hot }
            if windowOffersFit == true, let position {
                // Its offers are the window's, taken in at the window's end.
                windowItems[position - window.range.lowerBound] = id
                windowPositions[id] = position
            } else if prepared.hot == prefixes.hot {
                settlePrefixes()
                prefixes.add(item: id, uid: item.uniqueIdentifier, points: prepared.prefixPoints, hintPoints: hintPoints)
            } else {
                settlePrefixes()
                prefixes.add(item: id, uid: item.uniqueIdentifier,
                             terms: TextIndexer.terms(attributes: attributes, custom: custom, domain: domain),
                             name: name, hintPoints: hintPoints)
            }
        } else {
            try noteListChange(.init(item: id, removed: false, terms: computedTerms ?? [:],
                                     added: (uid: item.uniqueIdentifier, name: name, hintPoints: hintPoints)))
        }
        // A large write's new items' values go into groups (a row per entry was 18 MB of PyPI's index), written
        // when the write finishes; a single write's are rows.
        let grouped = try prepared != nil && groupsItemValues()
        for entry in prepared?.values ?? AttributeValueIndex.values(attributes: attributes, custom: custom) {
            let code = AttributeValueIndex.code(entry.attribute)
            if grouped {
                pendingValues.add(code: code, value: entry.value, item: id)
            } else {
                try values.insertRow(code: code, value: entry.value, item: id)
            }
        }
    }

    private mutating func removeValues(item: Int64, _ entries: Set<AttributeValueIndex.Entry>) throws {
        guard !entries.isEmpty else { return }
        let index = values
        for entry in entries {
            let code = AttributeValueIndex.code(entry.attribute)
            if !pendingValues.isEmpty, pendingValues.remove(code: code, value: entry.value, item: item) { continue }
            try index.remove(code: code, value: entry.value, item: item)
        }
    }

}

/// What an upsert needs that depends on the item alone, computed before the write transaction and on every core
/// (`prepare`): a bulk load spends most of its time tokenizing and encoding, and none of that needs the write
/// lock.
///
/// A class: a window's items are handed from their part to the window and read by the transaction, and as a
/// struct of eight references each hand-over retained and released every one of them (with the copy that
/// renumbering the terms made of `termIndexes`, 3 % of a bulk load's CPU). Its terms are renumbered once, by the
/// assembly, before the window is shared; nothing changes it after.
final class PreparedUpsert: @unchecked Sendable {
    /// The item's terms (`TextIndexer.terms`) by their number in the window's terms (`Window.terms`; in the
    /// terms of its part until the window is assembled), with their tiers.
    var termIndexes: [(index: Int32, tiers: UInt8)]
    let values: Set<AttributeValueIndex.Entry>
    /// The item's record, not compressed: it goes into a block of records (`RecordBlocks`).
    let plain: [UInt8]
    let name: NameSignals
    /// `Initials.encode(terms)`.
    let initials: Data
    /// The item's best word points per prefix for the long prefixes that had lists when it was prepared
    /// (`hot`); used only if the transaction finds the same set.
    let prefixPoints: PrefixLists.PrefixPoints
    let hot: PrefixLists.HotPrefixes

    init(termIndexes: [(index: Int32, tiers: UInt8)], values: Set<AttributeValueIndex.Entry>, plain: [UInt8],
         name: NameSignals, initials: Data, prefixPoints: PrefixLists.PrefixPoints, hot: PrefixLists.HotPrefixes) {
        self.termIndexes = termIndexes
        self.values = values
        self.plain = plain
        self.name = name
        self.initials = initials
        self.prefixPoints = prefixPoints
        self.hot = hot
    }

    /// Below this many replacing upserts a batch is prepared inside the transaction, as before.
    static let parallelThreshold = 64

    /// Operations prepared at once: a larger batch is prepared a window at a time, so memory stays bounded, and the
    /// next window is prepared (`Concurrently`) while the transaction applies one.
    static let window = 2_048

    /// The first window of a large batch: prepared before the transaction starts, with the transaction waiting,
    /// so it is small; the next one is prepared (on the other cores) while the transaction applies it. With a
    /// first window of `window` items, each of PyPI's batches of 10,000 began with ~0.1 s of preparing on one
    /// core and a half while the writer waited.
    static let firstWindow = 256

    /// The windows of a batch of `count` operations: one when they fit in `window`; else `firstWindow`, then
    /// `window` at a time, a last one of fewer than a quarter of `window` joined to the one before (a window of
    /// fewer than `parallelThreshold` upserts is not prepared: its items would take the single-item way).
    static func windows(_ count: Int) -> [Range<Int>] {
        guard count > window else { return count > 0 ? [0..<count] : [] }
        var windows = [0..<firstWindow]
        var start = firstWindow
        while start < count {
            var end = min(count, start + window)
            if count - end < window / 4 { end = count }
            windows.append(start..<end)
            start = end
        }
        return windows
    }

    /// A window of prepared upserts, with what the transaction's thread would otherwise compute for each item:
    /// the window's distinct terms (each numbered once per window, not once per item), and its items' offers to
    /// the prefix lists (each prefix's best few of the window, rather than every item's offer to every prefix: a
    /// Debian item offers itself to ~150 prefixes). Both were a quarter of a bulk load's transaction thread.
    struct Window: Sendable {
        /// The prepared form of each replacing upsert (`isUpdate == false`, whose attributes are the item's own),
        /// by position in the window (`range`); empty for small batches.
        var items: [PreparedUpsert?] = []
        /// Every term of `items`, once, in the order of their first item (the items' `termIndexes` number them).
        var terms = TermTable()
        /// The items' offers to the prefix lists, under their positions as item numbers, for `hot` (and the
        /// transaction's time); nil when nothing was prepared.
        var offers: PrefixLists.Changes? = nil
        var hot: PrefixLists.HotPrefixes = []
        /// The positions the window covers.
        var range: Range<Int> = 0..<0

        /// The prepared upsert at a position of the batch, if the window has one.
        func item(at position: Int) -> PreparedUpsert? {
            let index = position - range.lowerBound
            return items.indices.contains(index) ? items[index] : nil
        }
    }

    static func prepare(_ operations: [IndexOperation], in range: Range<Int>, hot: PrefixLists.HotPrefixes,
                        now: Date) -> Window {
        let positions = upsertPositions(operations, in: range)
        guard positions.count >= parallelThreshold else { return Window() }
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))
        let chunk = (positions.count + workers - 1) / workers
        let results = Mutex<[Part]>(Array(repeating: Part(), count: workers))
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let local = prepareItems(operations, positions.dropFirst(worker * chunk).prefix(chunk), hot: hot)
            results.withLock { $0[worker] = local }
        }
        return assemble(operations, in: range, positions: positions, parts: results.withLock { $0 }, hot: hot, now: now)
    }

    /// The positions of a window's replacing upserts (`isUpdate == false`): those prepared.
    private static func upsertPositions(_ operations: [IndexOperation], in range: Range<Int>) -> [Int] {
        range.filter {
            if case .upsert(_, false, _, _) = operations[$0] { return true }
            return false
        }
    }

    /// Some of a window's upserts prepared (`prepareItems`): their items' terms are numbered in `terms`.
    struct Part: Sendable {
        var items: [(position: Int, item: PreparedUpsert)] = []
        var terms = TermTable()
    }

    /// Tokenizes and encodes the upserts at `positions`.
    private static func prepareItems(_ operations: [IndexOperation], _ positions: ArraySlice<Int>,
                                     hot: PrefixLists.HotPrefixes) -> Part {
        var part = Part()
        part.items.reserveCapacity(positions.count)
        part.terms = TermTable(capacity: positions.count * 8)
        var terms = ItemTerms()
        var shortPoints = UInt64Map<Double>(capacity: 64)
        for position in positions {
            guard case .upsert(let item, _, _, _) = operations[position] else { continue }
            TextIndexer.collectTerms(attributes: item.attributes, custom: item.customAttributes,
                                     domain: item.domainIdentifier, into: &terms)
            var indexes: [(index: Int32, tiers: UInt8)] = []
            indexes.reserveCapacity(terms.count)
            terms.forEach { term, tiers in indexes.append((part.terms.number(of: term).number, tiers)) }
            let name = NameSignals(attributes: item.attributes)
            part.items.append((position, PreparedUpsert(
                termIndexes: indexes,
                values: AttributeValueIndex.values(attributes: item.attributes, custom: item.customAttributes),
                plain: ValueCodec.encode(attributes: item.attributes, custom: item.customAttributes),
                name: name,
                initials: Data(Initials.encode(terms)),
                prefixPoints: PrefixLists.bestPoints(terms, hot: hot, name: name, short: &shortPoints), hot: hot)))
        }
        return part
    }

    /// A window prepared while the transaction applies the one before it, in parts that whichever thread comes
    /// first takes up: the pool's, or the transaction's once it has applied its window and asks for this one
    /// (`value`). Prepared as one piece on another core, a window of Debian's items (68 µs each to prepare, 35 µs
    /// to apply) kept the transaction's thread waiting half the time.
    final class Background: Sendable {
        private let parts: [Concurrently<Part>]
        private let window: Concurrently<Window>

        /// Items per part.
        static let part = 256

        init(_ operations: [IndexOperation], in range: Range<Int>, hot: PrefixLists.HotPrefixes, now: Date) {
            let positions = upsertPositions(operations, in: range)
            guard positions.count >= parallelThreshold else {
                parts = []
                window = Concurrently { Window() }
                return
            }
            let parts = stride(from: 0, to: positions.count, by: Self.part).map { start in
                Concurrently { prepareItems(operations, positions[start..<min(positions.count, start + Self.part)], hot: hot) }
            }
            self.parts = parts
            // (The assembly takes up, on its own thread, the parts no thread has started.)
            window = Concurrently {
                assemble(operations, in: range, positions: positions, parts: parts.map { $0.value() }, hot: hot, now: now)
            }
        }

        /// The window: the parts no thread has started are prepared on the caller's thread, last first (the pool
        /// takes them first first).
        func value() -> Window {
            for part in parts.reversed() { _ = part.value() }
            return window.value()
        }
    }

    /// A window from its prepared items: their offers to the prefix lists and their terms numbered.
    private static func assemble(_ operations: [IndexOperation], in range: Range<Int>, positions: [Int],
                                 parts: [Part], hot: PrefixLists.HotPrefixes, now: Date) -> Window {
        // The window's terms: each part's, numbered in part order (the same numbers whichever worker ran first).
        var terms = TermTable(capacity: parts.reduce(0) { $0 + $1.terms.count })
        var items = [PreparedUpsert?](repeating: nil, count: range.count)
        for part in parts {
            let numbers = terms.add(part.terms)
            for (position, prepared) in part.items {
                prepared.termIndexes.withUnsafeMutableBufferPointer { indexes in
                    for k in indexes.indices { indexes[k].index = numbers[Int(indexes[k].index)] }
                }
                items[position - range.lowerBound] = prepared
            }
        }
        // The items' offers to the prefix lists: short prefixes by the rank of their identifiers among the
        // window's (`PrefixLists.WindowOffers`), the few long ones as entries. Each upsert's identifier and hint
        // points are read from its operation once, by position in the window (a dictionary of ranks by identifier,
        // and the operations read again for every offer kept, were a fifth of this assembly).
        let lower = range.lowerBound
        var uids = [String](repeating: "", count: range.count)
        var hintPoints = [Double](repeating: 0, count: range.count)
        var offered: [Int] = []
        offered.reserveCapacity(positions.count)
        for position in positions {
            guard items[position - lower] != nil, case .upsert(let item, _, _, _) = operations[position] else { continue }
            uids[position - lower] = item.uniqueIdentifier
            // (The key `Writer.upsert` gives the item: a replacing upsert's hint and date are the item's own.)
            hintPoints[position - lower] = Ranking.hintPoints(item.rankingHint)
                + Ranking.recencyPoints(lastUsed: item.lastUsedDate?.timeIntervalSinceReferenceDate, now: now)
            offered.append(position - lower)
        }
        let ranked = offered.sorted { uids[$0] < uids[$1] }
        // Equal identifiers share a rank.
        var ranks = [Int32](repeating: 0, count: range.count)
        var rank: Int32 = -1
        for (k, offset) in ranked.enumerated() {
            if k == 0 || uids[offset] != uids[ranked[k - 1]] { rank += 1 }
            ranks[offset] = rank
        }
        var offers = PrefixLists.Changes()
        offers.hot = hot
        var shortOffers = PrefixLists.WindowOffers()
        for offset in offered {
            let prepared = items[offset]!, key = hintPoints[offset], rank = ranks[offset]
            let position = lower + offset
            prepared.prefixPoints.short.forEach { prefix, points in
                shortOffers.offer(prefix: prefix, key: points + key, rank: rank, position: Int32(position))
            }
            for (prefix, points) in prepared.prefixPoints.long {
                offers.addedLong[prefix, default: PrefixLists.Changes.Added()]
                    .insert(PrefixLists.Entry(item: Int64(position), key: points + key, uid: uids[offset]))
            }
        }
        offers.added = shortOffers.changes { position in uids[Int(position) - lower] }
        return Window(items: items, terms: terms, offers: offers, hot: hot, range: range)
    }
}

/// Binds a parameter of a prepared statement through SQLite's C API (`SegmentMerger.bindAndStep`), copying it, as
/// GRDB would bind it: nil as NULL, an empty string or blob as an empty value, not NULL.
/// SQLite's order of texts (`BINARY`: their UTF-8 bytes), compared with `memcmp`: a sort of a segment's or a
/// batch's terms by `utf8.lexicographicallyPrecedes` stepped the bytes one at a time through generic code (2 s of
/// PyPI's bulk load).
enum UTF8Order {
    static func precedes(_ a: String, _ b: String) -> Bool {
        let fast = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in
                let common = min(x.count, y.count)
                let order = common == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, common)
                return order != 0 ? order < 0 : x.count < y.count
            }
        }
        if let fast, let result = fast { return result }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}

enum RawBind {
    static func text(_ statement: OpaquePointer, _ index: Int32, _ value: String?) {
        guard var value else {
            sqlite3_bind_null(statement, index)
            return
        }
        _ = value.withUTF8 { utf8 in
            if let base = utf8.baseAddress, utf8.count > 0 {
                sqlite3_bind_text(statement, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self),
                                  Int32(utf8.count), SQLITE_TRANSIENT)
            } else {
                sqlite3_bind_text(statement, index, "", 0, SQLITE_TRANSIENT)
            }
        }
    }

    static func double(_ statement: OpaquePointer, _ index: Int32, _ value: Double?) {
        if let value { sqlite3_bind_double(statement, index, value) } else { sqlite3_bind_null(statement, index) }
    }

    static func blob(_ statement: OpaquePointer, _ index: Int32, _ value: Data) {
        value.withUnsafeBytes { blob(statement, index, $0) }
    }

    static func blob(_ statement: OpaquePointer, _ index: Int32, _ value: [UInt8]) {
        value.withUnsafeBytes { blob(statement, index, $0) }
    }

    private static func blob(_ statement: OpaquePointer, _ index: Int32, _ bytes: UnsafeRawBufferPointer) {
        if let base = bytes.baseAddress, bytes.count > 0 {
            sqlite3_bind_blob(statement, index, base, Int32(bytes.count), SQLITE_TRANSIENT)
        } else {
            sqlite3_bind_zeroblob(statement, index, 0)
        }
    }
}

/// What `spotlight-bench prepare` times.
package enum BulkPreparation {
    /// Prepares `operations` a window at a time on the caller's thread, as a bulk load's pool does (tokenizing,
    /// encoding, the prefix offers, the window's terms numbered), and returns how many terms the windows numbered:
    /// a bulk load's work apart from the database and the other threads.
    package static func prepareSerially(_ operations: [IndexOperation], now: Date = Date()) -> Int {
        var terms = 0
        for range in PreparedUpsert.windows(operations.count) {
            terms += PreparedUpsert.prepareSerially(operations, in: range, now: now).terms.count
        }
        return terms
    }
}

extension PreparedUpsert {
    /// A window prepared on the caller's thread alone.
    static func prepareSerially(_ operations: [IndexOperation], in range: Range<Int>, now: Date) -> Window {
        let positions = upsertPositions(operations, in: range)
        guard positions.count >= parallelThreshold else { return Window() }
        let part = prepareItems(operations, positions[...], hot: [])
        return assemble(operations, in: range, positions: positions, parts: [part], hot: [], now: now)
    }
}
