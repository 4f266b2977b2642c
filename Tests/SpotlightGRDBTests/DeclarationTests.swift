import Foundation
import GRDB
import OpenCoreSpotlight
import SpotlightGRDB
import XCTest

/// Declarations checked against the schema, change tracking installed once, identifiers and tokens.
final class DeclarationTests: SpotlightGRDBTestCase {
    /// (what is wrong, declaration → the error code and words its message must contain)
    static let misconfigurations: [(String, SpotlightDeclaration, SpotlightGRDBError.Code, [String])] = {
        let photo = photoTable
        func with(_ change: (inout SpotlightTable) -> Void) -> SpotlightDeclaration {
            var table = photo
            change(&table)
            return SpotlightDeclaration(tables: [table])
        }
        return [
            ("unknown table", SpotlightDeclaration(tables: [SpotlightTable("photos")]), .unknownTable,
             ["no such table \"photos\"", "album, memo, note, photo, photo_tag, tag"]),
            ("unknown display-name column", with { $0.displayName = .column("nmae") }, .unknownColumn,
             ["displayName", "\"nmae\"", "columns: id, name, albumId"]),
            ("unknown attribute column", with { $0.attributes[.comment] = .column("caption") }, .unknownColumn,
             ["attribute comment", "\"caption\""]),
            ("unknown column in an expression", with { $0.displayName = .expression("name || capton") }, .unknownColumn,
             ["displayName", "capton"]),
            ("syntax error in an expression", with { $0.displayName = .expression("name ||") }, .invalidSQL,
             ["displayName", "name ||"]),
            ("query with two parameters", with { $0.attributes[.keywords] = .query("SELECT name FROM tag WHERE id = ? OR id = ?") },
             .invalidSQL, ["exactly one parameter"]),
            ("query that writes", with { $0.attributes[.keywords] = .query("DELETE FROM tag WHERE id = ?") },
             .invalidSQL, ["must be a SELECT"]),
            ("query on an unknown table", with { $0.attributes[.keywords] = .query("SELECT name FROM tags WHERE id = ?") },
             .unknownTable, ["no such table: tags"]),
            ("filter on an unknown column", with { $0.filter = "hidden = 0" }, .unknownColumn, ["filter", "hidden"]),
            ("relationship to an unknown table", with { $0.relationships = [.hasMany("photo_tags")] }, .unknownTable,
             ["hasMany(\"photo_tags\")"]),
            ("relationship with an unknown foreign key", with { $0.relationships = [.hasMany("photo_tag", foreignKey: "photo_id")] },
             .unknownColumn, ["\"photo_id\"", "photo_tag"]),
            ("relationship without a foreign key in the schema", with { $0.relationships = [.hasMany("tag")] },
             .invalidRelationship, ["no foreign key", "foreignKey:"]),
            ("belongsTo without a foreign key", with { $0.relationships = [.belongsTo("tag")] },
             .invalidRelationship, ["no foreign key"]),
            ("composite primary key", SpotlightDeclaration(tables: [SpotlightTable("photo_tag")]), .unsupportedPrimaryKey,
             ["photoId, tagId"]),
            ("table declared twice", SpotlightDeclaration(tables: [photo, SpotlightTable("PHOTO")]), .invalidDeclaration,
             ["declared twice"]),
            ("no tables", SpotlightDeclaration(tables: []), .invalidDeclaration, ["no tables"]),
        ]
    }()

    func testMisconfigurationsThrowDescriptiveErrorsAndInstallNothing() throws {
        for (what, declaration, code, words) in Self.misconfigurations {
            XCTAssertThrowsError(try makeDelegate(declaration), what) { error in
                guard let error = error as? SpotlightGRDBError else {
                    return XCTFail("\(what): \(error) is not a SpotlightGRDBError")
                }
                XCTAssertEqual(error.code, code, "\(what): \(error)")
                for word in words {
                    XCTAssertTrue(error.message.contains(word), "\(what): \(error.message.debugDescription) lacks \(word.debugDescription)")
                }
            }
        }
        let installed = try dbPool.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'spotlightgrdb%'")
        }
        XCTAssertEqual(installed, [], "a rejected declaration leaves the database as it was")
    }

    func testChangeTrackingIsInstalledOnceAndFollowsTheDeclaration() throws {
        let first = try makeDelegate()
        let schemaVersion = { try self.dbPool.read { db in try Int.fetchOne(db, sql: "PRAGMA schema_version")! } }
        let triggers = { try self.dbPool.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
        } }
        XCTAssertEqual(try triggers(), [
            "spotlightgrdb_album_delete", "spotlightgrdb_album_insert", "spotlightgrdb_album_update",
            "spotlightgrdb_photo_delete", "spotlightgrdb_photo_insert", "spotlightgrdb_photo_tag_delete",
            "spotlightgrdb_photo_tag_insert", "spotlightgrdb_photo_tag_update", "spotlightgrdb_photo_update",
            "spotlightgrdb_tag_delete", "spotlightgrdb_tag_insert", "spotlightgrdb_tag_update",
        ])
        let version = try schemaVersion()
        let second = try makeDelegate()
        XCTAssertEqual(try schemaVersion(), version, "opening again changes nothing in the schema")
        XCTAssertEqual(second.storeIdentifier, first.storeIdentifier, "the store identifier is kept in the database")
        XCTAssertNotNil(UUID(uuidString: first.storeIdentifier))

        _ = try makeDelegate(SpotlightDeclaration(tables: [SpotlightTable("note", displayName: .column("body"))]))
        XCTAssertEqual(try triggers(), ["spotlightgrdb_note_delete", "spotlightgrdb_note_insert", "spotlightgrdb_note_update"],
                       "the triggers follow the declaration")

        try GRDBCoreSpotlightDelegate.removeChangeTracking(from: dbPool)
        XCTAssertEqual(try triggers(), [])
        XCTAssertFalse(try dbPool.read { db in try db.tableExists(GRDBCoreSpotlightDelegate.historyTableName) })
    }

    func testTheTriggersRecordEachKindOfChange() throws {
        _ = try makeDelegate()
        let history = { try self.dbPool.read { db in
            try Row.fetchAll(db, sql: "SELECT tableName, rowKey, operation FROM spotlightgrdb_history ORDER BY seq")
                .map { "\($0["tableName"] as String) \($0["rowKey"] as Int64) \($0["operation"] as String)" }
        } }
        try dbPool.write { db in
            try db.execute(sql: "INSERT INTO album(id, name) VALUES (7, 'A')")
            _ = try Self.addPhoto("p", tags: ["t"], album: 7, db)
            try db.execute(sql: "UPDATE photo SET name = 'q'")
            try db.execute(sql: "UPDATE album SET name = 'B'")
            try db.execute(sql: "UPDATE tag SET name = 'u'")
            try db.execute(sql: "DELETE FROM photo")
        }
        let recorded = try history()
        XCTAssertEqual(Array(recorded.prefix(5)), [
            "photo 1 I",          // insert photo
            "photo 1 R",          // insert photo_tag
            "photo 1 U",          // update photo
            "photo 1 R",          // update album (belongsTo)
            "photo 1 R",          // update tag (hasMany through)
        ])
        XCTAssertEqual(Array(recorded.dropFirst(5)).sorted(), [
            "photo 1 D",          // delete photo
            "photo 1 R",          // cascade delete of photo_tag
        ])
        // A failing statement records nothing: the history is part of the app's transaction.
        XCTAssertThrowsError(try dbPool.write { db in
            _ = try Self.addPhoto("r", db)
            try db.execute(sql: "INSERT INTO photo(id, name) VALUES (2, 'duplicate')")
        })
        XCTAssertEqual(try history().count, 7)
    }

    func testItemIdentifiersRoundTrip() {
        let cases: [(DatabaseValue, String)] = [
            (42.databaseValue, "x-grdb://S/photo/p42"),
            ((-7).databaseValue, "x-grdb://S/photo/p-7"),
            ("a/b c%".databaseValue, "x-grdb://S/photo/sa%2Fb%20c%25"),
            (2.5.databaseValue, "x-grdb://S/photo/r2.5"),
            (Data([0x00, 0xff]).databaseValue, "x-grdb://S/photo/b00ff"),
        ]
        for (key, string) in cases {
            let id = SpotlightItemIdentifier(storeIdentifier: "S", table: "photo", primaryKey: key)
            XCTAssertEqual(id.description, string)
            XCTAssertEqual(SpotlightItemIdentifier(string), id)
        }
        XCTAssertEqual(SpotlightItemIdentifier("x-grdb://S/my%20table/p1")?.table, "my table")
        for junk in ["", "x-grdb://", "x-grdb://S/photo", "x-grdb://S/photo/q1", "x-grdb://S/photo/pone",
                     "x-coredata://S/Photo/p1", "x-grdb:///photo/p1"] {
            XCTAssertNil(SpotlightItemIdentifier(junk), junk)
        }
    }

    func testTokensAreOrdered() {
        let tokens = [5, 1, 3].map { SpotlightHistoryToken(sequenceNumber: $0) }
        XCTAssertEqual(tokens.sorted().map(\.sequenceNumber), [1, 3, 5])
        XCTAssertEqual(SpotlightHistoryToken(sequenceNumber: 3), SpotlightHistoryToken(sequenceNumber: 3))
    }

    func testAttributeValuesAreConverted() async throws {
        let stars = try XCTUnwrap(CSCustomAttributeKey(keyName: "com_example_stars"))
        let labels = try XCTUnwrap(CSCustomAttributeKey(keyName: "com_example_labels", searchable: true,
                                                        searchableByDefault: false, unique: false, multiValued: true))
        let declaration = SpotlightDeclaration(tables: [
            SpotlightTable("photo",
                displayName: .expression("name || ' #' || id"),
                attributes: [
                    .rating: .expression("length(name)"),
                    .contentCreationDate: .expression("'2024-05-01 12:00:00'"),
                    .contentModificationDate: .expression("1700000000"),
                    .contentURL: .expression("'https://example.com/photos/' || id"),
                    .alternateNames: .column("name"),
                    .comment: .query(Self.keywordsSQL),
                    SpotlightAttribute("city", \.city): .expression("'Moab'"),
                    .custom(stars): .expression("3"),
                    .custom(labels): .query(Self.keywordsSQL),
                ]),
        ])
        let delegate = try makeDelegate(declaration)
        let id = try addPhoto("arch", tags: ["red", "rock"])
        try await delegate.processPendingChanges()
        let set = try XCTUnwrap(try photoItem(delegate, id)?.attributeSet)
        XCTAssertEqual(set.displayName, "arch #1")
        XCTAssertEqual(set.rating?.intValue, 4)
        XCTAssertEqual(set.contentCreationDate.map { Int($0.timeIntervalSince1970) }, 1_714_564_800)
        XCTAssertEqual(set.contentModificationDate, Date(timeIntervalSince1970: 1_700_000_000))
        XCTAssertEqual(set.contentURL, URL(string: "https://example.com/photos/1"))
        XCTAssertEqual(set.alternateNames, ["arch"])
        XCTAssertEqual(set.comment, "red, rock", "several values of a single-valued text attribute are joined")
        XCTAssertEqual(set.city, "Moab")
        XCTAssertEqual((set.value(forCustomKey: stars) as? NSNumber)?.intValue, 3)
        XCTAssertEqual((set.value(forCustomKey: labels) as? NSArray)?.compactMap { $0 as? String }, ["red", "rock"])
    }
}
