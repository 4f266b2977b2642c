import Foundation
#if canImport(Glibc)
import Glibc
#endif
import OpenCoreSpotlight
import SpotlightEngine

/// What choosing a result sends to its app, and the last search's results by number.
public enum Continuation {
    /// The continuation of one of an app's results: the saved activity related to the item when there is one
    /// (Apple leaves the choice open; the activity carries the app's own restoration state), else the item as
    /// `CSSearchableItemActionType` with its identifier under `CSSearchableItemActivityIdentifier` (and the typed
    /// query under `CSSearchQueryString`). An identifier starting with `activity:` names a saved activity.
    ///
    /// - Throws: `SystemError` when the app has no such item or activity.
    public static func payload(app: String, identifier: String, query: String? = nil,
                               root: URL = OpenSpotlight.rootDirectory) throws -> ContinuationPayload {
        let activities = (try? SavedUserActivity.all(applicationIdentifier: app, rootDirectory: root)) ?? []
        if identifier.hasPrefix("activity:") {
            guard let activity = activities.first(where: { $0.uniqueIdentifier == identifier }) else {
                throw SystemError("\(app) has no saved activity \(identifier)")
            }
            return ContinuationPayload(activity, applicationIdentifier: app)
        }
        guard (try SavedUserActivity.item(withIdentifier: identifier, applicationIdentifier: app, rootDirectory: root)) != nil else {
            throw SystemError("\(app) has no item \(identifier)")
        }
        let related = activities.filter { ($0.relatedUniqueIdentifier ?? $0.weakRelatedUniqueIdentifier) == identifier }
            .max { ($0.lastVisit ?? .distantPast) < ($1.lastVisit ?? .distantPast) }
        if let related { return ContinuationPayload(related, applicationIdentifier: app) }
        return .item(identifier, applicationIdentifier: app, query: query)
    }

    /// The payload of a result of a search.
    // Deviation: Apple does not say what a result that merges an item and an activity delivers; here the activity,
    // so the app gets its own restoration state.
    public static func payload(for result: SystemSearch.Result, query: String?,
                               root: URL = OpenSpotlight.rootDirectory) throws -> ContinuationPayload {
        if let activityID = result.activityIdentifier,
           let activity = try SavedUserActivity.all(applicationIdentifier: result.applicationIdentifier, rootDirectory: root)
               .first(where: { $0.uniqueIdentifier == activityID }) {
            return ContinuationPayload(activity, applicationIdentifier: result.applicationIdentifier)
        }
        return try payload(app: result.applicationIdentifier, identifier: result.identifier, query: query, root: root)
    }
}

/// The last search of each terminal session, kept so its results can be chosen by number (`spotlight open 1`).
///
/// A list belongs to the terminal that searched: its key is the controlling terminal (`ttyname` of standard input,
/// output or error), else the parent process (the shell), or `$OPENSPOTLIGHT_SESSION` when set. Lists live in
/// `$XDG_RUNTIME_DIR/openspotlight/last-search/` (per user, private, emptied at logout), else
/// `<root>/system/last-search/`, one file per session, written atomically. So `open 1` in one terminal never acts
/// on another terminal's search, and a search whose list cannot be saved removes the older list rather than leave
/// it to be opened by mistake.
public enum LastSearch {
    /// This process's session key, as a file name.
    public static var sessionKey: String {
        if let explicit = ProcessInfo.processInfo.environment["OPENSPOTLIGHT_SESSION"], !explicit.isEmpty {
            return "session-" + stableHash(explicit)
        }
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] {
            if isatty(descriptor) == 1, let name = ttyname(descriptor) {
                return "tty-" + stableHash(String(cString: name))
            }
        }
        return "parent-\(getppid())"
    }

    static func directory(root: URL) -> URL {
        if let runtime = SystemLocations.runtimeDirectory {
            return runtime.appendingPathComponent("last-search", isDirectory: true)
        }
        return SystemLocations.systemDirectory(root: root).appendingPathComponent("last-search", isDirectory: true)
    }

    static func url(root: URL) -> URL {
        directory(root: root).appendingPathComponent(sessionKey + ".json")
    }

    /// Remembers an outcome for this terminal session. If it cannot, the session's older list is removed (so
    /// `open N` cannot act on it) and the error says why.
    public static func save(_ outcome: SystemSearch.Outcome, root: URL = OpenSpotlight.rootDirectory) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        let file = url(root: root)
        do {
            try SystemLocations.writePrivateFile(try encoder.encode(outcome), to: file)
        } catch {
            let removed = (try? FileManager.default.removeItem(at: file)) != nil
                || !FileManager.default.fileExists(atPath: file.path)
            throw SystemError("the numbered results could not be saved (\(error))"
                + (removed ? "; choose a result by app and identifier instead of its number"
                           : "; the previous search's numbers could not be removed either, so do not use them"))
        }
    }

    /// This session's last remembered outcome.
    public static func load(root: URL = OpenSpotlight.rootDirectory) -> SystemSearch.Outcome? {
        guard let data = FileManager.default.contents(atPath: url(root: root).path) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try? decoder.decode(SystemSearch.Outcome.self, from: data)
    }

    /// Result `number` of this session's last search.
    public static func result(_ number: Int, root: URL = OpenSpotlight.rootDirectory) throws -> (SystemSearch.Result, query: String) {
        guard let outcome = load(root: root) else {
            throw SystemError("there is no previous search in this terminal; search first (spotlight <words>), then choose a result by its number")
        }
        guard let result = outcome.results.first(where: { $0.number == number }) else {
            let count = outcome.results.count + (outcome.web?.count ?? 0)
            throw SystemError("the last search (\"\(outcome.query.prefix(80))\") has no result \(number); it has \(count)")
        }
        return (result, outcome.query)
    }

    /// Result `number` of this session's last search when it is a public ("From the web") result.
    public static func webResult(_ number: Int, root: URL = OpenSpotlight.rootDirectory) -> WebResult? {
        load(root: root)?.web?.first { $0.number == number }
    }
}
