import Foundation

/// How a `spotlight-public` instance runs. Every instance of one deployment shares the database and, for the install
/// hashes to agree, the hash key; nothing else is kept between requests.
public struct PublicConfiguration: Sendable {
    /// `postgres://user[:password]@host[:port]/database[?sslmode=disable|require]`, or with `?host=/socket/dir`.
    public var databaseURL: String
    /// The address the HTTP server listens on.
    public var host: String = "127.0.0.1"
    /// 0 lets the system choose.
    public var port: Int = 8080

    /// The crowd threshold: a public activity becomes searchable once this many distinct installs reported it within
    /// `windowDays`.
    public var threshold: Int = 5
    /// The window, in days, that installs are counted over (and how old a report's day may be).
    public var windowDays: Int = 30
    /// The key install identifiers are hashed with (HMAC-SHA256). `nil`: a key drawn once and kept in the database.
    public var hashKey: Data?

    /// Reports one install may send per hour.
    public var reportsPerInstallPerHour: Int = 120
    /// Requests of any kind one client address may send per minute.
    public var requestsPerAddressPerMinute: Int = 600
    /// Whether `X-Forwarded-For`'s first address is the client's (behind a load balancer that sets it).
    public var trustForwardedFor: Bool = false

    /// The crawler's user agent: robots.txt groups are matched against its product token, `OpenSpotlightBot`.
    public var userAgent: String = "OpenSpotlightBot/1.0 (+https://github.com/openspotlight)"
    /// The shortest time between two fetches from one site (robots.txt's Crawl-delay can ask for more).
    public var minimumCrawlDelay: Double = 1
    /// The most pages fetched from one site per crawl.
    public var maximumPagesPerSite: Int = 1_000
    /// How many links away from the home page and the sitemaps the crawler goes.
    public var maximumLinkDepth: Int = 3
    /// A page larger than this is not read.
    public var maximumPageBytes: Int = 5 << 20
    /// One fetch's time limit.
    public var fetchTimeout: Double = 10
    /// How often a verified site is crawled again.
    public var recrawlInterval: Double = 24 * 3600
    /// Whether sites may be `http://` (tests and local development) rather than only `https://`.
    public var allowInsecureSites: Bool = false
    /// Whether sites may be on loopback or private addresses (tests and local development only: otherwise the crawler
    /// could be pointed at the service's own network).
    public var allowPrivateAddresses: Bool = false
    /// Whether this instance runs the crawler (any number of instances may; they share the queue).
    public var runsCrawler: Bool = true
    /// How often an idle crawler looks for due pages, in seconds.
    public var crawlerPollInterval: Double = 0.5

    /// Whether this instance refreshes the search candidate lists when they are due (one instance at a time does).
    public var refreshesSearchCandidates: Bool = true
    /// How often the candidate lists of broad words are ranked again, in seconds. Until then, items changed since the
    /// last refresh are ranked with the lists, so results stay complete; the refresh keeps that set small.
    public var searchCandidateRefreshInterval: Double = 3_600
    /// How many items a word prefix must match to get a candidate list (and have searches of it bounded).
    public var broadPrefixItems: Int = 5_000
    /// How many items changed since the last refresh make the next one due early (at most every twelfth of the
    /// interval): searches of broad words check each changed item, so this bounds their work under heavy writes.
    public var searchRefreshChangedItems: Int = 10_000

    public init(databaseURL: String) {
        self.databaseURL = databaseURL
    }
}
