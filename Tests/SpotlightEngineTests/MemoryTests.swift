import Foundation
import XCTest
import GRDB
import GRDBSQLite
@testable import SpotlightEngine

/// What a process keeps in memory: a large write's leftovers are released once its store is at rest
/// (`EngineMemory`, `IndexStore.releaseMemoryAtRest`).
/// A real SQLite file on disk.
final class MemoryTests: XCTestCase {
    var directory: URL!
    let later = Date().addingTimeInterval(365 * 86_400)

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("engine-memory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func items(_ count: Int, named prefix: String) -> [IndexOperation] {
        var random = SystemRandomNumberGenerator()
        return (0..<count).map { n in
            let words = (0..<40).map { _ in String(random.next() % 1_000_000_000, radix: 36) }
            return .upsert(StoredItem(uniqueIdentifier: "\(prefix)\(n)", domainIdentifier: nil, expirationDate: later,
                                      attributes: ["title": .string("item \(prefix)\(n)"),
                                                   "contentDescription": .string(words.joined(separator: " "))]))
        }
    }

    /// Bytes of page cache the store's writer connection holds.
    func writerCache(_ store: IndexStore) throws -> Int {
        store.pool.writeWithoutTransaction { db in
            var current: Int32 = 0, highest: Int32 = 0
            sqlite3_db_status(db.sqliteConnection, SQLITE_DBSTATUS_CACHE_USED, &current, &highest, 0)
            return Int(current)
        }
    }

    /// Opening a store fixes the C heap's mapped threshold (`EngineMemory.mappedThreshold`): a block of
    /// megabytes freed no longer raises glibc's threshold, so the next ones are mapped (and unmapped when freed)
    /// instead of coming from an arena, where a bulk load's left the process 74 MB larger after it.
    func testOpeningAStoreKeepsBlocksOfMegabytesMappedAfterOneIsFreed() throws {
        let store = try IndexStore(url: directory.appendingPathComponent("threshold.sqlite"))
        defer { try? store.close() }
        XCTAssertTrue(EngineMemory.thresholdsFixed.load(ordering: .relaxed), "set at the first open (glibc, no MALLOC_MMAP_THRESHOLD_)")
        // A mapped block of 24 MB freed: with glibc's own threshold, the next blocks below 24 MB came from the heap.
        let first = try XCTUnwrap(malloc(24 << 20))
        memset(first, 1, 24 << 20)
        free(first)
        func mapped() throws -> Int { try XCTUnwrap(EngineMemory.heap()).mapped }
        let mappedBefore = try mapped()
        let next = try XCTUnwrap(malloc(Int(EngineMemory.mappedThreshold) * 2))
        defer { free(next) }
        XCTAssertGreaterThanOrEqual(try mapped() - mappedBefore, Int(EngineMemory.mappedThreshold) * 2, "mapped")
        // Smaller blocks still come from the heap.
        let small = try XCTUnwrap(malloc(64 << 10))
        defer { free(small) }
        XCTAssertLessThan(try mapped() - mappedBefore, Int(EngineMemory.mappedThreshold) * 2 + (64 << 10))
    }

    /// After a bulk load, once writes pause: the writer's page cache is released and the heap trimmed; the store
    /// goes on working (its next writes and searches read the pages again).
    func testALargeWriteReleasesTheWritersPageCacheAndTrimsTheHeapAtRest() throws {
        let store = try IndexStore(url: directory.appendingPathComponent("bulk.sqlite"))
        defer { try? store.close() }
        let trims = EngineMemory.trims.load(ordering: .relaxed)
        try store.apply(items(3_000, named: "bulk-"))
        XCTAssertGreaterThan(try writerCache(store), 1 << 20, "the bulk load filled the writer's cache (else this test shows nothing)")
        store.waitForMaintenance()
        store.waitUntilSettled()
        XCTAssertLessThan(try writerCache(store), 256 << 10, "released at rest")
        XCTAssertGreaterThan(EngineMemory.trims.load(ordering: .relaxed), trims, "the heap was trimmed")
        XCTAssertFalse(store.memoryToRelease.load(ordering: .relaxed))

        try store.apply([.upsert(StoredItem(uniqueIdentifier: "after", domainIdentifier: nil, expirationDate: later,
                                            attributes: ["title": .string("written after the release")]))])
        XCTAssertEqual(try store.count(now: Date()), 3_001)
        XCTAssertEqual(try store.search("release").map(\.item.uniqueIdentifier), ["after"])
        XCTAssertTrue(try store.search("bulk-17").map(\.item.uniqueIdentifier).contains("bulk-17"))
        // Terms the load brought, written again after the cache was emptied: their frequencies add up.
        try store.apply([.upsert(StoredItem(uniqueIdentifier: "again", domainIdentifier: nil, expirationDate: later,
                                            attributes: ["title": .string("bulk-17 again")]))])
        XCTAssertEqual(try store.documentFrequency(of: "bulk"), 3_001)
        XCTAssertTrue(Set(try store.search("bulk-17").map(\.item.uniqueIdentifier)).isSuperset(of: ["bulk-17", "again"]))
    }

    /// Readers keep a smaller page cache than the writer: each of the pool's readers has its own.
    func testReadersKeepSmallerPageCachesThanTheWriter() throws {
        let store = try IndexStore(url: directory.appendingPathComponent("caches.sqlite"))
        defer { try? store.close() }
        XCTAssertEqual(try store.pool.write { try Int.fetchOne($0, sql: "PRAGMA cache_size") }, -32_768)
        XCTAssertEqual(try store.pool.read { try Int.fetchOne($0, sql: "PRAGMA cache_size") }, -IndexStore.readerCacheKB)
    }

    /// A rest that finds a write of the process waiting or running releases nothing (it would wait behind that
    /// write on the checkpoints' queue); the next rest does.
    func testARestWithAWriteInFlightLeavesTheReleaseToTheNextRest() throws {
        let store = try IndexStore(url: directory.appendingPathComponent("inflight.sqlite"))
        defer { try? store.close() }
        try store.apply(items(3_000, named: "bulk-"))
        store.waitForMaintenance()
        store.waitUntilSettled()
        XCTAssertFalse(store.memoryToRelease.load(ordering: .relaxed), "released at the first rest")
        // Another large write, then a rest while one of the process's writes is (said to be) in flight.
        store.durableWritesInFlight.add(1, ordering: .relaxed)
        try store.apply(items(500, named: "more-"))
        store.waitUntilSettled()
        XCTAssertTrue(store.memoryToRelease.load(ordering: .relaxed), "left for the next rest")
        let kept = try writerCache(store)
        store.durableWritesInFlight.subtract(1, ordering: .relaxed)
        try store.apply(items(1, named: "one-"))
        store.waitUntilSettled()
        XCTAssertFalse(store.memoryToRelease.load(ordering: .relaxed))
        let released = try writerCache(store)
        XCTAssertLessThan(released, 256 << 10, "released at the next rest")
        XCTAssertGreaterThan(kept, released, "kept while a write was in flight")
        store.waitForMaintenance()
        XCTAssertEqual(try store.count(now: Date()), 3_501)
    }

    /// Single writes leave nothing to release: the writer keeps its cache between them.
    func testSmallWritesKeepTheWritersPageCache() throws {
        let store = try IndexStore(url: directory.appendingPathComponent("small.sqlite"))
        defer { try? store.close() }
        for (n, operation) in items(20, named: "one-").enumerated() {
            try store.apply([operation])
            if n == 9 { store.waitUntilSettled() }
        }
        store.waitForMaintenance()
        store.waitUntilSettled()
        XCTAssertFalse(store.memoryToRelease.load(ordering: .relaxed))
        XCTAssertGreaterThan(try writerCache(store), 0, "kept")
        XCTAssertEqual(try store.count(now: Date()), 20)
    }

    /// Ranking signals most items lack are kept sparse, and read back the same, value for value, at every
    /// position (counts that are no multiple of 64, none present, all present, one in eight).
    func testSparseSignalColumnsReadBackEveryValue() {
        var random = SystemRandomNumberGenerator()
        for (count, oneIn) in [(0, 1), (1, 1), (63, 1_000), (64, 2), (1_000, 50), (4_097, 9), (4_097, 8), (10_000, 1), (777, 1_000_000)] {
            let values: [Double] = (0..<count).map { _ in
                random.next() % UInt64(oneIn) == 0 ? Double(random.next() % 1_000_000) / 7 : .nan
            }
            let column = OptionalDoubleColumn(values)
            XCTAssertEqual(column.count, count)
            let present = values.filter { !$0.isNaN }.count
            XCTAssertEqual(column.isSparse, present * 8 < count, "\(count) values, \(present) present")
            for (i, value) in values.enumerated() {
                if value.isNaN {
                    XCTAssertTrue(column[i].isNaN, "\(count)/\(oneIn): \(i) has none")
                } else {
                    XCTAssertEqual(column[i], value, "\(count)/\(oneIn): \(i)")
                }
            }
        }
    }

    /// Columns read with others' help (a merge's, from the columns of the segments it replaced) hold what columns
    /// read from the rows alone hold: identifiers, signals and names, item for item, deleted items absent.
    func testColumnsBuiltFromKnownColumnsEqualColumnsReadFromTheRows() throws {
        let store = try IndexStore(url: directory.appendingPathComponent("known.sqlite"))
        defer { try? store.close() }
        let now = Date()
        for part in 0..<3 {
            try store.apply((0..<300).map { n in
                var attributes: [String: AttributeValue] = ["title": .string("known \(n % 13) item")]
                if n % 5 == 0 { attributes["rankingHint"] = .double(Double(n % 100)) }
                return .upsert(StoredItem(uniqueIdentifier: "k\(part)-\(n)-\(String(repeating: "é", count: n % 7))",
                                          domainIdentifier: nil, expirationDate: later, attributes: attributes))
            }, now: now)
        }
        try store.apply([.delete(identifiers: ["k1-10-" + String(repeating: "é", count: 3), "k2-299-" + String(repeating: "é", count: 5)])], now: now)
        try store.read { db in
            var ids: [Int64] = []
            try ItemCatalog(db).forEachID(in: Int64.min...Int64.max) { ids.append($0) }
            let (first, last) = (ids.first!, ids.last!)
            let whole = try SegmentColumns(db, firstItem: first, lastItem: last)
            let middle = (first + last) / 2
            let parts = [try SegmentColumns(db, firstItem: first + 50, lastItem: middle),
                         try SegmentColumns(db, firstItem: middle + 100, lastItem: last - 20)]
            let helped = try SegmentColumns(db, firstItem: first, lastItem: last, known: parts)
            var present = 0
            for i in 0..<Int(last - first + 1) {
                XCTAssertEqual(helped.present[i], whole.present[i], "item \(i)")
                guard whole.present[i] else { continue }
                present += 1
                XCTAssertEqual(helped.uid(at: i), whole.uid(at: i))
                XCTAssertEqual(helped.hint[i].isNaN ? nil : helped.hint[i], whole.hint[i].isNaN ? nil : whole.hint[i])
                XCTAssertEqual(helped.name(at: i), whole.name(at: i))
            }
            XCTAssertEqual(present, 898)
        }
    }

    func testTheHeapReportCountsWhatIsAllocatedAndFreed() throws {
        let before = try XCTUnwrap(EngineMemory.heap(), "glibc reports its heap")
        XCTAssertGreaterThanOrEqual(before.system, before.free)
        // 4,096 chunks of 16 KB (below the size glibc maps alone), written so they are resident.
        let chunks = (0..<4_096).map { _ -> UnsafeMutableRawPointer in
            let chunk = malloc(16_384)!
            memset(chunk, 1, 16_384)
            return chunk
        }
        let allocated = try XCTUnwrap(EngineMemory.heap())
        XCTAssertGreaterThanOrEqual((allocated.system - allocated.free) - (before.system - before.free), 60_000_000,
                                    "64 MB more in use")
        chunks.forEach { free($0) }
        let freed = try XCTUnwrap(EngineMemory.heap())
        XCTAssertGreaterThanOrEqual((allocated.system - allocated.free) - (freed.system - freed.free), 60_000_000,
                                    "64 MB less in use (free, or given back)")
    }

    func testIdentifierOffsetsReadBackNarrowAndWide() {
        let offsets = [0, 5, 5, 17, 4_000_000_000]
        let narrow = CompactIntegers(offsets)
        XCTAssertEqual(offsets.indices.map { Int(narrow[$0]) }, offsets)
        let wide = CompactIntegers(offsets + [Int(UInt32.max) + 10])
        XCTAssertEqual((0..<6).map { Int(wide[$0]) }, offsets + [Int(UInt32.max) + 10])
    }

    /// Reading a large segment's columns in the background gives what it left free back to the system.
    func testLargeColumnReadsTrimTheHeap() throws {
        ColumnCache.trimmedAfter.store(1_000, ordering: .relaxed)
        defer { ColumnCache.trimmedAfter.store(65_536, ordering: .relaxed) }
        let store = try IndexStore(url: directory.appendingPathComponent("columns.sqlite"))
        defer { try? store.close() }
        // Past `ColumnCache.inlineSpan` ids: read in the background.
        try store.apply(items(Int(ColumnCache.inlineSpan) + 500, named: "column-"))
        store.waitForMaintenance()
        store.waitUntilSettled()
        let trims = EngineMemory.trims.load(ordering: .relaxed)
        // A fresh reader process's first search: it reads the columns in the background.
        let reader = try IndexStore(url: directory.appendingPathComponent("columns.sqlite"))
        defer { try? reader.close() }
        XCTAssertFalse(try reader.search("item").isEmpty)
        reader.waitForColumnReads()
        XCTAssertGreaterThan(EngineMemory.trims.load(ordering: .relaxed), trims, "trimmed after the columns were read")
        XCTAssertEqual(try reader.search("column-17").first?.item.uniqueIdentifier, "column-17")
    }
}
