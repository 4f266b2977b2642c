import Foundation
import GRDB
import GRDBSQLite

/// Typo tolerance for typed text, with Typesense's thresholds (`min_len_1typo` 4, `min_len_2typo` 9).
///
/// - A word of up to 3 letters must be typed exactly; 4 to 8 letters allow 1 typo; 9 or more allow 2. (Meilisearch
///   starts at 5 letters; the relevance evaluation, `scripts/relevance.sh`, found one-typo names of 4 letters —
///   `numy`, `rdis`, `tmli` — among the misses, and 4 letters lifted its typo MRR@10 from 0.948 to 0.966 on PyPI.)
/// - A typo is an insertion, a deletion, a substitution, or a transposition of two neighbouring letters
///   (optimal string alignment distance).
/// - The word being typed (the last one, a prefix) tolerates typos too: it matches a term when some beginning of
///   the term is within the budget (`"pyhto"` → `python`).
/// - The first letter may be wrong only as the one typo, the rest typed right, and only among ASCII letters and
///   digits (`firstLetterTypo`: `bumpy`, `umpy`, `xnumpy`, `unmpy` → `numpy`): those few spellings are looked up
///   in the term index instead of scanning the vocabulary of every letter. (Meilisearch counts a first-letter typo
///   as two; the relevance evaluation's `typo-first` queries found none before.)
/// - A word that already matches `expansionThreshold` items or more is not expanded with typos. (Meilisearch counts a typo on the first letter as two; we do not look for
///   them at all, which keeps the vocabulary scan to one letter's terms.)
package enum Typos {
    /// A word is looked up with typos only when fewer than this many items match it exactly or as a prefix
    /// (as Typesense's `typo_tokens_threshold`): a word that already finds plenty is taken as typed.
    package static let expansionThreshold = 10

    /// The number of typos a word of this length tolerates.
    package static func budget(for word: String) -> Int {
        let n = word.unicodeScalars.count
        return n <= 3 ? 0 : (n <= 8 ? 1 : 2)
    }

    /// The vocabulary terms within `budget` typos of `word` (of a beginning of the term when `prefix`), in byte
    /// order, with their frequencies (`SegmentVocabulary`: deleted items counted until their segment is merged).
    ///
    /// The terms with the word's first letter come from `vocabularyNeighbours` (which skips the terms that start
    /// too far from the word), those with a wrong first letter from a lookup per spelling (`firstLetterSpellings`).
    static func neighbours(_ db: Database, of word: String, prefix: Bool, budget: Int,
                           letter: VocabularyLetters.Letter? = nil, letters: VocabularyLetters? = nil) throws
        -> [(text: String, df: Int)]
    {
        guard word.unicodeScalars.first != nil else { return [] }
        var matches = try vocabularyNeighbours(db, of: word, prefix: prefix, budget: budget, letter: letter)
        return try withFirstLetterTypos(db, of: word, prefix: prefix, budget: budget, letters: letters, &matches)
    }

    /// The terms within `budget` typos of the whole `word` (`Ranking.matchKind(_:term:prefix: false:typoBudget:)`,
    /// `NameKeys`' corrections) among a search's typo matches of it as a prefix (`neighbourSpans`'s `terms` and
    /// `ranges`): a term within the budget of the whole word is within it of a beginning too (itself), so it is one of
    /// those. With `edits` 1, only those one typo away (a range's terms a search reads as typos, not weak typos). A
    /// range's terms are stepped only as far as they can be short enough.
    static func wholeWordTypos(of word: String, budget: Int, edits: Int? = nil, terms: [String], ranges: [String],
                               _ db: Database, letter: VocabularyLetters.Letter? = nil) throws -> [String]
    {
        let edits = min(edits ?? budget, budget)
        func isTypo(_ term: String) -> Bool {
            let kind = Ranking.matchKind(word, term: term, prefix: false, typoBudget: budget)
            return kind == .typo || (edits > 1 && kind == .weakTypo)
        }
        var found = terms.filter(isTypo)
        guard !ranges.isEmpty else { return found }
        // An edit adds at most one scalar of up to 4 bytes; an ASCII term has a scalar per byte, so one more than
        // `edits` bytes longer than the word is too far without making its text (most of a short range's terms).
        let typed = word.utf8.count, longest = typed + 4 * edits
        func mayMatch<C: Collection<UInt8>>(_ bytes: C) -> Bool {
            bytes.count <= typed + edits || (bytes.count <= longest && bytes.contains { $0 >= 0x80 })
        }
        var known = Set(found)
        if let letter {
            // Each segment's terms in the ranges (a term several segments hold, once).
            var inRanges: [String] = []
            for source in letter.sources {
                for range in ranges {
                    for (text, _) in source.terms(startingWith: Array(range.utf8), where: mayMatch)
                    where isTypo(text) && known.insert(text).inserted {
                        inRanges.append(text)
                    }
                }
            }
            found += inRanges.sorted { UTF8Order.precedes($0, $1) }
        } else {
            let segments = try PostingStore.Segments(db)
            for range in ranges {
                let low = Array(range.utf8)
                for (text, _) in try SegmentVocabulary.terms(db, from: low, below: low + SpanWalk.beyond, segments: segments)
                where mayMatch(text.utf8) && isTypo(text) && known.insert(text).inserted {
                    found.append(text)
                }
            }
        }
        return found
    }

    /// The terms with the word's first letter within `budget` typos of it, in text order: each segment's terms of
    /// that letter stepped in order, each term's distance rows computed only past the beginning it shares with the
    /// term before (`PrefixDistance`), and every term that starts with a beginning already too far from the word
    /// skipped with one seek. A common first letter has 70,000 terms at a million items (`p` on PyPI): computing
    /// every one's distance was nine tenths of the slowest keystrokes (`platformd`, 56 ms).
    static func vocabularyNeighbours(_ db: Database, of word: String, prefix: Bool, budget: Int,
                                     letter: VocabularyLetters.Letter? = nil) throws -> [(text: String, df: Int)]
    {
        try vocabularySpans(db, of: word, prefix: prefix, budget: budget, collapsing: false, letter: letter).terms
    }

    /// The typo matches of a word as a search folds them: terms, and (for a prefix) the beginnings every term that
    /// starts with which matches, rather than each of those terms (`s3tr` matches every term that starts with `str`:
    /// thousands, each list read by a lookup of its own). `ranges`: every term that starts with one of them is a
    /// match, and none of them is in `terms`.
    static func neighbourSpans(_ db: Database, of word: String, prefix: Bool, budget: Int,
                               letter: VocabularyLetters.Letter? = nil, letters: VocabularyLetters? = nil) throws
        -> (terms: [(text: String, df: Int)], ranges: [String])
    {
        guard word.unicodeScalars.first != nil else { return ([], []) }
        var spans = try vocabularySpans(db, of: word, prefix: prefix, budget: budget, collapsing: prefix, letter: letter)
        return (try withFirstLetterTypos(db, of: word, prefix: prefix, budget: budget, letters: letters, &spans.terms),
                spans.ranges)
    }

    /// `vocabularyNeighbours`, with (when `collapsing`, for a prefix) the beginnings whose every term matches as
    /// ranges instead of their terms. `letter`: the word's first letter's terms in every segment of `db`'s snapshot
    /// (`VocabularyLetters`; read here when not given). The walk runs over each segment's terms and the results are
    /// united: a term several segments hold is one match, its frequencies added. (A range is the shortest
    /// beginning of a term within the budget, which depends on that beginning alone: every segment names the same
    /// range for the terms that start with it, so ranges never nest.)
    static func vocabularySpans(_ db: Database, of word: String, prefix: Bool, budget: Int, collapsing: Bool,
                                letter: VocabularyLetters.Letter? = nil) throws
        -> (terms: [(text: String, df: Int)], ranges: [String])
    {
        guard let first = word.unicodeScalars.first else { return ([], []) }
        let letter = try letter ?? VocabularyLetters.read(String(first), db)
        // The bounds as UTF-8 bytes: the letter, then U+10FFFF after it (above every term that starts with it).
        let beyond = SpanWalk.beyond
        let start = Array(String(first).utf8)
        var found: [String: Int] = [:]
        var ranges = Set<String>()
        for source in letter?.sources ?? [] {
            // (What the closure finds is returned from it, not added to variables outside it: see `Source.terms`.)
            let (matched, walked): ([(String, Int)], [String]) = source.bytes.withUnsafeBufferPointer { all in
                var walk = SpanWalk(word, prefix: prefix, budget: budget, collapsing: collapsing)
                var matched: [(String, Int)] = []
                // In memory a seek is a binary search: every skip seeks at once.
                var i = source.lowerBound(start)
                while i < source.count {
                    let from = Int(source.starts[i]), end = Int(source.starts[i + 1])
                    let bytes = UnsafeBufferPointer(rebasing: all[from..<end])
                    switch walk.visit(bytes) {
                    case .next:
                        i += 1
                    case .match:
                        matched.append((String(decoding: bytes, as: UTF8.self), Int(source.counts[i])))
                        i += 1
                    case .range(let beginning), .tooFar(let beginning):
                        i = source.lowerBound(beginning + beyond)
                    }
                }
                return (matched, walk.ranges)
            }
            for (text, count) in matched { found[text, default: 0] += count }
            ranges.formUnion(walked)
        }
        let terms = found.map { (text: $0.key, df: $0.value) }.sorted { UTF8Order.precedes($0.text, $1.text) }
        return (terms, ranges.sorted { UTF8Order.precedes($0, $1) })
    }

    /// What `vocabularySpans` computes for each term it meets in text order, whichever way it steps them: the
    /// term's distance rows past the beginning it shares with the term before (`PrefixDistance`), whether it
    /// matches, and which beginning every term after it that shares it can be skipped by.
    struct SpanWalk {
        static let beyond: [UInt8] = [0xF4, 0x8F, 0xBF, 0xBF]
        private var rows: PrefixDistance
        private let prefix: Bool
        private let budget: Int
        private let collapsing: Bool
        /// Exact: within the budget in length; a prefix: long enough that a beginning can be (as `BoundedDistance`).
        private let shortest: Int, longest: Int
        private var scalars: [UInt32] = []
        private var previous: [UInt32] = []
        /// The beginnings whose every term matches (collapsing a prefix's matches).
        private(set) var ranges: [String] = []

        enum Visit {
            /// Nothing to note: the next term.
            case next
            /// The term matches.
            case match
            /// Every term that starts with these bytes matches, noted in `ranges`: go past them.
            case range([UInt8])
            /// Every term that starts with these bytes is too far from the word: go past them.
            case tooFar([UInt8])
        }

        init(_ word: String, prefix: Bool, budget: Int, collapsing: Bool) {
            rows = PrefixDistance(word, budget: budget)
            self.prefix = prefix
            self.budget = budget
            self.collapsing = collapsing
            shortest = rows.count - budget
            longest = prefix ? Int.max : rows.count + budget
        }

        mutating func visit(_ bytes: UnsafeBufferPointer<UInt8>) -> Visit {
            BoundedDistance.decode(bytes, into: &scalars)
            var shared = 0
            let most = min(scalars.count, previous.count)
            while shared < most, scalars[shared] == previous[shared] { shared += 1 }
            swap(&previous, &scalars)
            let outcome = rows.advance(to: previous, sharing: shared)
            let matched = prefix ? outcome.bestFinal <= budget : outcome.dead == nil && outcome.final <= budget
            if collapsing, prefix, matched, let close = rows.closeBeginning {
                // Every term that starts with the first close enough beginning matches (and is long enough:
                // a beginning within the budget has at least n - budget scalars): one range, skipped here.
                // (At least the first letter, which every term stepped here has: a word no longer than its
                // budget is close to the empty beginning, so to every term of the letter.)
                let end = Typos.byteCount(of: max(1, close), in: bytes)
                ranges.append(String(decoding: bytes[..<end], as: UTF8.self))
                return .range(Array(bytes[..<end]))
            }
            if matched, previous.count >= shortest, previous.count <= longest { return .match }
            // Every term that starts with the beginning too far from the word is as far: skipped, unless (a
            // prefix) a shorter beginning of it was close enough, which makes them all matches.
            if let dead = outcome.dead, !(prefix && matched) {
                return .tooFar(Array(bytes[..<Typos.byteCount(of: dead, in: bytes)]))
            }
            return .next
        }
    }

    /// The number of UTF-8 bytes of the first `scalars` scalars of `bytes` (a scalar starts at every byte that is
    /// not a continuation byte).
    static func byteCount(of scalars: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var end = 0, count = 0
        while end < bytes.count {
            if bytes[end] & 0xC0 != 0x80 {
                if count == scalars { break }
                count += 1
            }
            end += 1
        }
        return end
    }

    /// Adds the terms with the word's first letter wrong and the rest right (`firstLetterTypo`) to `matches`: the
    /// terms `neighbours` returns.
    private static func withFirstLetterTypos(_ db: Database, of word: String, prefix: Bool, budget: Int,
                                             letters: VocabularyLetters? = nil,
                                             _ matches: inout [(text: String, df: Int)]) throws -> [(text: String, df: Int)]
    {
        // The first letter wrong, the rest typed right: each spelling a range (or point) lookup in every segment,
        // a large segment's spellings that fall in one of its blocks read together.
        if budget > 0, let spellings = firstLetterSpellings(of: word)?.sorted(by: { UTF8Order.precedes($0, $1) }) {
            var known = Set(matches.map(\.text))
            let typed = word.unicodeScalars.map(\.value)
            let keys = spellings.map { Array($0.utf8) }
            // Each spelling's terms with their postings in every segment.
            var found = [[String: Int]](repeating: [:], count: keys.count)
            let segments = try PostingStore.Segments(db)
            // A spelling whose first letter the store keeps for the large segments is looked up in memory; the
            // others in the segments' blocks.
            var unkept: [Int] = []
            for (index, key) in keys.enumerated() {
                guard let first = spellings[index].unicodeScalars.first,
                      let source = letters?.keptLetter(String(first), of: segments.blocked) else {
                    unkept.append(index)
                    continue
                }
                for (text, count) in source.terms(startingWith: key, exact: !prefix) { found[index][text, default: 0] += count }
            }
            if !unkept.isEmpty {
                for segment in segments.blocked {
                    try segment.forEachTerm(matching: unkept.map { keys[$0] }, exact: !prefix, db) { k, term, count in
                        let index = unkept[k]
                        found[index][prefix ? String(decoding: term, as: UTF8.self) : spellings[index], default: 0] += count
                    }
                }
            }
            for source in segments.packed.map(SegmentVocabulary.Source.packed) + segments.rows.map(SegmentVocabulary.Source.rows) {
                for (index, key) in keys.enumerated() {
                    try source.forEachTerm(db, from: key, below: prefix ? key + SpanWalk.beyond : key + [0]) { term, count in
                        found[index][String(decoding: term, as: UTF8.self), default: 0] += count
                    }
                }
            }
            for terms in found {
                for (text, count) in terms.sorted(by: { UTF8Order.precedes($0.key, $1.key) }) where !known.contains(text) {
                    guard firstLetterTypo(typed, text.unicodeScalars.map(\.value), prefix: prefix) else { continue }
                    matches.append((text, count))
                    known.insert(text)
                }
            }
        }
        return matches.filter { $0.df > 0 }
    }

    /// Whether `term` is `typed` with its first letter wrong and the rest right (of a beginning of the term when
    /// `prefix`): the first letter replaced (`bumpy`), left out (`umpy`), with a letter before it (`xnumpy`), or
    /// swapped with the second (`unmpy`), for `numpy`. Both first letters ASCII letters or digits, and different.
    static func firstLetterTypo(_ typed: [UInt32], _ term: [UInt32], prefix: Bool) -> Bool {
        guard let w0 = typed.first, let t0 = term.first, w0 != t0, isASCIIAlphanumeric(w0), isASCIIAlphanumeric(t0)
        else { return false }
        /// The rest of the term matches the rest of what was typed.
        func rest(_ a: ArraySlice<UInt32>, _ b: ArraySlice<UInt32>) -> Bool { prefix ? b.starts(with: a) : a.elementsEqual(b) }
        if rest(typed.dropFirst(), term.dropFirst()) { return true }
        if rest(typed[...], term.dropFirst()) { return true }
        if typed.count > 1, t0 == typed[1], rest(typed.dropFirst(), term[...]) { return true }
        if typed.count > 1, term.count > 1, t0 == typed[1], term[1] == w0, rest(typed.dropFirst(2), term.dropFirst(2)) { return true }
        return false
    }

    /// The beginnings a term with a first-letter typo of `word` starts with (`firstLetterTypo`), or nil when the
    /// word's first letter is not an ASCII letter or digit.
    static func firstLetterSpellings(of word: String) -> [String]? {
        let scalars = Array(word.unicodeScalars)
        guard let first = scalars.first, isASCIIAlphanumeric(first.value) else { return nil }
        let rest = String(String.UnicodeScalarView(scalars.dropFirst()))
        var spellings: Set<String> = []
        for letter in "abcdefghijklmnopqrstuvwxyz0123456789".unicodeScalars where letter != first {
            spellings.insert(String(letter) + rest)   // replaced
            spellings.insert(String(letter) + word)   // left out
        }
        if scalars.count > 1, isASCIIAlphanumeric(scalars[1].value) {
            spellings.insert(rest)                                                         // a letter typed before it
            spellings.insert(String(scalars[1]) + String(first) + String(String.UnicodeScalarView(scalars.dropFirst(2))))  // swapped
        }
        return spellings.sorted()
    }

    static func isASCIIAlphanumeric(_ value: UInt32) -> Bool {
        (0x30...0x39).contains(value) || (0x61...0x7A).contains(value)
    }

    /// The optimal string alignment distance between two strings, or `limit + 1` when it exceeds `limit`.
    package static func distance(_ a: String, _ b: String, limit: Int = .max) -> Int {
        var matcher = BoundedDistance(a)
        return matcher.distance(to: b.unicodeScalars.map(\.value), limit: limit, prefix: false)
    }

    /// The smallest distance between `a` and a beginning of `b`, or `limit + 1` when it exceeds `limit`.
    package static func prefixDistance(_ a: String, _ b: String, limit: Int = .max) -> Int {
        var matcher = BoundedDistance(a)
        return matcher.distance(to: b.unicodeScalars.map(\.value), limit: limit, prefix: true)
    }
}

/// The optimal string alignment distance from one word to terms met in text order: the rows of the current term's
/// beginnings are kept, so the next term computes only the rows past the beginning it shares with it, and a row
/// whose every entry exceeds the budget ends the term (no extension comes back under it: `BoundedDistance`).
struct PrefixDistance {
    private let a: [UInt32]
    private let budget: Int
    /// Row k (the first k scalars of the term) at `rows[k * (n + 1) ..< (k + 1) * (n + 1)]`, for k up to `depth`.
    private var rows: [Int]
    /// `bestFinal[k]`: the smallest last entry (the whole word against a beginning) of rows 0 through k.
    private var bestFinal: [Int]
    private var depth = 0

    init(_ word: String, budget: Int) {
        a = word.unicodeScalars.map(\.value)
        self.budget = budget
        rows = Array(0...a.count)
        bestFinal = [a.count]
    }

    var count: Int { a.count }

    /// The length of the shortest beginning of the last term `advance` went through whose distance from the word is
    /// within the budget (every term that starts with it is then a prefix match), if any.
    var closeBeginning: Int? {
        guard depth < bestFinal.count, bestFinal[depth] <= budget else { return nil }
        var k = 0
        while bestFinal[k] > budget { k += 1 }
        return k
    }

    /// Computes the rows of `term` past the `shared` scalars it has in common with the term before: where it ends
    /// (`dead`: the length of its shortest beginning whose row exceeds the budget, nil if none does), its distance
    /// (`final`, meaningful when it does not end) and the smallest distance of the word to one of its beginnings
    /// before that (`bestFinal`).
    mutating func advance(to term: [UInt32], sharing shared: Int) -> (dead: Int?, final: Int, bestFinal: Int) {
        let n = a.count, width = n + 1
        var k = min(shared, depth)
        while k < term.count {
            let i = k + 1
            if rows.count < (i + 1) * width { rows += [Int](repeating: 0, count: width) }
            if bestFinal.count <= i { bestFinal.append(0) }
            let base = i * width, up = k * width, upTwo = (k - 1) * width
            rows[base] = i
            var rowMin = i
            if n > 0 {
                for j in 1...n {
                    let cost = a[j - 1] == term[i - 1] ? 0 : 1
                    var v = min(rows[up + j] + 1, rows[base + j - 1] + 1, rows[up + j - 1] + cost)
                    if i > 1, j > 1, a[j - 1] == term[i - 2], a[j - 2] == term[i - 1] {
                        v = min(v, rows[upTwo + j - 2] + 1)
                    }
                    rows[base + j] = v
                    rowMin = min(rowMin, v)
                }
            }
            if rowMin > budget {
                depth = k
                return (i, budget + 1, bestFinal[k])
            }
            bestFinal[i] = min(bestFinal[k], rows[base + n])
            k = i
        }
        depth = term.count
        return (nil, rows[term.count * width + n], bestFinal[term.count])
    }
}

/// The optimal string alignment distance from one word to many terms, with three rolling rows reused across terms
/// and an early exit once a whole row exceeds the limit (no extension can come back under it).
struct BoundedDistance {
    private let a: [UInt32]
    private var twoBack: [Int]
    private var previous: [Int]
    private var current: [Int]

    init(_ word: String) {
        a = word.unicodeScalars.map(\.value)
        twoBack = Array(repeating: 0, count: a.count + 1)
        previous = twoBack
        current = twoBack
    }

    var count: Int { a.count }

    /// UTF-8 bytes to scalar values (ASCII without decoding).
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, into scalars: inout [UInt32]) {
        scalars.removeAll(keepingCapacity: true)
        if bytes.allSatisfy({ $0 < 0x80 }) {
            for byte in bytes { scalars.append(UInt32(byte)) }
        } else {
            for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars { scalars.append(scalar.value) }
        }
    }

    /// The distance from the word to `b` (to its closest beginning when `prefix`), or `limit + 1` beyond `limit`.
    mutating func distance(to b: [UInt32], limit: Int, prefix: Bool) -> Int {
        let n = a.count, m = b.count
        let capped = limit == .max ? Int.max : limit + 1
        if !prefix, abs(n - m) > limit { return limit == .max ? abs(n - m) : capped }
        for j in 0...n { previous[j] = j }
        // Row 0 is the empty beginning of b: n deletions.
        var best = n
        if m == 0 { return min(n, capped) }
        for i in 1...m {
            current[0] = i
            var rowMin = i
            if n > 0 {
                for j in 1...n {
                    let cost = a[j - 1] == b[i - 1] ? 0 : 1
                    var v = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                    if i > 1, j > 1, a[j - 1] == b[i - 2], a[j - 2] == b[i - 1] {
                        v = min(v, twoBack[j - 2] + 1)
                    }
                    current[j] = v
                    rowMin = min(rowMin, v)
                }
            }
            if prefix { best = min(best, current[n]) }
            if limit != .max, rowMin > limit { return prefix ? min(best, capped) : capped }
            swap(&twoBack, &previous)
            swap(&previous, &current)
        }
        return prefix ? min(best, capped) : min(previous[n], capped)
    }
}
