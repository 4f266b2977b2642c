import Foundation
import OpenCoreSpotlight
import SpotlightSystem
import Synchronization

/// What the desktop's search surfaces share (GNOME Shell's and KRunner's providers, the search page): one search
/// over every app's index, results named by identifiers that survive between calls, and what choosing a result
/// does — exactly what `spotlight`, `spotlight open`, `call` and `directions` do.
///
/// Safe to use from several threads: searches run concurrently, the result cache is behind a mutex.
public final class DesktopSearch: Sendable {
    /// The OpenSpotlight root searched.
    public let root: URL
    /// The most results a search returns.
    public let limit: Int
    private let state = Mutex<State>(State())

    private struct State {
        /// Results of recent searches by identifier, so metas and actions need no second look-up.
        var results: [String: SystemSearch.Result] = [:]
        /// Whether lost and damaged indexes were repaired once (later searches do not wait for repairs).
        var repaired = false
    }

    public init(root: URL = OpenSpotlight.rootDirectory, limit: Int = 20) {
        self.root = root
        self.limit = limit
    }

    /// Searches every app's index for typed text. The first search of this process repairs lost and damaged
    /// indexes (as `spotlight` does); later ones search what is there, so that typing is never held up.
    public func search(_ text: String, limit: Int? = nil) -> SystemSearch.Outcome {
        var search = SystemSearch(root: root)
        search.repairsAutomatically = state.withLock { state in
            defer { state.repaired = true }
            return !state.repaired
        }
        let outcome = search.search(text, limit: limit ?? self.limit)
        state.withLock { state in
            // A bounded cache: cleared when it grows past a few hundred searches' worth.
            if state.results.count > 4096 { state.results.removeAll(keepingCapacity: true) }
            for result in outcome.results { state.results[Self.identifier(of: result)] = result }
        }
        return outcome
    }

    /// A result by its identifier: from a recent search, else looked up in its app's indexes.
    ///
    /// - Throws: `SystemError` when the identifier is malformed or names nothing.
    public func result(_ identifier: String) throws -> SystemSearch.Result {
        if let cached = state.withLock({ $0.results[identifier] }) { return cached }
        let (app, item) = try Self.parse(identifier)
        return try ResultActions.result(app: app, identifier: item, root: root)
    }

    // MARK: Identifiers

    /// A result's identifier on the desktop: `app/item`, each part percent-encoded where it holds `/`, `%` or
    /// control characters. A saved activity's item identifier starts with `activity:`.
    public static func identifier(of result: SystemSearch.Result) -> String {
        escape(result.applicationIdentifier) + "/" + escape(result.identifier)
    }

    /// The app and item an identifier names.
    public static func parse(_ identifier: String) throws -> (app: String, item: String) {
        let parts = identifier.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty,
              let app = String(parts[0]).removingPercentEncoding, let item = String(parts[1]).removingPercentEncoding else {
            throw SystemError("\(identifier.debugDescription) is not a result identifier (app/item)")
        }
        return (app, item)
    }

    private static let kept: CharacterSet = {
        var set = CharacterSet.urlPathAllowed
        set.remove(charactersIn: "/%")
        return set
    }()

    private static func escape(_ part: String) -> String {
        part.addingPercentEncoding(withAllowedCharacters: kept) ?? part
    }

    // MARK: Display

    /// The icon to show for a result: the item's thumbnail file when it has one, else its app's icon (an icon-theme
    /// name or a path), else `system-search`.
    public func icon(for result: SystemSearch.Result, thumbnails: Bool = true, appIcons: [String: String]? = nil) -> String {
        if thumbnails, let path = result.thumbnailPath, FileManager.default.fileExists(atPath: path) { return path }
        if let appIcons { return appIcons[result.applicationIdentifier] ?? "system-search" }
        return SpotlightApp.registered(result.applicationIdentifier)?.icon ?? "system-search"
    }

    /// Every registered app's icon, read once for a list of results (each look-up would read the desktop entries).
    public func appIcons() -> [String: String] {
        var icons: [String: String] = [:]
        for app in SpotlightApp.all() where icons[app.applicationIdentifier] == nil {
            if let icon = app.icon { icons[app.applicationIdentifier] = icon }
        }
        return icons
    }

    /// The second line of a result: its app and its description.
    public static func subtitle(of result: SystemSearch.Result) -> String {
        [result.appDisplayName, result.description].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " · ")
    }

    // MARK: Actions

    /// Continues a result in its app, as `spotlight open` does; a terminal app opens in a terminal window.
    public func open(_ identifier: String, query: String?) throws {
        let result = try result(identifier)
        guard let app = SpotlightApp.registered(result.applicationIdentifier) else {
            throw SystemError("\(result.appDisplayName) is not registered (no desktop entry with X-OpenSpotlight-AppID="
                + "\(result.applicationIdentifier)); its results cannot be opened")
        }
        let payload = try Continuation.payload(for: result, query: query, root: root)
        try Launcher.continue(payload, in: app, root: root, fromDesktop: true)
    }

    /// Calls one of a result's phone numbers through the `tel:` handler, as `spotlight call` does.
    public func call(_ identifier: String, phoneIndex: Int = 0) throws {
        try openURI(try ResultActions.callURI(for: try result(identifier), phoneIndex: phoneIndex))
    }

    /// Gets directions to a result through the `geo:` handler, as `spotlight directions` does.
    public func directions(_ identifier: String) throws {
        try openURI(try ResultActions.directionsURI(for: try result(identifier)))
    }

    private func openURI(_ uri: String) throws {
        let status = try Launcher.open(uri: uri)
        if status != 0 { throw SystemError("the handler of \(uri) failed (exit status \(status))") }
    }
}
