import Foundation
import OpenCoreSpotlight

/// Where the system half keeps its files, following the XDG Base Directory specification.
///
/// - Apps register in `$XDG_DATA_HOME/applications/<app id>.desktop` (default `~/.local/share/applications`),
///   and are also looked up in `$XDG_DATA_DIRS/applications` (default `/usr/local/share:/usr/share`).
/// - The system's own state lives beside the indexes, in `<OpenSpotlight root>/system/`: pending reindex requests
///   (`requests/<app>/`), the manifest of known indexes (`indexes.json`), the last search (`last-search.json`),
///   damaged indexes moved aside (`quarantine/`), and large continuation payloads (`continuations/`).
public enum SystemLocations {
    /// `$XDG_DATA_HOME` when absolute, else `~/.local/share`.
    public static var dataHome: URL {
        if let xdg = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg, isDirectory: true)
        }
        return OpenSpotlight.homeDirectory.appendingPathComponent(".local/share", isDirectory: true)
    }

    /// `$XDG_DATA_DIRS` (absolute entries) when set, else `/usr/local/share` and `/usr/share`.
    public static var dataDirectories: [URL] {
        let value = ProcessInfo.processInfo.environment["XDG_DATA_DIRS"] ?? ""
        let dirs = value.split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        return (dirs.isEmpty && value.isEmpty ? ["/usr/local/share", "/usr/share"] : dirs)
            .map { URL(fileURLWithPath: $0, isDirectory: true) }
    }

    /// Where this user's apps register: `$XDG_DATA_HOME/applications`.
    public static var applicationsDirectory: URL {
        dataHome.appendingPathComponent("applications", isDirectory: true)
    }

    /// Every directory searched for registrations, highest precedence first.
    public static var applicationDirectories: [URL] {
        [applicationsDirectory] + dataDirectories.map { $0.appendingPathComponent("applications", isDirectory: true) }
    }

    /// The system's own directory under an OpenSpotlight root.
    public static func systemDirectory(root: URL = OpenSpotlight.rootDirectory) -> URL {
        root.appendingPathComponent("system", isDirectory: true)
    }

    /// Creates a directory (and parents) readable by this user only.
    static func createPrivateDirectory(_ url: URL) throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
    }

    /// Writes a file atomically with mode 0600.
    static func writePrivateFile(_ data: Data, to url: URL) throws {
        try createPrivateDirectory(url.deletingLastPathComponent())
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString.prefix(8)).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: data,
                                             attributes: [.posixPermissions: 0o600]) else {
            throw SystemError("cannot write \(url.path)")
        }
        if rename(temporary.path, url.path) != 0 {
            try? FileManager.default.removeItem(at: temporary)
            throw SystemError("cannot write \(url.path): \(String(cString: strerror(errno)))")
        }
    }
}

/// An error of the system half, with a message for people.
public struct SystemError: Error, CustomStringConvertible, LocalizedError, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
    public var errorDescription: String? { description }
}
