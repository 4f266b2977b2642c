import Foundation
import XCTest
@testable import SpotlightEngine
import SpotlightTestSupport

/// Searches that read only part of their posting lists, checked against the ranking applied to every item
/// (`RankingOracle`) on a corpus laid out to defeat each shortcut:
///
/// - the name tier read first (`IndexStore.nameTierFirstPostings`): lists of thousands of postings whose few name
///   postings sit in two blocks of 128 (blocks without one are skipped undecoded), some of them expired or deleted so
///   that fewer live name matches than `limit` remain, and items matched outside the name whose ranking hint and
///   last use bring them within reach of the name matches (the bound the shortcut must respect);
/// - a few candidates against long lists (`PostingCodec.Reader.forEach(near:)`): a rare word on the last item of a
///   block alone, on the first alone, or on both sides of a boundary of the common word's list;
/// - ties: many items of one score, whose identifiers (not in id order) decide which are in the top `limit`;
/// - every kind of segment: one large segment (term blocks and long lists, or packed), small packed ones, and dead
///   postings of updated and deleted items.
final class AdversarialRankingTests: XCTestCase {
    let now = Date(timeIntervalSinceReferenceDate: 800_000_000)
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("adversarial-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// The corpus: `count` items for one large write, then `extra` for small ones, in write order. Every item has
    /// `alpha` and `beta` in its description, so their lists hold a posting per item, in id order; a block of 128
    /// postings is 128 consecutive items.
    func corpus(count: Int, extra: Int, lastUse: Date? = nil) -> [StoredItem] {
        let lastUse = lastUse ?? now.addingTimeInterval(20 * 365 * 86_400)
        var random = SplitMix64(state: 7)
        let others = ["gamma", "delta", "tools", "common", "alpine", "alps"]
        return (0..<(count + extra)).map { i in
            var attributes: [String: AttributeValue] = ["contentDescription": .string("alpha beta common \(others[i % others.count])")]
            switch i {
            case 1_400..<1_420: attributes["title"] = .string("alpha")               // the name matches, in one block
            case count - 12..<count: attributes["title"] = .string("alpha tools")    // and in the last one written
            case _ where i % 500 == 499: attributes["title"] = .string("alphabet")   // a name that starts with the word
            default: attributes["title"] = .string("gamma \(others[Int(random.next() % UInt64(others.count))])")
            }
            // Items matched outside the name with the most a hint and a last use add: within reach of a name match
            // typed as a beginning (7.2 points against 4 + 3.5). By default the last use is to come, so that it adds
            // the most whatever the clock says (lists the maintenance builds compute recency as of the real time,
            // months after this test's `now`: `testListsWithKeysFromLaterThanTheSearchStayExact`).
            if i % 97 == 0 { attributes["rankingHint"] = .int(100) }
            if i % 89 == 0 { attributes["lastUsedDate"] = .date(lastUse) }
            if i % 61 == 0 { attributes["keywords"] = .array([.string("alpha")]) }
            // The rare word on block boundaries of `alpha`'s list: of one block in three, on its last item alone
            // (the block must be decoded for it); of the next, on its first item alone; of the third, on both.
            let block = i / 128
            if (i % 128 == 127 && block % 3 != 1) || (i % 128 == 0 && block % 3 != 0) {
                attributes["keywords"] = .array([.string("zeta alpha")])
            }
            // Five of the first block's name matches have expired.
            let expires = (1_400..<1_405).contains(i) ? now.addingTimeInterval(-1) : now.addingTimeInterval(86_400)
            // Identifiers out of id order, so that ties are broken against the order the lists are read in.
            return StoredItem(uniqueIdentifier: String(format: "a%05d", (i * 7_919) % (count + extra)), domainIdentifier: "d",
                              expirationDate: expires, attributes: attributes)
        }
    }

    /// Writes the corpus as one large write (a segment as large as `PackedSegment.limit` allows), then small writes,
    /// updates and deletes; returns the store and the live items.
    func makeStore(packed: Bool, lastUse: Date? = nil) throws -> (IndexStore, [StoredItem]) {
        let count = 2_200
        var items = corpus(count: count, extra: 150, lastUse: lastUse)
        PackedSegment.limit.store(packed ? PackedSegment.defaultLimit : 0, ordering: .relaxed)
        defer { PackedSegment.limit.store(PackedSegment.defaultLimit, ordering: .relaxed) }
        let store = try IndexStore(url: directory.appendingPathComponent(packed ? "packed.sqlite" : "blocks.sqlite"))
        let written = now.addingTimeInterval(-10)
        try store.apply(items[..<count].map { .upsert($0) }, now: written)
        for chunk in stride(from: count, to: items.count, by: 25) {
            try store.apply(items[chunk..<min(chunk + 25, items.count)].map { .upsert($0) }, now: written)
        }
        // Updates leave dead postings in the large segment: some name matches lose their name, some items gain one.
        var updates: [StoredItem] = []
        for i in stride(from: 1_410, to: 1_420, by: 2) {
            var item = items[i]
            item.attributes["title"] = .string("gamma")
            updates.append(item)
            items[i] = item
        }
        for i in [3, 700, 1_023, 1_024] {
            var item = items[i]
            item.attributes["title"] = .string("alpha")
            updates.append(item)
            items[i] = item
        }
        try store.apply(updates.map { .upsert($0) }, now: written)
        // Deletes: name matches, and rare-word items on block boundaries.
        let deleted = Set([count - 1, count - 2, 127, 128, 1_407])
        try store.apply([.delete(identifiers: deleted.map { items[$0].uniqueIdentifier })], now: written)
        return (store, items.indices.filter { !deleted.contains($0) }.map { items[$0] })
    }

    static let queries = ["alpha", "alph", "alp", "al", "a", "alphabet", "alpha tools", "tools alpha", "alpha t",
                          "zeta alpha", "alpha zeta", "zeta al", "zeta a", "zeta", "zet", "beta alpha", "gamma alpha",
                          "common al", "alpah", "zeta alpah", "alpine", "alps al"]

    func checkEveryQuery(packed: Bool) throws {
        let (store, items) = try makeStore(packed: packed)
        defer { try? store.close() }
        let oracle = RankingOracle(items: items, now: now)
        let saved = IndexStore.nameTierFirstPostings.load(ordering: .relaxed)
        defer { IndexStore.nameTierFirstPostings.store(saved, ordering: .relaxed) }
        // The name tier read first only for long lists (as shipped), and for every list.
        for threshold in [saved, 1] {
            IndexStore.nameTierFirstPostings.store(threshold, ordering: .relaxed)
            for query in Self.queries {
                for limit in [1, 10, 0] {
                    try oracle.check(store, query, limit: limit)
                }
                try oracle.check(store, query, limit: 10, typos: true)
            }
        }
    }

    func testSkippedBlocksLeaveTheRankingExactInTermBlocks() throws {
        try checkEveryQuery(packed: false)
    }

    func testSkippedBlocksLeaveTheRankingExactInPackedSegments() throws {
        try checkEveryQuery(packed: true)
    }

    /// The corpus does what it is for: the name tier alone answers some of its searches, and `alpha`'s list spans
    /// many blocks (a corpus that no longer did would leave the checks above testing nothing in particular).
    func testTheCorpusReachesTheShortcuts() throws {
        let (store, items) = try makeStore(packed: false)
        defer { try? store.close() }
        let oracle = RankingOracle(items: items, now: now)
        let saved = IndexStore.nameTierFirstPostings.load(ordering: .relaxed)
        defer { IndexStore.nameTierFirstPostings.store(saved, ordering: .relaxed) }
        IndexStore.nameTierFirstPostings.store(1, ordering: .relaxed)
        let answered = IndexStore.nameTierAnswers.load(ordering: .relaxed)
        try oracle.check(store, "alpha", limit: 10)
        XCTAssertGreaterThan(IndexStore.nameTierAnswers.load(ordering: .relaxed), answered, "alpha's name matches settle its top 10")
        XCTAssertGreaterThan(items.filter { $0.attributes["contentDescription"] != nil }.count, 16 * 128)
        // Fewer live items named `alpha` exactly than 20: a top 20 takes other name matches, and beyond.
        let names = items.filter { $0.attributes["title"] == .string("alpha") && $0.expirationDate > now }
        XCTAssertLessThan(names.count, 20)
    }

    /// Lists whose keys were computed as of a later time than a search's (the clock went back since, or a caller
    /// searches as of a past date) hold keys below some items' scores at the search's time: an item last used at
    /// `now` loses 1.16 of its 1.5 points of recency in 30 days. The search adds what recency can have lost
    /// (`PrefixLists.keySlack`) to every key it would stop at, and stays exact.
    func testListsWithKeysFromLaterThanTheSearchStayExact() throws {
        let (store, items) = try makeStore(packed: false, lastUse: now)
        defer { try? store.close() }
        let later = now.addingTimeInterval(30 * 86_400)
        let prefixes = ["a", "al", "alp", "alph", "b", "be", "bet", "c", "co", "com", "g", "ga", "gam", "z", "ze", "zet"]
        try store.writeTransaction { db in
            for prefix in prefixes {
                let (entries, complete) = try PrefixLists.refill(prefix, db: db, now: later)
                try PrefixLists.store(prefix, entries: entries, complete: complete, keysAsOf: later, db: db)
            }
        }
        XCTAssertGreaterThan(try store.read { try PrefixLists.keySlack($0, now: now) }, 1.1)
        let oracle = RankingOracle(items: items, now: now)
        for query in ["a", "al", "alp", "alph", "b", "bet", "com", "gam", "zet"] {
            for limit in [1, 10, 20] { try oracle.check(store, query, limit: limit) }
        }
    }

    /// The slack is what recency loses between the search's time and the latest time list keys were computed as
    /// of, and nothing when the search is as late or later (the clock only went forward).
    func testKeySlackIsWhatRecencyLosesBetweenTheSearchAndTheKeys() throws {
        let store = try IndexStore(url: directory.appendingPathComponent("slack.sqlite"))
        defer { try? store.close() }
        XCTAssertEqual(try store.read { try PrefixLists.keySlack($0, now: now) }, 0, "no list written")
        try store.writeTransaction { db in
            try PrefixLists.noteKeys(asOf: now, db: db)
            try PrefixLists.noteKeys(asOf: now.addingTimeInterval(-86_400), db: db)
        }
        try store.read { db in
            XCTAssertEqual(try PrefixLists.keySlack(db, now: now), 0)
            XCTAssertEqual(try PrefixLists.keySlack(db, now: now.addingTimeInterval(3_600)), 0)
            XCTAssertEqual(try PrefixLists.keySlack(db, now: now.addingTimeInterval(-Ranking.recencyHalfLife)),
                           Ranking.maxRecencyPoints / 2, accuracy: 1e-9, "the latest time noted counts")
        }
    }
}
