import SpotlightText

/// A token of the query language, with where it is in the source (scalar offsets).
struct Token: Sendable, Equatable {
    var kind: Kind
    /// Scalar offsets of the token's source text.
    var range: Range<Int>

    enum Kind: Sendable, Equatable {
        /// An attribute name or a keyword (`InRange`, `true`, `false`, `NULL`, `nil`).
        case identifier(String)
        /// `*`
        case star
        /// `**`
        case doubleStar
        /// A quoted string with its suffix modifiers.
        case string(WildcardPattern, StringModifiers)
        case number(Double)
        case time(TimeExpression)
        case comparison(ComparisonOperator)
        /// `[cdwt]` after an operator.
        case modifiers(StringModifiers)
        case and
        case or
        case not
        case leftParen
        case rightParen
        case comma
        case end
    }

    /// The keywords, which cannot be attribute names.
    static let keywords: Set<String> = ["InRange", "inRange", "inrange", "true", "false", "NULL", "nil"]

    /// Whether the token is an identifier spelling `InRange` (any accepted case).
    var isInRangeKeyword: Bool {
        if case .identifier(let name) = kind { return name == "InRange" || name == "inRange" || name == "inrange" }
        return false
    }

    /// How the token appears in an error message.
    func describe(in source: SourceText) -> String {
        switch kind {
        case .end: return "end of query"
        case .string: return "string \(source.slice(range))"
        case .number: return "number \(source.slice(range))"
        case .identifier(let name) where Self.keywords.contains(name): return "keyword '\(name)'"
        default: return source.quoted(range)
        }
    }
}
