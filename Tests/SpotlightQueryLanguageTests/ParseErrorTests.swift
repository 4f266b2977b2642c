import SpotlightQueryLanguage
import Testing

/// A malformed query and the error it must produce.
struct ErrorCase: Sendable, CustomTestStringConvertible {
    var query: String
    var code: QueryParseError.Code
    /// 1-based column of the error.
    var column: Int
    var message: String
    var testDescription: String { "\(query.debugDescription) → \(message)" }

    init(_ query: String, _ code: QueryParseError.Code, column: Int, _ message: String) {
        self.query = query
        self.code = code
        self.column = column
        self.message = message
    }
}

@Suite("Parser: errors")
struct ParseErrorTests {
    static let cases: [ErrorCase] = [
        // §17.5 #44 and #45
        ErrorCase(#"title == "Paris"#, .unterminatedString, column: 10, "unterminated string starting at column 10"),
        ErrorCase(#"title === "x""#, .unknownOperator, column: 7,
                  "unknown operator '===' (expected ==, =, !=, <, <=, > or >=) at column 7"),
        ErrorCase("InRange(title, 1)", .inRangeArity, column: 1,
                  "InRange takes 3 arguments (attribute, lower bound, upper bound), found 2 at column 1"),
        ErrorCase("date > $time.fortnight", .unknownTimeVariable, column: 8,
                  "unknown $time variable '$time.fortnight' (expected $time.now, $time.today, $time.yesterday, "
                      + "$time.this_week, $time.last_week, $time.this_month, $time.this_year or $time.iso(…)) at column 8"),
        ErrorCase(#"title == "x"q"#, .invalidModifier, column: 13,
                  "unknown modifier 'q' (expected c, d, w or t) at column 13"),
        // empty
        ErrorCase("", .emptyQuery, column: 1, "empty query at column 1"),
        ErrorCase("   \n\t ", .emptyQuery, column: 1, "empty query at line 1, column 1"),
        // strings
        ErrorCase(#"title == 'Paris"#, .unterminatedString, column: 10, "unterminated string starting at column 10"),
        ErrorCase(#"title == "Paris\""#, .unterminatedString, column: 10, "unterminated string starting at column 10"),
        ErrorCase(#"title == "abc\"#, .unterminatedString, column: 10, "unterminated string starting at column 10"),
        ErrorCase(#"title == "a" && b == "c"#, .unterminatedString, column: 22,
                  "unterminated string starting at column 22"),
        ErrorCase("title == “Paris”", .unexpectedCharacter, column: 10,
                  "curly quote '“' is not a string delimiter (use \" or ') at column 10"),
        // modifiers
        ErrorCase(#"title == "x"C"#, .invalidModifier, column: 13,
                  "unknown modifier 'C' (expected c, d, w or t) at column 13"),
        ErrorCase(#"title == "x"cdx"#, .invalidModifier, column: 15,
                  "unknown modifier 'x' (expected c, d, w or t) at column 15"),
        ErrorCase(#"title ==[cq] "x""#, .invalidModifier, column: 11,
                  "unknown modifier 'q' (expected c, d, w or t) at column 11"),
        ErrorCase(#"title ==[cd "x""#, .invalidModifier, column: 13,
                  "unknown modifier '\"' (expected c, d, w or t) at column 13"),
        ErrorCase("title ==[cd", .invalidModifier, column: 9, "unterminated modifier list starting at column 9"),
        ErrorCase("rank ==[c] 5", .modifierOnNonString, column: 8, "modifiers [c] apply only to strings at column 8"),
        ErrorCase("rank ==[d] NULL", .modifierOnNonString, column: 8, "modifiers [d] apply only to strings at column 8"),
        ErrorCase("rank == 5c", .invalidNumber, column: 9, "invalid number '5c' at column 9"),
        // operators
        ErrorCase(#"a => 1"#, .unknownOperator, column: 3,
                  "unknown operator '=>' (expected ==, =, !=, <, <=, > or >=) at column 3"),
        ErrorCase(#"a <> 1"#, .unknownOperator, column: 3,
                  "unknown operator '<>' (expected ==, =, !=, <, <=, > or >=) at column 3"),
        ErrorCase(#"a !== 1"#, .unknownOperator, column: 3,
                  "unknown operator '!==' (expected ==, =, !=, <, <=, > or >=) at column 3"),
        ErrorCase(#"a == 1 & b == 2"#, .unknownOperator, column: 8, "unknown operator '&' (use '&&') at column 8"),
        ErrorCase(#"a == 1 ||| b == 2"#, .unknownOperator, column: 8, "unknown operator '|||' (use '||') at column 8"),
        ErrorCase(#"a == 1 and b == 2"#, .unexpectedToken, column: 8,
                  "unexpected 'and'; expected '&&', '||' or the end of the query at column 8"),
        ErrorCase(#"a 1"#, .unexpectedToken, column: 3,
                  "expected a comparison operator (==, !=, <, <=, >, >=) after 'a', found number 1 at column 3"),
        ErrorCase(#"title"#, .unexpectedToken, column: 6,
                  "expected a comparison operator (==, !=, <, <=, >, >=) after 'title', found end of query at column 6"),
        ErrorCase(#"title == "a" "b""#, .unexpectedToken, column: 14,
                  #"unexpected string "b"; expected '&&', '||' or the end of the query at column 14"#),
        // values
        ErrorCase("title ==", .unexpectedToken, column: 9,
                  "expected a value (string, number, $time, NULL, true or false) after '==', found end of query at column 9"),
        ErrorCase("title == Paris", .unexpectedToken, column: 10,
                  "expected a value after '==', found 'Paris' (strings need quotes) at column 10"),
        ErrorCase("title == null", .unexpectedToken, column: 10,
                  "expected a value after '==', found 'null' (did you mean NULL?) at column 10"),
        ErrorCase("title == (1)", .unexpectedToken, column: 10,
                  "expected a value (string, number, $time, NULL, true or false) after '==', found '(' at column 10"),
        ErrorCase("a < NULL", .invalidNullComparison, column: 3, "NULL can only be compared with == or !=, not < at column 3"),
        ErrorCase("a >= nil", .invalidNullComparison, column: 3, "NULL can only be compared with == or !=, not >= at column 3"),
        // numbers
        ErrorCase("a == 1.2.3", .invalidNumber, column: 6, "invalid number '1.2.3' at column 6"),
        ErrorCase("a == 0x", .invalidNumber, column: 6, "invalid number '0x' at column 6"),
        ErrorCase("a == 0xZZ", .invalidNumber, column: 6, "invalid number '0xZZ' at column 6"),
        ErrorCase("a == 1e999", .invalidNumber, column: 6, "number '1e999' is out of range at column 6"),
        ErrorCase("a == 3-4", .invalidNumber, column: 6, "invalid number '3-4' at column 6"),
        ErrorCase("a == -", .unexpectedCharacter, column: 6, "unexpected character '-' at column 6"),
        // $time
        ErrorCase("d > $now", .unknownTimeVariable, column: 5,
                  "expected '$time.' followed by a variable name, found '$now' at column 5"),
        ErrorCase("d > $time", .unknownTimeVariable, column: 5,
                  "expected '$time.' followed by a variable name, found '$time' at column 5"),
        ErrorCase("d > $time.Today", .unknownTimeVariable, column: 5,
                  "unknown $time variable '$time.Today' (expected $time.now, $time.today, $time.yesterday, "
                      + "$time.this_week, $time.last_week, $time.this_month, $time.this_year or $time.iso(…)) at column 5"),
        ErrorCase("d > $time.today(", .invalidTimeExpression, column: 17, "expected a number in $time.today(…) at column 17"),
        ErrorCase("d > $time.today(x)", .invalidTimeExpression, column: 17, "expected a number in $time.today(…) at column 17"),
        ErrorCase("d > $time.today(-1", .invalidTimeExpression, column: 19,
                  "expected ')' to close '$time.today(' opened at column 16 at column 19"),
        ErrorCase("d > $time.today(-1.5)", .invalidTimeExpression, column: 17,
                  "the offset of $time.today must be a whole number of days at column 17"),
        ErrorCase("d > $time.now(-1.5d)", .invalidTimeExpression, column: 15,
                  "the offset of $time.now must be a whole number of days at column 15"),
        ErrorCase("d > $time.now(5x)", .invalidTimeExpression, column: 16,
                  "unknown time unit 'x' (expected s, m, h, d, w, M or y) at column 16"),
        ErrorCase("d > $time.now(1e20)", .invalidTimeExpression, column: 15, "$time offset '1e20' is out of range at column 15"),
        ErrorCase("d > $time.iso", .invalidTimeExpression, column: 14, "expected '(' after $time.iso at column 14"),
        ErrorCase("d > $time.iso(2025-02-30)", .invalidTimeExpression, column: 15,
                  "invalid ISO-8601 date '2025-02-30' (expected YYYY-MM-DD or YYYY-MM-DDThh:mm[:ss[.f]][Z|±hh:mm]) at column 15"),
        ErrorCase("d > $time.iso(2025-3-1)", .invalidTimeExpression, column: 15,
                  "invalid ISO-8601 date '2025-3-1' (expected YYYY-MM-DD or YYYY-MM-DDThh:mm[:ss[.f]][Z|±hh:mm]) at column 15"),
        ErrorCase("d > $time.iso(2025-03-01T25:00)", .invalidTimeExpression, column: 15,
                  "invalid ISO-8601 date '2025-03-01T25:00' (expected YYYY-MM-DD or YYYY-MM-DDThh:mm[:ss[.f]][Z|±hh:mm]) at column 15"),
        ErrorCase("d > $time.iso(2025-03-01Z)", .invalidTimeExpression, column: 15,
                  "invalid ISO-8601 date '2025-03-01Z' (expected YYYY-MM-DD or YYYY-MM-DDThh:mm[:ss[.f]][Z|±hh:mm]) at column 15"),
        ErrorCase("d > $time.iso()", .invalidTimeExpression, column: 15,
                  "invalid ISO-8601 date '' (expected YYYY-MM-DD or YYYY-MM-DDThh:mm[:ss[.f]][Z|±hh:mm]) at column 15"),
        ErrorCase("d > $time.iso(2025-03-01", .invalidTimeExpression, column: 25,
                  "expected ')' to close '$time.iso(' at column 25"),
        ErrorCase(#"d > $time.iso("2025-03-01)"#, .unterminatedString, column: 15,
                  "unterminated string starting at column 15"),
        // InRange
        ErrorCase("InRange(a, 1, 2, 3)", .inRangeArity, column: 1,
                  "InRange takes 3 arguments (attribute, lower bound, upper bound), found 4 at column 1"),
        ErrorCase("InRange()", .inRangeArity, column: 1,
                  "InRange takes 3 arguments (attribute, lower bound, upper bound), found 0 at column 1"),
        ErrorCase("a == 1 && inRange(a)", .inRangeArity, column: 11,
                  "InRange takes 3 arguments (attribute, lower bound, upper bound), found 1 at column 11"),
        ErrorCase("InRange(a, 1, 2", .unexpectedToken, column: 16,
                  "expected ',' or ')' in InRange, found end of query at column 16"),
        ErrorCase("InRange a, 1, 2)", .unexpectedToken, column: 9,
                  "expected '(' after InRange, found 'a' at column 9"),
        ErrorCase("InRange(a, (1), 2)", .unexpectedToken, column: 12,
                  "expected an InRange argument, found '(' at column 12"),
        ErrorCase(#"InRange(a, "1", 2)"#, .invalidRangeBound, column: 12,
                  #"InRange bounds must be numbers or $time values, found string "1" at column 12"#),
        ErrorCase("InRange(a, 1, NULL)", .invalidRangeBound, column: 15,
                  "InRange bounds must be numbers or $time values, found keyword 'NULL' at column 15"),
        ErrorCase("InRange(5, 1, 2)", .unexpectedToken, column: 9,
                  "InRange's first argument must be an attribute name, found number 5 at column 9"),
        ErrorCase("InRange == 3", .unexpectedToken, column: 9, "expected '(' after InRange, found '==' at column 9"),
        // structure
        ErrorCase("(a == 1", .unbalancedParentheses, column: 8,
                  "expected ')' to close the '(' at column 1, found end of query at column 8"),
        ErrorCase("a == 1)", .unbalancedParentheses, column: 7, "unmatched ')' at column 7"),
        ErrorCase("()", .unexpectedToken, column: 2, "unexpected ')'; expected a comparison at column 2"),
        ErrorCase("a == 1 &&", .unexpectedToken, column: 10, "unexpected end of query; expected a comparison at column 10"),
        ErrorCase("&& a == 1", .unexpectedToken, column: 1, "expected a comparison, found '&&' at column 1"),
        ErrorCase("a == 1 || || b == 2", .unexpectedToken, column: 11, "expected a comparison, found '||' at column 11"),
        ErrorCase("!", .unexpectedToken, column: 2, "unexpected end of query; expected a comparison at column 2"),
        ErrorCase(#""x" == title"#, .unexpectedToken, column: 1, #"expected a comparison, found string "x" at column 1"#),
        ErrorCase("NULL == a", .unexpectedToken, column: 1, "expected an attribute name, found keyword 'NULL' at column 1"),
        ErrorCase("true == 1", .unexpectedToken, column: 6,
                  "unexpected '=='; expected '&&', '||' or the end of the query at column 6"),
        ErrorCase("*** == 1", .unexpectedToken, column: 3,
                  "expected a comparison operator (==, !=, <, <=, >, >=) after '**', found '*' at column 3"),
        ErrorCase("a == 1 # comment", .unexpectedCharacter, column: 8, "unexpected character '#' at column 8"),
        ErrorCase("a == @", .unexpectedCharacter, column: 6, "unexpected character '@' at column 6"),
        // positions on later lines and after wide characters
        ErrorCase("a == 1 &&\n  b === 2", .unknownOperator, column: 5,
                  "unknown operator '===' (expected ==, =, !=, <, <=, > or >=) at line 2, column 5"),
        ErrorCase("été == 'x' && é\u{301} == ", .unexpectedToken, column: 20,
                  "expected a value (string, number, $time, NULL, true or false) after '==', found end of query at column 20"),
    ]

    @Test(arguments: cases)
    func error(_ c: ErrorCase) {
        #expect(throws: QueryParseError.self) { try QueryParser.parse(c.query) }
        do {
            let expression = try QueryParser.parse(c.query)
            Issue.record("parsed as \(expression)")
        } catch {
            #expect(error.code == c.code)
            #expect(error.column == c.column)
            #expect(error.message == c.message)
            #expect(error.description == error.message)
        }
    }

    @Test func positionFields() {
        do {
            _ = try QueryParser.parse("a == 1 &&\r\n  b === 2")
            Issue.record("parsed")
        } catch {
            #expect(error.line == 2)
            #expect(error.column == 5)
            #expect(error.offset == 14)  // "a == 1 &&" (9) + CRLF (1 character) + "  b " (4)
            #expect(error.reason == "unknown operator '===' (expected ==, =, !=, <, <=, > or >=)")
        }
    }

    @Test func compiledQueryReportsParseErrors() {
        #expect(throws: QueryParseError.self) {
            try CompiledQuery(parsing: "title ==", now: TestClock.now, calendar: TestClock.calendar)
        }
    }
}
