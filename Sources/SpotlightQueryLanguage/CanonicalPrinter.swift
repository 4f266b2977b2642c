import SpotlightText

/// The canonical printed form of query trees: what ``QueryParser/parse(_:)`` turns back into the same tree.
///
/// Canonical choices: one space around operators; `==` for `=`; `*` for `**`; double quotes; string modifiers
/// as a suffix in the order `cdwt` (bracket modifiers move there); only the parentheses the tree needs (an `||`
/// inside `&&`, a nested chain of the same operator, and always around the operand of `!` unless it is
/// `true`/`false`); numbers in their shortest form (`50`, `2.5`, `1e+20`); `NULL`.
///
/// ```swift
/// try QueryParser.parse("title ==[cd] 'Café'  &&(a=1)").description  // title == "Café"cd && a == 1
/// ```
extension QueryExpression: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        switch self {
        case .constant(let value):
            return value ? "true" : "false"
        case .not(let operand):
            if case .constant = operand { return "!" + operand.description }
            return "!(\(operand))"
        case .and(let operands):
            if operands.isEmpty { return "true" }
            return operands.map { operand in
                switch operand {
                case .and, .or: return "(\(operand))"
                default: return operand.description
                }
            }.joined(separator: " && ")
        case .or(let operands):
            if operands.isEmpty { return "false" }
            return operands.map { operand in
                if case .or = operand { return "(\(operand))" }
                return operand.description
            }.joined(separator: " || ")
        case .comparison(let comparison):
            return comparison.description
        case .inRange(let test):
            return test.description
        }
    }

    /// A fully bracketed prefix form showing the tree: `(or (== title "a") (and (not (== b 1)) true))`.
    public var debugDescription: String {
        switch self {
        case .constant(let value): return value ? "true" : "false"
        case .not(let operand): return "(not \(operand.debugDescription))"
        case .and(let operands): return "(and" + operands.map { " " + $0.debugDescription }.joined() + ")"
        case .or(let operands): return "(or" + operands.map { " " + $0.debugDescription }.joined() + ")"
        case .comparison(let c): return "(\(c.operator.rawValue) \(c.attribute) \(c.value))"
        case .inRange(let r): return "(InRange \(r.attribute) \(r.lowerBound) \(r.upperBound))"
        }
    }
}

extension Comparison: CustomStringConvertible {
    /// `attribute op value`, e.g. `title == "paris*"cd`.
    public var description: String {
        "\(attribute) \(self.operator.rawValue) \(value)"
    }
}

extension InRangeTest: CustomStringConvertible {
    /// `InRange(attribute, lower, upper)`.
    public var description: String {
        "InRange(\(attribute), \(lowerBound), \(upperBound))"
    }
}

extension AttributeReference: CustomStringConvertible {
    /// The name, or `*` for any text attribute.
    public var description: String {
        switch self {
        case .anyText: return "*"
        case .named(let name): return name
        }
    }
}

extension RangeBound: CustomStringConvertible {
    public var description: String {
        switch self {
        case .number(let number): return QueryLiteral.format(number)
        case .time(let time): return time.description
        }
    }
}

extension QueryLiteral: CustomStringConvertible {
    /// The value as written canonically: `"text"cd`, `50`, `$time.today(-1)`, `NULL`, `true`.
    public var description: String {
        switch self {
        case .string(let pattern): return pattern.description
        case .number(let number): return Self.format(number)
        case .time(let time): return time.description
        case .null: return "NULL"
        case .bool(let value): return value ? "true" : "false"
        }
    }

    /// The shortest text that reads back as the same number: integers without a fraction, others as Swift prints
    /// them (`2.5`, `1e-05`, `1e+20`).
    static func format(_ number: Double) -> String {
        if number == number.rounded(), abs(number) < 1e15 {
            return String(Int64(number))
        }
        return "\(number)"
    }
}

extension StringPattern: CustomStringConvertible {
    /// `"text"` with `"`, `\`, and literal `*`/`?` escaped, followed by the modifiers in `cdwt` order.
    public var description: String {
        "\"" + pattern.description.replacingQuotes() + "\"" + modifiers.description
    }
}

extension String {
    /// Escapes double quotes (backslashes, `*` and `?` are already escaped by ``WildcardPattern``'s glob text).
    fileprivate func replacingQuotes() -> String {
        var result = ""
        result.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            if scalar == "\"" { result += "\\" }
            result.unicodeScalars.append(scalar)
        }
        return result
    }
}

extension TimeExpression: CustomStringConvertible {
    /// `$time.today`, `$time.today(-1)`, `$time.now(-30d)`, `$time.iso(2025-03-01)`.
    public var description: String {
        switch self {
        case .iso(let date):
            return "$time.iso(\(date))"
        case .relative(let anchor, let offset, let unit):
            guard offset != 0 || unit != nil else { return "$time.\(anchor.rawValue)" }
            return "$time.\(anchor.rawValue)(\(QueryLiteral.format(offset))\(unit?.rawValue ?? ""))"
        }
    }
}
