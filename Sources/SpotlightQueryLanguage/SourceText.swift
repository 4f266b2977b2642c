/// A query string as the lexer reads it (Unicode scalars) and as error messages locate it (characters, lines).
///
/// Lexing scalars rather than characters means a quote or backslash followed by a combining mark still acts as
/// a quote or backslash.
struct SourceText {
    let text: String
    let scalars: [Unicode.Scalar]

    init(_ text: String) {
        self.text = text
        self.scalars = Array(text.unicodeScalars)
    }

    subscript(index: Int) -> Unicode.Scalar? {
        index >= 0 && index < scalars.count ? scalars[index] : nil
    }

    /// The source between two scalar offsets.
    func slice(_ range: Range<Int>) -> String {
        let lower = max(0, min(range.lowerBound, scalars.count))
        let upper = max(lower, min(range.upperBound, scalars.count))
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[lower..<upper])
        return String(view)
    }

    /// The character offset, line and column of a scalar offset (a scalar inside a character counts as that
    /// character).
    func position(ofScalar scalarOffset: Int) -> SourcePosition {
        var offset = 0
        var line = 1
        var column = 1
        var scalarsSeen = 0
        var isMultiline = false
        for character in text {
            if character.isNewline { isMultiline = true }
        }
        for character in text {
            let count = character.unicodeScalars.count
            if scalarsSeen + count > scalarOffset { break }
            scalarsSeen += count
            offset += 1
            if character.isNewline {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return SourcePosition(offset: offset, line: line, column: column, isMultiline: isMultiline)
    }

    /// An error at a scalar offset.
    func error(_ code: QueryParseError.Code, _ reason: String, location: String = "at", atScalar scalarOffset: Int)
        -> QueryParseError
    {
        QueryParseError(code, reason, location: location, position: position(ofScalar: scalarOffset))
    }

    /// How a stretch of source appears in a message: quoted, shortened past 24 characters.
    func quoted(_ range: Range<Int>) -> String {
        let text = slice(range)
        if text.count > 24 { return "'\(text.prefix(24))…'" }
        return "'\(text)'"
    }
}
