import SpotlightText

/// Index terms a value must have to match a string pattern: a condition over the value's
/// ``Tokenizer/indexTokens(_:)``, for planning index lookups.
///
/// ```swift
/// StringPattern(glob: "natural bri*", modifiers: [.caseInsensitive]).indexRequirement
/// // .all([.term("natural", prefix: true), .term("bri", prefix: true)])
/// ```
public indirect enum IndexRequirement: Sendable, Hashable {
    /// Some index token equals `key` (`prefix` false) or starts with it (`prefix` true).
    case term(String, prefix: Bool)
    /// Every requirement holds.
    case all([IndexRequirement])
    /// Some requirement holds.
    case any([IndexRequirement])

    /// Whether a set of index tokens satisfies the requirement.
    public func isSatisfied(by tokens: some Collection<String>) -> Bool {
        switch self {
        case .term(let key, let prefix):
            return tokens.contains { prefix ? $0.hasPrefix(key) : $0 == key }
        case .all(let parts):
            return parts.allSatisfy { $0.isSatisfied(by: tokens) }
        case .any(let parts):
            return parts.contains { $0.isSatisfied(by: tokens) }
        }
    }
}

extension StringPattern {
    /// What the index tokens of every value matching this pattern with `==` must contain, or `nil` when nothing
    /// can be required (a leading wildcard, an empty or presence pattern).
    ///
    /// Sound by construction: if `StringMatcher(self).matches(v)` then
    /// `indexRequirement.isSatisfied(by: Tokenizer.indexTokens(v))`, because ``TextFolding/searchKey(_:)`` is
    /// coarser than the `c`/`d` folds and the index stores every run and camelCase part. Keys are search keys.
    ///
    /// - Without `w`/`t`: each run of the pattern's leading literal, as a prefix term (the value starts with that
    ///   literal). A pattern that is one literal with no `c` or `d` is the value itself, so each of its runs is a
    ///   whole run of the value and an index token as it is: an exact term (`domainIdentifier == "doc"` needs the
    ///   token `doc`, not the thousands of `doc…` words).
    /// - With `w` or `t`: every word of the pattern that does not start with a wildcard, as a prefix term of its
    ///   literal start; as the matcher also tries whole runs, the requirement is "all camelCase words" **or**
    ///   "all runs" (`"phoneCase"w` needs `phone`+`case` or `phonecase`).
    public var indexRequirement: IndexRequirement? {
        if modifiers.contains(.wordBased) || modifiers.contains(.tokenized) {
            let segments = pattern.wordSegments
            guard let words = Self.prefixTerms(segments.flatMap(\.parts)),
                  let runs = Self.prefixTerms(segments.map(\.run))
            else { return nil }
            return words == runs ? words : .any([words, runs])
        }
        guard case .literal(let literal)? = pattern.elements.first else { return nil }
        let keys = WordSplitter.runs(literal).map { TextFolding.searchKey(String($0)) }.filter { !$0.isEmpty }
        // With `c` or `d` the value only folds to the literal, and a fold may move the word boundaries: prefixes.
        let exact = pattern.elements.count == 1 && !modifiers.contains(.caseInsensitive) && !modifiers.contains(.diacriticInsensitive)
        return Self.conjunction(keys.map { .term($0, prefix: !exact) })
    }

    /// The words as prefix terms, skipping words that start with a wildcard (they constrain nothing); `nil` if
    /// no word constrains anything.
    private static func prefixTerms(_ words: [WildcardPattern]) -> IndexRequirement? {
        conjunction(words.compactMap { word in
            let key = TextFolding.searchKey(word.literalPrefix)
            return key.isEmpty ? nil : .term(key, prefix: true)
        })
    }

    private static func conjunction(_ terms: [IndexRequirement]) -> IndexRequirement? {
        var unique: [IndexRequirement] = []
        for term in terms where !unique.contains(term) { unique.append(term) }
        switch unique.count {
        case 0: return nil
        case 1: return unique[0]
        default: return .all(unique)
        }
    }
}
