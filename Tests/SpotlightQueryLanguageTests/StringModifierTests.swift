import SpotlightQueryLanguage
import Testing

/// `title == <literal>` against one title.
struct TextCase: Sendable, CustomTestStringConvertible {
    var literal: String
    var value: String
    var matches: Bool
    var testDescription: String { "\(value.debugDescription) == \(literal) → \(matches)" }

    init(_ literal: String, _ value: String, _ matches: Bool) {
        self.literal = literal
        self.value = value
        self.matches = matches
    }
}

func titleMatches(_ literal: String, _ title: String, op: String = "==") throws -> Bool {
    let item = FixtureItem("x", ["title": [.string(title)]])
    let query = try CompiledQuery(parsing: "title \(op) \(literal)", now: TestClock.now, calendar: TestClock.calendar)
    return query.matches(item)
}

@Suite("String comparison modifiers")
struct StringModifierTests {
    static let cases: [TextCase] = [
        // no modifiers: whole value, case- and diacritic-sensitive, NFC-normalised
        TextCase(#""Paris""#, "Paris", true),
        TextCase(#""Paris""#, "paris", false),
        TextCase(#""Paris""#, "I love Paris", false),
        TextCase(#""Café""#, "Cafe\u{301}", true),
        TextCase("\"Cafe\u{301}\"", "Café", true),
        TextCase(#""Cafe""#, "Café", false),
        // c
        TextCase(#""Paris"c"#, "PARIS", true),
        TextCase(#""Paris"c"#, "I love Paris", false),
        TextCase(#""STRASSE"c"#, "Straße", true),
        TextCase(#""straße"c"#, "STRASSE", true),
        TextCase(#""ﬁle"c"#, "FILE", true),
        TextCase(#""ΟΔΟΣ"c"#, "οδος", true),
        TextCase(#""café"c"#, "CAFÉ", true),
        TextCase(#""cafe"c"#, "CAFÉ", false),
        // d
        TextCase(#""cafe"d"#, "café", true),
        TextCase(#""cafe"d"#, "Café", false),
        TextCase(#""café"d"#, "cafe", true),
        TextCase(#""Malmo"d"#, "Malmö", true),
        TextCase(#""Kobenhavn"d"#, "København", false),  // ø is a letter, not o + mark
        TextCase(#""creme brulee"d"#, "cre\u{300}me bru\u{302}le\u{301}e", true),
        // cd
        TextCase(#""CAFE"cd"#, "café", true),
        TextCase(#""cafe*"cd"#, "Café Crème", true),
        TextCase(#""ÉTUDES"cd"#, "etudes", true),
        // wildcards with modifiers
        TextCase(#""PAR*"c"#, "parisol", true),
        TextCase(#""*SON"c"#, "Comparison", true),
        TextCase(#""*é*"d"#, "résumé", true),
        TextCase(#""r?sum?"d"#, "résumé", true),
        TextCase(#""r?sum?""#, "re\u{301}sume\u{301}", true),  // ? is one character, marks included
        TextCase(#""stra?e"c"#, "Straße", false),  // ? is one character of the folded value "strasse"
        TextCase(#""50% off""#, "50% off", true),
        TextCase(#""50%""#, "500", false),  // % is not special
        // w
        TextCase(#""window"w"#, "MyWindowClass", false),  // case-sensitive
        TextCase(#""Window"w"#, "MyWindowClass", true),
        TextCase(#""window"wc"#, "MyWindowClass", true),
        TextCase(#""Window"w"#, "NSWindow", false),
        TextCase(#""nswindow"wc"#, "NSWindow", true),
        TextCase(#""my window"wc"#, "MyWindowClass", true),
        TextCase(#""window my"wc"#, "MyWindowClass", false),
        TextCase(#""mywindowclass"wc"#, "MyWindowClass", true),
        TextCase(#""MyWindowClass"w"#, "MyWindowClass", true),
        TextCase(#""iphone*"wc"#, "iPhoneCase", true),
        TextCase(#""phone"wc"#, "iPhoneCase", true),
        TextCase(#""iphone"wc"#, "iPhoneCase", false),
        TextCase(#""paris"wc"#, "parisol", false),
        TextCase(#""par*"wc"#, "parisol", true),
        TextCase(#""france jpg"wc"#, "paris-france.jpg", true),
        TextCase(#""paris.france"wc"#, "paris-france.jpg", true),
        TextCase(#""*ance"wc"#, "paris-france.jpg", true),
        TextCase(#""fr?nce"w"#, "paris-france.jpg", true),
        TextCase(#""frederic chopin"wcd"#, "Frédéric Chopin", true),
        TextCase(#""東京"w"#, "東京タワー", true),
        TextCase(#""京東"w"#, "東京タワー", false),
        TextCase(#""*"w"#, "x", true),
        TextCase(#""*"w"#, "--", false),
        TextCase(#"""w"#, "", false),
        TextCase(#""-"w"#, "a-b", false),
        // t
        TextCase(#""plans lunch"tc"#, "Lunch plans", true),
        TextCase(#""lunch dinner"tc"#, "Lunch plans", false),
        TextCase(#""lun* pla*"tc"#, "Lunch plans", true),
        TextCase(#""lunch"t"#, "Lunch", false),
        TextCase(#""lunch plans"wtc"#, "plans for lunch", true),  // t takes precedence over w
        TextCase(#""case iphone"tc"#, "iPhoneCase", false),  // "iphone" is no word of iPhoneCase
        TextCase(#""case phone"tc"#, "iPhoneCase", true),
        TextCase(#""iphonecase"tc"#, "iPhoneCase", true),
        TextCase(#""chopin frederic"tcd"#, "Frédéric Chopin", true),
        // escapes
        TextCase(#""a\*b""#, "a*b", true),
        TextCase(#""a\*b""#, "axb", false),
        TextCase(#""a*b""#, "axb", true),
        TextCase(#""\\""#, "\\", true),
        TextCase(#""say \"hi\"""#, #"say "hi""#, true),
        TextCase(#"'it\'s'"#, "it's", true),
        TextCase(#"'say "hi"'"#, #"say "hi""#, true),
        // presence
        TextCase(#""*""#, "", true),
        TextCase(#""*"cd"#, "anything", true),
        TextCase(#""""#, "", true),
        TextCase(#""""#, "x", false),
    ]

    @Test(arguments: cases)
    func equal(_ c: TextCase) throws {
        #expect(try titleMatches(c.literal, c.value) == c.matches)
    }

    /// `!=` is the negation of `==` for an item that has the attribute.
    @Test(arguments: cases)
    func notEqual(_ c: TextCase) throws {
        #expect(try titleMatches(c.literal, c.value, op: "!=") == !c.matches)
    }

    /// Relational operators never hold for strings.
    @Test(arguments: ["<", "<=", ">", ">="])
    func relationalOnStrings(_ op: String) throws {
        #expect(try titleMatches(#""m""#, "a", op: op) == false)
        #expect(try titleMatches(#""m""#, "z", op: op) == false)
        #expect(try titleMatches(#""m""#, "m", op: op) == false)
    }

    /// Bracket and suffix modifiers are the same thing.
    @Test(arguments: ["c", "d", "w", "t", "cd", "cdw", "cdwt"])
    func bracketEqualsSuffix(_ letters: String) throws {
        let suffix = try QueryParser.parse(#"title == "x""# + letters)
        let bracket = try QueryParser.parse("title ==[\(letters)] \"x\"")
        #expect(suffix == bracket)
    }

    @Test func matcherAPI() {
        let matcher = StringMatcher(StringPattern(glob: "paris", modifiers: [.caseInsensitive, .wordBased]))
        #expect(matcher.matches("I love Paris"))
        #expect(matcher.matches("paris-france.jpg"))
        #expect(!matcher.matches("Comparison"))
        #expect(matcher.modifiers == [.caseInsensitive, .wordBased])
    }
}
