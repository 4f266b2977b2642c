import SpotlightText

/// Cuts a query string into tokens (§17.1 of the spec).
///
/// Whitespace between tokens is ignored; suffix modifiers must follow a closing quote directly. `$time`
/// expressions, including `$time.iso(…)` with its unquoted date, are single tokens.
struct Lexer {
    let source: SourceText
    private(set) var index = 0

    init(_ source: SourceText) {
        self.source = source
    }

    /// Every token of the source, ending with `.end`.
    static func tokenize(_ source: SourceText) throws(QueryParseError) -> [Token] {
        var lexer = Lexer(source)
        var tokens: [Token] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    /// The next token.
    mutating func next() throws(QueryParseError) -> Token {
        skipWhitespace()
        let start = index
        guard let scalar = source[index] else {
            return Token(kind: .end, range: start..<start)
        }
        let kind: Token.Kind
        switch scalar {
        case "(": index += 1; kind = .leftParen
        case ")": index += 1; kind = .rightParen
        case ",": index += 1; kind = .comma
        case "*":
            index += 1
            if source[index] == "*" {
                index += 1
                kind = .doubleStar
            } else {
                kind = .star
            }
        case "\"", "'":
            kind = try lexString()
        case "[":
            kind = .modifiers(try lexBracketModifiers())
        case "$":
            kind = .time(try TimeLexer.lex(source, at: &index))
        case "&", "|":
            kind = try lexLogical(scalar)
        case "!", "=", "<", ">":
            kind = try lexComparisonOrNot()
        case "0"..."9", ".", "+", "-":
            guard Self.startsNumber(source, at: index) else {
                throw source.error(.unexpectedCharacter, "unexpected character '\(scalar)'", atScalar: index)
            }
            kind = .number(try NumberLexer.lex(source, at: &index))
        default:
            if Self.isIdentifierStart(scalar) {
                kind = .identifier(lexIdentifier())
            } else if scalar == "\u{201C}" || scalar == "\u{201D}" || scalar == "\u{2018}" || scalar == "\u{2019}" {
                throw source.error(.unexpectedCharacter,
                                   "curly quote '\(scalar)' is not a string delimiter (use \" or ')", atScalar: index)
            } else {
                throw source.error(.unexpectedCharacter, "unexpected character '\(scalar)'", atScalar: index)
            }
        }
        return Token(kind: kind, range: start..<index)
    }

    private mutating func skipWhitespace() {
        while let scalar = source[index], scalar.properties.isWhitespace { index += 1 }
    }

    // MARK: - Identifiers

    static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || (scalar.isASCII ? isASCIILetter(scalar) : scalar.properties.isAlphabetic)
    }

    static func isIdentifierContinuation(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            return isASCIILetter(scalar) || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "."
                || scalar == ":" || scalar == "-"
        }
        return scalar.properties.isAlphabetic || scalar.properties.numericType != nil
            || scalar.properties.generalCategory == .nonspacingMark
            || scalar.properties.generalCategory == .spacingMark
    }

    static func isASCIILetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    private mutating func lexIdentifier() -> String {
        let start = index
        index += 1
        while let scalar = source[index], Self.isIdentifierContinuation(scalar) { index += 1 }
        return source.slice(start..<index)
    }

    // MARK: - Operators

    private mutating func lexLogical(_ scalar: Unicode.Scalar) throws(QueryParseError) -> Token.Kind {
        let start = index
        while source[index] == scalar { index += 1 }
        let text = source.slice(start..<index)
        if index - start == 2 { return scalar == "&" ? .and : .or }
        let hint = scalar == "&" ? " (use '&&')" : " (use '||')"
        throw source.error(.unknownOperator, "unknown operator '\(text)'\(hint)", atScalar: start)
    }

    private mutating func lexComparisonOrNot() throws(QueryParseError) -> Token.Kind {
        let start = index
        if source[index] == "!" {
            index += 1
            guard source[index] == "=" else { return .not }
        }
        while let scalar = source[index], scalar == "=" || scalar == "<" || scalar == ">" { index += 1 }
        let text = source.slice(start..<index)
        switch text {
        case "==", "=": return .comparison(.equal)
        case "!=": return .comparison(.notEqual)
        case "<": return .comparison(.less)
        case "<=": return .comparison(.lessOrEqual)
        case ">": return .comparison(.greater)
        case ">=": return .comparison(.greaterOrEqual)
        default:
            throw source.error(.unknownOperator,
                               "unknown operator '\(text)' (expected ==, =, !=, <, <=, > or >=)", atScalar: start)
        }
    }

    // MARK: - Strings and modifiers

    /// A quoted string: `\` makes the next character literal; unescaped `*` and `?` are wildcards.
    private mutating func lexString() throws(QueryParseError) -> Token.Kind {
        let start = index
        guard let quote = source[index] else { throw source.error(.unexpectedToken, "expected a string", atScalar: start) }
        index += 1
        var elements: [WildcardPattern.Element] = []
        var literal = String.UnicodeScalarView()
        func flush() {
            if !literal.isEmpty {
                elements.append(.literal(String(literal)))
                literal = String.UnicodeScalarView()
            }
        }
        while true {
            guard let scalar = source[index] else {
                throw source.error(.unterminatedString, "unterminated string", location: "starting at", atScalar: start)
            }
            index += 1
            switch scalar {
            case quote:
                flush()
                let modifiers = try lexSuffixModifiers()
                return .string(WildcardPattern(elements), modifiers)
            case "\\":
                guard let escaped = source[index] else {
                    throw source.error(.unterminatedString, "unterminated string", location: "starting at",
                                       atScalar: start)
                }
                literal.append(escaped)
                index += 1
            case "*":
                flush()
                elements.append(.anyRun)
            case "?":
                flush()
                elements.append(.anyCharacter)
            default:
                literal.append(scalar)
            }
        }
    }

    /// Letters right after a closing quote.
    private mutating func lexSuffixModifiers() throws(QueryParseError) -> StringModifiers {
        var modifiers: StringModifiers = []
        while let scalar = source[index], Self.isIdentifierContinuation(scalar) {
            guard let modifier = StringModifiers(letter: Character(scalar)) else {
                throw source.error(.invalidModifier,
                                   "unknown modifier '\(scalar)' (expected c, d, w or t)", atScalar: index)
            }
            modifiers.insert(modifier)
            index += 1
        }
        return modifiers
    }

    /// `[cdwt]`, whitespace allowed inside.
    private mutating func lexBracketModifiers() throws(QueryParseError) -> StringModifiers {
        let start = index
        index += 1
        var modifiers: StringModifiers = []
        while true {
            skipWhitespace()
            guard let scalar = source[index] else {
                throw source.error(.invalidModifier, "unterminated modifier list", location: "starting at",
                                   atScalar: start)
            }
            if scalar == "]" {
                index += 1
                return modifiers
            }
            guard let modifier = StringModifiers(letter: Character(scalar)) else {
                throw source.error(.invalidModifier,
                                   "unknown modifier '\(scalar)' (expected c, d, w or t)", atScalar: index)
            }
            modifiers.insert(modifier)
            index += 1
        }
    }

    // MARK: - Numbers

    /// Whether a number starts here: a digit, `.digit`, or a sign before either.
    static func startsNumber(_ source: SourceText, at index: Int) -> Bool {
        var i = index
        if source[i] == "+" || source[i] == "-" { i += 1 }
        if let scalar = source[i], ("0"..."9").contains(scalar) { return true }
        if source[i] == ".", let next = source[i + 1], ("0"..."9").contains(next) { return true }
        return false
    }
}
