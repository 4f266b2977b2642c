import Foundation
import SpotlightTestSupport
import XCTest
@testable import SpotlightEngine
import SpotlightQueryLanguage

/// Value columns (`ValueColumns`) name what the number and date index (`attrValue`) names: the same items for
/// every range, as writes come (a superset only by items deleted since), and the same search results.
final class ValueColumnTests: XCTestCase {
    var directory: URL!
    var store: IndexStore!
    let now = Date(timeIntervalSinceReferenceDate: 800_000_000)
    let day: TimeInterval = 86_400
    var random = SplitMix64(state: 20261126)

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("value-columns-\(UUID().uuidString)")
        store = try IndexStore(url: directory.appendingPathComponent("v.sqlite"))
    }

    override func tearDownWithError() throws {
        try store?.close()
        try? FileManager.default.removeItem(at: directory)
    }

    func item(_ n: Int) -> StoredItem {
        var attributes: [String: AttributeValue] = [
            "title": .string("item \(n) word\(n % 7)"),
            "contentModificationDate": .date(now.addingTimeInterval(-Double(random.next() % 1_000) * day)),
        ]
        // Some items have no value of the attribute, some several (an array's elements are indexed one by one),
        // some a number equal to another item's.
        if n % 3 != 0 { attributes["rankingHint"] = .int(Int64(random.next() % 20)) }
        if n % 5 == 0 {
            attributes["importantDates"] = .array([.date(now), .date(now.addingTimeInterval(-Double(n) * day))])
        }
        return StoredItem(uniqueIdentifier: "i\(n)", domainIdentifier: "d", expirationDate: now.addingTimeInterval(400 * day),
                          attributes: attributes)
    }

    /// The items `attrValue` names for a range, and those the column names (nil while it is not in memory).
    func lookups(_ attribute: String, _ lower: Double, _ upper: Double) throws -> (index: [Int64], column: [Int64]?, count: Int?, live: Set<Int64>) {
        try store.read { db in
            let lookup = TermLookup.range(attribute, lower: lower, upper: upper)
            let index = Array(try lookup.candidateIDs(db))
            let column = try store.valueColumns.column(attribute, db)
            var named: [Int64]? = nil
            if column != nil { named = Array(try lookup.candidateIDs(db, values: store.valueColumns)) }
            let count = try column.map { _ in try lookup.estimatedCount(db, values: store.valueColumns) }
            var live = Set<Int64>()
            try ItemCatalog(db).forEachID(in: Int64.min...Int64.max) { live.insert($0) }
            return (index, named, count, live)
        }
    }

    func randomRange(_ attribute: String) -> (Double, Double) {
        if attribute == "rankingHint" {
            let a = Double(random.next() % 22) - 1, b = Double(random.next() % 22) - 1
            return (min(a, b), max(a, b))
        }
        let a = now.timeIntervalSinceReferenceDate - Double(random.next() % 1_100) * day
        let b = now.timeIntervalSinceReferenceDate - Double(random.next() % 1_100) * day + day / 2
        return (min(a, b), max(a, b))
    }

    /// Checks every attribute's column against the index for random ranges: equal, or (`exact: false`) a
    /// superset whose extra items are all deleted ones.
    func check(exact: Bool, _ message: String, file: StaticString = #filePath, line: UInt = #line) throws {
        for attribute in ["contentModificationDate", "rankingHint", "importantDates"] {
            for _ in 0..<25 {
                let (lower, upper) = randomRange(attribute)
                let found = try lookups(attribute, lower, upper)
                let column = try XCTUnwrap(found.column, "\(message): \(attribute)'s column is in memory", file: file, line: line)
                if exact {
                    XCTAssertEqual(column, found.index, "\(message): \(attribute) in \(lower)...\(upper)", file: file, line: line)
                } else {
                    XCTAssertTrue(Set(column).isSuperset(of: found.index), "\(message): \(attribute) names every item the index does",
                                  file: file, line: line)
                    XCTAssertTrue(Set(column).subtracting(found.index).isDisjoint(with: found.live),
                                  "\(message): \(attribute)'s extra items are deleted ones", file: file, line: line)
                }
            }
        }
    }

    /// Reads each attribute's column (a first lookup schedules it) and waits for them.
    func readColumns() throws {
        for attribute in ["contentModificationDate", "rankingHint", "importantDates"] { _ = try lookups(attribute, 0, 1) }
        store.waitForColumnReads()
    }

    func testColumnsNameWhatTheValueIndexNames() throws {
        try store.apply((0..<400).map { .upsert(item($0)) }, now: now)
        let first = try lookups("rankingHint", 3, 9)
        XCTAssertNil(first.column, "the first range of an attribute reads the index; the column is read in the background")
        try readColumns()
        try check(exact: true, "after a bulk load")
        let all = try lookups("rankingHint", -.infinity, .infinity)
        XCTAssertEqual(all.column, all.index)
        XCTAssertEqual(all.count, try store.valueCount("rankingHint"))
        XCTAssertGreaterThan(try store.valueRowsAndGroups().groups, 0, "a large write's values are groups")
        for (lower, upper) in [(Double.nan, 5), (1, .nan), (9, 3)] {
            let none = try lookups("rankingHint", lower, upper)
            XCTAssertEqual(none.column, [], "\(lower)...\(upper) names nothing")
            XCTAssertEqual(none.index, [])
            XCTAssertEqual(none.count, 0)
        }
        XCTAssertNil(try lookups("rating", 0, 10).column, "an attribute no item has gets a column too, once read")
        store.waitForColumnReads()
        XCTAssertEqual(try lookups("rating", 0, 10).column, [])
    }

    func testColumnsFollowSmallWritesAndAreReadAgainAfterLargeOnes() throws {
        try store.apply((0..<300).map { .upsert(item($0)) }, now: now)
        try readColumns()
        // Single writes: new items, updates (a new id each), deletes, a partial update that keeps the old values.
        for round in 0..<40 {
            let n = Int(random.next() % 400)
            switch round % 4 {
            case 0, 1: try store.apply([.upsert(item(n))], now: now)
            case 2: try store.apply([.delete(identifiers: ["i\(n)"])], now: now)
            default:
                try store.apply([.upsert(StoredItem(uniqueIdentifier: "i\(n)", expirationDate: now.addingTimeInterval(400 * day),
                                                    attributes: ["title": .string("renamed \(n)")]),
                                         isUpdate: true, clearedAttributes: [], clearedCustomKeys: [])], now: now)
            }
            try check(exact: false, "after write \(round)")
        }
        // More new items than a search decodes itself: the index answers until the column is read again.
        try store.apply((1_000..<(1_000 + Int(ValueColumnCache.catchUpLimit) + 10)).map { .upsert(item($0)) }, now: now)
        let stale = try lookups("contentModificationDate", 0, .infinity)
        XCTAssertNil(stale.column, "a column far behind is read again")
        XCTAssertEqual(stale.index.count, try store.rowCount())
        try readColumns()
        try check(exact: true, "read again after a large write (without the deleted items)")
    }

    /// A filtered search and a query give the same items whether a range is read from the index or the column.
    func testSearchesAndQueriesAreTheSameWithColumns() throws {
        try store.apply((0..<500).map { .upsert(item($0)) }, now: now)
        let calendar = Calendar(identifier: .gregorian)
        func results() throws -> (hits: [[String]], items: [[String]]) {
            var hits: [[String]] = []
            var items: [[String]] = []
            for (lower, upper) in [(30.0, 300.0), (0, 900), (500, 510)] {
                let from = now.timeIntervalSinceReferenceDate - upper * day, to = now.timeIntervalSinceReferenceDate - lower * day
                let text = "contentModificationDate >= \(from) && contentModificationDate <= \(to)"
                let expression = try QueryParser.parse(text)
                let compiled = CompiledQuery(expression, now: now, calendar: calendar)
                for word in ["item", "word3", "w"] {
                    var options = TextSearchOptions(limit: 10)
                    options.now = now
                    options.filter = { compiled.matches(StoredItemQueryView(item: $0)) }
                    if case .candidates(let lookup) = QueryPlanner.plan(expression, now: now, calendar: calendar) {
                        options.filterLookup = lookup
                    }
                    hits.append(try store.search(word, options: options).map(\.item.uniqueIdentifier))
                }
                let plan = QueryPlanner.plan(expression, now: now, calendar: calendar)
                items.append(try store.items(matching: compiled, plan: plan, options: QueryOptions(now: now)).map(\.uniqueIdentifier).sorted())
            }
            return (hits, items)
        }
        let fromIndex = try results()
        store.waitForColumnReads()
        XCTAssertNotNil(try lookups("contentModificationDate", 0, 1).column)
        let fromColumn = try results()
        XCTAssertEqual(fromColumn.hits, fromIndex.hits)
        XCTAssertEqual(fromColumn.items, fromIndex.items)
        XCTAssertTrue(fromIndex.hits.contains { $0.count == 10 }, "filters that keep enough items fill a page")
        XCTAssertTrue(fromIndex.items.contains { !$0.isEmpty })
    }

    /// A column's compact forms name the same entries as the plain arrays they replace: values kept once per run
    /// when they repeat, or one per entry; items as 32-bit offsets, or whole when their range is wider.
    func testCompactValuesAndItemsNameTheSameEntries() {
        for distinct in [1, 3, 40, 1_000, 100_000] {
            let values = (0..<2_000).map { _ in Double(random.next() % UInt64(distinct)) * 0.5 - 10 }.sorted()
            let compact = ValueColumn.Values(values)
            XCTAssertEqual(compact.count, values.count)
            for _ in 0..<300 {
                var lower = Double(random.next() % UInt64(distinct + 2)) * 0.5 - 11
                var upper = Double(random.next() % UInt64(distinct + 2)) * 0.5 - 11
                if random.next() % 8 == 0 { swap(&lower, &upper) }
                let (a, b) = compact.bounds(lower, upper)
                let expected = values.indices.filter { lower <= values[$0] && values[$0] <= upper }
                XCTAssertEqual(Array(a..<b), expected, "\(distinct) distinct values, \(lower)...\(upper)")
            }
            XCTAssertTrue(compact.bounds(.nan, 1) == (0, 0) && compact.bounds(-100, .nan) == (0, 0))
        }
        XCTAssertTrue(ValueColumn.Values([]).bounds(-1, 1) == (0, 0))
        // Values that repeat at first and then seldom: runs, then one value per entry from where they stop paying.
        let late = [Double](repeating: 3, count: 1_500) + (0..<1_500).map { 4 + Double($0) }
        let switched = ValueColumn.Values(late)
        for (lower, upper) in [(3.0, 3.0), (2.0, 4.0), (3.0, 10.5), (100.0, 2_000.0), (-1.0, 9_999.0)] {
            let (a, b) = switched.bounds(lower, upper)
            XCTAssertEqual(Array(a..<b), late.indices.filter { lower <= late[$0] && late[$0] <= upper })
        }
        var unordered = ValueColumn.Values.Builder()
        for value in [1.0, 2, 2, 1] { unordered.append(value) }
        XCTAssertFalse(unordered.isOrdered, "rows out of order are told apart (the column then sorts them)")

        for ids in [(0..<500).map { Int64($0) * 7 + 1_000 }, [5, 1 << 40, 3, Int64.max / 2], [42], []] {
            var seen: [Int64] = []
            CompactIntegers(ids).forEach(in: 0..<ids.count) { seen.append($0) }
            XCTAssertEqual(seen, ids)
            XCTAssertEqual(CompactIntegers(ids).count, ids.count)
        }
    }
}
