import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PostgresNIO

/// The request context: Hummingbird's core storage and the peer's address, for per-address rate limits.
public struct PublicRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// Request bodies are small JSON documents.
    public var maxUploadSize: Int { 64 << 10 }
}

/// `spotlight-public`: the public index service. Stateless: PostgreSQL holds reports, sites, the crawl frontier,
/// public items and rate-limit counters, so any number of instances can serve behind a load balancer.
///
/// Routes (JSON in and out; every error is `{"error": {"code", "message"}}` with a 4xx, or 503 while the database is
/// unreachable — never 500):
/// - `POST /v1/reports` — a device's engagement with a public activity (`ActivityReport`) → 202 `ReportReceipt`.
/// - `GET /v1/search?q=&limit=&offset=` → `PublicSearchPage`.
/// - `POST /v1/sites` (`SiteRegistration`) → 201 `SiteStatus` with the token to serve at `/.well-known/openspotlight`;
///   `POST /v1/sites/{id}/verify` → `SiteStatus`, queues the crawl; `GET /v1/sites/{id}` → `SiteStatus`.
/// - `GET /v1/health` → `{"database": "ok"}`.
public struct PublicService: Sendable {
    public let configuration: PublicConfiguration
    public let logger: Logger

    public init(configuration: PublicConfiguration, logger: Logger = Logger(label: "org.openspotlight.public")) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Migrates the database, then serves (and crawls, when `runsCrawler`) until SIGINT or SIGTERM.
    public func run(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let database = try PublicDatabase(url: configuration.databaseURL, logger: logger)
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await database.client.run() }
            try await migrate(database)
            let key: Data
            if let configured = configuration.hashKey { key = configured } else { key = try await database.storedHashKey() }
            let crawler = Crawler(configuration: configuration, client: database.client, logger: logger)
            // The workers run in a group of their own, stopped and waited for while the database client still
            // runs: a query a worker had in flight when the client's `run()` was cancelled never completed, and
            // `serve` never exited after SIGTERM (seen right after start, when both workers query at once).
            let (watchdog, failure) = try await withThrowingDiscardingTaskGroup(
                returning: (Task<Void, Never>, (any Error)?).self
            ) { workers in
                if configuration.runsCrawler {
                    workers.addTask { await crawler.run() }
                }
                if configuration.refreshesSearchCandidates {
                    workers.addTask { await refreshSearchCandidates(client: database.client) }
                }
                let app = Application(
                    router: router(client: database.client, crawler: crawler, hashKey: SymmetricKey(data: key)),
                    configuration: .init(address: .hostname(configuration.host, port: configuration.port),
                                         serverName: "spotlight-public"),
                    onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
                    logger: logger)
                // A server that failed stops the workers the same way before its error is thrown.
                var failure: (any Error)? = nil
                do { try await app.runService() } catch { failure = error }
                // Each step of the stop is logged, so a stop that never finishes names where it waits.
                logger.notice("stopping: the server has \(failure.map { "failed: \($0)" } ?? "stopped")")
                workers.cancelAll()
                // A worker whose query waits on the server (a lock another session holds, a long refresh) would
                // keep the stop waiting as long: PostgresNIO does not stop a query whose task is cancelled. Past a
                // grace period, the pool's queries are cancelled on the server, again until the workers are done.
                let watchdog = Task { [logger] in
                    while (try? await Task.sleep(for: .seconds(Self.stopGracePeriod))) != nil {
                        do {
                            let cancelled = try await database.cancelQueriesInFlight()
                            logger.notice("stopping: cancelled \(cancelled) database queries still in flight")
                        } catch {
                            logger.warning("stopping: could not cancel the database queries in flight: \(error)")
                        }
                    }
                }
                return (watchdog, failure)
            }
            watchdog.cancel()
            logger.notice("stopping: the crawler and the search refresh have stopped")
            await crawler.shutdown()
            group.cancelAll()
            if let failure { throw failure }
        }
        logger.notice("stopped")
    }

    /// How long a stop waits for the workers' queries before cancelling them on the server.
    static let stopGracePeriod = 2.0

    /// Runs until cancelled: refreshes the search candidate lists whenever they are due (by age, or by the items
    /// changed since) and no other instance is at it (checked every minute, or sooner for short intervals).
    func refreshSearchCandidates(client: PostgresClient) async {
        let check = max(1, min(60, configuration.searchCandidateRefreshInterval / 4))
        while !Task.isCancelled {
            do {
                _ = try await PublicSearch.refreshCandidatesIfDue(
                    interval: configuration.searchCandidateRefreshInterval,
                    minimumItems: configuration.broadPrefixItems,
                    changedItems: configuration.searchRefreshChangedItems, client: client, logger: logger)
            } catch is CancellationError {
                return
            } catch {
                logger.warning("search candidate refresh: \(error)")
            }
            try? await Task.sleep(for: .seconds(check))
        }
    }

    /// Applies the migrations, waiting up to 30 s for the database to accept connections.
    func migrate(_ database: PublicDatabase) async throws {
        var attempt = 0
        while true {
            do {
                let applied = try await database.migrate()
                if !applied.isEmpty { logger.notice("database migrated to version \(applied.max() ?? 0)") }
                return
            } catch let error as PSQLError where attempt < 30 {
                attempt += 1
                logger.warning("waiting for the database: \(error.code)")
                try await Task.sleep(for: .seconds(1))
            }
        }
    }

    // MARK: Routes

    func router(client: PostgresClient, crawler: Crawler, hashKey: SymmetricKey) -> Router<PublicRequestContext> {
        let router = Router(context: PublicRequestContext.self)
        let configuration = self.configuration, logger = self.logger
        router.add(middleware: ErrorMappingMiddleware())
        router.add(middleware: AddressRateLimitMiddleware(configuration: configuration, client: client, logger: logger))

        router.get("/v1/health") { _, _ -> Response in
            _ = try await withDeadline(2) { try await client.query("select 1", logger: logger) }
            return try Self.json(["database": "ok"])
        }
        router.post("/v1/reports") { request, context -> Response in
            let report = try await Self.decode(ActivityReport.self, from: request, context: context)
            let valid = try Reports.validate(report, hashKey: hashKey, windowDays: configuration.windowDays)
            let receipt = try await withDeadline {
                try await RateLimiter.hit("install:" + valid.installHash.map { String(format: "%02x", $0) }.joined(),
                                          limit: configuration.reportsPerInstallPerHour, window: 3_600,
                                          client: client, logger: logger)
                return try await Reports.record(valid, in: client, threshold: configuration.threshold,
                                                windowDays: configuration.windowDays, logger: logger)
            }
            return try Self.json(receipt, status: .accepted)
        }
        router.get("/v1/search") { request, _ -> Response in
            let parameters = request.uri.queryParameters
            guard let query = parameters.get("q") else {
                throw PublicAPIError(.badRequest, code: "missing-parameter", "q: the words to search for are missing")
            }
            let limit = try Self.integer(parameters.get("limit"), name: "limit", default: 20, range: 1...PublicSearch.maximumLimit)
            let offset = try Self.integer(parameters.get("offset"), name: "offset", default: 0, range: 0...PublicSearch.maximumOffset)
            let page = try await withDeadline {
                try await PublicSearch.search(query, limit: limit, offset: offset, in: client, logger: logger)
            }
            return try Self.json(page)
        }
        router.post("/v1/sites") { request, context -> Response in
            let registration = try await Self.decode(SiteRegistration.self, from: request, context: context)
            let status = try await withDeadline {
                try await Sites.register(registration, configuration: configuration, client: client, logger: logger)
            }
            return try Self.json(status, status: .created)
        }
        router.post("/v1/sites/:id/verify") { _, context -> Response in
            let id = try Self.siteID(context)
            // Fetching the token takes up to the crawler's fetch timeout.
            return try Self.json(try await withDeadline(configuration.fetchTimeout + 5) {
                try await Sites.verify(id: id, crawler: crawler, client: client, logger: logger)
            })
        }
        router.get("/v1/sites/:id") { _, context -> Response in
            let id = try Self.siteID(context)
            return try Self.json(try await withDeadline { try await Sites.status(id: id, client: client, logger: logger) })
        }
        return router
    }

    static func siteID(_ context: PublicRequestContext) throws -> Int64 {
        guard let text = context.parameters.get("id"), let id = Int64(text), id > 0 else {
            throw PublicAPIError.notFound("no such site")
        }
        return id
    }

    static func integer(_ text: String?, name: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw PublicAPIError(.badRequest, code: "invalid-parameter",
                                 "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// Decodes a JSON body: 413 past the size limit, 415 for another content type, 400 for malformed JSON or wrong
    /// field types.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, context: PublicRequestContext) async throws -> T {
        if let contentType = request.headers[.contentType], !contentType.lowercased().hasPrefix("application/json") {
            throw PublicAPIError(.unsupportedMediaType, code: "unsupported-media-type", "send application/json")
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: context.maxUploadSize)
        } catch {
            throw PublicAPIError(.contentTooLarge, code: "too-large", "the body exceeds \(context.maxUploadSize) bytes")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch let error as DecodingError {
            throw PublicAPIError(.badRequest, code: "invalid-json", Self.explain(error))
        } catch {
            throw PublicAPIError(.badRequest, code: "invalid-json", "the body is not JSON")
        }
    }

    static func explain(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "missing field \((path(context).isEmpty ? "" : path(context) + ".") + key.stringValue)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "wrong type at \(path(context)): \(context.debugDescription)"
        case .dataCorrupted(let context):
            return path(context).isEmpty ? "the body is not valid JSON" : "invalid value at \(path(context))"
        @unknown default:
            return "the body does not match the expected JSON"
        }
    }

    static func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Response(status: status,
                        headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
    }
}

/// Counts every request against its client address (the peer, or `X-Forwarded-For`'s first address when trusted).
struct AddressRateLimitMiddleware: RouterMiddleware {
    typealias Context = PublicRequestContext
    let configuration: PublicConfiguration
    let client: PostgresClient
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var address = context.remoteAddress?.ipAddress ?? "unknown"
        if configuration.trustForwardedFor, let forwarded = request.headers[HTTPField.Name("X-Forwarded-For")!],
           let first = forwarded.split(separator: ",").first {
            address = first.trimmingCharacters(in: .whitespaces)
        }
        if request.uri.path != "/v1/health" {
            let (client, logger, limit, key) = (self.client, self.logger, configuration.requestsPerAddressPerMinute, "address:" + address)
            try await withDeadline {
                try await RateLimiter.hit(key, limit: limit, window: 60, client: client, logger: logger)
            }
        }
        return try await next(request, context)
    }
}
