import Foundation
import OpenCoreSpotlight
import SpotlightEngine

/// A request from the system to an app's extension: reindex all of one index or some items (persisted until the
/// app acknowledges it, so it survives a crash of either side and is issued again), or provide an item's data, a
/// file of it, or its current version (asked and answered at once, never left pending).
///
/// On disk: `<root>/system/requests/<app>/<id>.json`; the acknowledgement is `<id>.ack` beside it, the answer to a
/// `provide…` request `<id>.reply`, and what went wrong, when the app says, `<id>.error`.
///
/// ```json
/// {"id": "6F1C…", "applicationIdentifier": "com.example.colleagues", "indexName": "_default",
///  "kind": "reindexAll", "identifiers": [], "reason": "the index file is damaged",
///  "throttled": false, "createdAt": 1700000000, "attempts": 1}
/// ```
public struct ReindexRequest: Codable, Sendable, Hashable {
    public enum Kind: String, Codable, Sendable {
        /// `searchableIndex(_:reindexAllSearchableItemsWithAcknowledgementHandler:)`.
        case reindexAll
        /// `searchableIndex(_:reindexSearchableItemsWithIdentifiers:acknowledgementHandler:)`.
        case reindexIdentifiers
        /// `data(for:itemIdentifier:typeIdentifier:)`: the reply is the bytes.
        case provideData
        /// `fileURL(for:itemIdentifier:typeIdentifier:inPlace:)`: the reply is the file's path.
        case provideFile
        /// `searchableItems(forIdentifiers:)`: the reply is the items as JSON (`ItemSnapshot`).
        case provideItems

        /// Whether the request asks to reindex (and waits, persisted, until acknowledged).
        public var isReindex: Bool { self == .reindexAll || self == .reindexIdentifiers }
    }

    public var id: String
    public var applicationIdentifier: String
    /// The index to rebuild; `_default` is `CSSearchableIndex.default()`.
    public var indexName: String
    public var kind: Kind
    public var identifiers: [String]
    /// The uniform type identifier of a `provideData` or `provideFile` request.
    public var typeIdentifier: String?
    /// Whether a `provideFile` request asks for the original file (`inPlace`) rather than a copy.
    public var inPlace: Bool?
    /// Why the system asks, for people.
    public var reason: String
    /// Whether the system is shedding load: the extension gets `searchableIndexDidThrottle` first.
    public var throttled: Bool
    public var createdAt: Date
    /// How many times the request was issued.
    public var attempts: Int
    public var lastAttempt: Date?

    public init(applicationIdentifier: String, indexName: String, kind: Kind, identifiers: [String] = [],
                reason: String, now: Date = Date()) {
        self.id = UUID().uuidString
        self.applicationIdentifier = applicationIdentifier
        self.indexName = indexName
        self.kind = kind
        self.identifiers = identifiers
        self.reason = reason
        self.throttled = false
        self.createdAt = now
        self.attempts = 0
        self.lastAttempt = nil
    }
}

/// The persisted requests of every app.
public struct ReindexRequestStore: Sendable {
    public let root: URL

    public init(root: URL = OpenSpotlight.rootDirectory) {
        self.root = root
    }

    var directory: URL {
        SystemLocations.systemDirectory(root: root).appendingPathComponent("requests", isDirectory: true)
    }

    func appDirectory(_ app: String) -> URL {
        directory.appendingPathComponent(SpotlightApp.desktopFileID(app) + "-" + String(stableHash(app).prefix(8)),
                                         isDirectory: true)
    }

    /// The file of a request.
    public func file(of request: ReindexRequest) -> URL {
        appDirectory(request.applicationIdentifier).appendingPathComponent(request.id + ".json")
    }

    /// The acknowledgement file of a request file.
    public static func acknowledgementFile(for requestFile: URL) -> URL {
        requestFile.deletingPathExtension().appendingPathExtension("ack")
    }

    /// The answer to a `provide…` request.
    public static func replyFile(for requestFile: URL) -> URL {
        requestFile.deletingPathExtension().appendingPathExtension("reply")
    }

    /// Why the app could not do what a request asked, in its words.
    public static func errorFile(for requestFile: URL) -> URL {
        requestFile.deletingPathExtension().appendingPathExtension("error")
    }

    /// Saves a request (new or updated).
    public func save(_ request: ReindexRequest) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        try SystemLocations.writePrivateFile(try encoder.encode(request), to: file(of: request))
    }

    /// Adds a request unless an equivalent one is pending: a pending reindex-all of the same index covers
    /// everything; identifiers are merged into a pending reindex of identifiers. Returns the pending request.
    @discardableResult
    public func add(_ request: ReindexRequest) throws -> ReindexRequest {
        let pending = self.pending(app: request.applicationIdentifier).filter { $0.indexName == request.indexName }
        if let all = pending.first(where: { $0.kind == .reindexAll }) { return all }
        if request.kind == .reindexIdentifiers, var existing = pending.first(where: { $0.kind == .reindexIdentifiers }) {
            existing.identifiers = Array(Set(existing.identifiers).union(request.identifiers)).sorted()
            try save(existing)
            return existing
        }
        if request.kind == .reindexAll {
            for old in pending { remove(old) }  // reindex-all covers them
        }
        try save(request)
        return request
    }

    /// Pending (unacknowledged) requests, oldest first, for one app or all.
    public func pending(app: String? = nil) -> [ReindexRequest] {
        let fm = FileManager.default
        let dirs: [URL]
        if let app {
            dirs = [appDirectory(app)]
        } else {
            dirs = ((try? fm.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
                .map { directory.appendingPathComponent($0, isDirectory: true) }
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        var out: [ReindexRequest] = []
        for dir in dirs {
            for name in ((try? fm.contentsOfDirectory(atPath: dir.path)) ?? []) where name.hasSuffix(".json") {
                let url = dir.appendingPathComponent(name)
                guard let data = fm.contents(atPath: url.path),
                      let request = try? decoder.decode(ReindexRequest.self, from: data) else { continue }
                // A `provide…` request is answered while its asker waits; one found here was left by a killed
                // asker, and nobody wants its answer any more.
                guard request.kind.isReindex else {
                    remove(request)
                    continue
                }
                if isAcknowledged(request) {
                    remove(request)
                    continue
                }
                out.append(request)
            }
        }
        return out.sorted { $0.createdAt != $1.createdAt ? $0.createdAt < $1.createdAt : $0.id < $1.id }
    }

    /// Whether the app acknowledged a request.
    public func isAcknowledged(_ request: ReindexRequest) -> Bool {
        FileManager.default.fileExists(atPath: Self.acknowledgementFile(for: file(of: request)).path)
    }

    /// Records the acknowledgement of a request (what the extension runner does once the app acknowledged).
    public static func acknowledge(requestFile: URL) throws {
        let ack = acknowledgementFile(for: requestFile)
        try SystemLocations.writePrivateFile(Data("{\"acknowledgedAt\": \(Date().timeIntervalSince1970)}\n".utf8), to: ack)
    }

    /// Forgets a request and its acknowledgement.
    public func remove(_ request: ReindexRequest) {
        let url = file(of: request)
        for file in [url, Self.acknowledgementFile(for: url), Self.replyFile(for: url), Self.errorFile(for: url)] {
            try? FileManager.default.removeItem(at: file)
        }
    }
}

/// FNV-1a of a string as hex, for short stable file names.
func stableHash(_ text: String) -> String {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 {
        h ^= UInt64(byte)
        h = h &* 0x0000_0100_0000_01b3
    }
    return String(h, radix: 16)
}
