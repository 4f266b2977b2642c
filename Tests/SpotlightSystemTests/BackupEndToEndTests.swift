import Foundation
import XCTest
import SpotlightEngine
@testable import SpotlightSystem

/// A short-lived app leaves its data in the index's main file, and `spotlight backup` copies an index consistently
/// (issue 17, item 8), run as real processes.
final class BackupEndToEndTests: SystemTestCase {
    let colleagues = "com.example.colleagues"

    /// The number of items in a copy of a store's main file alone, without its WAL.
    func itemsInACopyOfTheMainFile(_ url: URL) throws -> Int {
        let copy = temporary.appendingPathComponent("copy-\(UUID().uuidString.prefix(6)).sqlite")
        try FileManager.default.copyItem(at: url, to: copy)
        let store = try IndexStore(url: copy, create: false)
        defer { try? store.close() }
        return try store.rowCount()
    }

    func testAShortLivedProcessLeavesItsDataInTheMainFile() throws {
        try succeed("colleagues", ["setting", "all-records"])  // indexes 25 employees and exits
        let url = storeURL(app: colleagues, index: "_default")
        let wal = (try? FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int) ?? 0
        XCTAssertEqual(wal, 0, "the WAL is empty or gone once the writer exited")
        XCTAssertEqual(try itemsInACopyOfTheMainFile(url), 25, "the .sqlite file alone holds every item")
    }

    func testBackupCommandCopiesTheIndex() throws {
        try succeed("colleagues", ["setting", "all-records"])
        let destination = temporary.appendingPathComponent("colleagues-backup.sqlite")
        let output = try succeed("spotlight", ["backup", colleagues, destination.path])
        XCTAssertTrue(output.stdout.hasPrefix("Backed up com.example.colleagues' index _default (25 items, "), output.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path + "-wal"), "one self-contained file")
        let mode = try FileManager.default.attributesOfItem(atPath: destination.path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
        XCTAssertEqual(try itemsInACopyOfTheMainFile(destination), 25)

        let again = try run("spotlight", ["backup", colleagues, destination.path])
        XCTAssertNotEqual(again.status, 0, "a backup never overwrites a file")
        XCTAssertTrue(again.stderr.contains("already exists"), again.stderr)

        let missing = try run("spotlight", ["backup", colleagues, "--index", "nope", temporary.appendingPathComponent("x.sqlite").path])
        XCTAssertNotEqual(missing.status, 0)
        XCTAssertTrue(missing.stderr.contains("has no index \"nope\""), missing.stderr)
        XCTAssertTrue(missing.stderr.contains("_default"), "names the indexes it has: \(missing.stderr)")
    }
}
