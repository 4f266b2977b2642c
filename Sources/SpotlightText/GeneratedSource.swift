/// The Swift source of a string constant generated from a table (`ScalarFoldTable+Keys.swift`,
/// `WordCharacterClass+Table.swift`): the pieces one after the other in a multi-line literal, each line continued
/// with a backslash once it holds at least `lineLength` characters (so the string itself has no line breaks).
enum GeneratedSource {
    static func stringConstant(_ name: String, extending type: String, comment: [String],
                               pieces: some Sequence<String>, lineLength: Int) -> String {
        var lines: [String] = []
        var line = ""
        for piece in pieces {
            line += piece
            if line.count >= lineLength {
                lines.append(line)
                line = ""
            }
        }
        if !line.isEmpty { lines.append(line) }
        let body = lines.map { "        " + $0 }.joined(separator: "\\\n")
        return comment.map { "// " + $0 + "\n" }.joined() + """

            extension \(type) {
                static let \(name) = \"\"\"
            \(body)
                    \"\"\"
            }

            """
    }
}
