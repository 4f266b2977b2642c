import Testing
@testable import SpotlightText

/// A glob, a candidate, and whether it matches.
struct GlobCase: Sendable, CustomTestStringConvertible {
    var glob: String
    var value: String
    var matches: Bool
    var testDescription: String { "\(glob) vs \(value.debugDescription) → \(matches)" }
    init(_ glob: String, _ value: String, _ matches: Bool) {
        self.glob = glob
        self.value = value
        self.matches = matches
    }
}

@Suite("WildcardPattern")
struct WildcardPatternTests {
    static let cases: [GlobCase] = [
        GlobCase("paris", "paris", true),
        GlobCase("paris", "Paris", false),
        GlobCase("paris", "paris ", false),
        GlobCase("paris*", "parisol", true),
        GlobCase("paris*", "paris", true),
        GlobCase("paris*", "Paris", false),
        GlobCase("*paris", "I love paris", true),
        GlobCase("*paris", "paris!", false),
        GlobCase("*paris*", "comparison", true),
        GlobCase("*paris*", "pari", false),
        GlobCase("pari?", "paris", true),
        GlobCase("pari?", "pari", false),
        GlobCase("pari?", "pariss", false),
        GlobCase("?", "e\u{301}", true),  // one grapheme cluster
        GlobCase("a?c", "a🎉c", true),
        GlobCase("a*b*c", "aXbYc", true),
        GlobCase("a*b*c", "abc", true),
        GlobCase("a*b*c", "aXbY", false),
        GlobCase("ab*cd*", "abcd", true),
        GlobCase("*?*", "", false),
        GlobCase("*?*", "x", true),
        GlobCase("*", "", true),
        GlobCase("**", "anything", true),
        GlobCase("", "", true),
        GlobCase("", "a", false),
        GlobCase(#"Lunch\?"#, "Lunch?", true),
        GlobCase(#"Lunch\?"#, "Lunchy", false),
        GlobCase(#"a\*b"#, "a*b", true),
        GlobCase(#"a\*b"#, "axb", false),
        GlobCase(#"\\"#, "\\", true),
        GlobCase("*a*a*a*a*b", String(repeating: "a", count: 200), false),
        GlobCase("Café*", "Café Crème", true),
        GlobCase("*e\u{301}", "café", true),  // canonical equivalence
    ]

    @Test(arguments: cases)
    func matches(_ c: GlobCase) {
        #expect(WildcardPattern(glob: c.glob).matches(c.value) == c.matches)
    }

    @Test func elementsAreNormalised() {
        let pattern = WildcardPattern([.literal("a"), .literal("b"), .anyRun, .anyRun, .literal(""), .anyCharacter])
        #expect(pattern.elements == [.literal("ab"), .anyRun, .anyCharacter])
        #expect(pattern == WildcardPattern(glob: "ab**?"))
        #expect(WildcardPattern(glob: "x").elements == [.literal("x")])
        #expect(WildcardPattern(glob: "").elements.isEmpty)
    }

    @Test(arguments: ["paris*", #"a\*b\?c\\d"#, "*?*x", "", "plain", "e\u{301}*"])
    func descriptionRoundTrips(_ glob: String) {
        let pattern = WildcardPattern(glob: glob)
        #expect(WildcardPattern(glob: pattern.description) == pattern)
    }

    @Test func properties() {
        #expect(WildcardPattern(glob: "abc*").literalPrefix == "abc")
        #expect(WildcardPattern(glob: "*abc").literalPrefix == "")
        #expect(WildcardPattern(glob: "abc").hasWildcards == false)
        #expect(WildcardPattern(glob: #"a\*"#).hasWildcards == false)
        #expect(WildcardPattern(glob: "a?").hasWildcards)
        #expect(WildcardPattern(glob: "**").matchesEverything)
        #expect(WildcardPattern(glob: "ABC*").mapLiterals { $0.lowercased() } == WildcardPattern(glob: "abc*"))
    }

    static let wordCases: [SplitCase] = [
        SplitCase("love paris*", ["love", "paris*"]),
        SplitCase("iPhone*", ["i", "Phone*"]),
        SplitCase("paris-fr?nce", ["paris", "fr?nce"]),
        SplitCase(#"a\*b"#, ["a", "b"]),
        SplitCase("*", ["*"]),
        SplitCase("*ance", ["*ance"]),
        SplitCase("--", []),
        SplitCase("", []),
    ]

    @Test(arguments: wordCases)
    func wordSegments(_ c: SplitCase) {
        let words = WildcardPattern(glob: c.input).wordSegments.flatMap(\.parts).map(\.description)
        #expect(words == c.expected)
    }

    @Test func wordSegmentRuns() {
        let segments = WildcardPattern(glob: "my iPhone*").wordSegments
        #expect(segments.map(\.run.description) == ["my", "iPhone*"])
    }
}
