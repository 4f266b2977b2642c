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
    ///   - allExactName: whether every query word's best match is the whole word, in the name tier;
    ///   - queryKey: `NameSignals.queryKey` of the query's words.
    init(anyName: Bool, startsName: Bool, allExactName: Bool, queryKey: UInt64, name: NameSignals) {
        guard name.words > 0, anyName else { return }
        length = Ranking.nameLengthPoints(words: name.words)
        if startsName { start = Ranking.nameStartPoints }
        if allExactName, name.key == queryKey { exact = Ranking.exactNamePoints }
    }

    /// From each query word's best match, in query order; `firstIsPrefix`: whether the first query word is matched
    /// as a prefix (it is the last word, typed alone).
    init(_ matches: [RankingExplanation.WordMatch], firstIsPrefix: Bool, queryKey: UInt64, name: NameSignals) {
        guard let first = matches.first else {
            self.init()
            return
        }
        self.init(anyName: matches.contains { $0.tier == 0 },
                  startsName: first.tier == 0 && Self.firstWordMatches(first.queryWord, as: first.kind, prefix: firstIsPrefix,
                                                                        first: name.first),
                  allExactName: matches.allSatisfy { $0.tier == 0 && $0.kind == .exact }, queryKey: queryKey, name: name)
    }

    /// Whether the name's first word `first` matches the query word `word` at least as well as `kind`, the kind of
    /// the word's best match in the item: then that match could have been the first word, whichever of the item's
    /// equally good words was reported. The same definitions as `IndexStore.forwardMatch`.
    static func firstWordMatches(_ word: String, as kind: RankingExplanation.MatchKind, prefix: Bool, first: String) -> Bool {
        guard !first.isEmpty else { return false }
        if first == word { return true }
        // Byte by byte, as the term dictionary enumerates a prefix's terms (both are folded the same way).
        if prefix, first.utf8.starts(with: word.utf8) { return kind != .exact }
        guard kind == .typo else { return false }
        return Ranking.matchKind(word, term: first, prefix: prefix, typoBudget: Typos.budget(for: word)) != nil
    }
}
