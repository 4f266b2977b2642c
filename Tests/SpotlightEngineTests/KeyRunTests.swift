import Foundation
import GRDB
import SpotlightTestSupport
import XCTest
@testable import SpotlightEngine

/// Catalogued items' identifiers in sorted runs (`KeyRuns`, format 18): blocks read back what was written and
/// damage is an error; every live identifier is found and no deleted one, through many large writes, updates,
/// deletes and the merges they cause; paging in identifier order sees every item once; a format 17 store's
/// `itemKey` becomes one run. Real SQLite files on disk.
final class KeyRunTests: XCTestCase {
    var directory: URL!
    var store: IndexStore!
    let now = Date(timeIntervalSinceReferenceDate: 800_000_000)

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("engine-keyruns-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try IndexStore(url: directory.appendingPathComponent("index.sqlite"))
    }

    override func tearDownWithError() throws {
        try? store?.close()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Identifiers that share long prefixes, with multi-byte characters, one far longer than a block.
    static func identifiers(_ count: Int, seed: UInt64 = 1) -> [String] {
        var random = SplitMix64(state: seed)
        let stems = ["pypi:", "pypi:py", "pypi:python-", "deb:lib", "é", "日本", "a"]
        var out = Set<String>()
        while out.count < count {
            let stem = stems[Int(random.next() % UInt64(stems.count))]
            let tail = String((0..<(1 + Int(random.next() % 12))).map { _ in "abcdeéz0-.".randomElement(using: &random)! })
            out.insert(stem + tail)
        }
        out.insert("pypi:" + String(repeating: "long", count: 600))
        return Array(out)
    }

    func testBlocksReadBackWhatWasWrittenAndDamageIsAnErrorNotATrap() throws {
        let uids = Self.identifiers(2_000)
        let list = KeyList.sorted(uids.enumerated().map { ($1, Int64($0 * 977 + 1)) })
        let (blocks, filter) = KeyRuns.encode(list)
        XCTAssertGreaterThan(blocks.count, 10)
        var read: [(String, Int64)] = []
        for block in blocks {
            // A block stays within an index page's cell unless its one identifier alone is longer.
            if block.first.count < 1_000 { XCTAssertLessThanOrEqual(block.first.count + block.data.count, KeyRuns.blockBytes) }
            try block.first.withUnsafeBytes { first in
                try block.data.withUnsafeBytes { data in
                    try KeyRuns.forEachEntry(first: first, data: data) { key, id in
                        read.append((String(decoding: key, as: UTF8.self), id))
                        return false
                    }
                }
            }
        }
        let expected = uids.enumerated().map { ($1, Int64($0 * 977 + 1)) }.sorted { UTF8Order.precedes($0.0, $1.0) }
        XCTAssertEqual(read.map(\.0), expected.map(\.0), "in SQLite's binary order")
        XCTAssertEqual(read.map(\.1), expected.map(\.1))
        // No identifier written is missed by the filter, and few others pass it.
        for uid in uids { XCTAssertTrue(filter.mayContain(KeyFilter.hash(uid.utf8)), uid) }
        let written = Set(uids)
        let others = Self.identifiers(4_000, seed: 99).filter { !written.contains($0) }
        let passed = others.filter { filter.mayContain(KeyFilter.hash($0.utf8)) }.count
        XCTAssertLessThan(Double(passed) / Double(others.count), 0.03)
        XCTAssertEqual(try filter.stored.withUnsafeBytes { try KeyFilter(stored: $0) }.words, filter.words)
        // Every truncation and many byte changes of a block: an error or entries, never a trap.
        let block = blocks[3]
        for cut in 0..<block.data.count {
            try? block.first.withUnsafeBytes { first in
                try Array(block.data[..<cut]).withUnsafeBytes { data in
                    try KeyRuns.forEachEntry(first: first, data: data) { _, _ in false }
                }
            }
        }
        var random = SplitMix64(state: 7)
        for _ in 0..<300 {
            var data = block.data
            data[Int(random.next() % UInt64(data.count))] = UInt8(truncatingIfNeeded: random.next())
            try? block.first.withUnsafeBytes { first in
                try data.withUnsafeBytes { try KeyRuns.forEachEntry(first: first, data: $0) { _, _ in false } }
            }
        }
        XCTAssertThrowsError(try [UInt8]([1, 2]).withUnsafeBytes { try KeyFilter(stored: $0) })
        XCTAssertThrowsError(try [UInt8]([0xFF, 0xFF, 0xFF]).withUnsafeBytes { data in
            try [UInt8]([97]).withUnsafeBytes { try KeyRuns.forEachEntry(first: $0, data: data) { _, _ in false } }
        })
    }

    func item(_ uid: String, version: Int) -> StoredItem {
        StoredItem(uniqueIdentifier: uid, domainIdentifier: nil, expirationDate: now.addingTimeInterval(86_400),
                   attributes: ["title": .string("title \(version) of \(uid)")])
    }

    func runCounts() throws -> [Int] {
        try store.read { try Int.fetchAll($0, sql: "SELECT count FROM keyRun ORDER BY id") }
    }

    /// Checks every identifier of `model` is found with its version, the `absent` ones are not, and a listing a
    /// page at a time is the model in identifier order.
    func assertMatches(_ model: [String: Int], absent: [String], _ message: String,
                       file: StaticString = #filePath, line: UInt = #line) throws {
        for (uid, version) in model {
            let found = try store.item(withIdentifier: uid, now: now)
            XCTAssertEqual(found?.attributes["title"], .string("title \(version) of \(uid)"), "\(message): \(uid)",
                           file: file, line: line)
        }
        for uid in absent.prefix(300) {
            XCTAssertNil(try store.item(withIdentifier: uid, now: now), "\(message): \(uid) was deleted", file: file, line: line)
        }
        var listed: [String] = []
        var after: String? = nil
        while true {
            let page = try store.listItems(after: after, limit: 97, now: now)
            listed += page.map(\.uniqueIdentifier)
            guard let last = page.last else { break }
            after = last.uniqueIdentifier
        }
        XCTAssertEqual(listed, model.keys.sorted { UTF8Order.precedes($0, $1) }, message, file: file, line: line)
    }

    func testLargeWritesUpdatesAndDeletesThroughMergesFindEveryLiveIdentifier() throws {
        let uids = Self.identifiers(3_000, seed: 5)
        var model: [String: Int] = [:]
        var deleted = Set<String>()
        var random = SplitMix64(state: 11)
        // 20 large writes: new items, updates of earlier ones (a new id under the same identifier) and deletes in
        // the same batch.
        for round in 0..<20 {
            var operations: [IndexOperation] = []
            for uid in uids[(round * 120)..<(round * 120 + 120)] {
                operations.append(.upsert(item(uid, version: round)))
                model[uid] = round
                deleted.remove(uid)
            }
            for uid in model.keys.sorted().prefix(Int(random.next() % 40)) where random.next() % 2 == 0 {
                operations.append(.upsert(item(uid, version: round)))
                model[uid] = round
            }
            let doomed = model.keys.sorted().filter { _ in random.next() % 25 == 0 }
            operations.append(.delete(identifiers: doomed))
            for uid in doomed { model[uid] = nil; deleted.insert(uid) }
            try store.apply(operations, now: now)
            // Never eight runs of one size class: they are merged.
            let counts = try runCounts()
            XCTAssertFalse(Dictionary(grouping: counts, by: KeyRuns.level).values.contains { $0.count >= KeyRuns.mergeWidth },
                           "round \(round): \(counts)")
            if round % 5 == 4 { try assertMatches(model, absent: Array(deleted), "round \(round)") }
        }
        XCTAssertLessThan(try runCounts().count, 20, "runs were merged")
        // Single writes (rows) and deletes of catalogued items between large writes.
        try store.apply([.upsert(item(uids[0], version: 99))], now: now)
        model[uids[0]] = 99
        deleted.remove(uids[0])
        let single = model.keys.sorted()[5]
        try store.apply([.delete(identifiers: [single])], now: now)
        model[single] = nil
        deleted.insert(single)
        try assertMatches(model, absent: Array(deleted), "after single writes")

        // Most items deleted: the next large write merges every run into one with only live entries.
        let doomed = Array(model.keys.sorted().dropFirst(100))
        try store.apply([.delete(identifiers: doomed)], now: now)
        for uid in doomed { model[uid] = nil; deleted.insert(uid) }
        let fresh = Array(uids[2_400...])
        try store.apply(fresh.map { .upsert(item($0, version: 7)) }, now: now)
        for uid in fresh { model[uid] = 7; deleted.remove(uid) }
        let counts = try runCounts()
        XCTAssertEqual(counts.count, 1, "one run after the deletes passed half the entries")
        let cataloguedLive = try store.read { db in
            var n = 0
            try ItemCatalog(db).forEachCataloguedID(in: Int64.min...Int64.max) { _ in n += 1 }
            return n
        }
        XCTAssertEqual(counts.first, cataloguedLive, "the merged run holds the live catalogued items alone")
        try assertMatches(model, absent: Array(deleted), "after the full merge")

        // Reopened (the process's filters kept, another catalogue object's lookups): the same.
        try store.close()
        store = try IndexStore(url: directory.appendingPathComponent("index.sqlite"))
        try assertMatches(model, absent: Array(deleted), "reopened")
        try store.checkIntegrity()

        // Everything removed: no run left.
        try store.apply([.deleteAll], now: now)
        XCTAssertEqual(try runCounts(), [])
        try assertMatches([:], absent: Array(model.keys), "after deleting everything")
    }

    /// A format 17 store (identifiers in `itemKey`) is read as it is when opened read-only, and upgraded when opened
    /// for writing: one run, the table dropped, every item found, later writes as usual.
    func testAFormat17StoreIsReadAsItIsAndUpgradedToOneRun() throws {
        let uids = Self.identifiers(600, seed: 3)
        try store.apply(uids.map { .upsert(item($0, version: 1)) }, now: now)
        let doomed = Array(uids[..<50])
        try store.apply([.delete(identifiers: doomed)], now: now)
        var model = Dictionary(uniqueKeysWithValues: uids[50...].map { ($0, 1) })
        try store.writeTransaction { db in
            var keys: [(String, Int64)] = []
            let runs = KeyRuns(db)
            for run in try runs.runs() {
                var cursor = try runs.cursor(on: run.id, after: nil)
                while let i = try cursor.current(runs) {
                    keys.append((String(decoding: cursor.block.key(i), as: UTF8.self), cursor.block.ids[i]))
                    cursor.position += 1
                }
            }
            // Format 17 removed a deleted item's entry.
            let live = Set(try ItemCatalog(db).catalogueIDsForTests())
            try db.execute(sql: """
                DROP TABLE keyRun; DROP TABLE keyBlock; DELETE FROM meta WHERE key = 'keyGarbage';
                CREATE TABLE itemKey(uid TEXT PRIMARY KEY, id INTEGER NOT NULL) WITHOUT ROWID;
                UPDATE meta SET value = 17 WHERE key = 'formatVersion';
                """)
            for (uid, id) in keys where live.contains(id) {
                try db.execute(sql: "INSERT INTO itemKey(uid, id) VALUES(?, ?)", arguments: [uid, id])
            }
        }
        try store.close()
        let url = directory.appendingPathComponent("index.sqlite")
        store = try IndexStore(url: url, create: false, readOnly: true)
        try assertMatches(model, absent: doomed, "format 17, read only")
        // (The maintenance may have given the items of sparse blocks rows meanwhile, as format 17 did.)
        let catalogued = try store.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM itemKey") } ?? 0
        try store.close()
        store = try IndexStore(url: url)
        XCTAssertEqual(try store.read { try Int.fetchOne($0, sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'formatVersion'") },
                       IndexStore.formatVersion)
        XCTAssertFalse(try store.read { try $0.tableExists("itemKey") })
        XCTAssertEqual(try runCounts(), [catalogued])
        XCTAssertGreaterThan(catalogued, 500)
        try assertMatches(model, absent: doomed, "upgraded")
        let more = Self.identifiers(300, seed: 4).filter { model[$0] == nil && !doomed.contains($0) }
        try store.apply(more.map { .upsert(item($0, version: 2)) } + [.upsert(item(uids[60], version: 2))], now: now)
        for uid in more { model[uid] = 2 }
        model[uids[60]] = 2
        try assertMatches(model, absent: doomed, "written after the upgrade")
    }

    /// A run's blocks fill their pages, four to a page, and none spills into an overflow page (SQLite's `dbstat`);
    /// a corpus given in identifier order makes one-byte id differences.
    func testBlocksFillTheirPagesWithoutSpilling() throws {
        let uids = (0..<6_000).map { String(format: "pypi:package-%05d-%@", $0, String(repeating: "x", count: $0 % 9)) }
        try store.apply(uids.map { .upsert(item($0, version: 1)) }, now: now)
        let (overflow, fill, perEntry) = try store.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM dbstat WHERE name = 'keyBlock' AND pagetype = 'overflow'") ?? -1,
             try Double.fetchOne(db, sql: "SELECT CAST(sum(payload) AS REAL) / sum(pgsize) FROM dbstat WHERE name = 'keyBlock' AND pagetype = 'leaf'") ?? 0,
             try Double.fetchOne(db, sql: "SELECT CAST(sum(length(data)) AS REAL) / (SELECT sum(count) FROM keyRun) FROM keyBlock") ?? 0)
        }
        XCTAssertEqual(overflow, 0)
        XCTAssertGreaterThan(fill, 0.9)
        // (Two bytes of lengths, ~6 of rest, a byte of id difference: 9.05; ids written whole take two bytes here.)
        XCTAssertLessThan(perEntry, 9.5, "\(perEntry)")
    }

    /// A damaged block or filter is `.corruptIndex` for the reader, never a trap.
    func testDamagedRunsAreCorruptIndexErrors() throws {
        let uids = Self.identifiers(400, seed: 8)
        try store.apply(uids.map { .upsert(item($0, version: 1)) }, now: now)
        try store.writeTransaction { db in
            try db.execute(sql: "UPDATE keyBlock SET data = x'ffffffff'")
            try db.execute(sql: "UPDATE keyRun SET filter = x'0102', salt = salt + 1")
        }
        try store.close()
        store = try IndexStore(url: directory.appendingPathComponent("index.sqlite"))
        var errors = 0
        for uid in uids.prefix(20) {
            do {
                _ = try store.item(withIdentifier: uid, now: now)
            } catch let error as EngineError {
                XCTAssertEqual(error.code, .corruptIndex)
                errors += 1
            }
        }
        XCTAssertGreaterThan(errors, 0)
        XCTAssertThrowsError(try store.listItems(limit: 10, now: now))
    }
}

extension ItemCatalog {
    /// Every catalogued item's id, increasing.
    func catalogueIDsForTests() throws -> [Int64] {
        var ids: [Int64] = []
        try forEachCataloguedID(in: Int64.min...Int64.max) { ids.append($0) }
        return ids
    }
}
