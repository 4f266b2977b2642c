import Foundation
import GRDB
import OpenCoreSpotlight

/// One pass over the history: read what follows the token stored in the index, turn the changed rows into items
/// and deletions, and write them with the new token in one index batch; repeat until nothing is left.
///
/// The index's client state is the only record of progress, and it changes only together with the items
/// (`endIndexBatch(expectedClientState:newClientState:)`). So a process killed at any point leaves either the old
/// token and the old items, or the new token and the new items; the next pass resumes from there. Items are
/// upserted by identifier, so indexing a change twice is harmless, and a row is always indexed as it is now (its
/// history entries only say it changed), so entries of one row coalesce.
extension GRDBCoreSpotlightDelegate {
    /// Runs on `queue`. Returns the token reflected in the index at the end.
    @discardableResult
    func processHistory(automatic: Bool) throws -> SpotlightHistoryToken? {
        let index = searchableIndex
        let names = self.names
        var conflicts = 0
        var token: SpotlightHistoryToken?
        while true {
            if automatic && !isIndexingEnabled { return token }
            let stored = try fetchClientState(index)
            let (prunedThrough, lastRecorded) = try database { db in
                (try ChangeTracking.prunedThrough(db), try ChangeTracking.lastSequenceNumber(db))
            }
            guard let current = IndexClientState(stored), current.fingerprint == names.fingerprint,
                  current.token.sequenceNumber >= prunedThrough, current.token.sequenceNumber <= lastRecorded
            else {
                // First run, index deleted, declaration changed, history this index needed pruned by someone
                // else, or a database older than the index (restored from a backup, change tracking removed and
                // installed again): index every row again.
                if let reset = try reset(index, expected: stored) {
                    token = reset
                    try? writer.write { db in try ChangeTracking.prune(through: reset.sequenceNumber, db) }
                    if !automatic || isIndexingEnabled { postUpdate(reset) }
                } else {
                    conflicts += 1
                    try checkConflicts(conflicts)
                }
                continue
            }
            token = current.token
            guard let chunk = try database({ db in try self.readChunk(after: current.token.sequenceNumber, db) }) else {
                // Nothing left to index. History the index already reflects but that was not pruned (a process
                // killed between the index's commit and the prune, or a busy database then) goes now.
                if current.token.sequenceNumber > prunedThrough {
                    try? writer.write { db in try ChangeTracking.prune(through: current.token.sequenceNumber, db) }
                }
                return current.token
            }
            let newState = IndexClientState(token: chunk.token, fingerprint: names.fingerprint)
            guard try commit(chunk, to: index, expected: stored, newState: newState) else {
                conflicts += 1
                try checkConflicts(conflicts)
                continue
            }
            token = chunk.token
            // Pruning can fail (database busy) without harm: the token already skips these entries.
            try? writer.write { db in try ChangeTracking.prune(through: chunk.token.sequenceNumber, db) }
            if !automatic || isIndexingEnabled { postUpdate(chunk.token) }
        }
    }

    private func checkConflicts(_ conflicts: Int) throws {
        // Another process with a delegate on the same database and index moved the token meanwhile; re-read it.
        if conflicts > 20 {
            throw SpotlightGRDBError(.index, "the index's client state keeps changing under this delegate")
        }
    }

    /// Records every row as changed and empties the index, with a token just before those records. Returns nil if
    /// the client state changed meanwhile.
    func reset(_ index: CSSearchableIndex, expected: Data?) throws -> SpotlightHistoryToken? {
        let before = try database(write: true) { db in try ChangeTracking.enqueueAll(self.resolved, db) }
        let token = SpotlightHistoryToken(sequenceNumber: before)
        index.beginBatch()
        index.deleteAllSearchableItems()
        do {
            try endBatch(index, expected: expected, new: IndexClientState(token: token, fingerprint: names.fingerprint))
            return token
        } catch let error as CSIndexError where error.code == .mismatchedClientState {
            return nil
        }
    }

    struct Chunk {
        var token: SpotlightHistoryToken
        var items: [CSSearchableItem] = []
        var deletions: [String] = []
    }

    /// Reads up to `batchSize` history entries after `sequenceNumber` and builds the items of the rows they name.
    func readChunk(after sequenceNumber: Int64, _ db: Database) throws -> Chunk? {
        let entries = try Row.fetchAll(db, sql: """
            SELECT seq, tableName, rowKey FROM \(ChangeTracking.historyTable) WHERE seq > ? ORDER BY seq LIMIT ?
            """, arguments: [sequenceNumber, batchSize])
        guard let last = entries.last else { return nil }
        var chunk = Chunk(token: SpotlightHistoryToken(sequenceNumber: last["seq"]))

        // Coalesce: each changed row once, per table, in order of first change.
        var keysByTable: [String: [DatabaseValue]] = [:]
        var seen = Set<String>()
        var tableOrder: [String] = []
        for entry in entries {
            let tableName: String = entry["tableName"]
            let key: DatabaseValue = entry["rowKey"]
            guard !key.isNull, let table = resolved.table(named: tableName) else { continue }
            let id = itemIdentifier(table: table.name, primaryKey: key).description
            guard seen.insert(id).inserted else { continue }
            if keysByTable[table.name] == nil { tableOrder.append(table.name) }
            keysByTable[table.name, default: []].append(key)
        }

        let domain = names.domain
        for tableName in tableOrder {
            let table = resolved.table(named: tableName)!
            let keys = keysByTable[tableName]!
            var start = 0
            while start < keys.count {
                let slice = Array(keys[start..<min(start + 500, keys.count)])
                start += slice.count
                let placeholders = Array(repeating: "?", count: slice.count).joined(separator: ",")
                let filter = table.declaration.filter.map { " AND (\($0))" } ?? ""
                let rows = try Row.fetchAll(db, sql: """
                    SELECT \(table.hiddenRowID ? "rowid, " : "")* FROM \(table.name.quotedDatabaseIdentifier)
                    WHERE \(table.keySQL) IN (\(placeholders))\(filter)
                    """, arguments: StatementArguments(slice))
                var found = Set<String>()
                for row in rows {
                    let key: DatabaseValue = (row[table.keyColumn] as DatabaseValue?) ?? .null
                    let id = itemIdentifier(table: table.name, primaryKey: key).description
                    found.insert(id)
                    if let set = try attributeSet(for: row, table: table.name, in: db) {
                        let item = CSSearchableItem(uniqueIdentifier: id, domainIdentifier: domain, attributeSet: set)
                        // Deviation from CSSearchableItem's default of one month: a mirror of the database must
                        // not lose items that did not change for a month.
                        item.expirationDate = .distantFuture
                        chunk.items.append(item)
                    } else {
                        chunk.deletions.append(id)
                    }
                }
                for key in slice {
                    let id = itemIdentifier(table: table.name, primaryKey: key).description
                    if !found.contains(id) { chunk.deletions.append(id) }
                }
            }
        }
        return chunk
    }

    /// Writes a chunk and its token in one index batch. Returns false if the client state changed meanwhile.
    /// Items the index rejects (over its limits) are left out and reported in `lastIndexingError`; the rest of the
    /// batch is indexed.
    func commit(_ chunk: Chunk, to index: CSSearchableIndex, expected: Data?, newState: IndexClientState) throws -> Bool {
        let rejected = RejectedItems()
        let group = DispatchGroup()
        index.beginBatch()
        for item in chunk.items {
            group.enter()
            let id = item.uniqueIdentifier
            index.indexSearchableItems([item]) { error in
                if let error { rejected.add(id, error) }
                group.leave()
            }
        }
        if !chunk.deletions.isEmpty {
            index.deleteSearchableItems(withIdentifiers: chunk.deletions)
        }
        do {
            try endBatch(index, expected: expected, new: newState)
        } catch let error as CSIndexError where error.code == .mismatchedClientState {
            group.wait()
            return false
        }
        group.wait()
        let failures = rejected.all
        if !failures.isEmpty {
            // Their previous versions would be stale: remove them.
            try? blockingWait { done in
                index.deleteSearchableItems(withIdentifiers: failures.map(\.id)) { done($0.map { .failure($0) } ?? .success(())) }
            }
            recordError(SpotlightGRDBError(.index,
                "\(failures.count) row(s) could not be indexed, first \(failures[0].id): \(failures[0].error)",
                underlyingError: failures[0].error))
        }
        return true
    }

    func endBatch(_ index: CSSearchableIndex, expected: Data?, new: IndexClientState) throws {
        try blockingWait { done in
            index.endIndexBatch(expectedClientState: expected, newClientState: new.data) { error in
                done(error.map { .failure($0) } ?? .success(()))
            }
        }
    }

    /// A database access whose errors other than ours become `SpotlightGRDBError.database`.
    func database<T>(write: Bool = false, _ body: (Database) throws -> T) throws -> T {
        do {
            return write ? try writer.write(body) : try writer.read(body)
        } catch let error as SpotlightGRDBError {
            throw error
        } catch {
            throw SpotlightGRDBError(.database, "\(error)", underlyingError: error)
        }
    }
}

/// The stored client state of an index, synchronously; nil when none is stored.
func fetchClientState(_ index: CSSearchableIndex) throws -> Data? {
    try blockingWait { done in
        index.fetchLastClientState { data, error in done(error.map { .failure($0) } ?? .success(data)) }
    }
}

/// Calls a completion-handler API and waits for it. Only ever called on the delegate's own dispatch queue, never
/// on the cooperative pool.
func blockingWait<T: Sendable>(_ body: (@escaping @Sendable (Result<T, any Error>) -> Void) -> Void) throws -> T {
    let box = ResultBox<T>()
    let semaphore = DispatchSemaphore(value: 0)
    body { result in
        box.set(result)
        semaphore.signal()
    }
    semaphore.wait()
    return try box.get()
}

private final class ResultBox<T: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: every access goes through `lock`.
    private let lock = NSLock()
    private var result: Result<T, any Error>?

    func set(_ value: Result<T, any Error>) {
        lock.lock()
        defer { lock.unlock() }
        if result == nil { result = value }
    }

    func get() throws -> T {
        lock.lock()
        defer { lock.unlock() }
        return try result!.get()
    }
}

private final class RejectedItems: @unchecked Sendable {
    // @unchecked Sendable: every access goes through `lock`.
    private let lock = NSLock()
    private var items: [(id: String, error: any Error)] = []

    func add(_ id: String, _ error: any Error) {
        lock.lock()
        defer { lock.unlock() }
        items.append((id, error))
    }

    var all: [(id: String, error: any Error)] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
}
