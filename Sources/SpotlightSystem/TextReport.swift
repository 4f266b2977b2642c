import Foundation
import OpenCoreSpotlight

/// Human-readable text for the system's listings (the `spotlight` command's output).
public enum TextReport {
    /// Search results grouped by app:
    ///
    /// ```
    /// Colleagues
    ///    1. Brent Reid — Engineering · Senior Engineer           open, call, directions
    /// ```
    /// How matched words are marked in listings.
    public enum HighlightStyle: String, Sendable, CaseIterable {
        /// Not marked (output read by programs).
        case none
        /// In brackets: `[Milk] Shake` (`NO_COLOR`, a dumb terminal).
        case brackets
        /// Bold and underlined with ANSI escapes (a terminal that supports them).
        case terminal

        /// The style for output to `descriptor`: `terminal` on a capable terminal, `brackets` on a terminal with
        /// `NO_COLOR` set (any value, https://no-color.org) or `TERM=dumb`, `none` when not a terminal.
        public static func automatic(for descriptor: Int32 = STDOUT_FILENO,
                                     environment: [String: String] = ProcessInfo.processInfo.environment) -> HighlightStyle {
            guard isatty(descriptor) == 1 else { return .none }
            let term = environment["TERM"] ?? ""
            if environment["NO_COLOR"].map({ !$0.isEmpty }) == true || term.isEmpty || term == "dumb" { return .brackets }
            return .terminal
        }

        /// `pieces` joined, the matched ones marked.
        public func render(_ pieces: [(text: String, isMatch: Bool)]) -> String {
            pieces.map { piece in
                guard piece.isMatch else { return piece.text }
                switch self {
                case .none: return piece.text
                case .brackets: return "[" + piece.text + "]"
                case .terminal: return "\u{1B}[1;4m" + piece.text + "\u{1B}[22;24m"
                }
            }.joined()
        }
    }

    /// The title and the description (or the matching snippet in its place) of a result, marked in `style`.
    public static func titleAndDescription(_ result: SystemSearch.Result, style: HighlightStyle) -> (title: String, description: String?) {
        let title = result.titleHighlight.map { style.render($0.pieces) } ?? result.title
        if let snippet = result.snippet { return (title, style.render(snippet.pieces)) }
        return (title, result.description.flatMap { $0.isEmpty ? nil : $0 })
    }

    public static func searchResults(_ outcome: SystemSearch.Outcome, explain: Bool = false,
                                     highlight: HighlightStyle = .none) -> String {
        if !outcome.somethingIndexed {
            return """
                Nothing is indexed yet. Apps add their content with Core Spotlight (CSSearchableIndex) and
                NSUserActivity; try one of the examples, e.g. `colleagues setting all-records`.

                """
        }
        let web = outcome.web ?? []
        if outcome.apps.isEmpty && web.isEmpty {
            return "No results for \(quoted(outcome.query)).\n"
        }
        var out = ""
        for (i, group) in outcome.apps.enumerated() {
            if i > 0 { out += "\n" }
            out += group.displayName
            if group.displayName != group.applicationIdentifier { out += "  (\(group.applicationIdentifier))" }
            if !group.isRegistered { out += "  — not registered: results cannot be opened" }
            out += "\n"
            for result in group.results {
                let shown = titleAndDescription(result, style: highlight)
                var line = "  \(String(result.number).leftPadded(to: 3)). \(shown.title)"
                if let description = shown.description { line += " — \(description)" }
                if result.kind == "activity" || result.activityIdentifier != nil {
                    let visits = result.visitCount ?? 1
                    line += "  (visited \(visits == 1 ? "once" : "\(visits) times"))"
                }
                if !result.actions.isEmpty { line += "    " + result.actions.map(\.rawValue).joined(separator: ", ") }
                out += line + "\n"
                if explain, let explanation = result.explanation { out += "       \(explanation)\n" }
            }
        }
        if !web.isEmpty {
            if !out.isEmpty { out += "\n" }
            out += "From the web\n"
            for result in web {
                var line = "  \(String(result.number).leftPadded(to: 3)). \(result.title)"
                if let description = result.description, !description.isEmpty {
                    line += " — \(description.count > 80 ? description.prefix(79) + "…" : Substring(description))"
                }
                line += "  \(result.url)"
                if let app = result.appName ?? result.applicationIdentifier { line += "  (\(app))" }
                out += line + "\n"
            }
        }
        return out
    }

    /// The doctor's report.
    public static func doctor(_ report: IndexDoctor.Report) -> String {
        if report.indexes.isEmpty && report.requests.isEmpty { return "Nothing is indexed yet; nothing to check.\n" }
        var out = ""
        for index in report.indexes {
            var line = "\(index.status == .ok ? "ok " : "!! ") \(index.applicationIdentifier)/\(index.indexName)"
            if let items = index.itemCount { line += "  " + counted(items, "item") }
            if let bytes = index.bytes { line += ", \(byteCount(bytes))" }
            if index.status != .ok { line += "  \(index.status.rawValue)" }
            if index.action != .none { line += " → \(index.action.rawValue)" }
            if index.expiredPurged > 0 { line += "  (\(counted(index.expiredPurged, "expired item")) purged)" }
            if index.orphanActivitiesDeleted > 0 {
                line += "  (\(counted(index.orphanActivitiesDeleted, "activity", "activities")) of deleted items removed)"
            }
            out += line + "\n"
            if index.status != .ok, let message = index.message { out += "      \(message)\n" }
        }
        for request in report.requests {
            out += "reindex \(request.applicationIdentifier)/\(request.indexName) (\(request.kind.rawValue)"
            if request.kind == .reindexIdentifiers { out += ", " + counted(request.identifiers, "item") }
            if request.throttled { out += ", throttled" }
            out += "): \(request.outcome)"
            if let message = request.message { out += " — \(message)" }
            out += "\n"
        }
        let problems = report.problems
        out += problems == 0 ? "All indexes are healthy.\n" : "\(problems) index\(problems == 1 ? "" : "es") needed repair.\n"
        return out
    }

    /// "1 item", "2 items".
    public static func counted(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
    }

    /// "Colleagues'", "Brent's".
    public static func possessive(_ name: String) -> String {
        name.hasSuffix("s") ? name + "'" : name + "'s"
    }

    /// Text a person typed, quoted and cut to 80 characters for a message.
    public static func quoted(_ text: String) -> String {
        "\"" + (text.count > 80 ? text.prefix(80) + "…" : text) + "\""
    }

    /// A size in bytes for people (`12.3 KB`).
    public static func byteCount(_ bytes: Int) -> String {
        ByteCountFormatter.string(fromByteCount: Int64(bytes), countStyle: .file)
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
