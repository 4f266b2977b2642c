/// Reads the numbers of the query language: `-3`, `2.5`, `.5`, `1e3`, `-1.5E-2`, `0x1F`.
enum NumberLexer {
    /// Reads a number starting at `index` (which ``Lexer/startsNumber(_:at:)`` accepted) and moves past it.
    ///
    /// A number directly followed by letters, digits, `_` or `.` (`10abc`, `1.2.3`) is an error, as is one too
    /// large for a `Double`.
    static func lex(_ source: SourceText, at index: inout Int) throws(QueryParseError) -> Double {
        let start = index
        var negative = false
        if source[index] == "+" || source[index] == "-" {
            negative = source[index] == "-"
            index += 1
        }
        let value: Double?
        if source[index] == "0", source[index + 1] == "x" || source[index + 1] == "X" {
            index += 2
            let digitsStart = index
            while let scalar = source[index], scalar.properties.isASCIIHexDigit { index += 1 }
            let digits = source.slice(digitsStart..<index)
            value = digits.isEmpty ? nil : UInt64(digits, radix: 16).map { Double($0) }
        } else {
            skipDigits(source, &index)
            if source[index] == "." {
                index += 1
                skipDigits(source, &index)
            }
            if source[index] == "e" || source[index] == "E" {
                var i = index + 1
                if source[i] == "+" || source[i] == "-" { i += 1 }
                if let scalar = source[i], ("0"..."9").contains(scalar) {
                    index = i
                    skipDigits(source, &index)
                }
            }
            let unsigned = source.slice((negative || source[start] == "+" ? start + 1 : start)..<index)
            value = Double(unsigned)
        }
        // Trailing identifier characters make the whole run one bad number.
        var end = index
        while let scalar = source[end], Lexer.isIdentifierContinuation(scalar) { end += 1 }
        let text = source.slice(start..<end)
        guard end == index, let value else {
            index = end
            throw source.error(.invalidNumber, "invalid number '\(text)'", atScalar: start)
        }
        guard value.isFinite else {
            throw source.error(.invalidNumber, "number '\(text)' is out of range", atScalar: start)
        }
        return negative ? -value : value
    }

    private static func skipDigits(_ source: SourceText, _ index: inout Int) {
        while let scalar = source[index], ("0"..."9").contains(scalar) { index += 1 }
    }
}
