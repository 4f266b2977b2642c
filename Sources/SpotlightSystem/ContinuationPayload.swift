import Foundation
import OpenCoreSpotlight

/// What the system hands an app to continue: an `NSUserActivity` in transportable form, addressed to one app.
///
/// It travels as a URL on the app's command line (`Exec`'s `%u`):
///
/// ```
/// openspotlight://continue?activity=<base64url of the JSON below>
/// openspotlight://continue?file=<percent-encoded path of the JSON>      (payloads over 64 KiB)
/// ```
///
/// ```json
/// {"version": 1, "applicationIdentifier": "com.example.colleagues",
///  "activityType": "com.apple.corespotlightitem",
///  "userInfo": {"kCSSearchableItemActivityIdentifier": {"string": "employee-7"}}}
/// ```
///
/// `userInfo` values use `UserInfoValue`'s JSON form, so types survive the trip.
public struct ContinuationPayload: Codable, Sendable, Hashable {
    /// The URL scheme and host of continuation URLs.
    public static let scheme = "openspotlight"
    public static let host = "continue"
    /// Payloads whose encoded URL would exceed this many bytes travel in a file instead.
    public static let maximumInlineSize = 64 * 1024

    public var version: Int
    /// The app the activity is for; another app's `ContinuationHandler` refuses it.
    public var applicationIdentifier: String
    public var activityType: String
    public var title: String?
    public var userInfo: [String: UserInfoValue]
    public var requiredUserInfoKeys: [String]?
    public var webpageURL: String?
    public var persistentIdentifier: String?
    public var targetContentIdentifier: String?

    public init(applicationIdentifier: String, activityType: String, title: String? = nil,
                userInfo: [String: UserInfoValue] = [:], requiredUserInfoKeys: [String]? = nil,
                webpageURL: URL? = nil, persistentIdentifier: String? = nil, targetContentIdentifier: String? = nil) {
        self.version = SpotlightApp.protocolVersion
        self.applicationIdentifier = applicationIdentifier
        self.activityType = activityType
        self.title = title
        self.userInfo = userInfo
        self.requiredUserInfoKeys = requiredUserInfoKeys
        self.webpageURL = webpageURL?.absoluteString
        self.persistentIdentifier = persistentIdentifier
        self.targetContentIdentifier = targetContentIdentifier
    }

    /// Opening a Core Spotlight item: `CSSearchableItemActionType` with the item's identifier under
    /// `CSSearchableItemActivityIdentifier`, and the typed query under `CSSearchQueryString` when there was one.
    public static func item(_ identifier: String, applicationIdentifier: String, query: String? = nil) -> ContinuationPayload {
        var info: [String: UserInfoValue] = [CSSearchableItemActivityIdentifier: .string(identifier)]
        if let query, !query.isEmpty { info[CSSearchQueryString] = .string(query) }
        return ContinuationPayload(applicationIdentifier: applicationIdentifier, activityType: CSSearchableItemActionType,
                                   userInfo: info)
    }

    /// Continuing a search in the app: `CSQueryContinuationActionType` with the text under `CSSearchQueryString`.
    public static func search(_ query: String, applicationIdentifier: String) -> ContinuationPayload {
        ContinuationPayload(applicationIdentifier: applicationIdentifier, activityType: CSQueryContinuationActionType,
                            userInfo: [CSSearchQueryString: .string(query)])
    }

    /// Continuing a saved activity: its type, title and saved `userInfo`.
    public init(_ activity: SavedUserActivity, applicationIdentifier: String) {
        self.init(applicationIdentifier: applicationIdentifier, activityType: activity.activityType, title: activity.title,
                  userInfo: activity.userInfo, requiredUserInfoKeys: activity.requiredUserInfoKeys?.sorted(),
                  webpageURL: activity.webpageURL, persistentIdentifier: activity.persistentIdentifier,
                  targetContentIdentifier: activity.targetContentIdentifier)
    }

    #if !canImport(Darwin)
    /// The activity the app receives.
    public func makeUserActivity() -> NSUserActivity {
        let activity = NSUserActivity(activityType: activityType)
        activity.title = title
        activity.userInfo = UserInfoValue.userInfo(userInfo)
        activity.requiredUserInfoKeys = requiredUserInfoKeys.map(Set.init)
        activity.webpageURL = webpageURL.flatMap(URL.init(string:))
        activity.persistentIdentifier = persistentIdentifier
        activity.targetContentIdentifier = targetContentIdentifier
        return activity
    }

    /// A payload carrying an activity, for an app that continues its own activities (or for tests).
    public init(_ activity: NSUserActivity, applicationIdentifier: String = OpenSpotlight.applicationIdentifier) {
        self.init(applicationIdentifier: applicationIdentifier, activityType: activity.activityType, title: activity.title,
                  userInfo: UserInfoValue.dictionary(from: activity.userInfo ?? [:]) ?? [:],
                  requiredUserInfoKeys: activity.requiredUserInfoKeys?.sorted(), webpageURL: activity.webpageURL,
                  persistentIdentifier: activity.persistentIdentifier,
                  targetContentIdentifier: activity.targetContentIdentifier)
    }
    #endif

    // MARK: - Encoding

    /// The JSON form.
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }

    /// The continuation URL: inline, or through a private file under `directory` when the payload is large.
    public func url(fileDirectory directory: URL? = nil) throws -> String {
        let data = try json()
        let inline = "\(Self.scheme)://\(Self.host)?activity=" + Self.base64URL(data)
        if inline.utf8.count <= Self.maximumInlineSize { return inline }
        let dir = directory ?? SystemLocations.systemDirectory().appendingPathComponent("continuations", isDirectory: true)
        let file = dir.appendingPathComponent(UUID().uuidString + ".json")
        try SystemLocations.writePrivateFile(data, to: file)
        let path = file.path.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+"))) ?? file.path
        return "\(Self.scheme)://\(Self.host)?file=" + path
    }

    /// Reads a payload from a continuation URL, a base64url or JSON string, or a path to a JSON file.
    /// A payload file under the system's `continuations` directory is deleted once read.
    public static func parse(_ argument: String) throws -> ContinuationPayload {
        let data: Data
        if argument.hasPrefix("\(scheme)://") {
            guard let components = URLComponents(string: argument), components.host == host else {
                throw SystemError("not a continuation URL: \(argument.prefix(80))")
            }
            let items = components.queryItems ?? []
            if let encoded = items.first(where: { $0.name == "activity" })?.value {
                guard let decoded = decodeBase64URL(encoded) else { throw SystemError("the continuation URL's activity is not base64url") }
                data = decoded
            } else if let path = items.first(where: { $0.name == "file" })?.value {
                data = try readFile(path)
            } else {
                throw SystemError("the continuation URL carries no activity")
            }
        } else if argument.hasPrefix("{") {
            data = Data(argument.utf8)
        } else if argument.hasPrefix("/") {
            data = try readFile(argument)
        } else if let decoded = decodeBase64URL(argument) {
            data = decoded
        } else {
            throw SystemError("not a continuation: \(argument.prefix(80))")
        }
        let payload: ContinuationPayload
        do {
            payload = try JSONDecoder().decode(ContinuationPayload.self, from: data)
        } catch {
            throw SystemError("the continuation is not valid: \(error)")
        }
        guard payload.version <= SpotlightApp.protocolVersion else {
            throw SystemError("the continuation has protocol version \(payload.version); this app reads \(SpotlightApp.protocolVersion)")
        }
        return payload
    }

    private static func readFile(_ path: String) throws -> Data {
        let url = URL(fileURLWithPath: path)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw SystemError("cannot read the continuation file \(path)")
        }
        if url.deletingLastPathComponent().lastPathComponent == "continuations" {
            try? FileManager.default.removeItem(at: url)
        }
        return data
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decodeBase64URL(_ text: String) -> Data? {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s)
    }
}
