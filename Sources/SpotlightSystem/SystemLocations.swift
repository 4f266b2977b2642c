import Foundation
import OpenCoreSpotlight

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the system half keeps its files, following the XDG Base Directory specification.
///
/// - Apps register in `$XDG_DATA_HOME/applications/<app id>.desktop` (default `~/.local/share/applications`),
///   and are also looked up in `$XDG_DATA_DIRS/applications` (default `/usr/local/share:/usr/share`).
/// - The system's own state lives beside the indexes, in `<OpenSpotlight root>/system/`: pending reindex requests
///   (`requests/<app>/`), the manifest of known indexes (`indexes.json`), the last search (`last-search.json`),
///   and large continuation payloads (`continuations/`). Damaged indexes are moved aside beside themselves
///   (`StoreRecovery`).
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

    /// `$XDG_RUNTIME_DIR/openspotlight` (per user, private, emptied at logout), when the session has a runtime
    /// directory; nil otherwise.
    public static var runtimeDirectory: URL? {
        guard let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/"),
              FileManager.default.fileExists(atPath: runtime) else { return nil }
        return URL(fileURLWithPath: runtime, isDirectory: true).appendingPathComponent("openspotlight", isDirectory: true)
    }

    /// The system's own directory under an OpenSpotlight root.
    public static func systemDirectory(root: URL = OpenSpotlight.rootDirectory) -> URL {
        root.appendingPathComponent("system", isDirectory: true)
    }

    /// Creates a directory (and parents) readable by this user only: 0700 whatever the umask. A directory that
    /// already exists keeps its mode (it may be shared, like `~/.local/share/applications`).
    static func createPrivateDirectory(_ url: URL) throws {
        var info = stat()
        if lstat(url.path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR || (info.st_mode & S_IFMT) == S_IFLNK else {
                throw SystemError("cannot create the folder \(url.path): something else is in the way")
            }
            return
        }
        try createPrivateDirectory(url.deletingLastPathComponent())
        if mkdir(url.path, 0o700) != 0, errno != EEXIST {
            throw SystemError("cannot create the folder \(url.path): \(String(cString: strerror(errno)))")
        }
        _ = chmod(url.path, 0o700)
    }

    /// Writes a file atomically with mode 0600 whatever the umask; a symbolic link in its place is replaced,
    /// never written through.
    public static func writePrivateFile(_ data: Data, to url: URL) throws {
        try createPrivateDirectory(url.deletingLastPathComponent())
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString.prefix(8)).tmp")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw SystemError("cannot write \(url.path): \(String(cString: strerror(errno)))")
        }
        var failed: Int32 = 0
        _ = fchmod(fd, 0o600)
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 { if errno == EINTR { continue }; failed = errno; return }
                offset += n
            }
        }
        if failed == 0, fsync(fd) != 0 { failed = errno }
        _ = close(fd)
        if failed == 0, rename(temporary.path, url.path) != 0 { failed = errno }
        if failed != 0 {
            _ = unlink(temporary.path)
            throw SystemError("cannot write \(url.path): \(String(cString: strerror(failed)))")
        }
    }

    /// The contents of a regular file, or nil when there is none or it is a symbolic link (not followed).
    static func readRegularFile(_ url: URL) -> Data? {
        let fd = open(url.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { _ = close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; return nil }
            if n == 0 { break }
            data.append(contentsOf: buffer[0..<n])
        }
        return data
    }

    /// The permission bits of a file (not following a link).
    static func mode(of url: URL) -> mode_t? {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }
}

/// An error of the system half, with a message for people.
public struct SystemError: Error, CustomStringConvertible, LocalizedError, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
    public var errorDescription: String? { description }
}
