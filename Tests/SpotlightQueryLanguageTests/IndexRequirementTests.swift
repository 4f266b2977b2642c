import SpotlightQueryLanguage
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
        (#""Café Crème""#, .all([.term("cafe", prefix: true), .term("creme", prefix: true)])),
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
