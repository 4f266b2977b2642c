import Foundation

/// A query expression ready to be evaluated against many items: `$time` resolved once, string patterns folded
/// and split once.
///
/// ```swift
/// let query = try CompiledQuery(parsing: #"title == "paris"wc && lastUsedDate >= $time.this_week(-1)"#,
///                               now: Date())
/// let hits = items.filter { query.matches($0) }
/// ```
///
/// Semantics are §17.3–17.4 of the spec, summarised in `Documentation/QueryLanguage.md`:
/// - An absent attribute makes every comparison and `InRange` on it false, `!=` included; `attr == NULL` is true
///   exactly when it is absent, `attr != NULL` when present. An empty array of values counts as absent.
/// - Multi-valued attributes: `==`, `<`, `<=`, `>`, `>=` and `InRange` hold when some element satisfies them;
///   `!=` holds when the attribute has at least one value of the compared type and none equals.
/// - Values of another type than the literal (a string against a number, …) never satisfy a comparison.
/// - Relational operators never hold for strings.
/// - Date against instant (a number of seconds since 2001-01-01T00:00:00Z, `$time.now`, `$time.iso` with a
///   time) compares whole seconds; against a period `[s, e)`: `==` is `s ≤ a < e`, `<` is `a < s`, `<=` is
///   `a < e`, `>` is `a ≥ e`, `>=` is `a ≥ s`.
public struct CompiledQuery: Sendable {
    /// The expression compiled.
    public let expression: QueryExpression
    /// The start time `$time` was resolved at.
    public let now: Date
    private let root: Node

    /// Compiles an expression.
    ///
    /// - Parameters:
    ///   - expression: a parsed (or hand-built) query.
    ///   - now: the query's start time, for `$time`.
    ///   - calendar: the calendar and time zone for `$time` periods and zone-less `$time.iso` dates.
    public init(_ expression: QueryExpression, now: Date, calendar: Calendar = .current) {
        self.expression = expression
        self.now = now
        self.root = Node(expression, now: now, calendar: calendar)
    }

    /// Parses and compiles a query string.
    ///
    /// - Throws: ``QueryParseError`` if the string does not parse.
    public init(parsing query: String, now: Date, calendar: Calendar = .current) throws(QueryParseError) {
        self.init(try QueryParser.parse(query), now: now, calendar: calendar)
    }

    /// Whether an item satisfies the query.
    public func matches(_ item: some QueryItem) -> Bool {
        root.evaluate(item)
    }
}

/// A compiled expression node.
private indirect enum Node: Sendable {
    case constant(Bool)
    case not(Node)
    case and([Node])
    case or([Node])
    /// `== NULL` (`present` false) or `!= NULL` (`present` true).
    case presence(AttributeReference, present: Bool)
    case text(AttributeReference, negated: Bool, StringMatcher)
    case number(AttributeReference, ComparisonOperator, Double)
    case time(AttributeReference, ComparisonOperator, ResolvedTime)
    case range(AttributeReference, Bound, Bound)

    /// An `InRange` bound after `$time` resolution.
    enum Bound: Sendable {
        case number(Double)
        case time(ResolvedTime)
    }

    init(_ expression: QueryExpression, now: Date, calendar: Calendar) {
        func compile(_ e: QueryExpression) -> Node { Node(e, now: now, calendar: calendar) }
        switch expression {
        case .constant(let value):
            self = .constant(value)
        case .not(let operand):
            self = .not(compile(operand))
        case .and(let operands):
            self = .and(operands.map(compile))
        case .or(let operands):
            self = .or(operands.map(compile))
        case .inRange(let test):
            func bound(_ b: RangeBound) -> Bound {
                switch b {
                case .number(let n): return .number(n)
                case .time(let t): return .time(t.resolve(now: now, calendar: calendar))
                }
            }
            self = .range(test.attribute, bound(test.lowerBound), bound(test.upperBound))
        case .comparison(let c):
            switch c.value {
            case .null:
                self = .presence(c.attribute, present: c.operator == .notEqual)
            case .string(let pattern):
                if c.operator.isRelational {
                    self = .constant(false)
                } else {
                    self = .text(c.attribute, negated: c.operator == .notEqual, StringMatcher(pattern))
                }
            case .number(let number):
                self = .number(c.attribute, c.operator, number)
            case .bool(let value):
                self = .number(c.attribute, c.operator, value ? 1 : 0)
            case .time(let time):
                self = .time(c.attribute, c.operator, time.resolve(now: now, calendar: calendar))
            }
        }
    }

    func evaluate(_ item: some QueryItem) -> Bool {
        switch self {
        case .constant(let value):
            return value
        case .not(let operand):
            return !operand.evaluate(item)
        case .and(let operands):
            return operands.allSatisfy { $0.evaluate(item) }
        case .or(let operands):
            return operands.contains { $0.evaluate(item) }
        case .presence(let attribute, let present):
            return (Self.values(attribute, item) != nil) == present
        case .text(let attribute, let negated, let matcher):
            guard let values = Self.values(attribute, item) else { return false }
            return Self.compare(values, negated: negated) { value in
                guard case .string(let s) = value else { return nil }
                return matcher.matches(s)
            }
        case .number(let attribute, let op, let number):
            guard let values = Self.values(attribute, item) else { return false }
            return Self.compare(values, op) { value in
                switch value {
                case .number(let x): return Self.order(x, op, number)
                case .date(let d): return Self.order(d.timeIntervalSinceReferenceDate.rounded(.down), op,
                                                     number.rounded(.down))
                case .string: return nil
                }
            }
        case .time(let attribute, let op, let time):
            guard let values = Self.values(attribute, item) else { return false }
            return Self.compare(values, op) { value in
                guard case .date(let d) = value else { return nil }
                return Self.order(d, op, time)
            }
        case .range(let attribute, let lower, let upper):
            guard let values = Self.values(attribute, item) else { return false }
            return values.contains { value in Self.inRange(value, lower, upper) == true }
        }
    }

    // MARK: - Values

    /// The attribute's values, or `nil` when absent (no values at all).
    static func values(_ attribute: AttributeReference, _ item: some QueryItem) -> [QueryValue]? {
        let values: [QueryValue]?
        switch attribute {
        case .anyText: values = item.defaultSearchableText().map(QueryValue.string)
        case .named(let name): values = item.queryValues(forAttribute: name)
        }
        guard let values, !values.isEmpty else { return nil }
        return values
    }

    /// Applies an operator over a multi-valued attribute. `test` says whether one value satisfies the operator
    /// (for `!=`: whether it is *equal*), or `nil` if its type does not compare with the literal.
    static func compare(_ values: [QueryValue], _ op: ComparisonOperator, _ test: (QueryValue) -> Bool?) -> Bool {
        compare(values, negated: op == .notEqual, test)
    }

    static func compare(_ values: [QueryValue], negated: Bool, _ test: (QueryValue) -> Bool?) -> Bool {
        guard negated else { return values.contains { test($0) == true } }
        var sawComparable = false
        for value in values {
            guard let equal = test(value) else { continue }
            if equal { return false }
            sawComparable = true
        }
        return sawComparable
    }

    /// `a op b` for numbers; `!=` is answered as `==` (the caller negates).
    static func order(_ a: Double, _ op: ComparisonOperator, _ b: Double) -> Bool {
        switch op {
        case .equal, .notEqual: return a == b
        case .less: return a < b
        case .lessOrEqual: return a <= b
        case .greater: return a > b
        case .greaterOrEqual: return a >= b
        }
    }

    /// `date op time` per §17.4; `!=` is answered as `==` (the caller negates).
    static func order(_ date: Date, _ op: ComparisonOperator, _ time: ResolvedTime) -> Bool {
        switch time {
        case .instant(let instant):
            return order(date.timeIntervalSinceReferenceDate.rounded(.down), op,
                         instant.timeIntervalSinceReferenceDate.rounded(.down))
        case .period(let start, let end):
            switch op {
            case .equal, .notEqual: return start <= date && date < end
            case .less: return date < start
            case .lessOrEqual: return date < end
            case .greater: return date >= end
            case .greaterOrEqual: return date >= start
            }
        }
    }

    /// Whether a value lies within `InRange` bounds, or `nil` if the types do not compare.
    static func inRange(_ value: QueryValue, _ lower: Bound, _ upper: Bound) -> Bool? {
        switch value {
        case .string:
            return nil
        case .number(let x):
            guard case .number(let lo) = lower, case .number(let hi) = upper else { return nil }
            return lo <= x && x <= hi
        case .date(let date):
            let seconds = date.timeIntervalSinceReferenceDate.rounded(.down)
            let aboveLower: Bool
            switch lower {
            case .number(let lo): aboveLower = seconds >= lo.rounded(.down)
            case .time(.instant(let lo)): aboveLower = seconds >= lo.timeIntervalSinceReferenceDate.rounded(.down)
            case .time(.period(let start, _)): aboveLower = date >= start
            }
            let belowUpper: Bool
            switch upper {
            case .number(let hi): belowUpper = seconds <= hi.rounded(.down)
            case .time(.instant(let hi)): belowUpper = seconds <= hi.timeIntervalSinceReferenceDate.rounded(.down)
            case .time(.period(_, let end)): belowUpper = date < end
            }
            return aboveLower && belowUpper
        }
    }
}
