import Foundation
import SpotlightSystem

/// The desktop's search providers on the session bus: GNOME Shell's `org.gnome.Shell.SearchProvider2` and KDE's
/// `org.kde.krunner1`, answered from one `DesktopSearch`.
///
/// Started by D-Bus activation (`spotlight serve --dbus`, named in the service file that `spotlight desktop
/// install` writes), it keeps the indexes open between keystrokes, which is what lets it answer within GNOME
/// Shell's patience.
public struct SearchProviders: Sendable {
    /// The well-known name both providers answer on.
    public static let busName = "org.openspotlight.SearchProvider"
    /// GNOME Shell's provider object.
    public static let gnomeObjectPath = "/org/openspotlight/SearchProvider"
    /// KRunner's runner object.
    public static let krunnerObjectPath = "/org/openspotlight/KRunner"

    public let search: DesktopSearch
    /// Opens the full search for typed words (GNOME's `LaunchSearch`): the search page, by default.
    public var launchSearch: @Sendable (String) throws -> Void

    public init(search: DesktopSearch, launchSearch: @escaping @Sendable (String) throws -> Void) {
        self.search = search
        self.launchSearch = launchSearch
    }

    /// Takes the bus name, exports both providers and answers calls until the session bus goes away, `shouldStop`
    /// says so, or nothing was asked for `idleExit` seconds (D-Bus starts the service again on the next call).
    public func run(idleExit: TimeInterval? = nil, shouldStop: @escaping () -> Bool = { false },
                    ready: () -> Void = {}) throws {
        let connection = try DBusConnection()
        try connection.export(path: Self.gnomeObjectPath, interfaces: [gnomeInterface])
        try connection.export(path: Self.krunnerObjectPath, interfaces: [krunnerInterface])
        // The name last: a client activated by it finds the objects in place.
        try connection.requestName(Self.busName)
        ready()
        try connection.run {
            if shouldStop() { return true }
            guard let idleExit else { return false }
            return Date().timeIntervalSince(lastCall.value) > idleExit
        }
    }

    /// When the last call came (for the idle exit).
    private let lastCall = LastCall()

    private final class LastCall: @unchecked Sendable {
        // Touched only on the bus thread.
        var value = Date()
    }

    private func text(_ terms: [String]) -> String {
        terms.joined(separator: " ").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: GNOME Shell

    /// `org.gnome.Shell.SearchProvider2`.
    var gnomeInterface: DBusInterface {
        let search = self.search, lastCall = self.lastCall, launchSearch = self.launchSearch
        func ids(_ terms: [String]) -> [String] {
            lastCall.value = Date()
            let typed = text(terms)
            guard !typed.isEmpty else { return [] }
            return search.search(typed).results.map(DesktopSearch.identifier(of:))
        }
        return DBusInterface(name: "org.gnome.Shell.SearchProvider2", methods: [
            DBusMethod(name: "GetInitialResultSet", arguments: [("terms", "as", "in"), ("results", "as", "out")]) { reader, writer in
                try writer.strings(ids(try reader.strings()))
            },
            // The refined search runs again rather than filtering the previous results: a longer word can also
            // match through typo tolerance what the shorter one did not.
            DBusMethod(name: "GetSubsearchResultSet",
                       arguments: [("previous_results", "as", "in"), ("terms", "as", "in"), ("results", "as", "out")]) { reader, writer in
                _ = try reader.strings()
                try writer.strings(ids(try reader.strings()))
            },
            DBusMethod(name: "GetResultMetas", arguments: [("identifiers", "as", "in"), ("metas", "aa{sv}", "out")]) { reader, writer in
                lastCall.value = Date()
                let identifiers = try reader.strings()
                let icons = search.appIcons()
                try writer.container("a", "a{sv}") {
                    // An identifier that names nothing any more (deleted since) is left out, as GNOME expects.
                    for identifier in identifiers {
                        guard let result = try? search.result(identifier) else { continue }
                        try writer.properties([
                            ("id", .string(identifier)),
                            ("name", .string(result.title)),
                            ("description", .string(DesktopSearch.subtitle(of: result))),
                            ("gicon", .string(search.icon(for: result, appIcons: icons))),
                            ("clipboardText", .string(result.title)),
                        ])
                    }
                }
            },
            DBusMethod(name: "ActivateResult",
                       arguments: [("identifier", "s", "in"), ("terms", "as", "in"), ("timestamp", "u", "in")]) { reader, _ in
                lastCall.value = Date()
                let identifier = try reader.string()
                let terms = try reader.strings()
                do {
                    try search.open(identifier, query: text(terms))
                } catch {
                    throw DBusError.failed("\(error)")
                }
            },
            DBusMethod(name: "LaunchSearch", arguments: [("terms", "as", "in"), ("timestamp", "u", "in")]) { reader, _ in
                lastCall.value = Date()
                let terms = try reader.strings()
                do {
                    try launchSearch(text(terms))
                } catch {
                    throw DBusError.failed("\(error)")
                }
            },
        ])
    }

    // MARK: KRunner

    /// The actions KRunner offers beside a match (ids, labels, icon names).
    public static let krunnerActions: [(id: String, text: String, icon: String)] = [
        ("call", "Call", "call-start"),
        ("directions", "Directions", "mark-location"),
    ]

    /// `org.kde.krunner1`.
    var krunnerInterface: DBusInterface {
        let search = self.search, lastCall = self.lastCall
        return DBusInterface(name: "org.kde.krunner1", methods: [
            DBusMethod(name: "Actions", arguments: [("matches", "a(sss)", "out")]) { _, writer in
                try writer.container("a", "(sss)") {
                    for action in Self.krunnerActions {
                        try writer.container("r", "sss") {
                            try writer.string(action.id)
                            try writer.string(action.text)
                            try writer.string(action.icon)
                        }
                    }
                }
            },
            DBusMethod(name: "Match", arguments: [("query", "s", "in"), ("matches", "a(sssida{sv})", "out")]) { reader, writer in
                lastCall.value = Date()
                let query = try reader.string().trimmingCharacters(in: .whitespacesAndNewlines)
                let results = query.isEmpty ? [] : search.search(query).results
                let icons = results.isEmpty ? [:] : search.appIcons()
                try writer.container("a", "(sssida{sv})") {
                    for (rank, result) in results.enumerated() {
                        try writer.container("r", "sssida{sv}") {
                            try writer.string(DesktopSearch.identifier(of: result))
                            try writer.string(result.title)
                            try writer.string(search.icon(for: result, thumbnails: false, appIcons: icons))
                            // KRunner's categories: 100 an exact match (the whole title), 30 a possible one.
                            let exact = result.title.compare(query, options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame
                            try writer.int32(exact ? 100 : 30)
                            // Within a category KRunner orders by relevance: ours, in rank order, in (0, 1].
                            try writer.double(1 - Double(rank) / Double(results.count + 1))
                            var properties: [(key: String, value: DBusWriter.PropertyValue)] = [
                                ("subtext", .string(DesktopSearch.subtitle(of: result))),
                                ("category", .string(result.appDisplayName)),
                                ("actions", .strings(result.actions.compactMap {
                                    $0 == .call ? "call" : $0 == .directions ? "directions" : nil
                                })),
                            ]
                            if let url = result.contentURL { properties.append(("urls", .strings([url]))) }
                            try writer.properties(properties)
                        }
                    }
                }
            },
            DBusMethod(name: "Run", arguments: [("matchId", "s", "in"), ("actionId", "s", "in")]) { reader, _ in
                lastCall.value = Date()
                let identifier = try reader.string()
                let action = try reader.string()
                do {
                    switch action {
                    case "": try search.open(identifier, query: nil)
                    case "call": try search.call(identifier)
                    case "directions": try search.directions(identifier)
                    default: throw DBusError.invalidArgs("no action \(action.debugDescription)")
                    }
                } catch let error as DBusError {
                    throw error
                } catch {
                    throw DBusError.failed("\(error)")
                }
            },
            DBusMethod(name: "Teardown", arguments: []) { _, _ in },
        ])
    }
}
