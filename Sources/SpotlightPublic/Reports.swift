import Crypto
import Foundation
import Logging
import PostgresNIO

/// A JSON value, for `userInfo` as reported (property-list values arrive as JSON).
public enum JSONValue: Codable, Equatable, Sendable {
    case string(String), number(Double), bool(Bool), null
    case array([JSONValue]), object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

/// `POST /v1/reports`: one device's engagement with one public activity.
public struct ActivityReport: Codable, Sendable, Equatable {
    /// The app install's anonymous identifier: random, rotated by the device; hashed before it is stored.
    public var installID: String
    public var activityType: String
    public var webpageURL: String
    public var title: String
    public var description: String?
    public var keywords: [String]?
    /// The keys of `userInfo` the app needs to continue the activity; every other key is dropped, here and on the device.
    public var requiredUserInfoKeys: [String]?
    public var userInfo: [String: JSONValue]?
    /// The reporting app's identifier, so that `spotlight` can continue the result in it where it is installed.
    public var applicationIdentifier: String?
    /// The UTC day of the engagement (`YYYY-MM-DD`); default: today. Reports queued offline keep their day.
    public var day: String?

    public init(installID: String, activityType: String, webpageURL: String, title: String, description: String? = nil,
                keywords: [String]? = nil, requiredUserInfoKeys: [String]? = nil, userInfo: [String: JSONValue]? = nil,
                applicationIdentifier: String? = nil, day: String? = nil) {
        self.installID = installID
        self.activityType = activityType
        self.webpageURL = webpageURL
        self.title = title
        self.description = description
        self.keywords = keywords
        self.requiredUserInfoKeys = requiredUserInfoKeys
        self.userInfo = userInfo
        self.applicationIdentifier = applicationIdentifier
        self.day = day
    }
}

/// The answer to a report. It says whether the report counted, never whether (or how much) the activity is public.
public struct ReportReceipt: Codable, Sendable, Equatable {
    /// `recorded`, or `duplicate` when this install had already reported this activity that day.
    public var status: String
    /// The `userInfo` keys that were not in `requiredUserInfoKeys` and were dropped.
    public var droppedUserInfoKeys: [String]
}

/// A report that passed validation, as it is stored.
struct ValidatedReport: Sendable {
    var installHash: Data
    var activityType: String
    var webpageURL: String
    var title: String
    var description: String?
    var keywords: [String]
    var requiredKeys: [String]
    var userInfoJSON: String
    var applicationIdentifier: String?
    var day: String
    var contentHash: Data
    var droppedKeys: [String]
}

enum Reports {
    static let maximumTitle = 300, maximumDescription = 2_000, maximumKeywords = 50, maximumKeyword = 100
    static let maximumUserInfoBytes = 4_096, maximumRequiredKeys = 32

    /// Checks and normalises a report: every field bounded, the page an absolute http(s) URL, the day within the window,
    /// and `userInfo` cut down to `requiredUserInfoKeys`.
    static func validate(_ report: ActivityReport, hashKey: SymmetricKey, windowDays: Int,
                         now: Date = Date()) throws -> ValidatedReport {
        let install = report.installID
        guard (16...128).contains(install.utf8.count), install.unicodeScalars.allSatisfy({ $0.isASCII && !$0.properties.isWhitespace }) else {
            throw PublicAPIError.invalid("installID", "must be 16 to 128 printable ASCII characters")
        }
        let type = try text(report.activityType, field: "activityType", limit: 256)
        let url = try webpageURL(report.webpageURL)
        let title = try text(report.title, field: "title", limit: maximumTitle)
        let description = try report.description.map { try text($0, field: "description", limit: maximumDescription, allowEmpty: true) }
        let keywords = Array(Set(try (report.keywords ?? []).prefix(maximumKeywords + 1).map {
            try text($0, field: "keywords", limit: maximumKeyword)
        })).sorted()
        guard keywords.count <= maximumKeywords else { throw PublicAPIError.invalid("keywords", "at most \(maximumKeywords)") }
        let required = Array(Set(try (report.requiredUserInfoKeys ?? []).map { try text($0, field: "requiredUserInfoKeys", limit: 128) })).sorted()
        guard required.count <= maximumRequiredKeys else {
            throw PublicAPIError.invalid("requiredUserInfoKeys", "at most \(maximumRequiredKeys) keys")
        }
        // Never anything outside requiredUserInfoKeys: the device already cuts userInfo down; a device that does not
        // still has the rest dropped here, before anything is stored.
        let userInfo = (report.userInfo ?? [:]).filter { required.contains($0.key) }
        let dropped = (report.userInfo ?? [:]).keys.filter { !required.contains($0) }.sorted()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let userInfoData = try encoder.encode(userInfo)
        // PostgreSQL's jsonb cannot hold NUL characters.
        guard !String(decoding: userInfoData, as: UTF8.self).contains("\\u0000") else {
            throw PublicAPIError.invalid("userInfo", "values must not contain NUL characters")
        }
        guard userInfoData.count <= maximumUserInfoBytes else {
            throw PublicAPIError.invalid("userInfo", "the required keys' values exceed \(maximumUserInfoBytes) bytes")
        }
        let application = try report.applicationIdentifier.map { try text($0, field: "applicationIdentifier", limit: 256) }
        let day = try self.day(report.day, windowDays: windowDays, now: now)

        let installHash = Data(HMAC<SHA256>.authenticationCode(for: Data(install.utf8), using: hashKey))
        // The variant: exactly what would be published.
        struct Content: Encodable {
            var application: String?, title: String, description: String?, keywords: [String], required: [String]
            var userInfo: [String: JSONValue]
        }
        let content = try encoder.encode(Content(application: application, title: title, description: description,
                                                 keywords: keywords, required: required, userInfo: userInfo))
        return ValidatedReport(
            installHash: installHash, activityType: type, webpageURL: url, title: title, description: description,
            keywords: keywords, requiredKeys: required, userInfoJSON: String(decoding: userInfoData, as: UTF8.self),
            applicationIdentifier: application, day: day, contentHash: Data(SHA256.hash(data: content)),
            droppedKeys: dropped)
    }

    /// Trimmed text without control characters, at most `limit` characters.
    static func text(_ value: String, field: String, limit: Int, allowEmpty: Bool = false) throws -> String {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard allowEmpty || !trimmed.isEmpty else { throw PublicAPIError.invalid(field, "must not be empty") }
        guard trimmed.count <= limit else { throw PublicAPIError.invalid(field, "longer than \(limit) characters") }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\n" && $0 != "\t" }) else {
            throw PublicAPIError.invalid(field, "contains control characters")
        }
        return trimmed
    }

    /// An absolute http(s) URL with a host, without its fragment, scheme and host in lower case.
    static func webpageURL(_ value: String) throws -> String {
        guard value.utf8.count <= 2_048, var components = URLComponents(string: value),
              let scheme = components.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = components.host, !host.isEmpty else {
            throw PublicAPIError.invalid("webpageURL", "must be an absolute http or https URL of at most 2,048 bytes")
        }
        components.scheme = scheme
        components.host = host.lowercased()
        components.fragment = nil
        if components.path.isEmpty { components.path = "/" }
        guard let url = components.string else { throw PublicAPIError.invalid("webpageURL", "is not a valid URL") }
        return url
    }

    /// `YYYY-MM-DD`, not in the future (a day's grace for clocks) and not older than the window.
    static func day(_ value: String?, windowDays: Int, now: Date) throws -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let formatter = DateFormatter()
        formatter.calendar = calendar
        formatter.timeZone = calendar.timeZone
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        guard let value else { return formatter.string(from: now) }
        guard value.count == 10, let date = formatter.date(from: value), formatter.string(from: date) == value else {
            throw PublicAPIError.invalid("day", "must be a UTC day, YYYY-MM-DD")
        }
        let today = calendar.startOfDay(for: now)
        let age = calendar.dateComponents([.day], from: date, to: today).day ?? 0
        guard age >= -1, age < windowDays else {
            throw PublicAPIError.invalid("day", "must be within the last \(windowDays) days")
        }
        return value
    }

    /// Stores a report and, when its variant has now been reported by `threshold` distinct installs within the
    /// window, publishes the activity. One transaction: a report is acknowledged only once it is committed.
    static func record(_ report: ValidatedReport, in client: PostgresClient, threshold: Int, windowDays: Int,
                       logger: Logger) async throws -> ReportReceipt {
        try await client.withTransaction(logger: logger) { connection in
            // The activity's row lock serialises reports of one activity, so two reports arriving together both see
            // each other and the threshold is crossed exactly when the K-th install reports.
            var activityID: Int64 = 0
            for try await id in try await connection.query("""
                insert into activity (activity_type, webpage_url) values (\(report.activityType), \(report.webpageURL))
                on conflict (activity_type, webpage_url) do update set activity_type = excluded.activity_type
                returning id
                """, logger: logger).decode(Int64.self) { activityID = id }
            var variantID: Int64 = 0
            for try await id in try await connection.query("""
                insert into activity_variant (activity_id, content_hash, app_identifier, title, description, keywords,
                                              user_info, required_keys)
                values (\(activityID), \(report.contentHash), \(report.applicationIdentifier), \(report.title),
                        \(report.description), \(report.keywords), \(report.userInfoJSON)::jsonb, \(report.requiredKeys))
                on conflict (activity_id, content_hash) do update set content_hash = excluded.content_hash
                returning id
                """, logger: logger).decode(Int64.self) { variantID = id }
            var inserted = false
            for try await _ in try await connection.query("""
                insert into activity_report (variant_id, install_hash, day)
                values (\(variantID), \(report.installHash), \(report.day)::date)
                on conflict do nothing returning 1
                """, logger: logger) { inserted = true }
            if inserted {
                try await publish(activityID: activityID, connection: connection, threshold: threshold,
                                  windowDays: windowDays, logger: logger)
            }
            return ReportReceipt(status: inserted ? "recorded" : "duplicate", droppedUserInfoKeys: report.droppedKeys)
        }
    }

    /// Publishes (or refreshes) an activity from its most-reported variant that has reached the threshold; the
    /// engagement count is the distinct installs across all its variants within the window.
    static func publish(activityID: Int64, connection: PostgresConnection, threshold: Int, windowDays: Int,
                        logger: Logger) async throws {
        try await connection.query("""
            with counts as (
                select v.id, count(distinct r.install_hash) as installs, max(r.received_at) as latest
                from activity_variant v join activity_report r on r.variant_id = v.id
                where v.activity_id = \(activityID) and r.day > current_date - \(windowDays)::int
                group by v.id
            ), best as (
                select id from counts where installs >= \(threshold) order by installs desc, latest desc limit 1
            ), engagement as (
                select count(distinct r.install_hash)::int as installs
                from activity_variant v join activity_report r on r.variant_id = v.id
                where v.activity_id = \(activityID) and r.day > current_date - \(windowDays)::int
            )
            insert into public_item (source, activity_id, kind, url, title, description, keywords, app_identifier,
                                     activity_type, user_info, engagement, updated_at)
            select 'activity', a.id, 'Activity', a.webpage_url, v.title, v.description, v.keywords, v.app_identifier,
                   a.activity_type, v.user_info, (select installs from engagement), now()
            from best join activity_variant v on v.id = best.id join activity a on a.id = v.activity_id
            on conflict (activity_id) do update set
                title = excluded.title, description = excluded.description, keywords = excluded.keywords,
                app_identifier = excluded.app_identifier, user_info = excluded.user_info,
                engagement = excluded.engagement, updated_at = now()
            """, logger: logger)
    }
}
