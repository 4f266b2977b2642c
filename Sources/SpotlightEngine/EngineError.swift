/// An error raised by the engine, with a code the API layer maps to Apple's error types in one place.
public struct EngineError: Error, Sendable, CustomStringConvertible, Equatable {
    public enum Code: Sendable, Hashable {
        /// The store could not be opened or written (permissions, disk full, I/O error).
        case indexUnavailable
        /// An item is invalid (empty identifier, bad value, value over a limit).
        case invalidItem
        /// Client state is invalid (too large, batching on the default index).
        case invalidClientState
        /// `endBatch(expectedClientState:…)` found another state.
        case mismatchedClientState
        /// The store's file is damaged.
        case corruptIndex
        /// The store was written by a newer version whose format this version cannot read.
        case unsupportedFormat
        /// A query string does not parse or is otherwise invalid.
        case invalidQuery
        /// The operation was cancelled.
        case cancelled
        /// Anything else.
        case unknown
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
