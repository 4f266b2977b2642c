import Foundation
import Logging
import PostgresNIO
import SpotlightWebMarkup

/// `POST /v1/sites`: a site an app's developer wants crawled for web markup.
public struct SiteRegistration: Codable, Sendable {
    /// Any URL on the site; its origin (scheme, host, port) is what is registered.
    public var url: String
    /// The app whose pages these are: results are continued in it where it is installed.
    public var applicationIdentifier: String?
    public var appName: String?

    public init(url: String, applicationIdentifier: String? = nil, appName: String? = nil) {
        self.url = url
        self.applicationIdentifier = applicationIdentifier
        self.appName = appName
    }
}

/// A registered site and how its crawl stands.
public struct SiteStatus: Codable, Sendable, Equatable {
    public var id: Int64
    public var origin: String
    /// Serve exactly this text at `verificationURL` to prove control of the site (shown until verified).
    public var verificationToken: String?
    public var verificationURL: String
    public var verified: Bool
    public var pages: [String: Int]
    public var items: Int
}

/// Registration and verification of sites.
enum Sites {
    /// The path a registrant serves the token at.
    static let verificationPath = "/.well-known/openspotlight"

    /// `scheme://host[:port]` of an http(s) URL, lower case.
    static func origin(of text: String, allowInsecure: Bool) throws -> String {
        guard text.utf8.count <= 2_048, let components = URLComponents(string: text),
              let scheme = components.scheme?.lowercased(), scheme == "https" || (scheme == "http" && allowInsecure),
              let host = components.host?.lowercased(), !host.isEmpty else {
            throw PublicAPIError.invalid("url", allowInsecure ? "must be an http or https URL" : "must be an https URL")
        }
        let port = components.port.map { ":\($0)" } ?? ""
        return "\(scheme)://\(host)\(port)"
    }

    static func register(_ registration: SiteRegistration, configuration: PublicConfiguration, client: PostgresClient,
                         logger: Logger) async throws -> SiteStatus {
        let origin = try origin(of: registration.url, allowInsecure: configuration.allowInsecureSites)
        let application = try registration.applicationIdentifier.map {
            try Reports.text($0, field: "applicationIdentifier", limit: 256)
        }
        let appName = try registration.appName.map { try Reports.text($0, field: "appName", limit: 256) }
        let token = "openspotlight-site-verification=" + randomHex(24)
        // A pending registration of the same origin is replaced (whoever serves its token wins); a verified one stays.
        let rows = try await client.query("""
            insert into site (origin, token, app_identifier, app_name) values (\(origin), \(token), \(application), \(appName))
            on conflict (origin) do update set token = excluded.token, app_identifier = excluded.app_identifier,
                app_name = excluded.app_name, created_at = now()
            where site.verified_at is null
            returning id
            """, logger: logger)
        for try await id in rows.decode(Int64.self) {
            return try await status(id: id, client: client, logger: logger, showToken: true)
        }
        throw PublicAPIError(.conflict, code: "already-registered", "\(origin) is registered and verified already")
    }

    /// Fetches the verification file; when it holds the token, the site is verified and its first crawl queued.
    static func verify(id: Int64, crawler: Crawler, client: PostgresClient, logger: Logger) async throws -> SiteStatus {
        var found: (String, String, Bool)?
        for try await row in try await client.query(
            "select origin, token, verified_at is not null from site where id = \(id)", logger: logger
        ).decode((String, String, Bool).self) { found = row }
        guard let (origin, token, verified) = found else { throw PublicAPIError.notFound("no site \(id)") }
        if !verified {
            guard let url = URL(string: origin + verificationPath) else { throw PublicAPIError.notFound("no site \(id)") }
            let page: Fetcher.Page
            do {
                page = try await crawler.fetcher.get(url, limit: 4_096)
            } catch {
                throw PublicAPIError(.unprocessableContent, code: "verification-failed", "could not fetch \(url): \(error)")
            }
            guard page.status == 200 else {
                throw PublicAPIError(.unprocessableContent, code: "verification-failed",
                                     "\(url) answered \(page.status), not 200 with the token")
            }
            guard String(decoding: page.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == token else {
                throw PublicAPIError(.unprocessableContent, code: "verification-failed",
                                     "\(url) does not hold this registration's token")
            }
            try await client.query("update site set verified_at = now() where id = \(id)", logger: logger)
            try await crawler.startCrawl(siteID: id, origin: origin)
        }
        return try await status(id: id, client: client, logger: logger, showToken: false)
    }

    static func status(id: Int64, client: PostgresClient, logger: Logger, showToken: Bool = false) async throws -> SiteStatus {
        var site: (String, String, Bool)?
        for try await row in try await client.query(
            "select origin, token, verified_at is not null from site where id = \(id)", logger: logger
        ).decode((String, String, Bool).self) { site = row }
        guard let (origin, token, verified) = site else { throw PublicAPIError.notFound("no site \(id)") }
        var pages: [String: Int] = [:]
        for try await (state, count) in try await client.query(
            "select state, count(*)::int from crawl_page where site_id = \(id) and kind = 'page' group by state",
            logger: logger
        ).decode((String, Int).self) { pages[state] = count }
        var items = 0
        for try await count in try await client.query(
            "select count(*)::int from public_item where site_id = \(id)", logger: logger).decode(Int.self) { items = count }
        return SiteStatus(id: id, origin: origin, verificationToken: verified && !showToken ? nil : token,
                          verificationURL: origin + verificationPath, verified: verified, pages: pages, items: items)
    }

    static func randomHex(_ bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
