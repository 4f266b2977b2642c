import Foundation
import XCTest
import GRDB
@testable import SpotlightEngine
import SpotlightQueryLanguage

final class IndexStoreTests: XCTestCase {
    var directory: URL!
    var store: IndexStore!
    let now = Date(timeIntervalSinceReferenceDate: 800_000_000)
    var later: Date { now.addingTimeInterval(365 * 86_400) }

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("engine-\(UUID().uuidString)")
        store = try IndexStore(url: directory.appendingPathComponent("a/b/test.sqlite"))
    }

    override func tearDownWithError() throws {
        try store.close()
        try? FileManager.default.removeItem(at: directory)
    }

    func item(_ id: String, title: String? = nil, description: String? = nil, body: String? = nil,
              keywords: [String]? = nil, hint: Int? = nil, lastUsed: Date? = nil, domain: String? = nil) -> StoredItem {
        var attributes: [String: AttributeValue] = [:]
        attributes["title"] = title.map { .string($0) }
        attributes["contentDescription"] = description.map { .string($0) }
        attributes["textContent"] = body.map { .string($0) }
        attributes["keywords"] = keywords.map { .array($0.map { .string($0) }) }
        attributes["rankingHint"] = hint.map { .int(Int64($0)) }
        attributes["lastUsedDate"] = lastUsed.map { .date($0) }
        return StoredItem(uniqueIdentifier: id, domainIdentifier: domain, expirationDate: later, attributes: attributes)
    }

    func search(_ text: String, limit: Int = 20) throws -> [String] {
        var options = TextSearchOptions(limit: limit)
        options.now = now
        return try store.search(text, options: options).map(\.item.uniqueIdentifier)
    }

    /// Cancellation reaches SQLite: a search (or query) whose check turns true while its statements run stops with
    /// `.cancelled`, and the connection it used searches normally afterwards.
    func testCancellationInterruptsSQLite() throws {
        try store.apply((0..<3_000).map { .upsert(item("i\($0)", title: "alpha beta \($0 % 97)", description: "gamma delta")) })
        final class Counter: @unchecked Sendable {
            let lock = NSLock()
            var calls = 0
            func tick() -> Int { lock.lock(); defer { lock.unlock() }; calls += 1; return calls }
        }
        for query in ["alpha gamma", "al", "alpha be"] {
            let counter = Counter()
            var options = TextSearchOptions(limit: 20)
            options.now = now
            options.usePrefixLists = false
            // False at the check before the read, then true at SQLite's first progress callback.
            options.isCancelled = { counter.tick() > 1 }
            XCTAssertThrowsError(try store.search(query, options: options), query) { error in
                XCTAssertEqual((error as? EngineError)?.code, .cancelled, "\(error)")
            }
            XCTAssertGreaterThan(counter.calls, 1, "SQLite called the check while the statements ran")
            XCTAssertEqual(try search(query).count, 20, "the pooled connection searches normally afterwards")
        }
        var never = TextSearchOptions(limit: 5)
        never.now = now
        never.isCancelled = { false }
        XCTAssertEqual(try store.search("alpha", options: never).count, 5)

        let query = CompiledQuery(try QueryParser.parse(#"contentDescription == "gamma*""#), now: now)
        var queryOptions = QueryOptions()
        let counter = Counter()
        queryOptions.isCancelled = { counter.tick() > 1 }
        XCTAssertThrowsError(try store.forEachMatch(query, plan: .scan, options: queryOptions) { _ in true }) { error in
            XCTAssertEqual((error as? EngineError)?.code, .cancelled, "\(error)")
        }
    }

    /// A store's searches pass their scratch (a byte per item) on to each other (`ScratchPool`): it comes back all
    /// zeros after every kind of search, so the next one answers as a store object that never searched does.
    func testSearchesPassOnTheirScratchAllZeros() throws {
        let words = ["alpha", "alps", "beta", "gamma", "alphabet", "delta"]
        try store.apply((0..<600).map { i in
            .upsert(item("i\(i)", title: "\(words[i % 6]) \(words[(i / 6) % 6]) n\(i % 13)",
                         description: i % 4 == 0 ? "alpha helper \(words[i % 5])" : nil, hint: i % 50))
        })
        let queries = ["alp", "alpha beta", "n1", "gamma al", "alpah", "beta delta n", "zzz", "a", "alphabet gamma n7",
                       "delta", "al be ga"]
        for round in 0..<3 {
            for query in queries {
                var options = TextSearchOptions(limit: 7)
                options.now = now
                options.usePrefixLists = round != 1
                let fresh = try IndexStore(url: store.url)
                defer { try? fresh.close() }
                XCTAssertEqual(try store.search(query, options: options).map(\.item.uniqueIdentifier),
                               try fresh.search(query, options: options).map(\.item.uniqueIdentifier), "\(query), round \(round)")
            }
        }
        let scratch = store.scratchPool.take(count: 600)
        XCTAssertGreaterThanOrEqual(scratch.count, 600)
        XCTAssertTrue(scratch.allSatisfy { $0 == 0 }, "given back all zeros")
    }

    /// The words the forward check reads stay for the next keystroke, and never outlive what their id names: an
    /// update (a new id) is found on its new words only, a delete not at all, as by a store that never searched.
    func testForwardCheckedWordsAreKeptAndFollowUpdates() throws {
        // `zulu2…` names 5 items and `kappa` 8 (fewer than `Typos.expansionThreshold`, so typos are looked for):
        // `kappa zulu2` reads the words of `zulu2`'s candidates to check `kappa` on them.
        try store.apply((0..<300).map { i in
            .upsert(item("i\(i)", title: "alpha n\(i)" + (i % 40 == 0 ? " kappa" : ""),
                         description: i % 20 == 0 ? "zulu\(i % 60) helper" : "common words"))
        })
        var options = TextSearchOptions(limit: 10)
        options.now = now
        func identifiers(_ query: String, in store: IndexStore) throws -> [String] {
            try store.search(query, options: options).map(\.item.uniqueIdentifier).sorted()
        }
        func check(_ queries: [String], _ message: String) throws {
            for query in queries {
                let fresh = try IndexStore(url: store.url)
                defer { try? fresh.close() }
                XCTAssertEqual(try identifiers(query, in: store), try identifiers(query, in: fresh), "\(query): \(message)")
            }
        }
        XCTAssertEqual(store.forwardTerms.count, 0)
        // (`zulu2` also matches the other `zulu…` words with a typo: 15 candidates.)
        XCTAssertEqual(try identifiers("kappa zulu2", in: store), ["i0", "i120", "i160", "i200", "i240", "i280", "i40", "i80"])
        XCTAssertEqual(store.forwardTerms.count, 15, "the candidates' words are kept")
        // The next keystrokes: the same answers, from the kept words.
        try check(["kappa zulu2", "kappa zulu20", "kapa zulu20", "kappa zulu", "alpha zulu2"], "kept words")
        // i80 loses `kappa`, i20 gains it, i200 is deleted: their old ids' kept words must not answer.
        try store.apply([
            .upsert(item("i80", title: "omega n80", description: "zulu20 helper")),
            .upsert(item("i20", title: "alpha n20 kappa", description: "zulu20 helper")),
            .delete(identifiers: ["i200"]),
        ])
        XCTAssertEqual(try identifiers("kappa zulu2", in: store), ["i0", "i120", "i160", "i20", "i240", "i280", "i40"])
        XCTAssertEqual(try identifiers("omega zulu2", in: store), ["i80"])
        try check(["kappa zulu2", "kappa zulu20", "kapa zulu20", "omega zulu2", "alpha zulu2"], "after the update")
    }

    /// Equal scores are ordered by identifier as `String`s order them, whether the identifiers are compared as bytes
    /// (both ASCII) or as `String`s (either not), and ranked levels come highest first.
    func testEqualScoresAreOrderedByIdentifier() throws {
        let identifiers = ["b", "a", "ab", "B", "a-1", "a_1", "A", "aa", "é", "e\u{301}x", "z", "Zebra", "ä",
                           "abc", "abd", "ab c", "10", "9", "~", "ß"]
        try store.apply(identifiers.map { .upsert(item($0, title: "same words")) } + [
            .upsert(item("best", title: "same same words words")),
            .upsert(item("worse", description: "same words")),
        ])
        var options = TextSearchOptions(limit: 40)
        options.now = now
        for query in ["same", "same w", "sam"] {
            let found = try store.search(query, options: options).map(\.item.uniqueIdentifier)
            XCTAssertEqual(found.count, identifiers.count + 2, query)
            XCTAssertEqual(found.last, "worse", query)
            let tied = found.filter { $0 != "best" && $0 != "worse" }
            XCTAssertEqual(tied, identifiers.sorted(), query)
        }
    }

    /// The kept words are bounded: two generations, the older dropped when the newer fills.
    func testForwardTermsCacheKeepsTwoGenerations() {
        let cache = ForwardTermsCache()
        let words = Dictionary(uniqueKeysWithValues: (0..<1_000).map { ("w\($0)", UInt8(1)) })
        let perGeneration = ForwardTermsCache.termsPerGeneration / words.count + 1
        for id in 0..<Int64(3 * perGeneration) { cache.keep([id: words]) }
        XCTAssertLessThanOrEqual(cache.count, 2 * perGeneration + 1)
        var found: [Int64: [String: UInt8]] = [:]
        // The first ids went with the oldest generation; the last are there.
        XCTAssertEqual(cache.take([0, Int64(3 * perGeneration - 1)], into: &found), [0])
        XCTAssertEqual(found[Int64(3 * perGeneration - 1)], words)
        // One found in the older generation moves to the newer, so it outlives the rest of its generation.
        let moving = ForwardTermsCache()
        for id in 0..<Int64(perGeneration) { moving.keep([id: words]) }
        moving.keep([1_000: words])
        found.removeAll()
        XCTAssertEqual(moving.take([0], into: &found), [], "in the older generation")
        for id in Int64(2_000)..<Int64(2_000 + perGeneration - 1) { moving.keep([id: words]) }
        found.removeAll()
        XCTAssertEqual(moving.take([0, 1], into: &found), [1], "0 was moved; 1 went with its generation")
        XCTAssertEqual(found[0], words)
    }

    /// A batch's windows tile it in order: a batch that fits in one window is one; a larger one starts with a small
    /// window (prepared while the transaction waits), and none after it is small enough to go unprepared.
    func testABatchsWindowsTileItWithASmallFirstWindow() {
        XCTAssertEqual(PreparedUpsert.windows(0), [])
        XCTAssertEqual(PreparedUpsert.windows(10), [0..<10])
        XCTAssertEqual(PreparedUpsert.windows(PreparedUpsert.window), [0..<PreparedUpsert.window])
        for count in [PreparedUpsert.window + 1, PreparedUpsert.window + PreparedUpsert.firstWindow + 1, 10_000,
                      PreparedUpsert.window * 3, PreparedUpsert.window * 3 + 7] {
            let windows = PreparedUpsert.windows(count)
            XCTAssertEqual(windows.first, 0..<PreparedUpsert.firstWindow, "\(count)")
            XCTAssertEqual(windows.last?.upperBound, count)
            for (a, b) in zip(windows, windows.dropFirst()) { XCTAssertEqual(a.upperBound, b.lowerBound) }
            XCTAssertTrue(windows.dropFirst().allSatisfy { $0.count >= PreparedUpsert.window / 4 && $0.count < PreparedUpsert.window * 5 / 4 },
                          "\(count): \(windows)")
        }
        XCTAssertEqual(PreparedUpsert.windows(10_000).count, 6)
    }

    /// The vocabulary a write leaves is its segment's dictionary (`SegmentVocabulary`, format 16): over more than
    /// one prepared window, with items deleted or expired in the same write, and written by another store object
    /// of the same file. A term's frequency is its postings in every segment, deleted items counted until their
    /// segment is merged; a term no live item holds is none (`documentFrequency(of:)` 0, no completion).
    func testTheSegmentsDictionariesHoldEveryTermAWriteAdded() throws {
        let count = PreparedUpsert.window + 300
        var operations: [IndexOperation] = (0..<count).map { n in
            .upsert(item("i\(n)", title: "shared unique\(n) group\(n % 3)"))
        }
        // Added and deleted in the same write: its posting stays dead in the segment.
        operations.insert(.upsert(item("gone", title: "ephemeral shared")), at: 10)
        operations.append(.delete(identifiers: ["gone"]))
        // Expired when written: never indexed, its words never added.
        operations.insert(.upsert(StoredItem(uniqueIdentifier: "old", domainIdentifier: nil, expirationDate: now.addingTimeInterval(-1),
                                             attributes: ["title": .string("bygone")])), at: 20)
        try store.apply(operations, now: now)
        XCTAssertEqual(try store.documentFrequency(of: "shared"), count + 1, "the deleted item's posting counted until a merge")
        XCTAssertEqual(try store.documentFrequency(of: "unique7"), 1)
        XCTAssertEqual(try store.documentFrequency(of: "unique\(count - 1)"), 1, "a term of the last window")
        XCTAssertEqual(try store.documentFrequency(of: "group2"), (0..<count).filter { $0 % 3 == 2 }.count)
        XCTAssertEqual(try store.read { try IndexStore.documentFrequency($0, word: "ephemeral", prefix: false) }, 1,
                       "in the segment, dead")
        XCTAssertEqual(try store.documentFrequency(of: "ephemeral"), 0, "no live item holds it")
        XCTAssertEqual(try store.completions(of: "ephem").map(\.term), [], "nor is it completed")
        XCTAssertEqual(try store.documentFrequency(of: "bygone"), 0)
        XCTAssertEqual(try store.completions(of: "uniq", limit: 3).map(\.count), [1, 1, 1])
        XCTAssertFalse(try store.read { try $0.tableExists("term") }, "no global vocabulary")
        // A range's first terms, each segment's read only as far as the limit.
        let unique = Array("unique".utf8)
        let all = try store.read { try SegmentVocabulary.terms($0, from: unique, below: unique + Typos.SpanWalk.beyond) }
        XCTAssertEqual(all.count, count)
        XCTAssertEqual(try store.read { try SegmentVocabulary.terms($0, from: unique, below: unique + Typos.SpanWalk.beyond, limit: 65) }.map(\.text),
                       all.prefix(65).map(\.text))
        // Another store object of the file, in a large write and in a single one.
        let other = try IndexStore(url: store.url)
        try other.apply((0..<100).map { .upsert(item("o\($0)", title: "shared ephemeral fresh\($0)")) }, now: now)
        try other.apply([.upsert(item("single", title: "shared bygone"))], now: now)
        try other.close()
        XCTAssertEqual(try store.documentFrequency(of: "shared"), count + 102)
        XCTAssertEqual(try store.documentFrequency(of: "ephemeral"), 101)
        XCTAssertEqual(try store.documentFrequency(of: "bygone"), 1)
        XCTAssertEqual(try store.documentFrequency(of: "fresh42"), 1)
        XCTAssertEqual(try store.completions(of: "ephem").map(\.term), ["ephemeral"])
        XCTAssertEqual(Set(try search("ephemeral", limit: 200)), Set((0..<100).map { "o\($0)" }))
        XCTAssertEqual(try search("bygone"), ["single"])
        // A merge that drops the dead posting drops it from the count (every segment merged into one).
        try store.writeTransaction { db in
            let segments = try SegmentMerger.segments(db)
            let merge = try SegmentMerger.prepare(db, segments)
            XCTAssertTrue(try SegmentMerger.commit(db, merge))
        }
        XCTAssertEqual(try store.documentFrequency(of: "ephemeral"), 100)
        XCTAssertEqual(try store.documentFrequency(of: "shared"), count + 101)
        try store.checkIntegrity()
    }

    /// A window prepared in parts by whichever thread comes first (`PreparedUpsert.Background`) is the window
    /// prepared at once: the same terms, the same items with the same records, and each item's term numbers
    /// naming its own terms. (The numbers themselves follow the order of each item's table of terms, which differs
    /// between two tables of the same terms.)
    func testAWindowPreparedInPartsEqualsOnePreparedAtOnce() {
        let operations: [IndexOperation] = (0..<1_500).map { n in
            n % 7 == 3 ? .delete(identifiers: ["x\(n)"])
                : .upsert(item("w\(n)", title: "window \(n % 40) part\(n)", body: "shared words of item \(n % 11)"))
        }
        let range = 100..<1_400
        let whole = PreparedUpsert.prepare(operations, in: range, hot: [], now: now)
        let parts = PreparedUpsert.Background(operations, in: range, hot: [], now: now).value()
        XCTAssertEqual(Set(parts.terms.strings), Set(whole.terms.strings))
        XCTAssertEqual(parts.terms.count, Set(parts.terms.strings).count, "each term once")
        XCTAssertEqual(parts.range, whole.range)
        XCTAssertGreaterThan(whole.terms.count, 1_000)
        func named(_ item: PreparedUpsert, in window: PreparedUpsert.Window) -> [String: UInt8] {
            Dictionary(item.termIndexes.map { (window.terms.string(Int($0.index)), $0.tiers) }, uniquingKeysWith: { a, _ in a })
        }
        var prepared = 0
        for position in range {
            let a = whole.item(at: position), b = parts.item(at: position)
            XCTAssertEqual(a == nil, b == nil, "position \(position)")
            guard let a, let b else { continue }
            prepared += 1
            guard case .upsert(let upserted, _, _, _) = operations[position] else { continue }
            let expected = TextIndexer.terms(attributes: upserted.attributes, custom: upserted.customAttributes,
                                             domain: upserted.domainIdentifier)
            XCTAssertEqual(named(b, in: parts), expected, "position \(position)")
            XCTAssertEqual(named(a, in: whole), expected, "position \(position)")
            XCTAssertEqual(b.termIndexes.count, expected.count, "each term once")
            XCTAssertEqual(a.initials, Data(Initials.encode(expected)))
            XCTAssertEqual(a.plain, b.plain)
        }
        XCTAssertEqual(prepared, range.filter { $0 % 7 != 3 }.count)
        XCTAssertEqual(parts.offers?.added.count, whole.offers?.added.count)
        // Fewer upserts than are worth preparing: nothing prepared, either way.
        let few = PreparedUpsert.Background(operations, in: 0..<10, hot: [], now: now).value()
        XCTAssertTrue(few.items.isEmpty)
        XCTAssertTrue(PreparedUpsert.prepare(operations, in: 0..<10, hot: [], now: now).items.isEmpty)
    }

    func testValueCodecRoundTripsEveryKind() throws {
        let attributes: [String: AttributeValue] = [
            "s": .string("héllo ✓"), "i": .int(-42), "d": .double(3.25), "t": .bool(true), "f": .bool(false),
            "date": .date(Date(timeIntervalSinceReferenceDate: 123.5)), "data": .data(Data([0, 1, 255])),
            "url": .url(URL(string: "https://example.com/a?b=c")!),
            "person": .person(PersonValue(displayName: "Brent", handles: ["+1 555"], handleIdentifier: "phoneNumbers",
                                          contactIdentifier: "c1")),
            "anon": .person(PersonValue(displayName: nil, handles: [], handleIdentifier: "emailAddresses")),
            "loc": .localized(["en": "Song", "fr": "Chanson"]),
            "arr": .array([.string("a"), .int(1), .null]), "null": .null, "empty": .array([]),
        ]
        let custom = ["com_x": CustomAttribute(value: .int(3), isSearchable: true, isSearchableByDefault: true,
                                               isUnique: true, isMultiValued: false)]
        let decoded = try ValueCodec.decode(ValueCodec.encode(attributes: attributes, custom: custom))
        XCTAssertEqual(decoded.attributes, attributes)
        XCTAssertEqual(decoded.custom, custom)
    }

    func testValueCodecRejectsGarbage() {
        for bytes: [UInt8] in [[5], [1, 0, 3, 0x61], [1, 0, 1, 0x61, 99], [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]] {
            XCTAssertThrowsError(try ValueCodec.decode(bytes)) { error in
                XCTAssertEqual((error as? EngineError)?.code, .corruptIndex)
            }
        }
    }

    func testWordsMatchAsWordsAndTheLastAsAPrefix() throws {
        try store.apply([.upsert(item("1", title: "Berry Blue", description: "A berry smoothie")),
                         .upsert(item("2", title: "Strawberry", description: "Fresh strawberries")),
                         .upsert(item("3", title: "Mango", description: "Tropical"))], now: now)
        XCTAssertEqual(try search("berry"), ["1"], "berry is not a prefix of strawberry")
        XCTAssertEqual(try search("ber"), ["1"])
        XCTAssertEqual(try search("BERRY smoo"), ["1"], "case is ignored; the last word is a prefix")
        XCTAssertEqual(try search("berry strawberry"), [], "every word must match")
        XCTAssertEqual(try search("smoothie berry"), ["1"], "all words but the last match whole words")
        XCTAssertEqual(try search("smooth berry"), [], "a non-final word is not a prefix")
    }

    func testTierOrdersResults() throws {
        try store.apply([.upsert(item("body", title: "Zzz", body: "milk")),
                         .upsert(item("desc", title: "Yyy", description: "milk")),
                         .upsert(item("kw", title: "Xxx", keywords: ["milk"])),
                         .upsert(item("title", title: "Milk"))], now: now)
        XCTAssertEqual(try search("milk"), ["title", "kw", "desc", "body"])
        XCTAssertEqual(try search("mil"), ["title", "kw", "desc", "body"])
    }

    func testExactBeatsPrefixAndStaticSignalsBreakTies() throws {
        try store.apply([.upsert(item("prefix", title: "Milkshake")),
                         .upsert(item("exact", title: "Milk")),
                         .upsert(item("hinted", title: "Milk", hint: 100)),
                         .upsert(item("recent", title: "Milk", lastUsed: now.addingTimeInterval(-3600)))], now: now)
        XCTAssertEqual(try search("milk"), ["hinted", "recent", "exact", "prefix"],
                       "exact matches first, ordered by static signals, then the prefix match")
        XCTAssertEqual(try search("milk shake"), [], "a non-final word matches whole words only")
    }

    func testStaticSignalsNeverBuryABetterTextMatch() throws {
        try store.apply([.upsert(item("strong", title: "Chocolate milk")),
                         .upsert(item("weak", title: "Shake", body: "chocolate", hint: 100, lastUsed: now))], now: now)
        var options = TextSearchOptions()
        options.now = now
        options.boosts = ["weak": 2]
        XCTAssertEqual(try store.search("chocolate", options: options).map(\.item.uniqueIdentifier), ["strong", "weak"])
    }

    func testExplanationAddsUp() throws {
        try store.apply([.upsert(item("a", title: "Natural Bridges", hint: 50))], now: now)
        var options = TextSearchOptions()
        options.now = now
        let hit = try XCTUnwrap(store.search("natural bri", options: options).first)
        XCTAssertEqual(hit.explanation.words.map(\.kind), [.exact, .prefix])
        XCTAssertEqual(hit.explanation.words.map(\.tier), [0, 0])
        XCTAssertEqual(hit.explanation.rankingHintPoints, Ranking.maxRankingHintPoints / 2, accuracy: 1e-9)
        XCTAssertEqual(hit.score, hit.explanation.total, accuracy: 1e-9)
        XCTAssertTrue(hit.explanation.description.contains("natural→natural exact tier 0"))
    }

    func testDeletesAndUpdatesLeaveNoGhosts() throws {
        try store.apply([.upsert(item("a", title: "alpha beta")), .upsert(item("b", title: "beta gamma"))], now: now)
        try store.apply([.upsert(item("a", title: "delta"))], now: now)
        XCTAssertEqual(try search("alpha"), [])
        XCTAssertEqual(try search("beta"), ["b"])
        try store.apply([.delete(identifiers: ["b"])], now: now)
        XCTAssertEqual(try search("beta"), [])
        XCTAssertEqual(try search("gam"), [])
        XCTAssertEqual(try store.documentFrequency(of: "beta"), 0, "no live item holds it")
        XCTAssertEqual(try store.completions(of: "bet").map(\.term), [])
        try store.performMaintenance()
        XCTAssertEqual(try store.documentFrequency(of: "beta"), 0)
        try store.checkIntegrity()
    }

    func testMergeKeepsOtherAttributesAndClearsExplicitNils() throws {
        try store.apply([.upsert(item("a", title: "Title", description: "Desc", keywords: ["k"]))], now: now)
        let patch = StoredItem(uniqueIdentifier: "a", expirationDate: later,
                               attributes: ["lastUsedDate": .date(now)])
        try store.apply([.upsert(patch, isUpdate: true, clearedAttributes: ["keywords"], clearedCustomKeys: [])], now: now)
        let back = try XCTUnwrap(store.item(withIdentifier: "a", now: now))
        XCTAssertEqual(back.attributes["title"], .string("Title"))
        XCTAssertEqual(back.attributes["contentDescription"], .string("Desc"))
        XCTAssertEqual(back.attributes["lastUsedDate"], .date(now))
        XCTAssertNil(back.attributes["keywords"])
        XCTAssertEqual(try search("k"), [])
    }

    func testCandidatesComeFromTheIndex() throws {
        try store.apply([.upsert(item("1", title: "Natural Bridges", keywords: ["Natural Bridges State Park"])),
                         .upsert(item("2", title: "Arches"))], now: now)
        let ids = try store.read { try TermLookup.term("natur", prefix: true).candidateIDs($0) }
        XCTAssertEqual(ids.count, 1)
        let none = try store.read { try TermLookup.all([.term("natural", prefix: false), .term("arches", prefix: false)]).candidateIDs($0) }
        XCTAssertTrue(none.isEmpty)
        let both = try store.read { try TermLookup.any([.term("natural", prefix: false), .term("arches", prefix: false)]).candidateIDs($0) }
        XCTAssertEqual(both.count, 2)
    }

    func testEmptyTextReturnsItemsByStaticScore() throws {
        try store.apply([.upsert(item("low", title: "a", hint: 1)), .upsert(item("high", title: "b", hint: 90))], now: now)
        XCTAssertEqual(try search(""), ["high", "low"])
    }

    func testExpiredItemsAreInvisibleAndPurgedOnWrite() throws {
        var old = item("old", title: "expiring")
        old.expirationDate = now.addingTimeInterval(10)
        try store.apply([.upsert(old), .upsert(item("new", title: "expiring too"))], now: now)
        let after = now.addingTimeInterval(20)
        var options = TextSearchOptions()
        options.now = after
        XCTAssertEqual(try store.search("expiring", options: options).map(\.item.uniqueIdentifier), ["new"])
        XCTAssertNil(try store.item(withIdentifier: "old", now: after))
        XCTAssertEqual(try store.count(now: after), 1)
        try store.apply([], now: after)
        XCTAssertEqual(try store.rowCount(), 1, "the next write purges expired items")
    }

    func testInspection() throws {
        try store.apply([.upsert(item("1", domain: "a")), .upsert(item("2", domain: "a.b")),
                         .upsert(item("3", domain: "ab")), .upsert(item("4"))], now: now)
        XCTAssertEqual(try store.count(now: now), 4)
        XCTAssertEqual(try store.count(domain: "a", now: now), 2)
        XCTAssertEqual(try store.listItems(limit: 2, now: now).map(\.uniqueIdentifier), ["1", "2"])
        XCTAssertEqual(try store.listItems(after: "2", limit: 10, now: now).map(\.uniqueIdentifier), ["3", "4"])
        XCTAssertEqual(try store.domains(now: now).map(\.domain), ["a", "a.b", "ab"])
        XCTAssertGreaterThan(store.diskSize(), 0)
    }

    func testNewerFormatIsRefused() throws {
        try store.read { _ in }
        try store.pool.write { try $0.execute(sql: "UPDATE meta SET value = 99 WHERE key = 'formatVersion'") }
        XCTAssertThrowsError(try IndexStore(url: store.url)) { error in
            XCTAssertEqual((error as? EngineError)?.code, .unsupportedFormat)
        }
    }

    func testGarbageFileIsCorrupt() throws {
        let url = directory.appendingPathComponent("garbage.sqlite")
        try Data(repeating: 7, count: 4096).write(to: url)
        XCTAssertThrowsError(try IndexStore(url: url)) { error in
            XCTAssertEqual((error as? EngineError)?.code, .corruptIndex)
        }
        XCTAssertThrowsError(try IndexStore(url: directory.appendingPathComponent("missing.sqlite"), create: false)) { error in
            XCTAssertEqual((error as? EngineError)?.code, .indexUnavailable)
        }
    }

    func testCompareAndSetClientState() throws {
        try store.apply([.upsert(item("a"))], clientState: .compareAndSet(expected: nil, new: Data("1".utf8)), now: now)
        XCTAssertThrowsError(try store.apply([.upsert(item("b"))], clientState: .compareAndSet(expected: nil, new: Data("2".utf8)), now: now)) {
            XCTAssertEqual(($0 as? EngineError)?.code, .mismatchedClientState)
        }
        XCTAssertNil(try store.item(withIdentifier: "b", now: now))
        XCTAssertEqual(try store.clientState(), Data("1".utf8))
        try store.apply([.deleteAll], now: now)
        XCTAssertNil(try store.clientState())
    }

    struct Hinted {
        var id: String
        var hint: Int
    }

    static func byHint(_ items: [Hinted]) -> [String] {
        items.sorted { a, b in a.hint != b.hint ? a.hint > b.hint : a.id < b.id }.map { $0.id }
    }

    func testShortPrefixesUseTruncatedListsAndStayExactForStaticRanking() throws {
        // 200 items whose titles start with "r", ranking hints 0…199 % 100.
        let all: [Hinted] = (0..<200).map { Hinted(id: String(format: "r%03d", $0), hint: $0 % 100) }
        try store.apply(all.map { .upsert(item($0.id, title: "rx" + $0.id, hint: $0.hint)) }, now: now)
        // (One- and two-letter lists keep more entries than longer ones: "rxr" is the truncated one here; "r" and
        // "rx" hold every item, complete lists stored as their count.)
        for prefix in ["r", "rx"] {
            let stored = try XCTUnwrap(store.read { try Data.fetchOne($0, sql: "SELECT entries FROM prefixTop WHERE prefix = ?", arguments: [prefix]) })
            XCTAssertEqual(PrefixLists.storedCount(Array(stored)), 200, prefix)
        }
        let list = try XCTUnwrap(store.read { try PrefixLists.list("rxr", db: $0) })
        XCTAssertFalse(list.complete)
        XCTAssertEqual(list.entries.count, PrefixLists.capacity)
        let ranked = Self.byHint(all)
        XCTAssertEqual(try search("r"), Array(ranked.prefix(20)))
        XCTAssertEqual(try search("rx"), Array(ranked.prefix(20)))
        XCTAssertEqual(try search("rxr"), Array(ranked.prefix(20)))

        // Delete the best 150: the list refills from the postings and the ranking stays right.
        let deleted = Array(ranked.prefix(150))
        try store.apply([.delete(identifiers: deleted)], now: now)
        let left = Self.byHint(all.filter { !deleted.contains($0.id) })
        XCTAssertEqual(try search("r"), Array(left.prefix(20)))
        XCTAssertEqual(try search("rxr"), Array(left.prefix(20)))
        // 50 items left: a complete list, stored as its count (`PrefixLists.countsCompleteLists`).
        let refilled = try XCTUnwrap(store.read { try Data.fetchOne($0, sql: "SELECT entries FROM prefixTop WHERE prefix = 'rxr'") })
        XCTAssertEqual(PrefixLists.storedCount(Array(refilled)), 50)
        XCTAssertEqual(try search("r", limit: 0).count, 50)
        XCTAssertEqual(try search("rxr", limit: 0).count, 50)
    }

    func testUpdatesKeepATruncatedListFullWithoutRefillingIt() throws {
        // The new version of an entry ranks as the old one did (same key, same identifier): it takes its place,
        // also when it was the last entry, so updating every item never empties the list into a refill.
        let all: [Hinted] = (0..<200).map { Hinted(id: String(format: "r%03d", $0), hint: $0 % 100) }
        try store.apply(all.map { .upsert(item($0.id, title: "rx" + $0.id, hint: $0.hint)) }, now: now)
        let before = try XCTUnwrap(store.read { try PrefixLists.list("rxr", db: $0) })
        XCTAssertFalse(before.complete)
        XCTAssertEqual(before.entries.count, PrefixLists.capacity)
        let refills = PrefixLists.refills.load(ordering: .relaxed)
        for round in 0..<3 {
            // Large writes (they update the lists themselves) and small ones (left pending, then applied), the
            // last entries of the list among them in every write.
            for batch in [all.suffix(120), all.prefix(80).suffix(70), all.prefix(10)] {
                try store.apply(batch.map { .upsert(item($0.id, title: "rx" + $0.id, description: "round \(round)", hint: $0.hint)) },
                                now: now)
                _ = try store.performMaintenance()
                let list = try XCTUnwrap(store.read { try PrefixLists.list("rxr", db: $0) })
                XCTAssertEqual(list.entries.map(\.uid), before.entries.map(\.uid))
                XCTAssertEqual(list.entries.map(\.key), before.entries.map(\.key))
                XCTAssertFalse(list.complete)
                let rebuilt = try store.read { try PrefixLists.refill("rxr", db: $0, now: now) }
                XCTAssertEqual(list.entries, Array(rebuilt.0.prefix(list.entries.count)), "the list is the best of the postings")
            }
        }
        // (The comparisons above refilled once each.)
        XCTAssertEqual(PrefixLists.refills.load(ordering: .relaxed) - refills, 9, "no write refilled a list")
        XCTAssertEqual(try search("rxr"), Array(Self.byHint(all).prefix(20)))
        XCTAssertEqual(try search("r"), Array(Self.byHint(all).prefix(20)))
    }

    func testShortPrefixListsFollowUpdatesAndDeleteAll() throws {
        try store.apply([.upsert(item("a", title: "Apple")), .upsert(item("b", title: "Apricot"))], now: now)
        XCTAssertEqual(try search("ap"), ["a", "b"])
        try store.apply([.upsert(item("a", title: "Banana"))], now: now)
        XCTAssertEqual(try search("ap"), ["b"], "an update removes the item from lists it left")
        XCTAssertEqual(try search("ba"), ["a"])
        try store.apply([.deleteAll], now: now)
        XCTAssertEqual(try search("ap"), [])
        XCTAssertNil(try store.read { try PrefixLists.list("ap", db: $0) })
    }

    func testPrefixListCandidatesIncludeEngagedItems() throws {
        // "z000" is outside the list (hint 0, 100 better items), but engagement must be able to lift it.
        try store.apply((1...100).map { .upsert(item("z\($0)", title: "zed \($0)", hint: 50)) }
                        + [.upsert(item("z000", title: "zed", hint: 0))], now: now)
        var options = TextSearchOptions(limit: 5)
        options.now = now
        options.boosts = ["z000": 2]
        XCTAssertEqual(try store.search("z", options: options).first?.item.uniqueIdentifier, "z000")
    }

    func testPrefixListResultsEqualRankingEveryMatch() throws {
        // Items with varied tiers, hints and recency: the list path must give exactly the full ranking.
        let words = ["python", "pytest", "pyramid", "pythonic", "pyyaml", "pandas", "py"]
        var operations: [IndexOperation] = []
        for i in 0..<400 {
            let word = words[i % words.count]
            let recent = i % 5 == 0 ? now.addingTimeInterval(-Double(i) * 3_600) : nil
            let title = i % 3 == 0 ? "\(word) tool \(i)" : "tool \(i)"
            let description = i % 3 == 0 ? nil : "a \(word) helper"
            operations.append(.upsert(item("i\(i)", title: title, description: description, hint: (i * 37) % 101,
                                            lastUsed: recent)))
        }
        try store.apply(operations, now: now)
        // Now, and two months later when the recency in the lists' keys has gone stale.
        for later: TimeInterval in [0, 60 * 86_400] {
            for query in ["p", "py", "pyt", "pyth", "pytho", "python", "pa"] {
                var fast = TextSearchOptions(limit: 20)
                fast.now = now.addingTimeInterval(later)
                var slow = fast
                slow.usePrefixLists = false
                XCTAssertEqual(try store.search(query, options: fast).map(\.item.uniqueIdentifier),
                               try store.search(query, options: slow).map(\.item.uniqueIdentifier), "\(query) +\(later)")
            }
        }
    }

    func testWritersFindLongPrefixListsThroughTheirOwnIndex() throws {
        try store.apply([.upsert(item("a", title: "Apple"))], now: now)
        try store.pool.write { try PrefixLists.create("appl", db: $0) }
        let plan = try store.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT prefix FROM prefixTop WHERE length(prefix) > \(PrefixLists.eagerPrefixLength)")
                .map { $0["detail"] as String }.joined(separator: " ")
        }
        XCTAssertTrue(plan.contains("prefixTop_long"), plan)
        XCTAssertEqual(try store.read { try PrefixLists.hotPrefixes($0) }, ["appl"])
    }

    /// Names with joiners are found joined and split (issue 13): `obrien` and `o'brien` find "Miles O’Brien".
    func testJoinedNamesAreFoundJoinedAndSplit() throws {
        try store.apply([
            .upsert(item("obrien", title: "Miles O’Brien")),
            .upsert(item("wifi", title: "Wi-Fi router", description: "dual band")),
            .upsert(item("att", title: "AT&T bill")),
            .upsert(item("rock", title: "rock'n'roll classics")),
            .upsert(item("other", title: "Brien Street, block O")),
        ], now: now)
        // "Brien Street" follows as a typo match: `obrien` is `brien` with one letter typed before it.
        XCTAssertEqual(try search("obrien"), ["obrien", "other"])
        XCTAssertEqual(try search("obri"), ["obrien", "other"], "the joined name as a prefix, as it is typed")
        XCTAssertEqual(try store.search("obrien", options: {
            var o = TextSearchOptions()
            o.now = now
            o.typoTolerance = false
            return o
        }()).map(\.item.uniqueIdentifier), ["obrien"], "without typos, only the joined name")
        XCTAssertEqual(Set(try search("o'brien")), ["obrien", "other"], "split, both words match either")
        XCTAssertEqual(try search("miles o'brien"), ["obrien"])
        XCTAssertEqual(try search("wifi"), ["wifi"])
        XCTAssertEqual(try search("wi-fi"), ["wifi"])
        XCTAssertEqual(try search("att"), ["att"])
        XCTAssertEqual(try search("rocknroll"), ["rock"])
        XCTAssertEqual(try search("rock roll"), ["rock"])
    }

    func testTypoMatchesNeverComeFromPrefixLists() throws {
        // (An empty list with its entries, as formats before 20 stored it.)
        try withWholeLists {
        // 1,200 items match "controz" only through a typo: no list for "controz" may be made, and one that exists
        // (an older version made them) must not hide the typo matches.
        try store.apply((0..<1_200).map { .upsert(item("c\($0)", title: "control \($0)")) }, now: now)
        XCTAssertEqual(try search("controz").count, 20)
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertNil(try store.read { try PrefixLists.list("controz", db: $0) }, "typo matches make no list")
        try store.pool.write { try PrefixLists.create("controz", db: $0) }
        XCTAssertEqual(try store.read { try PrefixLists.list("controz", db: $0) }?.entries.count, 0)
        XCTAssertEqual(try search("controz").count, 20, "an empty list of the typed prefix does not answer")
        XCTAssertEqual(try search("prnit").count, 0)
        }
    }

    /// A list that changes is updated in place: its row keeps its rowid (an `INSERT OR REPLACE` appended it again
    /// under a new one, leaving a hole in its old page that only that page's rows could fill), and its content is
    /// the new one.
    func testAChangedListKeepsItsRow() throws {
        try withWholeLists {
        try store.apply((0..<30).map { .upsert(item("k\($0)", title: "kettle \($0)")) }, now: now)
        try store.pool.write { try PrefixLists.create("ke", db: $0) }
        func row() throws -> (rowid: Int64, count: Int) {
            let rowid = try XCTUnwrap(store.read { try Int64.fetchOne($0, sql: "SELECT rowid FROM prefixTop WHERE prefix = 'ke'") })
            return (rowid, try XCTUnwrap(store.read { try PrefixLists.list("ke", db: $0) }).entries.count)
        }
        let before = try row()
        XCTAssertEqual(before.count, 30)
        try store.apply((30..<35).map { .upsert(item("k\($0)", title: "kettle \($0)")) }, now: now)
        try store.performMaintenance()
        try store.pool.write { try PrefixLists.create("ke", db: $0, replacing: true) }
        let after = try row()
        XCTAssertEqual(after.count, 35)
        XCTAssertEqual(after.rowid, before.rowid, "updated in place")
        }
    }

    /// A two-letter prefix under a filter that keeps a third of the items is answered from its list (256 entries:
    /// with 64, about 19 of them passed, too few for a page, and every match was ranked), with the hits ranking
    /// every match gives.
    func testTwoLetterListsAnswerWideFilters() throws {
        let day: TimeInterval = 86_400
        try store.apply((0..<600).map { n in
            .upsert(StoredItem(uniqueIdentifier: String(format: "py%03d", n), domainIdentifier: nil, expirationDate: .distantFuture,
                               attributes: ["title": .string("py\(n) tool"), "rankingHint": .int(Int64(n &* 2_654_435_761 % 1_000)),
                                            "contentModificationDate": .date(now.addingTimeInterval(-Double(n % 100) * day))]))
        }, now: now)
        let list = try XCTUnwrap(store.read { try PrefixLists.list("py", db: $0) })
        XCTAssertFalse(list.complete)
        XCTAssertEqual(list.entries.count, PrefixLists.shortPrefixCapacity)
        let lower = now.addingTimeInterval(-29.5 * day).timeIntervalSinceReferenceDate
        func search(lists: Bool) throws -> [String] {
            var options = TextSearchOptions(limit: 20)
            options.now = now
            options.usePrefixLists = lists
            options.filter = { item in
                guard case .date(let date)? = item.attributes["contentModificationDate"] else { return false }
                return date.timeIntervalSinceReferenceDate >= lower
            }
            options.filterLookup = .range("contentModificationDate", lower: lower, upper: .infinity)
            return try store.search("py", options: options).map(\.item.uniqueIdentifier)
        }
        let fallbacks = PrefixLists.fallbacks.value
        let fromList = try search(lists: true)
        XCTAssertEqual(PrefixLists.fallbacks.value, fallbacks, "the list answered")
        XCTAssertEqual(fromList.count, 20)
        XCTAssertEqual(fromList, try search(lists: false))
    }

    func testLongPrefixesWithManyMatchesGetListsThatWritersKeep() throws {
        try store.apply((0..<1_200).map { .upsert(item("m\($0)", title: "module\($0)", hint: $0 % 100)) }, now: now)
        store.waitForMaintenance()
        XCTAssertNil(try store.read { try PrefixLists.list("modu", db: $0) })
        let writes = store.writeTransactions.load(ordering: .relaxed)
        let first = try search("modu")
        Thread.sleep(forTimeInterval: 0.2)
        // A search never writes: it only notes the busy prefix for the store's maintenance.
        XCTAssertNil(try store.read { try PrefixLists.list("modu", db: $0) }, "the search wrote nothing")
        XCTAssertEqual(store.writeTransactions.load(ordering: .relaxed), writes, "no write transaction ran")
        try store.performMaintenance()
        let list = try store.read { try PrefixLists.list("modu", db: $0) }
        XCTAssertEqual(list?.entries.count, PrefixLists.capacity)
        XCTAssertEqual(try search("modu"), first, "the list gives the same result")
        try store.apply([.upsert(item("top", title: "modular", hint: 100))], now: now)
        XCTAssertEqual(try search("modu").first, "top", "writers keep the long list")
        try store.apply([.delete(identifiers: ["top"])], now: now)
        XCTAssertEqual(try search("modu"), first)
    }

    /// `golang-go-…` matches `go` exactly in its name, and its first word only begins with `go`: its score has no
    /// name-start part (`NameMatch.firstWordMatches`), and neither may its key, or a list of 256 such items keyed
    /// above their scores can never settle its top 20 (Debian's `go`: every search read the whole list and then
    /// ranked every match).
    func testAWholeNameWordKeysNoNameStartWhenTheFirstWordOnlyBeginsWithIt() throws {
        var operations: [IndexOperation] = (0..<300).map { .upsert(item(String(format: "golang-go-%03d", $0), title: String(format: "golang-go-%03d", $0))) }
        operations += (0..<5).map { .upsert(item("go-thing-\($0)", title: "go-thing-\($0)")) }
        operations += (0..<5).map { .upsert(item("gopher-\($0)", title: "gopher \($0)")) }
        try store.apply(operations, now: now)
        let list = try XCTUnwrap(store.read { try PrefixLists.list("go", db: $0) })
        XCTAssertFalse(list.complete)
        var fast = TextSearchOptions(limit: 20)
        fast.now = now
        var slow = fast
        slow.usePrefixLists = false
        let expected = try store.search("go", options: slow)
        XCTAssertEqual(expected.prefix(5).map(\.item.uniqueIdentifier), (0..<5).map { "go-thing-\($0)" })
        let golang = try XCTUnwrap(expected.first { $0.item.uniqueIdentifier.hasPrefix("golang") })
        XCTAssertEqual(golang.explanation.nameStartPoints, 0, "its first word only begins with the word")
        let fallbacks = PrefixLists.fallbacks.value
        XCTAssertEqual(try store.search("go", options: fast).map(\.item.uniqueIdentifier), expected.map(\.item.uniqueIdentifier))
        XCTAssertEqual(PrefixLists.fallbacks.value, fallbacks, "the list settled its top 20")
    }

    func testPrefixListsBreakTiesByIdentifierLikeTheRanking() throws {
        // 300 items with the same key for "a" (exact name word, no hint): ties are ordered by identifier.
        try store.apply((0..<300).reversed().map { .upsert(item(String(format: "pypi:odoo14-addon-l10n-%03d", $0), title: "a thing \($0)")) },
                        now: now)
        var fast = TextSearchOptions(limit: 20)
        fast.now = now
        var slow = fast
        slow.usePrefixLists = false
        let expected = (0..<20).map { String(format: "pypi:odoo14-addon-l10n-%03d", $0) }
        let fallbacks = PrefixLists.fallbacks.value
        defer { XCTAssertEqual(PrefixLists.fallbacks.value, fallbacks, "the lists answered without ranking every match") }
        XCTAssertEqual(try store.search("a", options: slow).map(\.item.uniqueIdentifier), expected)
        XCTAssertEqual(try store.search("a", options: fast).map(\.item.uniqueIdentifier), expected)
        XCTAssertEqual(try store.search("th", options: fast).map(\.item.uniqueIdentifier), expected)
    }
}
