import Foundation
import GRDB
import OpenCoreSpotlight
import Synchronization

/// Keeps Spotlight in step with a GRDB database, as `NSCoreDataCoreSpotlightDelegate` does for a Core Data store.
///
/// ```swift
/// let delegate = try GRDBCoreSpotlightDelegate(forStoreWith: dbPool, declaration: SpotlightDeclaration(tables: [
///     SpotlightTable("photo", contentType: .image, displayName: .column("name"), attributes: [.title: .column("name")]),
/// ]))
/// delegate.startSpotlightIndexing()
/// ```
///
/// Creating the delegate installs change tracking in the database: SQLite triggers on the declared tables (and the
/// tables of their relationships) record every changed row in a history table, in the same transaction as the
/// change, whoever writes it: this process, another process, or an app that crashes right after committing.
/// While indexing is enabled the delegate follows this process's commits; `startSpotlightIndexing()` first catches
/// up with everything recorded since the last indexed change (all rows, the first time). Each batch of changes is
/// written to the index together with its history token, in one atomic index batch
/// (`endIndexBatch(expectedClientState:newClientState:)`), so an update is indexed exactly once even when the app
/// dies between committing and indexing. Indexed history is then pruned.
///
/// Items are `CSSearchableItem`s with `uniqueIdentifier` `x-grdb://<store>/<table>/p<key>` (see
/// `SpotlightItemIdentifier`), `domainIdentifier()` as domain, and no expiration. They live in a named index
/// (`searchableIndexName`) used only by this delegate.
///
/// One delegate per database: the history is shared, and two delegates with different declarations or indexes on
/// one database rebuild each other's index. Create it after the database's migrations and outside any database
/// access.
///
/// Apple: <https://developer.apple.com/documentation/coredata/nscoredatacorespotlightdelegate>
open class GRDBCoreSpotlightDelegate: NSObject, CSSearchableIndexDelegate, @unchecked Sendable {
    // @unchecked Sendable: mutable state is behind `state`; history is processed on the serial `queue`.

    /// Posted (object: the delegate) after a batch of changes is written to the index, with `userInfo`
    /// `["NSStoreUUID": storeIdentifier (String), "historyToken": SpotlightHistoryToken]`.
    ///
    /// Apple: <https://developer.apple.com/documentation/coredata/nscoredatacorespotlightdelegate/indexdidupdatenotification>
    public static let indexDidUpdateNotification = Notification.Name("GRDBCoreSpotlightDelegateIndexDidUpdateNotification")
    /// The `userInfo` key of the store identifier, Core Data's `NSStoreUUIDKey`.
    public static let storeIdentifierKey = "NSStoreUUID"
    /// The `userInfo` key of the `SpotlightHistoryToken` now reflected in the index, Core Data's
    /// `NSPersistentHistoryTokenKey`.
    public static let historyTokenKey = "historyToken"
    /// The table holding the history of changes not yet indexed.
    public static let historyTableName = ChangeTracking.historyTable

    /// The database.
    public let writer: any DatabaseWriter
    /// What is indexed.
    public let declaration: SpotlightDeclaration
    /// The identifier of the database, created with its change tracking and stored in it: the default domain and
    /// part of the index name and of every item identifier.
    public let storeIdentifier: String
    /// The most history entries read into one index batch.
    public let batchSize: Int

    let resolved: ResolvedDeclaration
    let queue: DispatchQueue
    let state = Mutex(State())

    struct State: Sendable {
        var isIndexingEnabled = false
        var observation: AnyDatabaseCancellable?
        var passScheduled = false
        var index: CSSearchableIndex?
        var names: Names?
        var lastError: (any Error)?
        var retryDelay: TimeInterval = 0.25
    }

    struct Names: Sendable {
        let index: String
        let domain: String
        let fingerprint: String
    }

    /// Creates the delegate for a database and installs change tracking in it. Indexing does not start until
    /// `startSpotlightIndexing()`; changes made before are recorded and caught up then.
    ///
    /// - Parameters:
    ///   - writer: the app's `DatabasePool` or `DatabaseQueue`.
    ///   - declaration: the indexed tables, their display names, attributes and relationships.
    ///   - batchSize: the most history entries read into one index batch.
    /// - Throws: `SpotlightGRDBError` when the declaration names a table, column or foreign key that does not exist,
    ///   or SQL that does not compile, or when change tracking cannot be installed.
    ///
    /// Apple: <https://developer.apple.com/documentation/coredata/nscoredatacorespotlightdelegate/init(forstorewith:coordinator:)>
    // Deviation: takes a GRDB writer and a declaration instead of a store description and a coordinator, and
    // throws on misconfiguration where Core Data silently does nothing or crashes.
    public init(forStoreWith writer: any DatabaseWriter, declaration: SpotlightDeclaration, batchSize: Int = 1_000) throws {
        do {
            let resolved = try writer.read { db in try ResolvedDeclaration.resolve(declaration, db) }
            if try !writer.read({ db in try ChangeTracking.isInstalled(resolved, db) }) {
                try writer.write { db in try ChangeTracking.install(resolved, db) }
            }
            self.storeIdentifier = try writer.read { db in try ChangeTracking.storeIdentifier(db) }
            self.resolved = resolved
        } catch let error as SpotlightGRDBError {
            throw error
        } catch {
            throw SpotlightGRDBError(.database, "cannot install change tracking: \(error)", underlyingError: error)
        }
        self.writer = writer
        self.declaration = declaration
        self.batchSize = max(1, batchSize)
        self.queue = DispatchQueue(label: "SpotlightGRDB.GRDBCoreSpotlightDelegate")
        super.init()
    }

    deinit {
        state.withLock { $0.observation }?.cancel()
    }

    // MARK: - Override points

    /// The domain of every item; by default the store identifier.
    ///
    /// Apple: <https://developer.apple.com/documentation/coredata/nscoredatacorespotlightdelegate/domainidentifier()>
    open func domainIdentifier() -> String {
        storeIdentifier
    }

    /// A name for the index; by default `nil`. The index actually used is `"<indexName>_<storeIdentifier>"`, or
    /// `"spotlight_<app identifier>_<storeIdentifier>"` by default (see `searchableIndexName`).
    ///
    /// Apple: <https://developer.apple.com/documentation/coredata/nscoredatacorespotlightdelegate/indexname()>
    open func indexName() -> String? {
        nil
    }

    /// The attributes of the item for a row, or `nil` to keep the row out of the index.
    ///
    /// The default builds them from the declaration: the table's content type, `displayName`, and each declared
    /// attribute. Override it to add anything else, reading related rows through `db` if needed; call `super` to
    /// start from the declared attributes. It runs inside a read of the database, off the main thread.
    ///
    /// ```swift
    /// override func attributeSet(for row: Row, table: String, in db: Database) throws -> CSSearchableItemAttributeSet? {
    ///     guard let set = try super.attributeSet(for: row, table: table, in: db) else { return nil }
    ///     if table == "photo", (row["isPrivate"] as Bool?) == true { return nil }
    ///     set.contentDescription = "Taken \(row["takenAt"] as String? ?? "some day")"
    ///     return set
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - row: every column of the row (and `rowid` for a table without an explicit primary key).
    ///   - table: the declared table name.
    ///   - db: the database, at the state the row was read in.
    ///
    /// Apple: <https://developer.apple.com/documentation/coredata/nscoredatacorespotlightdelegate/attributeset(for:)>
    // Deviation: receives a GRDB row, its table and the database, where Core Data passes a managed object.
    open func attributeSet(for row: Row, table: String, in db: Database) throws -> CSSearchableItemAttributeSet? {
        guard let resolvedTable = resolved.table(named: table) else { return nil }
        let declared = resolvedTable.declaration
        let key: DatabaseValue = (row[resolvedTable.keyColumn] as DatabaseValue?) ?? .null
        let set = CSSearchableItemAttributeSet(contentType: declared.contentType)
        if let displayName = declared.displayName {
            SpotlightAttribute.displayName.apply(try values(of: displayName, row: row, key: key, resolvedTable, db), to: set)
        }
        for (attribute, value) in declared.attributes.sorted(by: { $0.key.name < $1.key.name }) {
            attribute.apply(try values(of: value, row: row, key: key, resolvedTable, db), to: set)
        }
        return set
    }

    func values(of value: SpotlightValue, row: Row, key: DatabaseValue, _ table: ResolvedDeclaration.Table,
                _ db: Database) throws -> [DatabaseValue] {
        switch value {
        case .column(let column):
            return [(row[column] as DatabaseValue?) ?? .null]
        case .expression(let expression):
            let statement = try db.cachedStatement(sql: """
                SELECT (\(expression)) FROM \(table.name.quotedDatabaseIdentifier) WHERE \(table.keySQL) = ?
                """)
            return try DatabaseValue.fetchAll(statement, arguments: [key])
        case .query(let sql):
            return try DatabaseValue.fetchAll(db.cachedStatement(sql: sql), arguments: [key])
        }
    }

    // MARK: - Indexing

    /// Whether the delegate follows the database's changes: true between `startSpotlightIndexing()` and
    /// `stopSpotlightIndexing()`.
    ///
    /// Apple: <https://developer.apple.com/documentation/coredata/nscoredatacorespotlightdelegate/isindexingenabled>
    public var isIndexingEnabled: Bool {
        state.withLock { $0.isIndexingEnabled }
    }

    /// Starts indexing: catches up with the changes recorded since the last indexed one (every row the first time,
    /// or after `deleteSpotlightIndex` or a change of the declaration), then indexes each commit of this process to
    /// the observed tables, in the background. Calling it again does nothing.
    ///
    /// Apple: <https://developer.apple.com/documentation/coredata/nscoredatacorespotlightdelegate/startspotlightindexing()>
    open func startSpotlightIndexing() {
        let starting = state.withLock { state -> Bool in
            if state.isIndexingEnabled { return false }
            state.isIndexingEnabled = true
            state.retryDelay = 0.25
            return true
        }
        guard starting else { return }
        let observation = DatabaseRegionObservation(tracking: resolved.observedTables.map { Table($0) })
        let cancellable = observation.start(
            in: writer,
            onError: { [weak self] error in self?.recordError(error) },
            onChange: { [weak self] _ in self?.scheduleProcessing() })
        let keep = state.withLock { state -> Bool in
            guard state.isIndexingEnabled, state.observation == nil else { return false }
            state.observation = cancellable
            return true
        }
        if !keep { cancellable.cancel() }
        scheduleProcessing()
    }

    /// Stops following changes. The index keeps its items, and changes go on being recorded in the database, to be
    /// indexed on the next start. A batch being written completes.
    ///
    /// Apple: <https://developer.apple.com/documentation/coredata/nscoredatacorespotlightdelegate/stopspotlightindexing()>
    open func stopSpotlightIndexing() {
        let observation = state.withLock { state -> AnyDatabaseCancellable? in
            state.isIndexingEnabled = false
            defer { state.observation = nil }
            return state.observation
        }
        observation?.cancel()
    }

    /// Deletes every item of the delegate's index; the database is untouched. The next start (right away if
    /// indexing is enabled, so call `stopSpotlightIndexing()` first) indexes every row again.
    ///
    /// Apple: <https://developer.apple.com/documentation/coredata/nscoredatacorespotlightdelegate/deletespotlightindex(completionhandler:)>
    open func deleteSpotlightIndex(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        queue.async {
            do {
                let index = self.searchableIndex
                try blockingWait { done in index.deleteAllSearchableItems { done($0.map { .failure($0) } ?? .success(())) } }
                completionHandler(nil)
                self.scheduleProcessing()
            } catch {
                completionHandler(SpotlightGRDBError(.index, "cannot delete the index: \(error)", underlyingError: error))
            }
        }
    }

    /// Deletes every item of the delegate's index. See `deleteSpotlightIndex(completionHandler:)`.
    public func deleteSpotlightIndex() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            deleteSpotlightIndex { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }

    /// Indexes every change recorded so far, now, whether or not indexing is enabled, and returns the history
    /// token then reflected in the index. Not in Apple's API: for command-line tools that exit after a change, for
    /// changes another process made while this one runs, and for tests.
    @discardableResult
    public func processPendingChanges() async throws -> SpotlightHistoryToken? {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<SpotlightHistoryToken?, any Error>) in
            queue.async {
                do {
                    continuation.resume(returning: try self.processHistory(automatic: false))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// The last error of background indexing, if the last pass failed. A failed pass is retried, with growing
    /// delays, while indexing is enabled; nothing is lost meanwhile, the changes stay in the history.
    public var lastIndexingError: (any Error)? {
        state.withLock { $0.lastError }
    }

    /// The name of the `CSSearchableIndex` holding the items: `"<indexName()>_<storeIdentifier>"`, or
    /// `"spotlight_<app identifier>_<storeIdentifier>"` when `indexName()` is nil. Open it with
    /// `CSSearchableIndex(name:)` to inspect it; write to it only through the delegate.
    public var searchableIndexName: String {
        names.index
    }

    /// The identifier of the item mirroring a row of a declared table.
    public func itemIdentifier(table: String, primaryKey: DatabaseValue) -> SpotlightItemIdentifier {
        SpotlightItemIdentifier(storeIdentifier: storeIdentifier, table: table, primaryKey: primaryKey)
    }

    /// Removes change tracking (triggers and history) from a database that no longer uses a delegate. The index is
    /// not touched.
    public static func removeChangeTracking(from writer: any DatabaseWriter) throws {
        try writer.write { db in try ChangeTracking.uninstall(db) }
    }

    // MARK: - CSSearchableIndexDelegate

    /// Indexes every row again, then acknowledges.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableindexdelegate/searchableindex(_:reindexallsearchableitemswithacknowledgementhandler:)>
    open func searchableIndex(_ searchableIndex: CSSearchableIndex,
                              reindexAllSearchableItemsWithAcknowledgementHandler acknowledgementHandler: @escaping @Sendable () -> Void) {
        queue.async {
            do {
                let index = self.searchableIndex
                let stored = try fetchClientState(index)
                if let token = try self.reset(index, expected: stored) { self.postUpdate(token) }
                try self.processHistory(automatic: false)
            } catch {
                self.recordError(error)
            }
            acknowledgementHandler()
        }
    }

    /// Indexes the rows with these item identifiers again, then acknowledges. Identifiers of other stores are
    /// ignored.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableindexdelegate/searchableindex(_:reindexsearchableitemswithidentifiers:acknowledgementhandler:)>
    open func searchableIndex(_ searchableIndex: CSSearchableIndex, reindexSearchableItemsWithIdentifiers identifiers: [String],
                              acknowledgementHandler: @escaping @Sendable () -> Void) {
        let rows = identifiers.compactMap(SpotlightItemIdentifier.init)
            .filter { $0.storeIdentifier == storeIdentifier && resolved.table(named: $0.table) != nil }
            .map { (table: $0.table, key: $0.primaryKey) }
        queue.async {
            do {
                if !rows.isEmpty {
                    try self.writer.write { db in try ChangeTracking.enqueue(rows, db) }
                }
                try self.processHistory(automatic: false)
            } catch {
                self.recordError(error)
            }
            acknowledgementHandler()
        }
    }
}

// MARK: - Names, scheduling, notifications

extension GRDBCoreSpotlightDelegate {
    var names: Names {
        if let names = state.withLock({ $0.names }) { return names }
        let index = indexName().map { "\($0)_\(storeIdentifier)" }
            ?? "spotlight_\(OpenSpotlight.applicationIdentifier)_\(storeIdentifier)"
        let domain = domainIdentifier()
        let fingerprint = stableFingerprint("\(declaration)\ndomain \(domain)")
        let names = Names(index: index, domain: domain, fingerprint: fingerprint)
        return state.withLock { state in
            if let existing = state.names { return existing }
            state.names = names
            return names
        }
    }

    /// The index the delegate writes, created on first use.
    var searchableIndex: CSSearchableIndex {
        if let index = state.withLock({ $0.index }) { return index }
        let index = CSSearchableIndex(name: names.index)
        let chosen = state.withLock { state -> CSSearchableIndex in
            if let existing = state.index { return existing }
            state.index = index
            return index
        }
        chosen.indexDelegate = self
        return chosen
    }

    /// Runs a pass soon, unless one is already waiting; passes run one at a time on `queue`.
    func scheduleProcessing(after delay: TimeInterval = 0) {
        let schedule = state.withLock { state -> Bool in
            guard state.isIndexingEnabled, !state.passScheduled else { return false }
            state.passScheduled = true
            return true
        }
        guard schedule else { return }
        queue.asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self else { return }
            self.state.withLock { $0.passScheduled = false }
            guard self.isIndexingEnabled else { return }
            do {
                try self.processHistory(automatic: true)
                self.state.withLock { state in
                    state.lastError = nil
                    state.retryDelay = 0.25
                }
            } catch {
                self.recordError(error)
                let delay = self.state.withLock { state -> TimeInterval in
                    defer { state.retryDelay = min(state.retryDelay * 2, 60) }
                    return state.retryDelay
                }
                self.scheduleProcessing(after: delay)
            }
        }
    }

    func recordError(_ error: any Error) {
        state.withLock { $0.lastError = error }
    }

    func postUpdate(_ token: SpotlightHistoryToken) {
        NotificationCenter.default.post(name: Self.indexDidUpdateNotification, object: self, userInfo: [
            Self.storeIdentifierKey: storeIdentifier,
            Self.historyTokenKey: token,
        ])
    }
}
