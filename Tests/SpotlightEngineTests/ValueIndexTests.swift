import Foundation
import GRDB
import SpotlightQueryLanguage
import SpotlightTestSupport
import XCTest
@testable import SpotlightEngine

/// The number and date index's groups (`ValueIndex`, format 14): a large write's new items with one value of one
/// attribute are one group of ids (at most `groupCapacity`), single writes add rows, and every read names what a row
/// per entry would: ranges, counts, the ordered entries a value column is built from, through deletes at every place
/// of a group, deletes of a group's last item, deletes within the write that added the items, and an upgrade from
/// format 13. Real SQLite files on disk.
final class ValueIndexTests: XCTestCase {
    var directory: URL!
    var store: IndexStore!
    let now = Date(timeIntervalSinceReferenceDate: 800_000_000)

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("value-index-\(UUID().uuidString)")
        store = try IndexStore(url: directory.appendingPathComponent("v.sqlite"))
    }

    override func tearDownWithError() throws {
        try store?.close()
        try? FileManager.default.removeItem(at: directory)
    }

    func item(_ n: Int, hint: Int? = nil, flag: Bool = true) -> StoredItem {
        var attributes: [String: AttributeValue] = ["title": .string("item \(n)"), "isLocal": .bool(flag)]
        if let hint { attributes["rankingHint"] = .int(Int64(hint)) }
        return StoredItem(uniqueIdentifier: "i\(n)", expirationDate: now.addingTimeInterval(86_400), attributes: attributes)
    }

    /// The identifiers of the live items the index names for `attribute` in `lower...upper`, sorted, and the
    /// entries of `attribute` in the index's order as (value, identifier).
    func named(_ attribute: String, _ lower: Double, _ upper: Double) throws -> [String] {
        try store.read { db in
            try TermLookup.range(attribute, lower: lower, upper: upper).candidateIDs(db).compactMap {
                try ItemCatalog(db).entry(id: $0)?.uid
            }.sorted()
        }
    }

    func entries(_ attribute: String) throws -> [String] {
        let entries = try store.valueEntries(attribute)
        XCTAssertEqual(entries.map { [$0.value, Double($0.item)] }, entries.sorted { ($0.value, $0.item) < ($1.value, $1.item) }.map { [$0.value, Double($0.item)] },
                       "in order of value, then item")
        return try store.read { db in try entries.map { "\($0.value) \(try ItemCatalog(db).entry(id: $0.item)?.uid ?? "gone")" } }
    }

    func testGroupsSplitAtTheirCapacityAndLoseDeletedItemsAtEveryPlace() throws {
        let count = 2 * ValueIndex.groupCapacity + 452
        try store.apply((0..<count).map { .upsert(item($0, hint: $0 % 3)) }, now: now)
        // One attribute with one value for all (three groups), one with three values (one group each).
        XCTAssertEqual(try store.valueRowsAndGroups().rows, 0)
        XCTAssertEqual(try store.valueRowsAndGroups().groups, 3 + 3)
        XCTAssertEqual(try store.valueCount("isLocal"), count)
        XCTAssertEqual(try store.valueCount("rankingHint", 1, 1), (0..<count).filter { $0 % 3 == 1 }.count)
        XCTAssertEqual(try store.read { try ValueIndex($0).count(code: AttributeValueIndex.code("isLocal"), lower: 0, upper: 1, cap: 10) },
                       ValueIndex.groupCapacity, "a capped count stops at the group that reaches the cap")
        // Deletes: the first item of a group, one in the middle, the last of a group, and every item of the last
        // group but one.
        let ids = try store.catalogueIDs()
        let first = 0, middle = 700, last = ValueIndex.groupCapacity - 1
        var deleted = Set([first, middle, last])
        deleted.formUnion((2 * ValueIndex.groupCapacity)..<(count - 1))
        try store.apply(deleted.sorted().map { .delete(identifiers: ["i\($0)"]) }, now: now)
        let left = (0..<count).filter { !deleted.contains($0) }
        XCTAssertEqual(try named("isLocal", 1, 1), left.map { "i\($0)" }.sorted())
        XCTAssertEqual(try named("rankingHint", 2, 2), left.filter { $0 % 3 == 2 }.map { "i\($0)" }.sorted())
        XCTAssertEqual(try store.valueCount("isLocal"), left.count)
        XCTAssertEqual(try store.valueRowsAndGroups().groups, 6, "the last group keeps its one item")
        try store.apply([.delete(identifiers: ["i\(count - 1)"])], now: now)
        XCTAssertEqual(try store.valueRowsAndGroups().groups, 5, "a group goes with its last item")
        XCTAssertEqual(try entries("isLocal").count, left.count - 1)
        XCTAssertEqual(ids.count, count)
        try store.checkIntegrity()
    }

    func testRowsAndGroupsOfOneValueReadInOrderAndAsTheyWouldAsRows() throws {
        // Large and single writes in turn, with the same values: groups and rows of one value interleave by id.
        var random = SplitMix64(state: 14)
        var expected: [Int: Int] = [:]   // item → hint
        var n = 0
        for round in 0..<6 {
            let batch = round % 2 == 0 ? 150 : 1
            var operations: [IndexOperation] = []
            for _ in 0..<batch {
                let hint = Int(random.next() % 4)
                operations.append(.upsert(item(n, hint: hint)))
                expected[n] = hint
                n += 1
            }
            // Some of the write's own new items deleted again, and some earlier ones updated with a new value.
            if batch > 1 {
                for k in stride(from: n - batch, to: n, by: 17) {
                    operations.append(.delete(identifiers: ["i\(k)"]))
                    expected[k] = nil
                }
                for k in stride(from: 0, to: n - batch, by: 13) where expected[k] != nil {
                    let hint = Int(random.next() % 4)
                    operations.append(.upsert(item(k, hint: hint)))
                    expected[k] = hint
                }
            }
            try store.apply(operations, now: now)
            for hint in 0..<4 {
                XCTAssertEqual(try named("rankingHint", Double(hint), Double(hint)),
                               expected.filter { $0.value == hint }.map { "i\($0.key)" }.sorted(), "round \(round), hint \(hint)")
            }
            XCTAssertEqual(try store.valueCount("rankingHint"), expected.count)
            XCTAssertEqual(try entries("rankingHint").count, expected.count)
        }
        let (rows, groups) = try store.valueRowsAndGroups()
        XCTAssertGreaterThan(rows, 0)
        XCTAssertGreaterThan(groups, 0)
        // The same through a value column and a query, as a store of rows answers.
        let rowStore = try IndexStore(url: directory.appendingPathComponent("rows.sqlite"))
        defer { try? rowStore.close() }
        try withRowItems { try rowStore.apply(expected.keys.sorted().map { .upsert(item($0, hint: expected[$0])) }, now: now) }
        XCTAssertEqual(try rowStore.valueRowsAndGroups().groups, 0)
        for query in ["rankingHint >= 2", "rankingHint == 0 || rankingHint == 3", "rankingHint < 1 && isLocal == 1"] {
            let expression = try QueryParser.parse(query)
            func found(_ store: IndexStore) throws -> [String] {
                try store.items(matching: CompiledQuery(expression, now: now, calendar: utcCalendar),
                                plan: QueryPlanner.plan(expression, now: now, calendar: utcCalendar),
                                options: QueryOptions(limit: 0, now: now)).map(\.uniqueIdentifier).sorted()
            }
            XCTAssertEqual(try found(store), try found(rowStore), query)
        }
        _ = try store.read { try store.valueColumns.column("rankingHint", $0) }
        store.waitForColumnReads()
        let column = try store.read { db -> [Int64] in
            var ids: [Int64] = []
            try XCTUnwrap(try store.valueColumns.column("rankingHint", db)).forEach(lower: 1, upper: 2) { ids.append($0) }
            return ids
        }
        let index = try store.read { Array(try TermLookup.range("rankingHint", lower: 1, upper: 2).candidateIDs($0)) }
        XCTAssertEqual(Set(column), Set(index), "the column built from rows and groups names what they name")
    }

    func testDamagedGroupsReadAsDamageNeverATrap() throws {
        try store.apply((0..<300).map { .upsert(item($0, hint: $0 % 5)) }, now: now)
        let groups = try store.read { try Row.fetchAll($0, sql: "SELECT attr, value, first, last, count, items FROM valueGroup") }
        XCTAssertFalse(groups.isEmpty)
        var random = SplitMix64(state: 99)
        var failures = 0
        for trial in 0..<300 {
            let group = groups[Int(random.next() % UInt64(groups.count))]
            var bytes = [UInt8](try group.stored(5) as Data)
            var count: Int64 = try group.stored(4), last: Int64 = try group.stored(3)
            switch trial % 4 {
            case 0 where !bytes.isEmpty: bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
            case 1: bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count + 1))))
            case 2: count = Int64(truncatingIfNeeded: random.next() % 3_000) - 5
            default: last = Int64(truncatingIfNeeded: random.next())
            }
            try store.writeTransaction { db in
                try db.execute(sql: "UPDATE valueGroup SET items = ?, count = ?, last = ? WHERE attr = ? AND value = ? AND first = ?",
                               arguments: [Data(bytes), count, last, try group.stored(0) as Int64, try group.stored(1) as Double,
                                           try group.stored(2) as Int64])
            }
            do {
                _ = try store.read { try TermLookup.range("rankingHint", lower: -1, upper: 10).candidateIDs($0) }
                _ = try store.valueEntries("rankingHint")
                _ = try store.valueCount("rankingHint")
            } catch let error as EngineError {
                XCTAssertEqual(error.code, .corruptIndex)
                failures += 1
            }
            try store.writeTransaction { db in
                try db.execute(sql: "UPDATE valueGroup SET items = ?, count = ?, last = ? WHERE attr = ? AND value = ? AND first = ?",
                               arguments: [try group.stored(5) as Data, try group.stored(4) as Int64, try group.stored(3) as Int64,
                                           try group.stored(0) as Int64, try group.stored(1) as Double, try group.stored(2) as Int64])
            }
        }
        XCTAssertGreaterThan(failures, 100, "most damage is found")
        XCTAssertEqual(try named("rankingHint", 0, 0).count, 60, "restored, the groups read back")
    }

    /// A format 13 store keeps its values as rows and is upgraded when opened for writing: its later large writes
    /// group their values, and both read back.
    func testAFormat13StoreIsUpgradedAndKeepsItsRows() throws {
        try withRowItems { try store.apply((0..<200).map { .upsert(item($0, hint: $0 % 4)) }, now: now) }
        try store.writeTransaction { db in
            try db.execute(sql: "DROP TABLE valueGroup; UPDATE meta SET value = 13 WHERE key = 'formatVersion'")
        }
        try store.close()
        // Read-only first: searched as it is.
        var readOnly = Configuration()
        readOnly.readonly = true
        let url = directory.appendingPathComponent("v.sqlite")
        let pool = try DatabasePool(path: url.path, configuration: readOnly)
        try IndexStore.checkFormat(pool, url: url)
        XCTAssertEqual(try pool.read { try TermLookup.range("rankingHint", lower: 1, upper: 1).candidateIDs($0).count }, 50)
        XCTAssertEqual(try pool.read { try ValueIndex($0).count(code: AttributeValueIndex.code("rankingHint"), lower: 0, upper: 3, cap: .max) }, 200)
        try pool.close()
        store = try IndexStore(url: url)
        XCTAssertEqual(try store.read { try Int.fetchOne($0, sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'formatVersion'") },
                       IndexStore.formatVersion)
        try store.apply((200..<400).map { .upsert(item($0, hint: $0 % 4)) }, now: now)
        let (rows, groups) = try store.valueRowsAndGroups()
        XCTAssertEqual(rows, 400, "the old rows stay (200 hints, 200 flags)")
        XCTAssertEqual(groups, 5)
        XCTAssertEqual(try named("rankingHint", 1, 1), (0..<400).filter { $0 % 4 == 1 }.map { "i\($0)" }.sorted())
        try store.apply((0..<400).filter { $0 % 2 == 0 }.map { .delete(identifiers: ["i\($0)"]) }, now: now)
        XCTAssertEqual(try named("rankingHint", 0, 3), (0..<400).filter { $0 % 2 == 1 }.map { "i\($0)" }.sorted())
        XCTAssertEqual(try entries("isLocal").count, 200)
    }
}
