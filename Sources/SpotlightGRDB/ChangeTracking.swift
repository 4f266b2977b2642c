import Foundation
import GRDB

/// The persistent history kept in the app's database: SQLite triggers on the indexed and related tables record
/// each changed row in `spotlightgrdb_history`, in the same transaction as the change.
///
/// ```
/// spotlightgrdb_history(seq INTEGER PRIMARY KEY AUTOINCREMENT, tableName TEXT, rowKey, operation TEXT)
/// spotlightgrdb_store(id = 1, storeIdentifier TEXT, prunedThrough INTEGER)
/// triggers spotlightgrdb_<n>
/// ```
///
/// `seq` only grows (AUTOINCREMENT never reuses a number), and SQLite has one writer at a time, so a snapshot that
/// sees change `n` sees every change before it: a sequence number is a history token. `operation` is `I`, `U`,
/// `D`, or `R` (a related row changed); processing reads the row's current state, so it is informative only.
enum ChangeTracking {
    static let historyTable = "spotlightgrdb_history"
    static let storeTable = "spotlightgrdb_store"
    static let triggerPrefix = "spotlightgrdb_"

    static let schemaSQL = """
        CREATE TABLE IF NOT EXISTS \(historyTable) (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            tableName TEXT NOT NULL,
            rowKey,
            operation TEXT NOT NULL
        );
        CREATE TABLE IF NOT EXISTS \(storeTable) (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            storeIdentifier TEXT NOT NULL,
            prunedThrough INTEGER NOT NULL DEFAULT 0
        );
        """

    /// Whether the history tables, the store identifier and exactly the wanted triggers are in place.
    static func isInstalled(_ resolved: ResolvedDeclaration, _ db: Database) throws -> Bool {
        guard try db.tableExists(historyTable), try db.tableExists(storeTable),
              try String.fetchOne(db, sql: "SELECT storeIdentifier FROM \(storeTable) WHERE id = 1") != nil
        else { return false }
        return try installedTriggers(db) == resolved.triggerSQL
    }

    /// Creates the history tables and the store identifier if missing, and replaces our triggers when they differ
    /// from the declaration's.
    static func install(_ resolved: ResolvedDeclaration, _ db: Database) throws {
        try db.execute(sql: schemaSQL)
        try db.execute(sql: "INSERT OR IGNORE INTO \(storeTable)(id, storeIdentifier) VALUES (1, ?)",
                       arguments: [UUID().uuidString])
        let installed = try installedTriggers(db)
        if installed != resolved.triggerSQL {
            for name in installed.keys.sorted() {
                try db.execute(sql: "DROP TRIGGER IF EXISTS \(name.quotedDatabaseIdentifier)")
            }
            for name in resolved.triggerSQL.keys.sorted() {
                try db.execute(sql: resolved.triggerSQL[name]!)
            }
        }
    }

    /// Removes the triggers and the history tables.
    static func uninstall(_ db: Database) throws {
        for name in try installedTriggers(db).keys {
            try db.execute(sql: "DROP TRIGGER IF EXISTS \(name.quotedDatabaseIdentifier)")
        }
        try db.execute(sql: "DROP TABLE IF EXISTS \(historyTable); DROP TABLE IF EXISTS \(storeTable)")
    }

    static func installedTriggers(_ db: Database) throws -> [String: String] {
        var result: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: """
            SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'spotlightgrdb\\_%' ESCAPE '\\'
            """) {
            result[row["name"]] = row["sql"]
        }
        return result
    }

    static func storeIdentifier(_ db: Database) throws -> String {
        guard let id = try String.fetchOne(db, sql: "SELECT storeIdentifier FROM \(storeTable) WHERE id = 1") else {
            throw SpotlightGRDBError(.database, "the store identifier is missing from \(storeTable)")
        }
        return id
    }

    /// The highest sequence number ever allocated (0 when none).
    static func lastSequenceNumber(_ db: Database) throws -> Int64 {
        let fromSequence = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?",
                                              arguments: [historyTable]) ?? 0
        let fromTable = try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM \(historyTable)") ?? 0
        return max(fromSequence, fromTable)
    }

    static func prunedThrough(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT prunedThrough FROM \(storeTable) WHERE id = 1") ?? 0
    }

    /// Deletes the history through `sequenceNumber`, remembering how far it was pruned.
    static func prune(through sequenceNumber: Int64, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM \(historyTable) WHERE seq <= ?", arguments: [sequenceNumber])
        try db.execute(sql: "UPDATE \(storeTable) SET prunedThrough = MAX(prunedThrough, ?) WHERE id = 1",
                       arguments: [sequenceNumber])
    }

    /// Records every row of every declared table as changed; returns the last sequence number before them.
    static func enqueueAll(_ resolved: ResolvedDeclaration, _ db: Database) throws -> Int64 {
        let before = try lastSequenceNumber(db)
        for table in resolved.tables {
            try db.execute(sql: """
                INSERT INTO \(historyTable)(tableName, rowKey, operation)
                SELECT \(sqlLiteral(table.name)), \(table.keySQL), 'R' FROM \(table.name.quotedDatabaseIdentifier)
                """)
        }
        return before
    }

    /// Records the given rows as changed.
    static func enqueue(_ rows: [(table: String, key: DatabaseValue)], _ db: Database) throws {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO \(historyTable)(tableName, rowKey, operation) VALUES (?, ?, 'R')
            """)
        for row in rows {
            try statement.execute(arguments: [row.table, row.key])
        }
    }

    static func sqlLiteral(_ s: String) -> String {
        "'" + s.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
