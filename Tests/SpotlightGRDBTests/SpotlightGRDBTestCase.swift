import Foundation
import GRDB
import OpenCoreSpotlight
import SpotlightGRDB
import XCTest

/// A test case with a fresh database of photos, albums and tags, and a fresh index root and app identifier.
///
/// Tests relocate every index with `OpenSpotlight.setRootDirectory`, a process-wide setting: they must not run in
/// parallel.
class SpotlightGRDBTestCase: XCTestCase {
    var directory: URL!
    var app: String!
    var databaseURL: URL { directory.appendingPathComponent("photos.sqlite") }
    var indexRoot: URL { directory.appendingPathComponent("spotlight") }
    var dbPool: DatabasePool!

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("spotlightgrdb-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        app = "com.example.grdbtests.\(UUID().uuidString.prefix(8).lowercased())"
        OpenSpotlight.setRootDirectory(indexRoot)
        OpenSpotlight.configure(applicationIdentifier: app)
        dbPool = try Self.openDatabase(databaseURL)
        try dbPool.write { db in try db.execute(sql: Self.schema) }
    }

    override func tearDownWithError() throws {
        dbPool = nil
        OpenSpotlight.setRootDirectory(nil)
        try? FileManager.default.removeItem(at: directory)
        try super.tearDownWithError()
    }

    static func openDatabase(_ url: URL) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        return try DatabasePool(path: url.path, configuration: configuration)
    }

    static let schema = """
        CREATE TABLE album (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        CREATE TABLE photo (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            name TEXT NOT NULL,
            albumId INTEGER REFERENCES album(id) ON DELETE SET NULL
        );
        CREATE INDEX photo_album ON photo(albumId);
        CREATE TABLE tag (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE);
        CREATE TABLE photo_tag (
            photoId INTEGER NOT NULL REFERENCES photo(id) ON DELETE CASCADE,
            tagId INTEGER NOT NULL REFERENCES tag(id) ON DELETE CASCADE,
            PRIMARY KEY (photoId, tagId)
        );
        CREATE INDEX photo_tag_tag ON photo_tag(tagId);
        CREATE TABLE note (uuid TEXT PRIMARY KEY, body TEXT NOT NULL);
        CREATE TABLE memo (text TEXT);
        """

    static let keywordsSQL = """
        SELECT tag.name FROM tag JOIN photo_tag ON photo_tag.tagId = tag.id WHERE photo_tag.photoId = ? ORDER BY tag.name
        """

    /// Photos named by their name, with their tags as keywords and their album in the description.
    static var photoTable: SpotlightTable {
        SpotlightTable("photo",
            contentType: .image,
            displayName: .column("name"),
            attributes: [
                .title: .column("name"),
                .keywords: .query(keywordsSQL),
                .contentDescription: .expression("(SELECT 'in ' || album.name FROM album WHERE album.id = photo.albumId)"),
            ],
            relationships: [.hasMany("tag", through: "photo_tag"), .belongsTo("album")])
    }

    static var photoDeclaration: SpotlightDeclaration {
        SpotlightDeclaration(tables: [photoTable])
    }

    func makeDelegate(_ declaration: SpotlightDeclaration = photoDeclaration, batchSize: Int = 1_000) throws -> GRDBCoreSpotlightDelegate {
        try GRDBCoreSpotlightDelegate(forStoreWith: dbPool, declaration: declaration, batchSize: batchSize)
    }

    // MARK: - Writing the app's data

    @discardableResult
    func addPhoto(_ name: String, tags: [String] = [], album: Int64? = nil) throws -> Int64 {
        try dbPool.write { db in try Self.addPhoto(name, tags: tags, album: album, db) }
    }

    @discardableResult
    static func addPhoto(_ name: String, tags: [String] = [], album: Int64? = nil, _ db: Database) throws -> Int64 {
        try db.execute(sql: "INSERT INTO photo(name, albumId) VALUES (?, ?)", arguments: [name, album])
        let id = db.lastInsertedRowID
        for tag in tags {
            try db.execute(sql: "INSERT OR IGNORE INTO tag(name) VALUES (?)", arguments: [tag])
            try db.execute(sql: "INSERT INTO photo_tag(photoId, tagId) SELECT ?, id FROM tag WHERE name = ?",
                           arguments: [id, tag])
        }
        return id
    }

    // MARK: - Reading the index

    func index(_ delegate: GRDBCoreSpotlightDelegate) -> CSSearchableIndex {
        CSSearchableIndex(name: delegate.searchableIndexName)
    }

    /// Every item of the delegate's index, by identifier.
    func items(_ delegate: GRDBCoreSpotlightDelegate) throws -> [String: CSSearchableItem] {
        let all = try IndexInspector(index(delegate)).items(limit: 1_000_000)
        return Dictionary(all.map { ($0.uniqueIdentifier, $0) }, uniquingKeysWith: { a, _ in a })
    }

    func photoItem(_ delegate: GRDBCoreSpotlightDelegate, _ id: Int64) throws -> CSSearchableItem? {
        try items(delegate)[delegate.itemIdentifier(table: "photo", primaryKey: id.databaseValue).description]
    }

    func itemCount(_ delegate: GRDBCoreSpotlightDelegate) throws -> Int {
        try IndexInspector(index(delegate)).count()
    }

    /// The history token stored as the index's client state.
    func storedToken(_ delegate: GRDBCoreSpotlightDelegate) async throws -> Int64? {
        let data = try await index(delegate).fetchLastClientState()
        let text = String(decoding: data, as: UTF8.self).split(separator: " ")
        return text.count == 3 ? Int64(text[1]) : nil
    }

    func pendingHistory() throws -> Int {
        try dbPool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(GRDBCoreSpotlightDelegate.historyTableName)")!
        }
    }

    /// The highest history sequence number ever allocated.
    func lastSequenceNumber() throws -> Int64 {
        try dbPool.read { db in
            try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?",
                               arguments: [GRDBCoreSpotlightDelegate.historyTableName]) ?? 0
        }
    }

    /// Asserts that the index holds exactly one item per photo, with the photo's current name and tags.
    func assertIndexMatchesPhotos(_ delegate: GRDBCoreSpotlightDelegate, file: StaticString = #filePath,
                                  line: UInt = #line) throws {
        let photos = try dbPool.read { db in
            try Row.fetchAll(db, sql: "SELECT id, name, (SELECT group_concat(name, '|') FROM (\(Self.keywordsSQL.replacingOccurrences(of: "?", with: "photo.id")))) AS tags FROM photo")
        }
        let items = try self.items(delegate)
        XCTAssertEqual(try itemCount(delegate), photos.count, "one item per photo, no duplicates", file: file, line: line)
        XCTAssertEqual(Set(items.keys), Set(photos.map {
            delegate.itemIdentifier(table: "photo", primaryKey: ($0["id"] as Int64).databaseValue).description
        }), "the indexed photos are the photos in the database", file: file, line: line)
        for photo in photos {
            let id = delegate.itemIdentifier(table: "photo", primaryKey: (photo["id"] as Int64).databaseValue).description
            guard let item = items[id] else { continue }
            XCTAssertEqual(item.attributeSet.displayName, photo["name"], file: file, line: line)
            let tags = (photo["tags"] as String?)?.split(separator: "|").map(String.init)
            XCTAssertEqual(item.attributeSet.keywords, tags, "keywords of \(photo["name"] as String)", file: file, line: line)
        }
    }

    // MARK: - Waiting

    /// Waits until `condition` holds, failing after `timeout`. An error thrown by `condition` counts as "not yet"
    /// (the index store may be being created by the delegate at that moment) and is reported on timeout.
    func eventually(_ message: String, timeout: TimeInterval = 20, file: StaticString = #filePath, line: UInt = #line,
                    _ condition: () throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        var lastError: (any Error)?
        while Date() < deadline {
            do {
                if try condition() { return }
            } catch {
                lastError = error
            }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        XCTFail("timed out waiting until \(message)\(lastError.map { " (last error: \($0))" } ?? "")", file: file, line: line)
    }
}

/// Records the index-update notifications of one delegate.
final class NotificationRecorder: @unchecked Sendable {
    // @unchecked Sendable: every access goes through `lock`.
    struct Received {
        let object: AnyObject?
        let userInfo: [AnyHashable: Any]
        var storeIdentifier: String? { userInfo[GRDBCoreSpotlightDelegate.storeIdentifierKey] as? String }
        var token: SpotlightHistoryToken? { userInfo[GRDBCoreSpotlightDelegate.historyTokenKey] as? SpotlightHistoryToken }
    }

    private let lock = NSLock()
    private var received: [Received] = []
    private var observer: NSObjectProtocol?

    init(_ delegate: GRDBCoreSpotlightDelegate) {
        observer = NotificationCenter.default.addObserver(
            forName: GRDBCoreSpotlightDelegate.indexDidUpdateNotification, object: delegate, queue: nil
        ) { [weak self] notification in
            self?.append(Received(object: notification.object as AnyObject?, userInfo: notification.userInfo ?? [:]))
        }
    }

    deinit {
        if let observer { NotificationCenter.default.removeObserver(observer) }
    }

    private func append(_ r: Received) {
        lock.lock()
        defer { lock.unlock() }
        received.append(r)
    }

    var all: [Received] {
        lock.lock()
        defer { lock.unlock() }
        return received
    }

    var tokens: [SpotlightHistoryToken] { all.compactMap(\.token) }

    func reset() {
        lock.lock()
        defer { lock.unlock() }
        received.removeAll()
    }
}

/// What a test needs and cannot find (a built helper, the corpus): the test fails with this, it is never skipped.
struct TestPrerequisiteMissing: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
