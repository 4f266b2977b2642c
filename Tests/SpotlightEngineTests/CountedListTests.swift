import Foundation
import GRDB
import SpotlightTestSupport
import XCTest
@testable import SpotlightEngine

/// Prefix lists in format 20: keys written as steps from the key before, and small complete lists stored as their
/// count alone (`PrefixLists.countsCompleteLists`), built from the postings when a write takes them past their
/// capacity.
final class CountedListTests: XCTestCase {
    var directory: URL!
    var store: IndexStore!
    let now = Date(timeIntervalSinceReferenceDate: 800_000_000)

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("counted-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try IndexStore(url: directory.appendingPathComponent("index.sqlite"))
    }

    override func tearDownWithError() throws {
        try? store?.close()
        try? FileManager.default.removeItem(at: directory)
    }

    func item(_ id: String, title: String, hint: Double? = nil) -> StoredItem {
        var attributes: [String: AttributeValue] = ["title": .string(title)]
        if let hint { attributes["rankingHint"] = .double(hint) }
        return StoredItem(uniqueIdentifier: id, domainIdentifier: nil, expirationDate: .distantFuture, attributes: attributes)
    }

    func search(_ text: String, limit: Int = 20, lists: Bool = true) throws -> [String] {
        var options = TextSearchOptions(limit: limit)
        options.now = now
        options.usePrefixLists = lists
        return try store.search(text, options: options).map(\.item.uniqueIdentifier)
    }

    /// The stored row of a prefix: its count when stored as a count, else its entries.
    func row(_ prefix: String) throws -> (count: Int?, entries: [PrefixLists.Entry], complete: Bool)? {
        try store.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT complete, entries FROM prefixTop WHERE prefix = ?", arguments: [prefix]) else {
                return nil
            }
            let data: Data = try row.stored(1)
            return (PrefixLists.storedCount(Array(data)), PrefixLists.decode(data), try row.stored(0))
        }
    }

    /// Filler items whose words share no prefix with `zeb…` or `yak…`, so that a write is large enough to be
    /// prepared on every core and to update the lists itself.
    func filler(_ tag: String, _ count: Int) -> [IndexOperation] {
        (0..<count).map { .upsert(item("f\(tag)\($0)", title: "filler\(tag) \($0)")) }
    }

    func assertSearchesAgree(_ message: String, file: StaticString = #filePath, line: UInt = #line) throws {
        for prefix in ["z", "ze", "zeb", "zebr", "y", "ya", "yak", "f"] {
            for limit in [5, 20, 0] {
                XCTAssertEqual(try search(prefix, limit: limit), try search(prefix, limit: limit, lists: false),
                               "\(message): \(prefix), limit \(limit)", file: file, line: line)
            }
        }
    }

    // MARK: - Encoding

    /// Keys come back bit for bit, in order or not, positive, negative, zero and tied; identifiers share starts.
    func testEntriesRoundTripWithKeysAsSteps() {
        var random = SplitMix64(state: 20)
        for round in 0..<200 {
            let count = Int(random.next() % 80)
            var entries: [PrefixLists.Entry] = (0..<count).map { i in
                let key: Double
                switch random.next() % 6 {
                case 0: key = 0
                case 1: key = -Double(random.next() % 1_000) / 7
                case 2: key = 4.2
                default: key = Double(random.next() % 100_000) / 13
                }
                return PrefixLists.Entry(item: Int64(random.next() % 1_000_000 + 1), key: key, uid: "pypi:item-\(random.next() % 500)-\(i)")
            }
            if round % 2 == 0 { entries.sort(by: PrefixLists.Entry.precedes) }
            let encoded = PrefixLists.encode(entries)
            XCTAssertEqual(PrefixLists.decode(encoded), entries, "round \(round)")
            XCTAssertEqual(encoded.prefix(2), Data([0, PrefixLists.listTag]))
            XCTAssertNil(PrefixLists.storedCount(Array(encoded)))
        }
    }

    /// Sorted keys take a byte a step when they tie, where format 5 wrote 8 bytes a key: a list of 64 tied entries
    /// is 7 bytes an entry smaller, less the 2 leading bytes.
    func testTiedKeysTakeOneByte() {
        let entries = (0..<64).map { PrefixLists.Entry(item: Int64($0 + 1), key: 7.2, uid: "pypi:i\($0)") }
        XCTAssertEqual(PrefixLists.encode(entries).count, Self.format5(entries).count - 7 * 63 + 2)
    }

    /// Lists written by format 5 to 19 (no leading byte, every key as 8 bytes) are read as they are.
    func testListsOfFormat19AreRead() {
        let entries = [PrefixLists.Entry(item: 3, key: 9.5, uid: "debian:a"), PrefixLists.Entry(item: 300, key: -1, uid: "debian:ab")]
        let bytes = Self.format5(entries)
        XCTAssertNotEqual(bytes.first, 0)
        XCTAssertEqual(PrefixLists.decode(bytes), entries)
        XCTAssertFalse(PrefixLists.unchanged(bytes, removing: [300], adding: nil))
        XCTAssertTrue(PrefixLists.unchanged(bytes, removing: [4], adding: nil))
    }

    /// Counts, truncations and random damage read as a count, a shorter list or nothing: never a trap.
    func testCountsAndDamage() {
        XCTAssertEqual(PrefixLists.storedCount(Array(PrefixLists.counted(0))), 0)
        XCTAssertEqual(PrefixLists.storedCount(Array(PrefixLists.counted(300))), 300)
        XCTAssertEqual(PrefixLists.decode(PrefixLists.counted(12)), [])
        XCTAssertFalse(PrefixLists.unchanged(PrefixLists.counted(12), removing: nil, adding: nil))
        let row = PrefixLists.encodeRow((0..<10).map { PrefixLists.Entry(item: Int64($0 + 1), key: 1, uid: "i\($0)") }, complete: true)
        XCTAssertEqual(PrefixLists.storedCount(Array(row.data)), 10)
        XCTAssertNil(PrefixLists.storedCount(Array(PrefixLists.encodeRow([PrefixLists.Entry(item: 1, key: 1, uid: "a")], complete: false).data)))
        let many = (0..<256).map { PrefixLists.Entry(item: Int64($0 + 1), key: 1, uid: "i\($0)") }
        XCTAssertEqual(PrefixLists.storedCount(Array(PrefixLists.encodeRow(many, complete: true).data)), 256, "a complete two-letter list")
        XCTAssertNil(PrefixLists.storedCount(Array(PrefixLists.encodeRow(many, complete: false).data)), "an incomplete one: stored whole")

        var random = SplitMix64(state: 5)
        let entries = (0..<40).map { PrefixLists.Entry(item: Int64(random.next() % 100_000 + 1), key: Double(40 - $0) / 3, uid: "pypi:p\($0)") }
        let encoded = PrefixLists.encode(entries)
        for cut in 0..<encoded.count {
            let decoded = PrefixLists.decode(encoded.prefix(cut))
            XCTAssertEqual(decoded, Array(entries.prefix(decoded.count)), "cut at \(cut)")
        }
        for _ in 0..<2_000 {
            var damaged = [UInt8](encoded)
            for _ in 0..<Int(random.next() % 4 + 1) { damaged[Int(random.next() % UInt64(damaged.count))] = UInt8(truncatingIfNeeded: random.next()) }
            _ = PrefixLists.decode(Data(damaged))
            _ = PrefixLists.storedCount(damaged)
            _ = PrefixLists.unchanged(Data(damaged), removing: [1], adding: nil)
        }
    }

    // MARK: - Stores

    /// A prefix with at most its list's capacity of items is stored as its count; its search ranks every match and gives
    /// what it gave with the list.
    func testSmallCompleteListsAreStoredAsTheirCount() throws {
        try store.apply((0..<30).map { .upsert(item("z\($0)", title: "zebra \($0)", hint: Double($0))) } + filler("a", 300), now: now)
        let zeb = try XCTUnwrap(row("zeb"))
        XCTAssertEqual(zeb.count, 30)
        XCTAssertTrue(zeb.complete)
        XCTAssertNil(try store.read { try PrefixLists.list("zeb", db: $0) }, "a search ranks every match")
        XCTAssertEqual(try search("zeb", limit: 5), ["z29", "z28", "z27", "z26", "z25"])
        // "f" names 300 items: a list of entries, with its keys as steps.
        let f = try XCTUnwrap(row("f"))
        XCTAssertNil(f.count)
        XCTAssertEqual(f.entries.count, PrefixLists.capacity(of: "f"))
        try assertSearchesAgree("after the first write")
    }

    /// Large writes that take a counted prefix past its capacity build its list from the last commit on other
    /// threads and merge the write into it; the list is then what a list built from every posting is.
    func testALargeWriteTakesACountPastTheLimit() throws {
        try store.apply((0..<40).map { .upsert(item("z\($0)", title: "zebra \($0)", hint: Double($0 % 7))) } + filler("a", 300), now: now)
        XCTAssertEqual(try row("zeb")?.count, 40)
        let refills = PrefixLists.refills.load(ordering: .relaxed)
        let snapshots = PrefixLists.snapshotBuilds.load(ordering: .relaxed)
        // 30 more, 5 of the first deleted and 5 replaced: the count goes past 64.
        var operations: [IndexOperation] = (40..<70).map { .upsert(item("z\($0)", title: "zebra \($0)", hint: Double($0 % 11))) }
        operations += (0..<5).map { .delete(identifiers: ["z\($0)"]) }
        operations += (5..<10).map { .upsert(item("z\($0)", title: "zebra again \($0)", hint: 50)) }
        try store.apply(operations + filler("b", 300), now: now)
        XCTAssertGreaterThan(PrefixLists.refills.load(ordering: .relaxed), refills, "built from the postings")
        XCTAssertGreaterThan(PrefixLists.snapshotBuilds.load(ordering: .relaxed), snapshots, "of the last commit, on another thread")
        let zeb = try XCTUnwrap(row("zeb"))
        XCTAssertNil(zeb.count, "65 items: a list of entries")
        XCTAssertEqual(zeb.entries.count, PrefixLists.capacity)
        XCTAssertFalse(zeb.complete)
        let truth = try store.read { try PrefixLists.refill("zeb", db: $0, now: now) }
        XCTAssertEqual(zeb.entries.map(\.uid), truth.0.map(\.uid))
        XCTAssertEqual(Array(try search("zeb", limit: 5).prefix(5)), ["z5", "z6", "z7", "z8", "z9"])
        try assertSearchesAgree("after the large write")
        try store.checkIntegrity()
    }

    /// Updates take their old versions out of the counts they put their new ones in: rounds of updates (large and
    /// small writes) leave a count as it was and build no list; deletes alone leave it as it is.
    func testUpdatesKeepCounts() throws {
        let zebras = (0..<50).map { item("z\($0)", title: "zebra \($0)", hint: Double($0)) }
        func title(_ z: StoredItem) -> String { "zebra \(z.uniqueIdentifier.dropFirst())" }
        try store.apply(zebras.map { .upsert($0) } + filler("a", 300), now: now)
        XCTAssertEqual(try row("zeb")?.count, 50)
        let refills = PrefixLists.refills.load(ordering: .relaxed)
        for round in 0..<4 {
            // (Every item of every write an update: no count can grow.)
            try store.apply(zebras.map { .upsert(item($0.uniqueIdentifier, title: title($0), hint: Double(round))) }
                            + filler("a", 300), now: now)
            XCTAssertEqual(try row("zeb")?.count, 50, "round \(round): a large write")
            for z in zebras.prefix(5) {
                try store.apply([.upsert(item(z.uniqueIdentifier, title: title(z), hint: 100))], now: now)
            }
            try store.performMaintenance()
            XCTAssertEqual(try row("zeb")?.count, 50, "round \(round): small writes")
        }
        XCTAssertEqual(PrefixLists.refills.load(ordering: .relaxed), refills, "no list was built")
        try assertSearchesAgree("after the updates")
    }

    /// Small writes leave their changes pending; the maintenance takes a count past its capacity and builds the
    /// list from the postings, with the pending items. Deletes leave a count as it is (an upper bound) until a
    /// list is built, whose count is then the truth.
    func testSmallWritesAndDeletes() throws {
        try store.apply((0..<60).map { .upsert(item("z\($0)", title: "zebra \($0)", hint: Double($0))) } + filler("a", 300), now: now)
        XCTAssertEqual(try row("zeb")?.count, 60)
        for i in 0..<20 { try store.apply([.delete(identifiers: ["z\(i)"])], now: now) }
        try store.performMaintenance()
        XCTAssertEqual(try row("zeb")?.count, 60, "deletes leave the count")
        try assertSearchesAgree("after the deletes")
        for i in 60..<66 { try store.apply([.upsert(item("z\(i)", title: "zebra \(i)", hint: 100))], now: now) }
        try assertSearchesAgree("with pending items")
        let snapshots = PrefixLists.snapshotBuilds.load(ordering: .relaxed)
        try store.performMaintenance()
        XCTAssertEqual(PrefixLists.snapshotBuilds.load(ordering: .relaxed), snapshots, "the maintenance builds lists itself")
        // 60 + 6 > 64: built from the postings, which hold 46 items: a count again.
        XCTAssertEqual(try row("zeb")?.count, 46)
        try assertSearchesAgree("after the maintenance")
    }

    /// A format 19 store (lists in format 5's layout, small complete ones whole) opens as format 20; its lists
    /// are read as they are, and the next write of a list writes it anew.
    func testAFormat19StoreIsUpgraded() throws {
        PrefixLists.countsCompleteLists.store(false, ordering: .relaxed)
        defer { PrefixLists.countsCompleteLists.store(true, ordering: .relaxed) }
        try store.apply((0..<30).map { .upsert(item("z\($0)", title: "zebra \($0)", hint: Double($0))) } + filler("a", 300), now: now)
        // Written back in format 5's layout, and marked format 19.
        try store.pool.write { db in
            let rows = try Row.fetchAll(db, sql: "SELECT prefix, entries FROM prefixTop")
            for row in rows {
                let entries = PrefixLists.decode(try row.stored(1) as Data)
                try db.execute(sql: "UPDATE prefixTop SET entries = ? WHERE prefix = ?",
                               arguments: [Self.format5(entries), try row.stored(0) as String])
            }
            try db.execute(sql: "UPDATE meta SET value = 19 WHERE key = 'formatVersion'")
        }
        try store.close()
        PrefixLists.countsCompleteLists.store(true, ordering: .relaxed)
        store = try IndexStore(url: directory.appendingPathComponent("index.sqlite"))
        XCTAssertEqual(try store.read { try Int.fetchOne($0, sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'formatVersion'") }, 20)
        let old = try XCTUnwrap(row("zeb"))
        XCTAssertNil(old.count)
        XCTAssertEqual(old.entries.count, 30, "read as format 19 wrote it")
        XCTAssertNotNil(try store.read { try PrefixLists.list("zeb", db: $0) })
        try assertSearchesAgree("upgraded")
        try store.apply([.upsert(item("z30", title: "zebra 30", hint: 3))] + filler("b", 300), now: now)
        XCTAssertEqual(try row("zeb")?.count, 31, "written anew as a count")
        try assertSearchesAgree("after a write")
    }

    /// A list as formats 5 to 19 wrote it: no leading byte, every key as 8 bytes.
    static func format5(_ entries: [PrefixLists.Entry]) -> Data {
        var bytes: [UInt8] = []
        var previous: [UInt8] = []
        for e in entries {
            ValueCodec.writeVarint(UInt64(e.item), to: &bytes)
            var bits = e.key.bitPattern
            for _ in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: bits)); bits >>= 8 }
            let uid = Array(e.uid.utf8)
            let shared = zip(uid, previous).prefix { $0 == $1 }.count
            ValueCodec.writeVarint(UInt64(shared), to: &bytes)
            ValueCodec.writeVarint(UInt64(uid.count - shared), to: &bytes)
            bytes += uid[shared...]
            previous = uid
        }
        return Data(bytes)
    }
}

extension XCTestCase {
    /// Stores every prefix list with its entries while `body` runs (`PrefixLists.countsCompleteLists` off): for
    /// tests of how lists' entries change, on stores too small for incomplete lists.
    func withWholeLists<T>(_ body: () throws -> T) rethrows -> T {
        let counts = PrefixLists.countsCompleteLists.exchange(false, ordering: .relaxed)
        defer { PrefixLists.countsCompleteLists.store(counts, ordering: .relaxed) }
        return try body()
    }
}
