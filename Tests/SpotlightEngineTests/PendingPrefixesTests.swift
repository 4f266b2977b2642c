import Foundation
import XCTest
import GRDB
@testable import SpotlightEngine

/// Small writes leave their prefix-list changes pending (`PendingPrefixes`): searches stay exact meanwhile, and the
/// maintenance or the next large write applies them.
final class PendingPrefixesTests: XCTestCase {
    var directory: URL!
    var store: IndexStore!
    let now = Date(timeIntervalSinceReferenceDate: 800_000_000)
    var later: Date { now.addingTimeInterval(365 * 86_400) }
    static let words = ["python", "pytest", "pyramid", "pythonic", "pyyaml", "pandas", "py", "ñandú", "tool"]

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pending-\(UUID().uuidString)")
        store = try IndexStore(url: directory.appendingPathComponent("test.sqlite"))
    }

    override func tearDownWithError() throws {
        try store?.close()
        try? FileManager.default.removeItem(at: directory)
    }

    func item(_ id: String, title: String, description: String? = nil, hint: Int? = nil, lastUsed: Date? = nil) -> StoredItem {
        var attributes: [String: AttributeValue] = ["title": .string(title)]
        attributes["contentDescription"] = description.map { .string($0) }
        attributes["rankingHint"] = hint.map { .int(Int64($0)) }
        attributes["lastUsedDate"] = lastUsed.map { .date($0) }
        return StoredItem(uniqueIdentifier: id, domainIdentifier: nil, expirationDate: later, attributes: attributes)
    }

    /// 400 items in one large write (their lists written by it).
    func load() throws {
        try store.apply((0..<400).map { i in
            let word = Self.words[i % Self.words.count]
            return .upsert(item("i\(i)", title: i % 3 == 0 ? "\(word) tool \(i)" : "tool \(i)",
                                description: i % 3 == 0 ? nil : "a \(word) helper", hint: (i * 37) % 101,
                                lastUsed: i % 5 == 0 ? now.addingTimeInterval(-Double(i) * 3_600) : nil))
        }, now: now)
        XCTAssertEqual(try pendingRows(), 0, "a large write updates the lists itself")
    }

    func pendingRows(_ store: IndexStore? = nil) throws -> Int {
        try (store ?? self.store).read { try PendingPrefixes.count($0) }
    }

    /// The list path (with the pending items) gives exactly what ranking every match gives.
    func assertListsAgree(_ message: String, in store: IndexStore? = nil, file: StaticString = #filePath, line: UInt = #line) throws {
        let store = store ?? self.store!
        for query in ["p", "py", "pyt", "pyth", "pytho", "python", "pa", "t", "to", "ñ", "ña", "ñand", "h"] {
            var fast = TextSearchOptions(limit: 20)
            fast.now = now
            var slow = fast
            slow.usePrefixLists = false
            XCTAssertEqual(try store.search(query, options: fast).map(\.item.uniqueIdentifier),
                           try store.search(query, options: slow).map(\.item.uniqueIdentifier), "\(query): \(message)",
                           file: file, line: line)
        }
    }

    func listItems(_ prefix: String) throws -> Set<Int64> {
        Set(try XCTUnwrap(store.read { try PrefixLists.list(prefix, db: $0) }).entries.map(\.item))
    }

    func itemID(_ uid: String) throws -> Int64 {
        try XCTUnwrap(store.catalogueID(uid))
    }

    func testSmallWritesLeaveTheirChangesPendingAndSearchesStayExact() throws {
        try load()
        // A new best item: pending, not in the truncated list of "py", yet first for "py" without ranking every match.
        try store.apply([.upsert(item("best", title: "py", hint: 100, lastUsed: now))], now: now)
        XCTAssertEqual(try pendingRows(), 1)
        XCTAssertFalse(try listItems("py").contains(itemID("best")), "the list has not taken it yet")
        let fallbacks = PrefixLists.fallbacks.value
        var options = TextSearchOptions(limit: 5)
        options.now = now
        XCTAssertEqual(try store.search("py", options: options).first?.item.uniqueIdentifier, "best")
        XCTAssertEqual(PrefixLists.fallbacks.value, fallbacks, "the list and the pending item answered")
        try assertListsAgree("one pending item")

        // Updates, deletes and new items, one small write at a time, against ranking every match after each.
        var random = SystemRandomNumberGenerator()
        var next = 400
        var searchedWithPending = 0
        for step in 0..<40 {
            let target = "i\(Int.random(in: 0..<400, using: &random))"
            let word = Self.words.randomElement(using: &random)!
            switch step % 4 {
            case 0:
                try store.apply([.upsert(item(target, title: "\(word) renamed \(step)", hint: Int.random(in: 0...100, using: &random)))], now: now)
            case 1:
                try store.apply([.delete(identifiers: [target])], now: now)
            case 2:
                try store.apply([.upsert(item("n\(next)", title: "\(word)\(step) new", hint: 100, lastUsed: now)),
                                 .upsert(item("n\(next + 1)", title: "other", description: "\(word) too"))], now: now)
                next += 2
            default:
                // An item of a pending write replaced, and one deleted, before the lists took them.
                try store.apply([.upsert(item("n\(next - 2)", title: "\(word) again", hint: 99))], now: now)
                try store.apply([.delete(identifiers: ["n\(next - 1)"])], now: now)
            }
            // (The maintenance applies them once writes pause for `IndexStore.listPause`: the searches below take
            // about that long, so some steps start with none waiting.)
            if try pendingRows() > 0 { searchedWithPending += 1 }
            try assertListsAgree("after step \(step)")
        }
        XCTAssertGreaterThan(searchedWithPending, 20, "most steps searched with changes pending")

        // The maintenance applies them: nothing waits, the lists hold the new best item, the results are the same.
        let before = try store.search("py", options: options).map(\.item.uniqueIdentifier)
        try store.performMaintenance()
        XCTAssertEqual(try pendingRows(), 0)
        XCTAssertTrue(try listItems("py").contains(itemID(before[0])))
        XCTAssertEqual(try store.search("py", options: options).map(\.item.uniqueIdentifier), before)
        try assertListsAgree("after the maintenance")
    }

    /// The maintenance's catch-up gives the writer up to an app's write: with one waiting, a transaction applies one
    /// chunk and ends, and a catch-up started because writes had paused stops there, leaving the rest for the next
    /// pause (traced: a commit that waited 120 ms for the disk had a catch-up start, which then held each of the
    /// next twenty writes up for its 2–5 ms slice). Searches stay exact with part of the rows applied.
    func testTheCatchUpGivesWayToAWriteThatWaits() throws {
        try load()
        // Counted as a write in flight from here on: the maintenance that the writes below schedule never takes
        // the rows itself (`writesPaused`).
        store.durableWritesInFlight.add(1, ordering: .relaxed)
        defer { store.durableWritesInFlight.subtract(1, ordering: .relaxed) }
        for n in 0..<30 {
            try store.apply([.upsert(item("i\(n * 3)", title: "pythonic again \(n)", hint: 100))], now: now)
        }
        XCTAssertEqual(try pendingRows(), 60, "each replacement left its old and its new version pending")

        XCTAssertFalse(try store.catchUpPrefixLists(yieldingToWrites: true), "it gave way")
        XCTAssertEqual(try pendingRows(), 60 - PendingPrefixes.catchUpChunk, "one chunk, then the write's turn")
        try assertListsAgree("partly caught up")

        // Not giving way (`performMaintenance`, or with `catchUpRows` waiting): to the end, a chunk per
        // transaction while a write waits.
        let transactions = store.writeTransactions.load(ordering: .relaxed)
        XCTAssertTrue(try store.catchUpPrefixLists())
        XCTAssertEqual(try pendingRows(), 0)
        // The rows left after the first chunk of each, a chunk per transaction (rounded up).
        func needed(_ rows: Int, chunk size: Int) -> Int { (rows - size + size - 1) / size }
        let chunks = needed(60, chunk: PendingPrefixes.catchUpChunk)
        XCTAssertGreaterThanOrEqual(store.writeTransactions.load(ordering: .relaxed) - transactions, chunks,
                                    "one chunk per transaction")
        try assertListsAgree("caught up")
        var options = TextSearchOptions(limit: 3)
        options.now = now
        XCTAssertEqual(try store.search("pythonic", options: options).count, 3)
    }

    func testALargeWriteTakesThePendingChangesWithIt() throws {
        try load()
        try store.apply([.upsert(item("best", title: "pynew thing", hint: 100, lastUsed: now))], now: now)
        try store.apply([.delete(identifiers: ["i0"])], now: now)
        XCTAssertEqual(try pendingRows(), 2)
        try store.apply((0..<100).map { .upsert(item("bulk\($0)", title: "zebra \($0)")) }, now: now)
        XCTAssertEqual(try pendingRows(), 0)
        XCTAssertTrue(try listItems("py").contains(itemID("best")))
        try assertListsAgree("after the large write")
    }

    func testAnotherStoreObjectSeesThePendingItems() throws {
        try load()
        let other = try IndexStore(url: store.url)
        defer { try? other.close() }
        try assertListsAgree("before", in: other)
        try store.apply([.upsert(item("best", title: "pynew thing", hint: 100, lastUsed: now))], now: now)
        var options = TextSearchOptions(limit: 3)
        options.now = now
        XCTAssertEqual(try other.search("pyn", options: options).map(\.item.uniqueIdentifier), ["best"])
        XCTAssertEqual(try other.search("p", options: options).first?.item.uniqueIdentifier, "best")
        try assertListsAgree("pending, read by another object", in: other)
    }

    func testDeleteAllClearsThePendingChanges() throws {
        try load()
        try store.apply([.upsert(item("best", title: "pynew thing", hint: 100))], now: now)
        XCTAssertEqual(try pendingRows(), 1)
        try store.apply([.deleteAll], now: now)
        XCTAssertEqual(try pendingRows(), 0)
        XCTAssertEqual(try store.search("py").count, 0)
    }

    /// More rows than `PendingPrefixes.limit` never wait: a small write past it updates the lists itself.
    func testSmallWritesPastTheLimitUpdateTheListsThemselves() throws {
        // (Lists with their entries, to see the write's item in one.)
        try withWholeLists {
        try store.apply([.upsert(item("a", title: "alpha"))], now: now)
        try store.pool.write { db in
            for i in 0..<PendingPrefixes.limit {
                try PendingPrefixes.record([.init(item: 1_000_000 + Int64(i), removed: true, terms: ["zzz": 1])], now: now, db: db)
            }
        }
        XCTAssertEqual(try pendingRows(), PendingPrefixes.limit + 1)
        try store.apply([.upsert(item("b", title: "alphabet"))], now: now)
        XCTAssertEqual(try pendingRows(), PendingPrefixes.limit + 1, "its own changes went to the lists")
        XCTAssertTrue(try listItems("alp").contains(itemID("b")))
        try assertListsAgree("past the limit")
        }
    }

    func testAFormat8StoreIsSearchedAsItIsAndUpgradedForWriting() throws {
        try load()
        let url = store.url
        try store.pool.write { db in
            try db.execute(sql: "DROP TABLE prefixPending; UPDATE meta SET value = 8 WHERE key = 'formatVersion'")
        }
        try store.close()
        store = nil
        let reader = try IndexStore(url: url, readOnly: true)
        try assertListsAgree("format 8, read-only", in: reader)
        try reader.close()
        store = try IndexStore(url: url)
        XCTAssertEqual(try store.read { try Int.fetchOne($0, sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'formatVersion'") },
                       IndexStore.formatVersion)
        try store.apply([.upsert(item("best", title: "pynew thing", hint: 100))], now: now)
        XCTAssertEqual(try pendingRows(), 1)
        try assertListsAgree("upgraded")
    }

    func testPendingTermsRoundTripAndDamageEndsThem() {
        let terms: [String: UInt8] = ["python": 0b0001, "ñandú": 0b0110, "日本語": 0b1000, "\u{1}own": 0b0001, "meta": 0b1_0000]
        let encoded = PendingPrefixes.encode(terms)
        // (The index's own terms and metadata-only terms make no list entries.)
        XCTAssertEqual(encoded.withUnsafeBytes { PendingPrefixes.decodeTerms($0) },
                       ["python": 0b0001, "ñandú": 0b0010, "日本語": 0b1000])
        for cut in 0..<encoded.count {
            let prefix = Array(encoded.prefix(cut))
            _ = prefix.withUnsafeBytes { PendingPrefixes.decodeTerms($0) }
        }
        let damaged: [UInt8] = [9, 3, 0x61, 0x62, 0x63, 0, 0xFF, 0xFF]
        XCTAssertEqual(damaged.withUnsafeBytes { PendingPrefixes.decodeTerms($0) }, [:])
    }

    /// The long prefixes' points found through hashes equal those of each prefix made text, and a name read back
    /// from a row (its key text gone, only its hash) gives the same keys as the name of the attributes.
    func testBestPointsOfLongPrefixesAndNamesReadBack() {
        let terms: [String: UInt8] = ["pythonic": 0b0001, "pytho": 0b0100, "ñandúes": 0b0010, "日本語のテキスト": 0b0001, "py": 0b0001]
        let hot: PrefixLists.HotPrefixes = ["pyth", "pytho", "python", "ñand", "日本語の", "pythonica", "zzzz"]
        let points = PrefixLists.bestPoints(terms, hot: hot)
        XCTAssertEqual(points.long.mapValues { ($0 * 100).rounded() / 100 },
                       ["pyth": 7.2, "pytho": 7.2, "python": 7.2, "ñand": 3.6, "日本語の": 7.2])
        let attributes: [String: AttributeValue] = ["title": .string("Pytho")]
        let name = NameSignals(attributes: attributes)
        let readBack = NameSignals(words: name.words, first: name.first, key: name.key)
        XCTAssertNil(readBack.keyText)
        for hot in [[], hot] as [PrefixLists.HotPrefixes] {
            let a = PrefixLists.bestPoints(terms, hot: hot, name: name)
            let b = PrefixLists.bestPoints(terms, hot: hot, name: readBack)
            XCTAssertEqual(a.short, b.short)
            XCTAssertEqual(a.long, b.long)
        }
    }
}

