import Foundation
import GRDB
import SpotlightText
import Synchronization

/// A ranked free-text search result.
package struct SearchHit: Sendable {
    package var item: StoredItem
    /// Higher is better. Comparable between hits of the same search only.
    package var score: Double
    /// Why the hit scored what it did.
    package var explanation: RankingExplanation
}

/// The parts of a hit's score, for `explain`.
package struct RankingExplanation: Sendable, Hashable, CustomStringConvertible {
    /// One entry per query word: which term matched, how, and in which tier.
    package struct WordMatch: Sendable, Hashable {
        package var queryWord: String
        package var matchedTerm: String
        package var kind: MatchKind
        /// 0 name (title, displayName), 1 keywords, 2 description, 3 body.
        package var tier: Int
        package var points: Double
    }

    package enum MatchKind: String, Sendable, Hashable {
        /// The word itself; a term the word begins (the word being typed).
        case exact, prefix
        /// One typo of the whole term (`Typos`).
        case typo
        /// Two typos of the whole term, or typos of a beginning of it only (the word being typed): a weaker match
        /// than one typo of the whole term, as a beginning is weaker than the whole word.
        case weakTypo

        /// Either kind of typo.
        package var isTypo: Bool { self == .typo || self == .weakTypo }
    }

    package var words: [WordMatch] = []
    /// The typed text is the item's whole name (`Ranking.exactNamePoints`), or is once its typos are corrected
    /// (`Ranking.correctedNamePoints`).
    package var exactNamePoints: Double = 0
    /// The first typed word matched the name's first word (`Ranking.nameStartPoints`).
    package var nameStartPoints: Double = 0
    /// A word matched the name, and the name is short (`Ranking.nameLengthPoints`).
    package var nameLengthPoints: Double = 0
    package var rankingHintPoints: Double = 0
    package var recencyPoints: Double = 0
    package var engagementPoints: Double = 0

    package var total: Double {
        words.reduce(0) { $0 + $1.points } + exactNamePoints + nameStartPoints + nameLengthPoints
            + rankingHintPoints + recencyPoints + engagementPoints
    }

    mutating func setName(_ name: NameMatch) {
        exactNamePoints = name.exact
        nameStartPoints = name.start
        nameLengthPoints = name.length
    }

    /// Each part with its points, in the order `total` adds them.
    package var components: [String] {
        var parts = words.map { "\($0.queryWord)→\($0.matchedTerm) \($0.kind.rawValue) tier \($0.tier): \(String(format: "%.2f", $0.points))" }
        if exactNamePoints != 0 {
            let part = exactNamePoints < Ranking.exactNamePoints ? "corrected name" : "exact name"
            parts.append("\(part): \(String(format: "%.2f", exactNamePoints))")
        }
        if nameStartPoints != 0 { parts.append("name starts with it: \(String(format: "%.2f", nameStartPoints))") }
        if nameLengthPoints != 0 { parts.append("name length: \(String(format: "%.2f", nameLengthPoints))") }
        if rankingHintPoints != 0 { parts.append("rankingHint: \(String(format: "%.2f", rankingHintPoints))") }
        if recencyPoints != 0 { parts.append("recency: \(String(format: "%.2f", recencyPoints))") }
        if engagementPoints != 0 { parts.append("engagement: \(String(format: "%.2f", engagementPoints))") }
        return parts
    }

    package var description: String {
        components.joined(separator: ", ") + " = \(String(format: "%.3f", total))"
    }
}

/// The ranking function, in one place. Scores add up:
///
/// - each query word contributes `tierWeight[tier] × kindFactor` for its best match in the item, where the tiers
///   are name (title, displayName) 8, keywords 4, description 2, body 1, and the kind factor is exact 1.0,
///   prefix 0.9, typo 0.6 (one typo of the whole word), weak typo 0.55 (two typos of the whole word, or typos of
///   a beginning only): a prefix of a name word is 0.8 below the whole word, and a weak typo 0.4 below a typo,
///   less than what `rankingHint` adds, so a very popular `numpy` outranks an obscure `add-two-num` for `num`;
/// - the name (`NameSignals`, `NameMatch`): 3.5 when the typed words are exactly the item's name (all matched
///   whole in the name, and the name's words joined equal the typed words joined), 2.1 when they are once their
///   typos are corrected (`NameKeys`); 0.25 when the first typed word matched the name's first word; 0.25 ÷ the
///   name's word count when any typed word matched the name;
/// - `rankingHint` (0…100) adds up to 1.5;
/// - `lastUsedDate` adds up to 1.5, halving every 14 days;
/// - engagement (see `EngagementStore`) adds up to 2.
///
/// The static parts together (≤ 5) are bounded below the gap between a name match and a body match of one word, so
/// they reorder similar text matches but never bury a clearly better one. Ties break on the unique identifier.
package enum Ranking {
    package static let tierWeights: [Double] = [8, 4, 2, 1]
    package static func kindFactor(_ kind: RankingExplanation.MatchKind) -> Double {
        switch kind {
        case .exact: return 1.0
        case .prefix: return 0.9
        case .typo: return 0.6
        case .weakTypo: return 0.55
        }
    }
    /// Word points are whole twentieths (8 × 0.9 = 7.2, 1 × 0.9 = 0.9, 2 × 0.6 = 1.2, 1 × 0.55 = 0.55 …): sums of
    /// units are exact.
    static let unitsPerPoint = 20.0
    /// The typed text is the item's whole name: above everything static (hint, recency and the other name parts
    /// add at most 3.5 to a rival), below engagement with a static edge.
    package static let exactNamePoints = 3.5
    /// The typed text is the item's whole name once its typos are corrected (`NameKeys`): the exact name's points
    /// times the typo factor, as a word's points are. Less than a name word's beginning gains over a typo of it
    /// (7.2 against 4.8): `inicon` still lists `iniconfig`, which it starts, above `unicon`, which it misspells.
    package static let correctedNamePoints = exactNamePoints * 0.6
    package static let nameStartPoints = 0.25
    package static let maxNameLengthPoints = 0.25
    static func nameLengthPoints(words: Int) -> Double {
        words > 0 ? maxNameLengthPoints / Double(words) : 0
    }
    /// How the query word `word` matches the item's word `term`, if it does: the same word, a prefix of it (when
    /// `prefix`), or within `typoBudget` edits of it (`Typos`: the first letter kept, or the first letter as the one
    /// typo, `Typos.firstLetterTypo`): one edit of the whole term is a typo, two edits of it, or edits of a
    /// beginning of it only (when `prefix`), a weak typo.
    static func matchKind(_ word: String, term: String, prefix: Bool, typoBudget: Int) -> RankingExplanation.MatchKind? {
        if term == word { return .exact }
        if prefix && term.hasPrefix(word) { return .prefix }
        guard typoBudget > 0 else { return nil }
        if term.unicodeScalars.first == word.unicodeScalars.first {
            // (For the word being typed, its beginnings first: most terms of an item are none, and are ruled out
            // with one bounded distance, as before there were weak typos.)
            if prefix, Typos.prefixDistance(word, term, limit: typoBudget) > typoBudget { return nil }
            let whole = Typos.distance(word, term, limit: typoBudget)
            if whole <= typoBudget { return whole <= 1 ? .typo : .weakTypo }
            return prefix ? .weakTypo : nil
        }
        // A first-letter typo keeps the length within one (the rest typed right); checked on the UTF-8 counts
        // first, since this runs for every term of a candidate.
        let typed = word.utf8.count, other = term.utf8.count
        guard prefix ? other + 1 >= typed : abs(other - typed) <= 1, let w0 = word.utf8.first, let t0 = term.utf8.first,
              w0 != t0, w0 < 0x80, t0 < 0x80 else { return nil }
        let typedScalars = word.unicodeScalars.map(\.value), termScalars = term.unicodeScalars.map(\.value)
        // The one typo, of the whole term or (the word being typed) of a beginning of it.
        if abs(other - typed) <= 1, Typos.firstLetterTypo(typedScalars, termScalars, prefix: false) { return .typo }
        if prefix, Typos.firstLetterTypo(typedScalars, termScalars, prefix: true) { return .weakTypo }
        return nil
    }

    /// The nearest of a word's corrections (terms within its typo budget of the whole word): those one typo away
    /// when there are any, else all. A name spelled with a correction two typos away is not the name a person meant
    /// when another is one typo away (`traslates` means `translates` before `translate`).
    static func nearestCorrections(_ corrections: [String], of word: String, budget: Int) -> [String] {
        let near = corrections.filter { matchKind(word, term: $0, prefix: false, typoBudget: budget) == .typo }
        return near.isEmpty ? corrections : near
    }
    package static let maxRankingHintPoints = 1.5
    package static let maxRecencyPoints = 1.5
    package static let recencyHalfLife: TimeInterval = 14 * 86_400

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
package struct TextSearchOptions: Sendable {
    /// How many hits to return, best first. 0 = all.
    package var limit: Int = 20
    /// Whether the last word is matched as a prefix (search as you type).
    package var lastWordIsPrefix = true
    /// Extra per-item points, by unique identifier (engagement).
    package var boosts: [String: Double] = [:]
    /// A predicate every hit must satisfy (attribute filters), checked before ranking.
    package var filter: (@Sendable (StoredItem) -> Bool)? = nil
    /// An index lookup naming a superset of the items `filter` accepts (from `QueryPlanner`). When it is selective,
    /// the search starts from those items instead of checking the filter on ranked matches one by one.
    package var filterLookup: TermLookup? = nil
    /// Checked while searching (before, and every 1,000 SQLite instructions): once it returns true the search stops
    /// and throws `EngineError.cancelled` (`CSSearchQuery.cancel()`, a consumer that stopped iterating).
    package var isCancelled: (@Sendable () -> Bool)? = nil
    /// Whether words also match terms within their typo budget (`Typos`).
    package var typoTolerance = true
    /// Whether each hit's explanation names the term that a prefix or typo match matched (`WordMatch.matchedTerm`,
    /// for explanations and for highlighting typo matches). Finding it tokenizes the matched tier of the hit's
    /// record: for a Debian package's long description, 40 % of a typed word's search (`s3fs`: 9.3 ms). When false
    /// it is the typed word; which hits come back, in which order and with which scores is the same either way.
    /// `CSUserQuery`, which shows no explanation, turns it off.
    package var resolvesMatchedTerms = true
    /// Whether one-word searches may use prefix lists (tests turn it off to compare with ranking every match).
    var usePrefixLists = true
    /// Whether a one-letter last word may be matched through the `Initials` column (tests turn it off to compare
    /// with reading its posting lists).
    var useInitials = true
    package var now = Date()

    package init(limit: Int = 20, lastWordIsPrefix: Bool = true) {
        self.limit = limit
        self.lastWordIsPrefix = lastWordIsPrefix
    }
}

extension IndexStore {
    /// Searches free text: every word must match a word of the item (the last one as a prefix), case and
    /// diacritics ignored; hits are ranked by `Ranking`.
    package func search(_ text: String, options: TextSearchOptions = TextSearchOptions()) throws -> [SearchHit] {
        let words = Tokenizer.queryTokens(text)
        // Typed text with nothing searchable in it (only punctuation, symbols or emoji) matches nothing; only text
        // that is empty or blank lists items by rankingHint and recency.
        if words.isEmpty, text.contains(where: { !$0.isWhitespace }) { return [] }
        let now = options.now.timeIntervalSinceReferenceDate
        var hotPrefix: String? = nil
        var staleList = false
        defer {
            // A long prefix with many matches should get a list, and a list whose recency went stale should be
            // rebuilt: noted for the store's maintenance (`performMaintenance`), which a writing process runs. A
            // search never writes.
            if let hotPrefix { noteForMaintenance(prefix: hotPrefix, stale: staleList) }
        }
        return try read(cancelledWhen: options.isCancelled) { db in
            // A filter that keeps at most a quarter of the items restricts the candidates from the start.
            var filterIDs: ItemIDSet? = nil
            // The items a wider filter's lookup names, when they were read anyway: ranked matches outside them are
            // rejected without being read (`topHits`).
            var accepted: ItemIDSet? = nil
            var total = 0
            if let lookup = options.filterLookup {
                total = try Self.approximateItemCount(db)
                let threshold = max(total / 4, 2_000)
                // A term's count adds up its postings in every attribute (a section name is also a word of
                // descriptions), so a term lookup estimated at up to twice the threshold is read to see.
                let worthReading = lookup.countsExactly ? threshold : 2 * threshold
                if let ids = try filterCandidates(lookup, worthReading: worthReading, db) {
                    if ids.isEmpty { return [] }
                    if ids.count <= threshold { filterIDs = ids } else { accepted = ids }
                }
            }
            // The last word, when it is one letter the `Initials` column holds: matched from the column, item by
            // item, once the other words or the filter have named the candidates.
            let initialLetter = options.useInitials && options.lastWordIsPrefix ? words.last.flatMap(Initials.index(ofWord:)) : nil
            // One short word: its score-ordered prefix list, walked until the top k are certain (with a filter,
            // until enough of the list passes it; not tried when the filter keeps too few items for the list to
            // hold `limit` of them, which would only read and reject the list item by item, nor for one letter
            // whose initials answer the filter's items directly).
            let listMayAnswer = filterIDs.map { ids in
                initialLetter == nil && ids.count * PrefixLists.capacity(of: words.first ?? "") >= max(options.limit, 1) * max(total, 1)
            } ?? true
            if listMayAnswer, options.usePrefixLists, words.count == 1, options.lastWordIsPrefix,
               words[0].unicodeScalars.count <= PrefixLists.maxPrefixLength,
               let hits = try Self.searchShortPrefix(db, words[0], options: options, accepted: filterIDs ?? accepted,
                                                     pending: { try self.pendingItems(db) }, staleList: &staleList) {
                return hits
            }
            if staleList { hotPrefix = words[0] }
            let space = try columnCache.columns(db, store: self)
            if words.isEmpty {
                // Nothing typed: the filter's items, or the items with the best hint and recency, by their static
                // signals alone.
                let ids: [Int64]
                if let filterIDs {
                    ids = Array(filterIDs)
                } else {
                    ids = try ItemCatalog(db).bestByStaticSignals(limit: max(options.limit, 1) * 4, liveAt: now)
                }
                return try Self.topHits(db, candidates: Candidates(ids: ids), words: [], options: options, columns: space,
                                        accepted: accepted, values: valueColumns)
            }
            // Words with the fewest postings first, so the candidate set shrinks fast. A letter the initials answer
            // comes last whatever its postings (they are never read, and counting them reads thousands of terms).
            let order = try words.indices.map { i -> (Int, Int) in
                if i == words.count - 1, initialLetter != nil { return (i, Int.max) }
                let isPrefix = options.lastWordIsPrefix && i == words.count - 1
                return (i, try Self.documentFrequency(db, word: words[i], prefix: isPrefix))
            }.sorted { $0.1 < $1.1 }
            // A long prefix with many matches of its own (not typo matches, which a list cannot hold) gets a list.
            func noteIfHot(matches: Int) {
                if words.count == 1, options.lastWordIsPrefix, filterIDs == nil,
                   (PrefixLists.eagerPrefixLength + 1...PrefixLists.maxPrefixLength).contains(words[0].unicodeScalars.count),
                   matches >= PrefixLists.hotThreshold, order[0].1 >= PrefixLists.hotThreshold {
                    hotPrefix = words[0]
                }
            }
            // The words matched in `order`, each narrowing the candidates (nil: every item, before the first word;
            // numbered densely over the segments; a selective filter's items are the first candidates). With
            // `nameOnly`, a word matches only in the name tier: its lists' other postings are passed over (blocks
            // without a name posting undecoded), and its initials and forward matches elsewhere count as none; nil
            // then as soon as fewer than `limit` candidates are left, or a letter the initials cannot answer yet
            // would have to be read from its postings.
            var forward: [Int64: [String: UInt8]] = [:]
            func matchWords(nameOnly: Bool) throws -> (candidates: Candidates?, ranked: [RankedWord])? {
                var candidates: Candidates? = filterIDs.map { Candidates(filtered: $0.denseNumbers(in: space), words: words.count) }
                if candidates?.count == 0 { return (candidates, []) }
                let tiers = nameOnly ? UInt8(1 << TextTier.name.rawValue) : TextIndexer.freeTextMask
                @inline(__always) func counted(_ code: UInt8) -> UInt8 {
                    !nameOnly || (MatchCode.isMatch(code) && MatchCode.tier(code) == TextTier.name.rawValue) ? code : 0
                }
                // One byte per item while a word's postings are read: 0 not a candidate, `MatchCode.unmatched` a
                // candidate, or the best code so far. Left all zeros after each word.
                var scratch: [UInt8] = []
                // All zeros again when given back (each word's codes were taken out): the next search's. (Not given
                // back when a word threw midway, cancelled, and left codes behind.)
                var scratchIsClean = true
                defer { if !scratch.isEmpty, scratchIsClean { scratchPool.giveBack(scratch) } }
                var ranked = [RankedWord](repeating: RankedWord(word: "", prefix: false, typos: false), count: words.count)
                for (i, ordered) in order {
                    let word = words[i]
                    let isPrefix = options.lastWordIsPrefix && i == words.count - 1
                    ranked[i] = RankedWord(word: word, prefix: isPrefix, typos: false)
                    if i == words.count - 1, let letter = initialLetter,
                       var found = try Self.initialCodes(db, letter: letter, candidates: candidates, space: space,
                                                         isCancelled: options.isCancelled) {
                        if candidates == nil {
                            if nameOnly {
                                let kept = found.codes.indices.filter { counted(found.codes[$0]) != 0 }
                                found = (kept.map { found.dense[$0] }, kept.map { found.codes[$0] })
                            }
                            candidates = Candidates(dense: found.dense, codes: found.codes, word: i, words: words.count)
                        } else {
                            candidates!.narrow(word: i, codes: nameOnly ? found.codes.map(counted) : found.codes)
                        }
                        if candidates!.count == 0 || (nameOnly && candidates!.count < options.limit) { break }
                        continue
                    }
                    if nameOnly, i == words.count - 1, initialLetter != nil { return nil }
                    // A letter the initials could not answer (a large segment's columns are still being read) is
                    // counted after all, to choose between its postings and the candidates' own words.
                    let frequency = ordered == Int.max
                        ? try Self.documentFrequency(db, word: word, prefix: isPrefix) : ordered
                    let typos = options.typoTolerance && frequency < Typos.expansionThreshold
                    ranked[i].typos = typos
                    if let current = candidates,
                       current.count <= (typos ? max(Self.forwardCheckLimit, frequency / Self.postingsPerForwardCheck)
                                               : frequency / Self.postingsPerForwardCheck) {
                        // Few candidates left: read their words instead of the word's postings.
                        let ids = (0..<current.count).map { space.item(at: Int(current.dense[$0])) }
                        // (Read and tokenized once per process: the next keystroke has the same candidates.)
                        let unread = forwardTerms.take(ids.filter { forward[$0] == nil }, into: &forward)
                        var read: [Int64: [String: UInt8]] = [:]
                        try Self.loadTerms(db, ids: unread, into: &read)
                        forwardTerms.keep(read)
                        forward.merge(read) { kept, _ in kept }
                        candidates!.narrow(word: i, codes: ids.map { id in
                            counted(Self.forwardMatch(word, prefix: isPrefix, terms: forward[id] ?? [:], typos: typos)
                                .map { MatchCode.make(tier: $0.tier, kind: $0.kind) } ?? 0)
                        })
                    } else {
                        if scratch.isEmpty { scratch = scratchPool.take(count: space.count) }
                        var touched: [Int32] = []
                        // (Through a pointer: each store into the array checked it was not shared, a tenth of `for c`.)
                        if let current = candidates {
                            scratch.withUnsafeMutableBufferPointer { scratch in
                                for d in current.dense { scratch[Int(d)] = MatchCode.unmatched }
                            }
                        }
                        // The word's letter of the vocabulary in memory, when typos are looked for in it.
                        let letter = typos && Typos.budget(for: word) > 0 ? try vocabularyLetters.terms(startingAs: word, db, store: self) : nil
                        var typoMatches: TypoMatches? = nil
                        scratchIsClean = false
                        try Self.foldWord(db, word: word, prefix: isPrefix, typos: typos, space: space, scratch: &scratch,
                                          candidates: candidates?.count,
                                          sortedIDs: { candidates!.dense.map { space.item(at: Int($0)) }.sorted() },
                                          touched: &touched, letter: letter, letters: vocabularyLetters, tiers: tiers,
                                          isCancelled: options.isCancelled,
                                          typoMatches: &typoMatches)
                        ranked[i].typoMatches = typoMatches
                        // The word's code for each item read, the scratch left all zeros.
                        let codes = Self.takeCodes(&scratch, at: candidates?.dense ?? touched)
                        scratchIsClean = true
                        if candidates == nil {
                            candidates = Candidates(dense: touched, codes: codes, word: i, words: words.count)
                        } else {
                            candidates!.narrow(word: i, codes: codes)
                        }
                    }
                    if candidates!.count == 0 { break }
                    if nameOnly, candidates!.count < options.limit { return nil }
                }
                return (candidates, ranked)
            }
            // Words with many postings, none matched with typos, no filter and no engagement: the items that every
            // word matches in the name get at least 8 points a word (7.2 for a word being typed), and any other at
            // most 4 for one of its words, 3.2 behind at least, plus what the columns' hints, dates and name parts
            // add. So the items matched in the name alone are ranked first, and when `limit` of them are live hits
            // and the last scores above what any other item could, they are the top `limit`: only the name tier's
            // postings are read (blocks without one are skipped undecoded), and only those items ranked. `pyth` on
            // PyPI has 15,000 of them among 174,000 matches; `for c` ranked its names among `for`'s 346,000
            // postings (6–7 ms), and now reads those postings' name tier alone (0.6–1 ms). Exact: the same codes as
            // reading every tier (a match in the name outranks any other), ranked by `topHits`. Several words are
            // tried only when none is a beginning read as a range of terms (a one-letter last word is answered by
            // the initials column): a range of terms costs about as much in one tier as in all, and when the names
            // held too few matches (`for cr`, `library for re`) it was read twice, 1–2 ms more.
            if filterIDs == nil, accepted == nil, options.filter == nil, options.boosts.isEmpty, options.limit > 0,
               order[0].1 >= Self.nameTierFirstPostings.load(ordering: .relaxed),
               words.count == 1 ? initialLetter == nil : initialLetter != nil || !options.lastWordIsPrefix,
               !options.typoTolerance || order.allSatisfy({ $0.1 >= Typos.expansionThreshold }) {
                if let (named, ranked) = try matchWords(nameOnly: true), let named, named.count >= options.limit {
                    let hits = try Self.topHits(db, candidates: named, words: ranked, options: options, columns: space,
                                                values: valueColumns, store: self)
                    // The most another item could score: every word's best points (a whole word in the name, 8), less
                    // the 4 that at least one of its words loses outside the name (4 at most there), plus the most
                    // the columns' hints and dates and the name parts add.
                    let others = Double(words.count) * Ranking.tierWeights[0] - (Ranking.tierWeights[0] - Ranking.tierWeights[1])
                        + space.maxStaticPoints(now: options.now)
                    if hits.count >= options.limit, hits[options.limit - 1].score > others + 1e-9 {
                        // (How many items match in every tier is not known here: the word's postings stand for it.)
                        noteIfHot(matches: order[0].1)
                        Self.nameTierAnswers.add(1, ordering: .relaxed)
                        return hits
                    }
                }
                // Fewer live name matches than `limit`, or one that another item could reach: every tier, below.
            }
            guard let (matched, ranked) = try matchWords(nameOnly: false), let candidates = matched, candidates.count > 0 else {
                return []
            }
            noteIfHot(matches: candidates.count)
            return try Self.topHits(db, candidates: candidates, words: ranked, options: options, columns: space, accepted: accepted,
                                    values: valueColumns, store: self)
        }
    }

    /// The items a filter's lookup names when they are worth reading (its estimate at most `worthReading`), else
    /// nil. Kept while no item changes (another process's write changes the state too: it is read in the same
    /// snapshot), so the next keystroke with the same filter neither estimates nor reads it again.
    func filterCandidates(_ lookup: TermLookup, worthReading: Int, _ db: Database) throws -> ItemIDSet? {
        let state = try Self.itemsState(db)
        if let cached = filterCache.withLock({ $0 }), cached.state == state, cached.lookup == lookup { return cached.ids }
        guard try lookup.estimatedCount(db, cap: worthReading + 1, values: valueColumns) <= worthReading else { return nil }
        let ids = try lookup.candidateIDs(db, values: valueColumns)
        filterCache.withLock { $0 = (lookup, state, ids) }
        return ids
    }

    /// The items of small writes whose prefix-list changes are pending (`PendingPrefixes`), read once per items'
    /// state (`itemsState`). Applying the changes changes no item, so a cached read may still hold items the lists
    /// have taken since: they are scored once more, which changes nothing.
    func pendingItems(_ db: Database) throws -> [PendingPrefixes.PendingItem] {
        let state = try Self.itemsState(db)
        if let cached = pendingCache.withLock({ $0 }), cached.state == state { return cached.items }
        let items = try PendingPrefixes.items(db)
        pendingCache.withLock { $0 = (state, items) }
        return items
    }

    /// One short word typed alone: rank the candidates of its prefix list (`PrefixLists`) exactly. Returns nil
    /// when there is no list, or when a filter left too few hits from a truncated list (the caller then ranks
    /// every match).
    /// `accepted`: the items the filter's lookup names, when it was read (the others are rejected unread).
    /// `pending`: the items whose list changes are pending (`pendingItems`, read only when the prefix has a list):
    /// those whose words start with `word` join the list's entries under the key the list would give them.
    static func searchShortPrefix(_ db: Database, _ word: String, options: TextSearchOptions, accepted: ItemIDSet? = nil,
                                  pending: () throws -> [PendingPrefixes.PendingItem] = { [] },
                                  staleList: inout Bool) throws -> [SearchHit]?
    {
        guard let list = try PrefixLists.list(word, db: db) else { return nil }
        // A list holds prefix matches only. A word with fewer than `expansionThreshold` postings is also matched
        // with typos (which a list of its prefix cannot know of): rank it the full way. (Ten entries or more imply
        // ten postings or more, so only short lists need the count.)
        if options.typoTolerance, list.entries.count < Typos.expansionThreshold,
           try documentFrequency(db, word: word, prefix: true) < Typos.expansionThreshold {
            return nil
        }
        let catalog = ItemCatalog(db)
        var hits: [SearchHit] = []
        var seen = Set<Int64>()
        func score(_ id: Int64) throws {
            guard seen.insert(id).inserted, accepted?.contains(id) ?? true,
                  let entry = try catalog.entry(id: id, liveAt: options.now.timeIntervalSinceReferenceDate) else { return }
            let item = try entry.storedItem(in: db)
            if let filter = options.filter, !filter(item) { return }
            // The best term starting with the word: tier by tier, best tier first (a prefix match in a tier, 0.9 of
            // its weight, beats an exact one in the next, which weighs half), so a name match never tokenizes the
            // rest of the record.
            var best: RankingExplanation.WordMatch?
            for tier in Ranking.tierWeights.indices where best == nil {
                best = forwardMatch(word, prefix: true, terms: TextIndexer.terms(attributes: item.attributes, custom: item.customAttributes,
                                                                               onlyTier: tier), typos: false)
            }
            guard let best else { return }
            var explanation = RankingExplanation()
            explanation.words = [best]
            explanation.setName(NameMatch([best], firstIsPrefix: true, keys: NameKeys(words: [word]),
                                          name: NameSignals(attributes: item.attributes)))
            explanation.rankingHintPoints = Ranking.hintPoints(entry.hint)
            explanation.recencyPoints = Ranking.recencyPoints(lastUsed: entry.lastUsed, now: options.now)
            explanation.engagementPoints = options.boosts[item.uniqueIdentifier] ?? 0
            hits.append(SearchHit(item: item, score: explanation.total, explanation: explanation))
        }
        func ranked(_ a: SearchHit, _ b: SearchHit) -> Bool {
            a.score != b.score ? a.score > b.score : a.item.uniqueIdentifier < b.item.uniqueIdentifier
        }
        // An item's score is at most its key (recency only decays since the key was computed), except for
        // engagement, which the keys leave out: engaged items are scored first, wherever they are.
        if !options.boosts.isEmpty {
            for uid in options.boosts.keys {
                if let id = try catalog.id(of: uid) { try score(id) }
            }
        }
        let wanted = options.limit > 0 ? options.limit : Int.max
        let tolerance = 1e-9
        // What an item's score as of `options.now` can exceed its key by: 0 unless the keys were computed as of a
        // later time (`PrefixLists.keySlack`: a clock that went back).
        let slack = try PrefixLists.keySlack(db, now: options.now)
        /// Whether the k-th hit so far beats every item whose key is at most `entry`'s, identifiers breaking ties.
        func settled(before entry: PrefixLists.Entry) -> Bool {
            guard options.limit > 0, hits.count >= wanted else { return false }
            hits.sort(by: ranked)
            let kth = hits[wanted - 1]
            let bound = entry.key + slack
            return kth.score > bound + tolerance
                || (kth.score >= bound - tolerance && kth.item.uniqueIdentifier < entry.uid)
        }
        var entries = list.entries
        let pending = try pending()
        if !pending.isEmpty {
            let bytes = Array(word.utf8)
            let hash = NameSignals.hash(word)
            for item in pending {
                if let key = item.key(for: bytes, prefixText: word, prefixHash: hash, now: options.now) {
                    entries.append(PrefixLists.Entry(item: item.item, key: key, uid: item.uid))
                }
            }
            if entries.count > list.entries.count { entries.sort(by: PrefixLists.Entry.precedes) }
        }
        // Whether the items after `entry` and outside the list all score at most its key: always for a complete
        // list; for an incomplete one, while `entry` is not below the list's last entry (which bounds the items
        // outside it), as a pending item's entry may be.
        func bounds(_ entry: PrefixLists.Entry) -> Bool {
            guard !list.complete else { return true }
            guard let last = list.entries.last else { return false }
            return !PrefixLists.Entry.precedes(last, entry)
        }
        // Entries in key order: stop as soon as the rest cannot enter the top k.
        var exhausted = true
        for entry in entries {
            if bounds(entry), settled(before: entry) {
                exhausted = false
                break
            }
            try score(entry.item)
        }
        hits.sort(by: ranked)
        if exhausted, !list.complete {
            // Exact only if nothing outside the list can beat the k-th hit: an outsider's score is at most its list
            // key, which is at most the smallest in the list.
            guard let smallest = list.entries.last, settled(before: smallest) else {
                PrefixLists.fallbacks.withLock { $0 += 1 }
                // Without a filter the list fell short because its keys' recency went stale: rebuild it. (A filter
                // that rejects most of the list is no reason to rewrite it on every search; nor is a slack, which
                // a list rebuilt now keeps until the clock is past the keys' time again.)
                if options.filter == nil, slack == 0 { staleList = true }
                return nil
            }
        }
        if hits.count > wanted { hits.removeLast(hits.count - wanted) }
        return hits
    }

    /// The codes a word's fold left in `scratch` for the items at `dense`, each taken out (the scratch left all
    /// zeros there). Through a pointer: each store into the array checked it was not shared.
    static func takeCodes(_ scratch: inout [UInt8], at dense: [Int32]) -> [UInt8] {
        scratch.withUnsafeMutableBufferPointer { scratch in
            dense.map { d -> UInt8 in
                let code = scratch[Int(d)]
                scratch[Int(d)] = 0
                return code
            }
        }
    }

    /// A one-word search reads the name tier's postings first (`search`) when the word has at least this many:
    /// below, reading every tier at once costs less than a second pass would (tests lower it). And how many
    /// searches the name tier answered (tests).
    static let nameTierFirstPostings = Atomic<Int>(2_000), nameTierAnswers = Atomic<Int>(0)
    /// Below this many candidates, a word matched with typos is checked on the candidates' own words: its typo
    /// neighbours would otherwise be looked for in the whole vocabulary of its first letter (milliseconds). A word
    /// without typos is checked so only when its postings are many (`postingsPerForwardCheck`): a rare word's
    /// postings cost microseconds (`global navigation`: 150 candidates read and tokenized took 6 ms).
    static let forwardCheckLimit = 200
    /// A word with more postings than this many times the candidates is checked on the candidates instead.
    /// Reading and tokenizing one candidate costs about as much as decoding 2,000 postings (measured on the Debian
    /// corpus with block-compressed posting lists: ~40 µs against ~10–20 ns), but with few candidates a long list
    /// is decoded only in the blocks that may hold one (`foldWord`, a prefix's range too since 2026-12-07), so
    /// the postings read are a fraction of the word's. At 2,000, `python dict co` (341 candidates) read and
    /// tokenized them all, 15–23 ms in the keystroke runs (the timed pass finds them no longer kept,
    /// `ForwardTermsCache`), against 7.6 ms through the range's lists; both corpora's keystrokes, four runs each
    /// in turn on one store: p99 7.2–8.8 ms against 7.8–8.7, the slowest 13–14 ms against 19.
    static let postingsPerForwardCheck = 8_000

    /// Reads and tokenizes the given items' attributes.
    static func loadTerms(_ db: Database, ids: [Int64], into terms: inout [Int64: [String: UInt8]]) throws {
        for entry in try ItemCatalog(db).entries(ids: ids) {
            let decoded = try entry.attributes(in: db)
            terms[entry.id] = TextIndexer.terms(attributes: decoded.attributes, custom: decoded.custom, domain: entry.domain)
        }
    }

    /// The best match of a typed word among an item's terms, by the same rules as the index path: exact, prefix
    /// (for the last word), or within the typo budget (`Ranking.matchKind`).
    static func forwardMatch(_ word: String, prefix: Bool, terms: [String: UInt8], typos: Bool) -> RankingExplanation.WordMatch? {
        let budget = typos ? Typos.budget(for: word) : 0
        var best: RankingExplanation.WordMatch?
        for (term, tiers) in terms {
            // (The index's own terms, a domain's and the keyword tier's, are no words a person typed.)
            guard !TextIndexer.isOwnTerm(term), let tier = TextIndexer.bestTier(tiers),
                  let kind = Ranking.matchKind(word, term: term, prefix: prefix, typoBudget: budget) else { continue }
            let points = Ranking.tierWeights[tier] * Ranking.kindFactor(kind)
            if best == nil || points > best!.points || (points == best!.points && term < best!.matchedTerm) {
                best = .init(queryWord: word, matchedTerm: term, kind: kind, tier: tier, points: points)
            }
        }
        return best
    }

    /// The number of items holding `word` (with `prefix`, the sum over the terms it starts): the postings of its
    /// lists in every segment, deleted items counted until their segment is merged (`SegmentVocabulary`). An
    /// estimate, good for ordering words and for the typo threshold.
    static func documentFrequency(_ db: Database, word: String, prefix: Bool) throws -> Int {
        prefix ? try SegmentVocabulary.frequency(db, ofPrefix: word) : try SegmentVocabulary.frequency(db, of: word)
    }
}
