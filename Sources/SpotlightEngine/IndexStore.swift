import Foundation
import GRDB
import GRDBSQLite
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One durable index store: a SQLite database in WAL mode holding the items of one (app, index name), their
/// inverted text index and the index's client state.
///
/// Every change is one SQLite transaction, so a batch and its client state become visible and durable together or
/// not at all, and several processes may write the same store (SQLite serialises writers; readers never block).
///
/// Schema (format version 20):
/// - `meta(key, value)`: `formatVersion`, `clientState`, `nextItem` (the next item id: ids only grow), `domainTerms`, `keywordTerms` and `exactDomainTerms` (every item posts its domain's
///   words, its keywords and its domain whole under terms of their own, `TextIndexer`; a store with
///   `exactDomainTerms` has no `item_domain` index), `recordDictionary`, `itemChanges`.
/// - `item(id, uid, domain, expires, hint, lastUsed, attrs, nameWords, nameFirst, nameKey, initials)`: one row per
///   item; `attrs` is `ValueCodec` bytes, or empty when the record is in a block (`recordBlock`); the `name…`
///   columns are its `NameSignals` (the key's hash as a 64-bit integer); `initials` its best match per one-letter
///   prefix (`Initials`, at most 18 bytes). `item_expires` indexes the items that expire only; stores of format 11 and before also have `item_domain`.
///   Items of large writes have no row since format 13 (`ItemCatalog`): their fields are in their record block,
///   their identifiers in sorted runs since format 18 (`KeyRuns`: `keyRun(id, count, salt, filter)` and
///   `keyBlock(run, first, data)`; `itemKey(uid, id)` before), the expiry of those that expire in `itemExpiry(expires, id)`, the
///   hint and last use of those that have one in `itemRanked(id, hint, lastUsed)`. Since format 19 a block lays out
///   its records by attribute (`RecordColumns`).
/// - No vocabulary apart from the segments' own dictionaries since format 16 (`SegmentVocabulary`); formats 5 to 15
///   kept `term(text, id, df)`, every term with its document frequency, and `dfPending(seq, terms)`, the frequency
///   decrements small writes left for later.
/// - `segment(id, firstItem, lastItem, items, postings, deadItems, token, packed)`, `termBlock(id, data)` (format
///   11: a segment's terms and lists in blocks of about 4 KB, `TermBlocks`) and `postings(text, segment, count,
///   data)` (format 7 to 10's rows, keyed by segment, then text): the text index as immutable segments of
///   block-compressed posting lists (`Segments.swift`); each posting carries the tier mask of `TextIndexer`.
/// - `attrValue(attr, value, item)`: every number, Boolean and date attribute value (dates as seconds since 2001)
///   under its attribute's code (`AttributeValueIndex.code`), so attribute filters on them are range lookups
///   (`QueryPlanner`); since format 14 a large write's new items' values are groups of
///   `valueGroup(attr, value, first, last, count, items)` instead, each the items with one value (`ValueIndex`).
/// - `prefixTop(prefix, complete, entries)`: score-ordered candidates of short prefixes (`PrefixLists`; since
///   format 20 keys as steps, and a complete list as its count).
/// - `recordDictionary(id, data)`: the zstd dictionaries `attrs` frames are compressed with (`RecordDictionary`);
///   `meta.recordDictionary` names the one writes use.
/// - `recordBlock(id, last, count, dead, data, catalog, gone, rawFields)`: the records of large writes, compressed a
///   block at a time (`RecordBlocks`), each block's row about a page; a catalogue block (`catalog = 1`) also holds
///   its items' fields (since format 17 their initials too), `gone` a bit per item deleted since, `rawFields` each
///   item's name key (and before format 17 its initials).
/// - `prefixPending(seq, item, removed, at, terms)`: the prefix-list changes small writes left for later
///   (`PendingPrefixes`).
package final class IndexStore: Sendable {
    /// The format this version writes and reads. Older formats are upgraded in place when a store is opened for
    /// writing: format 1 (one `posting` row per term and item) by `upgradeFromFormat1`, format 2 (no name
    /// signals, prefix-list keys of the earlier ranking) by `upgradeFromFormat2`, format 3 (no `initials`) by
    /// `upgradeFromFormat3`, format 4 (no record dictionaries) by `upgradeFromFormat4`, format 5 and 7 by their
    /// version (no domain and keyword terms of their own), format 6 (postings keyed by text) by
    /// `upgradeFromFormat6`, format 8 by its version (no pending prefix-list changes: a format 8 reader would not
    /// see items whose changes are pending), format 9 by its version (no pending frequency decrements: a format 9
    /// reader would count the items a small write deleted, in completions and typo tolerance's threshold), format
    /// 10 by its version (segments stored as posting rows, read as they are and written again as term blocks by the
    /// maintenance, `SegmentMerger.nextMerge`), format 11 by its version (items without exact domain terms, so
    /// domains are found through `item_domain` as before: a format 11 reader of a format 12 store would have no
    /// such index and no way to find a domain's items but a scan), format 12 by its version and the catalogue's
    /// tables and columns (its items keep their rows; a format 12 reader would not see catalogued items), format 13
    /// by its version and the table of value groups (its values keep their rows; a format 13 reader would not find
    /// grouped values), format 14 by its version (its lists stay as they are; a format 14 reader would take a
    /// one-posting list, `PostingCodec.singleTag`, for damage), format 15 by dropping its global vocabulary (`term`
    /// and `dfPending`: the segments' dictionaries hold every term; a format 15 reader would find no term), format
    /// 16 by its version (its catalogue blocks stay as they are; a format 16 reader would take a catalogued item
    /// whose initials are in its block's section for damage), format 17 by writing `itemKey` as one identifier
    /// run and dropping it (a format 17 reader would find no catalogued item by its identifier), format 18 by its
    /// version (its blocks of records stay as they are; a format 18 reader would take a block whose records are laid
    /// out by attribute, `RecordColumns`, for damage), format 19 by its version (its prefix lists stay as they are; a
    /// format 19 reader would take a list written with its keys as steps, or as its count, for damage).
    package static let formatVersion = 20
    /// The oldest format a store opened read-only is searched in as it is: a format 5 store's domains are found
    /// through the metadata tier and a format 5 to 7 store's keywords through every tier (`TermLookup.resolved`);
    /// the lookups of posting rows read format 4 to 6's key order (text, segment) as well as format 7's.
    static let oldestReadableFormat = 5

    /// How long a connection waits for a lock held by another connection or process before failing with busy.
    static let busyTimeout: TimeInterval = 30

    /// The store file.
    package let url: URL
    let pool: DatabasePool
    /// Reads under way on this store's reader connections (at most `Configuration.maximumReaderCount`, 5).
    private let readsUnderWay = Atomic<Int>(0)
    /// Set by a large write (or a merge), so that what it left in memory is released once the store is at rest
    /// (`EngineMemory`, `releaseMemoryAtRest`).
    let memoryToRelease = Atomic<Bool>(false)
    // Fair writes and checkpoints (WriteScheduling.swift).
    let turnstile: WriterTurnstile
    let busyPolicy = BusyPolicy()
    let checkpointer: IdleCheckpointer
    /// What this process knows of the dictionary writes compress records with (`RecordDictionary`).
    struct WriteDictionary {
        var looked = false
        var dictionary: RecordDictionary? = nil
        var trainingTried = false
    }
    let writeDictionary = Mutex(WriteDictionary())
    /// The id of a dictionary a committed write of this store found or stored in its file: later writes skip the
    /// check (it read the 64 KB dictionary back and compared it, a quarter of a single write's 1.5 ms). Dictionaries
    /// are never deleted from a file, and a store replaced at its path is opened as another `IndexStore`.
    let dictionaryInFile = Mutex<UInt32?>(nil)
    /// The most a WAL file keeps on disk once an idle store's checkpoint has run (`IdleCheckpointer` empties a
    /// larger one).
    static let walSizeLimit = 8 << 20
    /// What a WAL file may keep while writes go on (`journal_size_limit`): more than the checkpoints let it grow
    /// to (`IdleCheckpointer.inlineFrames`), so that a stream of writes reuses the file's blocks instead of having
    /// SQLite truncate it at each restart and extend it again. A truncation and each commit that extends the file
    /// change its size, which `fdatasync` must then journal (on the benchmark machine the commit after a restart
    /// took ~3 ms and a truncating checkpoint held the write lock 8–10 ms; an `fdatasync` of blocks the file has
    /// takes 0.1 ms).
    static let journalSizeLimit = 64 << 20
    /// A reader connection's page cache, in KB.
    static let readerCacheKB = 8_192
    let maintenance = MaintenanceScheduler()
    /// The segments' static ranking signals, read once per segment (`StaticColumns`).
    let columnCache = ColumnCache()
    /// How this store's record blocks compress, so that a write's blocks fill their rows' pages.
    let recordRows = RecordBlocks.RowSizing()
    /// The vocabulary's terms by first letter, for typo tolerance's walk (`VocabularyLetters`).
    let vocabularyLetters = VocabularyLetters()
    /// The searches' scratch buffers (`ScratchPool`).
    let scratchPool = ScratchPool()
    /// The words of items read by searches' forward checks (`ForwardTermsCache`).
    let forwardTerms = ForwardTermsCache()
    /// The number and date index's attributes as columns, read once per attribute (`ValueColumns`).
    let valueColumnCache = ValueColumnCache()
    var valueColumns: ValueColumns { ValueColumns(cache: valueColumnCache, store: self) }
    /// The items of the last filter a search read, and the items' state it was read in (`itemsState`): typing
    /// repeats the same filter with every keystroke, and a wide one names tens of thousands of items.
    let filterCache = Mutex<(lookup: TermLookup, state: Int64, ids: ItemIDSet)?>(nil)
    /// The items whose prefix-list changes are pending, and the items' state they were read in (`pendingItems`).
    let pendingCache = Mutex<(state: Int64, items: [PendingPrefixes.PendingItem])?>(nil)
    let closed = Mutex(false)
    /// Slices of free pages the maintenance released (`releaseFreePages`; for tests).
    let pagesReleased = Atomic<Int>(0)
    /// Whether the file gives its free pages back (`auto_vacuum = INCREMENTAL`), once `releaseFreePages` read it.
    let incrementalVacuum = Mutex<Bool?>(nil)
    /// Set when a commit found the WAL file deleted (`writeTransaction`): `StoreRegistry` then reopens the store.
    let walLost = Atomic<Bool>(false)
    /// How many write transactions this object has run (tests: a read must never start one).
    let writeTransactions = Atomic<Int>(0)
    /// The durable writes (an app's) of this object waiting for the writer or running: the maintenance's
    /// catch-up gives the writer up to them between its steps (`catchUp`, `writesPaused`).
    let durableWritesInFlight = Atomic<Int>(0)
    /// Whether the writer connection may be left at `synchronous = NORMAL` by a maintenance transaction
    /// (`writeTransaction(durable:)`); used only on the writer's queue.
    let syncRelaxed = Atomic<Bool>(false)
    /// Whether the store's WAL was deleted while it was open; a new `IndexStore` must replace this one.
    package var needsReopening: Bool { walLost.load(ordering: .relaxed) }

    /// Whether this process may only read the store: the file (or its folder) is not writable by this user.
    /// Searches work; writes fail with `.permissionDenied`.
    package let isReadOnly: Bool

    /// Opens (and creates if needed) the store at `url`.
    ///
    /// A store this user may read but not write opens read-only (`isReadOnly`), so it can still be searched; so
    /// does one opened with `readOnly` (nothing is created, upgraded or written). Store files that are symbolic links are refused, never followed: a link could make writes land in another
    /// app's store or outside the root.
    ///
    /// - Throws: `EngineError` `.indexUnavailable` when the file cannot be created or opened (or is a symbolic
    ///   link), `.permissionDenied` when this user may not read it, `.corruptIndex` when it is not a readable
    ///   store, `.unsupportedFormat` when a newer version wrote it.
    package init(url: URL, create: Bool = true, readOnly readOnlyRequested: Bool = false) throws {
        self.url = url
        EngineMemory.fixMappedThreshold()
        try StoreLocation.refuseSymbolicLinks(url)
        if !StoreLocation.exists(url) {
            guard create, !readOnlyRequested else { throw EngineError(.indexUnavailable, "no index at \(url.path)") }
            do {
                try StoreLocation.createPrivateDirectory(url.deletingLastPathComponent())
            } catch {
                throw EngineError.fromFileError(error, "cannot create \(url.deletingLastPathComponent().path)")
            }
            // Create the file ourselves with mode 0600; SQLite gives the -wal and -shm files the same mode.
            // O_NOFOLLOW | O_EXCL: a link planted in the meantime is not followed.
            let fd = open(url.path, O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd < 0, errno != EEXIST {
                throw EngineError.fromErrno(errno, "cannot create \(url.path)")
            }
            if fd >= 0 { closeDescriptor(fd) }
        }
        turnstile = WriterTurnstile(storePath: url.path)
        // Can this user read it, and write it? Asked by opening the file itself (`access` answers for the real user
        // id, not the effective one): a file that cannot be opened for reading is a permission problem, never
        // damage.
        let readable = open(url.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        if readable < 0 {
            throw EngineError.fromErrno(errno, "cannot open the index \(url.path)")
        }
        closeDescriptor(readable)
        let writableFile = open(url.path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        if writableFile >= 0 { closeDescriptor(writableFile) }
        // The folder must be writable too, for SQLite's -wal and -shm files.
        let readOnly = readOnlyRequested || writableFile < 0 || access(url.deletingLastPathComponent().path, W_OK | X_OK) != 0
        self.isReadOnly = readOnly
        self.checkpointer = IdleCheckpointer(path: url.path)
        var config = Configuration()
        // Short polls instead of SQLite's busy timeout (sleeps of up to 100 ms): see `WriterTurnstile`.
        config.busyMode = .callback(busyPolicy.callback)
        config.label = "OpenSpotlight.IndexStore"
        config.readonly = readOnly
        let checkpointer = self.checkpointer
        config.prepareDatabase { db in
            guard !readOnly else { return }
            // A new file (no page yet) gives its free pages back to the file system when the maintenance asks
            // (`releaseFreePages`). SQLite takes this only before the file's first page is written: before GRDB
            // switches it to WAL, and before any table.
            if !db.configuration.readonly, try Int.fetchOne(db, sql: "PRAGMA page_count") == 0 {
                try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL")
            }
            // FULL: a committed batch survives power loss, not only a crash of the process. (Set here for every
            // connection, and again on the writer once the pool is open: see below.)
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // The writer's page cache holds 32 MB (SQLite's default is 2 MB): bulk loads touch many B-tree pages. A
            // reader's holds 8 MB: each of the pool's five keeps its own copy of the pages it read, and with 32 MB
            // each the readers held 66 MB after PyPI's query phases (85 MB in a process that only searched), while
            // the kernel's page cache holds the file once for all of them.
            try db.execute(sql: "PRAGMA cache_size = \(db.configuration.readonly ? -Self.readerCacheKB : -32768)")
            // A WAL restarted after a checkpoint keeps at most 64 MB of its blocks instead of the size of the
            // largest transaction (a bulk load); an idle store empties it (`IdleCheckpointer`).
            try db.execute(sql: "PRAGMA journal_size_limit = \(IndexStore.journalSizeLimit)")
            // Checkpoints mostly on a connection of their own, off the commit path (`IdleCheckpointer`): its WAL hook
            // replaces SQLite's automatic checkpoint.
            checkpointer.install(on: db.sqliteConnection)
        }
        // Another process may be setting up the same new file (switching it to WAL, creating the schema), which
        // SQLite reports as busy without waiting: retry for a few seconds.
        var attempt = 0
        while true {
            do {
                let pool = try DatabasePool(path: url.path, configuration: config)
                if readOnly {
                    try Self.checkFormat(pool, url: url)
                } else {
                    // GRDB switches the writer to WAL after `prepareDatabase` and sets `synchronous = NORMAL` with
                    // it (`Database.setUpWALMode`): commits were then synced to disk only by checkpoints, so a batch
                    // whose completion had run could be lost to a power failure. FULL again, before any write.
                    try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
                    try Self.migrate(pool, url: url)
                }
                self.pool = pool
                break
            } catch let error as DatabaseError where (error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED) && attempt < 100 {
                attempt += 1
                Thread.sleep(forTimeInterval: 0.05)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR {
                // Opening runs only our own fixed statements: an SQL error here means the file's schema is not
                // ours any more ("unsupported file format", a table without its columns): damage (found by
                // fuzzing; it used to be an unavailable index that was never recovered).
                throw EngineError(.corruptIndex, "the index at \(url.path) is damaged: \(error.message ?? "\(error)")")
            } catch let error as DatabaseError {
                throw Self.map(error, url: url)
            } catch let error as EngineError {
                throw error
            } catch {
                throw EngineError(.indexUnavailable, "cannot open \(url.path): \(error)")
            }
        }
        checkpointer.onRest { [weak self] in self?.releaseMemoryAtRest() }
    }

    /// For a store opened read-only: the format is one this version reads (nothing is created or upgraded).
    static func checkFormat(_ pool: DatabasePool, url: URL) throws {
        try pool.read { db in
            guard try db.tableExists("meta"), try db.tableExists("item") else {
                throw EngineError(.corruptIndex, "the index at \(url.path) has no item table")
            }
            let version = try Int.fetchOne(db, sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'formatVersion'")
            if let version, version > Self.formatVersion {
                throw EngineError(.unsupportedFormat,
                    "the index at \(url.path) has format \(version); this version reads format \(Self.formatVersion)")
            }
            if let version, version < Self.oldestReadableFormat {
                // Not damage and not newer, so never recovered: the owner's next write access upgrades it.
                throw EngineError(.indexUnavailable,
                    "the index at \(url.path) has the older format \(version) and this user may not upgrade it; it is searchable again once its app (or a user who may write it) opens it")
            }
        }
    }

    static func map(_ error: DatabaseError, url: URL) -> EngineError {
        switch error.resultCode {
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            return EngineError(.corruptIndex, "the index at \(url.path) is damaged: \(error.message ?? "\(error)")")
        case .SQLITE_FULL:
            return EngineError(.indexUnavailable, "the disk is full: \(url.path)")
        case .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_AUTH:
            return EngineError(.permissionDenied,
                "permission denied: this user may not write the index at \(url.path) (\(error.message ?? "\(error)"))")
        case .SQLITE_INTERRUPT:
            return EngineError(.cancelled, "cancelled")
        default:
            return EngineError(.indexUnavailable, "index at \(url.path): \(error.message ?? "\(error)")")
        }
    }

    func mapped<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw Self.map(error, url: url)
        } catch let error as RowDecodingError {
            // A value of a type damage gave it, found by one of GRDB's fetching methods.
            throw EngineError(.corruptIndex, "the index at \(url.path) is damaged: \(error)")
        }
    }

    static let segmentSchemaSQL = """
        CREATE TABLE segment(
            id INTEGER PRIMARY KEY AUTOINCREMENT, firstItem INTEGER NOT NULL, lastItem INTEGER NOT NULL,
            items INTEGER NOT NULL, postings INTEGER NOT NULL, deadItems INTEGER NOT NULL DEFAULT 0,
            token INTEGER NOT NULL, packed BLOB);
        CREATE INDEX segment_packed ON segment(token) WHERE packed IS NOT NULL;
        \(postingsSchemaSQL)
        """

    /// The posting lists of the segments stored as rows, keyed by segment and then the term's text (format 7;
    /// format 4 to 6 keyed them by text and then segment, with an index by segment; format 2 and 3 by term id).
    /// `PostingStore` says why.
    static let postingsSchemaSQL = """
        CREATE TABLE postings(
            text TEXT NOT NULL, segment INTEGER NOT NULL, count INTEGER NOT NULL, data BLOB NOT NULL,
            PRIMARY KEY(segment, text)) WITHOUT ROWID;
        """

    /// The index of items that expire (format 7): the purge's range. Items that never expire (an expiration date of
    /// `Date.distantFuture` or later) are not in it; it held every item of an index of such items (PyPI: 14.5 MB).
    static let expiresIndexSQL = """
        CREATE INDEX item_expires ON item(expires) WHERE expires < \(neverExpires)
        """

    /// `Date.distantFuture` as stored: an item expiring then or later is left out of `item_expires`. Queries of the
    /// index repeat the condition (`expires < neverExpires`), which SQLite needs to use a partial index.
    static let neverExpires = "63113904000.0"

    private static func migrate(_ pool: DatabasePool, url: URL) throws {
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value BLOB)")
            let version = try Int.fetchOne(db, sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'formatVersion'")
            if let version {
                if version > Self.formatVersion {
                    throw EngineError(.unsupportedFormat,
                        "the index at \(url.path) has format \(version); this version reads format \(Self.formatVersion)")
                }
                if version == 1 {
                    try upgradeFromFormat1(db, url: url)
                }
                if version <= 2 {
                    try upgradeFromFormat2(db, url: url)
                }
                if version <= 3 {
                    try upgradeFromFormat3(db, url: url)
                }
                if version <= 4 {
                    // (Format 1 and 2 stores had their lists built again by `upgradeFromFormat2`, in today's
                    // encoding.)
                    try upgradeFromFormat4(db, url: url, listsInFormat4: version >= 3)
                }
                if version <= 5 {
                    try db.execute(sql: "UPDATE meta SET value = 6 WHERE key = 'formatVersion'")
                    EngineLog.logger.notice("""
                        upgraded the index at \(url.path) from format \(version) to 6: items written from now on post \
                        their domain under terms of its own; domains are still found through the metadata tier here
                        """)
                }
                if version <= 6 {
                    try upgradeFromFormat6(db, url: url)
                }
                if version <= 7 {
                    try db.execute(sql: "UPDATE meta SET value = 8 WHERE key = 'formatVersion'")
                    EngineLog.logger.notice("""
                        upgraded the index at \(url.path) from format \(version) to 8: items written from now on post \
                        their keywords under terms of their own; keyword queries here still read every tier's postings
                        """)
                }
                if version <= 8 {
                    try db.execute(sql: PendingPrefixes.tableSQL)
                    try db.execute(sql: "UPDATE meta SET value = 9 WHERE key = 'formatVersion'")
                    EngineLog.logger.notice("""
                        upgraded the index at \(url.path) from format \(version) to 9: small writes leave their prefix-list \
                        changes pending, for the maintenance to apply
                        """)
                }
                if version <= 9 {
                    // (Dropped again by the upgrade to 16.)
                    try db.execute(sql: "CREATE TABLE IF NOT EXISTS dfPending(seq INTEGER PRIMARY KEY AUTOINCREMENT, terms BLOB NOT NULL)")
                    try db.execute(sql: "UPDATE meta SET value = 10 WHERE key = 'formatVersion'")
                    EngineLog.logger.notice("""
                        upgraded the index at \(url.path) from format \(version) to 10: small writes leave their \
                        document-frequency decrements pending, for the maintenance to apply
                        """)
                }
                if version <= 10 {
                    try db.execute(sql: TermBlocks.tableSQL)
                    try db.execute(sql: "UPDATE meta SET value = 11 WHERE key = 'formatVersion'")
                    let rows = try Int.fetchOne(db, sql: "SELECT count(*) FROM segment WHERE packed IS NULL") ?? 0
                    EngineLog.logger.notice("""
                        upgraded the index at \(url.path) from format \(version) to 11: new segments store their terms \
                        in blocks; the maintenance writes the \(rows) segments stored as posting rows again, one at a time
                        """)
                }
                if version <= 11 {
                    try db.execute(sql: "UPDATE meta SET value = 12 WHERE key = 'formatVersion'")
                    EngineLog.logger.notice("""
                        upgraded the index at \(url.path) from format \(version) to 12: items written from now on post \
                        their domain whole under terms of their own; domains are still found through the index of \
                        items by domain here
                        """)
                }
                if version <= 12 {
                    // (A format 6 or earlier store got today's table of record blocks from `upgradeFromFormat6`.)
                    if try !db.columns(in: "recordBlock").contains(where: { $0.name == "catalog" }) {
                        try db.execute(sql: RecordBlocks.catalogueColumnsSQL)
                    }
                    try db.execute(sql: ItemCatalog.tablesSQL)
                    try db.execute(sql: "UPDATE meta SET value = 13 WHERE key = 'formatVersion'")
                    EngineLog.logger.notice("""
                        upgraded the index at \(url.path) from format \(version) to 13: the new items of large writes \
                        are catalogued in their record blocks from now on (the items here keep their rows)
                        """)
                }
                if version <= 13 {
                    try db.execute(sql: ValueIndex.groupTableSQL)
                    try db.execute(sql: "UPDATE meta SET value = 14 WHERE key = 'formatVersion'")
                    EngineLog.logger.notice("""
                        upgraded the index at \(url.path) from format \(version) to 14: the values of large writes' new \
                        items are kept in groups from now on (the values here keep their rows)
                        """)
                }
                if version <= 14 {
                    // Nothing to rewrite: format 15 reads every list of 14, and adds one that 14 cannot read.
                    try db.execute(sql: "UPDATE meta SET value = 15 WHERE key = 'formatVersion'")
                    EngineLog.logger.notice("""
                        upgraded the index at \(url.path) from format \(version) to 15: posting lists of one item \
                        written from now on take four bytes instead of twelve (the lists here stay as they are)
                        """)
                }
                if version <= 15 {
                    // The segments' dictionaries hold every term with its lists (`SegmentVocabulary`): the global
                    // vocabulary and its pending decrements go, nothing else changes.
                    let terms = try db.tableExists("term") ? try Int.fetchOne(db, sql: "SELECT count(*) FROM term") ?? 0 : 0
                    try db.execute(sql: """
                        DROP TABLE IF EXISTS term;
                        DROP TABLE IF EXISTS dfPending;
                        DELETE FROM meta WHERE key = 'nextTerm';
                        UPDATE meta SET value = 16 WHERE key = 'formatVersion'
                        """)
                    EngineLog.logger.notice("""
                        upgraded the index at \(url.path) from format \(version) to 16: the global vocabulary of \(terms) \
                        terms is dropped; terms and their frequencies are read from the segments' own dictionaries
                        """)
                }
                if version <= 16 {
                    // Nothing to rewrite: format 17 reads every catalogue block of 16, and writes its items'
                    // initials where 16 cannot read them (`ItemCatalog.Fields.encode`).
                    try db.execute(sql: "UPDATE meta SET value = 17 WHERE key = 'formatVersion'")
                    EngineLog.logger.notice("""
                        upgraded the index at \(url.path) from format \(version) to 17: the initials of catalogued items \
                        written from now on are compressed with their fields (the blocks here stay as they are)
                        """)
                }
                if version <= 17 {
                    // Format 18 keeps catalogued items' identifiers in sorted runs (`KeyRuns`): `itemKey` becomes
                    // one run.
                    try db.execute(sql: KeyRuns.tablesSQL)
                    var moved = 0
                    if try db.tableExists("itemKey") {
                        var keys = KeyList()
                        try forEachRawRow(db, try db.makeStatement(sql: "SELECT uid, id FROM itemKey"), StatementArguments()) { h in
                            guard sqlite3_column_type(h, 0) == SQLITE_TEXT else {
                                throw EngineError(.corruptIndex, "a damaged identifier in itemKey")
                            }
                            keys.append(UnsafeRawBufferPointer(start: sqlite3_column_text(h, 0), count: Int(sqlite3_column_bytes(h, 0))),
                                        id: try RawColumn.integer(h, 1))
                        }
                        moved = keys.count
                        try KeyRuns(db).insertRun(keys.sorted())
                        try db.execute(sql: "DROP TABLE itemKey")
                    }
                    try db.execute(sql: "UPDATE meta SET value = 18 WHERE key = 'formatVersion'")
                    EngineLog.logger.notice("""
                        upgraded the index at \(url.path) from format \(version) to 18: the identifiers of \(moved) \
                        catalogued items are kept in a sorted run instead of a table
                        """)
                }
                if version <= 18 {
                    // Nothing to rewrite: format 19 reads every block of 18, and lays out the records of the blocks
                    // it writes by attribute (`RecordColumns`), where 18 cannot read them. (The store keeps its
                    // dictionary, trained on records one at a time: blocks laid out by attribute compress 4 %
                    // better with it than records one after the other, 14 % with one trained on them.)
                    try db.execute(sql: "UPDATE meta SET value = 19 WHERE key = 'formatVersion'")
                    EngineLog.logger.notice("""
                        upgraded the index at \(url.path) from format \(version) to 19: the blocks of records written \
                        from now on are laid out by attribute (the blocks here stay as they are)
                        """)
                }
                if version <= 19 {
                    // Nothing to rewrite: format 20 reads every prefix list of 19, and writes lists with their keys
                    // as steps, and small complete ones as their count (`PrefixLists.encode`), where 19 cannot read
                    // them.
                    try db.execute(sql: "UPDATE meta SET value = 20 WHERE key = 'formatVersion'")
                    EngineLog.logger.notice("""
                        upgraded the index at \(url.path) from format \(version) to 20: the prefix lists written from \
                        now on are smaller (the lists here stay as they are until they change)
                        """)
                }
                try db.execute(sql: PrefixLists.longPrefixIndexSQL)
                try db.execute(sql: RecordBlocks.sparseIndexSQL)
                // Every store opened for writing has the table of long lists (`IF NOT EXISTS`: upgraded ones get it
                // here, whatever their format).
                try db.execute(sql: LongLists.tableSQL)
                try db.execute(sql: SegmentMerger.deadTableSQL)
                return
            }
            // No format version but tables already there: the meta row was lost to damage (found by fuzzing; it
            // used to fail as "table item already exists", an unavailable index that was never recovered).
            if try db.tableExists("item") {
                throw EngineError(.corruptIndex, "the index at \(url.path) is damaged: its format version is missing")
            }
            try db.execute(sql: """
                CREATE TABLE item(
                    id INTEGER PRIMARY KEY,
                    uid TEXT NOT NULL UNIQUE,
                    domain TEXT,
                    expires REAL NOT NULL,
                    hint REAL,
                    lastUsed REAL,
                    attrs BLOB NOT NULL,
                    nameWords INTEGER NOT NULL DEFAULT 0,
                    nameFirst TEXT NOT NULL DEFAULT '',
                    nameKey INTEGER NOT NULL DEFAULT 0,
                    initials BLOB NOT NULL DEFAULT x'');
                \(expiresIndexSQL);
                \(segmentSchemaSQL)
                \(attrValueSQL);
                \(ValueIndex.groupTableSQL);
                \(prefixTopSQL);
                \(RecordDictionary.tableSQL);
                \(RecordBlocks.tableSQL);
                \(LongLists.tableSQL);
                \(TermBlocks.tableSQL);
                \(SegmentMerger.deadTableSQL);
                \(PendingPrefixes.tableSQL);
                \(ItemCatalog.tablesSQL);
                INSERT INTO meta(key, value) VALUES('formatVersion', \(Self.formatVersion));
                INSERT INTO meta(key, value) VALUES('domainTerms', 1);
                INSERT INTO meta(key, value) VALUES('keywordTerms', 1);
                INSERT INTO meta(key, value) VALUES('exactDomainTerms', 1);
                """)
            try db.execute(sql: PrefixLists.longPrefixIndexSQL)
        }
    }

    /// The vocabulary (format 5): keyed by text, so a prefix's terms with their document frequencies (`p` has
    /// thousands) are one range of the table itself. Format 4's rowid table kept every text three times (the
    /// table, its UNIQUE index and the covering `term_cover` index): 41 MB of PyPI's index. Format 5 and 6 kept
    /// the texts twice, with an index by id (`term_id`, 12.9 MB of PyPI's) that only found the next id: since
    /// format 7 `meta.nextTerm` holds it.
    static let termSQL = """
        CREATE TABLE term(text TEXT PRIMARY KEY, id INTEGER NOT NULL, df INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID
        """

    /// Format 1 → 2, in the opening transaction (all or nothing): the `posting` rows become one segment holding
    /// every item; items, terms, values, prefix lists and the client state stay as they are.
    private static func upgradeFromFormat1(_ db: Database, url: URL) throws {
        guard try db.tableExists("posting"), try db.tableExists("item") else {
            throw EngineError(.corruptIndex, "the index at \(url.path) is damaged: its format 1 tables are missing")
        }
        let started = Date()
        try db.execute(sql: segmentSchemaSQL)
        let first = try Int64.fetchOne(db, sql: "SELECT coalesce(min(id), 1) FROM item") ?? 1
        let last = try Int64.fetchOne(db, sql: "SELECT coalesce(max(id), 0) FROM item") ?? 0
        let items = try Int.fetchOne(db, sql: "SELECT count(*) FROM item") ?? 0
        // Streamed in the table's own (term, item) order, one term's list at a time.
        try db.execute(sql: "INSERT INTO segment(firstItem, lastItem, items, postings, token) VALUES(?, ?, ?, 0, ?)",
                       arguments: [first, max(first, last), items, Int64.random(in: .min ... .max)])
        let segment = db.lastInsertedRowID
        let insert = try db.makeStatement(sql: """
            INSERT INTO postings(text, segment, count, data) SELECT text, ?2, ?3, ?4 FROM term WHERE id = ?1
            """)
        var count = 0
        var list: [(item: Int64, tiers: UInt8)] = []
        var currentTerm: Int64 = -1
        func flush() throws {
            guard !list.isEmpty else { return }
            let bytes = PostingCodec.encode(list)
            try insert.execute(arguments: [currentTerm, segment, list.count, Data(bytes)])
            count += list.count
            list.removeAll(keepingCapacity: true)
        }
        let rows = try db.makeStatement(sql: """
            SELECT p.term, p.item, p.tiers FROM posting p WHERE EXISTS (SELECT 1 FROM item i WHERE i.id = p.item)
            ORDER BY p.term, p.item
            """)
        try forEachRawRow(db, rows, []) { h in
            let term = sqlite3_column_int64(h, 0)
            if term != currentTerm { try flush(); currentTerm = term }
            list.append((sqlite3_column_int64(h, 1), UInt8(truncatingIfNeeded: sqlite3_column_int64(h, 2))))
        }
        try flush()
        try db.execute(sql: "UPDATE segment SET postings = ? WHERE id = ?", arguments: [count, segment])
        try db.execute(sql: "DROP TABLE posting")
        try db.execute(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES('nextItem', ?)", arguments: [last + 1])
        try db.execute(sql: "UPDATE meta SET value = 2 WHERE key = 'formatVersion'")
        EngineLog.logger.notice("""
            upgraded the index at \(url.path) from format 1 to 2: \(items) items, \(count) postings \
            in one segment (\(String(format: "%.1f", Date().timeIntervalSince(started))) s)
            """)
    }

    /// Format 2 → 3, in the opening transaction (all or nothing): every item gets its name signals
    /// (`NameSignals`, read from its stored attributes), and the prefix lists are built again with the keys of
    /// today's ranking (format 2's keys, from a prefix factor of 0.8 and without the name parts, would understate
    /// scores, and a list relies on its keys bounding them). Lists of long prefixes are rebuilt too.
    private static func upgradeFromFormat2(_ db: Database, url: URL) throws {
        let started = Date()
        for column in ["nameWords INTEGER NOT NULL DEFAULT 0", "nameFirst TEXT NOT NULL DEFAULT ''", "nameKey INTEGER NOT NULL DEFAULT 0"] {
            try db.execute(sql: "ALTER TABLE item ADD COLUMN \(column)")
        }
        var changes = PrefixLists.Changes()
        changes.hot = try PrefixLists.hotPrefixes(db)
        let update = try db.makeStatement(sql: "UPDATE item SET nameWords = ?, nameFirst = ?, nameKey = ? WHERE id = ?")
        let now = Date()
        var items = 0
        let rows = try Row.fetchCursor(db, sql: "SELECT id, uid, domain, hint, lastUsed, attrs FROM item")
        while let row = try rows.next() {
            let id: Int64 = try row.stored("id")
            let decoded = try ValueCodec.decode([UInt8](try row.stored("attrs") as Data), item: id, in: db)
            let name = NameSignals(attributes: decoded.attributes)
            try update.execute(arguments: [name.words, name.first, Int64(bitPattern: name.key), id])
            let terms = TextIndexer.terms(attributes: decoded.attributes, custom: decoded.custom, domain: try row.stored("domain"))
            let hintPoints = Ranking.hintPoints(try row.stored("hint"))
                + Ranking.recencyPoints(lastUsed: try row.stored("lastUsed"), now: now)
            changes.add(item: id, uid: try row.stored("uid"), terms: terms, name: name, hintPoints: hintPoints)
            items += 1
        }
        let lists = try Int.fetchOne(db, sql: "SELECT count(*) FROM prefixTop") ?? 0
        try db.execute(sql: "DELETE FROM prefixTop")
        try PrefixLists.apply(changes, db: db, now: now)
        try db.execute(sql: "UPDATE meta SET value = 3 WHERE key = 'formatVersion'")
        EngineLog.logger.notice("""
            upgraded the index at \(url.path) from format 2 to 3: name signals of \(items) items, \
            \(lists) prefix lists rebuilt (\(String(format: "%.1f", Date().timeIntervalSince(started))) s)
            """)
    }

    /// Format 3 → 4, in the opening transaction (all or nothing): every item gets its `initials` (`Initials`,
    /// from the terms of its stored attributes, as a write computes them), and the posting rows are keyed by their
    /// term's text instead of its id (the same lists, the same segments).
    private static func upgradeFromFormat3(_ db: Database, url: URL) throws {
        let started = Date()
        // (A format 1 store upgraded in this transaction has text-keyed rows already.)
        if try db.columns(in: "postings").contains(where: { $0.name == "term" }) {
            let rows = try Int.fetchOne(db, sql: "SELECT count(*) FROM postings") ?? 0
            let known = try Int.fetchOne(db, sql: "SELECT count(*) FROM postings p JOIN term t ON t.id = p.term") ?? 0
            guard known == rows else {
                throw EngineError(.corruptIndex, "the index at \(url.path) is damaged: postings of terms its vocabulary does not have")
            }
            try db.execute(sql: """
                ALTER TABLE postings RENAME TO postingsByTerm;
                DROP INDEX postings_segment;
                \(postingsSchemaSQL)
                INSERT INTO postings(text, segment, count, data)
                    SELECT t.text, p.segment, p.count, p.data FROM postingsByTerm p JOIN term t ON t.id = p.term
                    ORDER BY t.text, p.segment;
                DROP TABLE postingsByTerm;
                """)
        }
        // (Only a store changed by hand can have the column already: its values are computed again.)
        if try !db.columns(in: "item").contains(where: { $0.name == "initials" }) {
            try db.execute(sql: "ALTER TABLE item ADD COLUMN initials BLOB NOT NULL DEFAULT x''")
        }
        let update = try db.makeStatement(sql: "UPDATE item SET initials = ? WHERE id = ?")
        var items = 0
        let rows = try Row.fetchCursor(db, sql: "SELECT id, domain, attrs FROM item")
        while let row = try rows.next() {
            let decoded = try ValueCodec.decode([UInt8](try row.stored("attrs") as Data), item: try row.stored("id"), in: db)
            let terms = TextIndexer.terms(attributes: decoded.attributes, custom: decoded.custom, domain: try row.stored("domain"))
            try update.execute(arguments: [Data(Initials.encode(terms)), try row.stored("id") as Int64])
            items += 1
        }
        try db.execute(sql: "UPDATE meta SET value = 4 WHERE key = 'formatVersion'")
        EngineLog.logger.notice("""
            upgraded the index at \(url.path) from format 3 to 4: the initials of \(items) items, \
            posting rows keyed by text (\(String(format: "%.1f", Date().timeIntervalSince(started))) s)
            """)
    }

    /// The prefix lists (`PrefixLists`), a rowid table since format 5. A list is 0.5–3 KB: as rows of a
    /// WITHOUT ROWID table (a B-tree of index pages, whose rows keep at most ~1 KB in the page) most of them spilled
    /// into overflow pages left two-thirds empty, and the table took twice its bytes (Debian: 16.4 MB for 8.9 MB of
    /// lists; PyPI: 41 MB, 48 % unused).
    static let prefixTopSQL = """
        CREATE TABLE prefixTop(prefix TEXT PRIMARY KEY, complete INTEGER NOT NULL, entries BLOB NOT NULL)
        """

    /// The number and date index (`QueryPlanner`'s ranges): attributes by their code (`AttributeValueIndex.code`)
    /// since format 5; format 4 kept each row's attribute name.
    static let attrValueSQL = """
        CREATE TABLE attrValue(
            attr INTEGER NOT NULL, value REAL NOT NULL, item INTEGER NOT NULL,
            PRIMARY KEY(attr, value, item)) WITHOUT ROWID
        """

    /// Format 4 → 5, in the opening transaction (all or nothing): the table of the dictionaries records are
    /// compressed with (`RecordDictionary`), and the prefix lists moved to a rowid table (`prefixTopSQL`) in their
    /// shorter encoding (`PrefixLists.encode`; the same entries), the number and date index keyed by attribute
    /// codes instead of names (`attrValueSQL`), and the vocabulary keyed by text (`termSQL`; the same ids). The records stay as they are (frames without a
    /// dictionary read as before); the next large write, or the maintenance, trains a dictionary and compresses
    /// them again.
    private static func upgradeFromFormat4(_ db: Database, url: URL, listsInFormat4: Bool) throws {
        let started = Date()
        try db.execute(sql: RecordDictionary.tableSQL)
        try db.execute(sql: """
            ALTER TABLE prefixTop RENAME TO prefixTopFormat4;
            DROP INDEX IF EXISTS prefixTop_long;
            \(prefixTopSQL);
            """)
        let insert = try db.makeStatement(sql: "INSERT INTO prefixTop(prefix, complete, entries) VALUES(?, ?, ?)")
        let rows = try Row.fetchCursor(db, sql: "SELECT prefix, complete, entries FROM prefixTopFormat4 ORDER BY prefix")
        var lists = 0
        while let row = try rows.next() {
            let entries: Data = try row.stored(2)
            try insert.execute(arguments: [try row.stored(0) as String, try row.stored(1) as Bool,
                                           listsInFormat4 ? PrefixLists.encode(PrefixLists.decodeFormat4(entries)) : entries])
            lists += 1
        }
        try db.execute(sql: "DROP TABLE prefixTopFormat4; ALTER TABLE attrValue RENAME TO attrValueFormat4; \(attrValueSQL)")
        let insertValue = try db.makeStatement(sql: "INSERT OR IGNORE INTO attrValue(attr, value, item) VALUES(?, ?, ?)")
        let values = try Row.fetchCursor(db, sql: "SELECT attr, value, item FROM attrValueFormat4")
        var codes: [String: Int64] = [:]
        while let row = try values.next() {
            // (A code already, in a table a hand or a test gave codes: kept.)
            let attribute: DatabaseValue = row[0]
            let code: Int64
            if case .string(let name) = attribute.storage {
                code = codes[name] ?? AttributeValueIndex.code(name)
                codes[name] = code
            } else {
                code = try row.stored(0)
            }
            try insertValue.execute(arguments: [code, try row.stored(1) as Double, try row.stored(2) as Int64])
        }
        try db.execute(sql: "DROP TABLE attrValueFormat4")
        // (Dropped again by the upgrade to 16, which reads the vocabulary from the segments: a store without one
        // is upgraded all the same.)
        if try db.tableExists("term") {
            try db.execute(sql: """
                ALTER TABLE term RENAME TO termFormat4;
                DROP INDEX IF EXISTS term_id;
                \(termSQL);
                INSERT INTO term(text, id, df) SELECT text, id, df FROM termFormat4 ORDER BY text;
                DROP TABLE termFormat4;
                """)
        }
        try db.execute(sql: "UPDATE meta SET value = 5 WHERE key = 'formatVersion'")
        EngineLog.logger.notice("""
            upgraded the index at \(url.path) from format 4 to 5: a table for record dictionaries, \(lists) prefix \
            lists in a rowid table, values by attribute code, the vocabulary keyed by text (\(String(format: "%.1f", Date().timeIntervalSince(started))) s)
            """)
    }

    /// Format 6 → 7, in the opening transaction (all or nothing): the posting rows keyed by segment first (the same
    /// rows, `postingsSchemaSQL`), without the index by segment; the vocabulary without its index by id (format 7
    /// to 15 kept the next id in `meta.nextTerm`; the upgrade to 16 drops the vocabulary); `item_expires` only of
    /// items that expire. A store upgraded from format 1 to 3 in this
    /// transaction has today's postings table already.
    private static func upgradeFromFormat6(_ db: Database, url: URL) throws {
        let started = Date()
        let postingsSQL = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'postings'") ?? ""
        let rows = try Int.fetchOne(db, sql: "SELECT count(*) FROM postings") ?? 0
        if !postingsSQL.contains("PRIMARY KEY(segment, text)") {
            try db.execute(sql: """
                ALTER TABLE postings RENAME TO postingsFormat6;
                DROP INDEX IF EXISTS postings_segment;
                \(postingsSchemaSQL)
                INSERT INTO postings(text, segment, count, data)
                    SELECT text, segment, count, data FROM postingsFormat6 ORDER BY segment, text;
                DROP TABLE postingsFormat6;
                """)
        }
        try db.execute(sql: """
            DROP INDEX IF EXISTS term_id;
            DROP INDEX IF EXISTS item_expires;
            \(expiresIndexSQL);
            \(RecordBlocks.tableSQL);
            UPDATE meta SET value = 7 WHERE key = 'formatVersion';
            """)
        EngineLog.logger.notice("""
            upgraded the index at \(url.path) from format 6 to 7: \(rows) posting rows keyed by segment, no index of \
            term ids, an expiry index of expiring items only (\(String(format: "%.1f", Date().timeIntervalSince(started))) s)
            """)
    }

    // MARK: - Writing

    /// Applies operations in one transaction, optionally checking and setting the client state with them.
    ///
    /// - Parameters:
    ///   - operations: applied in order; a later operation sees the effect of an earlier one.
    ///   - clientState: `.set(data)` stores the state with the batch; `.compareAndSet(expected:new:)` first checks
    ///     that the stored state equals `expected` (nil = none stored) and applies nothing if it does not.
    ///   - now: the current time, for purging expired items.
    package func apply(_ operations: [IndexOperation], clientState: ClientStateChange = .keep, now: Date = Date()) throws {
        try Self.validate(operations)
        try refuseIfReadOnly()
        let dictionary = try recordDictionary(for: operations)
        do {
            try apply(operations, clientState: clientState, now: now, dictionary: dictionary)
        } catch is RecordDictionary.Conflict {
            // Another process stored a different dictionary under the id of the one trained here (zstd derives ids
            // from the content; about one chance in 2³¹): nothing was written; write with the store's own (and do
            // not train the same bytes again).
            writeDictionary.withLock { $0 = .init(looked: false, dictionary: nil, trainingTried: true) }
            try apply(operations, clientState: clientState, now: now,
                      dictionary: try read { try RecordDictionary.current(in: $0) })
        }
    }

    /// The dictionary a write compresses its new records with: the store's (read once), or one trained from the
    /// write's own items when the store has none and the write brings enough (`RecordDictionary.train`; tried once
    /// per process, so a store whose records train nothing does not pay for it on every batch).
    private func recordDictionary(for operations: [IndexOperation]) throws -> RecordDictionary? {
        let known = writeDictionary.withLock { $0 }
        if let dictionary = known.dictionary { return dictionary }
        if !known.looked || (!known.trainingTried && operations.count >= RecordDictionary.trainingMinimum) {
            // (Looked up again before training: another process may have trained one since.)
            if let stored = try read({ try RecordDictionary.current(in: $0) }) {
                writeDictionary.withLock { $0 = .init(looked: true, dictionary: stored, trainingTried: $0.trainingTried) }
                return stored
            }
            writeDictionary.withLock { $0.looked = true }
        }
        guard !known.trainingTried, operations.count >= RecordDictionary.trainingMinimum else { return nil }
        writeDictionary.withLock { $0.trainingTried = true }
        // Stored (and made the store's) by the transaction that first uses it.
        return RecordDictionary.train(from: operations)
    }

    private func apply(_ operations: [IndexOperation], clientState: ClientStateChange, now: Date,
                       dictionary: RecordDictionary?) throws {
        var segmentsChanged = false
        // Tokenizing and encoding, on every core and before taking the write lock; in a large batch, each window
        // of operations is prepared on another core while the transaction applies the one before it.
        let hot = operations.count >= PreparedUpsert.parallelThreshold
            ? ((try? read { try PrefixLists.hotPrefixes($0) }) ?? []) : []
        let windows = PreparedUpsert.windows(operations.count)
        var prepared = PreparedUpsert.prepare(operations, in: windows.first ?? 0..<0, hot: hot, now: now)
        try mapped {
            try writeTransaction { db in
                if case .compareAndSet(let expected, _) = clientState {
                    let stored = try Self.clientState(db)
                    if stored != expected {
                        throw EngineError(.mismatchedClientState,
                            "the stored client state (\(stored?.count ?? 0) bytes) does not match the expected state")
                    }
                }
                // (Only a dictionary the file may not have yet: checking one it has read its 64 KB on every write.)
                let unstored = dictionary.flatMap { dictionaryInFile.withLock({ $0 }) == $0.id ? nil : $0 }
                try RecordDictionary.whileWriting(with: unstored, db) {
                    var writer = Writer(db: db, store: self, now: now, dictionary: dictionary)
                    try writer.purgeExpired(now: now)
                    var next: PreparedUpsert.Background? = nil
                    for (number, range) in windows.enumerated() {
                        if let next { prepared = next.value() }
                        try writer.begin(prepared)
                        // (The writer's is then its last reference: `Writer.endWindow` frees it on another thread.)
                        prepared = PreparedUpsert.Window()
                        next = number + 1 < windows.count
                            ? PreparedUpsert.Background(operations, in: windows[number + 1], hot: hot, now: now)
                            : nil
                        for position in range {
                            try writer.apply(operations[position], at: position)
                        }
                    }
                    try writer.finish()
                    // Every dictionary a committed record was compressed with is in the file, committed with it.
                    if let dictionary, dictionaryInFile.withLock({ $0 }) != dictionary.id {
                        try RecordDictionary.ensureStored(dictionary, db)
                    }
                    switch clientState {
                    case .keep: break
                    case .set(let data), .compareAndSet(_, let data):
                        try db.cachedStatement(sql: Writer.setMeta).execute(arguments: ["clientState", data])
                    }
                    segmentsChanged = writer.changedSegments
                }
            }
        }
        if let dictionary {
            writeDictionary.withLock { $0 = .init(looked: true, dictionary: dictionary, trainingTried: true) }
            dictionaryInFile.withLock { $0 = dictionary.id }
        }
        if operations.count >= PreparedUpsert.parallelThreshold { memoryToRelease.store(true, ordering: .relaxed) }
        scheduleMaintenanceIfNeeded(segmentsChanged: segmentsChanged)
    }

    private func refuseIfReadOnly() throws {
        if isReadOnly {
            throw EngineError(.permissionDenied, "permission denied: this user may read but not write the index at \(url.path)")
        }
    }

    /// Refuses what the store cannot hold exactly, before anything recurses over it or binds it: arrays nested
    /// deeper than `AttributeValue.maximumNestingDepth`, and identifiers or domains containing NUL (SQLite's
    /// text binding would cut them at the NUL, so `"a\0b"` would alias `"a"`).
    static func validate(_ operations: [IndexOperation]) throws {
        for operation in operations {
            guard case .upsert(let item, _, _, _) = operation else { continue }
            if item.uniqueIdentifier.utf8.contains(0) {
                throw EngineError(.invalidItem, "the unique identifier \(item.uniqueIdentifier.debugDescription.prefix(80)) contains a NUL character")
            }
            if let domain = item.domainIdentifier, domain.utf8.contains(0) {
                throw EngineError(.invalidItem, "item \(item.uniqueIdentifier.prefix(80).debugDescription): the domain identifier contains a NUL character")
            }
            func refuse(_ name: String) -> EngineError {
                EngineError(.invalidItem, "item \(item.uniqueIdentifier.prefix(80).debugDescription): \(name) nests arrays deeper than \(AttributeValue.maximumNestingDepth)")
            }
            for (name, value) in item.attributes where value.nestingDepth() > AttributeValue.maximumNestingDepth {
                throw refuse(name)
            }
            for (name, custom) in item.customAttributes where custom.value.nestingDepth() > AttributeValue.maximumNestingDepth {
                throw refuse(name)
            }
        }
    }

    /// Deletes items whose expiration date has passed. Returns how many were deleted.
    @discardableResult
    package func purgeExpired(now: Date = Date()) throws -> Int {
        try refuseIfReadOnly()
        let purged = try mapped {
            try writeTransaction { db in
                var writer = Writer(db: db, store: self, now: now)
                let n = try writer.purgeExpired(now: now)
                try writer.finish()
                return n
            }
        }
        scheduleMaintenanceIfNeeded(segmentsChanged: purged > 0)
        return purged
    }

    /// A change of client state that goes with a batch.
    package enum ClientStateChange: Sendable {
        case keep
        case set(Data)
        case compareAndSet(expected: Data?, new: Data)
    }

    /// Once the store is at rest after a large write or a merge (`IdleCheckpointer.onRest`): the writer's page
    /// cache is released (a bulk load fills its 32 MB, which no search reads) and the C heap's free pages go back to the system (`EngineMemory.trimHeap`).
    func releaseMemoryAtRest() {
        // A write of this process waiting for the writer or running: the store is not at rest after all, and its
        // next pause releases (this runs on the checkpoints' queue, which must not wait behind a long write).
        guard durableWritesInFlight.load(ordering: .relaxed) == 0,
              memoryToRelease.exchange(false, ordering: .relaxed), !closed.withLock({ $0 }) else { return }
        // (On the writer's queue, between writes: a write that started meanwhile finishes first.)
        pool.writeWithoutTransaction { db in _ = sqlite3_db_release_memory(db.sqliteConnection) }
        EngineMemory.trimHeap()
    }

    static func clientState(_ db: Database) throws -> Data? {
        try Data.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'clientState'")
    }

    /// The last client state stored with a batch, or nil if none.
    package func clientState() throws -> Data? {
        try mapped { try pool.read { try Self.clientState($0) } }
    }

    // MARK: - Reading

    /// The item with this identifier, if it exists and has not expired.
    package func item(withIdentifier uid: String, now: Date = Date()) throws -> StoredItem? {
        guard uid.isStorableKey else { return nil }
        return try mapped {
            try pool.read { db in
                try ItemCatalog(db).entry(uid: uid, liveAt: now.timeIntervalSinceReferenceDate)?.storedItem(in: db)
            }
        }
    }

    /// Runs `body` on a consistent snapshot of the store.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        readsUnderWay.add(1, ordering: .relaxed)
        defer { readsUnderWay.subtract(1, ordering: .relaxed) }
        return try mapped { try pool.read(body) }
    }

    /// Whether a read would find a reader connection free without waiting, with one to spare: a caller that must
    /// not block (a query's first batch, read on the consumer's thread) asks first. A query's producer holds its
    /// reader while its consumer is slow, so readers can all be taken.
    package var hasFreeReader: Bool {
        readsUnderWay.load(ordering: .relaxed) + 2 <= pool.configuration.maximumReaderCount
    }

    /// A read that stops as soon as `isCancelled` says so: the check runs before the read and, through SQLite's
    /// progress handler, every 1,000 virtual-machine instructions of its statements, which then fail with
    /// `SQLITE_INTERRUPT` (`EngineError.cancelled`). The handler is removed before the connection goes back to the
    /// pool.
    func read<T>(cancelledWhen isCancelled: (@Sendable () -> Bool)?, _ body: (Database) throws -> T) throws -> T {
        guard let isCancelled else { return try read(body) }
        return try read { db in
            if isCancelled() { throw EngineError(.cancelled, "cancelled") }
            let check = Unmanaged.passRetained(CancellationCheck(isCancelled))
            sqlite3_progress_handler(db.sqliteConnection, 1_000, { context in
                guard let context else { return 0 }
                return Unmanaged<CancellationCheck>.fromOpaque(context).takeUnretainedValue().isCancelled() ? 1 : 0
            }, check.toOpaque())
            defer {
                sqlite3_progress_handler(db.sqliteConnection, 0, nil, nil)
                check.release()
            }
            return try body(db)
        }
    }

    /// The most attribute records `checkIntegrity` decodes: all of them up to this many, else this many spread
    /// evenly over the store.
    package static let integrityDecodeLimit = 200_000

    /// Checks the file's integrity with SQLite's `quick_check`, the store's own invariants, and that its records
    /// decode (every record up to `integrityDecodeLimit`, an even sample beyond), so a store whose records would
    /// fail every reader is reported damaged.
    package func checkIntegrity() throws {
        let problems: [String] = try mapped {
            try pool.read { db in
                var problems = try String.fetchAll(db, sql: "PRAGMA quick_check").filter { $0 != "ok" }
                if problems.isEmpty {
                    problems += try Self.undecodablePostings(db)
                }
                if problems.isEmpty {
                    problems += try Self.undecodableRecords(db)
                }
                return problems
            }
        }
        if !problems.isEmpty {
            throw EngineError(.corruptIndex, "the index at \(url.path) is damaged: " + problems.prefix(5).joined(separator: "; "))
        }
    }

    /// Posting lists that do not decode or hold items outside their segment's range (at most five named).
    private static func undecodablePostings(_ db: Database) throws -> [String] {
        var ranges: [Int64: ClosedRange<Int64>] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, firstItem, lastItem FROM segment") {
            let first: Int64 = try row.stored(1), last: Int64 = try row.stored(2)
            guard first <= last else { return ["segment \(try row.stored(0) as Int64) has an empty range"] }
            ranges[try row.stored(0)] = first...last
        }
        var problems: [String] = []
        let packedRows = try db.makeStatement(sql: "SELECT id, packed FROM segment WHERE packed IS NOT NULL")
        try forEachRawRow(db, packedRows, []) { h in
            guard problems.count < 5 else { return }
            let segment = sqlite3_column_int64(h, 0)
            do {
                let packed = try PackedSegment(try PostingStore.blob(h, column: 1))
                for i in packed.texts.indices {
                    try packed.withList(i) { list in
                        try list.forEach { item, _ in
                            if !(ranges[segment]?.contains(item) ?? false) { throw PostingCodec.Reader.damaged }
                        }
                    }
                }
            } catch {
                problems.append("the packed segment \(segment) is damaged")
            }
        }
        // Term blocks: every block of every blocked segment, its terms in order, each list decoded. A segment's
        // directory that does not decode is damage too.
        if try TermBlocks.exists(db) {
            let directories = try Int64.fetchAll(db, sql: "SELECT id >> 24 FROM termBlock WHERE id & ? = ?",
                                                 arguments: [TermBlocks.directoryNumber, TermBlocks.directoryNumber])
            // (Blocks without their directory would be read as a segment of posting rows, without any.)
            let orphans = try Int64.fetchAll(db, sql: "SELECT DISTINCT id >> 24 FROM termBlock EXCEPT SELECT id >> 24 FROM termBlock WHERE id & ? = ?",
                                             arguments: [TermBlocks.directoryNumber, TermBlocks.directoryNumber])
            for segment in orphans.prefix(5) {
                problems.append("the term blocks of segment \(segment) have no directory")
            }
            for segment in directories where problems.count < 5 {
                guard let range = ranges[segment] else {
                    problems.append("term blocks name a segment \(segment) that does not exist")
                    continue
                }
                do {
                    let cursor = try TermCursor(db, blockedSegment: segment)
                    var previous: [UInt8]? = nil
                    var terms = 0
                    while let text = cursor.text {
                        if let previous, !previous.lexicographicallyPrecedes(text) { throw TermBlocks.damaged }
                        previous = text
                        try cursor.withList { reader in
                            try reader.forEach { item, _ in
                                if !range.contains(item) { throw PostingCodec.Reader.damaged }
                            }
                        }
                        try cursor.step()
                        terms += 1
                    }
                    let directory = try Row.fetchOne(db, sql: "SELECT data FROM termBlock WHERE id = ?",
                                                     arguments: [segment << 24 | TermBlocks.directoryNumber])
                    let bytes: Data = try directory?.stored(0) ?? Data()
                    let decoded = try bytes.withUnsafeBytes { try BlockedSegment(id: segment, directory: $0) }
                    let stored = try Int.fetchOne(db, sql: "SELECT count(*) FROM termBlock WHERE id >= ? AND id < ?",
                                                  arguments: [segment << 24, segment << 24 | TermBlocks.directoryNumber]) ?? 0
                    guard decoded.firsts.count == stored, terms > 0 else { throw TermBlocks.damaged }
                } catch {
                    problems.append("the term blocks of segment \(segment) are damaged")
                }
            }
        }
        let statement = try db.makeStatement(sql: "SELECT text, segment, count, data FROM postings")
        try forEachRawRow(db, statement, []) { h in
            guard problems.count < 5 else { return }
            let term = String(decoding: UnsafeBufferPointer(start: sqlite3_column_text(h, 0), count: Int(sqlite3_column_bytes(h, 0))),
                              as: UTF8.self)
            let segment = sqlite3_column_int64(h, 1)
            guard let range = ranges[segment] else {
                problems.append("the postings of term \(term) name a segment \(segment) that does not exist")
                return
            }
            do {
                try PostingStore.withReader(db, h, column: 3) { reader in
                    guard reader.count == Int(sqlite3_column_int64(h, 2)) else { throw PostingCodec.Reader.damaged }
                    try reader.forEach { item, _ in
                        if !range.contains(item) { throw PostingCodec.Reader.damaged }
                    }
                }
            } catch {
                problems.append("the postings of term \(term) in segment \(segment) are damaged")
            }
        }
        return problems
    }

    /// Records whose attributes do not decode (at most five named).
    private static func undecodableRecords(_ db: Database) throws -> [String] {
        let catalog = ItemCatalog(db)
        let rows = try catalog.count()
        let stride = max(1, (rows + integrityDecodeLimit - 1) / integrityDecodeLimit)
        var problems: [String] = []
        var position = 0
        try catalog.forEachRecord(damaged: { block, error in
            problems.append("the catalogue block \(block) does not decode (\(error))")
            return problems.count < 5
        }) { id, uid, record in
            defer { position += 1 }
            guard position % stride == 0 else { return true }
            do {
                _ = try ValueCodec.decode(record, item: id, in: db)
            } catch {
                problems.append("the record of \((uid ?? "?").prefix(80).debugDescription) does not decode (\(error))")
                if problems.count >= 5 { return false }
            }
            return true
        }
        return problems
    }

    /// Closes the store's connections, first moving the WAL into the main file (and emptying it when no other
    /// connection is reading it), so the `.sqlite` file alone holds every committed change. The object must not be
    /// used afterwards.
    package func close() throws {
        let first = closed.withLock { closed -> Bool in
            defer { closed = true }
            return !closed
        }
        guard first else { return }
        maintenance.stop()
        columnCache.stop()
        vocabularyLetters.stop()
        valueColumnCache.stop()
        checkpointer.stop()
        // TRUNCATE with a busy handler that does not wait: as much as it can without blocking on another
        // process's readers, then the WAL is truncated to zero bytes if no one is using it.
        busyPolicy.beginClosing()
        _ = try? pool.writeWithoutTransaction { try $0.checkpoint(.truncate) }
        turnstile.close()
        try pool.close()
    }
}

func closeDescriptor(_ fd: Int32) {
    _ = close(fd)
}

/// The cancellation check SQLite's progress handler calls (a class, so it can be its context pointer).
private final class CancellationCheck: Sendable {
    let isCancelled: @Sendable () -> Bool
    init(_ isCancelled: @escaping @Sendable () -> Bool) { self.isCancelled = isCancelled }
}
