import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import SpotlightSystem
import Synchronization

/// The local search page: search as you type over every app's index, results grouped by app, and the actions of
/// `spotlight open|call|directions`, served on the loopback interface only.
///
/// Every request must carry the token drawn when the server starts (`?token=` in the page's address, or the
/// `X-OpenSpotlight-Token` header that the page's own requests send): another local user, or a web page in the
/// browser guessing the port, gets 403 and reads nothing.
public struct SearchPage: Sendable {
    /// The header the page's requests carry the token in.
    public static let tokenHeader = "X-OpenSpotlight-Token"

    public let search: DesktopSearch
    /// The token every request must carry.
    public let token: String

    /// - Parameters:
    ///   - token: the access token; default: 32 random bytes, hex-encoded.
    public init(search: DesktopSearch, token: String = SearchPage.randomToken()) {
        self.search = search
        self.token = token
    }

    /// 32 bytes from the system's random source, hex-encoded.
    public static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// The page's address for a bound port (and, optionally, words to search at once).
    public func url(port: Int, query: String? = nil) -> String {
        var url = "http://127.0.0.1:\(port)/?token=\(token)"
        if let query, !query.isEmpty,
           let escaped = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) {
            url += "&q=\(escaped)"
        }
        return url
    }

    /// Serves the page on 127.0.0.1 until the process is told to stop (SIGINT, SIGTERM).
    ///
    /// - Parameters:
    ///   - port: the port; 0 lets the system choose a free one.
    ///   - running: called with the bound port once the server accepts connections.
    public func run(port: Int = 0, running: @escaping @Sendable (Int) async -> Void) async throws {
        var logger = Logger(label: "org.openspotlight.page")
        logger.logLevel = .warning
        let app = Application(
            router: router(),
            configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "OpenSpotlight"),
            onServerRunning: { channel in await running(channel.localAddress?.port ?? port) },
            logger: logger)
        try await app.runService()
    }

    // MARK: Routes

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: TokenMiddleware(token: token))
        let search = self.search
        router.get("/") { _, _ in
            Response(status: .ok, headers: Self.pageHeaders(contentType: "text/html; charset=utf-8"),
                     body: .init(byteBuffer: ByteBuffer(string: SearchPageHTML.page)))
        }
        router.get("/api/search") { request, _ -> Response in
            let text = request.uri.queryParameters.get("q") ?? ""
            let limit = min(max(request.uri.queryParameters.get("limit", as: Int.self) ?? 30, 1), 200)
            let outcome = await Self.offloaded { search.search(text, limit: limit) }
            return try Self.json(PageOutcome(outcome, search: search))
        }
        router.get("/api/health") { _, _ -> Response in
            let report = await Self.offloaded { () -> IndexDoctor.Report in
                var doctor = IndexDoctor(root: search.root)
                doctor.progress = nil
                return doctor.examine(repair: false)
            }
            return try Self.json(report)
        }
        router.post("/api/open") { request, context -> Response in
            let action = try await request.decode(as: ActionRequest.self, context: context)
            let id = try Self.found(action.id, in: search)
            try await Self.perform { try search.open(id, query: action.query) }
            return try Self.json(ActionReply(ok: true))
        }
        router.post("/api/call") { request, context -> Response in
            let action = try await request.decode(as: ActionRequest.self, context: context)
            let id = try Self.found(action.id, in: search), phone = max((action.phone ?? 1) - 1, 0)
            try await Self.perform { try search.call(id, phoneIndex: phone) }
            return try Self.json(ActionReply(ok: true))
        }
        router.post("/api/directions") { request, context -> Response in
            let action = try await request.decode(as: ActionRequest.self, context: context)
            let id = try Self.found(action.id, in: search)
            try await Self.perform { try search.directions(id) }
            return try Self.json(ActionReply(ok: true))
        }
        return router
    }

    /// A result identifier that names something, or 404.
    static func found(_ identifier: String, in search: DesktopSearch) throws -> String {
        do {
            _ = try search.result(identifier)
            return identifier
        } catch {
            throw HTTPError(.notFound, message: "\(error)")
        }
    }

    /// Runs an action off the server's event loops; its failure is the client's to see (422), never a 500.
    static func perform(_ action: @escaping @Sendable () throws -> Void) async throws {
        let failure: String? = await offloaded {
            do { try action(); return nil } catch { return "\(error)" }
        }
        if let failure { throw HTTPError(.unprocessableContent, message: failure) }
    }

    /// Runs blocking work (SQLite reads, launching a program) on a global queue.
    static func offloaded<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async { continuation.resume(returning: work()) }
        }
    }

    static func pageHeaders(contentType: String) -> HTTPFields {
        [
            .contentType: contentType,
            .cacheControl: "no-store",
            // The token is in the page's address: it must not leave in a Referer.
            HTTPField.Name("Referrer-Policy")!: "no-referrer",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            HTTPField.Name("Content-Security-Policy")!:
                "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; "
                + "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        ]
    }

    static func json<T: Encodable>(_ value: T) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return Response(status: .ok, headers: pageHeaders(contentType: "application/json; charset=utf-8"),
                        body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
    }

    // MARK: Wire types

    struct ActionRequest: Decodable {
        var id: String
        var query: String?
        /// Which phone number to call, from 1.
        var phone: Int?
    }

    struct ActionReply: Encodable {
        var ok: Bool
    }

    /// A search's results as the page shows them: grouped by app, each with its desktop identifier.
    struct PageOutcome: Encodable {
        var query: String
        var apps: [App]
        var problems: [String]
        var somethingIndexed: Bool

        struct App: Encodable {
            var applicationIdentifier: String
            var displayName: String
            var results: [Item]
        }

        struct Item: Encodable {
            var id: String
            var number: Int
            var kind: String
            var title: String
            var description: String?
            var titleHighlight: SystemSearch.Highlight?
            var snippet: SystemSearch.Highlight?
            var actions: [SystemSearch.Action]
            var phoneNumbers: [String]?
        }

        init(_ outcome: SystemSearch.Outcome, search: DesktopSearch) {
            query = outcome.query
            problems = outcome.problems
            somethingIndexed = outcome.somethingIndexed
            apps = outcome.apps.map { app in
                App(applicationIdentifier: app.applicationIdentifier, displayName: app.displayName,
                    results: app.results.map { result in
                        Item(id: DesktopSearch.identifier(of: result), number: result.number, kind: result.kind,
                             title: result.title, description: result.description,
                             titleHighlight: result.titleHighlight, snippet: result.snippet, actions: result.actions,
                             phoneNumbers: result.phoneNumbers)
                    })
            }
        }
    }
}

/// Refuses (403) every request without the server's token, before any route runs.
struct TokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: String

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        let offered = request.headers[HTTPField.Name(SearchPage.tokenHeader)!] ?? request.uri.queryParameters.get("token")
        guard let offered, SearchPage.constantTimeEqual(Array(offered.utf8), Array(token.utf8)) else {
            throw HTTPError(.forbidden, message: "This page needs the address `spotlight serve` printed (with its token).")
        }
        return try await next(request, context)
    }
}

extension SearchPage {
    /// Compares without stopping at the first difference, so timing tells nothing about the token.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}
