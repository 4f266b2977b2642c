import Foundation
import SpotlightTestSupport
import XCTest
@testable import SpotlightEngine
import SpotlightQueryLanguage

/// The planner must name a superset of every query's matches: the planned result equals the full scan's.
final class QueryPlannerTests: XCTestCase {
    var directory: URL!
    var store: IndexStore!
    let now = Date(timeIntervalSinceReferenceDate: 800_000_000)
    let calendar = utcCalendar

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("planner-\(UUID().uuidString)")
        store = try IndexStore(url: directory.appendingPathComponent("p.sqlite"))
        let day: TimeInterval = 86_400
        func item(_ id: String, _ attributes: [String: AttributeValue], custom: [String: CustomAttribute] = [:]) -> IndexOperation {
            .upsert(StoredItem(uniqueIdentifier: id, domainIdentifier: id.hasPrefix("d") ? "docs" : "misc",
                               expirationDate: now.addingTimeInterval(400 * day), attributes: attributes,
                               customAttributes: custom))
        }
        try store.apply([
            item("d1", ["title": .string("Natural Bridges"), "keywords": .array([.string("Utah"), .string("Park")]),
                        "rankingHint": .int(80), "contentCreationDate": .date(now.addingTimeInterval(-2 * day))]),
            item("d2", ["title": .string("iPhoneCase review"), "rankingHint": .int(10),
                        "contentCreationDate": .date(now.addingTimeInterval(-40 * day)), "supportsPhoneCall": .bool(true)]),
            item("m1", ["title": .string("Café Crème"), "rating": .double(4.5),
                        "importantDates": .array([.date(now), .date(now.addingTimeInterval(-300 * day))])]),
            item("m2", ["displayName": .string("MyWindowClass"), "rankingHint": .int(55)],
                 custom: ["com_acme_priority": CustomAttribute(value: .int(3))]),
            item("m3", ["title": .string("Lunch?"), "contentCreationDate": .date(now)]),
            // The same words in different attributes, so a lookup that reads the wrong tier's postings shows.
            item("t1", ["title": .string("Utah trails"), "contentDescription": .string("natural arches and bridges"),
                        "keywords": .array([.string("hiking")]), "contentType": .string("public.text")],
                 custom: ["com_acme_note": CustomAttribute(value: .string("bridges at dawn"), isSearchableByDefault: true),
                          "com_acme_code": CustomAttribute(value: .string("utah-42"))]),
            item("t2", ["keywords": .array([.string("text"), .string("natural")]), "contentType": .string("public.text")]),
        ], now: now)
    }

    override func tearDownWithError() throws {
        try store.close()
        try? FileManager.default.removeItem(at: directory)
    }

    func testPlannedResultsEqualTheFullScan() throws {
        let queries = [
            #"title == "natural*"cwd"#, #"keywords == "utah"c"#, #"title == "phoneCase"wc"#, #"title == "cafe*"cd"#,
            #"displayName == "window"wc"#, #"** == "crème"cd"#, "rankingHint >= 50", "rankingHint < 50",
            "InRange(rankingHint, 10, 60)", "rankingHint == 55", "rankingHint != 55", "rating > 4",
            "contentCreationDate >= $time.today(-7)", "contentCreationDate == $time.today",
            "InRange(contentCreationDate, $time.this_month(-2), $time.now)", "importantDates < $time.today(-30)",
            "supportsPhoneCall == true", "com_acme_priority > 2", "com_acme_priority == 3",
            #"rankingHint > 5 && title == "*review*"c"#, #"(rankingHint > 70 || title == "lunch*"c) && !(title == "x")"#,
            #"title == "Lunch\?""#, #"domainIdentifier == "docs""#, "true", #"title == "*""#,
            #"keywords == "natural*"cwdt"#, #"keywords == "tex*"cwdt"#, #"keywords == "utah*"cwdt"#,
            #"kMDItemKeywords == "hik*"cwdt"#, #"contentDescription == "bridge*"cwdt"#, #"kMDItemTitle == "utah*"cwd"#,
            #"contentType == "public.text""#, #"contentType == "text*"cwd"#, #"com_acme_note == "dawn*"cwd"#,
            #"com_acme_code == "utah*"cwd"#, #"com_acme_note == "utah*"cwd"#, #"* == "dawn*"cwd"#, #"** == "hiking"cwd"#,
            #"* == "utah*"cwd && keywords == "hik*"cwd"#, #"keywords == "natural*"cwd || title == "natural*"cwd"#,
            #"domainIdentifier == "misc*"c"#,
            "rankingHint >= 10 && rankingHint < 60", "rankingHint > 60 && rankingHint < 10",
            "contentCreationDate >= $time.today(-50) && contentCreationDate < $time.today && rankingHint > 1",
        ]
        for query in queries {
            let expression = try QueryParser.parse(query)
            let compiled = CompiledQuery(expression, now: now, calendar: calendar)
            let options = QueryOptions(limit: 0, now: now)
            let scan = try store.items(matching: compiled, plan: .scan, options: options).map(\.uniqueIdentifier).sorted()
            let planned = try store.items(matching: compiled, plan: QueryPlanner.plan(expression, now: now, calendar: calendar),
                                          options: options).map(\.uniqueIdentifier).sorted()
            XCTAssertEqual(planned, scan, query)
        }
    }

    func testAttributeLookupsReadOnlyThatAttributesTierPostings() throws {
        func count(_ q: String) throws -> Int {
            guard let lookup = QueryPlanner.lookup(try QueryParser.parse(q), now: now, calendar: calendar) else { return -1 }
            return try store.read { try lookup.candidateIDs($0).count }
        }
        XCTAssertEqual(try count(#"keywords == "tex*"cwdt"#), 1, "t2's keyword, not every item's public.text content type")
        XCTAssertEqual(try count(#"contentType == "text*"cwd"#), 2)
        XCTAssertEqual(try count(#"keywords == "natural*"cwdt"#), 1, "d1 and t1 have the word in other attributes")
        XCTAssertEqual(try count(#"* == "natural*"cwdt"#), 3)
        XCTAssertEqual(try count(#"com_acme_note == "bridges"cwdt"#), 1, "t1's custom note (or d1's title: body tier only)")
    }

    func testAttributeQueriesStreamTheirItemsAsTheListsAreRead() throws {
        // Many items share `common`; one has `commonplace`: a limited query takes the first items of the first
        // term's list (terms in text order, each list in item order), and the whole query finds each item once.
        try store.apply((0..<300).map { i in
            .upsert(StoredItem(uniqueIdentifier: "k\(i)", expirationDate: now.addingTimeInterval(86_400),
                               attributes: ["keywords": .array([.string(i == 299 ? "commonplace" : "common")])]))
        }, now: now)
        let expression = try QueryParser.parse(#"keywords == "common*"cwdt"#)
        let plan = QueryPlanner.plan(expression, now: now, calendar: calendar)
        let first = try store.items(matching: CompiledQuery(expression, now: now, calendar: calendar), plan: plan,
                                    options: QueryOptions(limit: 1, now: now))
        XCTAssertEqual(first.map(\.uniqueIdentifier), ["k0"])
        let rare = try QueryParser.parse(#"keywords == "commonp*"cwdt"#)
        XCTAssertEqual(try store.items(matching: CompiledQuery(rare, now: now, calendar: calendar),
                                       plan: QueryPlanner.plan(rare, now: now, calendar: calendar),
                                       options: QueryOptions(limit: 0, now: now)).map(\.uniqueIdentifier), ["k299"])
        let all = try store.items(matching: CompiledQuery(expression, now: now, calendar: calendar), plan: plan,
                                  options: QueryOptions(limit: 0, now: now))
        XCTAssertEqual(all.count, 300)
        XCTAssertEqual(Set(all.map(\.uniqueIdentifier)).count, 300, "each item once")
    }

    func testBroadPartsAndedStreamTheNarrowestAndFallBackWhenTheIntersectionIsSparse() throws {
        // Items 0..<1200 have `delta` keywords only; 1200..<2700 have `alpha…` keywords, every third or every other
        // also `beta…` (a dense intersection: the first batch comes from streaming); the last five have `delta` too
        // (a sparse intersection: streaming `delta` meets 1,200 non-matches first, runs out of its budget, and the
        // intersection finds the five). Every way, each match comes once and the matches are the brute-force ones.
        let deltaOnly = 1_200, total = 2_700
        XCTAssertGreaterThan(deltaOnly, IndexStore.streamedIntersectionMinimum)
        XCTAssertGreaterThan(deltaOnly, IndexStore.streamedIntersectionBudget)
        func id(_ i: Int) -> String { String(format: "k%04d", i) }
        try store.apply((0..<total).map { i in
            var words: [AttributeValue] = []
            if i < deltaOnly || i >= total - 5 { words.append(.string("delta")) }
            if i >= deltaOnly {
                words.append(.string("alpha\(i % 7)"))
                if i % 3 == 0 { words.append(.string("beta")) }
                if i % 2 == 0 { words.append(.string("betamax")) }
            }
            return .upsert(StoredItem(uniqueIdentifier: id(i), expirationDate: now.addingTimeInterval(86_400),
                                      attributes: ["keywords": .array(words), "title": .string("item \(i)")]))
        }, now: now)
        func run(_ text: String, limit: Int) throws -> [String] {
            let expression = try QueryParser.parse(text)
            let plan = QueryPlanner.plan(expression, now: now, calendar: calendar)
            guard case .candidates(.all) = plan else { XCTFail("\(text) plans as an intersection: \(plan)"); return [] }
            return try store.items(matching: CompiledQuery(expression, now: now, calendar: calendar), plan: plan,
                                   options: QueryOptions(limit: limit, now: now)).map(\.uniqueIdentifier)
        }
        // Every way: streamed, falling back to intersecting the parts (the parts' postings count as many);
        // streamed, falling back to streaming the widest part through the others (these count as few); and the
        // widest part streamed through the others from the start (all parts count as few).
        for maximum in [0, 1_500, 100_000] {
            IndexStore.intersectedFirstMaximum.store(maximum, ordering: .relaxed)
            defer { IndexStore.intersectedFirstMaximum.store(100_000, ordering: .relaxed) }
            try checkAndedParts(run: { try run($0, limit: $1) }, deltaOnly: deltaOnly, total: total, id: id)
        }
    }

    func checkAndedParts(run query: (String, Int) throws -> [String], deltaOnly: Int, total: Int, id: (Int) -> String) throws {
        func run(_ text: String, limit: Int) throws -> [String] { try query(text, limit) }
        let dense = #"(keywords == "alpha*"cwdt) && (keywords == "beta*"cwdt)"#
        let expectedDense = Set((deltaOnly..<total).filter { $0 % 3 == 0 || $0 % 2 == 0 }.map(id))
        let all = try run(dense, limit: 0)
        XCTAssertEqual(all.count, expectedDense.count, "each match once")
        XCTAssertEqual(Set(all), expectedDense)
        let first = try run(dense, limit: 20)
        XCTAssertEqual(first.count, 20)
        XCTAssertTrue(Set(first).isSubset(of: expectedDense))

        let sparse = #"(keywords == "delta"cwdt) && (keywords == "alpha*"cwdt)"#
        let expectedSparse = (total - 5..<total).map(id)
        XCTAssertEqual(try run(sparse, limit: 0).sorted(), expectedSparse)
        XCTAssertEqual(try run(sparse, limit: 20).sorted(), expectedSparse, "the fallback finds what streaming did not")
        XCTAssertEqual(try run(sparse, limit: 3).count, 3)
        // A part that is not a term (a title comparison) is checked on every item, streamed or not.
        let mixed = #"(keywords == "delta"cwdt) && (keywords == "alpha*"cwdt) && title == "item 2699""#
        XCTAssertEqual(try run(mixed, limit: 0), [id(total - 1)])
        let none = #"(keywords == "delta"cwdt) && (keywords == "beta"cwdt) && title == "item 5""#
        XCTAssertEqual(try run(none, limit: 0), [])
    }

    func testNumbersAndDatesPlanAsRanges() throws {
        func lookup(_ q: String) throws -> TermLookup? {
            QueryPlanner.lookup(try QueryParser.parse(q), now: now, calendar: calendar)
        }
        guard case .range("rankingHint", 10, 60)? = try lookup("InRange(rankingHint, 10, 60)") else {
            return XCTFail("InRange is a range lookup")
        }
        guard case .range("contentCreationDate", let low, _)? = try lookup("kMDItemContentCreationDate >= $time.iso(2025-03-01T00:00:00Z)") else {
            return XCTFail("kMDItem aliases resolve to the attribute")
        }
        XCTAssertEqual(low, Date(timeIntervalSince1970: 1_740_787_200).timeIntervalSinceReferenceDate - 1)
        guard case .range("rankingHint", 10, 60)? = try lookup("rankingHint >= 10 && rankingHint <= 60") else {
            return XCTFail("two bounds of one attribute make one range")
        }
        guard case .all(let merged)? = try lookup("rankingHint >= 10 && rating > 2 && rankingHint <= 60"), merged.count == 2,
              case .range("rankingHint", 10, 60) = merged[0] else {
            return XCTFail("ranges merge per attribute")
        }
        XCTAssertNil(try lookup("rankingHint != 3"))
        XCTAssertNil(try lookup("!(rankingHint > 3)"))
        guard case .all(let parts)? = try lookup(#"rankingHint > 3 && title == "a*""#), parts.count == 2 else {
            return XCTFail("&& intersects")
        }
        let ids = try store.read { try TermLookup.range("rankingHint", lower: 50, upper: 100).candidateIDs($0) }
        XCTAssertEqual(ids.count, 2)
    }

    /// The value index keys attributes by a 31-bit code: two names that share one only widen a lookup; the
    /// planned result still equals the full scan's.
    func testAttributesWhoseCodesCollideKeepTheirOwnValues() throws {
        // Random names (names that differ only in a counter spread without collisions): the birthday bound of 31
        // bits is ~55,000 names.
        var seen: [Int64: String] = [:]
        var pair: (String, String)? = nil
        var random = SplitMix64(state: 5)
        for _ in 0..<1_000_000 {
            let name = "com_acme_" + String(random.next(), radix: 16)
            let code = AttributeValueIndex.code(name)
            if let other = seen[code], other != name { pair = (other, name); break }
            seen[code] = name
        }
        let (a, b) = try XCTUnwrap(pair, "two random names with one code")
        XCTAssertEqual(AttributeValueIndex.code(a), AttributeValueIndex.code(b))
        try store.apply([
            .upsert(StoredItem(uniqueIdentifier: "ca", expirationDate: now.addingTimeInterval(86_400), attributes: [:],
                               customAttributes: [a: CustomAttribute(value: .int(7))])),
            .upsert(StoredItem(uniqueIdentifier: "cb", expirationDate: now.addingTimeInterval(86_400), attributes: [:],
                               customAttributes: [b: CustomAttribute(value: .int(7))])),
        ], now: now)
        let options = QueryOptions(now: now)
        for (name, expected) in [(a, ["ca"]), (b, ["cb"])] {
            let expression = try QueryParser.parse("\(name) == 7")
            let plan = QueryPlanner.plan(expression, now: now, calendar: calendar)
            guard case .candidates(.range) = plan else { return XCTFail("\(name) == 7 plans as a range lookup: \(plan)") }
            let found = try store.items(matching: CompiledQuery(expression, now: now, calendar: calendar), plan: plan,
                                        options: options).map(\.uniqueIdentifier)
            XCTAssertEqual(found, expected, "\(name)")
        }
    }

    func testValueIndexFollowsUpdatesAndDeletes() throws {
        try store.apply([.upsert(StoredItem(uniqueIdentifier: "d1", expirationDate: now.addingTimeInterval(86_400),
                                            attributes: ["rankingHint": .int(5)]))], now: now)
        let high = try store.read { try TermLookup.range("rankingHint", lower: 50, upper: 100).candidateIDs($0) }
        XCTAssertEqual(high.count, 1, "d1's old value is gone")
        try store.apply([.delete(identifiers: ["m2", "d1"])], now: now)
        XCTAssertEqual(try store.valueCount("rankingHint"), 1)
        try store.apply([.deleteAll], now: now)
        XCTAssertEqual(try store.valueRowsAndGroups().rows, 0)
        XCTAssertEqual(try store.valueRowsAndGroups().groups, 0)
    }

    func testAWideFilterThatRejectsTheBestMatchesGivesTheSameHitsThroughItsLookup() throws {
        // 3,000 items: the filter keeps 30 % (too many to start from its lookup), but rejects every match that
        // ranks first (high rankingHint), so hundreds are read and rejected before its lookup takes over.
        try store.apply((0..<3_000).map { i in
            .upsert(StoredItem(uniqueIdentifier: String(format: "w%04d", i), expirationDate: now.addingTimeInterval(86_400),
                               attributes: ["title": .string("zed widget \(i % 7)"), "rankingHint": .int(Int64(i % 100))]))
        }, now: now)
        let filter = try QueryParser.parse("rankingHint < 30")
        let compiled = CompiledQuery(filter, now: now, calendar: calendar)
        for text in ["zed", "zed w", "widget 3", "z"] {
            var checked = TextSearchOptions(limit: 25)
            checked.now = now
            checked.filter = { compiled.matches(StoredItemQueryView(item: $0)) }
            var looked = checked
            looked.filterLookup = QueryPlanner.lookup(filter, now: now, calendar: calendar)
            let expected = try store.search(text, options: checked)
            XCTAssertEqual(expected.count, 25)
            XCTAssertTrue(expected.allSatisfy { $0.item.attributes["rankingHint"].map { if case .int(let h) = $0 { h < 30 } else { false } } == true })
            XCTAssertEqual(try store.search(text, options: looked).map(\.item.uniqueIdentifier), expected.map(\.item.uniqueIdentifier), text)
        }
    }

    func testDomainFiltersAreCountedExactlyAndReadWithTheFiltersHits() throws {
        try checkDomainFilters(legacy: false)
    }

    /// A store upgraded from format 5 has items without the domain's own terms: its domain lookups read the
    /// metadata tier, whose counts overcount, and give the same hits.
    func testFiltersOfAStoreWithoutDomainTermsGiveTheSameHits() throws {
        try checkDomainFilters(legacy: true)
    }

    /// `domainIdentifier == "text"` names the items of the domain `text` only (format 6: the domain's own terms),
    /// not every item whose content type is `public.text`; a store without those terms finds the same items
    /// through the metadata tier.
    func testDomainLookupsNameTheDomainsItemsOnly() throws {
        try store.apply([
            .upsert(StoredItem(uniqueIdentifier: "x1", domainIdentifier: "text", expirationDate: now.addingTimeInterval(86_400),
                               attributes: ["title": .string("plain"), "contentType": .string("public.text")])),
            .upsert(StoredItem(uniqueIdentifier: "x2", domainIdentifier: "text.notes", expirationDate: now.addingTimeInterval(86_400),
                               attributes: ["title": .string("sub")])),
            // The attribute set's own `domainIdentifier` is the one queries see.
            .upsert(StoredItem(uniqueIdentifier: "x3", domainIdentifier: "misc", expirationDate: now.addingTimeInterval(86_400),
                               attributes: ["title": .string("set"), "domainIdentifier": .string("text")])),
        ], now: now)
        XCTAssertEqual(try store.completions(of: TextIndexer.domainTermPrefix).count, 0, "domain terms are no words")
        XCTAssertEqual(try store.completions(of: "tex").map(\.term), ["text"], "the content type's word, once")
        // (Candidates are items with the domain's words: `text.notes` has the word `text`.)
        try checkOwnTermLookups(flag: "domainTerms", [(#"domainIdentifier == "text""#, ["x1", "x3"], 3),
                                                      (#"domainIdentifier == "text*""#, ["x1", "x2", "x3"], 3),
                                                      (#"domainIdentifier == "text.notes""#, ["x2"], 1),
                                                      (#"domainIdentifier == "misc""#, ["m1", "m2", "m3", "t1", "t2"], 5)])
    }

    /// Each query finds `expected`, by its plan and by a scan, with and without the store's own terms (`flag` in
    /// `meta`, deleted for the second round): with them its lookup names exactly `named` candidates, without them
    /// at least the matches.
    func checkOwnTermLookups(flag: String, _ cases: [(text: String, expected: [String], named: Int)],
                             file: StaticString = #filePath, line: UInt = #line) throws {
        for legacy in [false, true] {
            if legacy { try store.pool.write { try $0.execute(sql: "DELETE FROM meta WHERE key = ?", arguments: [flag]) } }
            for (text, expected, named) in cases {
                let expression = try QueryParser.parse(text)
                let compiled = CompiledQuery(expression, now: now, calendar: calendar)
                let plan = QueryPlanner.plan(expression, now: now, calendar: calendar)
                XCTAssertEqual(try store.items(matching: compiled, plan: plan, options: QueryOptions(now: now)).map(\.uniqueIdentifier).sorted(),
                               expected, "\(text), legacy \(legacy)", file: file, line: line)
                XCTAssertEqual(try store.items(matching: compiled, plan: .scan, options: QueryOptions(now: now)).map(\.uniqueIdentifier).sorted(),
                               expected, "\(text) by a scan", file: file, line: line)
                guard case .candidates(let lookup) = plan else { return XCTFail("\(text) has no lookup", file: file, line: line) }
                let candidates = try store.read { try lookup.candidateIDs($0) }.count
                if legacy {
                    XCTAssertGreaterThanOrEqual(candidates, expected.count, file: file, line: line)
                } else {
                    XCTAssertEqual(candidates, named, "\(text): the store's own terms name its items only", file: file, line: line)
                }
            }
        }
    }

    /// `keywords == "li*"` reads the keyword tier's own terms (format 8): its candidates are the items with a
    /// keyword starting with `li`, not every item with such a word anywhere; a store without them (`meta.keywordTerms`
    /// absent, upgraded from format 7) finds the same items through every tier's postings. The own terms are no
    /// words: not completions, not typo matches, no prefix lists.
    func testKeywordLookupsReadTheKeywordTiersOwnTerms() throws {
        let later = now.addingTimeInterval(86_400)
        try store.apply([
            .upsert(StoredItem(uniqueIdentifier: "k1", domainIdentifier: nil, expirationDate: later,
                               attributes: ["title": .string("lisp machine"), "keywords": .array([.string("library"), .string("tree")])])),
            .upsert(StoredItem(uniqueIdentifier: "k2", domainIdentifier: nil, expirationDate: later,
                               attributes: ["title": .string("linear algebra"), "contentDescription": .string("a library of trees")])),
            .upsert(StoredItem(uniqueIdentifier: "k3", domainIdentifier: nil, expirationDate: later,
                               attributes: ["keywords": .array([.string("Lībrary"), .string("graph")]), "alternateNames": .string("trie")])),
        ], now: now)
        XCTAssertEqual(try store.completions(of: TextIndexer.keywordTermPrefix).count, 0, "the keyword tier's terms are no words")
        XCTAssertEqual(try store.completions(of: "libr").map(\.term), ["library"])
        XCTAssertEqual(try store.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM prefixTop WHERE prefix < ' '") }, 0)
        var options = TextSearchOptions(limit: 0)
        options.now = now
        options.typoTolerance = true
        XCTAssertEqual(Set(try store.search("librar", options: options).map(\.item.uniqueIdentifier)), ["k1", "k2", "k3"])
        for hit in try store.search("librar", options: options) {
            XCTAssertFalse(hit.explanation.words.contains { TextIndexer.isOwnTerm($0.matchedTerm) }, "\(hit.explanation)")
        }
        // (k3's `trie` is an alternate name: in the keyword tier, not a keyword.)
        try checkOwnTermLookups(flag: "keywordTerms", [(#"keywords == "li*"cwd"#, ["k1", "k3"], 2),
                                                       (#"keywords == "li*"cwd && keywords == "tr*"cwd"#, ["k1"], 2),
                                                       (#"keywords == "tree"cwd"#, ["k1"], 1),
                                                       (#"alternateNames == "tri*"cwd"#, ["k3"], 1)])
    }

    /// A filter read by one search is kept for the next keystroke only while no item changes.
    func testAFilterReadOnceIsReadAgainAfterAWrite() throws {
        let filter = try QueryParser.parse(#"domainIdentifier == "docs""#)
        let compiled = CompiledQuery(filter, now: now, calendar: calendar)
        var options = TextSearchOptions(limit: 10)
        options.now = now
        options.filter = { compiled.matches(StoredItemQueryView(item: $0)) }
        options.filterLookup = QueryPlanner.lookup(filter, now: now, calendar: calendar)
        XCTAssertEqual(try store.search("i", options: options).map(\.item.uniqueIdentifier), ["d2"])
        XCTAssertEqual(try store.search("i", options: options).map(\.item.uniqueIdentifier), ["d2"], "from the cache")
        try store.apply([.upsert(StoredItem(uniqueIdentifier: "d9", domainIdentifier: "docs", expirationDate: now.addingTimeInterval(86_400),
                                            attributes: ["title": .string("index card")]))], now: now)
        XCTAssertEqual(Set(try store.search("i", options: options).map(\.item.uniqueIdentifier)), ["d2", "d9"])
        try store.apply([.delete(identifiers: ["d2"])], now: now)
        XCTAssertEqual(try store.search("i", options: options).map(\.item.uniqueIdentifier), ["d9"])
    }

    func checkDomainFilters(legacy: Bool) throws {
        // 10,000 items: the domain `alpha` holds 30 % of them and `beta` 10 %, but both are also words of other items'
        // descriptions, so in the metadata tier their terms count 50 % and 40 % of the store (over a quarter); the
        // domains' own terms (format 6) count them exactly. The lookups are read: beta restricts the candidates
        // from the start, alpha (over a quarter for real) names the items the ranking may keep. Either way the
        // hits are the filter's, in the ranking's order.
        try store.apply((0..<10_000).map { i in
            let domain = i % 10 < 3 ? "alpha" : (i % 10 == 3 ? "beta" : "other")
            let description = i % 10 >= 8 ? "alpha notes" : (i % 10 >= 5 ? "beta notes" : "plain notes")
            return .upsert(StoredItem(uniqueIdentifier: String(format: "o%05d", i), domainIdentifier: domain,
                                      expirationDate: now.addingTimeInterval(86_400),
                                      attributes: ["title": .string("lot \(i % 37) leaf"), "contentDescription": .string(description),
                                                   "rankingHint": .int(Int64(i % 100))]))
        }, now: now)
        if legacy {
            // As a format 5 store upgraded to 6 is: its items have no domain terms of their own.
            try store.pool.write { try $0.execute(sql: "DELETE FROM meta WHERE key = 'domainTerms'") }
        }
        for (domain, share) in [("alpha", 3_000), ("beta", 1_000)] {
            let filter = try QueryParser.parse("domainIdentifier == \"\(domain)\"")
            let compiled = CompiledQuery(filter, now: now, calendar: calendar)
            for text in ["l", "lot 3", "leaf", "no", "lot 1 l"] {
                var checked = TextSearchOptions(limit: 25)
                checked.now = now
                checked.filter = { compiled.matches(StoredItemQueryView(item: $0)) }
                var looked = checked
                looked.filterLookup = QueryPlanner.lookup(filter, now: now, calendar: calendar)
                let estimate = try store.read { try looked.filterLookup!.estimatedCount($0) }
                if legacy {
                    XCTAssertGreaterThan(estimate, 2_500, "the metadata tier overcounts")
                } else {
                    XCTAssertEqual(estimate, share, "the domain's own terms count its items")
                }
                let expected = try store.search(text, options: checked)
                XCTAssertTrue(expected.allSatisfy { $0.item.domainIdentifier == domain }, text)
                XCTAssertEqual(try store.search(text, options: looked).map(\.item.uniqueIdentifier),
                               expected.map(\.item.uniqueIdentifier), "\(domain): \(text)")
                checked.limit = 0
                looked.limit = 0
                XCTAssertEqual(try store.search(text, options: looked).map(\.item.uniqueIdentifier),
                               try store.search(text, options: checked).map(\.item.uniqueIdentifier), "\(domain): \(text), all")
            }
            var all = TextSearchOptions(limit: 0)
            all.now = now
            all.filter = { compiled.matches(StoredItemQueryView(item: $0)) }
            all.filterLookup = QueryPlanner.lookup(filter, now: now, calendar: calendar)
            XCTAssertEqual(try store.search("leaf", options: all).count, share)
        }
    }

    func testSelectiveFiltersRestrictTextSearch() throws {
        var options = TextSearchOptions()
        options.now = now
        let filter = try QueryParser.parse("rankingHint >= 50")
        let compiled = CompiledQuery(filter, now: now, calendar: calendar)
        options.filter = { compiled.matches(StoredItemQueryView(item: $0)) }
        options.filterLookup = QueryPlanner.lookup(filter, now: now, calendar: calendar)
        XCTAssertEqual(try store.search("", options: options).map(\.item.uniqueIdentifier).sorted(), ["d1", "m2"])
        XCTAssertEqual(try store.search("n", options: options).map(\.item.uniqueIdentifier), ["d1"])
        XCTAssertEqual(try store.search("re", options: options).map(\.item.uniqueIdentifier), [], "d2 fails the filter")
    }
}
