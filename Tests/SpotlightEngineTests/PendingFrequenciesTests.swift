import Foundation
import XCTest
import GRDB
@testable import SpotlightEngine

/// Small writes leave their document-frequency decrements pending (`PendingFrequencies`): whatever reads an exact
/// frequency (completions, corrections, typo tolerance's threshold) sees the true one meanwhile, in this process
/// and in another connection, and the maintenance applies them. A real SQLite file on disk.
final class PendingFrequenciesTests: XCTestCase {
    var directory: URL!
    var store: IndexStore!
    let later = Date().addingTimeInterval(365 * 86_400)

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pending-df-\(UUID().uuidString)")
        store = try IndexStore(url: directory.appendingPathComponent("test.sqlite"))
    }

    override func tearDownWithError() throws {
        try store?.close()
        try? FileManager.default.removeItem(at: directory)
    }

    func item(_ id: String, _ title: String, _ description: String = "") -> StoredItem {
        StoredItem(uniqueIdentifier: id, domainIdentifier: nil, expirationDate: later,
                   attributes: ["title": .string(title), "contentDescription": .string(description)])
    }

    func pendingRows(_ store: IndexStore? = nil) throws -> Int {
        try (store ?? self.store).read { try PendingFrequencies.count($0) }
    }

    func storedFrequency(_ term: String) throws -> Int {
        try store.read { try Int.fetchOne($0, sql: "SELECT df FROM term WHERE text = ?", arguments: [term]) } ?? 0
    }

    /// 12 items with "zebra", one with "zebro", 100 with "tool …" (one large write, which updates the vocabulary
    /// itself).
    func load() throws {
        var operations: [IndexOperation] = (0..<12).map { .upsert(item("z\($0)", "zebra \($0)", "striped animal")) }
        operations.append(.upsert(item("zo", "zebro", "a zebro")))
        operations += (0..<100).map { .upsert(item("t\($0)", "tool \($0)", "a helpful tool")) }
        try store.apply(operations)
        XCTAssertEqual(try pendingRows(), 0, "a large write updates the vocabulary itself")
        XCTAssertEqual(try storedFrequency("zebra"), 12)
    }

    func testSmallDeletesLeaveOneRowEachAndReadersSeeTheTrueFrequencies() throws {
        try load()
        let other = try IndexStore(url: store.url)
        defer { try? other.close() }
        XCTAssertEqual(try other.documentFrequency(of: "zebra"), 12)
        for n in 0..<5 { try store.apply([.delete(identifiers: ["z\(n)"])]) }
        XCTAssertEqual(try pendingRows(), 5, "one row per small write")
        XCTAssertEqual(try storedFrequency("zebra"), 12, "the vocabulary's row is not written by a small delete")
        for reader in [store!, other] {
            XCTAssertEqual(try reader.documentFrequency(of: "zebra"), 7)
            XCTAssertEqual(try reader.documentFrequency(of: "striped"), 7)
            XCTAssertEqual(try reader.completions(of: "zeb").map(\.term), ["zebra", "zebro"])
            XCTAssertEqual(try reader.completions(of: "zeb").map(\.count), [7, 1])
            XCTAssertEqual(try reader.corrections(of: "zebru", prefix: false).first?.count, 7)
        }
        // The other connection's cached deltas are brought up to date row by row, and dropped when applied.
        try store.apply([.delete(identifiers: ["z5"])])
        XCTAssertEqual(try other.documentFrequency(of: "zebra"), 6)
        try store.performMaintenance()
        XCTAssertEqual(try pendingRows(), 0, "the maintenance applies them")
        XCTAssertEqual(try storedFrequency("zebra"), 6)
        for reader in [store!, other] {
            XCTAssertEqual(try reader.documentFrequency(of: "zebra"), 6)
            XCTAssertEqual(try reader.completions(of: "zeb").map(\.count), [6, 1])
        }
        try store.apply([.delete(identifiers: ["z6"])])
        XCTAssertEqual(try other.documentFrequency(of: "zebra"), 5)
        XCTAssertEqual(try other.completions(of: "zeb").map(\.count), [5, 1])
    }

    func testAWordOnlyDeletedItemsHeldIsNoCompletionOrCorrection() throws {
        try load()
        try store.apply([.delete(identifiers: ["zo"])])
        XCTAssertEqual(try pendingRows(), 1)
        XCTAssertEqual(try store.completions(of: "zeb").map(\.term), ["zebra"])
        XCTAssertFalse(try store.corrections(of: "zebrq", prefix: false).map(\.term).contains("zebro"))
        XCTAssertEqual(try store.documentFrequency(of: "zebro"), 0)
    }

    /// A word with fewer than `Typos.expansionThreshold` postings is also matched with typos: the decision reads
    /// the true frequency, so a search gives what it gives once the decrements are applied.
    func testTypoToleranceDecidesOnTheTrueFrequency() throws {
        try load()
        var options = TextSearchOptions(limit: 50)
        options.typoTolerance = true
        let before = try store.search("zebra", options: options).map(\.item.uniqueIdentifier)
        XCTAssertFalse(before.contains("zo"), "12 postings: no typo expansion")
        for n in 0..<4 { try store.apply([.delete(identifiers: ["z\(n)"])]) }
        XCTAssertEqual(try pendingRows(), 4)
        var usePrefixLists = options
        usePrefixLists.lastWordIsPrefix = true
        let pending = try store.search("zebra", options: options).map(\.item.uniqueIdentifier)
        let pendingPrefix = try store.search("zebr", options: usePrefixLists).map(\.item.uniqueIdentifier)
        XCTAssertTrue(pending.contains("zo"), "8 postings: typos too")
        try store.performMaintenance()
        XCTAssertEqual(try pendingRows(), 0)
        XCTAssertEqual(try store.search("zebra", options: options).map(\.item.uniqueIdentifier), pending)
        XCTAssertEqual(try store.search("zebr", options: usePrefixLists).map(\.item.uniqueIdentifier), pendingPrefix)
    }

    func testLargeWritesAndDeleteAllUpdateTheVocabularyThemselves() throws {
        try load()
        try store.apply([.delete(identifiers: ["z0"])])
        XCTAssertEqual(try pendingRows(), 1)
        try store.apply((0..<100).map { .delete(identifiers: ["t\($0)"]) })
        XCTAssertEqual(try pendingRows(), 1, "a large write's decrements are written at once")
        XCTAssertEqual(try storedFrequency("tool"), 0)
        XCTAssertEqual(try store.documentFrequency(of: "zebra"), 11)
        try store.apply([.deleteAll])
        XCTAssertEqual(try pendingRows(), 0)
        XCTAssertEqual(try store.documentFrequency(of: "zebra"), 0)
        try store.apply([.upsert(item("n", "zebra again"))])
        XCTAssertEqual(try store.documentFrequency(of: "zebra"), 1, "no decrement from before survives")
    }

    /// Replacing an item leaves only the decrements of the words it lost.
    func testAnUpdateLeavesOnlyTheWordsItLost() throws {
        try load()
        try store.apply([.upsert(item("z0", "zebra 0", "spotted animal"))])
        let rows = try store.read { db in try PendingFrequencies.rows(db, from: 0, through: .max) }
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows.first?.decrements.map(\.term), ["striped"])
        XCTAssertEqual(try store.documentFrequency(of: "striped"), 11)
        XCTAssertEqual(try store.documentFrequency(of: "spotted"), 1, "increments are written at once")
        XCTAssertEqual(try storedFrequency("spotted"), 1)
    }

    func testAFormat9StoreIsUpgradedAndReadAsItIs() throws {
        try load()
        let url = store.url
        try store.pool.write { db in
            try db.execute(sql: "DROP TABLE dfPending; UPDATE meta SET value = 9 WHERE key = 'formatVersion'")
        }
        try store.close()
        store = nil
        let reader = try IndexStore(url: url, readOnly: true)
        XCTAssertEqual(try reader.documentFrequency(of: "zebra"), 12, "no table: nothing pending")
        try reader.close()
        store = try IndexStore(url: url)
        XCTAssertEqual(try store.read { try Int.fetchOne($0, sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'formatVersion'") },
                       IndexStore.formatVersion)
        try store.apply([.delete(identifiers: ["z0"])])
        XCTAssertEqual(try pendingRows(), 1)
        XCTAssertEqual(try store.documentFrequency(of: "zebra"), 11)
    }

    func testRowsRoundTripAndDamageIsReported() throws {
        let decrements: [(term: String, count: Int)] = [("python", 1), ("ñandú", 3), ("日本語", 200), ("\u{1}own", 1)]
        let encoded = PendingFrequencies.encode(decrements)
        let decoded = try encoded.withUnsafeBytes { try PendingFrequencies.decode($0) }
        XCTAssertEqual(decoded.map(\.term), decrements.map(\.term))
        XCTAssertEqual(decoded.map(\.count), decrements.map(\.count))
        for cut in 1..<encoded.count {
            let prefix = Array(encoded.prefix(cut))
            // Every cut either ends between two terms or is reported: never a trap.
            if let terms = try? prefix.withUnsafeBytes({ try PendingFrequencies.decode($0) }) {
                XCTAssertLessThan(terms.count, decrements.count)
            }
        }
        let damaged: [UInt8] = [200, 1, 0x61]
        XCTAssertThrowsError(try damaged.withUnsafeBytes { try PendingFrequencies.decode($0) }) { error in
            XCTAssertEqual((error as? EngineError)?.code, .corruptIndex)
        }
        // A damaged row in a store: a completion reports the damage, never traps.
        try store.apply([.upsert(item("a", "zebra"))])
        try store.pool.write { try $0.execute(sql: "INSERT INTO dfPending(terms) VALUES(x'C801')") }
        XCTAssertThrowsError(try store.completions(of: "zeb")) { error in
            XCTAssertEqual((error as? EngineError)?.code, .corruptIndex)
        }
    }
}
