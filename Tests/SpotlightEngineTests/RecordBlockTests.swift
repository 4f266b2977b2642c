import Foundation
import GRDB
import SpotlightTestSupport
import XCTest
@testable import SpotlightEngine

/// The records of a large write are compressed in blocks (`RecordBlocks`, format 7): they read back whole through
/// every path (an item by identifier, search hits, query results, updates that merge attributes, the integrity
/// check), deletions count against their block and delete it with its last record, the maintenance gives the
/// records of blocks mostly dead back to their rows, and damaged blocks are damage, never a trap. A real SQLite
/// file on disk.
final class RecordBlockTests: XCTestCase {
    var directory: URL!
    var store: IndexStore!
    let later = Date().addingTimeInterval(365 * 86_400)

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("engine-blocks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try IndexStore(url: directory.appendingPathComponent("index.sqlite"))
    }

    override func tearDownWithError() throws {
        try? store?.close()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Items shaped like a package index's (`RecordDictionaryTests.items`).
    func items(_ range: Range<Int>, prefix: String = "pkg") -> [StoredItem] {
        RecordDictionaryTests.items(range, prefix: prefix, expiring: later)
    }

    func blocks() throws -> [(id: Int64, last: Int64, count: Int, dead: Int)] {
        try store.read { db in
            try Row.fetchAll(db, sql: "SELECT id, last, count, dead FROM recordBlock ORDER BY id").map {
                (try $0.stored(0), try $0.stored(1), try $0.stored(2), try $0.stored(3))
            }
        }
    }

    func inRows() throws -> Int {
        try store.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM item WHERE length(attrs) > 0") } ?? 0
    }

    /// The identifiers of the live items whose records are in the block `id…last`, by id: catalogued items, or row
    /// items whose row holds no record.
    func blockItems(_ id: Int64, _ last: Int64) throws -> [String] {
        try store.read { db in
            let catalog = ItemCatalog(db)
            var uids: [String] = []
            try catalog.forEachID(in: id...last) { item in
                if let entry = try catalog.entry(id: item), entry.record.isEmpty { uids.append(entry.uid) }
            }
            return uids
        }
    }

    func search(_ text: String) throws -> [String] {
        try store.search(text, options: TextSearchOptions(limit: 0)).map(\.item.uniqueIdentifier)
    }

    /// A write's blocks are shared out to be compressed in contiguous ranges that cover each block once, in order,
    /// one range at most per core; none empty (but the one range of no blocks, which carries the records left alone).
    func testSharesCoverEveryBlockOnceInOrder() {
        let cores = min(ProcessInfo.processInfo.activeProcessorCount, 8)
        for count in 0..<200 {
            let shares = RecordBlocks.shares(of: count)
            XCTAssertEqual(shares.first?.lowerBound, 0)
            XCTAssertEqual(shares.last?.upperBound, count)
            for (a, b) in zip(shares, shares.dropFirst()) { XCTAssertEqual(a.upperBound, b.lowerBound) }
            XCTAssertLessThanOrEqual(shares.count, max(1, min(cores, count / RecordBlocks.partBlocks)))
            if count == 0 { XCTAssertEqual(shares, [0..<0]) } else { XCTAssertFalse(shares.contains { $0.isEmpty }) }
        }
    }

    /// Both ways a large write stores its items: catalogued in their blocks (format 13), and as rows whose records
    /// are in blocks (format 7 to 12).
    func testALargeWriteStoresItsRecordsInBlocksThatReadBackWhole() throws {
        try largeWriteReadsBackWhole(catalogued: true)
        try store.apply([.deleteAll])
        try withRowItems { try largeWriteReadsBackWhole(catalogued: false) }
    }

    func largeWriteReadsBackWhole(catalogued: Bool) throws {
        let written = items(0..<1_000)
        try store.apply(written.map { .upsert($0) })
        let rows = try store.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM item") } ?? 0
        XCTAssertEqual(rows, catalogued ? try inRows() : 1_000, "catalogued items have no row but the last few")
        let blocks = try blocks()
        XCTAssertGreaterThan(blocks.count, 1_000 / RecordBlocks.maximumRecords)
        XCTAssertEqual(blocks.reduce(0) { $0 + $1.count } + (try inRows()), 1_000)
        XCTAssertLessThan(try inRows(), RecordBlocks.minimumRecords, "only a short last block stays in rows")
        for (a, b) in zip(blocks, blocks.dropFirst()) { XCTAssertLessThan(a.last, b.id, "blocks never overlap") }
        for item in written {
            XCTAssertEqual(try store.item(withIdentifier: item.uniqueIdentifier)?.attributes, item.attributes)
        }
        // Search hits carry their attributes.
        let hits = try store.search("python", options: TextSearchOptions(limit: 0))
        XCTAssertFalse(hits.isEmpty)
        let byID = Dictionary(uniqueKeysWithValues: written.map { ($0.uniqueIdentifier, $0) })
        for hit in hits { XCTAssertEqual(hit.item.attributes, byID[hit.item.uniqueIdentifier]?.attributes) }
        // Smaller than the same records compressed one by one.
        let together = try store.read { try Int.fetchOne($0, sql: "SELECT sum(length(data)) FROM recordBlock") } ?? 0
        let dictionary = try XCTUnwrap(try store.read { try RecordDictionary.current(in: $0) })
        var alone = written.reduce(0) { $0 + ValueCodec.stored(attributes: $1.attributes, custom: $1.customAttributes, dictionary: dictionary).count }
        if catalogued {
            // A catalogue block also holds its items' fields, which would otherwise be their rows.
            alone += try store.read { db in
                let catalog = ItemCatalog(db)
                return try written.reduce(0) { total, item in
                    let entry = try XCTUnwrap(try catalog.entry(uid: item.uniqueIdentifier))
                    guard case .block = entry.location else { return total }
                    let signals = try XCTUnwrap(try catalog.signals(of: entry.id))
                    var initials: [UInt8] = []
                    try catalog.withInitials(of: entry.id) { initials = Array($0) }
                    return total + ItemCatalog.Fields.encode([ItemCatalog.Fields(
                        uid: entry.uid, domain: entry.domain, expires: entry.expires, hint: entry.hint, lastUsed: entry.lastUsed,
                        name: signals.name, initials: initials)]).count
                }
            }
        }
        XCTAssertLessThan(Double(together), Double(alone) * 0.85, "\(together) bytes in blocks against \(alone) alone")
        XCTAssertEqual(try store.count(), 1_000)
        try store.checkIntegrity()
    }

    /// The rows of the blocks in `ids`: their record counts, and their bytes as `RecordBlocks.rowBytes` counts them.
    func rows(from first: Int64 = 0) throws -> [(count: Int, bytes: Int)] {
        try store.read { db in
            try Row.fetchAll(db, sql: """
                SELECT count, length(data) + ifnull(length(rawFields), 0) FROM recordBlock WHERE id >= ? ORDER BY id
                """, arguments: [first]).map { (try $0.stored(0), try $0.stored(1) + RecordBlocks.rowOverhead) }
        }
    }

    /// Pages of `recordBlock` that hold the rest of a row too long for its page (SQLite's `dbstat`).
    func overflowPages() throws -> Int {
        try store.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM dbstat WHERE name = 'recordBlock' AND pagetype = 'overflow'") } ?? -1
    }

    /// How full `recordBlock`'s leaf pages are: their payload over their bytes (SQLite's `dbstat`).
    func leafFill() throws -> Double {
        try store.read { try Double.fetchOne($0, sql: """
            SELECT CAST(sum(payload) AS REAL) / sum(pgsize) FROM dbstat WHERE name = 'recordBlock' AND pagetype = 'leaf'
            """) } ?? 0
    }

    /// Two blocks' rows fill a page (`RecordBlocks.pack`): a large write's rows come near half a page
    /// (`RecordBlocks.rowTarget`), never so large that two cannot share a page, and none spills into overflow
    /// pages, from the store's first write on (the rows of 4 KB blocks, ~1.2 KB here, left a third of each page
    /// empty); the next writes guess their rows from the ones before.
    func testBlockRowsFillAPageWithoutSpilling() throws {
        let first = items(0..<3_000)
        try store.apply(first.map { .upsert($0) })
        let dictionary = try store.read { try RecordDictionary.current(in: $0) }
        XCTAssertGreaterThan(store.recordRows.plainTarget(dictionary: dictionary), 2 * RecordBlocks.targetBytes,
                             "the next write guesses rows of more than 4 KB of records")
        let boundary = try XCTUnwrap(try store.read { try Int64.fetchOne($0, sql: "SELECT max(last) FROM recordBlock") })
        let second = items(3_000..<9_000)
        try store.apply(second.map { .upsert($0) })
        for (rows, write) in [(try rows().filter { _ in true }, "both writes"), (try rows(from: boundary + 1), "the second")] {
            XCTAssertFalse(rows.isEmpty)
            for row in rows { XCTAssertLessThanOrEqual(row.bytes, RecordBlocks.rowLimit, write) }
            // The last row of a write is whatever is left: the others.
            let full = rows.dropLast()
            let mean = full.reduce(0) { $0 + $1.bytes } / full.count
            XCTAssertGreaterThan(mean, RecordBlocks.rowLow - 200, "\(write): rows of \(full.map(\.bytes))")
        }
        XCTAssertEqual(try overflowPages(), 0)
        XCTAssertGreaterThan(try leafFill(), 0.85)
        for item in (first + second).enumerated().filter({ $0.offset % 7 == 0 }).map(\.element) {
            XCTAssertEqual(try store.item(withIdentifier: item.uniqueIdentifier)?.attributes, item.attributes)
        }
        XCTAssertEqual(try store.count(), 9_000)
        try store.checkIntegrity()
    }

    /// Records that compress far worse than the store's last ones make a first guess of rows that would spill out
    /// of their page: such a row is compressed again with fewer records, and every record reads back.
    func testARowThatWouldSpillIsCompressedAgainWithFewerRecords() throws {
        try store.apply(items(0..<3_000).map { .upsert($0) })
        try store.apply(items(3_000..<6_000).map { .upsert($0) })
        let boundary = try XCTUnwrap(try store.read { try Int64.fetchOne($0, sql: "SELECT max(last) FROM recordBlock") })
        let dictionary = try store.read { try RecordDictionary.current(in: $0) }
        let target = store.recordRows.plainTarget(dictionary: dictionary)
        XCTAssertGreaterThan(target / 2, RecordBlocks.rowLimit, "rows of that many bytes of noise would spill")
        // Letters at random: about five bits of each byte are information, and a block's records share nothing.
        var random = SplitMix64(state: 99)
        let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        let noise = (0..<3_000).map { n in
            StoredItem(uniqueIdentifier: "noise:\(n)", domainIdentifier: "packages", expirationDate: later, attributes: [
                "title": .string("noise \(n)"),
                "contentDescription": .string(String((0..<600).map { _ in letters[Int(random.next() % UInt64(letters.count))] })),
            ])
        }
        try store.apply(noise.map { .upsert($0) })
        let rows = try rows(from: boundary + 1)
        XCTAssertFalse(rows.isEmpty)
        for row in rows { XCTAssertLessThanOrEqual(row.bytes, RecordBlocks.rowLimit) }
        XCTAssertEqual(try overflowPages(), 0)
        XCTAssertGreaterThan(try leafFill(), 0.85)
        for item in noise.enumerated().filter({ $0.offset % 5 == 0 }).map(\.element) {
            XCTAssertEqual(try store.item(withIdentifier: item.uniqueIdentifier)?.attributes, item.attributes)
        }
        try store.checkIntegrity()
    }

    /// Decompressed blocks are cached by file, id and a hash of their bytes: a store made again at the same path,
    /// whose blocks have the same ids and other records, reads its own records, never the blocks cached from the
    /// store before it.
    func testAStoreMadeAgainAtTheSamePathReadsItsOwnBlocks() throws {
        let url = store.url
        let first = items(0..<300)
        try store.apply(first.map { .upsert($0) })
        XCTAssertEqual(try store.item(withIdentifier: "pkg:5")?.attributes, first[5].attributes)
        let firstBlocks = try blocks()
        try store.close()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        store = try IndexStore(url: url)
        let second = items(0..<300, prefix: "pkg").map { item in
            var changed = item
            changed.attributes["title"] = .string("other \(item.uniqueIdentifier)")
            return changed
        }
        try store.apply(second.map { .upsert($0) })
        XCTAssertEqual(try blocks().first?.id, firstBlocks.first?.id, "blocks under the same ids as before")
        for index in [0, 5, 150, 299] {
            XCTAssertEqual(try store.item(withIdentifier: "pkg:\(index)")?.attributes, second[index].attributes)
        }
    }

    /// The blocks' hash sees every byte and the length.
    func testTheBlockFingerprintSeesEveryByte() {
        var bytes = (0..<4_099).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        func hash(_ bytes: [UInt8]) -> UInt64 { bytes.withUnsafeBytes { RecordBlocks.fingerprint($0) } }
        let original = hash(bytes)
        var seen: Set<UInt64> = [original]
        for position in [0, 1, 7, 8, 2_048, 4_095, 4_096, 4_097, 4_098] {
            bytes[position] ^= 0x01
            XCTAssertTrue(seen.insert(hash(bytes)).inserted, "a change at \(position)")
            bytes[position] ^= 0x01
        }
        XCTAssertEqual(hash(bytes), original)
        XCTAssertTrue(seen.insert(hash(Array(bytes.dropLast()))).inserted, "one byte shorter")
        XCTAssertTrue(seen.insert(hash(bytes + [0])).inserted, "a zero byte longer")
        XCTAssertNotEqual(hash([]), hash([0]))
    }

    /// A write of more blocks than it holds (`Writer.blocksHeld`) compresses them on another thread while it goes
    /// on and inserts them at its end: records whose items the same write replaced or deleted meanwhile are counted
    /// dead in their block (a block with none left is not written), and every other record reads back whole.
    func testBlocksCompressedWhileTheWriteGoesOnCountWhatItDeletedMeanwhile() throws {
        // Records of about 1.1 KB of letters at random (they compress to ~60 %): four to a block as the writer
        // closes them, so ~1,100 items close more blocks than a write holds, and two or three to a row.
        let letters = Array("abcdefghijklmnopqrstuvwxyz ")
        func item(_ n: Int, version: Int = 0) -> StoredItem {
            var random = SplitMix64(state: UInt64(n))
            let text = String((0..<1_100).map { _ in letters[Int(random.next() % UInt64(letters.count))] })
            return StoredItem(uniqueIdentifier: "doc\(n)", domainIdentifier: nil, expirationDate: later,
                              attributes: ["title": .string("document \(n) v\(version)"), "textContent": .string(text)])
        }
        let count = 1_600
        var operations: [IndexOperation] = (0..<count).map { .upsert(item($0)) }
        // After every block of the first 800 items was closed: delete some, replace others (old id dead, new id
        // live), and delete a whole block's worth of consecutive items.
        operations += (0..<40).map { .delete(identifiers: ["doc\($0 * 7)"]) }
        operations += (0..<40).map { .upsert(item($0 * 7 + 3, version: 1)) }
        operations += [.delete(identifiers: (400..<420).map { "doc\($0)" })]
        try store.apply(operations)

        var expected: [String: StoredItem] = [:]
        for n in 0..<count { expected["doc\(n)"] = item(n) }
        for k in 0..<40 { expected["doc\(k * 7)"] = nil; expected["doc\(k * 7 + 3)"] = item(k * 7 + 3, version: 1) }
        for n in 400..<420 { expected["doc\(n)"] = nil }
        XCTAssertEqual(try store.count(), expected.count)
        for (uid, item) in expected {
            XCTAssertEqual(try store.item(withIdentifier: uid)?.attributes, item.attributes, uid)
        }
        for n in [0, 7, 400, 419] { XCTAssertNil(try store.item(withIdentifier: "doc\(n)")) }
        // Each block's dead count is its ids without a live row (ids are never reused).
        let blocks = try blocks()
        XCTAssertGreaterThan(blocks.count, Writer.blocksHeld, "the write compressed blocks while it went on")
        var deadBlocks = 0
        for block in blocks {
            let liveInBlock = try blockItems(block.id, block.last).count
            XCTAssertEqual(block.count - block.dead, liveInBlock, "block \(block.id)…\(block.last)")
            XCTAssertGreaterThan(liveInBlock, 0, "a block with no live record is not written")
            if block.dead > 0 { deadBlocks += 1 }
        }
        XCTAssertGreaterThan(deadBlocks, 30, "the deletions fell in blocks written after them")
        try store.checkIntegrity()
        // Later deletions still find their block.
        try store.apply((0..<count).map { .delete(identifiers: ["doc\($0)"]) })
        XCTAssertEqual(try self.blocks().count, 0)
        XCTAssertEqual(try store.count(), 0)
    }

    func testUpdatesAndDeletesCountAgainstTheirBlockAndTheMaintenanceCompactsSparseOnes() throws {
        let written = items(0..<640)
        try store.apply(written.map { .upsert($0) })
        let before = try blocks()
        let first = try XCTUnwrap(before.first)
        // The items of the first block, by id order.
        let firstItems = try blockItems(first.id, first.last)
        XCTAssertEqual(firstItems.count, first.count)
        // An update that merges attributes reads the old record from its block.
        let change = StoredItem(uniqueIdentifier: firstItems[0], domainIdentifier: nil, expirationDate: later,
                                attributes: ["title": .string("renamed zeppelin")])
        try store.apply([.upsert(change, isUpdate: true, clearedAttributes: [], clearedCustomKeys: [])])
        let updated = try XCTUnwrap(try store.item(withIdentifier: firstItems[0]))
        XCTAssertEqual(updated.attributes["title"], .string("renamed zeppelin"))
        let original = try XCTUnwrap(written.first { $0.uniqueIdentifier == firstItems[0] })
        XCTAssertEqual(updated.attributes["contentDescription"], original.attributes["contentDescription"], "kept from the block")
        XCTAssertEqual(try search("zeppelin"), [firstItems[0]])
        XCTAssertEqual(try blocks().first?.dead, 1)

        // Deleting more than half of a block: the maintenance moves the rest to their rows and drops the block.
        let half = first.count / 2 + 1
        try store.apply([.delete(identifiers: Array(firstItems[1..<half]))])
        XCTAssertEqual(try blocks().first?.dead, half)
        try store.performMaintenance()
        XCTAssertNotEqual(try blocks().first?.id, first.id, "the sparse block is gone")
        for uid in firstItems[half...] {
            let item = try XCTUnwrap(try store.item(withIdentifier: uid))
            XCTAssertEqual(item.attributes, written.first { $0.uniqueIdentifier == uid }?.attributes)
        }
        // Deleting every record of a block deletes it in the same transaction.
        let second = try XCTUnwrap(try blocks().first)
        let secondItems = try blockItems(second.id, second.last)
        try store.apply([.delete(identifiers: secondItems)])
        XCTAssertFalse(try blocks().contains { $0.id == second.id })
        XCTAssertEqual(try store.count(), 640 - (half - 1) - secondItems.count)
        try store.checkIntegrity()

        // Every item written again in large batches: the old blocks all go, the disk stays that of one copy.
        let sizeOnce = try store.read { try Int.fetchOne($0, sql: "SELECT sum(length(data)) FROM recordBlock") } ?? 0
        for _ in 0..<3 {
            try store.apply(written.map { .upsert($0) })
            try store.performMaintenance()
        }
        let sizeAfter = try store.read { try Int.fetchOne($0, sql: "SELECT sum(length(data)) FROM recordBlock") } ?? 0
        XCTAssertLessThan(Double(sizeAfter), Double(sizeOnce) * 1.4, "\(sizeAfter) bytes against \(sizeOnce)")
        XCTAssertTrue(try blocks().allSatisfy { $0.dead == 0 })
        XCTAssertEqual(try store.count(), 640)
        try store.checkIntegrity()
    }

    /// The maintenance looks for blocks more than half dead after every commit that deleted or replaced an item:
    /// through an index, never by reading the whole table (format 7's partial index was never used: SQLite does
    /// not use a partial index whose condition compares two columns, and each single delete read every block). A
    /// store written with the old index gets the new one when it is opened for writing.
    func testSparseBlocksAreFoundThroughAnIndex() throws {
        try store.apply(items(0..<640).map { .upsert($0) })
        let plan = { (sql: String) throws -> String in
            try self.store.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { try $0.stored(3) as String }.joined(separator: " ")
            }
        }
        let exists = "SELECT EXISTS(SELECT 1 FROM recordBlock WHERE \(RecordBlocks.sparseCondition))"
        let listed = "SELECT id, last, data FROM recordBlock WHERE \(RecordBlocks.sparseCondition) LIMIT 64"
        for sql in [exists, listed] {
            let used = try plan(sql)
            XCTAssertTrue(used.contains("USING INDEX recordBlock_dead"), used)
        }
        // What format 7's index looked like, put back as an older build leaves it: opening for writing replaces it.
        let url = directory.appendingPathComponent("index.sqlite")
        try store.writeTransaction { db in
            try db.execute(sql: "DROP INDEX recordBlock_dead")
            try db.execute(sql: "CREATE INDEX recordBlock_sparse ON recordBlock(id) WHERE dead * 2 > count")
        }
        try store.close()
        store = try IndexStore(url: url, create: false)
        let indexes = try store.read { try String.fetchAll($0, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'recordBlock'") }
        XCTAssertEqual(Set(indexes), ["recordBlock_dead", "recordBlock_catalog"])
        // And it finds what the old condition found: more than half of the first two blocks deleted, one record of
        // the third.
        let three = Array(try blocks().prefix(3))
        XCTAssertEqual(three.count, 3)
        var doomed: [String] = []
        for (n, block) in three.enumerated() {
            let uids = try blockItems(block.id, block.last)
            doomed += uids.prefix(n < 2 ? block.count / 2 + 1 : 1)
        }
        try store.apply([.delete(identifiers: doomed)])
        let sparse = try store.read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM recordBlock WHERE \(RecordBlocks.sparseCondition) ORDER BY id")
        }
        let byScan = try store.read { try Int64.fetchAll($0, sql: "SELECT id FROM recordBlock WHERE dead * 2 > count ORDER BY id") }
        XCTAssertEqual(sparse, three.prefix(2).map(\.id))
        XCTAssertEqual(sparse, byScan)
        try store.performMaintenance()
        XCTAssertTrue(try store.read { try Int64.fetchAll($0, sql: "SELECT id FROM recordBlock WHERE dead * 2 > count") }.isEmpty)
        try store.checkIntegrity()
    }

    /// Items replaced or deleted in the very batch that wrote them never reach a block; a batch naming an item
    /// twice keeps its last version.
    func testItemsReplacedOrDeletedInTheirOwnBatchAreNotWritten() throws {
        var operations: [IndexOperation] = items(0..<300).map { .upsert($0) }
        let again = items(0..<50, prefix: "pkg").map { item -> StoredItem in
            var item = item
            item.attributes["title"] = .string("second version")
            return item
        }
        operations += again.map { .upsert($0) }
        operations.append(.delete(identifiers: (50..<100).map { "pkg:\($0)" }))
        operations += items(300..<400).map { .upsert($0) }
        try store.apply(operations)
        XCTAssertEqual(try store.count(), 350)
        XCTAssertEqual(Set(try search("second version")), Set((0..<50).map { "pkg:\($0)" }))
        XCTAssertNil(try store.item(withIdentifier: "pkg:60"))
        XCTAssertEqual(try blocks().reduce(0) { $0 + $1.count } + (try inRows()), 350, "no record of a replaced item is kept")
        XCTAssertTrue(try blocks().allSatisfy { $0.dead == 0 })
        try store.checkIntegrity()
    }

    func testDamagedBlocksAreDamageNotATrap() throws {
        let records: [(id: Int64, plain: [UInt8])] = (0..<20).map { k in
            (Int64(100 + k * 3), ValueCodec.encode(attributes: ["title": .string("record \(k)")], custom: [:]))
        }
        let plain = RecordBlocks.encode(records)
        let decoded = try RecordBlocks.decode(plain, id: 100)
        for record in records { XCTAssertEqual(decoded.record(of: record.id).map(Array.init), record.plain) }
        XCTAssertNil(decoded.record(of: 101))
        var random = SplitMix64(state: 5)
        for cut in 0..<plain.count { _ = try? RecordBlocks.decode(Array(plain.prefix(cut)), id: 100) }
        for _ in 0..<3_000 {
            var damaged = plain
            damaged[Int(random.next() % UInt64(damaged.count))] = UInt8(truncatingIfNeeded: random.next())
            if let read = try? RecordBlocks.decode(damaged, id: 100) {
                for record in records { _ = read.record(of: record.id) }
            }
        }
        // A damaged frame in the file: reading the item fails with `.corruptIndex`, and the integrity check says so.
        for catalogued in [true, false] {
            try store.apply([.deleteAll])
            if catalogued {
                try store.apply(items(0..<200).map { .upsert($0) })
            } else {
                try withRowItems { try store.apply(items(0..<200).map { .upsert($0) }) }
            }
            let block = try XCTUnwrap(try blocks().first)
            let uid = try XCTUnwrap(try store.catalogueEntry(block.id)?.uid)
            try store.pool.write { try $0.execute(sql: "UPDATE recordBlock SET data = x'28B52FFD00DEADBEEF' WHERE id = ?", arguments: [block.id]) }
            XCTAssertThrowsError(try store.item(withIdentifier: uid)) { error in
                XCTAssertEqual((error as? EngineError)?.code, .corruptIndex)
            }
            XCTAssertThrowsError(try store.checkIntegrity())
        }
    }

    /// A catalogue block (format 13) reads back its items' fields with their records; damaged bytes are damage,
    /// never a trap.
    func testCatalogueBlocksRoundTripAndDamageIsNotATrap() throws {
        let records: [(id: Int64, plain: [UInt8])] = (0..<20).map { k in
            (Int64(100 + k * 3), ValueCodec.encode(attributes: ["title": .string("record \(k)")], custom: [:]))
        }
        let fields = (0..<20).map { (k: Int) -> ItemCatalog.Fields in
            let domain: String? = k % 3 == 0 ? nil : "d.\(k % 4)"
            let expires: Double = k % 5 == 0 ? 700_000_000 + Double(k) : ItemCatalog.Fields.never
            let hint: Double? = k % 2 == 0 ? Double(k) / 3 : nil
            let lastUsed: Double? = k % 7 == 0 ? 600_000_000.5 : nil
            let name = NameSignals(words: k % 4, first: k % 4 == 0 ? "" : "record", key: UInt64(k) &* 0x9E37_79B9_7F4A_7C15)
            let initials = [UInt8](repeating: UInt8(k), count: k % (Initials.byteCount + 1))
            return ItemCatalog.Fields(uid: "item-\(k)-" + String(repeating: "é", count: k), domain: domain, expires: expires,
                                      hint: hint, lastUsed: lastUsed, name: name, initials: initials)
        }
        let plain = RecordBlocks.encode(records, catalogue: fields)
        let raw = ItemCatalog.Fields.encodeRaw(fields)
        let decoded = try RecordBlocks.decode(plain, id: 100, rawFields: raw)
        XCTAssertEqual(decoded.catalogue.map(Array.init), fields)
        for record in records { XCTAssertEqual(decoded.record(of: record.id).map(Array.init), record.plain) }
        let recordsOnly = try RecordBlocks.decode(plain, id: 100)
        XCTAssertNil(recordsOnly.catalogue, "read without its raw fields: its records only")
        for record in records { XCTAssertEqual(recordsOnly.record(of: record.id).map(Array.init), record.plain) }
        XCTAssertNil(try RecordBlocks.decode(RecordBlocks.encode(records), id: 100).catalogue, "another block has none")
        var random = SplitMix64(state: 13)
        for cut in 0..<plain.count { _ = try? RecordBlocks.decode(Array(plain.prefix(cut)), id: 100, rawFields: raw) }
        for cut in 0..<raw.count { XCTAssertThrowsError(try RecordBlocks.decode(plain, id: 100, rawFields: Array(raw.prefix(cut)))) }
        XCTAssertThrowsError(try RecordBlocks.decode(plain, id: 100, rawFields: raw + [0]), "raw bytes left over")
        for _ in 0..<3_000 {
            var damaged = plain, damagedRaw = raw
            if random.next() % 2 == 0 {
                damaged[Int(random.next() % UInt64(damaged.count))] = UInt8(truncatingIfNeeded: random.next())
            } else {
                damagedRaw[Int(random.next() % UInt64(damagedRaw.count))] = UInt8(truncatingIfNeeded: random.next())
            }
            if let read = try? RecordBlocks.decode(damaged, id: 100, rawFields: damagedRaw) {
                for record in records { _ = read.record(of: record.id) }
                XCTAssertEqual(read.catalogue?.count ?? 20, 20)
            }
        }
    }
}

/// A catalogue block's head (its fields, ids and record lengths) closes a zstd block of its own inside the block's one
/// frame, so ranking signals, columns and ids are read without decompressing the records, while any zstd reader
/// still reads the frame whole.
final class RecordBlockHeadTests: XCTestCase {
    func sample(_ count: Int = 20) -> (plain: [UInt8], raw: [UInt8], fields: [ItemCatalog.Fields], ids: [Int64]) {
        let records: [(id: Int64, plain: [UInt8])] = (0..<count).map { k in
            (Int64(100 + k * 3), ValueCodec.encode(attributes: [
                "title": .string("record \(k)"),
                "contentDescription": .string("A package that does thing \(k) among many others, described at length " +
                                              String(repeating: "word\(k % 7) ", count: 30)),
            ], custom: [:]))
        }
        let fields = (0..<count).map { (k: Int) -> ItemCatalog.Fields in
            ItemCatalog.Fields(uid: "item-\(k)", domain: k % 2 == 0 ? "d.\(k % 3)" : nil, expires: ItemCatalog.Fields.never,
                               hint: k % 3 == 0 ? Double(k) : nil, lastUsed: nil,
                               name: NameSignals(words: 1, first: "record", key: UInt64(k) &* 0x9E37_79B9_7F4A_7C15),
                               initials: [UInt8](repeating: UInt8(k), count: k % (Initials.byteCount + 1)))
        }
        return (RecordBlocks.encode(records, catalogue: fields), ItemCatalog.Fields.encodeRaw(fields), fields, records.map(\.id))
    }

    /// What `plainHead` decompresses of `frame` to find its head.
    func headBytes(_ frame: [UInt8], dictionary: RecordDictionary? = nil) throws -> [UInt8] {
        try frame.withUnsafeBytes { bytes in
            try ValueCodec.plainHead(bytes, dictionary: { $0 == dictionary?.id ? dictionary : nil },
                                     enough: { RecordBlocks.headLength($0) != nil })
        }
    }

    func testTheHeadIsItsOwnZstdBlockAndTheFrameStillReadsWhole() throws {
        let (plain, raw, fields, ids) = sample()
        let head = try XCTUnwrap(plain.withUnsafeBytes { RecordBlocks.headLength($0) })
        XCTAssertLessThan(head * 4, plain.count, "the records are most of the block")
        let samples = (0..<1_200).map { k in
            ValueCodec.encode(attributes: ["title": .string("record \(k)"), "contentDescription": .string("word\(k % 7) thing \(k)")], custom: [:])
        }
        let dictionary = try XCTUnwrap(RecordDictionary.train(samples: samples))
        for dictionary in [nil, dictionary] {
            let frame = RecordBlocks.compressed(plain, dictionary: dictionary)
            XCTAssertTrue(ValueCodec.isCompressed(frame))
            XCTAssertLessThan(frame.count, plain.count)
            // One standard frame: read whole by the one-shot reader (and so by any version before this one).
            XCTAssertEqual(try ValueCodec.plain(frame, dictionary: { $0 == dictionary?.id ? dictionary : nil }), plain)
            // The head alone comes out: the records' zstd block is not decompressed.
            XCTAssertEqual(try headBytes(frame, dictionary: dictionary), Array(plain.prefix(head)))
            // A frame written in one block (before this version) comes out whole, and its head reads the same.
            let whole = ValueCodec.compressed(plain, dictionary: dictionary)
            XCTAssertEqual(try headBytes(whole, dictionary: dictionary), plain)
        }
        // The pooled contexts the streaming calls used are left clean: a frame without a dictionary after them is
        // made and read without one.
        let plainFrame = ValueCodec.compressed(plain, dictionary: nil)
        XCTAssertEqual(ValueCodec.dictionaryID(of: plainFrame), 0)
        XCTAssertEqual(try ValueCodec.plain(plainFrame), plain)
        // Read through a store: ids and fields, no records.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("engine-heads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try IndexStore(url: directory.appendingPathComponent("index.sqlite"))
        defer { try? store.close() }
        for frame in [RecordBlocks.compressed(plain, dictionary: nil), ValueCodec.compressed(plain, dictionary: nil), plain] {
            let decoded = try store.read { db in
                try frame.withUnsafeBytes { try RecordBlocks.decodeHead(frame: $0, id: 100, rawFields: raw, in: db) }
            }
            XCTAssertEqual(decoded.ids, ids)
            XCTAssertEqual(decoded.catalogue.map(Array.init), fields)
            XCTAssertFalse(decoded.hasRecords)
            XCTAssertNil(decoded.record(of: ids[0]), "a head has no records to give")
        }
    }

    func testDamagedFramesAreDamageNotATrap() throws {
        let (plain, raw, _, _) = sample()
        let frame = RecordBlocks.compressed(plain, dictionary: nil)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("engine-heads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try IndexStore(url: directory.appendingPathComponent("index.sqlite"))
        defer { try? store.close() }
        var random = SplitMix64(state: 29)
        try store.read { db in
            for cut in 0..<frame.count {
                _ = try? Array(frame.prefix(cut)).withUnsafeBytes { try RecordBlocks.decodeHead(frame: $0, id: 100, rawFields: raw, in: db) }
            }
            for _ in 0..<5_000 {
                var damaged = frame
                for _ in 0..<(1 + Int(random.next() % 3)) {
                    damaged[Int(random.next() % UInt64(damaged.count))] = UInt8(truncatingIfNeeded: random.next())
                }
                _ = try? damaged.withUnsafeBytes { try RecordBlocks.decodeHead(frame: $0, id: 100, rawFields: raw, in: db) }
                _ = try? self.headBytes(damaged)
            }
        }
        for cut in 0..<plain.count {
            let prefix = Array(plain.prefix(cut))
            XCTAssertNil(prefix.withUnsafeBytes { RecordBlocks.headLength($0) }.flatMap { $0 > cut ? $0 : nil })
        }
    }

    /// A large write's catalogue blocks are written with their heads apart (with the dictionary the write trained).
    func testALargeWritesBlocksKeepTheirHeadsApart() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("engine-heads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try IndexStore(url: directory.appendingPathComponent("index.sqlite"))
        defer { try? store.close() }
        let later = Date().addingTimeInterval(365 * 86_400)
        try store.apply(RecordDictionaryTests.items(0..<2_000, prefix: "pkg", expiring: later).map { .upsert($0) })
        let frames = try store.read { db in
            try Row.fetchAll(db, sql: "SELECT data FROM recordBlock WHERE catalog = 1").map { [UInt8](try $0.stored(0) as Data) }
        }
        XCTAssertGreaterThan(frames.count, 10)
        let dictionary = try store.read { try RecordDictionary.current(in: $0) }
        for frame in frames {
            let whole = try ValueCodec.plain(frame, dictionary: { $0 == dictionary?.id ? dictionary : nil })
            let head = try headBytes(frame, dictionary: dictionary)
            XCTAssertEqual(head.count, whole.withUnsafeBytes { RecordBlocks.headLength($0) })
            XCTAssertLessThan(head.count, whole.count)
        }
    }
}

extension RecordBlockHeadTests {
    /// A reader's first search ranks a large segment's items before its columns are read, from each candidate's
    /// block head (signals and initials, no records); the hits and their scores are those the columns give after.
    func testRankingFromTheHeadsIsRankingFromTheColumns() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("engine-heads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("index.sqlite")
        let store = try IndexStore(url: url)
        defer { try? store.close() }
        let later = Date().addingTimeInterval(365 * 86_400)
        let count = Int(ColumnCache.inlineSpan) * 2
        var items = RecordDictionaryTests.items(0..<count, prefix: "pkg", expiring: later)
        for k in stride(from: 0, to: count, by: 5) { items[k].attributes["rankingHint"] = .double(Double(k % 17)) }
        try store.apply(items.map { .upsert($0) })
        // Gone items inside blocks: a candidate's block says so.
        try store.apply([.delete(identifiers: stride(from: 3, to: count, by: 41).map { "pkg:\($0)" })])
        store.waitForMaintenance()
        store.waitUntilSettled()
        for query in ["python", "pars", "data client", "fast json", "graph-", "command line interface"] {
            let reader = try IndexStore(url: url)
            defer { try? reader.close() }
            let heads = RecordBlocks.headsRead.load(ordering: .relaxed)
            let fromHeads = try reader.search(query, options: TextSearchOptions(limit: 30))
            XCTAssertGreaterThan(RecordBlocks.headsRead.load(ordering: .relaxed), heads, "\(query): ranked from the heads")
            reader.waitForColumnReads()
            let fromColumns = try reader.search(query, options: TextSearchOptions(limit: 30))
            XCTAssertFalse(fromColumns.isEmpty, query)
            XCTAssertEqual(fromHeads.map(\.item.uniqueIdentifier), fromColumns.map(\.item.uniqueIdentifier), query)
            XCTAssertEqual(fromHeads.map(\.score), fromColumns.map(\.score), query)
            for hit in fromHeads {
                XCTAssertNotEqual(Int(hit.item.uniqueIdentifier.dropFirst(4)).map { $0 % 41 }, 3, "\(query): a deleted item")
            }
        }
    }
}
