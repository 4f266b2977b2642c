import Foundation
import GRDB
import OpenCoreSpotlight
import SpotlightGRDB

/// The Tags app's data: photos with a user-visible name and tags, in a GRDB database, mirrored into Spotlight by a
/// `GRDBCoreSpotlightDelegate`.
final class PhotoLibrary: Sendable {
    let dbPool: DatabasePool
    let spotlight: GRDBCoreSpotlightDelegate

    /// What goes into Spotlight: each photo, named by its name, with its tags as keywords. Tagging, untagging or
    /// renaming a tag re-indexes the photos concerned.
    static let declaration = SpotlightDeclaration(tables: [
        SpotlightTable("photo",
            contentType: .image,
            displayName: .column("name"),
            attributes: [
                .title: .column("name"),
                .keywords: .query("""
                    SELECT tag.name FROM tag JOIN photo_tag ON photo_tag.tagId = tag.id
                    WHERE photo_tag.photoId = ? ORDER BY tag.name
                    """),
            ],
            relationships: [.hasMany("tag", through: "photo_tag")]),
    ])

    /// Opens (creating if needed) the database at `url` and the Spotlight delegate. Indexing is not started.
    init(url: URL, makeDelegate: (DatabasePool, SpotlightDeclaration) throws -> GRDBCoreSpotlightDelegate = {
        try GRDBCoreSpotlightDelegate(forStoreWith: $0, declaration: $1)
    }) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)   // other processes (another `tags`) may be writing
        dbPool = try DatabasePool(path: url.path, configuration: configuration)
        try Self.migrator.migrate(dbPool)
        spotlight = try makeDelegate(dbPool, Self.declaration)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE photo (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    name TEXT NOT NULL
                );
                CREATE TABLE tag (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    name TEXT NOT NULL UNIQUE COLLATE NOCASE
                );
                CREATE TABLE photo_tag (
                    photoId INTEGER NOT NULL REFERENCES photo(id) ON DELETE CASCADE,
                    tagId INTEGER NOT NULL REFERENCES tag(id) ON DELETE CASCADE,
                    PRIMARY KEY (photoId, tagId)
                );
                CREATE INDEX photo_tag_tag ON photo_tag(tagId);
                CREATE TABLE setting (
                    key TEXT PRIMARY KEY,
                    value TEXT NOT NULL
                );
                """)
        }
        return migrator
    }

    // MARK: - Settings

    /// Whether the user wants Spotlight indexing (the `start` and `stop` commands); on by default.
    var wantsIndexing: Bool {
        get throws {
            try dbPool.read { db in
                try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'indexing'") != "off"
            }
        }
    }

    func setWantsIndexing(_ on: Bool) throws {
        try dbPool.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO setting(key, value) VALUES ('indexing', ?)",
                           arguments: [on ? "on" : "off"])
        }
    }

    // MARK: - Photos and tags

    struct Photo {
        var id: Int64
        var name: String
        var tags: [String]
    }

    /// Adds photos with their tags, all in one transaction. Returns their ids.
    @discardableResult
    func addPhotos(_ photos: [(name: String, tags: [String])]) throws -> [Int64] {
        try dbPool.write { db in
            try photos.map { photo in
                try db.execute(sql: "INSERT INTO photo(name) VALUES (?)", arguments: [photo.name])
                let id = db.lastInsertedRowID
                for tag in photo.tags { try Self.tag(photoID: id, tag, db) }
                return id
            }
        }
    }

    /// Tags a photo, creating the tag if needed.
    func tag(photo: String, _ tag: String) throws {
        try dbPool.write { db in
            try Self.tag(photoID: try Self.photoID(photo, db), tag, db)
        }
    }

    /// Removes a tag from a photo.
    func untag(photo: String, _ tag: String) throws {
        try dbPool.write { db in
            let id = try Self.photoID(photo, db)
            try db.execute(sql: """
                DELETE FROM photo_tag WHERE photoId = ? AND tagId = (SELECT id FROM tag WHERE name = ?)
                """, arguments: [id, tag])
            guard db.changesCount > 0 else { throw TagsError("photo \(photo.debugDescription) has no tag \(tag.debugDescription)") }
        }
    }

    func rename(photo: String, to name: String) throws {
        try dbPool.write { db in
            try db.execute(sql: "UPDATE photo SET name = ? WHERE id = ?", arguments: [name, try Self.photoID(photo, db)])
        }
    }

    func renameTag(_ tag: String, to name: String) throws {
        try dbPool.write { db in
            try db.execute(sql: "UPDATE tag SET name = ? WHERE name = ?", arguments: [name, tag])
            guard db.changesCount > 0 else { throw TagsError("no tag \(tag.debugDescription)") }
        }
    }

    func remove(photo: String) throws {
        try dbPool.write { db in
            try db.execute(sql: "DELETE FROM photo WHERE id = ?", arguments: [try Self.photoID(photo, db)])
        }
    }

    func photos() throws -> [Photo] {
        try dbPool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT photo.id, photo.name,
                       (SELECT group_concat(name, char(31)) FROM (SELECT tag.name FROM tag JOIN photo_tag
                        ON photo_tag.tagId = tag.id WHERE photo_tag.photoId = photo.id ORDER BY tag.name)) AS tags
                FROM photo ORDER BY photo.id
                """).map { row in
                Photo(id: row["id"], name: row["name"],
                      tags: (row["tags"] as String?)?.split(separator: "\u{1F}").map(String.init) ?? [])
            }
        }
    }

    private static func tag(photoID: Int64, _ tag: String, _ db: Database) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO tag(name) VALUES (?)", arguments: [tag])
        try db.execute(sql: "INSERT OR IGNORE INTO photo_tag(photoId, tagId) SELECT ?, id FROM tag WHERE name = ?",
                       arguments: [photoID, tag])
    }

    /// A photo by name (the most recent of that name) or by `#id`.
    private static func photoID(_ photo: String, _ db: Database) throws -> Int64 {
        if photo.hasPrefix("#"), let id = Int64(photo.dropFirst()),
           try Bool.fetchOne(db, sql: "SELECT 1 FROM photo WHERE id = ?", arguments: [id]) == true {
            return id
        }
        guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM photo WHERE name = ? ORDER BY id DESC LIMIT 1",
                                          arguments: [photo]) else {
            throw TagsError("no photo named \(photo.debugDescription)")
        }
        return id
    }

    // MARK: - Search

    /// The photos whose tags have a word starting with `typed`, through Spotlight, as in WWDC21's Tags sample.
    static func search(_ typed: String) async throws -> [(name: String, keywords: [String])] {
        let escaped = typed.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        let context = CSSearchQueryContext()
        context.fetchAttributes = ["displayName", "keywords"]
        // The same query as Apple's `CSSearchQuery(queryString:attributes:)`, deprecated in favour of a context.
        let query = CSSearchQuery(queryString: "(keywords == \"\(escaped)*\"cwdt)", queryContext: context)
        var found: [(name: String, keywords: [String])] = []
        for try await result in query.results {
            let attributes = result.item.attributeSet
            found.append((attributes.displayName ?? result.item.uniqueIdentifier, attributes.keywords ?? []))
        }
        return found.sorted { $0.name < $1.name }
    }
}

struct TagsError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
