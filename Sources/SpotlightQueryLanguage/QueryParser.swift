import SpotlightText

/// Parses query strings of the Spotlight query language into ``QueryExpression`` trees.
///
/// ```swift
/// let expression = try QueryParser.parse(#"(authorNames == "Steve"wc) && InRange(rankingHint, 10, 60)"#)
/// ```
///
/// The grammar is §17.2 of the spec (reproduced in `Documentation/QueryLanguage.md`): `||` binds loosest, then
/// `&&`, then `!`; both binary operators are n-ary and keep parentheses as written. Every malformed query throws
/// a ``QueryParseError`` that says where and why; no input crashes the parser.
public enum QueryParser {
    /// How deeply parentheses and `!` may nest; deeper queries fail with ``QueryParseError/Code/tooDeep``
    /// rather than exhausting the stack.
    public static let maximumNesting = 200

    /// Parses a query string.
    ///
    /// - Parameter query: a query such as `title == "paris*"cd && rankingHint >= 50`.
    /// - Returns: the expression tree.
    /// - Throws: ``QueryParseError`` for any syntax error, unknown operator, modifier or `$time` name, `InRange`
    ///   with other than three arguments, and for an empty query.
    public static func parse(_ query: String) throws(QueryParseError) -> QueryExpression {
        let source = SourceText(query)
        var parser = Parser(source: source, tokens: try Lexer.tokenize(source))
        return try parser.parseQuery()
    }
}

/// Recursive descent over the token list.
struct Parser {
    let source: SourceText
    let tokens: [Token]
    var position = 0
    var depth = 0

    init(source: SourceText, tokens: [Token]) {
        self.source = source
        self.tokens = tokens
    }

    var current: Token { tokens[min(position, tokens.count - 1)] }

    mutating func advance() -> Token {
        let token = current
        if position < tokens.count - 1 { position += 1 }
        return token
    }

    func error(_ code: QueryParseError.Code, _ reason: String, at token: Token) -> QueryParseError {
        source.error(code, reason, atScalar: token.range.lowerBound)
    }

    // MARK: - Expressions

    mutating func parseQuery() throws(QueryParseError) -> QueryExpression {
        if current.kind == .end {
            throw source.error(.emptyQuery, "empty query", atScalar: 0)
        }
        let expression = try parseOr()
        switch current.kind {
        case .end:
            return expression
        case .rightParen:
            throw error(.unbalancedParentheses, "unmatched ')'", at: current)
        default:
            throw error(.unexpectedToken,
                        "unexpected \(current.describe(in: source)); expected '&&', '||' or the end of the query",
                        at: current)
        }
    }

    mutating func parseOr() throws(QueryParseError) -> QueryExpression {
        var operands = [try parseAnd()]
        while current.kind == .or {
            _ = advance()
            operands.append(try parseAnd())
        }
        return operands.count == 1 ? operands[0] : .or(operands)
    }

    mutating func parseAnd() throws(QueryParseError) -> QueryExpression {
        var operands = [try parseUnary()]
        while current.kind == .and {
            _ = advance()
            operands.append(try parseUnary())
        }
        return operands.count == 1 ? operands[0] : .and(operands)
    }

    mutating func parseUnary() throws(QueryParseError) -> QueryExpression {
        guard current.kind == .not else { return try parsePrimary() }
        let bang = advance()
        try enter(bang)
        defer { depth -= 1 }
        return .not(try parseUnary())
    }

    mutating func enter(_ token: Token) throws(QueryParseError) {
        depth += 1
        if depth > QueryParser.maximumNesting {
            throw error(.tooDeep, "the query nests more than \(QueryParser.maximumNesting) levels deep", at: token)
        }
    }

    mutating func parsePrimary() throws(QueryParseError) -> QueryExpression {
        let token = current
        switch token.kind {
        case .leftParen:
            _ = advance()
            try enter(token)
            defer { depth -= 1 }
            let inner = try parseOr()
            guard current.kind == .rightParen else {
                let column = source.position(ofScalar: token.range.lowerBound).column
                throw error(.unbalancedParentheses,
                            "expected ')' to close the '(' at column \(column), found \(current.describe(in: source))",
                            at: current)
            }
            _ = advance()
            return inner
        case .identifier("true"), .identifier("false"):
            _ = advance()
            return .constant(token.kind == .identifier("true"))
        case .identifier where token.isInRangeKeyword:
            return .inRange(try parseInRange())
        case .identifier, .star, .doubleStar:
            return .comparison(try parseComparison())
        case .end:
            throw error(.unexpectedToken, "unexpected end of query; expected a comparison", at: token)
        case .rightParen:
            throw error(.unexpectedToken, "unexpected ')'; expected a comparison", at: token)
        default:
            throw error(.unexpectedToken, "expected a comparison, found \(token.describe(in: source))", at: token)
        }
    }

    // MARK: - Comparisons

    mutating func parseAttribute(context: String) throws(QueryParseError) -> AttributeReference {
        let token = advance()
        switch token.kind {
        case .star, .doubleStar:
            return .anyText
        case .identifier(let name) where !Token.keywords.contains(name):
            return .named(name)
        default:
            throw error(.unexpectedToken, "expected an attribute name\(context), found \(token.describe(in: source))",
                        at: token)
        }
    }

    mutating func parseComparison() throws(QueryParseError) -> Comparison {
        let attributeToken = current
        let attribute = try parseAttribute(context: "")
        let operatorToken = advance()
        guard case .comparison(let op) = operatorToken.kind else {
            throw error(.unexpectedToken,
                        "expected a comparison operator (==, !=, <, <=, >, >=) after "
                            + "\(source.quoted(attributeToken.range)), found \(operatorToken.describe(in: source))",
                        at: operatorToken)
        }
        var bracketModifiers: StringModifiers? = nil
        let modifiersToken = current
        if case .modifiers(let modifiers) = current.kind {
            bracketModifiers = modifiers
            _ = advance()
        }
        let valueToken = advance()
        let value: QueryLiteral
        switch valueToken.kind {
        case .string(let pattern, let modifiers):
            value = .string(StringPattern(pattern: pattern, modifiers: modifiers.union(bracketModifiers ?? [])))
        case .number(let number):
            value = .number(number)
        case .time(let time):
            value = .time(time)
        case .identifier("NULL"), .identifier("nil"):
            guard !op.isRelational else {
                throw error(.invalidNullComparison,
                            "NULL can only be compared with == or !=, not \(op.rawValue)", at: operatorToken)
            }
            value = .null
        case .identifier("true"), .identifier("false"):
            value = .bool(valueToken.kind == .identifier("true"))
        case .identifier(let name):
            let hint = name.lowercased() == "null" ? " (did you mean NULL?)" : " (strings need quotes)"
            throw error(.unexpectedToken,
                        "expected a value after '\(op.rawValue)', found \(source.quoted(valueToken.range))\(hint)",
                        at: valueToken)
        default:
            throw error(.unexpectedToken,
                        "expected a value (string, number, $time, NULL, true or false) after '\(op.rawValue)', "
                            + "found \(valueToken.describe(in: source))",
                        at: valueToken)
        }
        if let bracketModifiers, !bracketModifiers.isEmpty, !isString(value) {
            throw error(.modifierOnNonString, "modifiers [\(bracketModifiers)] apply only to strings", at: modifiersToken)
        }
        return Comparison(attribute: attribute, operator: op, value: value)
    }

    private func isString(_ value: QueryLiteral) -> Bool {
        if case .string = value { return true }
        return false
    }

    // MARK: - InRange

    /// `InRange(attribute, lower, upper)`: the arguments are counted before they are checked, so a wrong count
    /// is reported as such.
    mutating func parseInRange() throws(QueryParseError) -> InRangeTest {
        let keyword = advance()
        guard current.kind == .leftParen else {
            throw error(.unexpectedToken, "expected '(' after InRange, found \(current.describe(in: source))",
                        at: current)
        }
        _ = advance()
        var arguments: [Token] = []
        if current.kind != .rightParen {
            while true {
                let argument = advance()
                switch argument.kind {
                case .identifier, .star, .doubleStar, .string, .number, .time:
                    arguments.append(argument)
                default:
                    throw error(.unexpectedToken,
                                "expected an InRange argument, found \(argument.describe(in: source))", at: argument)
                }
                if current.kind == .comma {
                    _ = advance()
                    continue
                }
                if current.kind == .rightParen { break }
                throw error(.unexpectedToken,
                            "expected ',' or ')' in InRange, found \(current.describe(in: source))", at: current)
            }
        }
        _ = advance()  // ")"
        guard arguments.count == 3 else {
            throw error(.inRangeArity,
                        "InRange takes 3 arguments (attribute, lower bound, upper bound), found \(arguments.count)",
                        at: keyword)
        }
        let attribute: AttributeReference
        switch arguments[0].kind {
        case .star, .doubleStar:
            attribute = .anyText
        case .identifier(let name) where !Token.keywords.contains(name):
            attribute = .named(name)
        default:
            throw error(.unexpectedToken,
                        "InRange's first argument must be an attribute name, found "
                            + "\(arguments[0].describe(in: source))",
                        at: arguments[0])
        }
        return InRangeTest(attribute: attribute,
                           lowerBound: try rangeBound(arguments[1]),
                           upperBound: try rangeBound(arguments[2]))
    }

    func rangeBound(_ token: Token) throws(QueryParseError) -> RangeBound {
        switch token.kind {
        case .number(let number): return .number(number)
        case .time(let time): return .time(time)
        default:
            throw error(.invalidRangeBound,
                        "InRange bounds must be numbers or $time values, found \(token.describe(in: source))",
                        at: token)
        }
    }
}
