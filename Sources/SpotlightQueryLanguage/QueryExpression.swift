import SpotlightText

/// A parsed Spotlight query: the abstract syntax tree of the query language.
///
/// ```swift
/// let expression = try QueryParser.parse(#"title == "paris*"cd && rankingHint >= 50"#)
/// // .and([.comparison(title == "paris*"cd), .comparison(rankingHint >= 50)])
/// print(expression)  // title == "paris*"cd && rankingHint >= 50
/// ```
///
/// `description` is the canonical printed form: parsing it again gives an equal tree. `debugDescription` is a
/// fully bracketed prefix form that shows the tree's shape, e.g. `(and (== title "paris*"cd) (>= rankingHint 50))`.
/// The engine walks this tree to plan index lookups; ``CompiledQuery`` evaluates it.
public indirect enum QueryExpression: Sendable, Hashable {
    /// `true` (matches every item) or `false` (matches none).
    case constant(Bool)
    /// `!operand`.
    case not(QueryExpression)
    /// `a && b && …`: true when every operand is.
    case and([QueryExpression])
    /// `a || b || …`: true when some operand is.
    case or([QueryExpression])
    /// `attribute op value`.
    case comparison(Comparison)
    /// `InRange(attribute, lower, upper)`.
    case inRange(InRangeTest)
}

/// `attribute op value`, one comparison of the query language.
///
/// ```swift
/// // kMDItemAuthors ==[c] "Steve"
/// Comparison(attribute: .named("kMDItemAuthors"), operator: .equal,
///            value: .string(StringPattern(glob: "Steve", modifiers: .caseInsensitive)))
/// ```
public struct Comparison: Sendable, Hashable {
    /// The attribute compared.
    public var attribute: AttributeReference
    /// The comparison operator (`=` is parsed as ``ComparisonOperator/equal``).
    public var `operator`: ComparisonOperator
    /// The value compared with. Modifiers written in brackets after the operator (`==[cd]`) are merged into the
    /// string pattern's modifiers.
    public var value: QueryLiteral

    public init(attribute: AttributeReference, operator: ComparisonOperator, value: QueryLiteral) {
        self.attribute = attribute
        self.operator = `operator`
        self.value = value
    }
}

/// `InRange(attribute, lower, upper)`: inclusive at both ends for numbers and instants; see ``TimeExpression``
/// for periods.
public struct InRangeTest: Sendable, Hashable {
    /// The attribute tested.
    public var attribute: AttributeReference
    /// The lower bound.
    public var lowerBound: RangeBound
    /// The upper bound.
    public var upperBound: RangeBound

    public init(attribute: AttributeReference, lowerBound: RangeBound, upperBound: RangeBound) {
        self.attribute = attribute
        self.lowerBound = lowerBound
        self.upperBound = upperBound
    }
}

/// A bound of `InRange`: a number or a `$time` expression.
public enum RangeBound: Sendable, Hashable {
    /// A number; against a date attribute, seconds since 2001-01-01T00:00:00Z.
    case number(Double)
    /// A `$time` expression.
    case time(TimeExpression)
}

/// The attribute a comparison is about.
public enum AttributeReference: Sendable, Hashable {
    /// `*` or `**`: any text-bearing attribute (``QueryItem/defaultSearchableText()``).
    case anyText
    /// An attribute by name, exactly as written: a `CSSearchableItemAttributeSet` property (`title`), its
    /// `kMDItem…` spelling, or a custom key's name. Names are case-sensitive.
    case named(String)

    /// The attribute's name, or `nil` for ``anyText``.
    public var name: String? {
        if case .named(let name) = self { return name }
        return nil
    }
}

/// A comparison operator.
public enum ComparisonOperator: String, Sendable, Hashable, CaseIterable {
    /// `==` (also written `=`).
    case equal = "=="
    /// `!=`.
    case notEqual = "!="
    /// `<`, for numbers and dates only.
    case less = "<"
    /// `<=`, for numbers and dates only.
    case lessOrEqual = "<="
    /// `>`, for numbers and dates only.
    case greater = ">"
    /// `>=`, for numbers and dates only.
    case greaterOrEqual = ">="

    /// Whether the operator orders values (`<`, `<=`, `>`, `>=`), which never holds for strings.
    public var isRelational: Bool {
        self != .equal && self != .notEqual
    }
}

/// The right-hand side of a comparison.
public enum QueryLiteral: Sendable, Hashable {
    /// A quoted string with its wildcards and modifiers.
    case string(StringPattern)
    /// A number (integer, fixed-point, exponent or hex form); `true`/`false` are ``bool``.
    case number(Double)
    /// A `$time` expression.
    case time(TimeExpression)
    /// `NULL` or `nil`: `attr == NULL` tests absence, `attr != NULL` presence.
    case null
    /// `true` or `false`, compared as the numbers 1 and 0.
    case bool(Bool)
}

/// A quoted string of the query language: its wildcard pattern and its modifiers.
///
/// The pattern's literals are the text exactly as written (escapes removed, not folded); ``CompiledQuery`` folds
/// them per the modifiers.
public struct StringPattern: Sendable, Hashable {
    /// The text with its `*` and `?` wildcards (escaped ones are literal).
    public var pattern: WildcardPattern
    /// The modifiers from the suffix (`"…"cd`) and bracket (`==[cd]`) forms together.
    public var modifiers: StringModifiers

    public init(pattern: WildcardPattern, modifiers: StringModifiers = []) {
        self.pattern = pattern
        self.modifiers = modifiers
    }

    /// A pattern from glob text (`*`, `?` wildcards, `\` escapes) and modifiers.
    public init(glob: String, modifiers: StringModifiers = []) {
        self.init(pattern: WildcardPattern(glob: glob), modifiers: modifiers)
    }

    /// The pattern's pieces.
    public var elements: [WildcardPattern.Element] { pattern.elements }

    /// Whether the pattern is exactly `"*"` with neither `w` nor `t`: the presence test `attr == "*"`.
    public var isPresenceTest: Bool {
        pattern.matchesEverything && !modifiers.contains(.wordBased) && !modifiers.contains(.tokenized)
    }
}

/// The string-comparison modifiers `c`, `d`, `w` and `t`.
public struct StringModifiers: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// `c`: case-insensitive (Unicode case folding).
    public static let caseInsensitive = StringModifiers(rawValue: 1 << 0)
    /// `d`: diacritic-insensitive (nonspacing marks removed).
    public static let diacriticInsensitive = StringModifiers(rawValue: 1 << 1)
    /// `w`: word-based — the pattern's words must match a contiguous run of the value's words.
    public static let wordBased = StringModifiers(rawValue: 1 << 2)
    /// `t`: tokenized — every word of the pattern must match some word of the value, in any order.
    public static let tokenized = StringModifiers(rawValue: 1 << 3)

    /// The modifier of a letter (`c`, `d`, `w`, `t`), or `nil` for any other character.
    public init?(letter: Character) {
        switch letter {
        case "c": self = .caseInsensitive
        case "d": self = .diacriticInsensitive
        case "w": self = .wordBased
        case "t": self = .tokenized
        default: return nil
        }
    }

    /// The letters in canonical order `cdwt`, e.g. `"cdw"`.
    public var description: String {
        var letters = ""
        if contains(.caseInsensitive) { letters += "c" }
        if contains(.diacriticInsensitive) { letters += "d" }
        if contains(.wordBased) { letters += "w" }
        if contains(.tokenized) { letters += "t" }
        return letters
    }
}
