import SpotlightQueryLanguage
import SpotlightTestSupport
import SpotlightText
import Testing

@Suite("Index requirements")
struct IndexRequirementTests {
    static func requirement(_ literal: String) throws -> IndexRequirement? {
        guard case .comparison(let c) = try QueryParser.parse("a == \(literal)"), case .string(let p) = c.value else {
            throw CancellationError()
        }
        return p.indexRequirement
    }

    static let cases: [(String, IndexRequirement?)] = [
        (#""paris*"c"#, .term("paris", prefix: true)),
        (#""Natural Bri*"c"#, .all([.term("natural", prefix: true), .term("bri", prefix: true)])),
        (#""*paris""#, nil),
        (#""*""#, nil),
        (#""""#, nil),
        // The whole value, typed exactly: its words are whole index tokens.
        (#""Café Crème""#, .all([.term("cafe", prefix: false), .term("creme", prefix: false)])),
        (#""doc""#, .term("doc", prefix: false)),
        (#""O'Brien & Co""#, .all([.term("o", prefix: false), .term("brien", prefix: false), .term("co", prefix: false)])),
        // Folded or with a wildcard, the value only starts with the literal's words.
        (#""doc"c"#, .term("doc", prefix: true)),
        (#""Café"d"#, .term("cafe", prefix: true)),
        (#""doc*""#, .term("doc", prefix: true)),
        (#""do?""#, .term("do", prefix: true)),
        (#""window"wc"#, .term("window", prefix: true)),
        (#""phoneCase"wc"#, .any([.all([.term("phone", prefix: true), .term("case", prefix: true)]),
                                   .term("phonecase", prefix: true)])),
        (#""plans lunch"tc"#, .all([.term("plans", prefix: true), .term("lunch", prefix: true)])),
        (#""*ance paris"w"#, .term("paris", prefix: true)),
        (#""*"w"#, nil),
    ]

    @Test(arguments: cases.indices)
    func derived(_ index: Int) throws {
        let (literal, expected) = Self.cases[index]
        #expect(try Self.requirement(literal) == expected, "\(literal)")
    }

    /// Every value a pattern matches satisfies the pattern's requirement over its index tokens.
    @Test(arguments: StringModifierTests.cases)
    func soundOverModifierCases(_ c: TextCase) throws {
        guard c.matches, let requirement = try Self.requirement(c.literal) else { return }
        #expect(requirement.isSatisfied(by: Tokenizer.indexTokens(c.value)), "\(c.literal) vs \(c.value)")
    }

    /// A literal compared without `c` or `d` is the value itself: every run of every value, however it is written
    /// (joiners, camelCase, digits, marks, ligatures, full-width forms, emoji, ideographs), is an index token of it.
    @Test func exactLiteralsAreSoundOverRandomValues() throws {
        let pieces = ["a", "Z", "e", "é", "e\u{301}", "ß", "ẞ", "ﬁ", "Ａ", "１", "7", "x2", "iPhone", "XMLParser", "O'", "’", "ʼ",
                      "&", "+", "-", "‐", ".", "_", " ", "  ", "\t", "/", "@", "*", "?", "\\", "\"", "🍓", "👍🏽", "❤️", "東京",
                      "ü", "Ω", "ς", "a\u{301}\u{302}", "1.5", "C++", "Wi-Fi", "rock'n'roll", "AT&T"]
        var random = SplitMix64(state: 20_261_125)
        for _ in 0..<3_000 {
            let value = (0..<Int.random(in: 1...6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            // The value as a pattern literal: `*`, `?`, `"` and `\` escaped.
            var escaped = ""
            for character in value {
                if "*?\"\\".contains(character) { escaped.append("\\") }
                escaped.append(character)
            }
            guard case .comparison(let comparison) = try QueryParser.parse("a == \"\(escaped)\""),
                  case .string(let pattern) = comparison.value else {
                Issue.record("\(value) did not parse")
                continue
            }
            #expect(StringMatcher(pattern).matches(value), "\(value) matches itself")
            guard let requirement = pattern.indexRequirement else { continue }
            #expect(requirement.isSatisfied(by: Tokenizer.indexTokens(value)), "\(value): \(requirement) vs \(Tokenizer.indexTokens(value))")
        }
    }

    /// The same over every string comparison of the worked examples and every fixture value.
    @Test func soundOverWorkedExamples() throws {
        let literals = [#""Paris"c"#, #""Paris"wc"#, #""Window"w"#, #""paris*""#, #""Frédéric*""#, #""Frederic"wcd"#,
                        #""audio"wc"#, #""public.text""#, #""windsurf*"cdw"#, #""love paris"wc"#,
                        #""plans lunch"tc"#, #""Lunch\?""#, #""50% off""#, #""steve jobs"c"#, #""myWindow"wc"#,
                        #""windowclass"wc"#, #""swift source"w"#]
        for literal in literals {
            guard case .comparison(let comparison) = try QueryParser.parse("a == \(literal)"),
                  case .string(let pattern) = comparison.value, let requirement = pattern.indexRequirement
            else { continue }
            let matcher = StringMatcher(pattern)
            for item in WorkedExampleFixture.items {
                for value in item.defaultSearchableText() where matcher.matches(value) {
                    #expect(requirement.isSatisfied(by: Tokenizer.indexTokens(value)), "\(literal) vs \(value)")
                }
            }
        }
    }
}
