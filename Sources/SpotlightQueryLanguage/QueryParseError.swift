/// Why and where a query string failed to parse.
///
/// ```swift
/// do {
///     _ = try QueryParser.parse(#"title == "Paris"#)
/// } catch {
///     print(error)  // unterminated string starting at column 10
///     error.code    // .unterminatedString
///     error.offset  // 9 (characters from the start)
/// }
/// ```
///
/// The Apple-facing layer maps every parse error to `CSSearchQueryError.invalidQuery` (−2002) and keeps
/// ``message`` as its description.
public struct QueryParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of error, for programs; extensible (new codes may be added).
    public var code: Code
    /// Why, without the location: `unterminated string`.
    public var reason: String
    /// Where the problem is, in characters (extended grapheme clusters) from the start of the query, 0-based.
    public var offset: Int
    /// The 1-based line of ``offset``.
    public var line: Int
    /// The 1-based column of ``offset`` within its line, in characters.
    public var column: Int

    /// Why and where: `unterminated string starting at column 10`, or `… at line 2, column 3` for queries of
    /// several lines.
    public var message: String

    public var description: String { message }

    /// Builds an error for a position in a query.
    ///
    /// - Parameters:
    ///   - code: the kind of error.
    ///   - reason: why, without the location.
    ///   - location: how to say where, e.g. `"at"` or `"starting at"`.
    ///   - position: the place in the query.
    init(_ code: Code, _ reason: String, location: String = "at", position: SourcePosition) {
        self.code = code
        self.reason = reason
        self.offset = position.offset
        self.line = position.line
        self.column = position.column
        let place = position.isMultiline ? "line \(position.line), column \(position.column)" : "column \(position.column)"
        self.message = "\(reason) \(location) \(place)"
    }

    /// A kind of parse error.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) {
            self.name = name
        }

        public var description: String { name }

        /// The query is empty or only whitespace.
        public static let emptyQuery = Code("emptyQuery")
        /// A character that starts no token (`#`, `@`, a curly quote, …).
        public static let unexpectedCharacter = Code("unexpectedCharacter")
        /// A token where the grammar expects something else (including the end of the query).
        public static let unexpectedToken = Code("unexpectedToken")
        /// A string without its closing quote.
        public static let unterminatedString = Code("unterminatedString")
        /// An operator that does not exist (`===`, `&`, `=>`, …).
        public static let unknownOperator = Code("unknownOperator")
        /// A modifier letter other than `c`, `d`, `w`, `t`, or `[` without `]`.
        public static let invalidModifier = Code("invalidModifier")
        /// Modifiers on something that is not a string.
        public static let modifierOnNonString = Code("modifierOnNonString")
        /// A malformed or out-of-range number.
        public static let invalidNumber = Code("invalidNumber")
        /// `$` not followed by `time.`, or an unknown `$time` variable.
        public static let unknownTimeVariable = Code("unknownTimeVariable")
        /// A malformed `$time` offset or `$time.iso(…)` date.
        public static let invalidTimeExpression = Code("invalidTimeExpression")
        /// `InRange` with other than three arguments.
        public static let inRangeArity = Code("inRangeArity")
        /// An `InRange` bound that is not a number or `$time`.
        public static let invalidRangeBound = Code("invalidRangeBound")
        /// `NULL` with an operator other than `==` and `!=`.
        public static let invalidNullComparison = Code("invalidNullComparison")
        /// A `(` without its `)`, or a stray `)`.
        public static let unbalancedParentheses = Code("unbalancedParentheses")
        /// Nesting deeper than the parser accepts.
        public static let tooDeep = Code("tooDeep")
    }
}

/// A place in a query string.
struct SourcePosition: Sendable, Hashable {
    /// Characters from the start, 0-based.
    var offset: Int
    /// 1-based line.
    var line: Int
    /// 1-based column in characters.
    var column: Int
    /// Whether the query has more than one line (the message then names the line).
    var isMultiline: Bool
}
