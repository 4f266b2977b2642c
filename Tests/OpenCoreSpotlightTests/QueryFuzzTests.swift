import Foundation
import XCTest
@testable import OpenCoreSpotlight
import SpotlightEngine
import SpotlightTestSupport

private typealias QueryFuzzRandom = SplitMix64

/// Fuzzing (issue 17, c): `CSUserQuery` (typed text) and `CSSearchQuery` (query strings and filter queries) on
/// random and mutated strings, over a real index. Every input ends with results or a `CSSearchQueryError` —
/// never a crash — and finishes; the time bound is loose (it catches a hang, not a slowdown).
/// `OPENSPOTLIGHT_FUZZ_ITERATIONS` sets how many inputs (a long run: `scripts/fuzz.sh`).
final class QueryFuzzTests: IndexTestCase {
    static let typedPieces = [
        "berry", "BERRY", "ber", "b", "smoothie", "milk", "mlik", "crème", "creme", "brûlée", "東京", "🎉", "e\u{301}",
        " ", "  ", "\t", "\n", "\0", "*", "?", "\"", "'", "\\", "(", ")", "&&", "||", "!", "==", "$time.today",
        "a", "the", "of", "x-y", "1", "3.5", "-", ".", "co-op", "O'Brien", "ﬁ", "ß", "İ", "\u{200B}", "\u{FEFF}",
    ]

    static let queryPieces = [
        #"title == "berry*"cd"#, "rankingHint >= 5", "*", "title", "==", "!=", "&&", "||", "(", ")", "!", "\"",
        "'", "*", "?", "$time.now", "$time.today(-1)", "InRange(rankingHint, 1, 9)", "keywords == \"milk\"wc",
        "contentCreationDate > $time.iso(2020-01-01)", "true", "false", "0x1F", "1e", "é", "\0", " ", "\\",
    ]

    func seed() async throws {
        let index = CSSearchableIndex(name: "fuzz")
        let titles = ["Berry Blue", "Very Berry", "Carrot Chops", "Chocolate Almond Milk", "Matcha Milk",
                      "Milk Shake", "Crème Brûlée", "東京 Smoothie", "O'Brien's Co-op"]
        try await index.indexSearchableItems(titles.enumerated().map { i, title in
            let set = CSSearchableItemAttributeSet(contentType: .content)
            set.title = title
            set.contentDescription = "smoothie number \(i) with milk"
            set.keywords = ["smoothie", "milk"]
            set.rankingHint = NSNumber(value: i)
            return CSSearchableItem(uniqueIdentifier: "s\(i)", domainIdentifier: "smoothies", attributeSet: set)
        })
    }

    fileprivate static func randomText(_ pieces: [String], _ r: inout QueryFuzzRandom) -> String {
        switch Int.random(in: 0...2, using: &r) {
        case 0:
            return (0..<Int.random(in: 0...8, using: &r)).map { _ in pieces.randomElement(using: &r)! }.joined()
        case 1:
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...30, using: &r) {
                let value = Bool.random(using: &r) ? UInt32.random(in: 0x20...0x7E, using: &r) : UInt32.random(in: 0...0x2FFF, using: &r)
                if let scalar = Unicode.Scalar(value) { scalars.append(scalar) }
            }
            return String(scalars)
        default:
            var characters = Array(pieces.randomElement(using: &r)! + " " + pieces.randomElement(using: &r)!)
            for _ in 0..<Int.random(in: 1...3, using: &r) where !characters.isEmpty {
                let i = Int.random(in: 0..<characters.count, using: &r)
                switch Int.random(in: 0...2, using: &r) {
                case 0: characters.remove(at: i)
                case 1: characters.insert(pieces.randomElement(using: &r)!.first ?? Character("x"), at: i)
                default: characters.insert(contentsOf: characters[i..<min(characters.count, i + 4)], at: i)
                }
            }
            return String(characters)
        }
    }

    /// Runs one user query; returns the seconds it took. An error must be a query error.
    func runUserQuery(_ text: String, filter: String?) async -> Double {
        let start = Date()
        let context = CSUserQueryContext()
        context.fetchAttributes = ["title"]
        context.maxSuggestionCount = 3
        if let filter { context.filterQueries = [filter] }
        do {
            for try await _ in CSUserQuery(userQueryString: text, userQueryContext: context).responses {}
        } catch {
            XCTAssertTrue(error is CSSearchQueryError, "\(text.debugDescription) / \(filter.debugDescription): \(error)")
        }
        return Date().timeIntervalSince(start)
    }

    func runSearchQuery(_ text: String) async -> Double {
        let start = Date()
        do {
            for try await _ in CSSearchQuery(queryString: text, queryContext: nil).results {}
        } catch {
            XCTAssertTrue(error is CSSearchQueryError, "\(text.debugDescription): \(error)")
        }
        return Date().timeIntervalSince(start)
    }

    func testRandomAndMutatedQueriesNeverCrash() async throws {
        try await seed()
        var r = QueryFuzzRandom(state: 17)
        let iterations = fuzzCount(default: 600)
        var slowest = (seconds: 0.0, input: "")
        for _ in 0..<iterations {
            let typed = Self.randomText(Self.typedPieces, &r)
            let filter = Int.random(in: 0...3, using: &r) == 0 ? Self.randomText(Self.queryPieces, &r) : nil
            let queryString = Self.randomText(Self.queryPieces, &r)
            let user = await runUserQuery(typed, filter: filter)
            if user > slowest.seconds { slowest = (user, "CSUserQuery \(typed.debugDescription)") }
            let search = await runSearchQuery(queryString)
            if search > slowest.seconds { slowest = (search, "CSSearchQuery \(queryString.debugDescription)") }
        }
        XCTAssertLessThan(slowest.seconds, 10, "every query finishes; slowest: \(slowest.input)")
        print("fuzz: \(iterations) CSUserQuery and \(iterations) CSSearchQuery inputs, slowest \(String(format: "%.3f", slowest.seconds)) s (\(slowest.input)), 0 crashes")
    }

    private func fuzzCount(default value: Int) -> Int {
        ProcessInfo.processInfo.environment["OPENSPOTLIGHT_FUZZ_ITERATIONS"].flatMap(Int.init).map { max(1, $0 / 5) } ?? value
    }
}
