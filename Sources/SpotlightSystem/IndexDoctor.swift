import Foundation
import OpenCoreSpotlight
import SpotlightEngine

/// Keeps every app's indexes healthy: finds indexes that are lost, damaged or in a format this version cannot
/// read, moves them aside and has the app rebuild them through its reindex extension; purges expired items and
/// asks the app whether to donate them again; removes saved activities whose related item is gone.
///
/// ```swift
/// let report = IndexDoctor().examine(repair: true)
/// for index in report.indexes { print(index.applicationIdentifier, index.indexName, index.status) }
/// ```
///
/// **Noticing.** A damaged or newer-format index fails to open (or fails `IndexStore.checkIntegrity()` when
/// examined); a lost one is an index the system saw before (`<root>/system/indexes.json`) whose file is gone.
/// `spotlight doctor` examines everything; every `spotlight` search notices what it trips over and lost files.
///
/// **Repairing.** A damaged or newer-format file (with its `-wal` and `-shm`) is moved aside by the engine's one
/// recovery policy (`StoreRecovery`: renamed beside itself to a unique name, never deleted or overwritten; if it
/// cannot be moved it stays in place and the index is reported unavailable), and a reindex-all
/// request is persisted and issued to the app's extension (`ExtensionHost`); the system waits for the
/// acknowledgement. Unacknowledged requests stay pending and are issued again (every `doctor`; on searches, after
/// a back-off of a minute per attempt), and the app itself picks them up at launch
/// (`IndexExtensionRunner.processPendingRequests`). The system's own activity index cannot be rebuilt by an app:
/// it restarts empty.
///
/// **Throttling.** When more than `throttleThreshold` requests are to be issued in one pass, the system sheds
/// load: it issues them one at a time with `throttleDelay` between them, and marks each request throttled, so the
/// extension gets `searchableIndexDidThrottle` before the reindex call and `searchableIndexDidFinishThrottle` once
/// it acknowledged.
public struct IndexDoctor: @unchecked Sendable {
    // @unchecked Sendable: `progress` is only called from the thread running the doctor.
    public let root: URL
    /// More requests than this in one pass are throttled (`OPENSPOTLIGHT_THROTTLE_THRESHOLD`, default 2).
    public var throttleThreshold: Int
    /// The pause between throttled requests (`OPENSPOTLIGHT_THROTTLE_DELAY` seconds, default 1).
    public var throttleDelay: TimeInterval
    /// Receives a line per step of long work (for a progress display).
    public var progress: ((String) -> Void)?
    public var host: ExtensionHost
    public var requests: ReindexRequestStore

    public init(root: URL = OpenSpotlight.rootDirectory) {
        self.root = root
        let env = ProcessInfo.processInfo.environment
        throttleThreshold = env["OPENSPOTLIGHT_THROTTLE_THRESHOLD"].flatMap(Int.init) ?? 2
        throttleDelay = env["OPENSPOTLIGHT_THROTTLE_DELAY"].flatMap(TimeInterval.init) ?? 1
        host = ExtensionHost(root: root)
        requests = ReindexRequestStore(root: root)
    }

    // MARK: - Reports

    /// The state of one index.
    public enum Status: String, Codable, Sendable {
        case ok
        /// The file is damaged (SQLite says so, or the integrity check fails).
        case corrupt
        /// A newer version wrote it.
        case unsupportedFormat
        /// The system saw it before; the file is gone.
        case missing
        /// It cannot be opened (I/O error, a symbolic link where the file belongs). Reported, never moved.
        case unreadable
        /// This user may not read or write it (its mode, or another user's file). Reported, never moved.
        case permissionDenied
    }

    /// What was done about an index.
    public enum Action: String, Codable, Sendable {
        case none
        /// Rebuilt by the app's extension, which acknowledged.
        case rebuilt
        /// Moved aside; the rebuild request waits for the app (no extension, or it failed).
        case pending
        /// Moved aside and left empty (the system's activity index, or an app no longer registered).
        case reset
        /// Examined without repairing, or a problem that is not damage (permissions, I/O): reported, left alone.
        case reported
        /// Damaged, but it could not be moved aside (the message says why): left in place, untouched, and the
        /// index is unavailable until it can be.
        case unavailable
    }

    public struct IndexReport: Codable, Sendable, Hashable {
        public var applicationIdentifier: String
        public var indexName: String
        public var status: Status
        public var action: Action
        public var message: String?
        public var itemCount: Int?
        public var bytes: Int?
        public var expiredPurged: Int
        public var orphanActivitiesDeleted: Int
        public var formatVersion: Int?
    }

    public struct RequestReport: Codable, Sendable, Hashable {
        public var applicationIdentifier: String
        public var indexName: String
        public var kind: ReindexRequest.Kind
        public var identifiers: Int
        public var throttled: Bool
        /// `acknowledged`, `pending` (no extension: waits for the app's launch), `failed`, `app not registered`.
        public var outcome: String
        public var message: String?
        public var seconds: Double
    }

    public struct Report: Codable, Sendable, Hashable {
        public var indexes: [IndexReport]
        public var requests: [RequestReport]
        public var throttled: Bool
        public var problems: Int { indexes.filter { $0.status != .ok }.count }
    }

    // MARK: - Examining everything

    /// Examines every index of every app (and every index the system saw before); with `repair`, repairs what it
    /// can and issues every pending request.
    public func examine(repair: Bool = true) -> Report {
        var manifest = IndexManifest.load(root: root)
        var reports: [IndexReport] = []
        var toRequest: [ReindexRequest] = []
        let apps = Set(StoreLocation.installedApps(root: root)).union(manifest.apps.keys).sorted()
        for (position, app) in apps.enumerated() {
            progress?("[\(position + 1)/\(apps.count)] checking \(app)")
            let names = Set(StoreLocation.indexNames(app: app, root: root)).union(manifest.apps[app] ?? []).sorted()
            for name in names {
                var report = examine(app: app, indexName: name)
                if report.status != .ok {
                    if repair {
                        let (action, request, why) = quarantine(app: app, indexName: name, status: report.status,
                                                                message: report.message ?? "")
                        report.action = action
                        if let why { report.base.message = (report.message.map { $0 + "; " } ?? "") + why }
                        if let request { toRequest.append(request) }
                        if action == .reset, name == SavedUserActivity.indexName || SpotlightApp.registered(app) == nil {
                            manifest.remove(app: app, indexName: name)
                        }
                    } else {
                        report.action = .reported
                    }
                // Deviation: Apple only deletes expired items; here they are also offered back to an app with a
                // reindex extension (reindexIdentifiers), which decides whether to donate them again.
                } else if repair, !report.expiredIdentifiers.isEmpty, name != SavedUserActivity.indexName,
                          SpotlightApp.registered(app)?.reindexExec != nil {
                    toRequest.append(ReindexRequest(applicationIdentifier: app, indexName: name, kind: .reindexIdentifiers,
                                                    identifiers: report.expiredIdentifiers,
                                                    reason: "\(report.expiredIdentifiers.count) items expired"))
                }
                reports.append(report.base)
                if report.status == .ok { manifest.add(app: app, indexName: name) }
            }
        }
        for request in toRequest { _ = try? requests.add(request) }
        var requestReports: [RequestReport] = []
        var throttled = false
        if repair {
            (requestReports, throttled) = issuePending(force: true)
            for (i, report) in reports.enumerated() where report.action == .pending {
                if requestReports.contains(where: { $0.applicationIdentifier == report.applicationIdentifier
                    && $0.indexName == report.indexName && $0.outcome == "acknowledged" && $0.kind == .reindexAll }) {
                    reports[i].action = .rebuilt
                    if let store = try? StoreRegistry.store(app: report.applicationIdentifier, indexName: report.indexName,
                                                            root: root, create: false) {
                        reports[i].itemCount = try? store.count()
                        reports[i].bytes = store.diskSize()
                    }
                    manifest.add(app: report.applicationIdentifier, indexName: report.indexName)
                }
            }
        }
        try? manifest.save(root: root)
        // Activities whose related item is gone go too, once the app's indexes are whole again (an index being
        // rebuilt must not take its activities with it).
        if repair {
            for (i, report) in reports.enumerated() where report.indexName == SavedUserActivity.indexName
                && report.status == .ok && canCascadeDeletes(app: report.applicationIdentifier) {
                let deleted = (try? SavedUserActivity.deleteOrphans(applicationIdentifier: report.applicationIdentifier,
                                                                     rootDirectory: root).count) ?? 0
                reports[i].orphanActivitiesDeleted = deleted
                reports[i].itemCount = reports[i].itemCount.map { $0 - deleted }
            }
        }
        return Report(indexes: reports, requests: requestReports, throttled: throttled)
    }

    private struct Examination {
        var base: IndexReport
        var expiredIdentifiers: [String]
        var status: Status { base.status }
        var message: String? { base.message }
        var action: Action {
            get { base.action }
            set { base.action = newValue }
        }
    }

    private func examine(app: String, indexName: String) -> Examination {
        var report = IndexReport(applicationIdentifier: app, indexName: indexName, status: .ok, action: .none,
                                 message: nil, itemCount: nil, bytes: nil, expiredPurged: 0, orphanActivitiesDeleted: 0,
                                 formatVersion: nil)
        let url = StoreLocation.storeURL(app: app, indexName: indexName, root: root)
        guard FileManager.default.fileExists(atPath: url.path) else {
            report.status = .missing
            report.message = "the index file \(url.path) is gone"
            return Examination(base: report, expiredIdentifiers: [])
        }
        var expired: [String] = []
        do {
            let store = try StoreRegistry.store(at: url, create: false)
            try store.checkIntegrity()
            report.formatVersion = IndexStore.formatVersion
            let now = Date()
            if store.isReadOnly {
                report.message = "this user may read but not write it; expired items were not purged"
            } else {
                if try store.rowCount() != store.count(now: now) {
                    expired = try Self.expiredIdentifiers(store, now: now)
                    report.expiredPurged = try store.purgeExpired(now: now)
                }
                // Merges the segments the policy asks for and drops dead postings (what a writing app does in
                // the background after its commits).
                try store.performMaintenance()
            }
            report.itemCount = try store.count()
            report.bytes = store.diskSize()
        } catch let error as EngineError {
            report.status = Self.status(of: error)
            report.message = error.message
        } catch {
            report.status = .unreadable
            report.message = "\(error)"
        }
        return Examination(base: report, expiredIdentifiers: expired)
    }

    static func status(of error: EngineError) -> Status {
        switch error.code {
        case .corruptIndex: return .corrupt
        case .unsupportedFormat: return .unsupportedFormat
        case .permissionDenied: return .permissionDenied
        default: return .unreadable
        }
    }

    /// Whether an engine error means the index must be rebuilt (rather than a passing problem).
    public static func needsRebuild(_ error: any Error) -> Bool {
        StoreRecovery.needsRecovery(error)
    }

    private static func expiredIdentifiers(_ store: IndexStore, now: Date) throws -> [String] {
        var out: [String] = []
        var after: String?
        while true {
            let page = try store.listItems(after: after, limit: 1_000, now: .distantPast)
            out += page.filter { $0.expirationDate <= now }.map(\.uniqueIdentifier)
            guard page.count == 1_000, let last = page.last else { break }
            after = last.uniqueIdentifier
        }
        return out
    }

    /// Whether deleting an app's activities because their related item is gone is safe: every index the system
    /// knows of the app exists and no reindex request of the app is pending.
    public func canCascadeDeletes(app: String) -> Bool {
        let manifest = IndexManifest.load(root: root)
        let present = Set(StoreLocation.indexNames(app: app, root: root))
        guard (manifest.apps[app] ?? []).isSubset(of: present) else { return false }
        return requests.pending(app: app).isEmpty
    }

    // MARK: - Repairing one index

    /// Moves a broken index aside (`StoreRecovery`, the engine's one recovery policy: a unique name beside the
    /// store, never deleted, never overwritten) and, for an app's own index, persists a reindex-all request.
    /// Returns the action taken and the request to issue. Only damage, a newer format and a lost file are
    /// repaired; an index that cannot be moved aside is left in place and reported unavailable.
    private func quarantine(app: String, indexName: String, status: Status, message: String) -> (Action, ReindexRequest?, String?) {
        let url = StoreLocation.storeURL(app: app, indexName: indexName, root: root)
        switch status {
        case .corrupt, .unsupportedFormat:
            do {
                try StoreRecovery.moveAside(url, reason: message)
            } catch {
                let why = (error as? EngineError)?.message ?? "\(error)"
                progress?("\(app): the index \(indexName) was \(status.rawValue) but cannot be moved aside: \(why)")
                return (.unavailable, nil, why)
            }
        case .missing:
            StoreRegistry.forget(url)
        case .unreadable, .permissionDenied, .ok:
            // Not damage: nothing is moved or rebuilt, the problem is reported as it is.
            return (.reported, nil, nil)
        }
        if indexName == SavedUserActivity.indexName {
            progress?("\(app): the activity index was \(status.rawValue); it starts again empty")
            return (.reset, nil, nil)
        }
        guard SpotlightApp.registered(app) != nil else {
            progress?("\(app): the index \(indexName) was \(status.rawValue), and the app is not registered to rebuild it")
            return (.reset, nil, nil)
        }
        let reason: String
        switch status {
        case .missing: reason = "the index file was lost"
        case .corrupt: reason = "the index file was damaged"
        case .unsupportedFormat: reason = "the index file has a format this version cannot read"
        case .unreadable, .permissionDenied, .ok: reason = "requested"
        }
        return (.pending, ReindexRequest(applicationIdentifier: app, indexName: indexName, kind: .reindexAll, reason: reason), nil)
    }

    /// Repairs one index found broken while searching: moves it aside and has the app rebuild it now. Returns the
    /// report of the request, or `nil` when nothing could be requested.
    @discardableResult
    public func repair(app: String, indexName: String, error: any Error) -> RequestReport? {
        let status: Status = (error as? EngineError).map(Self.status(of:)) ?? .unreadable
        let message = (error as? EngineError)?.message ?? "\(error)"
        let (_, request, _) = quarantine(app: app, indexName: indexName, status: status, message: message)
        guard let request, let pending = try? requests.add(request) else { return nil }
        return issue([pending]).reports.first
    }

    // MARK: - Noticing lost indexes and issuing requests (every search)

    /// What a search does before searching: notices lost indexes (known, file gone), and issues pending requests
    /// that are due. Returns the reports of the requests issued.
    public func repairLostAndPending() -> [RequestReport] {
        var manifest = IndexManifest.load(root: root)
        var lost: [ReindexRequest] = []
        for (app, names) in manifest.apps {
            for name in names where !FileManager.default.fileExists(atPath: StoreLocation.storeURL(app: app, indexName: name, root: root).path) {
                let (_, request, _) = quarantine(app: app, indexName: name, status: .missing, message: "")
                if let request { lost.append(request) } else { manifest.remove(app: app, indexName: name) }
            }
        }
        for request in lost { _ = try? requests.add(request) }
        try? manifest.save(root: root)
        return issuePending(force: false).reports
    }

    /// Records the indexes that exist now, so that a lost one is noticed later.
    public func recordKnownIndexes() {
        var manifest = IndexManifest.load(root: root)
        var changed = false
        for app in StoreLocation.installedApps(root: root) {
            for name in StoreLocation.indexNames(app: app, root: root) where !(manifest.apps[app]?.contains(name) ?? false) {
                manifest.add(app: app, indexName: name)
                changed = true
            }
        }
        if changed { try? manifest.save(root: root) }
    }

    /// Issues pending requests: all of them with `force`, else only those never issued or whose back-off (one
    /// minute per attempt) has passed.
    public func issuePending(force: Bool) -> (reports: [RequestReport], throttled: Bool) {
        let now = Date()
        let due = requests.pending().filter { request in
            guard !force, let last = request.lastAttempt else { return true }
            return now.timeIntervalSince(last) >= 60 * Double(max(request.attempts, 1))
        }
        let result = issue(due)
        return (result.reports, result.throttled)
    }

    private func issue(_ list: [ReindexRequest]) -> (reports: [RequestReport], throttled: Bool) {
        let shedding = list.count > throttleThreshold
        if shedding {
            progress?("shedding load: \(list.count) reindex requests; issuing them one at a time, throttled")
        }
        var reports: [RequestReport] = []
        for (position, original) in list.enumerated() {
            var request = original
            if shedding {
                request.throttled = true
                try? requests.save(request)
                if position > 0 { Thread.sleep(forTimeInterval: throttleDelay) }
            }
            let name = SpotlightApp.registered(request.applicationIdentifier)?.displayName ?? request.applicationIdentifier
            let what = request.kind == .reindexAll ? "rebuilding \(request.indexName)" : "reindexing \(request.identifiers.count) items of \(request.indexName)"
            progress?("\(name): \(what) through its reindex extension (\(request.reason))…")
            let start = Date()
            let outcome = host.issue(request, store: requests)
            let seconds = Date().timeIntervalSince(start)
            let (text, message): (String, String?)
            switch outcome {
            case .acknowledged: (text, message) = ("acknowledged", nil)
            case .noExtension: (text, message) = ("pending", "\(name) has no reindex extension; it rebuilds at its next launch")
            case .appNotRegistered: (text, message) = ("app not registered", "\(request.applicationIdentifier) is not registered")
            case .failed(let why): (text, message) = ("failed", why)
            }
            progress?("\(name): \(text)\(message.map { " — \($0)" } ?? "") (\(String(format: "%.1f", seconds)) s)")
            if outcome == .acknowledged, request.kind == .reindexAll {
                var manifest = IndexManifest.load(root: root)
                manifest.add(app: request.applicationIdentifier, indexName: request.indexName)
                try? manifest.save(root: root)
            }
            reports.append(RequestReport(applicationIdentifier: request.applicationIdentifier, indexName: request.indexName,
                                         kind: request.kind, identifiers: request.identifiers.count,
                                         throttled: request.throttled, outcome: text, message: message, seconds: seconds))
        }
        return (reports, shedding)
    }
}

/// The indexes the system has seen, so that a lost one can be noticed: `<root>/system/indexes.json`.
struct IndexManifest: Codable {
    var apps: [String: Set<String>] = [:]

    static func url(root: URL) -> URL {
        SystemLocations.systemDirectory(root: root).appendingPathComponent("indexes.json")
    }

    static func load(root: URL) -> IndexManifest {
        guard let data = FileManager.default.contents(atPath: url(root: root).path),
              let manifest = try? JSONDecoder().decode(IndexManifest.self, from: data) else { return IndexManifest() }
        return manifest
    }

    func save(root: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try SystemLocations.writePrivateFile(try encoder.encode(self), to: Self.url(root: root))
    }

    mutating func add(app: String, indexName: String) {
        apps[app, default: []].insert(indexName)
    }

    mutating func remove(app: String, indexName: String) {
        apps[app]?.remove(indexName)
        if apps[app]?.isEmpty == true { apps[app] = nil }
    }
}
