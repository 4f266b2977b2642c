import SpotlightText

/// A string pattern compiled for matching: literals folded per the `c` and `d` modifiers, words split for `w` and
/// `t`. Built once per query, used for every value.
///
/// ```swift
/// let matcher = StringMatcher(StringPattern(glob: "paris", modifiers: [.caseInsensitive, .wordBased]))
/// matcher.matches("I love Paris")      // true
/// matcher.matches("paris-france.jpg")  // true
/// matcher.matches("Comparison")        // false
/// ```
///
/// Semantics (§17.3 of the spec):
/// - Both sides are NFC-normalised; `c` case-folds, `d` removes nonspacing marks (``TextFolding/fold(_:caseInsensitive:diacriticInsensitive:)``).
/// - Without `w`/`t`, the pattern must match the whole value (``WildcardPattern``).
/// - `w`: value and pattern are cut into words (``WordSplitter``; wildcards stay in their word); the pattern's
///   words must match a contiguous run of the value's words, in order. Runs of word characters are tried as
///   well as their camelCase parts, so `"window"w` matches `MyWindowClass` and `"mywindowclass"wc` does too.
/// - `t`: every word of the pattern must match some word of the value, in any order (takes precedence over `w`).
/// - A pattern with no words (`""w`, `"--"w`) matches nothing under `w`/`t`.
public struct StringMatcher: Sendable {
    /// The modifiers the matcher was built with.
    public let modifiers: StringModifiers
    private let mode: Mode
    /// A one-word pattern with an ASCII literal (`lib*`, `library`) under `w` or `t`, checked against ASCII values
    /// without building their words (``WordSplitter/asciiContainsWord(_:literal:prefix:lowercase:)``).
    private let asciiWord: (literal: [UInt8], prefix: Bool)?

    private enum Mode: Sendable {
        case whole(WildcardPattern)
        case phrase(words: [WildcardPattern], runs: [WildcardPattern])
        case tokens(words: [WildcardPattern], runs: [WildcardPattern])
    }

    /// Compiles a string pattern.
    public init(_ pattern: StringPattern) {
        let modifiers = pattern.modifiers
        self.modifiers = modifiers
        let caseInsensitive = modifiers.contains(.caseInsensitive)
        let diacriticInsensitive = modifiers.contains(.diacriticInsensitive)
        let fold = { (text: String) in
            TextFolding.fold(text, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
        }
        if modifiers.contains(.wordBased) || modifiers.contains(.tokenized) {
            let segments = pattern.pattern.wordSegments
            let words = segments.flatMap(\.parts).map { $0.mapLiterals(fold) }
            let runs = segments.map { $0.run.mapLiterals(fold) }
            mode = modifiers.contains(.tokenized) ? .tokens(words: words, runs: runs) : .phrase(words: words, runs: runs)
            // One word (its one run): both modes ask whether some word or run of the value matches it.
            if words.count == 1, runs == words, let literal = words.first?.literalOrPrefix,
               !literal.text.isEmpty, literal.text.utf8.allSatisfy({ $0 < 0x80 }) {
                asciiWord = (Array(literal.text.utf8), literal.isPrefix)
            } else {
                asciiWord = nil
            }
        } else {
            mode = .whole(pattern.pattern.mapLiterals(fold))
            asciiWord = nil
        }
    }

    /// Whether a stored string value matches.
    public func matches(_ value: String) -> Bool {
        if let asciiWord, let found = WordSplitter.asciiContainsWord(
            value, literal: asciiWord.literal, prefix: asciiWord.prefix, lowercase: modifiers.contains(.caseInsensitive)) {
            return found
        }
        switch mode {
        case .whole(let pattern):
            if pattern.matchesEverything { return true }
            return pattern.matches(fold(value))
        case .phrase(let words, let runs):
            guard !words.isEmpty else { return false }
            let value = WordSplitter.wordsAndRuns(value, transform: fold)
            return Self.containsRun(words, in: value.words) || Self.containsRun(runs, in: value.runs)
        case .tokens(let words, let runs):
            guard !words.isEmpty else { return false }
            let value = WordSplitter.wordsAndRuns(value, transform: fold)
            func found(_ pattern: WildcardPattern) -> Bool {
                value.words.contains(where: pattern.matches) || value.runs.contains(where: pattern.matches)
            }
            return words.allSatisfy(found) || runs.allSatisfy(found)
        }
    }

    private func fold(_ text: String) -> String {
        TextFolding.fold(text, caseInsensitive: modifiers.contains(.caseInsensitive),
                         diacriticInsensitive: modifiers.contains(.diacriticInsensitive))
    }

    /// Whether the patterns match consecutive words, in order, somewhere in `words`.
    private static func containsRun(_ patterns: [WildcardPattern], in words: [String]) -> Bool {
        guard !patterns.isEmpty, patterns.count <= words.count else { return false }
        for start in 0...(words.count - patterns.count) {
            var matched = true
            for (offset, pattern) in patterns.enumerated() where !pattern.matches(words[start + offset]) {
                matched = false
                break
            }
            if matched { return true }
        }
        return false
    }
}
