import Foundation
import GRDB

/// A declaration checked against the database schema, with the triggers that record its changes.
///
/// Every name, column, SQL fragment and foreign key is checked here, so that a misconfiguration is a thrown
/// `SpotlightGRDBError` naming what is wrong, never a crash or silently missing items later.
struct ResolvedDeclaration: Sendable {
    struct Table: Sendable {
        let declaration: SpotlightTable
        var name: String { declaration.name }
        /// The primary key column, or `rowid` for a table without an explicit one.
        let keyColumn: String
        /// True when the key is the hidden rowid (selected explicitly as `rowid`).
        let hiddenRowID: Bool
        /// The key as SQL in a statement over the table.
        var keySQL: String { hiddenRowID ? "rowid" : keyColumn.quotedDatabaseIdentifier }
        /// Every table whose changes re-index rows of this one, this one included.
        let observedTables: [String]
    }

    let tables: [Table]
    /// Trigger name → `CREATE TRIGGER` statement.
    let triggerSQL: [String: String]

    func table(named name: String) -> Table? {
        tables.first { $0.name == name } ?? tables.first { $0.name.lowercased() == name.lowercased() }
    }

    /// Every table the delegate must observe for commits.
    var observedTables: [String] {
        var seen = Set<String>()
        return tables.flatMap(\.observedTables).filter { seen.insert($0.lowercased()).inserted }
    }

    // MARK: - Resolution

    static func resolve(_ declaration: SpotlightDeclaration, _ db: Database) throws -> ResolvedDeclaration {
        var builder = TriggerBuilder()
        var tables: [Table] = []
        var names = Set<String>()
        guard !declaration.tables.isEmpty else {
            throw SpotlightGRDBError(.invalidDeclaration, "the declaration has no tables")
        }
        for table in declaration.tables {
            guard names.insert(table.name.lowercased()).inserted else {
                throw SpotlightGRDBError(.invalidDeclaration, "table \(table.name.debugDescription) is declared twice")
            }
            tables.append(try resolve(table, db, &builder))
        }
        return ResolvedDeclaration(tables: tables, triggerSQL: builder.triggers)
    }

    private static func resolve(_ table: SpotlightTable, _ db: Database, _ builder: inout TriggerBuilder) throws -> Table {
        let context = "table \(table.name.debugDescription)"
        let schema = try TableSchema(table.name, db, context: context)
        guard !schema.name.hasPrefix(ChangeTracking.triggerPrefix) else {
            throw SpotlightGRDBError(.invalidDeclaration, "\(context): the tables of SpotlightGRDB cannot be indexed")
        }
        let (keyColumn, hidden) = try schema.singleKey(context: context)

        // Values and filter.
        if let displayName = table.displayName {
            try check(displayName, schema, db, context: "\(context): displayName")
        }
        for (attribute, value) in table.attributes.sorted(by: { $0.key.name < $1.key.name }) {
            try check(value, schema, db, context: "\(context): attribute \(attribute.name)")
        }
        if let filter = table.filter {
            try prepare("SELECT 1 FROM \(schema.quoted) WHERE (\(filter))", db, context: "\(context): filter \(filter.debugDescription)")
        }

        // The table's own changes.
        let literal = ChangeTracking.sqlLiteral(table.name)
        func own(_ ref: String) -> String { hidden ? "\(ref).rowid" : "\(ref).\(keyColumn.quotedDatabaseIdentifier)" }
        builder.add(on: schema.name, event: "INSERT", [TriggerBuilder.record(literal, own("NEW"), "I")])
        builder.add(on: schema.name, event: "UPDATE", [
            TriggerBuilder.record(literal, own("OLD"), "U"),
            TriggerBuilder.recordSelect(literal, own("NEW"), "U", from: nil, where: "\(own("NEW")) IS NOT \(own("OLD"))"),
        ])
        builder.add(on: schema.name, event: "DELETE", [TriggerBuilder.record(literal, own("OLD"), "D")])

        // Relationships.
        var observed = [schema.name]
        for relationship in table.relationships {
            observed += try resolve(relationship, parent: schema, literal: literal, db, &builder,
                                    context: "\(context): \(relationship)")
        }
        return Table(declaration: table, keyColumn: keyColumn, hiddenRowID: hidden, observedTables: observed)
    }

    /// Adds the triggers of one relationship; returns the tables they watch.
    private static func resolve(_ relationship: SpotlightRelationship, parent: TableSchema, literal: String,
                                _ db: Database, _ builder: inout TriggerBuilder, context: String) throws -> [String] {
        switch relationship.kind {
        case let .hasMany(childName, foreignKey):
            let child = try TableSchema(childName, db, context: context)
            let fk = try child.foreignKey(foreignKey, to: parent, context: context)
            addChildTriggers(child: child, column: fk.column, parent: parent, referenced: fk.referenced,
                             literal: literal, &builder)
            return [child.name]

        case let .belongsTo(otherName, foreignKey):
            let other = try TableSchema(otherName, db, context: context)
            let fk = try parent.foreignKey(foreignKey, to: other, context: context)
            let parentKey = try parent.singleKey(context: context)
            let key = parentKey.hidden ? "\(parent.quoted).rowid" : "\(parent.quoted).\(parentKey.column.quotedDatabaseIdentifier)"
            for (event, refs) in TriggerBuilder.events {
                builder.add(on: other.name, event: event, refs.map { ref in
                    TriggerBuilder.recordSelect(literal, key, "R", from: parent.quoted,
                        where: "\(parent.quoted).\(fk.column.quotedDatabaseIdentifier) = \(other.reference(ref, fk.referenced))"
                            + TriggerBuilder.changed(event, ref, other.reference("NEW", fk.referenced), other.reference("OLD", fk.referenced)))
                })
            }
            return [other.name]

        case let .hasManyThrough(otherName, joinName, foreignKey, otherForeignKey):
            let join = try TableSchema(joinName, db, context: context)
            let other = try TableSchema(otherName, db, context: context)
            let fk = try join.foreignKey(foreignKey, to: parent, context: context)
            let otherFK = try join.foreignKey(otherForeignKey, to: other, context: context)
            addChildTriggers(child: join, column: fk.column, parent: parent, referenced: fk.referenced,
                             literal: literal, &builder)
            // A change of a linked row re-indexes the rows linked to it.
            let parentKey = try parent.singleKey(context: context)
            let joinColumn = "\(join.quoted).\(fk.column.quotedDatabaseIdentifier)"
            let direct = parent.isKey(fk.referenced)
            let key = direct ? joinColumn
                : (parentKey.hidden ? "\(parent.quoted).rowid" : "\(parent.quoted).\(parentKey.column.quotedDatabaseIdentifier)")
            let from = direct ? join.quoted
                : "\(join.quoted) JOIN \(parent.quoted) ON \(parent.reference(parent.quoted, fk.referenced)) = \(joinColumn)"
            for (event, refs) in TriggerBuilder.events {
                builder.add(on: other.name, event: event, refs.map { ref in
                    TriggerBuilder.recordSelect(literal, key, "R", from: from,
                        where: "\(join.quoted).\(otherFK.column.quotedDatabaseIdentifier) = \(other.reference(ref, otherFK.referenced)) AND \(joinColumn) IS NOT NULL"
                            + TriggerBuilder.changed(event, ref, other.reference("NEW", otherFK.referenced), other.reference("OLD", otherFK.referenced)))
                })
            }
            return [join.name, other.name]
        }
    }

    /// Triggers on a table whose `column` refers to `parent.referenced`.
    private static func addChildTriggers(child: TableSchema, column: String, parent: TableSchema, referenced: String,
                                         literal: String, _ builder: inout TriggerBuilder) {
        let direct = parent.isKey(referenced)
        let parentKey = parent.key
        for (event, refs) in TriggerBuilder.events {
            builder.add(on: child.name, event: event, refs.map { ref in
                let value = "\(ref).\(column.quotedDatabaseIdentifier)"
                let changed = TriggerBuilder.changed(event, ref, "NEW.\(column.quotedDatabaseIdentifier)",
                                                     "OLD.\(column.quotedDatabaseIdentifier)")
                if direct {
                    return TriggerBuilder.recordSelect(literal, value, "R", from: nil, where: "\(value) IS NOT NULL" + changed)
                }
                let key = parentKey.hidden ? "\(parent.quoted).rowid"
                    : "\(parent.quoted).\(parentKey.column.quotedDatabaseIdentifier)"
                return TriggerBuilder.recordSelect(literal, key, "R", from: parent.quoted,
                                                   where: "\(parent.reference(parent.quoted, referenced)) = \(value)" + changed)
            })
        }
    }

    // MARK: - Checks

    private static func check(_ value: SpotlightValue, _ schema: TableSchema, _ db: Database, context: String) throws {
        switch value {
        case .column(let column):
            try schema.checkColumn(column, context: context)
        case .expression(let expression):
            try prepare("SELECT (\(expression)) FROM \(schema.quoted)", db,
                        context: "\(context): expression \(expression.debugDescription)")
        case .query(let sql):
            let statement = try prepare(sql, db, context: "\(context): query \(sql.debugDescription)")
            guard statement.isReadonly, statement.columnCount >= 1 else {
                throw SpotlightGRDBError(.invalidSQL, "\(context): query \(sql.debugDescription) must be a SELECT")
            }
            do {
                try statement.validateArguments([DatabaseValue.null])
            } catch {
                throw SpotlightGRDBError(.invalidSQL,
                    "\(context): query \(sql.debugDescription) must take exactly one parameter, the row's primary key",
                    underlyingError: error)
            }
        }
    }

    @discardableResult
    private static func prepare(_ sql: String, _ db: Database, context: String) throws -> Statement {
        do {
            return try db.makeStatement(sql: sql)
        } catch let error as DatabaseError {
            let reason = error.message ?? "\(error)"
            let code: SpotlightGRDBError.Code = reason.hasPrefix("no such column") ? .unknownColumn
                : reason.hasPrefix("no such table") ? .unknownTable : .invalidSQL
            throw SpotlightGRDBError(code, "\(context): \(reason)", underlyingError: error)
        }
    }
}

/// What the checks need to know of one table.
struct TableSchema {
    let name: String
    let columns: [String]
    let primaryKey: PrimaryKeyInfo
    let foreignKeys: [ForeignKeyInfo]
    var quoted: String { name.quotedDatabaseIdentifier }

    init(_ name: String, _ db: Database, context: String) throws {
        guard try db.tableExists(name) else {
            let tables = try String.fetchAll(db, sql: """
                SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
                AND name NOT LIKE 'spotlightgrdb\\_%' ESCAPE '\\' ORDER BY name
                """)
            throw SpotlightGRDBError(.unknownTable,
                "\(context): no such table \(name.debugDescription) (tables: \(tables.isEmpty ? "none" : tables.joined(separator: ", ")))")
        }
        self.name = name
        self.columns = try db.columns(in: name).map(\.name)
        self.primaryKey = try db.primaryKey(name)
        self.foreignKeys = try db.foreignKeys(on: name)
    }

    var hasHiddenRowID: Bool { primaryKey.isRowID && primaryKey.rowIDColumn == nil }

    var key: (column: String, hidden: Bool) {
        hasHiddenRowID ? ("rowid", true) : (primaryKey.rowIDColumn ?? primaryKey.columns[0], false)
    }

    func singleKey(context: String) throws -> (column: String, hidden: Bool) {
        guard primaryKey.columns.count == 1 else {
            throw SpotlightGRDBError(.unsupportedPrimaryKey,
                "\(context): table \(name.debugDescription) has a composite primary key (\(primaryKey.columns.joined(separator: ", "))); "
                + "indexed tables need a single-column primary key or a rowid")
        }
        return key
    }

    /// Whether `column` is the table's key (the rowid or an alias of it included).
    func isKey(_ column: String) -> Bool {
        let c = column.lowercased()
        if c == key.column.lowercased() { return true }
        return primaryKey.isRowID && ["rowid", "oid", "_rowid_"].contains(c) && !columns.contains { $0.lowercased() == c }
    }

    /// `ref.column` in SQL, with the hidden rowid unquoted.
    func reference(_ ref: String, _ column: String) -> String {
        if hasHiddenRowID && column.lowercased() == "rowid" { return "\(ref).rowid" }
        return "\(ref).\(column.quotedDatabaseIdentifier)"
    }

    func checkColumn(_ column: String, context: String) throws {
        if columns.contains(where: { $0.lowercased() == column.lowercased() }) { return }
        if hasHiddenRowID && column.lowercased() == "rowid" { return }
        throw SpotlightGRDBError(.unknownColumn,
            "\(context): no such column \(column.debugDescription) in table \(name.debugDescription) (columns: \(columns.joined(separator: ", ")))")
    }

    /// The column of this table that refers to `target`, and the column of `target` it refers to: the given one,
    /// or the only single-column foreign key to `target` in the schema.
    func foreignKey(_ column: String?, to target: TableSchema, context: String) throws -> (column: String, referenced: String) {
        let candidates = foreignKeys.filter {
            $0.destinationTable.lowercased() == target.name.lowercased() && $0.mapping.count == 1
        }
        if let column {
            try checkColumn(column, context: context)
            let declared = candidates.first { $0.originColumns[0].lowercased() == column.lowercased() }
            let referenced = declared?.destinationColumns[0] ?? target.key.column
            if declared == nil, target.primaryKey.columns.count != 1 {
                throw SpotlightGRDBError(.invalidRelationship,
                    "\(context): \(name).\(column) must refer to \(target.name), whose primary key is composite")
            }
            try target.checkColumn(referenced, context: context)
            return (column, referenced)
        }
        switch candidates.count {
        case 1:
            return (candidates[0].originColumns[0], candidates[0].destinationColumns[0])
        case 0:
            throw SpotlightGRDBError(.invalidRelationship,
                "\(context): table \(name.debugDescription) has no foreign key to \(target.name.debugDescription); "
                + "declare one in the schema or name the column (foreignKey:)")
        default:
            throw SpotlightGRDBError(.invalidRelationship,
                "\(context): table \(name.debugDescription) has several foreign keys to \(target.name.debugDescription) "
                + "(\(candidates.map { $0.originColumns[0] }.joined(separator: ", "))); name the column (foreignKey:)")
        }
    }
}

/// Collects trigger bodies per (table, event) and names them deterministically.
struct TriggerBuilder {
    private var bodies: [String: [String]] = [:]   // "table\0event" → statements
    private var order: [String] = []

    mutating func add(on table: String, event: String, _ statements: [String]) {
        let key = table + "\u{0}" + event
        if bodies[key] == nil { order.append(key) }
        for statement in statements where !(bodies[key]?.contains(statement) ?? false) {
            bodies[key, default: []].append(statement)
        }
    }

    /// One trigger per (table, event): `spotlightgrdb_<table>_<event>`.
    var triggers: [String: String] {
        var result: [String: String] = [:]
        for key in order {
            let parts = key.split(separator: "\u{0}", omittingEmptySubsequences: false)
            let table = String(parts[0]), event = String(parts[1])
            let safe = String(table.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) && $0.isASCII ? Character($0) : "_" })
            var name = "\(ChangeTracking.triggerPrefix)\(safe)_\(event.lowercased())"
            if result[name] != nil { name += "_\(stableFingerprint(table).prefix(8))" }
            let body = bodies[key]!.map { "    " + $0 }.joined(separator: "\n")
            result[name] = "CREATE TRIGGER \(name.quotedDatabaseIdentifier) AFTER \(event) ON \(table.quotedDatabaseIdentifier) FOR EACH ROW BEGIN\n\(body)\nEND"
        }
        return result
    }

    /// The row references each event's statements are written for: an update records the rows related before
    /// and, if the reference changed, after.
    static let events: [(event: String, refs: [String])] = [("INSERT", ["NEW"]), ("UPDATE", ["OLD", "NEW"]), ("DELETE", ["OLD"])]

    /// For the NEW side of an update, the condition that the reference changed (else the OLD side covered it).
    static func changed(_ event: String, _ ref: String, _ new: String, _ old: String) -> String {
        event == "UPDATE" && ref == "NEW" ? " AND \(new) IS NOT \(old)" : ""
    }

    static func record(_ table: String, _ key: String, _ operation: String) -> String {
        "INSERT INTO \(ChangeTracking.historyTable)(tableName, rowKey, operation) VALUES (\(table), \(key), '\(operation)');"
    }

    static func recordSelect(_ table: String, _ key: String, _ operation: String, from: String?, where condition: String) -> String {
        "INSERT INTO \(ChangeTracking.historyTable)(tableName, rowKey, operation) SELECT \(table), \(key), '\(operation)'"
            + (from.map { " FROM \($0)" } ?? "") + " WHERE \(condition);"
    }
}
