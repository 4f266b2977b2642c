import Foundation
import SpotlightQueryLanguage
import Testing

/// Absent attributes, multi-valued attributes, types, numbers, `*`, logic.
@Suite("Evaluation semantics")
struct EvaluationTests {
    static let items: [FixtureItem] = [
        FixtureItem("tags", ["keywords": [.string("alpha"), .string("Beta")], "rank": [.number(5)],
                             "flag": [.number(1)], "title": [.string("Tagged")]]),
        FixtureItem("empty", ["keywords": [], "rank": [.number(-2.5)], "flag": [.number(0)]]),
        FixtureItem("bare", [:]),
        FixtureItem("mixed", ["keywords": [.string("alpha"), .number(7)], "rank": [.number(5), .number(50)],
                              "created": [.date(Date(timeIntervalSinceReferenceDate: 700_000_000.6))]]),
        FixtureItem("text", ["textContent": [.string("Notes about Beta testing")], "rank": [.number(0x1F)]]),
    ]

    static let cases: [MatchCase] = [
        // absent ⇒ false, != included; NULL tests
        MatchCase(#"keywords == "alpha""#, ["tags", "mixed"]),
        MatchCase(#"keywords != "alpha""#, []),
        MatchCase(#"keywords != "gamma""#, ["tags", "mixed"]),
        MatchCase(#"!(keywords == "gamma")"#, ["tags", "empty", "bare", "mixed", "text"]),
        MatchCase(#"keywords == NULL"#, ["empty", "bare", "text"]),  // an empty array counts as absent
        MatchCase(#"keywords != NULL"#, ["tags", "mixed"]),
        MatchCase(#"keywords == "*""#, ["tags", "mixed"]),
        MatchCase(#"nonexistent == "*""#, []),
        MatchCase(#"nonexistent != "x""#, []),
        MatchCase(#"nonexistent == NULL"#, ["tags", "empty", "bare", "mixed", "text"]),
        MatchCase(#"Keywords == "alpha""#, []),  // names are case-sensitive
        // multi-valued
        MatchCase(#"keywords == "beta"c"#, ["tags"]),
        MatchCase(#"keywords != "Beta""#, ["mixed"]),
        MatchCase(#"rank == 50"#, ["mixed"]),
        MatchCase(#"rank != 5"#, ["empty", "text"]),
        MatchCase(#"rank > 10"#, ["mixed", "text"]),
        MatchCase(#"InRange(rank, 6, 60)"#, ["mixed", "text"]),
        // types: no coercion
        MatchCase(#"rank == "5""#, []),
        MatchCase(#"rank != "5""#, []),
        MatchCase(#"title == 5"#, []),
        MatchCase(#"title != 5"#, []),
        MatchCase(#"keywords == 7"#, ["mixed"]),
        MatchCase(#"keywords != 8"#, ["mixed"]),
        MatchCase(#"InRange(title, 0, 10)"#, []),
        // numbers
        MatchCase(#"rank == 5"#, ["tags", "mixed"]),
        MatchCase(#"rank < 0"#, ["empty"]),
        MatchCase(#"rank <= -2.5"#, ["empty"]),
        MatchCase(#"rank >= 0x1F"#, ["mixed", "text"]),
        MatchCase(#"rank == 3.1e1"#, ["text"]),
        MatchCase(#"InRange(rank, 5, 5)"#, ["tags", "mixed"]),
        MatchCase(#"InRange(rank, 60, 10)"#, []),
        MatchCase(#"flag == true"#, ["tags"]),
        MatchCase(#"flag == false"#, ["empty"]),
        MatchCase(#"flag != false"#, ["tags"]),
        // dates against numbers (seconds since 2001-01-01, whole seconds)
        MatchCase(#"created == 700000000"#, ["mixed"]),
        MatchCase(#"created == 700000000.9"#, ["mixed"]),
        MatchCase(#"created > 700000000"#, []),
        MatchCase(#"created >= 700000000"#, ["mixed"]),
        MatchCase(#"created < 700000001"#, ["mixed"]),
        MatchCase(#"InRange(created, 699999999, 700000000)"#, ["mixed"]),
        MatchCase(#"created == $time.iso(2023-03-08T20:26:40Z)"#, ["mixed"]),
        MatchCase(#"created == "*""#, []),
        // any text attribute
        MatchCase(#"* == "beta"c"#, ["tags"]),
        MatchCase(#"** == "*beta*"c"#, ["tags", "text"]),
        MatchCase(#"* == "beta"cw"#, ["tags", "text"]),
        MatchCase(#"* != "alpha""#, ["text"]),
        MatchCase(#"* == NULL"#, ["empty", "bare"]),
        MatchCase(#"* == 5"#, []),
        // logic
        MatchCase(#"true"#, ["tags", "empty", "bare", "mixed", "text"]),
        MatchCase(#"false"#, []),
        MatchCase(#"!true"#, []),
        MatchCase(#"!!(rank == 5)"#, ["tags", "mixed"]),
        MatchCase(#"rank == 5 && keywords == "Beta""#, ["tags"]),
        MatchCase(#"rank == 5 || textContent == "*beta*"c"#, ["tags", "mixed", "text"]),
        MatchCase(#"rank == 5 || flag == 0 && rank < 0"#, ["tags", "empty", "mixed"]),
        MatchCase(#"(rank == 5 || flag == 0) && keywords == NULL"#, ["empty"]),
        MatchCase(#"!(rank == 5) && !(rank == 31)"#, ["empty", "bare"]),
        MatchCase(#"title < "z" || !(title < "z")"#, ["tags", "empty", "bare", "mixed", "text"]),
    ]

    @Test(arguments: cases)
    func evaluate(_ c: MatchCase) throws {
        #expect(try matchingIDs(c.query, in: Self.items) == c.expected)
    }

    @Test func longChainsStayShallow() throws {
        let query = (0..<5000).map { "rank == \($0)" }.joined(separator: " || ")
        let expression = try QueryParser.parse(query)
        guard case .or(let operands) = expression else {
            Issue.record("not an or")
            return
        }
        #expect(operands.count == 5000)
        #expect(try QueryParser.parse(expression.description) == expression)
        #expect(try matchingIDs(query, in: Self.items) == ["tags", "mixed", "text"])
    }
}
