import Foundation
import GRDB
import GRDBSQLite
import HeapModule
import Synchronization

// The full-ranking path of `IndexStore.search` (every match of every word, then the top k), kept compact: a common
// pair like "for t" reads ~2M postings, so nothing per posting may allocate or hash. Items are numbered densely
// (`StaticColumns`: the snapshot's segments laid end to end), a word's postings are folded into one byte per item
// of a scratch array, candidates are parallel arrays, and static signals are read only for the candidates that can
// still reach the top k.

/// How a query word matches an item, in one byte: `1 + 4 × tier + kind` (kind 0 exact, 1 prefix, 2 typo, 3 weak
/// typo), 0 for no match. A lower code is always more points (8, 7.2, 4.8, 4.4, 4, 3.6, 2.4, 2.2, 2, 1.8, 1.2, 1.1, 1,
/// 0.9, 0.6, 0.55), so the best match of an item is the smallest code. (The `Initials` column stores codes of its
/// own, exact and prefix matches only, converted as they are read: `Initials.matchCodes`.)
enum MatchCode {
    /// In a word's scratch: a candidate no posting of the word has matched yet (above every code).
    static let unmatched: UInt8 = 31

    @inline(__always)
    static func make(tier: Int, kind: RankingExplanation.MatchKind) -> UInt8 {
        UInt8(1 + 4 * tier + kindIndex(kind))
    }

    @inline(__always)
    static func kindIndex(_ kind: RankingExplanation.MatchKind) -> Int {
        switch kind {
        case .exact: return 0
        case .prefix: return 1
        case .typo: return 2
        case .weakTypo: return 3
        }
    }

    /// Whether a byte is a match (1…16): one unsigned comparison, which a loop can turn into a flag instead of a
    /// branch (`Candidates.narrow`).
    @inline(__always)
    static func isMatch(_ code: UInt8) -> Bool { code &- 1 < 16 }

    static let kinds: [RankingExplanation.MatchKind] = [.exact, .prefix, .typo, .weakTypo]

    @inline(__always)
    static func kind(_ code: UInt8) -> RankingExplanation.MatchKind { kinds[Int(code - 1) % 4] }

    @inline(__always)
    static func tier(_ code: UInt8) -> Int { Int(code - 1) / 4 }

    /// Points by code (0 for bytes that are no match), computed as `Ranking` computes them, so sums are the same.
    static let points: [Double] = (0..<32).map { code in
        guard isMatch(UInt8(code)) else { return 0 }
        return Ranking.tierWeights[tier(UInt8(code))] * Ranking.kindFactor(kind(UInt8(code)))
    }

    /// Points in twentieths (`Ranking.unitsPerPoint`): whole numbers, so sums are exact in any order.
    static let units: [Int32] = points.map { Int32(($0 * Ranking.unitsPerPoint).rounded()) }
}

/// The candidates of a search as parallel arrays, one entry per candidate: its dense number in the item space
/// (`StaticColumns`), its summed word units, and each query word's match code (in query order; nil for a word not
/// read yet). A search with no words lists items by id instead (`ids`).
struct Candidates {
    var dense: [Int32] = []
    var units: [Int32] = []
    var codes: [[UInt8]?] = []
    /// The items' ids, when they were named by id (no words); else computed from `dense`.
    var ids: [Int64]? = nil

    var count: Int { units.count }

    /// The items the first word read matched (`dense`), with its codes, for a query of `words` words.
    init(dense: [Int32], codes: [UInt8], word: Int, words: Int) {
        self.dense = dense
        units = codes.map { MatchCode.units[Int($0)] }
        self.codes = [[UInt8]?](repeating: nil, count: words)
        self.codes[word] = codes
    }

    /// Items named by id, matched by no word (nothing typed).
    init(ids: [Int64]) {
        self.ids = ids
        units = [Int32](repeating: 0, count: ids.count)
    }

    /// A filter's items (dense numbers) before any word is read.
    init(filtered dense: [Int32], words: Int) {
        self.dense = dense
        units = [Int32](repeating: 0, count: dense.count)
        codes = [[UInt8]?](repeating: nil, count: words)
    }

    /// Keeps the candidates that `word` matched: `new` holds its code for each candidate (not a match: dropped).
    ///
    /// Each array is compacted in place, one pass each, without a branch per candidate (every entry is copied
    /// down, and the place of the next advances when it is kept): an array of the kept positions, then a `map` of
    /// every array through it, was a sixth of `for c` on PyPI, and a branch that half the candidates take the
    /// other way is mispredicted half the time (177,000 of its 346,000 candidates kept).
    mutating func narrow(word: Int, codes new: [UInt8]) {
        precondition(new.count == count, "a code per candidate")
        // 1 for a match, else 0 (`MatchCode.isMatch`: a flag, not a branch); the arrays are compacted by adding it.
        var keep = [UInt8](repeating: 0, count: new.count)
        var kept = 0
        new.withUnsafeBufferPointer { new in
            keep.withUnsafeMutableBufferPointer { keep in
                MatchCode.units.withUnsafeBufferPointer { wordUnits in
                    units.withUnsafeMutableBufferPointer { units in
                        for i in 0..<new.count {
                            let code = new[i]
                            let match: UInt8 = MatchCode.isMatch(code) ? 1 : 0
                            keep[i] = match
                            // (Codes are below 32, the table's size: masked all the same, as no bounds are checked.)
                            units[kept] = units[i] &+ wordUnits[Int(code & 31)]
                            kept &+= Int(match)
                        }
                    }
                }
            }
        }
        keep.withUnsafeBufferPointer { keep in
            func compact<T>(_ array: inout [T]) {
                array.withUnsafeMutableBufferPointer { array in
                    var n = 0
                    for i in 0..<keep.count {
                        array[n] = array[i]
                        n &+= Int(keep[i])
                    }
                }
                array.removeLast(array.count - kept)
            }
            if dense.count == keep.count { compact(&dense) }
            if ids?.count == keep.count { compact(&ids!) }
            for w in codes.indices where codes[w] != nil { compact(&codes[w]!) }
            var mine = new
            compact(&mine)
            codes[word] = mine
        }
        units.removeLast(units.count - kept)
    }
}

/// Maps the item ids of posting lists to dense numbers, remembering the segment of the last id: a posting list
/// lies in one segment, so only its first id costs a search.
struct SpaceCursor {
    let space: StaticColumns
    private var first: Int64 = 1
    private var last: Int64 = 0
    private var offset = 0

    init(_ space: StaticColumns) {
        self.space = space
    }

    @inline(__always)
    mutating func index(of id: Int64) -> Int? {
        if id >= first, id <= last { return offset + Int(id - first) }
        guard let e = space.entry(containing: id) else { return nil }
        let entry = space.entries[e]
        first = entry.first
        last = entry.last
        offset = entry.offset
        return offset + Int(id - first)
    }
}

/// What `IndexStore.foldWord` keeps while it reads a word's posting lists: each posting's item is given the best
/// match code so far in `scratch` (restricted to the candidates, or else noted in `touched` the first time).
struct WordFold {
    var cursor: SpaceCursor
    let scratch: UnsafeMutableBufferPointer<UInt8>
    let restricted: Bool
    /// The tiers whose postings count (`TextIndexer.freeTextMask`: all of free text).
    let tiers: UInt8
    let isCancelled: (@Sendable () -> Bool)?
    var touched: [Int32] = []
    private var listsRead = 0

    init(cursor: SpaceCursor, scratch: UnsafeMutableBufferPointer<UInt8>, restricted: Bool,
         tiers: UInt8 = TextIndexer.freeTextMask, isCancelled: (@Sendable () -> Bool)?) {
        self.cursor = cursor
        self.scratch = scratch
        self.restricted = restricted
        self.tiers = tiers
        self.isCancelled = isCancelled
    }

    /// Decoding posting lists runs few SQLite instructions, so SQLite's progress handler alone would see a
    /// cancellation late: the lists are checked too, every 64 of them.
    @inline(__always)
    mutating func checkCancellation() throws {
        listsRead += 1
        if listsRead & 63 == 1, let isCancelled, isCancelled() { throw EngineError(.cancelled, "cancelled") }
    }

    @inline(__always)
    mutating func consider(_ item: Int64, _ tiers: UInt8, _ row: Int) {
        let free = tiers & self.tiers
        guard free != 0, let i = cursor.index(of: item), i < scratch.count else { return }
        let code = UInt8(row + 4 * free.trailingZeroBitCount)
        let current = scratch[i]
        if restricted {
            // Not a candidate (0) never takes a code; a candidate (`unmatched` or a worse code) does.
            if code < current { scratch[i] = code }
        } else if current == 0 {
            touched.append(Int32(i))
            scratch[i] = code
        } else if code < current {
            scratch[i] = code
        }
    }
}

extension IndexStore {
    /// Steps a statement through SQLite's C API (GRDB binds the arguments), calling `row` with the raw handle.
    static func forEachRawRow(_ db: Database, _ statement: Statement, _ arguments: StatementArguments,
                              _ row: (OpaquePointer) throws -> Void) throws {
        try statement.setArguments(arguments)
        try stepRows(db, statement.sqliteStatement, row)
    }

    /// `forEachRawRow` for a statement whose one parameter is an integer, bound through the C API: GRDB's
    /// arguments cost more than the step of a point lookup (typo tolerance looks up hundreds of terms, each in
    /// every large segment: a sixth of `s3tr` on PyPI).
    static func forEachRawRow(_ db: Database, _ statement: Statement, int64 value: Int64,
                              _ row: (OpaquePointer) throws -> Void) throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        sqlite3_bind_int64(handle, 1, value)
        try stepRows(db, handle, row)
    }

    /// `forEachRawRow` for a statement whose one parameter is a text, bound through the C API (a bulk load's
    /// batch reads tens of thousands of prefix lists, each by its prefix).
    static func forEachRawRow(_ db: Database, _ statement: Statement, text value: String,
                              _ row: (OpaquePointer) throws -> Void) throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        RawBind.text(handle, 1, value)
        try stepRows(db, handle, row)
    }

    /// The error of a statement stepped through SQLite's C API that returned `code` (neither a row nor done).
    static func stepError(_ db: Database, _ code: Int32) -> DatabaseError {
        DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
    }

    /// Steps a bound statement to its end, calling `row` with each row, and resets it.
    static func stepRows(_ db: Database, _ handle: OpaquePointer, _ row: (OpaquePointer) throws -> Void) throws {
        defer { sqlite3_reset(handle) }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else {
                throw IndexStore.stepError(db, code)
            }
            try row(handle)
        }
    }

    /// Folds the best free-text match of `word` in each item into `scratch` (indexed by dense number): the term
    /// itself, terms it starts (when it is a prefix), and terms within its typo budget (`Typos`).
    ///
    /// With `candidates`, only items whose scratch byte is not 0 are considered (the caller marks its candidates
    /// `MatchCode.unmatched`), and `sortedIDs` (the candidates' ids, ascending) lets few candidates skip the blocks
    /// of long lists that hold none of them. Without, every item a posting names is, and each item met the first
    /// time is appended to `touched`.
    static func foldWord(_ db: Database, word: String, prefix: Bool, typos: Bool, space: StaticColumns,
                         scratch: inout [UInt8], candidates: Int?, sortedIDs: () -> [Int64], touched: inout [Int32],
                         letter: VocabularyLetters.Letter? = nil, letters: VocabularyLetters? = nil,
                         tiers: UInt8 = TextIndexer.freeTextMask,
                         isCancelled: (@Sendable () -> Bool)? = nil, typoMatches: UnsafeMutablePointer<TypoMatches?>? = nil) throws
    {
        // (term, kind, postings)
        var terms: [(text: String, kind: RankingExplanation.MatchKind, df: Int)] = []
        let restricted = candidates != nil
        // A prefix's terms, unless they are many and every item is a candidate: then one pass over the whole range
        // reads them with their postings (`li` starts 11,000 terms on Debian).
        var manyTerms = false
        if prefix {
            let low = Array(word.utf8)
            for (text, count) in try SegmentVocabulary.terms(db, from: low, below: low + Typos.SpanWalk.beyond,
                                                             limit: typos ? .max : 65) {
                terms.append((text, text == word ? .exact : .prefix, count))
            }
            manyTerms = terms.count > 64
        } else {
            let df = try SegmentVocabulary.frequency(db, of: word)
            if df > 0 { terms.append((word, .exact, df)) }
        }
        // Beginnings every term that starts with which is a typo match (`Typos.neighbourSpans`): each read as one
        // range, not as a lookup per term.
        var typoRanges: [String] = []
        if typos {
            let budget = Typos.budget(for: word)
            if budget > 0 {
                var known = Set(terms.map(\.text))
                let spans = try Typos.neighbourSpans(db, of: word, prefix: prefix, budget: budget, letter: letter, letters: letters)
                // One typo of the whole term, or a weak typo: two typos, or a beginning only (`Ranking.matchKind`).
                func kind(_ text: String) -> RankingExplanation.MatchKind {
                    Ranking.matchKind(word, term: text, prefix: prefix, typoBudget: budget) == .typo ? .typo : .weakTypo
                }
                for neighbour in spans.terms where !known.contains(neighbour.text) {
                    terms.append((neighbour.text, kind(neighbour.text), neighbour.df))
                    known.insert(neighbour.text)
                }
                typoRanges = spans.ranges
                // A range's terms are read as weak typos (beginnings); the few of them one typo from the whole word
                // are read first as typos (the better code stays).
                if !typoRanges.isEmpty {
                    let whole = try Typos.wholeWordTypos(of: word, budget: budget, edits: 1, terms: [], ranges: typoRanges,
                                                         db, letter: letter)

                    for text in whole where !known.contains(text) {
                        terms.append((text, .typo, 0))
                        known.insert(text)
                    }
                }
                typoMatches?.pointee = TypoMatches(terms: spans.terms, ranges: spans.ranges, letter: letter)
            }
        }
        if terms.isEmpty, typoRanges.isEmpty { return }
        if !restricted, !manyTerms { touched.reserveCapacity(min(terms.reduce(0) { $0 + $1.df }, space.count)) }
        try scratch.withUnsafeMutableBufferPointer { scratch in
            var fold = WordFold(cursor: SpaceCursor(space), scratch: scratch, restricted: restricted, tiers: tiers,
                                isCancelled: isCancelled)
            swap(&fold.touched, &touched)
            defer { swap(&fold.touched, &touched) }
            // The lists' closures reach the fold through a pointer: captured as a variable, the state was retained
            // and released around every list and checked for exclusive access at every posting (a fifth of
            // `with li` on Debian, whose `li` reads 11,000 lists).
            try withUnsafeMutablePointer(to: &fold) { fold in
                var remaining = terms[...]
                // Few candidates against long posting lists: decode only the blocks that may hold one of them.
                var sorted: [Int64]? = nil
                func take(_ list: PostingCodec.Reader, row: Int) throws {
                    try fold.pointee.checkCancellation()
                    if let candidates, candidates * 4 < list.count {
                        if sorted == nil { sorted = sortedIDs() }
                        try list.forEach(near: sorted!, tiers: tiers) { item, tiers in fold.pointee.consider(item, tiers, row) }
                    } else {
                        try list.forEach(tiers: tiers) { item, tiers in fold.pointee.consider(item, tiers, row) }
                    }
                }
                if prefix, !restricted || manyTerms {
                    // One pass over the whole prefix range instead of one statement per term (the range's terms are
                    // the prefix's own: exact or prefix matches). Its long lists, too, are decoded only near the
                    // candidates when there are few: decoded whole, they made the slowest keystrokes, a last word
                    // of two letters after a few rarer words (`python dict co`: a few hundred candidates, every
                    // posting of the `co` range's lists decoded).
                    try PostingStore.forEachList(db, termsFrom: word, below: word + "\u{10FFFF}") { exact, list in
                        try take(list, row: exact ? 1 : 2)
                    }
                    remaining = terms.filter { $0.kind.isTypo }[...]
                }
                let segments = remaining.isEmpty ? nil : try PostingStore.Segments(db)
                for term in remaining {
                    let row = 1 + MatchCode.kindIndex(term.kind)
                    try PostingStore.forEachList(db, text: term.text, segments: segments) { try take($0, row: row) }
                }
                // A range's terms less the word's own (a prefix's, read above with their better code): a range
                // inside them is skipped, one around them read on either side.
                let typoRow = 1 + MatchCode.kindIndex(.weakTypo)
                let own = (low: word, high: word + "\u{10FFFF}")
                for range in typoRanges where !range.utf8.starts(with: word.utf8) {
                    var parts = [(low: range, high: range + "\u{10FFFF}")]
                    if word.utf8.starts(with: range.utf8) {
                        parts = [(range, own.low), (own.high, range + "\u{10FFFF}")]
                    }
                    for part in parts {
                        try PostingStore.forEachList(db, termsFrom: part.low, below: part.high) { _, list in
                            try take(list, row: typoRow)
                        }
                    }
                }
            }
        }
    }

    /// A one-letter prefix (`letter`, an `Initials` index) matched from the segments' `Initials` column instead of
    /// the posting lists of every term the letter starts: the same matches (the column is computed from the same
    /// terms and tiers). With candidates, the codes of each (parallel to `candidates.dense`); without, every item of
    /// every segment that matches, with its code. Nil when the columns cannot answer cheaply (a large segment's
    /// columns are still being read: the caller reads the posting lists).
    static func initialCodes(_ db: Database, letter: Int, candidates: Candidates?, space: StaticColumns,
                             isCancelled: (@Sendable () -> Bool)?) throws -> (dense: [Int32], codes: [UInt8])?
    {
        guard let candidates else {
            var dense: [Int32] = [], codes: [UInt8] = []
            for entry in space.entries {
                if let isCancelled, isCancelled() { throw EngineError(.cancelled, "cancelled") }
                guard let column = entry.columns else { return nil }
                for i in column.present.indices where column.present[i] {
                    let code = column.initial(at: i, letter: letter)
                    if MatchCode.isMatch(code) {
                        dense.append(Int32(entry.offset + i))
                        codes.append(code)
                    }
                }
            }
            return (dense, codes)
        }
        var codes = [UInt8](repeating: 0, count: candidates.count)
        var missing: [Int] = []
        // A run of candidates in one segment at a time (a search's candidates come in runs of one segment), its
        // columns read through pointers: a binary search and a retain of the segment's columns per candidate were
        // a fifth of `for c` on PyPI (perf; a tenth with the segment kept, and the arrays' slices and checks per
        // candidate a sixth still).
        let dense = candidates.dense
        var k = 0
        while k < dense.count {
            let entry = space.entries[space.entry(atDense: Int(dense[k]))]
            let segment = entry.dense
            var end = k + 1
            while end < dense.count, segment.contains(Int(dense[end])) { end += 1 }
            defer { k = end }
            // (Columns of another length than the segment's range would be damage: its items' rows are read.)
            guard let columns = entry.columns, columns.present.count == segment.count,
                  columns.initials.count == segment.count * Initials.byteCount else {
                missing.append(contentsOf: k..<end)
                if missing.count > initialRowReads { return nil }
                continue
            }
            // 0 when the columns hold no such item (it was gone when they were read, and ids are never reused).
            let bytes = Initials.byteCount, at = letter >> 1, high = letter & 1 == 1
            guard at < bytes else { continue }
            columns.present.withUnsafeBufferPointer { present in
                columns.initials.withUnsafeBufferPointer { initials in
                    Initials.matchCodes.withUnsafeBufferPointer { matchCodes in
                        codes.withUnsafeMutableBufferPointer { codes in
                            for n in k..<end {
                                let j = Int(dense[n]) - segment.lowerBound
                                guard present[j] else { continue }
                                let byte = initials[j * bytes + at]
                                codes[n] = matchCodes[Int(high ? byte >> 4 : byte & 0x0F)]
                            }
                        }
                    }
                }
            }
        }
        if !missing.isEmpty {
            let catalog = ItemCatalog(db)
            for k in missing {
                try catalog.withInitials(of: space.item(at: Int(candidates.dense[k]))) { initials in
                    guard !initials.isEmpty, Initials.isValid(count: initials.count) else { return }
                    codes[k] = Initials.code(initials, letter: letter)
                }
            }
        }
        return (candidates.dense, codes)
    }

    /// At most this many candidates whose segment columns are still being read are looked up row by row for their
    /// initials (`initialCodes`); with more, the word's posting lists are read instead.
    static let initialRowReads = 4_096

    /// One query word of a search, as `topHits` needs it: how it was matched (for explanations).
    struct RankedWord {
        var word: String
        var prefix: Bool
        var typos: Bool
        /// The typo matches its postings were read for (`foldWord`), when they were (`NameKeys` takes the word's
        /// corrections from them).
        var typoMatches: TypoMatches? = nil
    }

    /// A word's typo matches as `foldWord` read them (`Typos.neighbourSpans`): terms, and beginnings whose every term
    /// matches, with the letter in memory the walk used, if any.
    struct TypoMatches {
        /// As `Typos.neighbourSpans` found them (kept as they are: their texts are taken only when needed).
        var terms: [(text: String, df: Int)]
        var ranges: [String]
        var letter: VocabularyLetters.Letter?
    }

    /// The explanation of a word's match `code` in `item`: the matched term is the item's best-matching term by the
    /// ranking's own definition (`forwardMatch`: most points, then the smallest text), found only for the hits a
    /// search returns.
    static func wordExplanation(_ word: RankedWord, code: UInt8, resolve: Bool = true, terms: @autoclosure () -> [String: UInt8])
        -> RankingExplanation.WordMatch
    {
        let kind = MatchCode.kind(code), tier = MatchCode.tier(code), points = MatchCode.points[Int(code)]
        var term = word.word
        if kind != .exact, resolve,
           let best = forwardMatch(word.word, prefix: word.prefix, terms: terms(), typos: word.typos), best.points == points {
            term = best.matchedTerm
        }
        return .init(queryWord: word.word, matchedTerm: term, kind: kind, tier: tier, points: points)
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
    /// read first, since their bound is higher. A filter's lookup reads ranges from `values`' columns.

    static func topHits(_ db: Database, candidates: Candidates, words: [RankedWord], options: TextSearchOptions,
                        columns: StaticColumns, accepted known: ItemIDSet? = nil, values: ValueColumns? = nil,
                        store: IndexStore? = nil) throws -> [SearchHit]
    {
        let now = options.now.timeIntervalSinceReferenceDate
        let maxStatic = columns.maxStaticPoints(now: options.now)
        // Only a candidate whose every word matched a whole name word can be the exact name: the top level of word
        // units, if any. With typos, one whose words matched whole name words or typos of them can be the corrected
        // name: the levels from the least such matches add up to.
        // Which words can be corrected: searched with typos, and long enough to have any.
        let correctedWords = words.map { $0.typos && Typos.budget(for: $0.word) > 0 }
        let exactNameUnits = Int32(words.count) * MatchCode.units[Int(MatchCode.make(tier: 0, kind: .exact))]
        let correctedNameUnits = correctedWords.reduce(Int32(0)) { sum, corrected in
            sum + MatchCode.units[Int(MatchCode.make(tier: 0, kind: corrected ? .weakTypo : .exact))]
        }
        // The names the query counts as typed whole: its words joined, and with typos (`NameKeys`) the spellings
        // with its typo words' corrections, read the first time a candidate's name is not the typed words.
        let typedKey = NameSignals.queryKey(words.map(\.word))
        let correctable = correctedWords.contains(true)
        var nameKeys: NameKeys? = nil
        func keys() throws -> NameKeys {
            if let nameKeys { return nameKeys }
            let corrections = try zip(words, correctedWords).map { word, corrected -> [String]? in
                guard corrected else { return nil }
                let budget = Typos.budget(for: word.word)
                // From the typo matches its postings were read for (with the letter their walk used), else (its
                // candidates' own words were read instead) from the vocabulary.
                // The nearest only (`Ranking.nearestCorrections`).
                if let matches = word.typoMatches {
                    return Ranking.nearestCorrections(
                        try Typos.wholeWordTypos(of: word.word, budget: budget, terms: matches.terms.map(\.text),
                                                 ranges: matches.ranges, db, letter: matches.letter),
                        of: word.word, budget: budget)
                }
                let letter = try store.flatMap { try $0.vocabularyLetters.terms(startingAs: word.word, db, store: $0) }
                return Ranking.nearestCorrections(
                    try Typos.neighbours(db, of: word.word, prefix: false, budget: budget, letter: letter,
                                         letters: store?.vocabularyLetters).map(\.text),
                    of: word.word, budget: budget)
            }
            let keys = NameKeys(words: words.map(\.word), corrections: corrections)
            nameKeys = keys
            return keys
        }
        let firstIsPrefix = options.lastWordIsPrefix && words.count == 1
        /// A candidate's word points (summed in query order, as `RankingExplanation.total` adds them) and what its
        /// name parts depend on, in one pass over the words.
        struct WordSummary {
            var points = 0.0
            var anyName = false
            var allWholeName = true
            var anyTypo = false
            /// The first word's match kind when that match is in the name.
            var firstNameKind: RankingExplanation.MatchKind?
        }
        // Each word's codes, in query order (a search only ranks candidates every word matched).
        let codes = candidates.codes.map { $0 ?? [] }
        @inline(__always) func summary(_ k: Int) -> WordSummary {
            var summary = WordSummary()
            for i in codes.indices {
                let code = codes[i][k]
                guard MatchCode.isMatch(code) else {
                    summary.allWholeName = false
                    continue
                }
                summary.points += MatchCode.points[Int(code)]
                if MatchCode.tier(code) == 0 {
                    summary.anyName = true
                    if i == 0 { summary.firstNameKind = MatchCode.kind(code) }
                    switch MatchCode.kind(code) {
                    case .prefix: summary.allWholeName = false
                    case .typo, .weakTypo: summary.anyTypo = true
                    case .exact: break
                    }
                } else {
                    summary.allWholeName = false
                }
            }
            return summary
        }
        @inline(__always) func id(_ k: Int) -> Int64 {
            candidates.ids?[k] ?? columns.item(at: Int(candidates.dense[k]))
        }
        func nameMatch(_ summary: WordSummary, _ name: @autoclosure () -> NameSignals) throws -> NameMatch {
            guard summary.anyName else { return NameMatch() }
            let name = name()
            guard name.words > 0 else { return NameMatch() }
            let startsName = summary.firstNameKind.map {
                NameMatch.firstWordMatches(words[0].word, as: $0, prefix: firstIsPrefix, first: name.first)
            } ?? false
            let wholeName = try summary.allWholeName && (name.key == typedKey || (correctable && keys().contains(name.key)))
            return NameMatch(anyName: true, startsName: startsName, wholeName: wholeName, anyTypo: summary.anyTypo, name: name)
        }
        // Engaged candidates, by position.
        var boosted: [Int] = []
        if !options.boosts.isEmpty {
            let catalog = ItemCatalog(db)
            var engaged = Set<Int64>()
            for uid in options.boosts.keys {
                if let id = try catalog.id(of: uid) { engaged.insert(id) }
            }
            if let ids = candidates.ids {
                boosted = ids.indices.filter { engaged.contains(ids[$0]) }
            } else {
                let dense = Set(engaged.compactMap { columns.index(of: $0).map(Int32.init) })
                boosted = candidates.dense.indices.filter { dense.contains(candidates.dense[$0]) }
            }
        }
        let boostedSet = Set(boosted)
        // The candidates by level of word units, highest first, each level's in position order: counted by level
        // (units are tenths of word points, a few hundred at most), then placed. (A dictionary of arrays, hashed
        // and grown one candidate at a time, was a tenth of a search whose prefix names 12,000 items.)
        // (Engaged candidates are read before the levels, `read(boosted)`, and are in none.)
        @inline(__always) func isRanked(_ k: Int) -> Bool { boostedSet.isEmpty || !boostedSet.contains(k) }
        var lowest = Int32.max, highest = Int32.min
        for k in 0..<candidates.count where isRanked(k) {
            lowest = min(lowest, candidates.units[k])
            highest = max(highest, candidates.units[k])
        }
        var levels: [Int32] = []
        var levelStarts: [Int] = [0]
        var byLevel: [Int] = []
        if lowest <= highest {
            // Damage cannot make this large: a candidate's units add the points of its matched words.
            var counts = [Int](repeating: 0, count: Int(highest) - Int(lowest) + 1)
            for k in 0..<candidates.count where isRanked(k) {
                counts[Int(candidates.units[k] - lowest)] += 1
            }
            // Where each level starts, highest level first.
            var next = [Int](repeating: 0, count: counts.count)
            var placed = 0
            for u in counts.indices.reversed() where counts[u] > 0 {
                levels.append(lowest + Int32(u))
                next[u] = placed
                placed += counts[u]
                levelStarts.append(placed)
            }
            byLevel = [Int](repeating: 0, count: placed)
            for k in 0..<candidates.count where isRanked(k) {
                let u = Int(candidates.units[k] - lowest)
                byLevel[next[u]] = k
                next[u] += 1
            }
        }
        func positions(level n: Int) -> ArraySlice<Int> {
            byLevel[levelStarts[n]..<levelStarts[n + 1]]
        }

        // A candidate's identifier is only needed to break ties and for engagement: read from the columns, it is
        // made a String only then.
        struct Scored {
            /// The candidate's position.
            var k: Int
            var id: Int64
            var score: Double
            var hint: Double?
            var lastUsed: Double?
            var name: NameMatch
            var uid: String?
            /// Where its static signals are in `columns` (`StaticColumns.signals`); -1: read from its row.
            var entry: Int32
            var index: Int
        }
        var pool: [Scored] = []
        // The `limit` best scores in the pool: `limit` candidates beat a bound when the least of them does. (Counting
        // the pool's scores above the bound after every level read was quadratic in the levels: a fifth of a search
        // for `imple`, most of it copies of pool entries.)
        var best = TopScores(count: options.limit > 0 ? options.limit : 0)
        // The items the filter's index lookup names, once known (given, or read after many rejections): the others
        // are rejected as they are read, before they are scored, so a filter that rejects most of the best matches
        // does not rank them again at every level.
        var accepted: ItemIDSet? = known
        var prunePool = false
        let catalog = ItemCatalog(db)
        func read<Positions: Collection<Int>>(_ positions: Positions) throws {
            // (At least doubled when it must grow: a level's appends grew it step by step, each step a copy of the
            // pool; reserving just what a level needs copied it at every level.)
            if pool.capacity < pool.count + positions.count {
                pool.reserveCapacity(max(pool.count + positions.count, 2 * pool.capacity))
            }
            for k in positions {
                let id = id(k)
                if let accepted, !accepted.contains(id) { continue }
                let matched = summary(k)
                let points = matched.points
                if let signals = columns.signals(id) {
                    // From the columns; whether the item still exists and has not expired is checked when it is
                    // returned (below). Added in the order `RankingExplanation.total` adds.
                    let name = try nameMatch(matched, columns.name(entry: signals.entry, index: signals.index))
                    var score = points + name.exact + name.start + name.length
                        + Ranking.hintPoints(signals.hint) + Ranking.recencyPoints(lastUsed: signals.lastUsed, now: options.now)
                    var uid: String? = nil
                    if !options.boosts.isEmpty {
                        uid = columns.uid(entry: signals.entry, index: signals.index)
                        score += options.boosts[uid!] ?? 0
                    }
                    pool.append(Scored(k: k, id: id, score: score, hint: signals.hint, lastUsed: signals.lastUsed, name: name, uid: uid,
                                       entry: Int32(signals.entry), index: signals.index))
                    best.offer(score)
                    continue
                }
                guard let signals = try catalog.signals(of: id, liveAt: now) else { continue }
                let name = try nameMatch(matched, signals.name)
                let score = points + name.exact + name.start + name.length + Ranking.hintPoints(signals.hint)
                    + Ranking.recencyPoints(lastUsed: signals.lastUsed, now: options.now) + (options.boosts[signals.uid] ?? 0)
                pool.append(Scored(k: k, id: id, score: score, hint: signals.hint, lastUsed: signals.lastUsed, name: name,
                                   uid: signals.uid, entry: -1, index: 0))
                best.offer(score)
            }
        }
        @inline(__always) func uid(_ i: Int) -> String {
            if let uid = pool[i].uid { return uid }
            let uid = columns.uid(entry: Int(pool[i].entry), index: pool[i].index)
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
                if pool[a].entry >= 0, pool[b].entry >= 0,
                   let order = columns.asciiIdentifierPrecedes(entry: Int(pool[a].entry), index: pool[a].index,
                                                               entry: Int(pool[b].entry), index: pool[b].index) {
                    return order
                }
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

        var items: [Int64: StoredItem?] = [:]   // fetched items; nil when gone, expired or the filter rejected it
        // A filter checked on ranked matches reads and decodes each one. When the best matches are mostly rejected
        // (the filter and the ranking disagree: `l` in domains whose packages rarely start with l), the filter's
        // index lookup names the items it can accept, so the rest are skipped without being read.
        var rejected = 0
        func item(_ id: Int64) throws -> StoredItem? {
            if let known = items[id] { return known }
            if let accepted, !accepted.contains(id) { items[id] = .some(nil); return nil }
            guard let found = try catalog.item(id: id, liveAt: now) else { items[id] = .some(nil); return nil }
            var item: StoredItem? = found
            if let filter = options.filter, let candidate = item {
                if !filter(candidate) {
                    item = nil
                    rejected += 1
                    if accepted == nil, rejected >= Self.rejectionsBeforeLookup, let lookup = options.filterLookup {
                        accepted = try lookup.candidateIDs(db, values: values)
                        prunePool = true
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
            if prunePool, let accepted {
                // (Between rankings only: a ranking holds positions in the pool.)
                pool.removeAll { !accepted.contains($0.id) }
                best = TopScores(count: best.count)
                for candidate in pool { best.offer(candidate.score) }
                prunePool = false
            }
            if next < levels.count {
                try read(positions(level: next))
                next += 1
            }
            // Anything not read yet scores at most this.
            let bound = next < levels.count
                ? Double(levels[next]) / Ranking.unitsPerPoint + maxStatic
                    + (levels[next] >= exactNameUnits ? Ranking.exactNamePoints
                       : levels[next] >= correctedNameUnits ? Ranking.correctedNamePoints : 0) + 1e-9
                : -Double.infinity
            // The hits so far are final when `wanted` of them beat the bound (a tie might lose to a smaller
            // identifier not read yet); until enough candidates do, there is nothing to sort.
            let done = next >= levels.count
            if done || (options.limit > 0 && best.allAbove(bound)) {
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
                        // The terms of the item's attributes of one tier, read once for the words whose matched term
                        // is not the typed word. Only the matched tier's: points tell the tier apart (8, 4, 2, 1 ×
                        // 1, 0.9, 0.6, 0.55 are all different), and tokenizing a whole record (a package's long
                        // description) for each hit was a quarter of a filtered search.
                        var terms: [Int: [String: UInt8]] = [:]
                        func itemTerms(tier: Int) -> [String: UInt8] {
                            if let known = terms[tier] { return known }
                            let read = TextIndexer.terms(attributes: found.attributes, custom: found.customAttributes,
                                                         onlyTier: tier)
                            terms[tier] = read
                            return read
                        }
                        explanation.words = words.indices.compactMap { i in
                            let code = codes[i][candidate.k]
                            guard MatchCode.isMatch(code) else { return nil }
                            return Self.wordExplanation(words[i], code: code, resolve: options.resolvesMatchedTerms,
                                                        terms: itemTerms(tier: MatchCode.tier(code)))
                        }
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

/// The `count` largest numbers offered so far (`topHits`: whether `limit` candidates beat a bound).
private struct TopScores {
    let count: Int
    private var heap = Heap<Double>()

    init(count: Int) {
        self.count = count
    }

    mutating func offer(_ score: Double) {
        guard count > 0 else { return }
        if heap.count < count {
            heap.insert(score)
        } else if let least = heap.min, score > least {
            heap.replaceMin(with: score)
        }
    }

    /// Whether `count` numbers offered are above `bound`.
    func allAbove(_ bound: Double) -> Bool {
        guard count > 0, heap.count == count, let least = heap.min else { return false }
        return least > bound
    }
}

/// Buffers of one byte per item (a search's scratch, `IndexStore.foldWord`) that one store's searches pass on to
/// each other, all zeros: a single-word search of PyPI's 886,000 items spent a fifth of its 0.5 ms allocating and
/// zeroing a new one (`memset` and page faults).
final class ScratchPool: Sendable {
    private let buffers = Mutex<[[UInt8]]>([])
    /// Buffers kept (searches at once, about the cores).
    static let kept = 2

    /// A buffer of at least `count` zeros.
    func take(count: Int) -> [UInt8] {
        var buffer = buffers.withLock { $0.popLast() } ?? []
        if buffer.count < count { buffer.append(contentsOf: repeatElement(0, count: count - buffer.count)) }
        return buffer
    }

    /// Keeps `buffer`, which must be all zeros, for the next `take`.
    func giveBack(_ buffer: [UInt8]) {
        buffers.withLock { buffers in
            if buffers.count < Self.kept { buffers.append(buffer) }
        }
    }
}

/// The words of items a search read and tokenized to check its words on its few candidates (`loadTerms`, the
/// forward check), kept for the searches after it: typing repeats a search with every keystroke, and each one
/// read and tokenized the same candidates again (Debian, `helper for transr`, `…transra`, `…transrat`: the 200
/// candidates of `helper for`, 8 ms every time, the slowest filtered searches). An item's words never change
/// under its id (an update is a delete and an insert under a new id, and ids are never reused), so an entry stays
/// right as long as the store object lives; a deleted item's entry only keeps a candidate that the hits' reading
/// skips, as its dead postings do. Two generations bound it: a lookup moves an entry of the older one into the
/// newer, and a newer one holding `termsPerGeneration` words becomes the older, dropping the older's.
final class ForwardTermsCache: Sendable {
    private struct Generations {
        var current: [Int64: [String: UInt8]] = [:]
        var previous: [Int64: [String: UInt8]] = [:]
        var currentTerms = 0

        mutating func keep(_ id: Int64, _ terms: [String: UInt8]) {
            if currentTerms >= ForwardTermsCache.termsPerGeneration {
                previous = current
                current = [:]
                currentTerms = 0
            }
            current[id] = terms
            currentTerms += terms.count
        }
    }

    private let generations = Mutex(Generations())
    /// Words per generation: 2–3 MB at most for both (a Debian item has ~120 words, a PyPI item ~15).
    static let termsPerGeneration = 65_536

    /// Adds the kept words of `ids` to `terms`; returns the ids it has none for.
    func take(_ ids: [Int64], into terms: inout [Int64: [String: UInt8]]) -> [Int64] {
        generations.withLock { cache in
            var missing: [Int64] = []
            for id in ids {
                if let found = cache.current[id] {
                    terms[id] = found
                } else if let found = cache.previous.removeValue(forKey: id) {
                    terms[id] = found
                    cache.keep(id, found)
                } else {
                    missing.append(id)
                }
            }
            return missing
        }
    }

    /// Keeps the words of the items read.
    func keep(_ terms: [Int64: [String: UInt8]]) {
        guard !terms.isEmpty else { return }
        generations.withLock { cache in
            for (id, words) in terms { cache.keep(id, words) }
        }
    }

    /// The items kept, in both generations (tests).
    var count: Int { generations.withLock { $0.current.count + $0.previous.count } }
}
