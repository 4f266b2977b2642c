import Foundation
import Logging
import PostgresNIO
import SpotlightWebMarkup

/// The polite crawler of verified sites. Its frontier is the `crawl_page` table, so any number of instances crawl
/// together: each claims a due page with `for update skip locked`, and a site's `next_fetch_at` spaces its fetches by
/// its Crawl-delay (never less than `minimumCrawlDelay`). robots.txt is read when a crawl starts and honoured for every
/// page; `noindex` (meta robots or `X-Robots-Tag`) removes a page's items, `nofollow` stops its links; sitemaps and
/// same-site links feed the frontier up to `maximumLinkDepth` and `maximumPagesPerSite`. A redirect becomes a new
/// frontier entry on the same site, so a redirect loop ends where a URL repeats.
public final class Crawler: Sendable {
    let configuration: PublicConfiguration
    let client: PostgresClient
    let fetcher: Fetcher
    let logger: Logger
    /// The robots.txt product token.
    static let robotsAgent = "OpenSpotlightBot"

    init(configuration: PublicConfiguration, client: PostgresClient, logger: Logger) {
        self.configuration = configuration
        self.client = client
        self.fetcher = Fetcher(configuration: configuration)
        self.logger = logger
    }

    func shutdown() async { await fetcher.shutdown() }

    /// Reads robots.txt and queues the site's home page and sitemaps.
    func startCrawl(siteID: Int64, origin: String) async throws {
        var robotsText = ""
        if let url = URL(string: origin + "/robots.txt") {
            do {
                let page = try await fetcher.get(url, limit: 512 << 10)
                switch page.status {
                case 200: robotsText = String(decoding: page.body, as: UTF8.self)
                // RFC 9309: a server error means "assume everything is disallowed" until it can be read.
                case 500...599: robotsText = "User-agent: *\nDisallow: /\n"
                default: robotsText = ""  // 4xx: no rules
                }
            } catch {
                robotsText = "User-agent: *\nDisallow: /\n"
            }
        }
        let robots = RobotsTxt(robotsText)
        let delay = max(configuration.minimumCrawlDelay, min(robots.crawlDelay(userAgent: Self.robotsAgent) ?? 0, 60))
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("""
                update site set robots_txt = \(robotsText), crawl_delay = \(delay), last_crawl_started = now(),
                    next_fetch_at = now() where id = \(siteID)
                """, logger: logger)
            // A new crawl: every known URL is due again, and the entry points are queued.
            try await connection.query("""
                update crawl_page set state = 'queued', attempts = 0, not_before = now(), locked_until = null
                where site_id = \(siteID)
                """, logger: logger)
            var sitemaps = robots.sitemaps.map(\.absoluteString).filter { $0.hasPrefix(origin + "/") }
            sitemaps.append(origin + "/sitemap.xml")
            for sitemap in sitemaps {
                try await connection.query("""
                    insert into crawl_page (site_id, url, kind) values (\(siteID), \(sitemap), 'sitemap')
                    on conflict do nothing
                    """, logger: logger)
            }
            try await connection.query("""
                insert into crawl_page (site_id, url, kind) values (\(siteID), \(origin + "/"), 'page') on conflict do nothing
                """, logger: logger)
        }
    }

    /// Runs until cancelled: fetches due pages, and starts due recrawls.
    func run() async {
        var lastHousekeeping = Date.distantPast
        while !Task.isCancelled {
            do {
                if Date().timeIntervalSince(lastHousekeeping) > 60 {
                    lastHousekeeping = Date()
                    try await recrawlDueSites()
                    try await RateLimiter.prune(client: client, logger: logger)
                }
                if try await crawlOne() { continue }
            } catch is CancellationError {
                return
            } catch {
                logger.warning("crawler: \(error)")
            }
            try? await Task.sleep(for: .milliseconds(Int(configuration.crawlerPollInterval * 1_000)))
        }
    }

    /// Queues every verified site whose last crawl started more than `recrawlInterval` ago.
    func recrawlDueSites() async throws {
        var due: [(Int64, String)] = []
        for try await row in try await client.query("""
            select id, origin from site where verified_at is not null
            and (last_crawl_started is null or last_crawl_started < now() - make_interval(secs => \(configuration.recrawlInterval)))
            """, logger: logger).decode((Int64, String).self) { due.append(row) }
        for (id, origin) in due { try await startCrawl(siteID: id, origin: origin) }
    }

    struct Claim { var siteID: Int64; var url: String; var kind: String; var depth: Int; var attempts: Int
        var robots: String; var origin: String; var application: String?; var appName: String? }

    /// Claims one due page of a site that may be fetched now, fetches and processes it. Returns false when nothing
    /// was due.
    func crawlOne() async throws -> Bool {
        let claim: Claim? = try await client.withTransaction(logger: logger) { connection in
            var claim: Claim?
            for try await row in try await connection.query("""
                select s.id, s.robots_txt, s.origin, s.app_identifier, s.app_name, s.crawl_delay
                from site s
                where s.verified_at is not null and s.next_fetch_at <= now()
                  and exists (select 1 from crawl_page p where p.site_id = s.id and p.state = 'queued'
                              and p.not_before <= now() and (p.locked_until is null or p.locked_until < now()))
                order by s.next_fetch_at limit 1
                for update skip locked
                """, logger: logger).decode((Int64, String?, String, String?, String?, Double).self) {
                let (siteID, robots, origin, application, appName, delay) = row
                for try await page in try await connection.query("""
                    update crawl_page set locked_until = now() + interval '2 minutes', attempts = attempts + 1
                    where (site_id, url) = (
                        select site_id, url from crawl_page
                        where site_id = \(siteID) and state = 'queued' and not_before <= now()
                          and (locked_until is null or locked_until < now())
                        -- sitemaps first, then the shallowest pages
                        order by kind = 'sitemap' desc, depth, not_before limit 1
                        for update skip locked)
                    returning url, kind, depth, attempts
                    """, logger: logger).decode((String, String, Int, Int).self) {
                    claim = Claim(siteID: siteID, url: page.0, kind: page.1, depth: page.2, attempts: page.3,
                                  robots: robots ?? "", origin: origin, application: application, appName: appName)
                }
                try await connection.query(
                    "update site set next_fetch_at = now() + make_interval(secs => \(delay)) where id = \(siteID)",
                    logger: logger)
            }
            return claim
        }
        guard let claim else { return false }
        await process(claim)
        return true
    }

    /// What became of a claimed URL.
    enum Outcome {
        case done(note: String?, status: Int?)
        case skipped(String, status: Int?)
        case failed(String, status: Int?, retry: Bool)
    }

    func process(_ claim: Claim) async {
        let outcome: Outcome
        do {
            outcome = try await fetchAndStore(claim)
        } catch let error as Fetcher.Failure {
            // Too large, or an address the crawler may not fetch: trying again cannot help.
            outcome = .skipped("\(error)", status: nil)
        } catch let error as WebMarkupError {
            outcome = .skipped("unreadable: \(error)", status: nil)
        } catch {
            // The network or the database: worth another try.
            outcome = .failed("\(error)", status: nil, retry: true)
        }
        do {
            try await finish(claim, outcome)
        } catch {
            logger.warning("crawler: could not record \(claim.url): \(error)")
        }
    }

    func fetchAndStore(_ claim: Claim) async throws -> Outcome {
        guard let url = URL(string: claim.url) else { return .skipped("not a URL", status: nil) }
        let robots = RobotsTxt(claim.robots)
        guard robots.isAllowed(url, userAgent: Self.robotsAgent) else {
            try await removeItems(siteID: claim.siteID, pageURL: claim.url)
            return .skipped("disallowed by robots.txt", status: nil)
        }
        let page = try await fetcher.get(url, limit: configuration.maximumPageBytes)
        switch page.status {
        case 200:
            break
        case 301, 302, 303, 307, 308:
            guard let location = page.header("Location"), let target = URL(string: location, relativeTo: url)?.absoluteURL,
                  let targetText = Self.withoutFragment(target) else {
                return .skipped("redirect without a usable Location", status: page.status)
            }
            guard targetText.hasPrefix(claim.origin + "/") || targetText == claim.origin else {
                return .skipped("redirect off the site to \(targetText)", status: page.status)
            }
            try await enqueue([targetText], siteID: claim.siteID, kind: claim.kind, depth: claim.depth)
            return .skipped("redirect to \(targetText)", status: page.status)
        case 404, 410:
            try await removeItems(siteID: claim.siteID, pageURL: claim.url)
            return .failed("gone", status: page.status, retry: false)
        case 429, 500...599:
            return .failed("server answered \(page.status)", status: page.status, retry: true)
        default:
            return .failed("server answered \(page.status)", status: page.status, retry: false)
        }

        if claim.kind == "sitemap" {
            let sitemap = try Sitemap.parse(page.body)
            let pages = sitemap.pages.compactMap(Self.withoutFragment).filter { $0.hasPrefix(claim.origin + "/") || $0 == claim.origin }
            let nested = sitemap.sitemaps.compactMap(Self.withoutFragment).filter { $0.hasPrefix(claim.origin + "/") }
            try await enqueue(pages, siteID: claim.siteID, kind: "page", depth: 0)
            try await enqueue(nested, siteID: claim.siteID, kind: "sitemap", depth: 0)
            return .done(note: "\(pages.count) pages, \(nested.count) sitemaps", status: 200)
        }

        let contentType = page.header("Content-Type")
        if let contentType, !contentType.lowercased().contains("html") {
            return .skipped("not HTML (\(contentType))", status: 200)
        }
        let headerRobots = (page.header("X-Robots-Tag") ?? "").lowercased()
        let webPage = try WebMarkup.parse(html: page.body, url: url, contentType: contentType,
                                          limit: configuration.maximumPageBytes)
        let noindex = webPage.robots.noindex || headerRobots.contains("noindex") || headerRobots.contains("none")
        let nofollow = webPage.robots.nofollow || headerRobots.contains("nofollow") || headerRobots.contains("none")
        if noindex {
            try await removeItems(siteID: claim.siteID, pageURL: claim.url)
        } else {
            try await store(webPage.items(), claim: claim)
        }
        if !nofollow, claim.depth < configuration.maximumLinkDepth {
            let links = webPage.links.compactMap(Self.withoutFragment).filter { $0.hasPrefix(claim.origin + "/") }
            try await enqueue(links, siteID: claim.siteID, kind: "page", depth: claim.depth + 1)
        }
        return .done(note: noindex ? "noindex" : nil, status: 200)
    }

    static func withoutFragment(_ url: URL) -> String? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return nil }
        components.fragment = nil
        components.scheme = components.scheme?.lowercased()
        components.host = components.host?.lowercased()
        if components.path.isEmpty { components.path = "/" }
        return components.string
    }

    /// Adds URLs to the frontier (known ones stay as they are), up to the site's page budget.
    func enqueue(_ urls: [String], siteID: Int64, kind: String, depth: Int) async throws {
        let unique = Array(Set(urls.filter { $0.utf8.count <= 2_048 })).sorted()
        guard !unique.isEmpty else { return }
        try await client.query("""
            insert into crawl_page (site_id, url, kind, depth)
            select \(siteID), u, \(kind), \(depth) from unnest(\(unique)::text[]) as u
            limit greatest(0, \(configuration.maximumPagesPerSite) - (select count(*) from crawl_page where site_id = \(siteID)))
            on conflict do nothing
            """, logger: logger)
    }

    func removeItems(siteID: Int64, pageURL: String) async throws {
        try await client.query(
            "delete from public_item where site_id = \(siteID) and page_url = \(pageURL)", logger: logger)
    }

    /// Replaces a page's items, in one transaction.
    func store(_ items: [WebItem], claim: Claim) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query(
                "delete from public_item where site_id = \(claim.siteID) and page_url = \(claim.url)", logger: logger)
            for item in items {
                let attributes = String(decoding: try encoder.encode(item.attributes), as: UTF8.self)
                try await connection.query("""
                    insert into public_item (source, site_id, page_url, kind, url, title, description, image_url, keywords,
                                             attributes, deep_link, app_identifier, app_store_id, app_name)
                    values ('web', \(claim.siteID), \(claim.url), \(item.kind), \(item.url.absoluteString), \(item.title),
                            \(item.description), \(item.imageURL?.absoluteString), \(item.keywords), \(attributes)::jsonb,
                            \(item.deepLink?.absoluteString), \(claim.application), \(item.appStoreID),
                            \(item.appName ?? claim.appName))
                    """, logger: logger)
            }
        }
    }

    func finish(_ claim: Claim, _ outcome: Outcome) async throws {
        let state: String, note: String?, status: Int?, retryAfter: Double?
        switch outcome {
        case .done(let text, let code): (state, note, status, retryAfter) = ("done", text, code, nil)
        case .skipped(let text, let code): (state, note, status, retryAfter) = ("skipped", text, code, nil)
        case .failed(let text, let code, let retry):
            // Up to three tries, a minute apart, then the page waits for the next crawl.
            let again = retry && claim.attempts < 3
            (state, note, status, retryAfter) = (again ? "queued" : "failed", text, code, again ? 60 : nil)
        }
        try await client.query("""
            update crawl_page set state = \(state), note = \(note.map { String($0.prefix(500)) }), http_status = \(status),
                fetched_at = now(), locked_until = null,
                not_before = now() + make_interval(secs => \(retryAfter ?? 0))
            where site_id = \(claim.siteID) and url = \(claim.url)
            """, logger: logger)
    }
}
