import Foundation
import GRDB
import GRDBSQLite

// The full-ranking path of `IndexStore.search` (every match of every word, then the top k), kept compact: a common
// pair like "for t" reads ~2M postings, so nothing per posting may allocate, and static signals are read only for
// the candidates that can still reach the top k.

/// One word's best match in an item, without strings: the matched term is an index into `WordMatches.terms`.
struct PackedMatch {
    var term: Int32
    var kind: RankingExplanation.MatchKind
    var tier: UInt8
    var points: Double

    /// The points in tenths: every word's points are a whole number of tenths (tier weight × 1, 0.9 or 0.6), so
    /// sums of units are exact in any order and equal sums are equal word scores.
    var units: Int32 { Int32((points * Ranking.unitsPerPoint).rounded()) }
}

/// The best match of one query word in each item that has one.
///
/// Terms are numbered in the order they are met: a word's exact term and the terms it starts in text order, then
/// its typo neighbours in text order. Equal points imply the same kind and tier (the point values of different
/// kinds and tiers never coincide), so on a tie the lower number is the smaller text, as `forwardMatch` decides.
struct WordMatches {
    let word: String
    private(set) var terms: [String] = []
    private var numbers: [String: Int32] = [:]
    var best: [Int64: PackedMatch]

    init(word: String) {
        self.word = word
        best = [:]
    }

    mutating func number(of term: String) -> Int32 {
        if let n = numbers[term] { return n }
        let n = Int32(terms.count)
        terms.append(term)
        numbers[term] = n
        return n
    }

    /// Keeps `match` for `item` if it beats the item's current best.
    @inline(__always)
    mutating func consider(_ item: Int64, _ match: PackedMatch) {
        if let existing = best[item],
           existing.points > match.points || (existing.points == match.points && existing.term <= match.term) {
            return
        }
        best[item] = match
    }

    /// The term number of matches found through `Initials` (which know the match, not the term): resolved from
    /// the item's own terms for the hits returned (`explanation`).
    static let unresolvedTerm: Int32 = -1

    /// `stored` is the item's row, for a match whose term is not known yet.
    func explanation(for item: Int64, of stored: StoredItem) -> RankingExplanation.WordMatch? {
        guard let m = best[item] else { return nil }
        var term: String
        if m.term == Self.unresolvedTerm {
            let terms = TextIndexer.terms(attributes: stored.attributes, custom: stored.customAttributes, domain: stored.domainIdentifier)
            term = Initials.matchedTerm(terms, letter: word.utf8.first ?? 0, code: Initials.code(tier: Int(m.tier), exact: m.kind == .exact))
                ?? word
        } else {
            term = terms[Int(m.term)]
        }
        return .init(queryWord: word, matchedTerm: term, kind: m.kind, tier: Int(m.tier), points: m.points)
    }
}

/// A set of item ids as bits: membership tests on millions of postings without hashing.
struct ItemBitset {
    private var words: [UInt64]

    init<S: Sequence>(_ ids: S, maximum: Int64) where S.Element == Int64 {
        words = Array(repeating: 0, count: Int(max(maximum, 0) >> 6) + 1)
        for id in ids where id >= 0 { words[Int(id >> 6)] |= 1 << UInt64(id & 63) }
    }

    @inline(__always)
    func contains(_ id: Int64) -> Bool {
        let w = Int(id >> 6)
        return id >= 0 && w < words.count && words[w] & (1 << UInt64(id & 63)) != 0
    }
}

extension IndexStore {
    /// Steps a statement through SQLite's C API (GRDB binds the arguments), calling `row` with the raw handle.
    static func forEachRawRow(_ db: Database, _ statement: Statement, _ arguments: StatementArguments,
                              _ row: (OpaquePointer) throws -> Void) throws {
        try statement.setArguments(arguments)
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
            }
            try row(handle)
        }
    }

    /// The best free-text match of `word` in each item that has one (only items in `restrictTo` when given): the
    /// term itself, terms it starts (when it is a prefix), and terms within its typo budget (`Typos`).
    static func wordMatches(_ db: Database, word: String, prefix: Bool, restrictTo: [Int64: Int32]?, typos: Bool,
                            isCancelled: (@Sendable () -> Bool)? = nil) throws -> WordMatches
    {
        // Decoding posting lists runs few SQLite instructions, so SQLite's progress handler alone would see a
        // cancellation late: the lists are checked too, every 64 of them.
        var listsRead = 0
        func checkCancellation() throws {
            listsRead += 1
            if listsRead & 63 == 1, let isCancelled, isCancelled() { throw EngineError(.cancelled, "cancelled") }
        }
        var result = WordMatches(word: word)
        // (term id, number, kind, postings)
        var terms: [(id: Int64, number: Int32, kind: RankingExplanation.MatchKind, df: Int)] = []
        if prefix {
            for row in try Row.fetchAll(db.cachedStatement(sql: """
                SELECT id, text, df FROM term WHERE text >= ? AND text < ? AND df > 0 ORDER BY text
                """), arguments: [word, word + "\u{10FFFF}"]) {
                let text: String = try row.stored(1)
                terms.append((try row.stored(0), result.number(of: text), text == word ? .exact : .prefix, try row.stored(2)))
            }
        } else if let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT id, df FROM term WHERE text = ? AND df > 0"),
                                             arguments: [word]) {
            terms.append((try row.stored(0), result.number(of: word), .exact, try row.stored(1)))
        }
        if typos {
            let budget = Typos.budget(for: word)
            if budget > 0 {
                let known = Set(terms.map(\.id))
                for neighbour in try Typos.neighbours(db, of: word, prefix: prefix, budget: budget) where !known.contains(neighbour.id) {
                    terms.append((neighbour.id, result.number(of: neighbour.text), .typo, neighbour.df))
                }
            }
        }
        if terms.isEmpty { return result }
        let expected = min(restrictTo?.count ?? Int.max, terms.reduce(0) { $0 + $1.df })
        if expected > 16 { result.best.reserveCapacity(min(expected, 1 << 20)) }
        // Row ids only grow by one per insert, so the bitset stays small; a store whose ids went past 2³² (billions
        // of inserts) checks the candidates' dictionary instead.
        let maximum = restrictTo?.keys.max() ?? 0
        let bitset = restrictTo.flatMap { maximum < 1 << 32 ? ItemBitset($0.keys, maximum: maximum) : nil }
        @inline(__always) func allowed(_ item: Int64) -> Bool {
            guard let restrictTo else { return true }
            if let bitset { return bitset.contains(item) }
            return restrictTo[item] != nil
        }
        var points = [[Double]](repeating: [0, 0, 0, 0], count: 3)
        for (k, kind) in [RankingExplanation.MatchKind.exact, .prefix, .typo].enumerated() {
            for tier in 0..<4 { points[k][tier] = Ranking.tierWeights[tier] * Ranking.kindFactor(kind) }
        }
        @inline(__always) func kindIndex(_ kind: RankingExplanation.MatchKind) -> Int {
            kind == .exact ? 0 : (kind == .prefix ? 1 : 2)
        }
        var remaining = terms[...]
        if prefix, restrictTo == nil || terms.count > 64 {
            // One pass over the whole prefix range instead of one statement per term.
            var numberOfID: [Int64: (Int32, RankingExplanation.MatchKind)] = [:]
            for t in terms where t.kind != .typo { numberOfID[t.id] = (t.number, t.kind) }
            try PostingStore.forEachList(db, termsFrom: word, below: word + "\u{10FFFF}") { termID, list in
                try checkCancellation()
                guard let (number, kind) = numberOfID[termID] else { return }
                let row = points[kindIndex(kind)]
                try list.forEach { item, tiers in
                    guard let tier = TextIndexer.bestTier(tiers), allowed(item) else { return }
                    result.consider(item, PackedMatch(term: number, kind: kind, tier: UInt8(tier), points: row[tier]))
                }
            }
            remaining = terms.filter { $0.kind == .typo }[...]
        }
        // Few candidates against long posting lists: decode only the blocks that may hold one of them.
        var sortedCandidates: [Int64]? = nil
        let packed = remaining.isEmpty ? [] : try PackedSegment.current(db)
        for term in remaining {
            let row = points[kindIndex(term.kind)]
            try PostingStore.forEachList(db, term: term.id, packed: packed) { list in
                try checkCancellation()
                let visit: (Int64, UInt8) -> Void = { item, tiers in
                    guard let tier = TextIndexer.bestTier(tiers), allowed(item) else { return }
                    result.consider(item, PackedMatch(term: term.number, kind: term.kind, tier: UInt8(tier), points: row[tier]))
                }
                if let restrictTo, restrictTo.count * 4 < list.count {
                    if sortedCandidates == nil { sortedCandidates = restrictTo.keys.sorted() }
                    try list.forEach(near: sortedCandidates!, visit)
                } else {
                    try list.forEach(visit)
                }
            }
        }
        return result
    }

    /// At most this many candidates whose segment columns are still being read are looked up row by row for their
    /// initials (`initialMatches`); with more, the word's posting lists are read instead.
    static let initialRowReads = 4_096

    /// The best match of a one-letter prefix (`letter`, an `Initials` index) in each candidate, from the segments'
    /// `Initials` column instead of the posting lists of every term the letter starts: the same matches
    /// `wordMatches` finds (the column is computed from the same terms and tiers), with the term left unresolved.
    /// Without candidates, every item of every segment is a candidate. Nil when the columns cannot answer cheaply
    /// (a large segment's columns are still being read: the caller reads the posting lists).
    static func initialMatches(_ db: Database, word: String, letter: Int, candidates: [Int64: Int32]?,
                               columns: StaticColumns, isCancelled: (@Sendable () -> Bool)?) throws -> WordMatches?
    {
        var result = WordMatches(word: word)
        // By code; codes 9…15 exist only in damaged bytes and match nothing.
        var codes = [PackedMatch?](repeating: nil, count: 16)
        for code in 1...8 {
            let (kind, tier, points) = Initials.match(UInt8(code))
            codes[code] = PackedMatch(term: WordMatches.unresolvedTerm, kind: kind, tier: UInt8(tier), points: points)
        }
        guard let candidates else {
            guard columns.complete else { return nil }
            for column in columns.segments {
                if let isCancelled, isCancelled() { throw EngineError(.cancelled, "cancelled") }
                for i in column.present.indices where column.present[i] {
                    let code = column.initial(at: i, letter: letter)
                    if let match = codes[Int(code)] { result.best[column.firstItem + Int64(i)] = match }
                }
            }
            return result
        }
        var missing: [Int64] = []
        result.best.reserveCapacity(candidates.count)
        for id in candidates.keys {
            guard let code = columns.initial(id, letter: letter) else {
                missing.append(id)
                if missing.count > initialRowReads { return nil }
                continue
            }
            if let match = codes[Int(code)] { result.best[id] = match }
        }
        if !missing.isEmpty {
            let statement = try db.cachedStatement(sql: "SELECT initials FROM item WHERE id = ?")
            for id in missing {
                try forEachRawRow(db, statement, [id]) { h in
                    guard sqlite3_column_bytes(h, 0) == Int32(Initials.byteCount), let blob = sqlite3_column_blob(h, 0) else { return }
                    let code = Initials.code(UnsafeRawBufferPointer(start: blob, count: Initials.byteCount), letter: letter)
                    if let match = codes[Int(code)] { result.best[id] = match }
                }
            }
        }
        return result
    }

    /// How many ranked matches a filter may reject before the filter's index lookup is read (`topHits`): reading
    /// the lookup costs about as much as decoding a few hundred items.
    static let rejectionsBeforeLookup = 256

    /// The top `options.limit` hits (all when 0) among candidates with their summed word units, exactly as if
    /// every candidate were scored and sorted by (score, identifier), the filter applied in that order.
    ///
    /// `words` are the query's words in query order. Static signals (hint, recency), the name parts (`NameMatch`)
    /// and identifiers are read a bucket of equal word units at a time, best bucket first, and reading stops once
    /// `limit` hits that pass the filter score above anything an unread bucket can reach. Engaged items (boosts) are
    /// read first, since their bound is higher.

    static func topHits(_ db: Database, candidates: [Int64: Int32], words: [WordMatches], options: TextSearchOptions,
                        columns: StaticColumns? = nil) throws -> [SearchHit]
    {
        let now = options.now.timeIntervalSinceReferenceDate
        let maxStatic = Ranking.maxRankingHintPoints + Ranking.maxRecencyPoints + Ranking.nameStartPoints + Ranking.maxNameLengthPoints
        // Only a candidate whose every word matched a whole name word can be the exact name: those are the top
        // level of word units, if any.
        let exactNameUnits = Int32((Double(words.count) * Ranking.tierWeights[0] * Ranking.unitsPerPoint).rounded())
        let queryKey = NameSignals.queryKey(words.map(\.word))
        let firstIsPrefix = options.lastWordIsPrefix && words.count == 1
        /// A candidate's word points (summed in query order, as `RankingExplanation.total` adds them) and what its
        /// name parts depend on, in one pass over the words.
        struct WordSummary {
            var points = 0.0
            var anyName = false
            var allExactName = true
            /// The first word's match kind when that match is in the name.
            var firstNameKind: RankingExplanation.MatchKind?
        }
        @inline(__always) func summary(_ id: Int64) -> WordSummary {
            var summary = WordSummary()
            for (i, word) in words.enumerated() {
                guard let match = word.best[id] else {
                    summary.allExactName = false
                    continue
                }
                summary.points += match.points
                if match.tier == 0 {
                    summary.anyName = true
                    if i == 0 { summary.firstNameKind = match.kind }
                    if match.kind != .exact { summary.allExactName = false }
                } else {
                    summary.allExactName = false
                }
            }
            return summary
        }
        func nameMatch(_ summary: WordSummary, _ name: @autoclosure () -> NameSignals) -> NameMatch {
            guard summary.anyName else { return NameMatch() }
            let name = name()
            guard name.words > 0 else { return NameMatch() }
            let startsName = summary.firstNameKind.map {
                NameMatch.firstWordMatches(words[0].word, as: $0, prefix: firstIsPrefix, first: name.first)
            } ?? false
            return NameMatch(anyName: true, startsName: startsName, allExactName: summary.allExactName, queryKey: queryKey, name: name)
        }
        var boosted: [Int64] = []
        if !options.boosts.isEmpty {
            let lookup = try db.cachedStatement(sql: "SELECT id FROM item WHERE uid = ?")
            for uid in options.boosts.keys where uid.isStorableKey {
                if let id = try Int64.fetchOne(lookup, arguments: [uid]), candidates[id] != nil { boosted.append(id) }
            }
        }
        let boostedSet = Set(boosted)
        var buckets: [Int32: [Int64]] = [:]
        for (id, points) in candidates where !boostedSet.contains(id) { buckets[points, default: []].append(id) }
        let levels = buckets.keys.sorted(by: >)

        // A candidate's identifier is only needed to break ties and for engagement: read from the columns, it is
        // made a String only then.
        struct Scored {
            var id: Int64
            var score: Double
            var hint: Double?
            var lastUsed: Double?
            var name: NameMatch
            var uid: String?
            var column: SegmentColumns?
            var index: Int
        }
        var pool: [Scored] = []
        let staticRow = try db.cachedStatement(sql: """
            SELECT uid, hint, lastUsed, nameWords, nameFirst, nameKey FROM item WHERE id = ? AND expires > ?
            """)
        func read(_ ids: [Int64]) throws {
            for id in ids {
                let matched = summary(id)
                let points = matched.points
                if let signals = columns?.signals(id) {
                    // From the columns; whether the item still exists and has not expired is checked when it is
                    // returned (below). Added in the order `RankingExplanation.total` adds.
                    let name = nameMatch(matched, signals.column.name(at: signals.index))
                    var score = points + name.exact + name.start + name.length
                        + Ranking.hintPoints(signals.hint) + Ranking.recencyPoints(lastUsed: signals.lastUsed, now: options.now)
                    var uid: String? = nil
                    if !options.boosts.isEmpty {
                        uid = signals.column.uid(at: signals.index)
                        score += options.boosts[uid!] ?? 0
                    }
                    pool.append(Scored(id: id, score: score, hint: signals.hint, lastUsed: signals.lastUsed, name: name, uid: uid,
                                       column: signals.column, index: signals.index))
                    continue
                }
                try forEachRawRow(db, staticRow, [id, now]) { h in
                    let uid = String(decoding: UnsafeBufferPointer(start: sqlite3_column_text(h, 0),
                                                                   count: Int(sqlite3_column_bytes(h, 0))), as: UTF8.self)
                    let hint: Double? = sqlite3_column_type(h, 1) == SQLITE_NULL ? nil : sqlite3_column_double(h, 1)
                    let lastUsed: Double? = sqlite3_column_type(h, 2) == SQLITE_NULL ? nil : sqlite3_column_double(h, 2)
                    let first = sqlite3_column_text(h, 4).map {
                        String(decoding: UnsafeBufferPointer(start: $0, count: Int(sqlite3_column_bytes(h, 4))), as: UTF8.self)
                    }
                    let name = nameMatch(matched, NameSignals(words: Int(sqlite3_column_int64(h, 3)), first: first ?? "",
                                                         key: UInt64(bitPattern: sqlite3_column_int64(h, 5))))
                    let score = points + name.exact + name.start + name.length + Ranking.hintPoints(hint)
                        + Ranking.recencyPoints(lastUsed: lastUsed, now: options.now) + (options.boosts[uid] ?? 0)
                    pool.append(Scored(id: id, score: score, hint: hint, lastUsed: lastUsed, name: name, uid: uid, column: nil, index: 0))
                }
            }
        }
        @inline(__always) func uid(_ i: Int) -> String {
            if let uid = pool[i].uid { return uid }
            let uid = pool[i].column!.uid(at: pool[i].index)
            pool[i].uid = uid
            return uid
        }
        /// The first `count` positions in `pool` by (score descending, identifier ascending) (all of them when
        /// `count` is nil), plus any tied with the last; only tied candidates' identifiers are made into Strings,
        /// and no candidate is moved.
        func ranking(first count: Int?) -> [Int] {
            func precedes(_ a: Int, _ b: Int) -> Bool {
                let x = pool[a].score, y = pool[b].score
                if x != y { return x > y }
                return uid(a) < uid(b)
            }
            guard let count, count < pool.count else { return pool.indices.sorted(by: precedes) }
            // The best `count`, kept sorted while every candidate is offered once (a big group of equal scores,
            // common with no ranking hint, costs identifier comparisons only against the kept ones).
            var top: [Int] = []
            top.reserveCapacity(count + 1)
            for i in pool.indices {
                if top.count == count, !precedes(i, top[count - 1]) { continue }
                var low = 0, high = top.count
                while low < high {
                    let mid = (low + high) / 2
                    if precedes(top[mid], i) { low = mid + 1 } else { high = mid }
                }
                top.insert(i, at: low)
                if top.count > count { top.removeLast() }
            }
            return top
        }
        try read(boosted)

        let itemRow = try db.cachedStatement(sql: "SELECT uid, domain, expires, attrs FROM item WHERE id = ? AND expires > ?")
        var items: [Int64: StoredItem?] = [:]   // fetched items; nil when gone, expired or the filter rejected it
        // A filter checked on ranked matches reads and decodes each one. When the best matches are mostly rejected
        // (the filter and the ranking disagree: `l` in domains whose packages rarely start with l), the filter's
        // index lookup names the items it can accept, so the rest are skipped without being read.
        var rejected = 0
        var accepted: Set<Int64>? = nil
        func item(_ id: Int64) throws -> StoredItem? {
            if let known = items[id] { return known }
            if let accepted, !accepted.contains(id) { items[id] = .some(nil); return nil }
            guard let row = try Row.fetchOne(itemRow, arguments: [id, now]) else { items[id] = .some(nil); return nil }
            var item: StoredItem? = try storedItem(row)
            if let filter = options.filter, let candidate = item {
                if !filter(candidate) {
                    item = nil
                    rejected += 1
                    if accepted == nil, rejected >= Self.rejectionsBeforeLookup, let lookup = options.filterLookup {
                        accepted = try lookup.candidateIDs(db)
                    }
                }
            }
            items[id] = .some(item)
            return item
        }
        let wanted = options.limit > 0 ? options.limit : Int.max
        var next = 0
        while true {
            if let isCancelled = options.isCancelled, isCancelled() { throw EngineError(.cancelled, "cancelled") }
            if next < levels.count {
                try read(buckets[levels[next]]!)
                next += 1
            }
            // Anything not read yet scores at most this.
            let bound = next < levels.count
                ? Double(levels[next]) / Ranking.unitsPerPoint + maxStatic + (levels[next] >= exactNameUnits ? Ranking.exactNamePoints : 0) + 1e-9
                : -Double.infinity
            // The hits so far are final when `wanted` of them beat the bound (a tie might lose to a smaller
            // identifier not read yet); until enough candidates do, there is nothing to sort.
            let done = next >= levels.count
            if done || (options.limit > 0 && pool.lazy.filter({ $0.score > bound }).count >= wanted) {
                var hits: [SearchHit] = []
                // A screenful at a time: when a filter rejects most of them, the next ranks are sorted too.
                var first = options.limit > 0 ? max(wanted * 2, 64) : pool.count
                var checked = 0
                ranks: while true {
                    let order = ranking(first: first)
                    for position in order.dropFirst(checked) {
                        let candidate = pool[position]
                        if hits.count >= wanted || candidate.score <= bound { break ranks }
                        checked += 1
                        guard let found = try item(candidate.id) else { continue }
                        var explanation = RankingExplanation()
                        explanation.words = words.compactMap { $0.explanation(for: candidate.id, of: found) }
                        explanation.setName(candidate.name)
                        explanation.rankingHintPoints = Ranking.hintPoints(candidate.hint)
                        explanation.recencyPoints = Ranking.recencyPoints(lastUsed: candidate.lastUsed, now: options.now)
                        explanation.engagementPoints = options.boosts[found.uniqueIdentifier] ?? 0
                        hits.append(SearchHit(item: found, score: candidate.score, explanation: explanation))
                    }
                    if order.count >= pool.count { break }
                    first *= 4
                }
                if hits.count >= wanted || done { return hits }
            }
        }
    }
}
