import Foundation
import OpenCoreSpotlight
import SpotlightEngine

/// What the system knows of each app: registration, indexes, item counts and sizes.
public enum AppInventory {
    /// One index of an app.
    public struct IndexSummary: Codable, Sendable, Hashable {
        public var name: String
        /// Live items; `nil` when the index cannot be read.
        public var items: Int?
        public var bytes: Int
        /// `ok`, or why it cannot be read (`corrupt`, `unsupportedFormat`, `unreadable`).
        public var status: String
    }

    /// One app.
    public struct AppSummary: Codable, Sendable, Hashable {
        public var applicationIdentifier: String
        public var displayName: String
        public var isRegistered: Bool
        public var hasReindexExtension: Bool
        public var supportsSearchContinuation: Bool
        public var desktopFile: String?
        public var indexes: [IndexSummary]
        /// Live items in the app's own indexes.
        public var items: Int
        /// Saved activities.
        public var activities: Int
        /// Bytes on disk, activities included.
        public var bytes: Int
        /// Reindex requests waiting for the app.
        public var pendingRequests: Int
    }

    /// The identifiers of every app that has indexes or is registered (cheap: opens no index).
    public static func applicationIdentifiers(root: URL = OpenSpotlight.rootDirectory) -> Set<String> {
        Set(StoreLocation.installedApps(root: root)).union(SpotlightApp.all().map(\.applicationIdentifier))
    }

    /// The app a person names on the command line: a registered app's identifier or name, or the identifier of an
    /// app with indexes. Throws, naming the choices, for anything else.
    public static func resolve(_ name: String, root: URL = OpenSpotlight.rootDirectory) throws -> String {
        if let app = SpotlightApp.find(name) { return app.applicationIdentifier }
        if applicationIdentifiers(root: root).contains(name) { return name }
        let known = apps(root: root).map { $0.displayName == $0.applicationIdentifier ? $0.applicationIdentifier
                                                                                       : "\($0.displayName) (\($0.applicationIdentifier))" }
        throw SystemError("no app named \"\(name.prefix(80))\" has indexes or is registered"
            + (known.isEmpty ? "; nothing is indexed yet" : "; the apps are: \(known.joined(separator: ", "))"))
    }

    /// The indexes of an app: those with a file, and those the system knows of (whose file may be lost). With
    /// `ownOnly`, the app's own indexes only, as `AppIndexes` names them (not the system's `_activities`).
    public static func indexNames(of app: String, ownOnly: Bool = false, root: URL = OpenSpotlight.rootDirectory) -> [String] {
        Set(StoreLocation.indexNames(app: app, root: root)).union(IndexManifest.load(root: root).apps[app] ?? [])
            .filter { !ownOnly || AppIndexes.isAppIndex($0) }.sorted()
    }

    /// Every app that has indexes or is registered, by identifier.
    public static func apps(root: URL = OpenSpotlight.rootDirectory) -> [AppSummary] {
        var registrations: [String: SpotlightApp] = [:]
        for app in SpotlightApp.all() { registrations[app.applicationIdentifier] = app }
        let requests = ReindexRequestStore(root: root).pending()
        let ids = Set(StoreLocation.installedApps(root: root)).union(registrations.keys).sorted()
        return ids.map { id in
            let registration = registrations[id]
            var indexes: [IndexSummary] = []
            for name in StoreLocation.indexNames(app: id, root: root) {
                let url = StoreLocation.storeURL(app: id, indexName: name, root: root)
                do {
                    let store = try StoreRegistry.store(at: url, create: false)
                    indexes.append(IndexSummary(name: name, items: try store.count(), bytes: store.diskSize(), status: "ok"))
                } catch {
                    let status = (error as? EngineError).map { IndexDoctor.status(of: $0).rawValue } ?? "unreadable"
                    let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
                    let size = (attributes?[.size] as? Int) ?? 0
                    indexes.append(IndexSummary(name: name, items: nil, bytes: size, status: status))
                }
            }
            let own = indexes.filter { $0.name != SavedUserActivity.indexName }
            return AppSummary(
                applicationIdentifier: id, displayName: registration?.displayName ?? id, isRegistered: registration != nil,
                hasReindexExtension: registration?.reindexExec != nil,
                supportsSearchContinuation: registration?.supportsSearchContinuation ?? false,
                desktopFile: registration?.desktopFile?.path, indexes: indexes,
                items: own.reduce(0) { $0 + ($1.items ?? 0) },
                activities: indexes.first { $0.name == SavedUserActivity.indexName }?.items ?? 0,
                bytes: indexes.reduce(0) { $0 + $1.bytes },
                pendingRequests: requests.filter { $0.applicationIdentifier == id }.count)
        }
    }
}

extension TextReport {
    /// The `spotlight apps` table.
    public static func apps(_ apps: [AppInventory.AppSummary]) -> String {
        if apps.isEmpty {
            return "No app has indexed anything or registered yet.\n"
        }
        var out = ""
        for app in apps {
            out += app.displayName
            if app.displayName != app.applicationIdentifier { out += "  (\(app.applicationIdentifier))" }
            out += "\n    \(counted(app.items, "item")), \(counted(app.activities, "activity", "activities")), \(byteCount(app.bytes))"
            if !app.isRegistered { out += " · not registered" }
            else if !app.hasReindexExtension { out += " · no reindex extension" }
            if app.pendingRequests > 0 { out += " · \(counted(app.pendingRequests, "reindex request")) pending" }
            out += "\n"
            for index in app.indexes {
                out += "      \(index.name): "
                out += index.items.map { counted($0, "item") + ", " } ?? ""
                out += byteCount(index.bytes)
                if index.status != "ok" { out += " — \(index.status) (run spotlight doctor)" }
                out += "\n"
            }
        }
        return out
    }
}
