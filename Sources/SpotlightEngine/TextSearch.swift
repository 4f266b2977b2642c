import Foundation
import GRDB
import SpotlightText

/// A ranked free-text search result.
public struct SearchHit: Sendable {
    public var item: StoredItem
    /// Higher is better. Comparable between hits of the same search only.
    public var score: Double
    /// Why the hit scored what it did.
    public var explanation: RankingExplanation
}

/// The parts of a hit's score, for `explain`.
public struct RankingExplanation: Sendable, Hashable, CustomStringConvertible {
    /// One entry per query word: which term matched, how, and in which tier.
    public struct WordMatch: Sendable, Hashable {
        public var queryWord: String
        public var matchedTerm: String
        public var kind: MatchKind
        /// 0 name (title, displayName), 1 keywords, 2 description, 3 body.
        public var tier: Int
        public var points: Double
    }

    public enum MatchKind: String, Sendable, Hashable {
        case exact, prefix, typo
    }

    public var words: [WordMatch] = []
    public var rankingHintPoints: Double = 0
    public var recencyPoints: Double = 0
    public var engagementPoints: Double = 0

    public var total: Double {
        words.reduce(0) { $0 + $1.points } + rankingHintPoints + recencyPoints + engagementPoints
    }

    public var description: String {
        var parts = words.map { "\($0.queryWord)→\($0.matchedTerm) \($0.kind.rawValue) tier \($0.tier): \(String(format: "%.2f", $0.points))" }
        if rankingHintPoints != 0 { parts.append("rankingHint: \(String(format: "%.2f", rankingHintPoints))") }
        if recencyPoints != 0 { parts.append("recency: \(String(format: "%.2f", recencyPoints))") }
        if engagementPoints != 0 { parts.append("engagement: \(String(format: "%.2f", engagementPoints))") }
        return parts.joined(separator: ", ") + " = \(String(format: "%.3f", total))"
    }
}

/// The ranking function, in one place. Scores add up:
///
/// - each query word contributes `tierWeight[tier] × kindFactor` for its best match in the item, where the tiers
///   are name (title, displayName) 8, keywords 4, description 2, body 1, and the kind factor is exact 1.0,
///   prefix 0.8, typo 0.6;
/// - `rankingHint` (0…100) adds up to 1.5;
/// - `lastUsedDate` adds up to 1.5, halving every 14 days;
/// - engagement (see `EngagementStore`) adds up to 2.
///
/// The static parts together (≤ 5) are bounded below the gap between a name match and a body match of one word, so
/// they reorder similar text matches but never bury a clearly better one. Ties break on the unique identifier.
public enum Ranking {
    public static let tierWeights: [Double] = [8, 4, 2, 1]
    public static func kindFactor(_ kind: RankingExplanation.MatchKind) -> Double {
        switch kind {
        case .exact: return 1.0
        case .prefix: return 0.8
        case .typo: return 0.6
        }
    }
    public static let maxRankingHintPoints = 1.5
    public static let maxRecencyPoints = 1.5
    public static let recencyHalfLife: TimeInterval = 14 * 86_400

    static func recencyPoints(lastUsed: Double?, now: Date) -> Double {
        guard let lastUsed else { return 0 }
        let age = max(0, now.timeIntervalSinceReferenceDate - lastUsed)
        return maxRecencyPoints * pow(0.5, age / recencyHalfLife)
    }

    static func hintPoints(_ hint: Double?) -> Double {
        guard let hint else { return 0 }
        return maxRankingHintPoints * min(max(hint, 0), 100) / 100
    }
}

/// Options of a free-text search.
public struct TextSearchOptions: Sendable {
    /// How many hits to return, best first. 0 = all.
    public var limit: Int = 20
    /// Whether the last word is matched as a prefix (search as you type).
    public var lastWordIsPrefix = true
    /// Extra per-item points, by unique identifier (engagement).
    public var boosts: [String: Double] = [:]
    /// A predicate every hit must satisfy (attribute filters), checked before ranking.
    public var filter: (@Sendable (StoredItem) -> Bool)? = nil
    /// An index lookup naming a superset of the items `filter` accepts (from `QueryPlanner`). When it is selective,
    /// the search starts from those items instead of checking the filter on ranked matches one by one.
    public var filterLookup: TermLookup? = nil
    /// Whether words also match terms within their typo budget (`Typos`).
    public var typoTolerance = true
    /// Whether one-word searches may use prefix lists (tests turn it off to compare with ranking every match).
    var usePrefixLists = true
    public var now = Date()

    public init(limit: Int = 20, lastWordIsPrefix: Bool = true) {
        self.limit = limit
        self.lastWordIsPrefix = lastWordIsPrefix
    }
}

extension IndexStore {
    /// Searches free text: every word must match a word of the item (the last one as a prefix), case and
    /// diacritics ignored; hits are ranked by `Ranking`.
    public func search(_ text: String, options: TextSearchOptions = TextSearchOptions()) throws -> [SearchHit] {
        let words = Tokenizer.queryTokens(text)
        let now = options.now.timeIntervalSinceReferenceDate
        var hotPrefix: String? = nil
        var staleList = false
        defer {
            // A long prefix with many matches gets a list for next time, and a list whose recency went stale is
            // rebuilt (in its own write, off this thread).
            if let hotPrefix {
                let pool = self.pool
                let rebuild = staleList
                DispatchQueue.global(qos: .utility).async {
                    try? pool.write { try PrefixLists.create(hotPrefix, db: $0, replacing: rebuild) }
                }
            }
        }
        return try read { db in
            // A selective filter restricts the candidates from the start.
            var filterIDs: Set<Int64>? = nil
            if let lookup = options.filterLookup {
                let total = try Int.fetchOne(db, sql: "SELECT count(*) FROM item") ?? 0
                if try lookup.estimatedCount(db) <= max(total / 20, 2_000) {
                    filterIDs = try lookup.candidateIDs(db)
                    if filterIDs?.isEmpty == true { return [] }
                }
            }
            if filterIDs == nil, options.usePrefixLists, words.count == 1, options.lastWordIsPrefix,
               words[0].unicodeScalars.count <= PrefixLists.maxPrefixLength,
               let hits = try Self.searchShortPrefix(db, words[0], options: options, staleList: &staleList) {
                return hits
            }
            if staleList { hotPrefix = words[0] }
            // Candidate items → per-word best match.
            var candidates: [Int64: [RankingExplanation.WordMatch]]? = filterIDs.map { ids in
                Dictionary(uniqueKeysWithValues: ids.map { ($0, []) })
            }
            if words.isEmpty, candidates == nil {
                candidates = [:]
                for id in try Int64.fetchAll(db, sql: "SELECT id FROM item WHERE expires > ? ORDER BY hint DESC, lastUsed DESC LIMIT ?",
                                             arguments: [now, max(options.limit, 1) * 4]) {
                    candidates?[id] = []
                }
            }
            // Words with the fewest postings first, so the candidate set shrinks fast.
            let order = try words.indices.map { i -> (Int, Int) in
                let isPrefix = options.lastWordIsPrefix && i == words.count - 1
                return (i, try Self.documentFrequency(db, word: words[i], prefix: isPrefix))
            }.sorted { $0.1 < $1.1 }
            var forward: [Int64: [String: UInt8]] = [:]
            for (i, _) in order {
                let word = words[i]
                let isPrefix = options.lastWordIsPrefix && i == words.count - 1
                let frequency = order.first { $0.0 == i }?.1 ?? 0
                let typos = options.typoTolerance && frequency < Typos.expansionThreshold
                let matches: [Int64: RankingExplanation.WordMatch]
                if let current = candidates, current.count <= Self.forwardCheckLimit {
                    // Few candidates left: read their words instead of the word's postings.
                    try Self.loadTerms(db, ids: current.keys.filter { forward[$0] == nil }, into: &forward)
                    var found: [Int64: RankingExplanation.WordMatch] = [:]
                    for item in current.keys {
                        if let match = Self.forwardMatch(word, prefix: isPrefix, terms: forward[item] ?? [:],
                                                         typos: typos) {
                            found[item] = match
                        }
                    }
                    matches = found
                } else {
                    matches = try Self.postings(db, word: word, prefix: isPrefix, restrictTo: candidates.map { Set($0.keys) },
                                                typos: typos)
                }
                var next: [Int64: [RankingExplanation.WordMatch]] = [:]
                for (item, match) in matches {
                    if let previous = candidates {
                        guard var list = previous[item] else { continue }
                        list.append(match)
                        next[item] = list
                    } else {
                        next[item] = [match]
                    }
                }
                candidates = next
                if next.isEmpty { break }
            }
            guard let candidates, !candidates.isEmpty else { return [] }
            if words.count == 1, options.lastWordIsPrefix, filterIDs == nil,
               (PrefixLists.eagerPrefixLength + 1...PrefixLists.maxPrefixLength).contains(words[0].unicodeScalars.count),
               candidates.count >= PrefixLists.hotThreshold {
                hotPrefix = words[0]
            }

            // Static signals for the candidates.
            var scored: [(id: Int64, score: Double, explanation: RankingExplanation, uid: String)] = []
            scored.reserveCapacity(candidates.count)
            let ids = Array(candidates.keys)
            for chunk in stride(from: 0, to: ids.count, by: 500) {
                let slice = ids[chunk..<min(chunk + 500, ids.count)]
                let placeholders = Array(repeating: "?", count: slice.count).joined(separator: ",")
                let rows = try Row.fetchCursor(db, sql: """
                    SELECT id, uid, hint, lastUsed FROM item WHERE id IN (\(placeholders)) AND expires > ?
                    """, arguments: StatementArguments(slice.map { $0 as any DatabaseValueConvertible } + [now]))
                while let row = try rows.next() {
                    let id: Int64 = row["id"]
                    let uid: String = row["uid"]
                    var explanation = RankingExplanation()
                    explanation.words = candidates[id] ?? []
                    explanation.rankingHintPoints = Ranking.hintPoints(row["hint"])
                    explanation.recencyPoints = Ranking.recencyPoints(lastUsed: row["lastUsed"], now: options.now)
                    explanation.engagementPoints = options.boosts[uid] ?? 0
                    scored.append((id, explanation.total, explanation, uid))
                }
            }
            scored.sort { $0.score != $1.score ? $0.score > $1.score : $0.uid < $1.uid }

            var hits: [SearchHit] = []
            for candidate in scored {
                if options.limit > 0, hits.count >= options.limit { break }
                guard let row = try Row.fetchOne(db, sql: "SELECT uid, domain, expires, attrs FROM item WHERE id = ?",
                                                 arguments: [candidate.id]) else { continue }
                let item = try Self.storedItem(row)
                if let filter = options.filter, !filter(item) { continue }
                hits.append(SearchHit(item: item, score: candidate.score, explanation: candidate.explanation))
            }
            return hits
        }
    }

    /// One short word typed alone: rank the candidates of its prefix list (`PrefixLists`) exactly. Returns nil
    /// when there is no list, or when a filter left too few hits from a truncated list (the caller then ranks
    /// every match).
    static func searchShortPrefix(_ db: Database, _ word: String, options: TextSearchOptions, staleList: inout Bool) throws
        -> [SearchHit]?
    {
        guard let list = try PrefixLists.list(word, db: db) else { return nil }
        var ids = list.entries.map(\.item)
        if !options.boosts.isEmpty {
            let lookup = try db.cachedStatement(sql: "SELECT id FROM item WHERE uid = ?")
            for uid in options.boosts.keys {
                if let id = try Int64.fetchOne(lookup, arguments: [uid]) { ids.append(id) }
            }
        }
        let statement = try db.cachedStatement(sql: """
            SELECT uid, domain, expires, attrs, hint, lastUsed FROM item WHERE id = ? AND expires > ?
            """)
        var hits: [SearchHit] = []
        var seen = Set<Int64>()
        for id in ids where seen.insert(id).inserted {
            guard let row = try Row.fetchOne(statement, arguments: [id, options.now.timeIntervalSinceReferenceDate]) else { continue }
            let item = try storedItem(row)
            var best: RankingExplanation.WordMatch?
            for (term, tiers) in TextIndexer.terms(attributes: item.attributes, custom: item.customAttributes)
            where term.hasPrefix(word) {
                guard let tier = TextIndexer.bestTier(tiers) else { continue }
                let kind: RankingExplanation.MatchKind = term == word ? .exact : .prefix
                let points = Ranking.tierWeights[tier] * Ranking.kindFactor(kind)
                if best == nil || points > best!.points || (points == best!.points && term < best!.matchedTerm) {
                    best = .init(queryWord: word, matchedTerm: term, kind: kind, tier: tier, points: points)
                }
            }
            guard let best else { continue }
            if let filter = options.filter, !filter(item) { continue }
            var explanation = RankingExplanation()
            explanation.words = [best]
            explanation.rankingHintPoints = Ranking.hintPoints(row["hint"])
            explanation.recencyPoints = Ranking.recencyPoints(lastUsed: row["lastUsed"], now: options.now)
            explanation.engagementPoints = options.boosts[item.uniqueIdentifier] ?? 0
            hits.append(SearchHit(item: item, score: explanation.total, explanation: explanation))
        }
        hits.sort { $0.score != $1.score ? $0.score > $1.score : $0.item.uniqueIdentifier < $1.item.uniqueIdentifier }
        let wanted = options.limit > 0 ? options.limit : Int.max
        if !list.complete {
            // Exact only if nothing outside the list can beat the k-th hit: an outsider's score is at most its list
            // key (recency only decays since the key was computed), which is at most the smallest in the list.
            guard options.limit > 0, hits.count >= wanted, let smallest = list.entries.last else { return nil }
            // Ties with the smallest key are ordered by identifier in the list as in the ranking.
            let kth = hits[wanted - 1]
            let tolerance = 1e-9
            let safe = kth.score > smallest.key + tolerance
                || (kth.score >= smallest.key - tolerance && kth.item.uniqueIdentifier < smallest.uid)
            if !safe {
                PrefixLists.fallbacks.withLock { $0 += 1 }
                staleList = true
                return nil
            }
        }
        if hits.count > wanted { hits.removeLast(hits.count - wanted) }
        return hits
    }

    /// Below this many candidates, further words are checked on the candidates' own words.
    static let forwardCheckLimit = 2_000

    /// Reads and tokenizes the given items' attributes.
    static func loadTerms(_ db: Database, ids: [Int64], into terms: inout [Int64: [String: UInt8]]) throws {
        for chunk in stride(from: 0, to: ids.count, by: 500) {
            let slice = ids[chunk..<min(chunk + 500, ids.count)]
            let placeholders = Array(repeating: "?", count: slice.count).joined(separator: ",")
            let rows = try Row.fetchCursor(db, sql: "SELECT id, domain, attrs FROM item WHERE id IN (\(placeholders))",
                                           arguments: StatementArguments(slice.map { $0 as any DatabaseValueConvertible }))
            while let row = try rows.next() {
                let decoded = try ValueCodec.decode([UInt8](row["attrs"] as Data))
                terms[row["id"]] = TextIndexer.terms(attributes: decoded.attributes, custom: decoded.custom, domain: row["domain"])
            }
        }
    }

    /// The best match of a typed word among an item's terms, by the same rules as the index path: exact, prefix
    /// (for the last word), or within the typo budget with the first letter right.
    static func forwardMatch(_ word: String, prefix: Bool, terms: [String: UInt8], typos: Bool) -> RankingExplanation.WordMatch? {
        let budget = typos ? Typos.budget(for: word) : 0
        let first = word.unicodeScalars.first
        var best: RankingExplanation.WordMatch?
        for (term, tiers) in terms {
            guard let tier = TextIndexer.bestTier(tiers) else { continue }
            let kind: RankingExplanation.MatchKind
            if term == word {
                kind = .exact
            } else if prefix && term.hasPrefix(word) {
                kind = .prefix
            } else if budget > 0, term.unicodeScalars.first == first,
                      (prefix ? Typos.prefixDistance(word, term, limit: budget) : Typos.distance(word, term, limit: budget)) <= budget {
                kind = .typo
            } else {
                continue
            }
            let points = Ranking.tierWeights[tier] * Ranking.kindFactor(kind)
            if best == nil || points > best!.points || (points == best!.points && term < best!.matchedTerm) {
                best = .init(queryWord: word, matchedTerm: term, kind: kind, tier: tier, points: points)
            }
        }
        return best
    }

    static func documentFrequency(_ db: Database, word: String, prefix: Bool) throws -> Int {
        if prefix {
            return try Int.fetchOne(db, sql: "SELECT coalesce(sum(df), 0) FROM term WHERE text >= ? AND text < ?",
                                    arguments: [word, word + "\u{10FFFF}"]) ?? 0
        }
        return try Int.fetchOne(db, sql: "SELECT df FROM term WHERE text = ?", arguments: [word]) ?? 0
    }

    /// The best free-text match of `word` in each item that has one: the term itself, terms it starts (when it is
    /// a prefix), and terms within its typo budget (`Typos`).
    static func postings(_ db: Database, word: String, prefix: Bool, restrictTo: Set<Int64>?, typos: Bool = true) throws
        -> [Int64: RankingExplanation.WordMatch]
    {
        var terms: [(id: Int64, text: String, kind: RankingExplanation.MatchKind)] = []
        var frequencies: [Int64: Int] = [:]
        if prefix {
            let rows = try Row.fetchAll(db, sql: "SELECT id, text, df FROM term WHERE text >= ? AND text < ? AND df > 0",
                                        arguments: [word, word + "\u{10FFFF}"])
            terms = rows.map { ($0["id"], $0["text"], ($0["text"] as String) == word ? .exact : .prefix) }
            for row in rows { frequencies[row["id"]] = row["df"] }
        } else if let row = try Row.fetchOne(db, sql: "SELECT id, df FROM term WHERE text = ? AND df > 0", arguments: [word]) {
            terms = [(row["id"], word, .exact)]
            frequencies[row["id"]] = row["df"]
        }
        if typos {
            let budget = Typos.budget(for: word)
            if budget > 0 {
                let known = Set(terms.map(\.id))
                terms += try Typos.neighbours(db, of: word, prefix: prefix, budget: budget)
                    .filter { !known.contains($0.id) }
                    .map { ($0.id, $0.text, .typo) }
            }
        }
        var best: [Int64: RankingExplanation.WordMatch] = [:]
        if prefix, restrictTo == nil || terms.count > 64 {
            // One pass over the whole prefix range instead of one statement per term.
            let cursor = try Row.fetchCursor(db.cachedStatement(sql: """
                SELECT p.item, p.tiers, t.text FROM term t JOIN posting p ON p.term = t.id
                WHERE t.text >= ? AND t.text < ? AND t.df > 0
                """), arguments: [word, word + "\u{10FFFF}"])
            while let row = try cursor.next() {
                guard let tier = TextIndexer.bestTier(UInt8(truncatingIfNeeded: row[1] as Int)) else { continue }
                let text: String = row[2]
                let kind: RankingExplanation.MatchKind = text == word ? .exact : .prefix
                let points = Ranking.tierWeights[tier] * Ranking.kindFactor(kind)
                let item: Int64 = row[0]
                if let restrictTo, !restrictTo.contains(item) { continue }
                if let existing = best[item], existing.points > points || (existing.points == points && existing.matchedTerm <= text) {
                    continue
                }
                best[item] = .init(queryWord: word, matchedTerm: text, kind: kind, tier: tier, points: points)
            }
            terms.removeAll { $0.kind != .typo }
        }
        let statement = try db.cachedStatement(sql: "SELECT item, tiers FROM posting WHERE term = ?")
        let pointStatement = try db.cachedStatement(sql: "SELECT tiers FROM posting WHERE term = ? AND item = ?")
        for term in terms {
            let kind = term.kind
            func consider(_ item: Int64, _ tiers: UInt8) {
                guard let tier = TextIndexer.bestTier(tiers) else { return }
                let points = Ranking.tierWeights[tier] * Ranking.kindFactor(kind)
                if let existing = best[item], existing.points >= points { return }
                best[item] = .init(queryWord: word, matchedTerm: term.text, kind: kind, tier: tier, points: points)
            }
            // Few candidates against a long posting list: look each one up instead of reading the list.
            if let restrictTo, restrictTo.count * 4 < (frequencies[term.id] ?? 0) {
                for item in restrictTo {
                    if let tiers = try Int.fetchOne(pointStatement, arguments: [term.id, item]) {
                        consider(item, UInt8(truncatingIfNeeded: tiers))
                    }
                }
                continue
            }
            let cursor = try Row.fetchCursor(statement, arguments: [term.id])
            while let row = try cursor.next() {
                let item: Int64 = row[0]
                if let restrictTo, !restrictTo.contains(item) { continue }
                consider(item, UInt8(truncatingIfNeeded: row[1] as Int))
            }
        }
        return best
    }
}
