import Foundation

/// A freedesktop.org desktop entry (`.desktop` file): groups of `Key=Value` lines, with the specification's value
/// escapes and `Exec` quoting and field codes.
///
/// Specification: <https://specifications.freedesktop.org/desktop-entry-spec/latest/>
public struct DesktopEntry: Sendable, Hashable {
    /// The main group's name.
    public static let mainGroup = "Desktop Entry"

    /// Groups in file order; each group's entries in file order (`Name[fr]` is its own key).
    public var groups: [(name: String, entries: [(key: String, value: String)])]

    public static func == (lhs: DesktopEntry, rhs: DesktopEntry) -> Bool {
        lhs.serialized() == rhs.serialized()
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(serialized()) }

    public init() {
        groups = [(Self.mainGroup, [])]
    }

    /// Parses a desktop file. Comments and blank lines are dropped; lines before the first group are ignored.
    public init(parsing text: String) {
        groups = []
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                groups.append((String(line.dropFirst().dropLast()), []))
                continue
            }
            guard !groups.isEmpty, let eq = line.firstIndex(of: "=") else { continue }
            let key = line[..<eq].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)
            groups[groups.count - 1].entries.append((key, Self.unescape(value)))
        }
    }

    /// The (unescaped) value of a key in a group (default: the main group).
    public subscript(key: String, group group: String = DesktopEntry.mainGroup) -> String? {
        get {
            groups.first { $0.name == group }?.entries.last { $0.key == key }?.value
        }
        set {
            var index = groups.firstIndex { $0.name == group }
            if index == nil {
                guard newValue != nil else { return }
                groups.append((group, []))
                index = groups.count - 1
            }
            var entries = groups[index!].entries
            if let newValue {
                if let i = entries.firstIndex(where: { $0.key == key }) {
                    entries[i].value = newValue
                } else {
                    entries.append((key, newValue))
                }
            } else {
                entries.removeAll { $0.key == key }
            }
            groups[index!].entries = entries
        }
    }

    /// A Boolean key (`true`/`false`).
    public func bool(_ key: String, group: String = DesktopEntry.mainGroup) -> Bool? {
        self[key, group: group].map { $0 == "true" }
    }

    /// The file's text.
    public func serialized() -> String {
        var out = ""
        for (index, group) in groups.enumerated() {
            if index > 0 { out += "\n" }
            out += "[\(group.name)]\n"
            for (key, value) in group.entries {
                out += "\(key)=\(Self.escape(value))\n"
            }
        }
        return out
    }

    // MARK: - Value escapes

    /// Undoes the string escapes `\s`, `\n`, `\t`, `\r` and `\\`.
    public static func unescape(_ value: String) -> String {
        var out = ""
        var iterator = value.makeIterator()
        while let c = iterator.next() {
            guard c == "\\" else { out.append(c); continue }
            switch iterator.next() {
            case "s"?: out.append(" ")
            case "n"?: out.append("\n")
            case "t"?: out.append("\t")
            case "r"?: out.append("\r")
            case "\\"?: out.append("\\")
            case let other?: out.append("\\"); out.append(other)
            case nil: out.append("\\")
            }
        }
        return out
    }

    /// Applies the string escapes so a value fits on one line.
    public static func escape(_ value: String) -> String {
        var out = ""
        for c in value {
            switch c {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default: out.append(c)
            }
        }
        if out.hasPrefix(" ") { out = "\\s" + out.dropFirst() }
        return out
    }

    // MARK: - Exec

    /// An error in an `Exec` value.
    public struct ExecError: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// One argument of a split `Exec` value: literal text, or a field code (`%u`, `%f`…) standing alone.
    public enum ExecArgument: Sendable, Hashable {
        case literal(String)
        case fieldCode(Character)
    }

    /// Splits an (unescaped) `Exec` value into arguments, following the specification's quoting rules. `%%`
    /// inside an argument is a literal `%`; a field code must be a whole unquoted argument (`%u`), anything else
    /// with `%` is an error.
    public static func splitExec(_ exec: String) throws -> [ExecArgument] {
        var arguments: [ExecArgument] = []
        var current = ""
        var hasCurrent = false
        var quoted = false
        var wasQuoted = false
        var chars = Array(exec)
        var i = 0
        func finish() throws {
            guard hasCurrent else { return }
            if !wasQuoted, current.count == 2, current.first == "%", let code = current.last, code != "%" {
                arguments.append(.fieldCode(code))
            } else {
                arguments.append(.literal(try literalPercents(current)))
            }
            current = ""
            hasCurrent = false
            wasQuoted = false
        }
        chars.append(" ")
        while i < chars.count {
            let c = chars[i]
            if quoted {
                if c == "\\", i + 1 < chars.count, "\"`$\\".contains(chars[i + 1]) {
                    current.append(chars[i + 1])
                    i += 2
                    continue
                }
                if c == "\"" { quoted = false } else { current.append(c) }
            } else if c == " " || c == "\t" || c == "\n" {
                try finish()
            } else if c == "\"" {
                quoted = true
                wasQuoted = true
                hasCurrent = true
            } else {
                current.append(c)
                hasCurrent = true
            }
            i += 1
        }
        if quoted { throw ExecError(description: "unterminated quote in Exec \(exec)") }
        return arguments
    }

    private static func literalPercents(_ s: String) throws -> String {
        guard s.contains("%") else { return s }
        var out = ""
        var iterator = s.makeIterator()
        while let c = iterator.next() {
            if c == "%" {
                guard iterator.next() == "%" else {
                    throw ExecError(description: "a field code must be a whole argument: \(s)")
                }
            }
            out.append(c)
        }
        return out
    }

    /// Quotes arguments into an `Exec` value (before the string escapes). Field codes are written as given.
    public static func joinExec(_ arguments: [ExecArgument]) -> String {
        arguments.map { argument in
            switch argument {
            case .fieldCode(let c): return "%\(c)"
            case .literal(let s):
                let percentSafe = s.replacingOccurrences(of: "%", with: "%%")
                let reserved = " \t\n\"'\\><~|&;$*?#()`"
                guard percentSafe.isEmpty || percentSafe.contains(where: { reserved.contains($0) }) else { return percentSafe }
                var out = "\""
                for c in percentSafe {
                    if "\"`$\\".contains(c) { out.append("\\") }
                    out.append(c)
                }
                return out + "\""
            }
        }.joined(separator: " ")
    }

    /// Expands an `Exec` value into a command line: `%u`/`%f` become `url` (removed when `nil`), `%U`/`%F` become
    /// `url` too, `%i` becomes `--icon <Icon>`, `%c` the name, `%k` the desktop file; other field codes are
    /// removed. When the value has no `%u`, `%U`, `%f` or `%F` and `url` is given, it is appended.
    public static func expandExec(_ exec: String, url: String?, icon: String? = nil, name: String? = nil,
                                  desktopFile: String? = nil) throws -> [String] {
        var out: [String] = []
        var usedURL = false
        for argument in try splitExec(exec) {
            switch argument {
            case .literal(let s): out.append(s)
            case .fieldCode(let code):
                switch code {
                case "u", "U", "f", "F":
                    usedURL = true
                    if let url { out.append(url) }
                case "i": if let icon, !icon.isEmpty { out += ["--icon", icon] }
                case "c": if let name { out.append(name) }
                case "k": if let desktopFile { out.append(desktopFile) }
                default: break
                }
            }
        }
        if !usedURL, let url { out.append(url) }
        guard !out.isEmpty else { throw ExecError(description: "empty Exec") }
        return out
    }
}
