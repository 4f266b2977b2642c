import Foundation
import SpotlightText

/// What ranking needs to know of an item's name (its `title`, else its `displayName`) without reading it: how many
/// words it has, which word comes first, and what the whole name is, each folded the way typed text is
/// (`Tokenizer.queryTokens`), so `O’Brien`, `o'brien` and `OBrien` have the same key `obrien`, and `apache-airflow`
/// the key `apacheairflow` that `apache airflow` also has.
///
/// Stored with the item (`item.nameWords`, `nameFirst`, `nameKey`) and read into the segments' columns, so the
/// ranking of thousands of candidates reads arrays. The whole name is kept as a 64-bit hash (`hash`): a different
/// name with the same hash is one chance in 2⁶⁴. The first word is kept as text, since it must be matched the way
/// the typed word matched (exactly, as a prefix or with a typo).
struct NameSignals: Sendable, Hashable {
    /// The number of words of the name, at most 255; 0 when the item has no name with a word in it.
    var words: Int
    /// The name's first word, folded ("": none). Short words are stored inline in a `String`.
    var first: String
    /// The hash of the name's words joined (0: none).
    var key: UInt64
    /// The name's words joined, when computed from the attributes (writes use it for prefix-list keys).
    var keyText: String? = nil

    static let none = NameSignals(words: 0, first: "", key: 0)

    init(words: Int, first: String, key: UInt64) {
        self.words = words
        self.first = first
        self.key = key
    }

    init(attributes: [String: AttributeValue]) {
        for attribute in ["title", "displayName"] {
            guard let value = attributes[attribute] else { continue }
            for text in value.searchableStrings {
                let words = Tokenizer.queryTokens(text)
                guard let first = words.first else { continue }
                let key = words.joined()
                self.init(words: min(words.count, 255), first: first, key: Self.hash(key))
                keyText = key
                return
            }
        }
        self = .none
    }

    /// FNV-1a over the UTF-8 bytes; never 0 (0 stands for "none").
    static func hash(_ text: String) -> UInt64 {
        var hash = hashSeed
        for byte in text.utf8 {
            hash = hashStep(hash, byte)
        }
        return finished(hash)
    }

    /// The hash of no bytes yet; `hashStep` adds one, `finished` gives the hash of those so far.
    static let hashSeed: UInt64 = 0xcbf2_9ce4_8422_2325

    @inline(__always)
    static func hashStep(_ hash: UInt64, _ byte: UInt8) -> UInt64 {
        (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }

    @inline(__always)
    static func finished(_ hash: UInt64) -> UInt64 {
        hash == 0 ? 1 : hash
    }

    /// The typed text's key: its words joined.
    static func queryKey(_ words: [String]) -> UInt64 {
        words.isEmpty ? 0 : hash(words.joined())
    }
}

/// The names a query counts as typed whole (`Ranking.exactNamePoints`), as `NameSignals.key`s: its words joined, and
/// for words searched with typos, every joined spelling in which such a word is one of its *corrections* (the terms of
/// the index within its typo budget of the whole word, `Ranking.matchKind(_:term:prefix: false:typoBudget:)`), so
/// `langauges` names `languages` and `apache airflw` names `apache-airflow`, as their correct spellings do.
///
/// When the spellings number more than `maxSpellings` (several long typo words with many neighbours each), only the
/// typed words joined count: the rule stays one deterministic function of the query and the index.
struct NameKeys: Sendable {
    static let maxSpellings = 4_096
    /// The typed words joined.
    let typed: UInt64
    /// Every spelling's key, `typed`'s included; nil when no word has corrections (or they are too many).
    let spellings: Set<UInt64>?

    /// `corrections[i]`: word `i`'s corrections (nil or empty: none, the word only as typed).
    init(words: [String], corrections: [[String]?] = [], maxSpellings: Int = NameKeys.maxSpellings) {
        typed = NameSignals.queryKey(words)
        guard !words.isEmpty, corrections.contains(where: { !($0 ?? []).isEmpty }) else {
            spellings = nil
            return
        }
        // FNV-1a is a fold over the bytes, so the joined spellings' keys extend each other a word at a time.
        var states: [UInt64] = [NameSignals.hashSeed]
        for (i, word) in words.enumerated() {
            var forms = [word]
            if i < corrections.count, let more = corrections[i] { forms += more.filter { $0 != word } }
            guard states.count * forms.count <= maxSpellings else {
                spellings = nil
                return
            }
            var next: [UInt64] = []
            next.reserveCapacity(states.count * forms.count)
            for state in states {
                for form in forms {
                    var hash = state
                    for byte in form.utf8 { hash = NameSignals.hashStep(hash, byte) }
                    next.append(hash)
                }
            }
            states = next
        }
        spellings = Set(states.map(NameSignals.finished))
    }

    /// Whether `key` (a name's) is one the query counts as typed whole.
    func contains(_ key: UInt64) -> Bool {
        key == typed || spellings?.contains(key) == true
    }
}

/// The name parts of a hit's score (`Ranking`).
struct NameMatch {
    var exact = 0.0
    var start = 0.0
    var length = 0.0

    init() {}

    /// - Parameters:
    ///   - anyName: whether some query word's best match is in the name tier;
    ///   - startsName: whether the first query word's best match is in the name tier and the name's first word
    ///     matches it as well (`firstWordMatches`);
    ///   - wholeName: whether every query word's best match is in the name tier and is the whole word or a typo
    ///     (not a prefix, `isWhole`), and the name's key is one the query counts as typed whole (`NameKeys`);
    ///   - anyTypo: whether one of those matches is a typo (the name is then the corrected one's,
    ///     `Ranking.correctedNamePoints`).
    init(anyName: Bool, startsName: Bool, wholeName: Bool, anyTypo: Bool, name: NameSignals) {
        guard name.words > 0, anyName else { return }
        length = Ranking.nameLengthPoints(words: name.words)
        if startsName { start = Ranking.nameStartPoints }
        if wholeName { exact = anyTypo ? Ranking.correctedNamePoints : Ranking.exactNamePoints }
    }

    /// Whether a word's best match counts toward the whole name: in the name tier, the whole word or a typo of it.
    static func isWhole(tier: Int, kind: RankingExplanation.MatchKind) -> Bool {
        // (A weak typo of a beginning only is no correction of the word: the name's key then is no spelling of the
        // query, `NameKeys`.)
        tier == 0 && (kind == .exact || kind.isTypo)
    }

    /// From each query word's best match, in query order; `firstIsPrefix`: whether the first query word is matched
    /// as a prefix (it is the last word, typed alone).
    init(_ matches: [RankingExplanation.WordMatch], firstIsPrefix: Bool, keys: NameKeys, name: NameSignals) {
        guard let first = matches.first else {
            self.init()
            return
        }
        self.init(anyName: matches.contains { $0.tier == 0 },
                  startsName: first.tier == 0 && Self.firstWordMatches(first.queryWord, as: first.kind, prefix: firstIsPrefix,
                                                                        first: name.first),
                  wholeName: matches.allSatisfy { Self.isWhole(tier: $0.tier, kind: $0.kind) } && keys.contains(name.key),
                  anyTypo: matches.contains { $0.kind.isTypo }, name: name)
    }

    /// Whether the name's first word `first` matches the query word `word` at least as well as `kind`, the kind of
    /// the word's best match in the item: then that match could have been the first word, whichever of the item's
    /// equally good words was reported. The same definitions as `IndexStore.forwardMatch`.
    static func firstWordMatches(_ word: String, as kind: RankingExplanation.MatchKind, prefix: Bool, first: String) -> Bool {
        guard !first.isEmpty else { return false }
        if first == word { return true }
        // Byte by byte, as the term dictionary enumerates a prefix's terms (both are folded the same way).
        if prefix, first.utf8.starts(with: word.utf8) { return kind != .exact }
        guard kind.isTypo,
              let firstKind = Ranking.matchKind(word, term: first, prefix: prefix, typoBudget: Typos.budget(for: word))
        else { return false }
        return Ranking.kindFactor(firstKind) >= Ranking.kindFactor(kind)
    }
}
