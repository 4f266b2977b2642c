/// Reads `$time` expressions: `$time.today`, `$time.today(-1)`, `$time.now(-30d)`, `$time.iso(2025-03-01)`.
enum TimeLexer {
    /// Reads a `$time` expression starting at the `$` at `index` and moves past it.
    static func lex(_ source: SourceText, at index: inout Int) throws(QueryParseError) -> TimeExpression {
        let start = index
        index += 1
        while let scalar = source[index], scalar.isASCII, Lexer.isASCIILetter(scalar) || scalar == "_" || scalar == "."
            || ("0"..."9").contains(scalar)
        {
            index += 1
        }
        let word = source.slice(start + 1..<index)
        guard word.hasPrefix("time.") else {
            throw source.error(.unknownTimeVariable,
                               "expected '$time.' followed by a variable name, found '$\(word)'", atScalar: start)
        }
        let name = String(word.dropFirst("time.".count))
        if name == "iso" {
            return .iso(try lexISO(source, at: &index, dollar: start))
        }
        guard let anchor = TimeAnchor(rawValue: name) else {
            let known = TimeAnchor.allCases.map { "$time.\($0.rawValue)" }.joined(separator: ", ")
            throw source.error(.unknownTimeVariable,
                               "unknown $time variable '$time.\(name)' (expected \(known) or $time.iso(…))",
                               atScalar: start)
        }
        guard source[index] == "(" else {
            return .relative(anchor, offset: 0, unit: nil)
        }
        let (offset, unit) = try lexOffset(source, at: &index, anchor: anchor, dollar: start)
        return .relative(anchor, offset: offset, unit: unit)
    }

    /// `(N)` or `(N unit)` after a `$time` anchor.
    private static func lexOffset(_ source: SourceText, at index: inout Int, anchor: TimeAnchor, dollar: Int)
        throws(QueryParseError) -> (Double, TimeUnit?)
    {
        let open = index
        index += 1
        skipWhitespace(source, &index)
        let numberStart = index
        var negative = false
        if source[index] == "+" || source[index] == "-" {
            negative = source[index] == "-"
            index += 1
        }
        let digitsStart = index
        while let scalar = source[index], ("0"..."9").contains(scalar) || scalar == "." { index += 1 }
        if source[index] == "e" || source[index] == "E" {
            var i = index + 1
            if source[i] == "+" || source[i] == "-" { i += 1 }
            if let scalar = source[i], ("0"..."9").contains(scalar) {
                index = i
                while let scalar = source[index], ("0"..."9").contains(scalar) { index += 1 }
            }
        }
        let digits = source.slice(digitsStart..<index)
        guard !digits.isEmpty, let magnitude = Double(digits), magnitude.isFinite else {
            throw source.error(.invalidTimeExpression,
                               "expected a number in $time.\(anchor.rawValue)(…)", atScalar: numberStart)
        }
        var unit: TimeUnit? = nil
        if let scalar = source[index], Lexer.isASCIILetter(scalar) {
            guard let parsed = TimeUnit(rawValue: String(scalar)) else {
                throw source.error(.invalidTimeExpression,
                                   "unknown time unit '\(scalar)' (expected s, m, h, d, w, M or y)", atScalar: index)
            }
            unit = parsed
            index += 1
        }
        skipWhitespace(source, &index)
        guard source[index] == ")" else {
            throw source.error(.invalidTimeExpression,
                               "expected ')' to close '$time.\(anchor.rawValue)(' opened at column "
                                   + "\(source.position(ofScalar: open).column)",
                               atScalar: index)
        }
        index += 1
        let effectiveUnit = unit ?? anchor.defaultUnit
        if !effectiveUnit.isFixedLength && magnitude != magnitude.rounded() {
            throw source.error(.invalidTimeExpression,
                               "the offset of $time.\(anchor.rawValue) must be a whole number of "
                                   + "\(effectiveUnit.name)s", atScalar: numberStart)
        }
        guard magnitude < 1e12 else {
            throw source.error(.invalidTimeExpression, "$time offset '\(digits)' is out of range", atScalar: numberStart)
        }
        return (negative ? -magnitude : magnitude, unit)
    }

    /// `(date)` after `$time.iso`; the date may be bare or quoted.
    private static func lexISO(_ source: SourceText, at index: inout Int, dollar: Int)
        throws(QueryParseError) -> ISODateTime
    {
        guard source[index] == "(" else {
            throw source.error(.invalidTimeExpression, "expected '(' after $time.iso", atScalar: index)
        }
        index += 1
        skipWhitespace(source, &index)
        let textStart: Int
        let textEnd: Int
        if let quote = source[index], quote == "\"" || quote == "'" {
            index += 1
            textStart = index
            while let scalar = source[index], scalar != quote { index += 1 }
            guard source[index] == quote else {
                throw source.error(.unterminatedString, "unterminated string", location: "starting at",
                                   atScalar: textStart - 1)
            }
            textEnd = index
            index += 1
            skipWhitespace(source, &index)
        } else {
            textStart = index
            while let scalar = source[index], scalar != ")", !scalar.properties.isWhitespace { index += 1 }
            textEnd = index
            skipWhitespace(source, &index)
        }
        guard source[index] == ")" else {
            throw source.error(.invalidTimeExpression, "expected ')' to close '$time.iso('", atScalar: index)
        }
        index += 1
        let text = source.slice(textStart..<textEnd)
        guard let date = ISODateParser.parse(text) else {
            throw source.error(.invalidTimeExpression,
                               "invalid ISO-8601 date '\(text)' (expected YYYY-MM-DD or YYYY-MM-DDThh:mm[:ss[.f]][Z|±hh:mm])",
                               atScalar: textStart)
        }
        return date
    }

    private static func skipWhitespace(_ source: SourceText, _ index: inout Int) {
        while let scalar = source[index], scalar.properties.isWhitespace { index += 1 }
    }
}

extension TimeUnit {
    /// The unit's English name, for messages.
    var name: String {
        switch self {
        case .second: "second"
        case .minute: "minute"
        case .hour: "hour"
        case .day: "day"
        case .week: "week"
        case .month: "month"
        case .year: "year"
        }
    }
}
