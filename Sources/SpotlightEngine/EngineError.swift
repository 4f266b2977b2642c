import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An error raised by the engine, with a code the API layer maps to Apple's error types in one place.
package struct EngineError: Error, Sendable, CustomStringConvertible, Equatable {
    package enum Code: Sendable, Hashable {
        /// The store could not be opened or written (disk full, I/O error, a symbolic link where a store file
        /// belongs).
        case indexUnavailable
        /// This user may not read the store, or may not write it (the file or its folder is read-only or another
        /// user's). Never a sign of damage: nothing is moved aside for it.
        case permissionDenied
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

    package var code: Code
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { message }

    /// The error for a failed system call: permission problems as `.permissionDenied`, a symbolic link where a
    /// store file belongs (`ELOOP` under `O_NOFOLLOW`) and everything else as `.indexUnavailable`.
    static func fromErrno(_ code: Int32, _ what: String) -> EngineError {
        let reason = String(cString: strerror(code))
        switch code {
        case EACCES, EPERM, EROFS:
            return EngineError(.permissionDenied, "\(what): permission denied (\(reason))")
        case ELOOP:
            return EngineError(.indexUnavailable, "\(what): it is a symbolic link, which is never followed")
        default:
            return EngineError(.indexUnavailable, "\(what): \(reason)")
        }
    }

    /// The error for a failed Foundation file operation, keeping permission problems apart.
    static func fromFileError(_ error: any Error, _ what: String) -> EngineError {
        let ns = error as NSError
        if ns.domain == NSCocoaErrorDomain,
           ns.code == CocoaError.fileWriteNoPermission.rawValue || ns.code == CocoaError.fileReadNoPermission.rawValue
            || ns.code == CocoaError.fileWriteVolumeReadOnly.rawValue {
            return EngineError(.permissionDenied, "\(what): permission denied")
        }
        if let posix = (ns.userInfo[NSUnderlyingErrorKey] as? NSError), posix.domain == NSPOSIXErrorDomain {
            return fromErrno(Int32(posix.code), what)
        }
        return EngineError(.indexUnavailable, "\(what): \(error.localizedDescription)")
    }
}
