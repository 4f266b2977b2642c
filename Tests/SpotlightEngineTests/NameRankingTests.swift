import Foundation
import XCTest
@testable import SpotlightEngine

/// The ranking rules for search-as-you-type (Documentation/Ranking.md), each with the case from issue 13 that it
/// fixes, through both paths a one-word query can take (the prefix lists and ranking every match), with the
/// explanation of the first result checked part by part.
final class NameRankingTests: XCTestCase {
    var directory: URL!
    var store: IndexStore!
    let now = Date(timeIntervalSinceReferenceDate: 800_000_000)

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("names-\(UUID().uuidString)")
        store = try IndexStore(url: directory.appendingPathComponent("n.sqlite"))
    }

    override func tearDownWithError() throws {
        try store.close()
        try? FileManager.default.removeItem(at: directory)
    }

    func item(_ id: String, _ title: String, hint: Int? = nil, description: String? = nil, lastUsed: Date? = nil) -> StoredItem {
        var attributes: [String: AttributeValue] = ["title": .string(title)]
        if let hint { attributes["rankingHint"] = .int(Int64(hint)) }
        if let description { attributes["contentDescription"] = .string(description) }
        if let lastUsed { attributes["lastUsedDate"] = .date(lastUsed) }
        return StoredItem(uniqueIdentifier: id, domainIdentifier: nil, expirationDate: .distantFuture, attributes: attributes)
    }

    /// The hits for `text` with the prefix lists and without them, which must agree.
    func search(_ text: String, limit: Int = 10, boosts: [String: Double] = [:],
                file: StaticString = #filePath, line: UInt = #line) throws -> [SearchHit] {
        var options = TextSearchOptions(limit: limit)
        options.now = now
        options.boosts = boosts
        let listed = try store.search(text, options: options)
        options.usePrefixLists = false
        let ranked = try store.search(text, options: options)
        XCTAssertEqual(listed.map(\.item.uniqueIdentifier), ranked.map(\.item.uniqueIdentifier), "lists and full ranking agree",
                       file: file, line: line)
        for hit in ranked {
            XCTAssertEqual(hit.score, hit.explanation.total, accuracy: 1e-9, "the explanation adds up", file: file, line: line)
        }
        return ranked
    }

    func ids(_ text: String, limit: Int = 10, boosts: [String: Double] = [:],
             file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        try search(text, limit: limit, boosts: boosts, file: file, line: line).map(\.item.uniqueIdentifier)
    }

    func testTheExactNameComesFirst() throws {
        // Issue 13: `apache-airflow` came after four more popular `apache-airflow-providers-…` items.
        try store.apply([.upsert(item("airflow", "apache-airflow", hint: 60))]
                        + ["amazon", "google", "http", "celery"].map {
                            .upsert(item("providers-\($0)", "apache-airflow-providers-\($0)", hint: 95))
                        }, now: now)
        for typed in ["apache-airflow", "apache airflow", "Apache Airflow", "APACHE_AIRFLOW"] {
            XCTAssertEqual(try ids(typed).first, "airflow", typed)
        }
        let hit = try XCTUnwrap(search("apache-airflow").first)
        XCTAssertEqual(hit.explanation.exactNamePoints, Ranking.exactNamePoints)
        XCTAssertEqual(hit.explanation.nameStartPoints, Ranking.nameStartPoints)
        XCTAssertEqual(hit.explanation.nameLengthPoints, 0.125, accuracy: 1e-12, "two words")
        XCTAssertTrue(hit.explanation.description.contains("exact name: 3.50"), hit.explanation.description)
        // The name must be all of it: the same words in a longer name, or typed as a prefix, are not exact.
        let providers = try XCTUnwrap(search("apache-airflow").first { $0.item.uniqueIdentifier == "providers-http" })
        XCTAssertEqual(providers.explanation.exactNamePoints, 0)
        let typing = try XCTUnwrap(search("apache-airf").first { $0.item.uniqueIdentifier == "airflow" })
        XCTAssertEqual(typing.explanation.exactNamePoints, 0, "a prefix of the last word is not the whole name")
    }

    func testJoinedNamesAreExactWhenTypedJoinedOrSplit() throws {
        try store.apply([.upsert(item("obrien", "O’Brien")), .upsert(item("obrien-law", "O'Brien Law Office", hint: 100)),
                         .upsert(item("wifi", "Wi-Fi")), .upsert(item("wifi-tools", "Wi-Fi Analyzer Tools", hint: 100))], now: now)
        XCTAssertEqual(try ids("obrien").first, "obrien")
        XCTAssertEqual(try ids("o'brien").first, "obrien")
        XCTAssertEqual(try ids("wifi").first, "wifi")
        XCTAssertEqual(try ids("wi-fi").first, "wifi")
    }

    func testAPopularPrefixBeatsTheSameLettersAsAWordOfAnObscureName() throws {
        // Issue 13: `num` listed add-two-num and num-distributions above numpy; `req` put dothttp-req-wasm first.
        try store.apply([.upsert(item("numpy", "numpy", hint: 100)),
                         .upsert(item("add-two-num", "add-two-num")),
                         .upsert(item("num-distributions", "num-distributions", hint: 5)),
                         .upsert(item("requests", "requests", hint: 99)),
                         .upsert(item("dothttp-req-wasm", "dothttp-req-wasm", hint: 10))], now: now)
        XCTAssertEqual(try ids("num"), ["numpy", "num-distributions", "add-two-num"])
        XCTAssertEqual(try ids("req").first, "requests")
        let numpy = try XCTUnwrap(search("num").first)
        XCTAssertEqual(numpy.explanation.words.map(\.kind), [.prefix])
        XCTAssertEqual(numpy.explanation.words[0].points, 7.2, accuracy: 1e-12, "a name prefix is 0.8 below the whole word")
        XCTAssertEqual(numpy.explanation.exactNamePoints, 0)
        XCTAssertEqual(numpy.explanation.nameStartPoints, Ranking.nameStartPoints)
        XCTAssertEqual(numpy.explanation.nameLengthPoints, Ranking.maxNameLengthPoints)
        // Without popularity the whole word wins: the prefix is only close, not equal.
        try store.apply([.upsert(item("numpy", "numpy"))], now: now)
        XCTAssertEqual(try ids("num").first, "num-distributions")
        // And the exact name always beats popularity alone.
        try store.apply([.upsert(item("num", "Num")), .upsert(item("numpy", "numpy", hint: 100))], now: now)
        XCTAssertEqual(try ids("num").first, "num")
    }

    func testTheFirstNameWordBeatsALaterOneAllElseEqual() throws {
        try store.apply([.upsert(item("later", "tools pandas")), .upsert(item("first", "pandas tools")),
                         .upsert(item("later-prefix", "data pandas")), .upsert(item("first-prefix", "pandas data"))], now: now)
        XCTAssertEqual(try ids("pandas"), ["first", "first-prefix", "later", "later-prefix"])
        XCTAssertEqual(try ids("pan"), ["first", "first-prefix", "later", "later-prefix"])
        XCTAssertEqual(try ids("pandas t"), ["first", "later"], "the first typed word starts the name in `first` only")
        let later = try XCTUnwrap(search("pan").first { $0.item.uniqueIdentifier == "later" })
        XCTAssertEqual(later.explanation.nameStartPoints, 0)
        // Whichever of two equally good words is reported, a name starting with one of them starts with the word.
        try store.apply([.upsert(item("both", "panel pandas"))], now: now)
        let both = try XCTUnwrap(search("pan").first { $0.item.uniqueIdentifier == "both" })
        XCTAssertEqual(both.explanation.nameStartPoints, Ranking.nameStartPoints)
    }

    func testATypoInTheFirstWordStillStartsTheName() throws {
        try store.apply([.upsert(item("requests", "requests toolbelt")), .upsert(item("other", "toolbelt requests"))], now: now)
        var options = TextSearchOptions()
        options.now = now
        options.typoTolerance = true
        let hits = try store.search("reqeusts", options: options)
        XCTAssertEqual(hits.map(\.item.uniqueIdentifier), ["requests", "other"])
        XCTAssertEqual(hits.first?.explanation.words.first?.kind, .typo)
        XCTAssertEqual(hits.first?.explanation.nameStartPoints, Ranking.nameStartPoints)
        XCTAssertEqual(hits.last?.explanation.nameStartPoints, 0)
    }

    func testOneTypoRanksAboveTwoAndAWholeWordAboveABeginning() throws {
        // The benchmark's typo misses on PyPI: `traslates` listed `translate` (two typos, a whole name corrected)
        // above `translates` (one typo); `transformig` listed `transform` above `transforming`; `bulids` listed
        // `buildscad` (a typo of its beginning `builds`) above `j-builds` (a typo of the whole word). The
        // identifiers put the weaker match first: only the kind of typo tells them apart.
        try store.apply([.upsert(item("a-translate", "translate")), .upsert(item("b-translates", "translates")),
                         .upsert(item("a-transform", "transform kit")), .upsert(item("b-transforming", "transforming kit")),
                         .upsert(item("a-buildscad", "buildscad tool")), .upsert(item("b-builds", "builds tool"))], now: now)
        let translates = try search("traslates")
        XCTAssertEqual(translates.map(\.item.uniqueIdentifier).prefix(2), ["b-translates", "a-translate"])
        XCTAssertEqual(translates.map { $0.explanation.words.first?.kind }.prefix(2), [.typo, .weakTypo])
        // Only the nearest correction names the item whole: `translates`, one typo away, not `translate`, two.
        XCTAssertEqual(translates.map(\.explanation.exactNamePoints).prefix(2), [Ranking.correctedNamePoints, 0])
        XCTAssertEqual(translates.last?.explanation.words.first?.points ?? 0, 8 * 0.55, accuracy: 1e-12)
        XCTAssertEqual(try ids("transformig").prefix(2), ["b-transforming", "a-transform"])
        let builds = try search("bulids")
        XCTAssertEqual(builds.map(\.item.uniqueIdentifier).prefix(2), ["b-builds", "a-buildscad"])
        XCTAssertEqual(builds.map { $0.explanation.words.first?.kind }.prefix(2), [.typo, .weakTypo])
        // Two typos of the whole word and a typo of a beginning weigh the same; a prefix still beats any typo.
        try store.apply([.upsert(item("c-translation", "translation"))], now: now)
        XCTAssertEqual(try ids("translat").first, "a-translate")
        XCTAssertEqual(Ranking.kindFactor(.weakTypo), 0.55)
    }

    func testAMisspelledWholeNameIsTheExactName() throws {
        // The benchmark's typo queries: `etensions` listed `typing-extensions` and `mypy-extensions` (more popular,
        // prefix-free typo matches like it) above `extensions`, the package `extensions` names; typed right, it comes
        // first.
        try store.apply([.upsert(item("extensions", "extensions")), .upsert(item("typing", "typing-extensions", hint: 100)),
                         .upsert(item("mypy", "mypy-extensions", hint: 100)),
                         .upsert(item("airflow", "apache-airflow")), .upsert(item("providers", "apache-airflow-providers", hint: 100)),
                         .upsert(item("python", "python")), .upsert(item("brainz", "brainz")), .upsert(item("brain", "brain"))]
                        // Nine names with a later word that starts with the misspelling (a prefix match, 7.2 points,
                        // and 0.08 for three words): the ranking reads them first and must still read on to the
                        // corrected whole name (4.8 + 2.1 + 0.5).
                        + (1...9).map { .upsert(item("kit\($0)", "kit\($0) tool etensionskit")) }, now: now)
        let etensions = try search("etensions", limit: 5)
        XCTAssertEqual(etensions.first?.item.uniqueIdentifier, "extensions")
        XCTAssertEqual(etensions.first?.explanation.exactNamePoints, Ranking.correctedNamePoints)
        XCTAssertEqual(Ranking.correctedNamePoints, Ranking.exactNamePoints * Ranking.kindFactor(.typo))
        XCTAssertTrue(etensions.first?.explanation.description.contains("corrected name: 2.10") == true,
                      etensions.first?.explanation.description ?? "")
        XCTAssertEqual(etensions.first?.explanation.words.first?.kind, .typo)
        XCTAssertEqual(etensions.first?.explanation.words.first?.matchedTerm, "extensions")
        XCTAssertEqual(try ids("etensions", limit: 20).filter { ["typing", "mypy"].contains($0) }, ["mypy", "typing"])
        // Several words, one misspelled: the corrected words joined are the name's.
        let airflow = try search("apache airflw")
        XCTAssertEqual(airflow.first?.item.uniqueIdentifier, "airflow")
        XCTAssertEqual(airflow.first?.explanation.exactNamePoints, Ranking.correctedNamePoints)
        XCTAssertEqual(airflow.first { $0.item.uniqueIdentifier == "providers" }?.explanation.exactNamePoints, 0)
        // A typo of a beginning is no whole name: `pyhto` (two edits from `python`, one from its beginning `pytho`),
        // and a weak typo.
        let typing = try XCTUnwrap(search("pyhto").first { $0.item.uniqueIdentifier == "python" })
        XCTAssertEqual(typing.explanation.words.first?.kind, .weakTypo)
        XCTAssertEqual(typing.explanation.words.first?.points ?? 0, 8 * 0.55, accuracy: 1e-12)
        XCTAssertEqual(typing.explanation.exactNamePoints, 0)
        // The name typed right still comes first: its word is exact (8 points), the corrected one's a typo (4.8).
        let brainz = try search("brainz")
        XCTAssertEqual(brainz.map(\.item.uniqueIdentifier).prefix(2), ["brainz", "brain"])
        XCTAssertEqual(brainz.map(\.explanation.exactNamePoints).prefix(2), [Ranking.exactNamePoints, Ranking.correctedNamePoints])
        // A word being typed is read as the beginning of a name before a misspelling of a shorter one (`inicon`).
        try store.apply([.upsert(item("iniconfig", "iniconfig")), .upsert(item("unicon", "unicon"))], now: now)
        XCTAssertEqual(try ids("inicon").prefix(2), ["iniconfig", "unicon"])
        // Without typo tolerance a misspelling names nothing.
        var options = TextSearchOptions(limit: 5)
        options.now = now
        options.typoTolerance = false
        XCTAssertEqual(try store.search("etensions", options: options).map(\.item.uniqueIdentifier).contains("extensions"), false)
    }

    func testTooManySpellingsCountTheTypedWordsOnly() {
        let words = ["alpha", "beta"]
        let corrections: [[String]?] = [["alpah", "alpa"], ["btea", "bet"]]
        let keys = NameKeys(words: words, corrections: corrections)
        XCTAssertEqual(keys.spellings?.count, 9)
        XCTAssertTrue(keys.contains(NameSignals.hash("alpahbet")))
        XCTAssertTrue(keys.contains(NameSignals.hash("alphabeta")))
        XCTAssertFalse(keys.contains(NameSignals.hash("alpahalpa")))
        // Past the limit only the typed words joined count, whatever the corrections.
        let capped = NameKeys(words: words, corrections: corrections, maxSpellings: 8)
        XCTAssertNil(capped.spellings)
        XCTAssertTrue(capped.contains(NameSignals.hash("alphabeta")))
        XCTAssertFalse(capped.contains(NameSignals.hash("alpahbet")))
        XCTAssertNil(NameKeys(words: words).spellings, "no corrections: the typed words only")
    }

    func testAShortNameBeatsALongOneAllElseEqual() throws {
        try store.apply([.upsert(item("long", "flask login manager extra")), .upsert(item("short", "flask login")),
                         .upsert(item("medium", "flask login manager"))], now: now)
        XCTAssertEqual(try ids("flask"), ["short", "medium", "long"])
        XCTAssertEqual(try ids("fla"), ["short", "medium", "long"])
        XCTAssertEqual(try ids("login"), ["short", "medium", "long"])
        let long = try XCTUnwrap(search("flask").last)
        XCTAssertEqual(long.explanation.nameLengthPoints, 0.0625, accuracy: 1e-12)
        // The name parts only count for matches in the name: a description match gets none of them.
        try store.apply([.upsert(item("described", "Web framework", description: "flask"))], now: now)
        let described = try XCTUnwrap(search("flask").last)
        XCTAssertEqual(described.item.uniqueIdentifier, "described")
        XCTAssertEqual(described.explanation.nameLengthPoints + described.explanation.nameStartPoints, 0)
    }

    func testEngagementAndRecencyCanOutweighTheExactName() throws {
        try store.apply([.upsert(item("exact", "Air")),
                         .upsert(item("favourite", "air pump", hint: 100, lastUsed: now))], now: now)
        XCTAssertEqual(try ids("air"), ["exact", "favourite"])
        XCTAssertEqual(try ids("air", boosts: ["favourite": 2]), ["favourite", "exact"])
    }

    func testNamesFollowUpdatesAndDisplayNames() throws {
        // `displayName` is the name when there is no title.
        try store.apply([.upsert(StoredItem(uniqueIdentifier: "shown", domainIdentifier: nil, expirationDate: .distantFuture,
                                            attributes: ["displayName": .string("Grep")])),
                         .upsert(item("popular", "grep tools", hint: 100))], now: now)
        XCTAssertEqual(try ids("grep").first, "shown")
        // An update renames: the old name no longer counts, the new one does.
        try store.apply([.upsert(item("shown", "Something else", description: "grep"))], now: now)
        XCTAssertEqual(try ids("grep").first, "popular")
        try store.apply([.upsert(item("popular", "grep"))], now: now)
        let hit = try XCTUnwrap(search("grep").first)
        XCTAssertEqual(hit.item.uniqueIdentifier, "popular")
        XCTAssertEqual(hit.explanation.exactNamePoints, Ranking.exactNamePoints)
    }

    /// Ranking every match stops reading lower levels of candidates once `limit` hits beat what any unread one
    /// could score; what hints and dates can add is bounded by the largest the segments' columns hold
    /// (`StaticColumns.maxStaticPoints`). A word in the body (1 point) with the top hint (1.5) or used just now
    /// (1.5) beats thirty items with the word in their description (2 points) and neither: a bound that left the
    /// one hint or date out (1 + 0.5 name points < 2) would stop before reading it.
    func testAHintOrADateLiftsALowerLevelAboveAFullerOne() throws {
        func body(_ id: String, hint: Int? = nil, lastUsed: Date? = nil) -> StoredItem {
            var item = item(id, "other \(id)", hint: hint, lastUsed: lastUsed)
            item.attributes["textContent"] = .string("alpha")
            return item
        }
        try store.apply((0..<30).map { .upsert(item("described-\($0)", "thing \($0)", description: "alpha beta")) }
                        + [.upsert(body("hinted", hint: 100)), .upsert(body("plain"))], now: now)
        let hits = try search("alpha", limit: 5)
        XCTAssertEqual(hits.first?.item.uniqueIdentifier, "hinted")
        XCTAssertEqual(hits.first?.score ?? 0, 1 + Ranking.maxRankingHintPoints, accuracy: 1e-9)
        XCTAssertFalse(hits.contains { $0.item.uniqueIdentifier == "plain" })
        try store.apply([.upsert(body("recent", lastUsed: now)), .delete(identifiers: ["hinted"])], now: now)
        XCTAssertEqual(try ids("alpha", limit: 5).first, "recent")
        // Without hints or dates the static parts are the name's alone: the description's level settles the top 5.
        try store.apply([.delete(identifiers: ["recent"])], now: now)
        XCTAssertEqual(try ids("alpha", limit: 5).count, 5)
        XCTAssertEqual(try ids("alpha", limit: 40).count, 31)
    }

    /// A one-word search whose name matches alone settle the top `limit` (`IndexStore.nameTierFirstPostings`) ranks
    /// them exactly as ranking every match does: random names, descriptions and keywords over a few words, hints on
    /// some items, old dates on others, dead items, every limit (fewer name matches than `limit` included, which
    /// falls back to every match).
    func testNameMatchesReadFirstRankAsEveryMatchDoes() throws {
        var random = RankingOracleTests.Generator(state: 20261129)
        let words = ["alpha", "alphabet", "alpine", "alps", "beta", "betamax", "gamma", "delta", "deltas", "epsilon"]
        func text(_ count: ClosedRange<Int>) -> String {
            (0..<Int.random(in: count, using: &random)).map { _ in words.randomElement(using: &random)! }.joined(separator: " ")
        }
        var operations: [IndexOperation] = []
        for n in 0..<600 {
            var item = item("i\(n)", n % 3 == 0 ? "other \(n)" : text(1...3),
                            hint: n % 7 == 0 ? Int.random(in: 0...100, using: &random) : nil, description: text(2...5),
                            lastUsed: n % 11 == 0 ? now.addingTimeInterval(-Double.random(in: 1...400, using: &random) * 86_400) : nil)
            item.attributes["keywords"] = .array([.string(words.randomElement(using: &random)!)])
            operations.append(.upsert(item))
        }
        try store.apply(operations, now: now)
        try store.apply([.delete(identifiers: (0..<600).filter { $0 % 13 == 5 }.map { "i\($0)" })], now: now)
        let bound = try store.read { try store.columnCache.columns($0, store: self.store).maxStaticPoints(now: self.now) }
        XCTAssertLessThan(Ranking.tierWeights[1] + bound, 7.2, "the hints and dates leave the name's matches above the rest")
        let saved = IndexStore.nameTierFirstPostings.load(ordering: .relaxed)
        defer { IndexStore.nameTierFirstPostings.store(saved, ordering: .relaxed) }
        let answered = IndexStore.nameTierAnswers.load(ordering: .relaxed)
        for typed in ["al", "alp", "alpha", "alphab", "beta", "gam", "delta", "eps", "other", "zeta"] {
            for limit in [1, 5, 20, 100, 400] {
                var options = TextSearchOptions(limit: limit)
                options.now = now
                options.usePrefixLists = false
                IndexStore.nameTierFirstPostings.store(1, ordering: .relaxed)
                let first = try store.search(typed, options: options)
                IndexStore.nameTierFirstPostings.store(.max, ordering: .relaxed)
                let every = try store.search(typed, options: options)
                XCTAssertEqual(first.map(\.item.uniqueIdentifier), every.map(\.item.uniqueIdentifier), "\(typed), limit \(limit)")
                XCTAssertEqual(first.map(\.score), every.map(\.score), "\(typed), limit \(limit)")
                XCTAssertEqual(first.map(\.explanation.description), every.map(\.explanation.description))
            }
        }
        XCTAssertGreaterThan(IndexStore.nameTierAnswers.load(ordering: .relaxed), answered + 10, "the name tier answered")
    }

    /// A search of several words whose matches in the name settle the top `limit` (`IndexStore.nameTierFirstPostings`)
    /// ranks them exactly as ranking every match does, and falls back to every match when they cannot: random
    /// names, descriptions and keywords over a few words, hints and dates, dead items, one-letter last words (the
    /// initials column) and whole words, every limit.
    func testNameMatchesOfEveryWordReadFirstRankAsEveryMatchDoes() throws {
        var random = RankingOracleTests.Generator(state: 20261202)
        let words = ["alpha", "beta", "cloud", "client", "for", "the", "delta", "data", "gamma", "go"]
        func text(_ count: ClosedRange<Int>) -> String {
            (0..<Int.random(in: count, using: &random)).map { _ in words.randomElement(using: &random)! }.joined(separator: " ")
        }
        var operations: [IndexOperation] = []
        for n in 0..<900 {
            var item = item("i\(n)", n % 5 == 0 ? "other \(n)" : text(1...4),
                            hint: n % 6 == 0 ? Int.random(in: 0...100, using: &random) : nil, description: text(2...6),
                            lastUsed: n % 9 == 0 ? now.addingTimeInterval(-Double.random(in: 1...400, using: &random) * 86_400) : nil)
            if n % 4 == 0 { item.attributes["keywords"] = .array([.string(words.randomElement(using: &random)!)]) }
            operations.append(.upsert(item))
        }
        try store.apply(operations, now: now)
        try store.apply([.delete(identifiers: (0..<900).filter { $0 % 17 == 3 }.map { "i\($0)" })], now: now)
        let saved = IndexStore.nameTierFirstPostings.load(ordering: .relaxed)
        defer { IndexStore.nameTierFirstPostings.store(saved, ordering: .relaxed) }
        let queries = ["alpha b", "for c", "the a", "beta g", "alpha beta d", "cloud client c", "data d", "go g",
                       "alpha beta", "for the", "gamma delta", "zeta a", "alpha zeta"]
        func compare(_ label: String) throws {
            for typed in queries {
                for (whole, limit) in [(false, 1), (false, 5), (false, 20), (false, 100), (true, 5), (true, 20)] {
                    var options = TextSearchOptions(limit: limit)
                    options.now = now
                    options.usePrefixLists = false
                    options.lastWordIsPrefix = !whole
                    IndexStore.nameTierFirstPostings.store(1, ordering: .relaxed)
                    let first = try store.search(typed, options: options)
                    IndexStore.nameTierFirstPostings.store(.max, ordering: .relaxed)
                    let every = try store.search(typed, options: options)
                    let context = "\(label): \(typed), limit \(limit), whole \(whole)"
                    XCTAssertEqual(first.map(\.item.uniqueIdentifier), every.map(\.item.uniqueIdentifier), context)
                    XCTAssertEqual(first.map(\.score), every.map(\.score), context)
                    XCTAssertEqual(first.map(\.explanation.description), every.map(\.explanation.description), context)
                }
            }
        }
        let answered = IndexStore.nameTierAnswers.load(ordering: .relaxed)
        try compare("hints and old dates")
        XCTAssertGreaterThan(IndexStore.nameTierAnswers.load(ordering: .relaxed), answered + 20, "the names answered")
    }

    /// The bound the names' matches must beat is what any other item could score: an item with the highest hint and
    /// a use a moment ago, whose name is the one-letter last word typed whole (8 points) and whose keywords hold
    /// the other word (4), scores 15.25 for `alpha b`, above a long name that holds both words (8 + 7.2 for `beta`
    /// + 0.02 for its length). Read with the names' matches first, it must still come before that name: the names
    /// settle a top `limit` only when their last scores above 15.5 (one word's 4 points short of two whole words
    /// in the name, plus the most the hints, dates and name parts add).
    func testAnItemMatchedOutsideTheNameThatOutranksNameMatchesIsNeverLeftOut() throws {
        let long = "go go go go go go go go go go alpha beta"
        var operations: [IndexOperation] = (0..<12).map { .upsert(item("long\($0)", long)) }
        operations += (0..<3).map { .upsert(item("named\($0)", "alpha beta", hint: 100)) }
        var outside = item("outside", "b", hint: 100, lastUsed: now)
        outside.attributes["keywords"] = .array([.string("alpha")])
        operations.append(.upsert(outside))
        try store.apply(operations, now: now)
        let saved = IndexStore.nameTierFirstPostings.load(ordering: .relaxed)
        defer { IndexStore.nameTierFirstPostings.store(saved, ordering: .relaxed) }
        for limit in [1, 3, 4, 5, 10, 16] {
            var options = TextSearchOptions(limit: limit)
            options.now = now
            options.usePrefixLists = false
            IndexStore.nameTierFirstPostings.store(.max, ordering: .relaxed)
            let every = try store.search("alpha b", options: options)
            let answered = IndexStore.nameTierAnswers.load(ordering: .relaxed)
            IndexStore.nameTierFirstPostings.store(1, ordering: .relaxed)
            let first = try store.search("alpha b", options: options)
            XCTAssertEqual(first.map(\.item.uniqueIdentifier), every.map(\.item.uniqueIdentifier), "limit \(limit)")
            XCTAssertEqual(first.map(\.score), every.map(\.score), "limit \(limit)")
            // The three short names (8 + 7.2 + 0.25 + 0.125 + 1.5) settle a top 3 alone; past them, the long names
            // 15.22 do not, and the item outside the name comes fourth.
            XCTAssertEqual(IndexStore.nameTierAnswers.load(ordering: .relaxed) > answered, limit <= 3, "limit \(limit)")
            if limit >= 4 {
                XCTAssertEqual(every.map(\.item.uniqueIdentifier)[3], "outside", "limit \(limit)")
            }
        }
    }
}
