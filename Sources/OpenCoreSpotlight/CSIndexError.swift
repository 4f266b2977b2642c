import Foundation
import SpotlightEngine

/// The error domain of index operations.
public let CSIndexErrorDomain: String = "CSIndexErrorDomain"

/// An error from an index operation (indexing, deleting, batching).
///
/// ```swift
/// do {
///     try await index.indexSearchableItems([item])
/// } catch let error as CSIndexError where error.code == .invalidItemError {
///     print(error.localizedDescription)
/// }
/// ```
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/csindexerror>
public struct CSIndexError: CustomNSError, Hashable, Sendable {
    /// The codes of `CSIndexErrorDomain`, with Apple's raw values.
    public enum Code: Int, Sendable, Hashable, Equatable {
        case unknownError = -1
        case indexUnavailableError = -1000
        case invalidItemError = -1001
        case invalidClientStateError = -1002
        case remoteConnectionError = -1003
        case quotaExceeded = -1004
        case indexingUnsupported = -1005
        case mismatchedClientState = -1006
    }

    public let code: Code
    /// What went wrong, for people.
    public let message: String

    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        self.message = (userInfo[NSLocalizedDescriptionKey] as? String) ?? "\(code)"
    }

    init(_ code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public static var errorDomain: String { CSIndexErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }
    public var localizedDescription: String { message }

    public static var unknownError: Code { .unknownError }
    public static var indexUnavailableError: Code { .indexUnavailableError }
    public static var invalidItemError: Code { .invalidItemError }
    public static var invalidClientStateError: Code { .invalidClientStateError }
    public static var remoteConnectionError: Code { .remoteConnectionError }
    public static var quotaExceeded: Code { .quotaExceeded }
    public static var indexingUnsupported: Code { .indexingUnsupported }
    public static var mismatchedClientState: Code { .mismatchedClientState }

    public static func == (lhs: CSIndexError, rhs: CSIndexError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

/// Lets `catch CSIndexError.invalidItemError` match, as with Apple's bridged error.
public func ~= (code: CSIndexError.Code, error: any Error) -> Bool {
    (error as? CSIndexError)?.code == code
}

extension CSIndexError: CustomStringConvertible {
    public var description: String { "CSIndexError(\(code), \(code.rawValue)): \(message)" }
}

extension CSIndexError {
    /// The one place where engine errors become Apple's index errors.
    static func from(_ error: any Error) -> CSIndexError {
        if let error = error as? CSIndexError { return error }
        guard let error = error as? EngineError else {
            return CSIndexError(.unknownError, message: "\(error)")
        }
        switch error.code {
        // Deviation: Apple has no permission error; an index this user may not read or write is "unavailable",
        // with a message that says permission was denied.
        case .indexUnavailable, .corruptIndex, .unsupportedFormat, .permissionDenied:
            return CSIndexError(.indexUnavailableError, message: error.message)
        case .invalidItem:
            return CSIndexError(.invalidItemError, message: error.message)
        case .invalidClientState:
            return CSIndexError(.invalidClientStateError, message: error.message)
        case .mismatchedClientState:
            return CSIndexError(.mismatchedClientState, message: error.message)
        case .invalidQuery, .cancelled, .unknown:
            return CSIndexError(.unknownError, message: error.message)
        }
    }
}
