import Foundation
import GRDB
import OpenCoreSpotlight
import SpotlightGRDB
import XCTest

/// The `tags` example as a real process: the command line, and crashes between the database commit and the index
/// update (SIGKILL), recovered by the next start with nothing lost and nothing duplicated.
final class TagsProcessTests: XCTestCase {
    var directory: URL!
    var app: String!
    var databaseURL: URL { directory.appendingPathComponent("tags.sqlite") }
    var indexRoot: URL { directory.appendingPathComponent("spotlight") }

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tags-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        app = "com.example.tagstests.\(UUID().uuidString.prefix(8).lowercased())"
        OpenSpotlight.setRootDirectory(indexRoot)
        OpenSpotlight.configure(applicationIdentifier: app)
    }

    override func tearDownWithError() throws {
        OpenSpotlight.setRootDirectory(nil)
        try? FileManager.default.removeItem(at: directory)
        try super.tearDownWithError()
    }

    // MARK: - Running tags

    static var tagsBinary: URL? {
        var candidates: [URL] = []
        for path in [CommandLine.arguments.first, Bundle.main.executablePath].compactMap({ $0 }) {
            var url = URL(fileURLWithPath: path).deletingLastPathComponent()
            for _ in 0..<4 {
                candidates.append(url.appendingPathComponent("tags"))
                url.deleteLastPathComponent()
            }
        }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("tags"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    func launch(_ arguments: [String], database: Bool = true) throws -> (Process, Pipe) {
        guard let binary = Self.tagsBinary else { throw TestPrerequisiteMissing("the tags executable is not built next to the tests") }
        let process = Process()
        process.executableURL = binary
        process.arguments = (database ? ["--database", databaseURL.path] : []) + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["OPENSPOTLIGHT_HOME"] = indexRoot.path
        environment["OPENSPOTLIGHT_APP_ID"] = app
        // Registrations and other XDG files stay in the test's folder.
        environment["XDG_DATA_HOME"] = indexRoot.appendingPathComponent("xdg-data").path
        environment["HOME"] = indexRoot.appendingPathComponent("home").path
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        return (process, pipe)
    }

    /// Runs tags to completion; returns its status and output.
    @discardableResult
    func tags(_ arguments: String..., database: Bool = true) throws -> (status: Int32, output: String) {
        let (process, pipe) = try launch(arguments, database: database)
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let output = String(decoding: data, as: UTF8.self)
        return (process.terminationStatus, output)
    }

    @discardableResult
    func tagsSucceeds(_ arguments: String..., file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let (process, pipe) = try launch(arguments)
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let output = String(decoding: data, as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 0, "tags \(arguments.joined(separator: " ")): \(output)", file: file, line: line)
        return output
    }

    /// Reads the child's output until a line satisfies `condition` (false if the child ends first).
    func waitForLine(_ pipe: Pipe, timeout: TimeInterval = 60, _ condition: (String) -> Bool) -> (found: Bool, output: String) {
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = ""
        while Date() < deadline {
            let data = pipe.fileHandleForReading.availableData
            if data.isEmpty { return (false, buffer) }
            buffer += String(decoding: data, as: UTF8.self)
            if buffer.split(separator: "\n").contains(where: { condition(String($0)) }) { return (true, buffer) }
        }
        return (false, buffer)
    }

    // MARK: - Inspecting the database and the index

    func openDatabase() throws -> DatabaseQueue {
        try DatabaseQueue(path: databaseURL.path)
    }

    func storeIdentifier() throws -> String {
        try openDatabase().read { db in try String.fetchOne(db, sql: "SELECT storeIdentifier FROM spotlightgrdb_store")! }
    }

    var index: CSSearchableIndex {
        get throws { CSSearchableIndex(name: "spotlight_\(app!)_\(try storeIdentifier())") }
    }

    func storedToken() throws -> Int64? {
        let index = try self.index
        let done = expectation(description: "client state")
        let box = TokenBox()
        index.fetchLastClientState { data, _ in
            let fields = data.map { String(decoding: $0, as: UTF8.self).split(separator: " ") } ?? []
            box.value = fields.count == 3 ? Int64(fields[1]) : nil
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        return box.value
    }

    /// Asserts one item per photo, each with the photo's current name and tags; returns the photo count.
    @discardableResult
    func assertIndexMatchesDatabase(file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        let store = try storeIdentifier()
        let photos = try openDatabase().read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, name, (SELECT group_concat(name, '|') FROM (SELECT tag.name FROM tag JOIN photo_tag
                    ON photo_tag.tagId = tag.id WHERE photo_tag.photoId = photo.id ORDER BY tag.name)) AS tags
                FROM photo
                """).map { (id: "x-grdb://\(store)/photo/p\($0["id"] as Int64)", name: $0["name"] as String,
                            tags: ($0["tags"] as String?)?.split(separator: "|").map(String.init)) }
        }
        let inspector = IndexInspector(try index)
        let items = try inspector.items(limit: 1_000_000)
        XCTAssertEqual(try inspector.count(), photos.count, "one item per photo: nothing lost, nothing duplicated", file: file, line: line)
        XCTAssertEqual(Set(items.map(\.uniqueIdentifier)), Set(photos.map(\.id)), file: file, line: line)
        let byID = Dictionary(items.map { ($0.uniqueIdentifier, $0) }, uniquingKeysWith: { a, _ in a })
        var mismatches = 0
        for photo in photos {
            guard let item = byID[photo.id] else { continue }
            if item.attributeSet.displayName != photo.name || item.attributeSet.keywords != photo.tags {
                mismatches += 1
                if mismatches <= 3 {
                    XCTFail("\(photo.id): indexed \(item.attributeSet.displayName ?? "nil") \(item.attributeSet.keywords ?? []), "
                            + "database \(photo.name) \(photo.tags ?? [])", file: file, line: line)
                }
            }
        }
        XCTAssertEqual(mismatches, 0, file: file, line: line)
        let pending = try openDatabase().read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM spotlightgrdb_history")! }
        XCTAssertEqual(pending, 0, "the indexed history is pruned", file: file, line: line)
        let last = try openDatabase().read { db in
            try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'spotlightgrdb_history'") ?? 0
        }
        XCTAssertEqual(try storedToken(), last, "the index's token is the last recorded change", file: file, line: line)
        return photos.count
    }

    // MARK: - Tests

    func testKilledBetweenTheDatabaseCommitAndTheIndexUpdateLosesNothingAndDuplicatesNothing() throws {
        try tagsSucceeds("add-photo", "before the crash", "calm")
        let tokenBefore = try storedToken()
        XCTAssertNotNil(tokenBefore)

        // The child commits 300 photos and a "crash-here" photo in one transaction, then SIGKILLs itself while
        // building that photo's item: after the commit, before the index batch.
        let (process, pipe) = try launch(["_crash-during-indexing", "300"])
        let (committed, output) = waitForLine(pipe) { $0 == "committed" }
        process.waitUntilExit()
        XCTAssertTrue(committed, output)
        XCTAssertEqual(process.terminationReason, .uncaughtSignal, output)
        XCTAssertEqual(process.terminationStatus, SIGKILL, output)

        let photos = try openDatabase().read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM photo")! }
        XCTAssertEqual(photos, 302, "the transaction was committed")
        XCTAssertEqual(try IndexInspector(try index).count(), 1, "the index update never happened")
        XCTAssertEqual(try storedToken(), tokenBefore, "and neither did the token's")
        let pending = try openDatabase().read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM spotlightgrdb_history")! }
        XCTAssertGreaterThan(pending, 300, "the committed changes wait in the history")

        // The next start catches up.
        let restart = try tagsSucceeds("start")
        XCTAssertTrue(restart.contains("[spotlight] index updated"), restart)
        XCTAssertEqual(try assertIndexMatchesDatabase(), 302)

        // And a further start finds nothing left to do: each change is indexed exactly once.
        let again = try tagsSucceeds("start")
        XCTAssertFalse(again.contains("[spotlight] index updated"), again)
        let search = try tagsSucceeds("search", "group 5")
        XCTAssertEqual(search.components(separatedBy: "keywords: crash, group 5").count - 1, 43, search)
    }

    func testKilledAtRandomPointsWhileWritingAndIndexing() throws {
        for round in 0..<3 {
            let (process, pipe) = try launch(["_write-forever", "25"])
            let target = 4 + 3 * round
            let (found, output) = waitForLine(pipe) { $0 == "committed \(target)" }
            XCTAssertTrue(found, output)
            // Somewhere in a write, an index pass, or between the two.
            Thread.sleep(forTimeInterval: Double.random(in: 0...0.08))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .uncaughtSignal)

            try tagsSucceeds("start")
            let count = try assertIndexMatchesDatabase()
            XCTAssertGreaterThan(count, 0)
        }
    }

    func testTheCommandLineSession() throws {
        XCTAssertTrue(try tagsSucceeds("add-photo", "Owachomo Bridge", "Natural Bridges State Park", "Utah")
            .contains("[spotlight] index updated"), "indexing is on by default and notifications are printed")
        try tagsSucceeds("add-photo", "Half Dome", "Yosemite")
        var search = try tagsSucceeds("search", "natural")
        XCTAssertTrue(search.contains("Owachomo Bridge  — keywords: Natural Bridges State Park, Utah"), search)
        XCTAssertFalse(search.contains("Half Dome"), search)

        try tagsSucceeds("tag", "Half Dome", "natural wonders")
        search = try tagsSucceeds("search", "natu")
        XCTAssertTrue(search.contains("Half Dome  — keywords: natural wonders, Yosemite"), search)

        XCTAssertTrue(try tagsSucceeds("stop").contains("stopped"))
        try tagsSucceeds("add-photo", "Landscape Arch", "natural arch")
        XCTAssertFalse(try tagsSucceeds("search", "natural").contains("Landscape Arch"), "not indexed while stopped")
        XCTAssertTrue(try tagsSucceeds("status").contains("pending:   2 recorded change(s)"))
        XCTAssertTrue(try tagsSucceeds("start").contains("[spotlight] index updated"))
        XCTAssertTrue(try tagsSucceeds("search", "natural").contains("Landscape Arch  — keywords: natural arch"))

        try tagsSucceeds("delete-index")
        XCTAssertTrue(try tagsSucceeds("search", "natural").contains("no photos"))
        let list = try tagsSucceeds("list")
        XCTAssertEqual(list.split(separator: "\n").count, 3, "the photos are still there: \(list)")
        try tagsSucceeds("start")
        try assertIndexMatchesDatabase()

        let (status, output) = try tags("rename", "No Such Photo", "x")
        XCTAssertEqual(status, 1)
        XCTAssertTrue(output.contains("no photo named \"No Such Photo\""), output)
    }

    func testTheDemoRunsFromOneCommand() throws {
        let (status, output) = try tags("demo", database: false)
        XCTAssertEqual(status, 0, output)
        XCTAssertTrue(output.contains("Owachomo Bridge at dawn  — keywords: Natural Bridges State Park, sunrise, Utah"), output)
        XCTAssertTrue(output.contains("Landscape Arch  — keywords: natural arch, Utah"), output)
        XCTAssertTrue(output.contains("7 photos in the database"), output)
        XCTAssertTrue(output.contains("[spotlight] index updated"), output)
    }
}

private final class TokenBox: @unchecked Sendable {
    // @unchecked Sendable: written once by the completion handler before the expectation is fulfilled.
    var value: Int64?
}
