import SpotlightQueryLanguage
import SpotlightText
import Testing

/// A query and its canonical printed form.
struct CanonicalCase: Sendable, CustomTestStringConvertible {
    var query: String
    var canonical: String
    var testDescription: String { "\(query) ⇒ \(canonical)" }

    init(_ query: String, _ canonical: String) {
        self.query = query
        self.canonical = canonical
    }
}

@Suite("Parser: canonical printed trees")
struct ParserTests {
    static let canonicalCases: [CanonicalCase] = [
        // comparisons and operators
        CanonicalCase(#"title == "Paris""#, #"title == "Paris""#),
        CanonicalCase(#"title=="Paris""#, #"title == "Paris""#),
        CanonicalCase(#"title = "Paris""#, #"title == "Paris""#),
        CanonicalCase(#"title != "Paris""#, #"title != "Paris""#),
        CanonicalCase("rankingHint < 5", "rankingHint < 5"),
        CanonicalCase("rankingHint <= 5", "rankingHint <= 5"),
        CanonicalCase("rankingHint > 5", "rankingHint > 5"),
        CanonicalCase("rankingHint >= 5", "rankingHint >= 5"),
        CanonicalCase("  \t\n title\n==\r\n'x'  ", #"title == "x""#),
        // attributes
        CanonicalCase(#"* == "x""#, #"* == "x""#),
        CanonicalCase(#"** == "x""#, #"* == "x""#),
        CanonicalCase(#"kMDItemDisplayName == "x""#, #"kMDItemDisplayName == "x""#),
        CanonicalCase(#"com.acme:key-name_2 == "x""#, #"com.acme:key-name_2 == "x""#),
        CanonicalCase(#"_private == 1"#, "_private == 1"),
        CanonicalCase(#"titre_été == "x""#, #"titre_été == "x""#),
        // strings, escapes, wildcards
        CanonicalCase(#"title == 'Paris'"#, #"title == "Paris""#),
        CanonicalCase(#"title == 'say "hi"'"#, #"title == "say \"hi\"""#),
        CanonicalCase(#"title == "it's""#, #"title == "it's""#),
        CanonicalCase(#"title == 'it\'s'"#, #"title == "it's""#),
        CanonicalCase(#"title == "a\\b""#, #"title == "a\\b""#),
        CanonicalCase(#"title == "Lunch\?""#, #"title == "Lunch\?""#),
        CanonicalCase(#"title == "a\*b*""#, #"title == "a\*b*""#),
        CanonicalCase(#"title == "\x\y""#, #"title == "xy""#),
        CanonicalCase(#"title == "pa**ris""#, #"title == "pa*ris""#),
        CanonicalCase(#"title == "?*?""#, #"title == "?*?""#),
        CanonicalCase(#"title == """#, #"title == """#),
        CanonicalCase(#"title == "50% off""#, #"title == "50% off""#),
        CanonicalCase(#"title == "Café""#, #"title == "Café""#),
        CanonicalCase("title == \"line\nbreak\"", "title == \"line\nbreak\""),
        CanonicalCase(#"title == "“curly”""#, #"title == "“curly”""#),
        // modifiers: suffix, bracket, union, order, duplicates
        CanonicalCase(#"title == "x"c"#, #"title == "x"c"#),
        CanonicalCase(#"title == "x"wdc"#, #"title == "x"cdw"#),
        CanonicalCase(#"title == "x"tcwd"#, #"title == "x"cdwt"#),
        CanonicalCase(#"title == "x"cc"#, #"title == "x"c"#),
        CanonicalCase(#"title ==[cd] "x""#, #"title == "x"cd"#),
        CanonicalCase(#"title ==[c] "x"w"#, #"title == "x"cw"#),
        CanonicalCase(#"title ==[ c d ] "x""#, #"title == "x"cd"#),
        CanonicalCase(#"title == [d] "x""#, #"title == "x"d"#),
        CanonicalCase(#"title ==[] "x""#, #"title == "x""#),
        CanonicalCase(#"title !=[c] "x""#, #"title != "x"c"#),
        CanonicalCase(#"title =[t] 'x'"#, #"title == "x"t"#),
        // numbers
        CanonicalCase("a == 42", "a == 42"),
        CanonicalCase("a == -3", "a == -3"),
        CanonicalCase("a == +3", "a == 3"),
        CanonicalCase("a == 2.5", "a == 2.5"),
        CanonicalCase("a == .5", "a == 0.5"),
        CanonicalCase("a == 1e3", "a == 1000"),
        CanonicalCase("a == 1.5E-2", "a == 0.015"),
        CanonicalCase("a == 0x1F", "a == 31"),
        CanonicalCase("a == 0XfF", "a == 255"),
        CanonicalCase("a == 1e20", "a == 1e+20"),
        CanonicalCase("a == -0", "a == 0"),
        CanonicalCase("a<-3", "a < -3"),
        CanonicalCase("a=-3", "a == -3"),
        // literals
        CanonicalCase("a == true", "a == true"),
        CanonicalCase("a == false", "a == false"),
        CanonicalCase("a == NULL", "a == NULL"),
        CanonicalCase("a == nil", "a == NULL"),
        CanonicalCase("a != nil", "a != NULL"),
        CanonicalCase("a > true", "a > true"),
        CanonicalCase("true", "true"),
        CanonicalCase("false", "false"),
        CanonicalCase("!true", "!true"),
        // $time
        CanonicalCase("d > $time.now", "d > $time.now"),
        CanonicalCase("d > $time.now(-3600)", "d > $time.now(-3600)"),
        CanonicalCase("d > $time.now( -3600 )", "d > $time.now(-3600)"),
        CanonicalCase("d > $time.now(+60)", "d > $time.now(60)"),
        CanonicalCase("d > $time.now(0)", "d > $time.now"),
        CanonicalCase("d > $time.now(-1.5)", "d > $time.now(-1.5)"),
        CanonicalCase("d > $time.now(-30d)", "d > $time.now(-30d)"),
        CanonicalCase("d > $time.now(2h)", "d > $time.now(2h)"),
        CanonicalCase("d > $time.now(90m)", "d > $time.now(90m)"),
        CanonicalCase("d > $time.now(1M)", "d > $time.now(1M)"),
        CanonicalCase("d > $time.now(0d)", "d > $time.now(0d)"),
        CanonicalCase("d == $time.today", "d == $time.today"),
        CanonicalCase("d == $time.today(-1)", "d == $time.today(-1)"),
        CanonicalCase("d == $time.today(-1w)", "d == $time.today(-1w)"),
        CanonicalCase("d == $time.yesterday", "d == $time.yesterday"),
        CanonicalCase("d == $time.yesterday(-1)", "d == $time.yesterday(-1)"),
        CanonicalCase("d == $time.this_week", "d == $time.this_week"),
        CanonicalCase("d == $time.this_week(-1)", "d == $time.this_week(-1)"),
        CanonicalCase("d == $time.last_week", "d == $time.last_week"),
        CanonicalCase("d == $time.this_month(2)", "d == $time.this_month(2)"),
        CanonicalCase("d == $time.this_year(-1)", "d == $time.this_year(-1)"),
        CanonicalCase("d > $time.iso(2021-12-31T00:00:00Z)", "d > $time.iso(2021-12-31T00:00:00Z)"),
        CanonicalCase("d > $time.iso(2025-03-01)", "d > $time.iso(2025-03-01)"),
        CanonicalCase(#"d > $time.iso("2025-03-01")"#, "d > $time.iso(2025-03-01)"),
        CanonicalCase("d > $time.iso('2025-03-01T10:30')", "d > $time.iso(2025-03-01T10:30:00)"),
        CanonicalCase(#"d > $time.iso("2025-03-01 10:30:15")"#, "d > $time.iso(2025-03-01T10:30:15)"),
        CanonicalCase("d > $time.iso(2025-03-01T10:30:15.250+02:00)", "d > $time.iso(2025-03-01T10:30:15.25+02:00)"),
        CanonicalCase("d > $time.iso(2025-03-01T10:30:15-0530)", "d > $time.iso(2025-03-01T10:30:15-05:30)"),
        CanonicalCase("d > $time.iso(2025-03-01T10:30:15+00:00)", "d > $time.iso(2025-03-01T10:30:15Z)"),
        CanonicalCase("d > $time.iso( 2024-02-29t23:59:59z )", "d > $time.iso(2024-02-29T23:59:59Z)"),
        CanonicalCase("d > 700000000", "d > 700000000"),
        // InRange
        CanonicalCase("InRange(rankingHint, 10, 60)", "InRange(rankingHint, 10, 60)"),
        CanonicalCase("inRange(rankingHint,10,60)", "InRange(rankingHint, 10, 60)"),
        CanonicalCase("inrange( rankingHint , -1.5 , 0x10 )", "InRange(rankingHint, -1.5, 16)"),
        CanonicalCase("InRange(d, $time.today(-10), $time.today)", "InRange(d, $time.today(-10), $time.today)"),
        CanonicalCase("InRange(*, 1, 2)", "InRange(*, 1, 2)"),
        // logic, precedence, parentheses
        CanonicalCase("a == 1 && b == 2", "a == 1 && b == 2"),
        CanonicalCase("a == 1 || b == 2", "a == 1 || b == 2"),
        CanonicalCase("a == 1 || b == 2 && c == 3", "a == 1 || b == 2 && c == 3"),
        CanonicalCase("(a == 1 || b == 2) && c == 3", "(a == 1 || b == 2) && c == 3"),
        CanonicalCase("a == 1 && (b == 2 || c == 3)", "a == 1 && (b == 2 || c == 3)"),
        CanonicalCase("(a == 1 && b == 2) || c == 3", "a == 1 && b == 2 || c == 3"),
        CanonicalCase("(a == 1 && b == 2) && c == 3", "(a == 1 && b == 2) && c == 3"),
        CanonicalCase("a == 1 || (b == 2 || c == 3)", "a == 1 || (b == 2 || c == 3)"),
        CanonicalCase("((a == 1))", "a == 1"),
        CanonicalCase("!a == 1", "!(a == 1)"),
        CanonicalCase("!(a == 1)", "!(a == 1)"),
        CanonicalCase("! (a == 1 && b == 2)", "!(a == 1 && b == 2)"),
        CanonicalCase("!!(a == 1)", "!(!(a == 1))"),
        CanonicalCase("!a == 1 && b == 2", "!(a == 1) && b == 2"),
        CanonicalCase("a==1&&b==2||c==3&&!d==4", "a == 1 && b == 2 || c == 3 && !(d == 4)"),
        CanonicalCase("true && a == 1", "true && a == 1"),
        CanonicalCase("(true)", "true"),
    ]

    @Test(arguments: canonicalCases)
    func canonicalForm(_ c: CanonicalCase) throws {
        let expression = try QueryParser.parse(c.query)
        #expect(expression.description == c.canonical)
        // Printing then re-parsing gives the same tree.
        #expect(try QueryParser.parse(expression.description) == expression)
    }

    /// Precedence and grouping, shown by the bracketed tree form.
    static let treeCases: [CanonicalCase] = [
        CanonicalCase("a == 1 || b == 2 && c == 3", "(or (== a 1) (and (== b 2) (== c 3)))"),
        CanonicalCase("a == 1 && b == 2 || c == 3", "(or (and (== a 1) (== b 2)) (== c 3))"),
        CanonicalCase("a == 1 && b == 2 && c == 3", "(and (== a 1) (== b 2) (== c 3))"),
        CanonicalCase("a == 1 || b == 2 || c == 3", "(or (== a 1) (== b 2) (== c 3))"),
        CanonicalCase("(a == 1 || b == 2) && c == 3", "(and (or (== a 1) (== b 2)) (== c 3))"),
        CanonicalCase("!a == 1 && b == 2", "(and (not (== a 1)) (== b 2))"),
        CanonicalCase("!(a == 1 && b == 2)", "(not (and (== a 1) (== b 2)))"),
        CanonicalCase("!!true", "(not (not true))"),
        CanonicalCase(#"x ==[c] "y"w || InRange(r, 1, 2)"#, #"(or (== x "y"cw) (InRange r 1 2))"#),
    ]

    @Test(arguments: treeCases)
    func treeShape(_ c: CanonicalCase) throws {
        #expect(try QueryParser.parse(c.query).debugDescription == c.canonical)
    }

    @Test func astPieces() throws {
        let expression = try QueryParser.parse(#"kMDItemAuthors ==[c] "Ste*ve?"w && InRange(d, 1, $time.today)"#)
        guard case .and(let operands) = expression, operands.count == 2,
              case .comparison(let comparison) = operands[0],
              case .inRange(let range) = operands[1]
        else {
            Issue.record("unexpected tree \(expression.debugDescription)")
            return
        }
        #expect(comparison.attribute == .named("kMDItemAuthors"))
        #expect(comparison.attribute.name == "kMDItemAuthors")
        #expect(comparison.operator == .equal)
        guard case .string(let pattern) = comparison.value else {
            Issue.record("not a string")
            return
        }
        #expect(pattern.modifiers == [.caseInsensitive, .wordBased])
        #expect(pattern.elements == [.literal("Ste"), .anyRun, .literal("ve"), .anyCharacter])
        #expect(range.attribute == .named("d"))
        #expect(range.lowerBound == .number(1))
        #expect(range.upperBound == .time(.relative(.today, offset: 0, unit: nil)))
    }

    @Test func presenceTestIsRecognised() throws {
        guard case .comparison(let c) = try QueryParser.parse(#"title == "*""#), case .string(let p) = c.value else {
            Issue.record("not a string comparison")
            return
        }
        #expect(p.isPresenceTest)
        guard case .comparison(let w) = try QueryParser.parse(#"title == "*"w"#), case .string(let q) = w.value else {
            Issue.record("not a string comparison")
            return
        }
        #expect(!q.isPresenceTest)
    }

    @Test func handBuiltTreesPrint() {
        let expression = QueryExpression.or([
            .comparison(Comparison(attribute: .anyText, operator: .equal,
                                   value: .string(StringPattern(glob: "a\"b*", modifiers: [.tokenized, .caseInsensitive])))),
            .and([.constant(true), .not(.constant(false))]),
            .and([]),
            .or([]),
        ])
        #expect(expression.description == #"* == "a\"b*"ct || true && !false || true || (false)"#)
    }
}
