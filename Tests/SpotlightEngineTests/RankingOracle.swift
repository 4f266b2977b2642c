import Foundation
import XCTest
@testable import SpotlightEngine
import SpotlightQueryLanguage
import SpotlightText

/// The ranking's definition applied to every item of a corpus by brute force (`RankingOracleTests`,
/// `AdversarialRankingTests`): each item's words matched against each query word (`forwardMatch`), the name parts
/// computed from the item's title, scores summed with the static signals, sorted by score then identifier, the
/// filter applied in that order. `items` are the live items (the latest version of each), expired ones included.
struct RankingOracle {
    let items: [StoredItem]
    let now: Date
    /// Each item's terms with their tiers, as the index makes them.
    let termsOf: [[String: UInt8]]

    init(items: [StoredItem], now: Date) {
        self.items = items
        self.now = now
        termsOf = items.map { TextIndexer.terms(attributes: $0.attributes, custom: $0.customAttributes, domain: $0.domainIdentifier) }
    }

    /// The ranking applied to every item.
    func expected(_ text: String, options: TextSearchOptions) -> [(uid: String, score: Double)] {
        let words = text.split(separator: " ").map(String.init)
        // A word is expanded with typos only while it has fewer than `expansionThreshold` postings (counted as the
        // term table does: every term of every stored item, a prefix summing its terms).
        let typos = words.enumerated().map { i, word -> Bool in
            guard options.typoTolerance else { return false }
            let prefix = i == words.count - 1
            let postings = termsOf.reduce(0) { $0 + $1.keys.filter { prefix ? $0.hasPrefix(word) : $0 == word }.count }
            return postings < Typos.expansionThreshold
        }
        // Each typo word's corrections: the index's terms within its typo budget of the whole word. The typed words
        // name an item whole when its name's words joined split into them, each word as typed or corrected; when
        // the spellings number more than `NameKeys.maxSpellings`, as typed only.
        let vocabulary = Set(termsOf.flatMap(\.keys))
        var corrections = words.enumerated().map { i, word -> Set<String> in
            let budget = Typos.budget(for: word)
            guard typos[i], budget > 0 else { return [] }
            // The nearest only: one typo away when any is, else two.
            let kinds = vocabulary.filter { $0 != word }.map { ($0, Ranking.matchKind(word, term: $0, prefix: false, typoBudget: budget)) }
            let one = Set(kinds.filter { $0.1 == .typo }.map(\.0))
            return one.isEmpty ? Set(kinds.filter { $0.1 == .weakTypo }.map(\.0)) : one
        }
        if corrections.reduce(1, { $0 * ($1.count + 1) }) > NameKeys.maxSpellings { corrections = words.map { _ in [] } }
        var scored: [(uid: String, score: Double, item: StoredItem)] = []
        for (item, terms) in zip(items, termsOf) where item.expirationDate > options.now {
            var points = 0.0
            var matches: [RankingExplanation.WordMatch] = []
            for (i, word) in words.enumerated() {
                guard let match = IndexStore.forwardMatch(word, prefix: i == words.count - 1, terms: terms, typos: typos[i]) else { break }
                points += match.points
                matches.append(match)
            }
            guard matches.count == words.count else { continue }
            // The name parts (Documentation/Ranking.md), from the title's words.
            var exact = 0.0, start = 0.0, length = 0.0
            var name: [String] = []
            if case .string(let title)? = item.attributes["title"] { name = Tokenizer.queryTokens(title) }
            if !name.isEmpty, matches.contains(where: { $0.tier == 0 }) {
                length = 0.25 / Double(name.count)
                // The first word starts the name when the name's first word matches it as well as its best match.
                if matches[0].tier == 0,
                   let first = IndexStore.forwardMatch(words[0], prefix: words.count == 1, terms: [name[0]: 1], typos: typos[0]),
                   first.points >= matches[0].points {
                    start = 0.25
                }
                if matches.allSatisfy({ $0.tier == 0 && $0.kind != .prefix }),
                   spells(name.joined(), words: words, corrections: corrections) {
                    exact = matches.contains { $0.kind == .typo || $0.kind == .weakTypo } ? 3.5 * 0.6 : 3.5
                }
            }
            points = points + exact + start + length
            var hint: Double? = nil
            if case .int(let h)? = item.attributes["rankingHint"] { hint = Double(h) }
            var lastUsed: Double? = nil
            if case .date(let d)? = item.attributes["lastUsedDate"] { lastUsed = d.timeIntervalSinceReferenceDate }
            let score = points + Ranking.hintPoints(hint) + Ranking.recencyPoints(lastUsed: lastUsed, now: options.now)
                + (options.boosts[item.uniqueIdentifier] ?? 0)
            scored.append((item.uniqueIdentifier, score, item))
        }
        scored.sort { $0.score != $1.score ? $0.score > $1.score : $0.uid < $1.uid }
        if let filter = options.filter { scored = scored.filter { filter($0.item) } }
        if options.limit > 0 { scored = Array(scored.prefix(options.limit)) }
        return scored.map { ($0.uid, $0.score) }
    }

    /// Whether `joined` is the words joined, each word as typed or as one of its corrections.
    func spells(_ joined: String, words: [String], corrections: [Set<String>]) -> Bool {
        let scalars = Array(joined.unicodeScalars)
        // Where word i may start: positions reached by the words before it.
        var starts: Set<Int> = [0]
        for (i, word) in words.enumerated() {
            var next: Set<Int> = []
            for start in starts {
                for form in [word] + corrections[i] {
                    let end = start + form.unicodeScalars.count
                    if end <= scalars.count, String(String.UnicodeScalarView(scalars[start..<end])) == form { next.insert(end) }
                }
            }
            starts = next
        }
        return starts.contains(scalars.count)
    }

    /// Checks `store`'s search for `text` against `expected`, every way the words can be matched.
    func check(_ store: IndexStore, _ text: String, limit: Int = 20, filter: (@Sendable (StoredItem) -> Bool)? = nil,
               boosts: [String: Double] = [:], typos: Bool = false, query: String? = nil,
               file: StaticString = #filePath, line: UInt = #line) throws {
        var options = TextSearchOptions(limit: limit)
        options.now = now
        options.typoTolerance = typos
        options.filter = filter
        if let query {
            // A query-language filter with its index lookup, as `CSUserQuery` passes one: a selective one names the
            // candidates before any word is matched.
            let expression = try QueryParser.parse(query)
            let compiled = CompiledQuery(expression, now: now, calendar: Calendar(identifier: .gregorian))
            options.filter = { compiled.matches(StoredItemQueryView(item: $0)) }
            options.filterLookup = QueryPlanner.lookup(expression, now: now, calendar: Calendar(identifier: .gregorian))
            XCTAssertNotNil(options.filterLookup, query, file: file, line: line)
        }
        options.boosts = boosts
        let expected = expected(text, options: options)
        // Every match ranked from the posting lists, a one-letter last word matched from the initials column, and
        // (one word) the score-ordered prefix lists walked until the top k are certain.
        var explanations: [String: RankingExplanation] = [:]
        for (lists, initials) in [(false, false), (false, true), (true, true)] {
            options.usePrefixLists = lists
            options.useInitials = initials
            let hits = try store.search(text, options: options)
            XCTAssertEqual(hits.map(\.item.uniqueIdentifier), expected.map(\.uid),
                           "\(text) limit \(limit) lists \(lists) initials \(initials)", file: file, line: line)
            // The same explanations, matched terms included, whichever way the words were matched.
            for hit in hits {
                if let first = explanations[hit.item.uniqueIdentifier] {
                    XCTAssertEqual(hit.explanation.words, first.words, "\(text): \(hit.item.uniqueIdentifier) initials \(initials)",
                                   file: file, line: line)
                } else {
                    explanations[hit.item.uniqueIdentifier] = hit.explanation
                }
            }
            for (hit, want) in zip(hits, expected) {
                XCTAssertEqual(hit.score, want.score, accuracy: lists ? 1e-9 : 0, "\(text): \(hit.item.uniqueIdentifier)",
                               file: file, line: line)
                XCTAssertEqual(hit.score, hit.explanation.total, accuracy: 1e-9, "the explanation adds up", file: file, line: line)
            }
        }
    }
}
