import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PostgresNIO
import Synchronization

/// Why the service could not start.
public enum PublicServiceError: Error, CustomStringConvertible, Sendable {
    case configuration(String)

    public var description: String {
        switch self {
        case .configuration(let message): return message
        }
    }
}

/// An answer other than success, with a JSON body `{"error": {"code": "…", "message": "…"}}`. Every failure the
/// service answers is one of these: 4xx for the client's mistakes, 503 while the database cannot be reached. Never 500.
public struct PublicAPIError: HTTPResponseError, CustomStringConvertible, Sendable {
    public var status: HTTPResponse.Status
    /// A stable, machine-readable reason: `invalid-json`, `invalid-field`, `rate-limited`, `not-found`…
    public var code: String
    public var message: String
    /// Seconds after which a rate-limited client may try again.
    public var retryAfter: Int?

    public init(_ status: HTTPResponse.Status, code: String, _ message: String, retryAfter: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    public var description: String { "\(status.code) \(code): \(message)" }

    public var headers: HTTPFields {
        var fields: HTTPFields = [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"]
        if let retryAfter { fields[.retryAfter] = String(retryAfter) }
        return fields
    }

    struct Body: Encodable {
        struct Detail: Encodable { var code: String; var message: String }
        var error: Detail
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let data = try JSONEncoder().encode(Body(error: .init(code: code, message: message)))
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func invalid(_ field: String, _ message: String) -> PublicAPIError {
        PublicAPIError(.unprocessableContent, code: "invalid-field", "\(field): \(message)")
    }

    static func notFound(_ message: String) -> PublicAPIError {
        PublicAPIError(.notFound, code: "not-found", message)
    }
}

/// Turns every error a route throws into a `PublicAPIError`: the database's failures into 503 (the request may be
/// retried; nothing was acknowledged), anything unexpected into 503 as well, logged.
struct ErrorMappingMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as PublicAPIError {
            throw error
        } catch let error as HTTPError {
            // Hummingbird's own (unknown route, method not allowed, body too large).
            let code = error.status == .notFound ? "not-found" : error.status == .contentTooLarge ? "too-large" : "bad-request"
            throw PublicAPIError(error.status, code: code, error.body ?? error.status.reasonPhrase)
        } catch let error as PostgresTransactionError {
            if let inner = error.closureError as? PublicAPIError { throw inner }
            context.logger.error("database: \(String(reflecting: error))")
            throw PublicAPIError(.serviceUnavailable, code: "database-unavailable",
                                 "the database cannot be reached; try again", retryAfter: 1)
        } catch let error as PSQLError {
            context.logger.error("database: \(String(reflecting: error))")
            throw PublicAPIError(.serviceUnavailable, code: "database-unavailable",
                                 "the database cannot be reached; try again", retryAfter: 1)
        } catch is CancellationError {
            throw PublicAPIError(.serviceUnavailable, code: "cancelled", "the request was cancelled", retryAfter: 1)
        } catch {
            context.logger.error("unexpected: \(String(reflecting: error))")
            throw PublicAPIError(.serviceUnavailable, code: "unavailable", "the service could not answer; try again",
                                 retryAfter: 1)
        }
    }
}

/// Runs database work with a time limit: past it, the request is answered 503 and the work is cancelled. While
/// PostgreSQL is down, the connection pool would otherwise keep a request waiting for a connection indefinitely.
/// The work runs in its own task so that an answer never waits for it to notice the cancellation. A report whose
/// commit went through just before the limit is stored and answered 503; the device sends it again and the service
/// counts it once.
func withDeadline<T: Sendable>(_ seconds: Double = 5, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
    let outcome = Mutex<CheckedContinuation<T, any Error>?>(nil)
    return try await withCheckedThrowingContinuation { continuation in
        outcome.withLock { $0 = continuation }
        let finish: @Sendable (Result<T, any Error>) -> Bool = { result in
            guard let continuation = outcome.withLock({ state -> CheckedContinuation<T, any Error>? in
                defer { state = nil }
                return state
            }) else { return false }
            continuation.resume(with: result)
            return true
        }
        let task = Task {
            do { _ = finish(.success(try await work())) } catch { _ = finish(.failure(error)) }
        }
        Task {
            try? await Task.sleep(for: .milliseconds(Int(seconds * 1_000)))
            if finish(.failure(PublicAPIError(.serviceUnavailable, code: "database-unavailable",
                                              "the database did not answer in time; try again", retryAfter: 1))) {
                task.cancel()
            }
        }
    }
}
