import Foundation
import GRDB
import SpotlightText

/// What the user engaged with, per app, persisted so that it shapes later rankings and suggestions.
///
/// Each engagement adds weight to a (query, item) pair — the query normalized to its folded words, `""` for
/// engagement outside a search (an activity visit). Weights decay with a half-life of 30 days. The boost an item
/// gets for a query is bounded (`Ranking.maxEngagementPoints`), so engagement reorders close matches but never
/// buries a clearly better text match:
///
/// - for the same query, or one that starts with the typed words (`"mil"` → engaged for `"milk"`): 1 point per
///   unit of decayed weight, up to 1.5;
/// - for any query: 0.25 per unit, up to 0.5.
///
/// Stored in `apps/<app>/engagement.sqlite` beside the app's indexes.
package final class EngagementStore: Sendable {
    package static let halfLife: TimeInterval = 30 * 86_400
    package static let maxQueryPoints = 1.5
    package static let maxGeneralPoints = 0.5

    let pool: DatabasePool
    package let url: URL

    /// The engagement store of an app, created on first use.
    package static func forApp(_ app: String, root: URL? = nil) throws -> EngagementStore {
        let url = StoreLocation.appDirectory(for: app, root: root).appendingPathComponent("engagement.sqlite")
        return try cache.withLock { cache in
            if let store = cache[url.path], FileManager.default.fileExists(atPath: url.path) { return store }
            let store = try EngagementStore(url: url)
            cache[url.path] = store
            return store
        }
    }

    private static let cache = LockedBox<[String: EngagementStore]>([:])

    package init(url: URL) throws {
        self.url = url
        pool = try openSideDatabase(url, busyTimeout: 30, schema: """
            CREATE TABLE IF NOT EXISTS engagement(
                query TEXT NOT NULL, uid TEXT NOT NULL, weight REAL NOT NULL, last REAL NOT NULL,
                PRIMARY KEY(query, uid)) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS engagedQuery(
                query TEXT PRIMARY KEY, weight REAL NOT NULL, last REAL NOT NULL) WITHOUT ROWID;
            """)
    }

    /// The normalized form of a typed query: its folded words joined by one space.
    package static func normalize(_ query: String) -> String {
        Tokenizer.queryTokens(query).joined(separator: " ")
    }

    static func decayed(_ weight: Double, last: Double, now: Date) -> Double {
        weight * pow(0.5, max(0, now.timeIntervalSinceReferenceDate - last) / halfLife)
    }

    /// Records that the user engaged with an item (`weight` 1 for a selection, less for a focus) after typing
    /// `query` (nil: outside a search).
    package func recordItem(_ uniqueIdentifier: String, query: String?, weight: Double = 1, now: Date = Date()) throws {
        let normalized = query.map(Self.normalize) ?? ""
        try write { db in
            for q in Set([normalized, ""]) {
                try Self.add(db, table: "engagement", keys: ["query": q, "uid": uniqueIdentifier], weight: weight, now: now)
            }
            if !normalized.isEmpty {
                try Self.add(db, table: "engagedQuery", keys: ["query": normalized], weight: weight, now: now)
            }
        }
    }

    /// Records that the user engaged with a suggested query.
    package func recordQuery(_ query: String, weight: Double = 1, now: Date = Date()) throws {
        let normalized = Self.normalize(query)
        guard !normalized.isEmpty else { return }
        try write { db in
            try Self.add(db, table: "engagedQuery", keys: ["query": normalized], weight: weight, now: now)
        }
    }

    private static func add(_ db: Database, table: String, keys: [String: String], weight: Double, now: Date) throws {
        let columns = keys.keys.sorted()
        let condition = columns.map { "\($0) = ?" }.joined(separator: " AND ")
        let arguments = StatementArguments(columns.map { keys[$0]! })
        let old = try Row.fetchOne(db, sql: "SELECT weight, last FROM \(table) WHERE \(condition)", arguments: arguments)
        let previous = try old.map { decayed(try $0.stored("weight"), last: try $0.stored("last"), now: now) } ?? 0
        try db.execute(
            sql: "INSERT OR REPLACE INTO \(table)(\(columns.joined(separator: ", ")), weight, last) VALUES(\(columns.map { _ in "?" }.joined(separator: ", ")), ?, ?)",
            arguments: arguments + [previous + weight, now.timeIntervalSinceReferenceDate])
    }

    /// Engagement points per unique identifier for a typed query.
    package func boosts(for query: String, now: Date = Date()) throws -> [String: Double] {
        let normalized = Self.normalize(query)
        return try read { db in
            var boosts: [String: Double] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT uid, weight, last FROM engagement WHERE query = ''") {
                let w = Self.decayed(try row.stored("weight"), last: try row.stored("last"), now: now)
                boosts[try row.stored("uid"), default: 0] += min(Self.maxGeneralPoints, 0.25 * w)
            }
            if !normalized.isEmpty {
                let rows = try Row.fetchAll(db, sql: "SELECT uid, weight, last FROM engagement WHERE query >= ? AND query < ?",
                                            arguments: [normalized, normalized + "\u{10FFFF}"])
                var perItem: [String: Double] = [:]
                for row in rows {
                    perItem[try row.stored("uid"), default: 0] += Self.decayed(try row.stored("weight"), last: try row.stored("last"), now: now)
                }
                for (uid, w) in perItem {
                    boosts[uid, default: 0] += min(Self.maxQueryPoints, w)
                }
            }
            return boosts
        }
    }

    /// Past engaged queries that start with the typed text, best first, with their decayed weight.
    package func pastQueries(startingWith query: String, limit: Int = 10, now: Date = Date()) throws -> [(query: String, weight: Double)] {
        let normalized = Self.normalize(query)
        guard !normalized.isEmpty else { return [] }
        return try read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT query, weight, last FROM engagedQuery WHERE query >= ? AND query < ?",
                                        arguments: [normalized, normalized + "\u{10FFFF}"])
            var result: [(query: String, weight: Double)] = []
            for row in rows {
                let weight = Self.decayed(try row.stored("weight"), last: try row.stored("last"), now: now)
                if weight > 0.01 { result.append((try row.stored("query"), weight)) }
            }
            result.sort { $0.weight != $1.weight ? $0.weight > $1.weight : $0.query < $1.query }
            return Array(result.prefix(limit))
        }
    }

    /// Forgets everything.
    package func reset() throws {
        try write { try $0.execute(sql: "DELETE FROM engagement; DELETE FROM engagedQuery") }
    }

    private func write<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try pool.write(body) } catch let error as DatabaseError { throw IndexStore.map(error, url: url) }
    }

    private func read<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try pool.read(body) } catch let error as DatabaseError { throw IndexStore.map(error, url: url) }
    }
}

/// Opens (creating it 0600, in a private directory) a small database that lives beside an app's indexes — engagement,
/// the public report queue — and creates its tables; failures are the engine's errors.
package func openSideDatabase(_ url: URL, busyTimeout: TimeInterval, schema: String) throws -> DatabasePool {
    do {
        try StoreLocation.createPrivateDirectory(url.deletingLastPathComponent())
        if !FileManager.default.fileExists(atPath: url.path) {
            _ = FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        let pool = try DatabasePool(path: url.path, configuration: configuration)
        try pool.write { db in try db.execute(sql: schema) }
        return pool
    } catch let error as DatabaseError {
        throw IndexStore.map(error, url: url)
    } catch let error as EngineError {
        throw error
    } catch {
        throw EngineError(.indexUnavailable, "cannot open \(url.path): \(error)")
    }
}
