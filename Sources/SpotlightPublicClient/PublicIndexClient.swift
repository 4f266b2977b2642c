import AsyncHTTPClient
import Foundation
import NIOCore
import OpenCoreSpotlight
import SpotlightEngine
import SpotlightSystem

/// The device's side of the public index (issue 16): it sends the reports apps queued (`NSUserActivity.becomeCurrent()`
/// of public activities) and asks the public index for results to show "From the web". Off until the user names a
/// server (`spotlight public set-server URL`, `PublicIndex.turnOn`).
public struct PublicIndexClient: Sendable {
    /// The service's address, e.g. `https://public.example.org`.
    public let server: URL
    let root: URL
    /// One request's time limit.
    public var timeout: TimeAmount = .seconds(3)

    public init(server: URL, root: URL = OpenSpotlight.rootDirectory) {
        self.server = server
        self.root = root
    }

    /// The client for the configured server, or nil while the public index is off.
    public static func configured(root: URL = OpenSpotlight.rootDirectory) -> PublicIndexClient? {
        guard let settings = PublicIndexSettings.load(root: root), let url = URL(string: settings.server) else { return nil }
        return PublicIndexClient(server: url, root: root)
    }

    // MARK: Reports

    /// What one `send` did.
    public struct SendSummary: Sendable, Equatable, Codable {
        /// Reports the service recorded (or had already: duplicates count here too), removed from the queues.
        public var sent = 0
        /// Reports the service refused for good (4xx other than 429), removed: sending them again cannot succeed.
        public var refused = 0
        /// Reports still queued because the service could not take them now (network, 429, 5xx).
        public var kept = 0
        /// Why some were refused or kept.
        public var problems: [String] = []
    }

    /// Sends every app's queued reports. A report leaves its queue only once the service acknowledged it (202) or
    /// refused it for good; anything else keeps it for the next send. Re-sending is harmless: the service counts
    /// one report per install, activity and day.
    public func sendQueuedReports() async -> SendSummary {
        var summary = SendSummary()
        for app in StoreLocation.installedApps(root: root)
        where FileManager.default.fileExists(atPath: PublicReportQueue.url(app: app, root: root).path) {
            let queue: PublicReportQueue, pending: [PublicReportQueue.Report]
            do {
                queue = try PublicReportQueue(app: app, root: root)
                pending = try queue.pending()
            } catch {
                summary.problems.append("\(app): the report queue cannot be read: \(error)")
                continue
            }
            var done: [Int64] = []
            for (index, report) in pending.enumerated() {
                switch await send(report) {
                case .sent:
                    summary.sent += 1
                    done.append(report.id)
                case .refused(let reason):
                    summary.refused += 1
                    summary.problems.append("\(app): refused \(report.webpageURL): \(reason)")
                    done.append(report.id)
                case .unavailable(let reason):
                    summary.kept += pending.count - index
                    summary.problems.append("\(app): the public index is unavailable: \(reason)")
                    try? queue.remove(done)
                    return summary
                }
            }
            do { try queue.remove(done) } catch { summary.problems.append("\(app): \(error)") }
        }
        return summary
    }

    enum Delivery { case sent, refused(String), unavailable(String) }

    struct WireReport: Encodable {
        var installID, activityType, webpageURL, title: String
        var description: String?
        var keywords, requiredUserInfoKeys: [String]
        var userInfo: [String: UserInfoValue]
        var applicationIdentifier, day: String
    }

    func send(_ report: PublicReportQueue.Report) async -> Delivery {
        let userInfo = (try? JSONDecoder().decode([String: UserInfoValue].self, from: Data(report.userInfoJSON.utf8))) ?? [:]
        // Never anything outside requiredUserInfoKeys, whatever the queue holds.
        let wire = WireReport(
            installID: report.installID, activityType: report.activityType, webpageURL: report.webpageURL,
            title: report.title, description: report.description, keywords: report.keywords,
            requiredUserInfoKeys: report.requiredUserInfoKeys,
            userInfo: userInfo.filter { report.requiredUserInfoKeys.contains($0.key) },
            applicationIdentifier: report.applicationIdentifier, day: report.day)
        do {
            var request = HTTPClientRequest(url: server.appendingPathComponent("v1/reports").absoluteString)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(wire)))
            let response = try await HTTPClient.shared.execute(request, timeout: timeout)
            let body = try await response.body.collect(upTo: 64 << 10)
            let text = String(buffer: body)
            switch response.status.code {
            case 200...299: return .sent
            case 429, 500...599: return .unavailable("\(response.status.code) \(Self.message(text))")
            default: return .refused("\(response.status.code) \(Self.message(text))")
            }
        } catch {
            return .unavailable("\(error)")
        }
    }

    /// The `message` of the service's JSON error, or the text.
    static func message(_ text: String) -> String {
        struct ErrorBody: Decodable { struct Detail: Decodable { var message: String }; var error: Detail }
        return (try? JSONDecoder().decode(ErrorBody.self, from: Data(text.utf8)))?.error.message ?? String(text.prefix(200))
    }

    // MARK: Search

    struct WirePage: Decodable { var results: [WireResult] }

    struct WireResult: Decodable {
        var source, kind, title, url: String
        var description, deepLink, applicationIdentifier, appName, activityType: String?
        var userInfo: [String: UserInfoValue]?

        enum CodingKeys: String, CodingKey {
            case source, kind, title, url, description, deepLink, applicationIdentifier, appName, activityType, userInfo
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            source = try c.decode(String.self, forKey: .source)
            kind = try c.decode(String.self, forKey: .kind)
            title = try c.decode(String.self, forKey: .title)
            url = try c.decode(String.self, forKey: .url)
            description = try c.decodeIfPresent(String.self, forKey: .description)
            deepLink = try c.decodeIfPresent(String.self, forKey: .deepLink)
            applicationIdentifier = try c.decodeIfPresent(String.self, forKey: .applicationIdentifier)
            appName = try c.decodeIfPresent(String.self, forKey: .appName)
            activityType = try c.decodeIfPresent(String.self, forKey: .activityType)
            // A value this device cannot read leaves the activity without userInfo rather than losing the result.
            userInfo = try? c.decodeIfPresent([String: UserInfoValue].self, forKey: .userInfo)
        }
    }

    /// Public results for typed text, best first (unnumbered: `SystemSearch.Outcome.appendWebResults` numbers them).
    public func search(_ text: String, limit: Int = 5) async throws -> [WebResult] {
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { return [] }
        guard var components = URLComponents(url: server.appendingPathComponent("v1/search"), resolvingAgainstBaseURL: false) else {
            throw SystemError("the public index address \(server) is not usable")
        }
        components.queryItems = [URLQueryItem(name: "q", value: text), URLQueryItem(name: "limit", value: String(limit))]
        guard let address = components.url?.absoluteString else { throw SystemError("the public index address \(server) is not usable") }
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: address), timeout: timeout)
        let body = try await response.body.collect(upTo: 4 << 20)
        guard response.status == .ok else {
            throw SystemError("the public index answered \(response.status.code): \(Self.message(String(buffer: body)))")
        }
        let page = try JSONDecoder().decode(WirePage.self, from: Data(body.readableBytesView))
        return page.results.map { result in
            WebResult(number: 0, source: result.source, kind: result.kind, title: result.title,
                      description: result.description, url: result.url, deepLink: result.deepLink,
                      applicationIdentifier: result.applicationIdentifier, appName: result.appName,
                      activityType: result.activityType, userInfo: result.userInfo)
        }
    }
}

/// Turning the public index on and off.
public enum PublicIndex {
    /// Opts in: reports of public activities are queued from now on and sent to `server`; searches show its results.
    public static func turnOn(server: URL, root: URL = OpenSpotlight.rootDirectory) throws {
        guard let scheme = server.scheme?.lowercased(), scheme == "https" || scheme == "http", server.host != nil else {
            throw SystemError("the public index server must be an http or https URL, not \(server.absoluteString)")
        }
        try PublicIndexSettings(server: server.absoluteString).save(root: root)
    }

    /// Opts out: the setting and every queued, unsent report are removed.
    public static func turnOff(root: URL = OpenSpotlight.rootDirectory) throws {
        try PublicIndexSettings.remove(root: root)
        for app in StoreLocation.installedApps(root: root)
        where FileManager.default.fileExists(atPath: PublicReportQueue.url(app: app, root: root).path) {
            try PublicReportQueue(app: app, root: root).removeAll()
        }
    }

    /// The configured server, or nil while off.
    public static func server(root: URL = OpenSpotlight.rootDirectory) -> String? {
        PublicIndexSettings.load(root: root)?.server
    }

    /// Reports waiting in every app's queue.
    public static func queuedReports(root: URL = OpenSpotlight.rootDirectory) -> Int {
        StoreLocation.installedApps(root: root).reduce(0) { count, app in
            guard FileManager.default.fileExists(atPath: PublicReportQueue.url(app: app, root: root).path),
                  let queue = try? PublicReportQueue(app: app, root: root) else { return count }
            return count + ((try? queue.pending().count) ?? 0)
        }
    }
}
