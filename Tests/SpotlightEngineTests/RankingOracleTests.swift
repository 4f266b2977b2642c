import Foundation
import XCTest
@testable import SpotlightEngine
import SpotlightTestSupport
import SpotlightQueryLanguage
import SpotlightText

/// The ranked search must equal the ranking's definition applied to every item by brute force: each item's words
/// matched against each query word (`forwardMatch`), the name parts computed from the item's title, scores summed
/// with the static signals, sorted by score then identifier, the filter applied in that order. The corpus is random but seeded, with few distinct words so that
/// every query has many matches in every tier and many ties.
final class RankingOracleTests: XCTestCase {
    var directory: URL!
    var store: IndexStore!
    let now = Date(timeIntervalSinceReferenceDate: 800_000_000)
    var items: [StoredItem] = []


    typealias Generator = SplitMix64

    static let vocabulary = ["for", "the", "tool", "tools", "test", "testing", "python", "pytest", "data", "database",
                             "driver", "dry", "to", "a", "an", "and", "table", "tab", "pipe", "pip",
                             // Words of 9 letters and more, whose misspellings have corrections one and two typos away.
                             "translate", "translates", "transform", "transforming"]

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("oracle-\(UUID().uuidString)")
        store = try IndexStore(url: directory.appendingPathComponent("o.sqlite"))
        var random = Generator(state: 42)
        func phrase(_ n: Int) -> String {
            (0..<n).map { _ in Self.vocabulary.randomElement(using: &random)! }.joined(separator: " ")
        }
        for i in 0..<1_500 {
            var attributes: [String: AttributeValue] = [:]
            if Bool.random(using: &random) { attributes["title"] = .string(phrase(Int.random(in: 1...3, using: &random))) }
            if Int.random(in: 0..<3, using: &random) == 0 { attributes["keywords"] = .array([.string(phrase(1)), .string(phrase(1))]) }
            if Bool.random(using: &random) { attributes["contentDescription"] = .string(phrase(Int.random(in: 2...6, using: &random))) }
            if Int.random(in: 0..<3, using: &random) == 0 { attributes["textContent"] = .string(phrase(8)) }
            if Int.random(in: 0..<4, using: &random) == 0 { attributes["rankingHint"] = .int(Int64.random(in: 0...100, using: &random)) }
            if Int.random(in: 0..<5, using: &random) == 0 {
                attributes["lastUsedDate"] = .date(now.addingTimeInterval(-Double.random(in: 0...(90 * 86_400), using: &random)))
            }
            // Some items expire before `now`: they must never be found.
            let expires = i % 97 == 0 ? now.addingTimeInterval(-1) : now.addingTimeInterval(86_400)
            items.append(StoredItem(uniqueIdentifier: String(format: "i%04d", (i * 7_919) % 1_500), domainIdentifier: i % 4 == 0 ? "even" : "odd",
                                    expirationDate: expires, attributes: attributes))
        }
        // One large segment, small packed ones, and dead postings of replaced items: every kind of segment the
        // index has must rank the same.
        try store.apply(items[..<1_000].map { .upsert($0) }, now: now.addingTimeInterval(-10))
        for chunk in stride(from: 1_000, to: items.count, by: 25) {
            try store.apply(items[chunk..<min(chunk + 25, items.count)].map { .upsert($0) }, now: now.addingTimeInterval(-10))
        }
        try store.apply(items[200..<300].map { .upsert($0) }, now: now.addingTimeInterval(-10))
    }

    override func tearDownWithError() throws {
        try store.close()
        try? FileManager.default.removeItem(at: directory)
    }

    lazy var oracle = RankingOracle(items: items, now: now)

    /// The ranking applied to every item.
    func oracle(_ text: String, options: TextSearchOptions) -> [(uid: String, score: Double)] {
        oracle.expected(text, options: options)
    }

    func check(_ text: String, limit: Int = 20, filter: (@Sendable (StoredItem) -> Bool)? = nil, boosts: [String: Double] = [:],
               typos: Bool = false, query: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws {
        try oracle.check(store, text, limit: limit, filter: filter, boosts: boosts, typos: typos, query: query, file: file, line: line)
    }

    func testExactNamesAndNameStartsEqualScoringEveryItem() throws {
        // Titles of one to three words from the vocabulary: these queries are whole titles of many items, the first
        // word of some titles and a later word of others, typed whole, as a prefix and misspelled (a misspelled
        // whole title is the exact name too, `NameKeys`).
        for query in ["python", "tool", "test testing", "for the", "the tool", "data", "pip", "tab", "driver dry",
                      "a an and", "pytho", "pipe p", "tol", "pyhton", "tset", "tset tools", "tools pyhton", "pyhton tset",
                      "dirver", "the tset", "tabel"] {
            try check(query)
            try check(query, limit: 5)
            try check(query, typos: true)
        }
    }

    func testMultiWordRankingEqualsScoringEveryItem() throws {
        // Also with the name tier read first for every word (`IndexStore.nameTierFirstPostings` at 1): this corpus's
        // hints and dates reach 3 points, so whether the names' matches settle the top k depends on their scores.
        let saved = IndexStore.nameTierFirstPostings.load(ordering: .relaxed)
        defer { IndexStore.nameTierFirstPostings.store(saved, ordering: .relaxed) }
        for threshold in [saved, 1] {
            IndexStore.nameTierFirstPostings.store(threshold, ordering: .relaxed)
            for query in ["for t", "the to", "python p", "a t", "data d", "to a", "and the t", "tool tools", "pip pipe",
                          "dry driver", "test te", "tab", "t", "database", "for the a", "zzz", "for zzz", "the tool t",
                          "python a", "to the a"] {
                try check(query)
                try check(query, limit: 3)
                try check(query, limit: 0)
            }
        }
    }

    func testTypoToleranceMatchesTheForwardDefinition() throws {
        // Misspelled complete words and misspelled prefixes, alone and with correct common words.
        for query in ["pyhton", "databse", "tsting", "drievr", "pyhton t", "for databse", "the tesitng to", "pytset",
                      "tabel", "databsae d", "for the drivr", "pipee",
                      // The first letter as the one typo: replaced, left out, typed after another, swapped.
                      "bython", "ython", "xpython", "ypthon", "atble", "esting", "rdiver", "ytho", "for ataba", "eatabase",
                      // One typo of a long word against two (`translates` against `translate`), of a whole word against
                      // of a beginning only, and two typos at most.
                      "traslates", "transformig", "transfrom", "the traslates", "tarnsform t", "trnslte", "transfomring",
                      "translatse", "trasform", "transformign to", "ranslates"] {
            try check(query, typos: true)
            try check(query, limit: 0, typos: true)
        }
        var options = TextSearchOptions(limit: 0)
        options.now = now
        for query in ["bython", "ython", "xpython", "ypthon", "atble", "ytho"] {
            XCTAssertGreaterThan(try store.search(query, options: options).count, 10, "\(query) finds the items of its word")
        }
    }

    func testFiltersAndEngagementKeepTheRankingExact() throws {
        let even: @Sendable (StoredItem) -> Bool = { $0.domainIdentifier == "even" }
        let rare: @Sendable (StoredItem) -> Bool = { $0.uniqueIdentifier.hasSuffix("7") }
        for query in ["for t", "the", "python p", "a", "to a t"] {
            try check(query, filter: even)
            try check(query, limit: 5, filter: rare)
            try check(query, limit: 0, filter: rare)
        }
        // Engagement lifts items from low buckets: they must still be ranked where their boosted score puts them.
        let weakest = try XCTUnwrap(oracle("for t", options: {
            var o = TextSearchOptions(limit: 0)
            o.now = now
            return o
        }()).last?.uid)
        try check("for t", boosts: [weakest: 2, "i0001": 1.5, "nope": 2])
        try check("t", limit: 1, boosts: [weakest: 2])
    }

    func testFiltersWithIndexLookupsKeepTheRankingExact() throws {
        // A quarter of the items (their domain) and about a tenth (a ranking hint range): both selective enough
        // to restrict the candidates up front, where one letter is matched from the initials column.
        for query in ["domainIdentifier == \"even\"", "rankingHint >= 60", "rankingHint >= 99"] {
            for text in ["t", "p", "d", "for t", "python p", "a", "to a t", "the", "z", "pip"] {
                try check(text, query: query)
                try check(text, limit: 3, query: query)
                try check(text, limit: 0, query: query)
            }
        }
    }
}

/// `Candidates.narrow` against the plain filter-and-map it replaces, for searches of up to four words.
final class CandidatesTests: XCTestCase {
    func testNarrowingKeepsTheMatchedCandidatesOfEveryWordInOrder() {
        var random = SplitMix64(state: 23)
        for round in 0..<200 {
            let words = Int(random.next() % 4) + 1
            let count = Int(random.next() % 300)
            let dense = (0..<count).map { _ in Int32(truncatingIfNeeded: random.next() % 1_000_000) }
            func codes() -> [UInt8] { (0..<count).map { _ in UInt8(random.next() % 16) } }
            var candidates = Candidates(filtered: dense, words: words)
            // The model: indices kept, and each column filtered by them.
            var modelDense = dense
            var modelUnits = [Int32](repeating: 0, count: count)
            var modelCodes = [[UInt8]?](repeating: nil, count: words)
            for word in (0..<words).shuffled(using: &random) {
                let new = codes().prefix(modelDense.count).map { $0 }
                let kept = new.indices.filter { MatchCode.isMatch(new[$0]) }
                modelDense = kept.map { modelDense[$0] }
                modelUnits = kept.map { modelUnits[$0] + MatchCode.units[Int(new[$0])] }
                for w in modelCodes.indices where modelCodes[w] != nil {
                    let old = modelCodes[w]!
                    modelCodes[w] = kept.map { old[$0] }
                }
                modelCodes[word] = kept.map { new[$0] }
                candidates.narrow(word: word, codes: new)
                XCTAssertEqual(candidates.dense, modelDense, "round \(round)")
                XCTAssertEqual(candidates.units, modelUnits, "round \(round)")
                XCTAssertEqual(candidates.codes, modelCodes, "round \(round)")
            }
        }
    }
}
