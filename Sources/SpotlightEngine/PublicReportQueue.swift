import Foundation
import GRDB

/// Reports of public activities waiting to be sent to the public index (issue 16), per app, in
/// `apps/<app>/public-reports.sqlite`: written by `NSUserActivity.becomeCurrent()` in the app's process, sent and
/// removed by `spotlight public send` (or the desktop service). SQLite makes the queue durable (a report is on disk
/// when `becomeCurrent()` returns) and safe for the app and `spotlight` to use at once.
///
/// A report holds only what the public index needs: the activity's type, page, title, description and keywords,
/// the `requiredUserInfoKeys` part of its `userInfo`, the app, the UTC day, and the install's anonymous identifier.
/// One report per (activity, day): visiting a page ten times in a day is one report.
package final class PublicReportQueue: Sendable {
    /// How long one anonymous install identifier is used before a new random one replaces it.
    package static let installIdentifierLifetime: TimeInterval = 90 * 86_400
    /// Reports older than this are dropped unsent (the service would refuse them: they are outside its window).
    package static let maximumAge: TimeInterval = 28 * 86_400
    /// At most this many reports wait; the oldest are dropped past it.
    package static let capacity = 1_000

    package struct Report: Sendable, Equatable, Codable {
        package var id: Int64
        package var installID: String
        package var activityType: String
        package var webpageURL: String
        package var title: String
        package var description: String?
        package var keywords: [String]
        package var requiredUserInfoKeys: [String]
        /// JSON object: key → typed value (`{"string": "…"}`, as saved activities store them).
        package var userInfoJSON: String
        package var applicationIdentifier: String
        /// `YYYY-MM-DD`, UTC.
        package var day: String
    }

    let queue: DatabasePool
    package let url: URL

    package static func url(app: String, root: URL? = nil) -> URL {
        StoreLocation.appDirectory(for: app, root: root).appendingPathComponent("public-reports.sqlite")
    }

    package init(app: String, root: URL? = nil) throws {
        url = Self.url(app: app, root: root)
        queue = try openSideDatabase(url, busyTimeout: 10, schema: """
            CREATE TABLE IF NOT EXISTS install(id TEXT NOT NULL, created REAL NOT NULL);
            CREATE TABLE IF NOT EXISTS report(
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                installID TEXT NOT NULL, activityType TEXT NOT NULL, webpageURL TEXT NOT NULL,
                title TEXT NOT NULL, description TEXT, keywords TEXT NOT NULL, requiredKeys TEXT NOT NULL,
                userInfo TEXT NOT NULL, app TEXT NOT NULL, day TEXT NOT NULL, created REAL NOT NULL,
                UNIQUE(activityType, webpageURL, day));
            """)
    }

    /// The install's current anonymous identifier: 32 random hex digits, replaced after
    /// `installIdentifierLifetime`.
    package func installIdentifier(now: Date = Date()) throws -> String {
        try queue.write { db in
            if let row = try Row.fetchOne(db, sql: "SELECT id, created FROM install LIMIT 1"),
               now.timeIntervalSince1970 - (row["created"] as Double) < Self.installIdentifierLifetime {
                return row["id"]
            }
            var generator = SystemRandomNumberGenerator()
            let id = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
            try db.execute(sql: "DELETE FROM install")
            try db.execute(sql: "INSERT INTO install(id, created) VALUES (?, ?)", arguments: [id, now.timeIntervalSince1970])
            return id
        }
    }

    /// Queues a report (the day's report of the same activity is replaced by the newer content).
    package func enqueue(activityType: String, webpageURL: String, title: String, description: String?,
                         keywords: [String], requiredUserInfoKeys: [String], userInfoJSON: String,
                         applicationIdentifier: String, now: Date = Date()) throws {
        let install = try installIdentifier(now: now)
        let day = Self.day(now)
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO report(installID, activityType, webpageURL, title, description, keywords, requiredKeys,
                                   userInfo, app, day, created)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(activityType, webpageURL, day) DO UPDATE SET
                    title = excluded.title, description = excluded.description, keywords = excluded.keywords,
                    requiredKeys = excluded.requiredKeys, userInfo = excluded.userInfo
                """, arguments: [install, activityType, webpageURL, title, description,
                                 Self.json(keywords), Self.json(requiredUserInfoKeys), userInfoJSON,
                                 applicationIdentifier, day, now.timeIntervalSince1970])
            try db.execute(sql: "DELETE FROM report WHERE created < ?",
                           arguments: [now.timeIntervalSince1970 - Self.maximumAge])
            try db.execute(sql: """
                DELETE FROM report WHERE id NOT IN (SELECT id FROM report ORDER BY id DESC LIMIT \(Self.capacity))
                """)
        }
    }

    /// The waiting reports, oldest first.
    package func pending(limit: Int = capacity) throws -> [Report] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM report ORDER BY id LIMIT ?", arguments: [limit]).map { row in
                Report(id: row["id"], installID: row["installID"], activityType: row["activityType"],
                       webpageURL: row["webpageURL"], title: row["title"], description: row["description"],
                       keywords: Self.strings(row["keywords"]), requiredUserInfoKeys: Self.strings(row["requiredKeys"]),
                       userInfoJSON: row["userInfo"], applicationIdentifier: row["app"], day: row["day"])
            }
        }
    }

    /// Removes reports the service acknowledged (or refused for good).
    package func remove(_ ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        try queue.write { db in
            try db.execute(sql: "DELETE FROM report WHERE id IN (\(ids.map(String.init).joined(separator: ",")))")
        }
    }

    /// Removes every waiting report (the user turned the public index off).
    package func removeAll() throws {
        try queue.write { db in try db.execute(sql: "DELETE FROM report") }
    }

    package static func day(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
    }

    static func json(_ strings: [String]) -> String {
        (try? JSONEncoder().encode(strings)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }

    static func strings(_ text: String?) -> [String] {
        text.flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? []
    }
}

/// Whether the user opted in to the public index, and which server: `<root>/public-index.json`, written by
/// `spotlight public set-server`. Off by default: without this file no report is even queued.
package struct PublicIndexSettings: Codable, Sendable, Equatable {
    package var server: String

    package init(server: String) { self.server = server }

    package static func url(root: URL? = nil) -> URL {
        (root ?? StoreLocation.rootDirectory).appendingPathComponent("public-index.json")
    }

    /// The settings, or nil when the public index is off (no file, or one that cannot be read).
    package static func load(root: URL? = nil) -> PublicIndexSettings? {
        guard let data = try? Data(contentsOf: url(root: root)) else { return nil }
        return try? JSONDecoder().decode(PublicIndexSettings.self, from: data)
    }

    package func save(root: URL? = nil) throws {
        let target = Self.url(root: root)
        try StoreLocation.createPrivateDirectory(target.deletingLastPathComponent())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(self).write(to: target, options: .atomic)
    }

    package static func remove(root: URL? = nil) throws {
        let target = url(root: root)
        if FileManager.default.fileExists(atPath: target.path) { try FileManager.default.removeItem(at: target) }
    }
}
