import Foundation
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

/// The last search's outcome, kept so results can be chosen by number: `<root>/system/last-search.json`.
public enum LastSearch {
    static func url(root: URL) -> URL {
        SystemLocations.systemDirectory(root: root).appendingPathComponent("last-search.json")
    }

    /// Remembers an outcome.
    public static func save(_ outcome: SystemSearch.Outcome, root: URL = OpenSpotlight.rootDirectory) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        try SystemLocations.writePrivateFile(try encoder.encode(outcome), to: url(root: root))
    }

    /// The last remembered outcome.
    public static func load(root: URL = OpenSpotlight.rootDirectory) -> SystemSearch.Outcome? {
        guard let data = FileManager.default.contents(atPath: url(root: root).path) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try? decoder.decode(SystemSearch.Outcome.self, from: data)
    }

    /// Result `number` of the last search.
    public static func result(_ number: Int, root: URL = OpenSpotlight.rootDirectory) throws -> (SystemSearch.Result, query: String) {
        guard let outcome = load(root: root) else {
            throw SystemError("there is no previous search; search first (spotlight <words>), then choose a result by its number")
        }
        guard let result = outcome.results.first(where: { $0.number == number }) else {
            throw SystemError("the last search (\"\(outcome.query)\") has no result \(number); it has \(outcome.results.count)")
        }
        return (result, outcome.query)
    }
}
