import Foundation
import SpotlightEngine

/// The error domain of queries.
public let CSSearchQueryErrorDomain: String = "CSSearchQueryErrorDomain"

/// An error from a query.
///
/// ```swift
/// query.completionHandler = { error in
///     if let error = error as? CSSearchQueryError, error.code == .invalidQuery { print(error.localizedDescription) }
/// }
/// ```
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchqueryerror>
public struct CSSearchQueryError: CustomNSError, Hashable, Sendable {
    /// The codes of `CSSearchQueryErrorDomain`, with Apple's raw values.
    public enum Code: Int, Sendable, Hashable {
        case unknown = -2000
        case indexUnreachable = -2001
        case invalidQuery = -2002
        case cancelled = -2003
    }

    public let code: Code
    /// What went wrong, for people; for `invalidQuery`, where in the query and why.
    public let message: String

    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        self.message = (userInfo[NSLocalizedDescriptionKey] as? String) ?? "\(code)"
    }

    init(_ code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public static var errorDomain: String { CSSearchQueryErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }
    public var localizedDescription: String { message }

    public static var unknown: Code { .unknown }
    public static var indexUnreachable: Code { .indexUnreachable }
    public static var invalidQuery: Code { .invalidQuery }
    public static var cancelled: Code { .cancelled }

    public static func == (lhs: CSSearchQueryError, rhs: CSSearchQueryError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The one place where engine errors become query errors.
    static func from(_ error: any Error) -> CSSearchQueryError {
        if let error = error as? CSSearchQueryError { return error }
        if let error = error as? CSIndexError { return CSSearchQueryError(.indexUnreachable, message: error.message) }
        guard let error = error as? EngineError else { return CSSearchQueryError(.unknown, message: "\(error)") }
        switch error.code {
        case .cancelled: return CSSearchQueryError(.cancelled, message: error.message)
        case .invalidQuery: return CSSearchQueryError(.invalidQuery, message: error.message)
        case .indexUnavailable, .corruptIndex, .unsupportedFormat, .permissionDenied:
            return CSSearchQueryError(.indexUnreachable, message: error.message)
        default: return CSSearchQueryError(.unknown, message: error.message)
        }
    }
}

/// Lets `catch CSSearchQueryError.invalidQuery` match.
public func ~= (code: CSSearchQueryError.Code, error: any Error) -> Bool {
    (error as? CSSearchQueryError)?.code == code
}

extension CSSearchQueryError: CustomStringConvertible {
    public var description: String { "CSSearchQueryError(\(code), \(code.rawValue)): \(message)" }
}
