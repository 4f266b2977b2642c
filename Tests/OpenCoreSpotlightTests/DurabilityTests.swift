import Foundation
import XCTest
@testable import OpenCoreSpotlight
import SpotlightEngine

/// Committed data reaches the main `.sqlite` file, not only its WAL (issue 17, item 8): when writes pause, and when
/// a store closes. A copy of the `.sqlite` file alone then holds the data (a naive backup, a WAL lost to a user's
/// `rm`); the real backup is `IndexStore.backup` (`spotlight backup`).
final class DurabilityTests: IndexTestCase {
    /// The number of items in a copy of the store's main file alone, without its WAL.
    func itemsInACopyOfTheMainFile(_ url: URL) throws -> Int {
        let copy = root.appendingPathComponent("copy-\(UUID().uuidString.prefix(6)).sqlite")
        try FileManager.default.copyItem(at: url, to: copy)
        let store = try IndexStore(url: copy, create: false)
        defer { try? store.close() }
        return try store.rowCount()
    }

    func walSize(_ url: URL) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int) ?? 0
    }

    func testCommittedDataReachesTheMainFileWhenWritesPause() async throws {
        let index = CSSearchableIndex(name: "pause")
        try await index.indexSearchableItems((0..<40).map { makeItem("item-\($0)", title: "item \($0)") })
        let url = IndexInspector(index).storeURL
        // The idle checkpoint runs `IdleCheckpointer.delay` after the last commit; wait for it (bounded).
        var copied = 0
        for _ in 0..<50 where copied != 40 {
            try await Task.sleep(nanoseconds: 100_000_000)
            copied = try itemsInACopyOfTheMainFile(url)
        }
        XCTAssertEqual(copied, 40, "the main file alone holds every committed item once writes pause")
        XCTAssertEqual(try IndexInspector(index).count(), 40)
    }

    func testClosingAStoreMovesTheWALIntoTheMainFile() throws {
        let url = StoreLocation.storeURL(app: app, indexName: "close", root: root)
        let store = try IndexStore(url: url)
        try store.apply((0..<25).map { IndexOperation.upsert(StoredItem(uniqueIdentifier: "i\($0)", expirationDate: .distantFuture,
                                                                         attributes: ["title": .string("item \($0)")])) })
        try store.close()
        XCTAssertEqual(walSize(url), 0, "the WAL is empty (or gone) after the last connection closed")
        XCTAssertEqual(try itemsInACopyOfTheMainFile(url), 25)
    }

    func testBackupIsOneConsistentFileAndNeverOverwrites() throws {
        let url = StoreLocation.storeURL(app: app, indexName: "backup", root: root)
        let store = try IndexStore(url: url)
        try store.apply((0..<30).map { IndexOperation.upsert(StoredItem(uniqueIdentifier: "i\($0)", domainIdentifier: "d", expirationDate: .distantFuture,
                                                                         attributes: ["title": .string("item \($0)")])) },
                        clientState: .set(Data("state".utf8)))
        let destination = root.appendingPathComponent("backup.sqlite")
        XCTAssertEqual(try store.backup(to: destination), 30)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path + "-wal"), "one self-contained file")
        let mode = try FileManager.default.attributesOfItem(atPath: destination.path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
        let copy = try IndexStore(url: destination, create: false)
        XCTAssertEqual(try copy.rowCount(), 30)
        XCTAssertEqual(try copy.clientState(), Data("state".utf8))
        XCTAssertEqual(try copy.search("item").count, 20, "the text index came along")
        try copy.close()
        XCTAssertThrowsError(try store.backup(to: destination), "a backup never overwrites") { error in
            XCTAssertEqual((error as? EngineError)?.code, .indexUnavailable)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root.path).filter { $0.contains("partial") }, [],
                       "no partial file is left behind")
    }
}

extension DurabilityTests {
    /// Deleting the `-wal` while a process writes used to lose every commit still in it, silently (29 of 1,500 in
    /// the run): the writer kept writing into the deleted file, which a crash then took with it. Now the
    /// commit that finds the WAL gone copies it into the main file, and the store is reopened with a new WAL.
    func testDeletingTheWALUnderAWriterLosesNoAcknowledgedWrite() async throws {
        let index = CSSearchableIndex(name: "walgone")
        let url = IndexInspector(index).storeURL
        for i in 0..<120 {
            try await index.indexSearchableItems([makeItem("item-\(i)", title: "item \(i)")])
            if i == 40 || i == 80 { XCTAssertEqual(unlink(url.path + "-wal"), 0, "the WAL exists (write \(i))") }
        }
        // What a crash right now would leave: the main file and the WAL on disk (copied, not closed).
        let crash = root.appendingPathComponent("crash")
        try FileManager.default.createDirectory(at: crash, withIntermediateDirectories: true)
        let copy = crash.appendingPathComponent("walgone.sqlite")
        try FileManager.default.copyItem(at: url, to: copy)
        if FileManager.default.fileExists(atPath: url.path + "-wal") {
            try FileManager.default.copyItem(atPath: url.path + "-wal", toPath: copy.path + "-wal")
        }
        let survivor = try IndexStore(url: copy, create: false)
        XCTAssertEqual(try survivor.rowCount(), 120, "every acknowledged write survives on disk")
        try survivor.close()
        XCTAssertEqual(try IndexInspector(index).count(), 120)
    }
}
