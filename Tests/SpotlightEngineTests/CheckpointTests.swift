import Foundation
import XCTest
import GRDB
@testable import SpotlightEngine

/// The WAL is moved into the main file mostly off the commit path (`IdleCheckpointer`): SQLite's automatic checkpoint
/// is replaced by a WAL hook, and a burst of writes with no pause still has its WAL checkpointed while it goes on.
/// A real SQLite file on disk.
final class CheckpointTests: XCTestCase {
    var directory: URL!
    let later = Date().addingTimeInterval(365 * 86_400)

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("engine-checkpoint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Items of 60 random words each (about 4 KB of WAL an item), identifiers `<prefix><n>`.
    func randomItems(_ count: Int, named prefix: String) -> [StoredItem] {
        var random = SystemRandomNumberGenerator()
        return (0..<count).map { n in
            let words = (0..<60).map { _ in String(random.next() % 1_000_000_000, radix: 36) }
            return StoredItem(uniqueIdentifier: "\(prefix)\(n)", domainIdentifier: nil, expirationDate: later,
                              attributes: ["title": .string("item \(prefix)\(n)"),
                                           "contentDescription": .string(words.joined(separator: " "))])
        }
    }

    func size(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// What a commit does for the WAL's size in frames: nothing below 1,000; background checkpoints from there and
    /// from 4,000 on (they chase the commits, never inline), and past twice that, inline whatever is left; a small
    /// size means the WAL started over.
    func testTheWALHookSchedulesBackgroundCheckpointsAndCheckpointsInlineOnlyPastTheBound() {
        let checkpointer = IdleCheckpointer(path: directory.appendingPathComponent("none.sqlite").path)
        defer { checkpointer.stop() }
        XCTAssertFalse(checkpointer.noteWAL(frames: 999))
        XCTAssertFalse(checkpointer.noteWAL(frames: 1_000), "a background checkpoint, not an inline one")
        XCTAssertFalse(checkpointer.noteWAL(frames: 3_999))
        XCTAssertFalse(checkpointer.noteWAL(frames: 4_000), "a background checkpoint chases the commits")
        XCTAssertFalse(checkpointer.noteWAL(frames: 7_999), "still not inline")
        XCTAssertTrue(checkpointer.noteWAL(frames: 8_000), "past twice the bound the commit checkpoints itself")
        XCTAssertFalse(checkpointer.noteWAL(frames: 40), "the WAL started over")
    }

    /// A batch whose completion has run survives a power loss: the writer syncs the WAL at every commit
    /// (`synchronous = FULL`). GRDB sets NORMAL when it switches a pool to WAL, after the store's own connection
    /// setup, so commits used to be synced only by checkpoints; a store opened for writing sets FULL again. Checked
    /// on a new file and on one opened again, before and after writes.
    func testTheWriterSyncsEveryCommit() throws {
        let url = directory.appendingPathComponent("durable.sqlite")
        for _ in 0..<2 {
            let store = try IndexStore(url: url)
            XCTAssertEqual(try store.pool.write { try Int.fetchOne($0, sql: "PRAGMA synchronous") }, 2, "FULL")
            try store.apply(randomItems(3, named: "d").map { .upsert($0) })
            XCTAssertEqual(try store.pool.write { try Int.fetchOne($0, sql: "PRAGMA synchronous") }, 2, "FULL")
            XCTAssertEqual(try store.pool.write { try String.fetchOne($0, sql: "PRAGMA journal_mode") }, "wal")
            // The maintenance's own transactions are not synced (`writeTransaction(durable:)`); the next write is.
            try store.apply([.delete(identifiers: ["d0"])])
            try store.performMaintenance()
            XCTAssertFalse(store.syncRelaxed.load(ordering: .relaxed))
            XCTAssertEqual(try store.pool.write { try Int.fetchOne($0, sql: "PRAGMA synchronous") }, 2, "FULL after maintenance")
            try store.close()
        }
    }

    func testCommitsNeverCheckpointAndABurstIsCheckpointedWhileItGoesOn() throws {
        let url = directory.appendingPathComponent("burst.sqlite")
        let store = try IndexStore(url: url)
        defer { try? store.close() }
        XCTAssertEqual(try store.pool.write { try Int.fetchOne($0, sql: "PRAGMA wal_autocheckpoint") }, 0,
                       "SQLite's automatic checkpoint is replaced by the store's WAL hook")
        let before = size(url.path)
        // About 12 MB of distinct text in batches back to back: no pause for the idle checkpoint.
        for batch in 0..<30 {
            try store.apply(randomItems(100, named: "b\(batch)-").map { .upsert($0) })
        }
        // The checkpoints a commit scheduled when the WAL passed 4 MB have moved pages into the main file already.
        var grown = size(url.path)
        for _ in 0..<50 where grown < before + 4_000_000 {
            Thread.sleep(forTimeInterval: 0.005)
            grown = size(url.path)
        }
        XCTAssertGreaterThan(grown, before + 4_000_000, "the main file took the WAL's pages during the burst")
        XCTAssertEqual(try store.count(now: Date()), 3_000)
    }

    /// Single writes with short pauses, as an app makes them: past the bound, background checkpoints chase the
    /// commits and the WAL starts over, without any commit copying pages itself (that made the commit and the next
    /// one the slowest single writes).
    func testAStreamOfSingleWritesStartsTheWALOverWithoutInlineCheckpoints() throws {
        let url = directory.appendingPathComponent("stream.sqlite")
        let store = try IndexStore(url: url)
        defer { try? store.close() }
        let checkpointer = store.checkpointer
        var written = 0
        // Each item brings about 4 KB of text: the WAL passes 4,000 frames within a few hundred writes.
        while checkpointer.restarts.load(ordering: .relaxed) == 0 || written < 300, written < 3_000 {
            try store.apply([.upsert(randomItems(1, named: "s\(written)-")[0])])
            written += 1
            Thread.sleep(forTimeInterval: 0.005)
        }
        XCTAssertGreaterThan(checkpointer.restarts.load(ordering: .relaxed), 0, "the WAL started over (\(written) writes)")
        XCTAssertEqual(checkpointer.inlineCheckpoints.load(ordering: .relaxed), 0, "no commit checkpointed inline")
        XCTAssertEqual(try store.count(now: Date()), written)
    }

    /// A bulk load's transaction leaves a WAL of its own size; once writes pause, the store empties it (SQLite alone
    /// would keep it on disk until the next write), and what it held is in the main file.
    func testAnIdleStoreEmptiesTheWALABulkLoadGrew() throws {
        let url = directory.appendingPathComponent("bulk.sqlite")
        let store = try IndexStore(url: url)
        defer { try? store.close() }
        try store.apply(randomItems(12_000, named: "bulk-").map { .upsert($0) })
        XCTAssertGreaterThan(size(url.path + "-wal"), Int64(IndexStore.walSizeLimit),
                             "one transaction larger than the limit (else this test shows nothing)")
        store.waitUntilSettled()
        XCTAssertEqual(size(url.path + "-wal"), 0, "the idle checkpoint emptied the WAL")
        XCTAssertEqual(try store.count(now: Date()), 12_000)
        // A copy of the main file alone holds every item: nothing was left behind in the WAL.
        let copy = directory.appendingPathComponent("copy.sqlite")
        try FileManager.default.copyItem(at: url, to: copy)
        let reopened = try IndexStore(url: copy)
        defer { try? reopened.close() }
        XCTAssertEqual(try reopened.count(now: Date()), 12_000)
    }

    /// A store made since format 20 gives its free pages back to the file system (`IndexStore.releaseFreePages`):
    /// deleting most of its items shrinks the file once the maintenance has run and the WAL is checkpointed, and
    /// every item left reads back. A store made before (no `auto_vacuum`) keeps its free pages, as it did.
    func testFreePagesGoBackToTheFileSystem() throws {
        let url = directory.appendingPathComponent("shrink.sqlite")
        let store = try IndexStore(url: url)
        defer { try? store.close() }
        XCTAssertEqual(try store.read { try Int.fetchOne($0, sql: "PRAGMA auto_vacuum") }, 2, "incremental")
        let items = randomItems(3_000, named: "v-")
        try store.apply(items.map { .upsert($0) })
        try store.performMaintenance()
        store.waitUntilSettled()
        let full = size(url.path)
        try store.apply(items.dropFirst(300).map { .delete(identifiers: [$0.uniqueIdentifier]) })
        let released = store.pagesReleased.load(ordering: .relaxed)
        try store.performMaintenance()
        store.waitUntilSettled()
        XCTAssertGreaterThan(store.pagesReleased.load(ordering: .relaxed), released)
        XCTAssertLessThan(try XCTUnwrap(store.read { try Int.fetchOne($0, sql: "PRAGMA freelist_count") }), IndexStore.freePagesKept)
        XCTAssertLessThan(size(url.path), full * 6 / 10, "the file shrank (\(full) bytes before)")
        XCTAssertEqual(try store.count(now: Date()), 300)
        for item in items.prefix(300) { XCTAssertEqual(try store.item(withIdentifier: item.uniqueIdentifier), item) }
        try store.checkIntegrity()

        // A file SQLite made before (a table already there): no auto_vacuum, and nothing released.
        let oldURL = directory.appendingPathComponent("old.sqlite")
        try DatabaseQueue(path: oldURL.path).write { try $0.execute(sql: "CREATE TABLE unrelated(x)") }
        let old = try IndexStore(url: oldURL)
        defer { try? old.close() }
        XCTAssertEqual(try old.read { try Int.fetchOne($0, sql: "PRAGMA auto_vacuum") }, 0)
        try old.apply(items.prefix(1_000).map { .upsert($0) })
        try old.apply(items.prefix(900).map { .delete(identifiers: [$0.uniqueIdentifier]) })
        try old.performMaintenance()
        XCTAssertEqual(old.pagesReleased.load(ordering: .relaxed), 0)
        XCTAssertEqual(try old.count(now: Date()), 100)
    }
}
