import Foundation
import SpotlightQueryLanguage
import Testing
import SpotlightTestSupport

/// Garbage in, a parse error or a valid tree out — never a crash.
@Suite("Fuzz")
struct FuzzTests {
    /// Checks one input: it parses or throws; what parses prints, re-parses to the same tree and evaluates.
    static func check(_ query: String) {
        do {
            let expression = try QueryParser.parse(query)
            let printed = expression.description
            #expect(try QueryParser.parse(printed) == expression, "\(query.debugDescription) printed as \(printed)")
            let compiled = CompiledQuery(expression, now: TestClock.now, calendar: TestClock.calendar)
            for item in WorkedExampleFixture.items {
                _ = compiled.matches(item)
            }
        } catch {
            #expect(!error.message.isEmpty)
            #expect(error.offset >= 0 && error.offset <= query.count)
            #expect(error.line >= 1 && error.column >= 1)
        }
    }

    static let fragments: [String] = [
        "a", "title", "T", "x1", "_", " ", "  ", "\t", "\n", "\"", "'", "\\", "*", "**", "?", "(", ")", "[", "]",
        "=", "==", "!", "!=", "<", ">", "<=", ">=", "&", "&&", "|", "||", ",", ".", "-", "+", "0", "1", "42", "0x",
        "1e", "3.5", "$", "$time", "$time.", "today", "now", "(-1)", "(3d)", "$time.today", "$time.iso(",
        "2025-03-01", "InRange", "inRange", "NULL", "nil", "true", "false", "c", "d", "w", "t", "cdw", "é", "e\u{301}",
        "\u{301}", "“", "”", "東", "🎉", "\r\n", "#", "\0",
    ]

    @Test(arguments: 0..<8)
    func randomFragments(_ seed: UInt64) {
        var generator = SplitMix64(state: seed)
        for _ in 0..<400 {
            let count = Int.random(in: 0...24, using: &generator)
            let query = (0..<count).map { _ in Self.fragments.randomElement(using: &generator)! }.joined()
            Self.check(query)
        }
    }

    @Test(arguments: 0..<4)
    func randomScalars(_ seed: UInt64) {
        var generator = SplitMix64(state: seed &+ 1000)
        for _ in 0..<500 {
            let count = Int.random(in: 0...40, using: &generator)
            var scalars = String.UnicodeScalarView()
            for _ in 0..<count {
                let value: UInt32 = Bool.random(using: &generator)
                    ? UInt32.random(in: 0x20...0x7E, using: &generator)
                    : UInt32.random(in: 0...0x2FFF, using: &generator)
                if let scalar = Unicode.Scalar(value) { scalars.append(scalar) }
            }
            Self.check(String(scalars))
        }
    }

    /// Well-formed pieces combined at random, so that many inputs parse and exercise printing and evaluation.
    @Test(arguments: 0..<4)
    func randomWellFormedPieces(_ seed: UInt64) {
        let comparisons = [
            #"title == "Paris"c"#, #"* == "a*"cdw"#, "rankingHint >= 50", "d == $time.today(-1)", "x != NULL",
            #"keywords ==[cd] 'x?y'"#, "InRange(r, 1, $time.now)", "true", "false", #"t == "\*\?\\\"""#,
            "n == 0x1F", "n < -1.5e3", #"a == "love paris"wt"#,
        ]
        let joins = [" && ", " || ", "&&", "||", " && !", " || !(", ") && (", " "]
        var generator = SplitMix64(state: seed &+ 5000)
        for _ in 0..<300 {
            var query = comparisons.randomElement(using: &generator)!
            for _ in 0..<Int.random(in: 0...5, using: &generator) {
                query += joins.randomElement(using: &generator)! + comparisons.randomElement(using: &generator)!
            }
            if Bool.random(using: &generator) { query = "(" + query }
            if Bool.random(using: &generator) { query += ")" }
            Self.check(query)
        }
    }

    /// Canonical test queries with the damage typing does: characters deleted, inserted, replaced, swapped,
    /// duplicated runs. `OPENSPOTLIGHT_FUZZ_ITERATIONS` sets how many (a long run: `scripts/fuzz.sh`). Each input
    /// must finish; the time bound is loose (it catches a hang, not a slowdown).
    @Test func mutatedCanonicalQueries() {
        let iterations = ProcessInfo.processInfo.environment["OPENSPOTLIGHT_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 3_000
        let seeds = (ParserTests.canonicalCases + ParserTests.treeCases).map { Array($0.query) }
        let alphabet = Array(#"ab()!&|=<>*?"'\$.,-+0123456789 cdwt"#) + ["é", "\u{301}", "東", "\0", "\n"]
        var generator = SplitMix64(state: 17_017)
        var slowest = 0.0
        for _ in 0..<iterations {
            var characters = seeds.randomElement(using: &generator)!
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let i = characters.isEmpty ? 0 : Int.random(in: 0..<characters.count, using: &generator)
                switch Int.random(in: 0...4, using: &generator) {
                case 0 where !characters.isEmpty: characters.remove(at: i)
                case 1: characters.insert(alphabet.randomElement(using: &generator)!, at: i)
                case 2 where !characters.isEmpty: characters[i] = alphabet.randomElement(using: &generator)!
                case 3 where characters.count > 1:
                    let j = Int.random(in: 0..<characters.count, using: &generator)
                    characters.swapAt(i, j)
                case 4 where !characters.isEmpty:
                    let end = min(characters.count, i + Int.random(in: 1...8, using: &generator))
                    characters.insert(contentsOf: characters[i..<end], at: i)
                default: break
                }
            }
            let start = Date()
            Self.check(String(characters))
            slowest = max(slowest, Date().timeIntervalSince(start))
        }
        #expect(slowest < 10, "every mutated query finishes (slowest \(slowest) s)")
        print("fuzz: \(iterations) mutated queries parsed, slowest \(String(format: "%.3f", slowest)) s, 0 crashes")
    }

    /// Every prefix of every canonical test query.
    @Test func truncations() {
        for c in ParserTests.canonicalCases + ParserTests.treeCases {
            let characters = Array(c.query)
            for end in 0...characters.count {
                Self.check(String(characters[0..<end]))
            }
        }
    }

    @Test func deepNestingFailsCleanly() {
        for opener in ["(", "!", "!(", "( !"] {
            let query = String(repeating: opener, count: 20_000) + "a == 1"
            #expect {
                try QueryParser.parse(query)
            } throws: { error in
                (error as? QueryParseError)?.code == .tooDeep
            }
        }
        let nested = String(repeating: "(", count: 150) + "a == 1" + String(repeating: ")", count: 150)
        #expect(throws: Never.self) { try QueryParser.parse(nested) }
    }

    @Test func hugeInputs() {
        let longString = "title == \"" + String(repeating: "ab*", count: 20_000) + "\""
        Self.check(longString)
        Self.check(String(repeating: "a == 1 && ", count: 3000) + "true")
        Self.check(String(repeating: "\"", count: 10_001))
    }
}
