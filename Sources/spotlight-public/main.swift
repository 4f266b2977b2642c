import ArgumentParser
import Foundation
import Logging
import SpotlightPublic

/// `spotlight-public`: the public index service (issue 16).
@main
struct SpotlightPublicCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spotlight-public",
        abstract: "The public index: crowd-sourced public activities and crawled web markup, searchable over HTTP.",
        subcommands: [Serve.self, Migrate.self, RefreshSearch.self],
        defaultSubcommand: Serve.self)
}

struct DatabaseOptions: ParsableArguments {
    @Option(name: .customLong("database"), help: "postgres://user@host:port/database (default: $OPENSPOTLIGHT_PUBLIC_DATABASE)")
    var database: String?

    func url() throws -> String {
        if let database { return database }
        if let value = ProcessInfo.processInfo.environment["OPENSPOTLIGHT_PUBLIC_DATABASE"], !value.isEmpty { return value }
        throw ValidationError("give --database postgres://… or set OPENSPOTLIGHT_PUBLIC_DATABASE")
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Migrate the database, then serve and crawl.")

    @OptionGroup var database: DatabaseOptions
    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(help: "The port (0: any free port, printed when listening).") var port = 8080
    @Option(help: "Distinct installs before an activity becomes public.") var threshold = 5
    @Option(help: "The window, in days, installs are counted over.") var windowDays = 30
    @Option(help: "A file holding the install-hash key (any bytes); default: a key kept in the database.")
    var hashKeyFile: String?
    @Option(help: "Reports per install per hour.") var reportsPerInstallPerHour = 120
    @Option(help: "Requests per client address per minute.") var requestsPerAddressPerMinute = 600
    @Flag(help: "Take the client address from X-Forwarded-For (behind a load balancer).") var trustForwardedFor = false
    @Flag(help: "Do not crawl in this instance.") var noCrawler = false
    @Option(help: "The shortest time between fetches from one site, in seconds.") var minimumCrawlDelay = 1.0
    @Option(help: "How often sites are crawled again, in seconds.") var recrawlInterval = 86_400.0
    @Flag(help: "Accept http:// sites (local development and tests).") var allowInsecureSites = false
    @Flag(help: "Crawl loopback and private addresses (local development and tests).") var allowPrivateAddresses = false
    @Flag(help: "Do not refresh the search candidate lists in this instance.") var noSearchRefresh = false
    @Option(help: "How often the candidate lists of broad words are ranked again, in seconds.")
    var searchRefreshInterval = 3_600.0
    @Option(help: "How many items a word prefix must match to get a candidate list.") var broadPrefixItems = 5_000
    @Option(help: "How many changed items make the next search refresh due early.")
    var searchRefreshChangedItems = 10_000
    @Option(help: "Log level: trace, debug, info, notice, warning, error.") var logLevel = "notice"

    func run() async throws {
        var configuration = PublicConfiguration(databaseURL: try database.url())
        configuration.host = host
        configuration.port = port
        configuration.threshold = threshold
        configuration.windowDays = windowDays
        guard threshold >= 1, windowDays >= 1 else { throw ValidationError("threshold and window must be at least 1") }
        if let hashKeyFile {
            let key = try Data(contentsOf: URL(fileURLWithPath: hashKeyFile))
            guard key.count >= 16 else { throw ValidationError("the hash key file must hold at least 16 bytes") }
            configuration.hashKey = key
        }
        configuration.reportsPerInstallPerHour = reportsPerInstallPerHour
        configuration.requestsPerAddressPerMinute = requestsPerAddressPerMinute
        configuration.trustForwardedFor = trustForwardedFor
        configuration.runsCrawler = !noCrawler
        configuration.minimumCrawlDelay = minimumCrawlDelay
        configuration.recrawlInterval = recrawlInterval
        configuration.allowInsecureSites = allowInsecureSites
        configuration.allowPrivateAddresses = allowPrivateAddresses
        guard searchRefreshInterval > 0, broadPrefixItems >= 1, searchRefreshChangedItems >= 1 else {
            throw ValidationError(
                "--search-refresh-interval, --broad-prefix-items and --search-refresh-changed-items must be positive")
        }
        configuration.refreshesSearchCandidates = !noSearchRefresh
        configuration.searchCandidateRefreshInterval = searchRefreshInterval
        configuration.broadPrefixItems = broadPrefixItems
        configuration.searchRefreshChangedItems = searchRefreshChangedItems
        var logger = Logger(label: "org.openspotlight.public")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .notice
        let host = configuration.host
        try await PublicService(configuration: configuration, logger: logger).run { port in
            // Scripts and tests read the port from this line.
            FileHandle.standardOutput.write(Data("spotlight-public: listening on http://\(host):\(port)\n".utf8))
        }
    }
}

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply the database migrations and exit.")
    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let db = try PublicDatabase(url: try database.url())
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await db.client.run() }
            let applied = try await db.migrate()
            print(applied.isEmpty ? "spotlight-public: the database is up to date"
                                  : "spotlight-public: applied migrations \(applied.map(String.init).joined(separator: ", "))")
            group.cancelAll()
        }
    }
}

struct RefreshSearch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh-search",
        abstract: "Rank the candidate lists of broad words now (serving instances do it every hour), then exit.")
    @OptionGroup var database: DatabaseOptions
    @Option(help: "How many items a word prefix must match to get a candidate list.") var broadPrefixItems = 5_000

    func run() async throws {
        guard broadPrefixItems >= 1 else { throw ValidationError("--broad-prefix-items must be at least 1") }
        let db = try PublicDatabase(url: try database.url())
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await db.client.run() }
            _ = try await db.migrate()
            let lists = try await db.refreshSearchCandidates(minimumItems: broadPrefixItems)
            print("spotlight-public: \(lists) candidate lists ranked")
            group.cancelAll()
        }
    }
}
