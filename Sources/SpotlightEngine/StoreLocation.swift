import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where indexes live on disk, and who the current app is.
///
/// Layout, under the root directory:
///
/// ```
/// <root>/                      OPENSPOTLIGHT_HOME, else $XDG_DATA_HOME/openspotlight, else ~/.local/share/openspotlight
///   apps/<app identifier>/
///     indexes/<index name>.sqlite   one store per (app, index name); the default index is "_default"
/// ```
///
/// Directories are created with mode 0700 and store files with mode 0600: an index holds the user's private data.
package enum StoreLocation {
    /// The environment variable that relocates every index (tests and sandboxes use it).
    package static let rootEnvironmentVariable = "OPENSPOTLIGHT_HOME"
    /// The file name of the store behind `CSSearchableIndex.default()`.
    package static let defaultIndexName = "_default"

    private static let rootOverride = LockedBox<URL?>(nil)

    /// The root directory of every index of this user.
    ///
    /// Read from the environment at every call (a process may change it), but made into a URL only when the
    /// variables it comes from changed: every write asks for it, and `ProcessInfo`'s environment (a dictionary of
    /// every variable, built at each call) and the URL were most of the ~60–90 µs that naming a single write's
    /// store took (perf, PyPI's writes phase). A relative `OPENSPOTLIGHT_HOME` is resolved at every call, as
    /// before (against the current directory).
    package static var rootDirectory: URL {
        get {
            if let root = rootOverride.value { return root }
            let sources = RootSources(home: environment(rootEnvironmentVariable), dataHome: environment("XDG_DATA_HOME"),
                                      userHome: environment("HOME"))
            if let last = lastRoot.withLock({ $0 }), last.sources == sources { return last.root }
            let root: URL
            if let home = sources.home, !home.isEmpty {
                root = URL(fileURLWithPath: home, isDirectory: true)
            } else if let xdg = sources.dataHome, xdg.hasPrefix("/") {
                root = URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("openspotlight")
            } else {
                root = homeDirectory.appendingPathComponent(".local/share/openspotlight", isDirectory: true)
            }
            if sources.isAbsolute { lastRoot.withLock { $0 = (sources, root) } }
            return root
        }
        set { rootOverride.withLock { $0 = newValue } }
    }

    /// The variables `rootDirectory` comes from, as they were when it was last made.
    private struct RootSources: Equatable {
        var home: String?
        var dataHome: String?
        var userHome: String?

        /// Whether the root they name depends on nothing else (a relative path depends on the current directory,
        /// and no usable `HOME` on the password database).
        var isAbsolute: Bool {
            if let home, !home.isEmpty { return home.hasPrefix("/") }
            if let dataHome, dataHome.hasPrefix("/") { return true }
            return userHome?.hasPrefix("/") == true
        }
    }

    private static let lastRoot = Mutex<(sources: RootSources, root: URL)?>(nil)

    /// One environment variable, read where `getenv` reads it (as `ProcessInfo`'s environment does, without
    /// building a dictionary of every variable).
    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// The user's home: `$HOME` when it is an absolute path (as the XDG Base Directory specification and every
    /// shell use it), else the password database's entry. Foundation's `homeDirectoryForCurrentUser` reads only the
    /// latter on Linux, which writes into the account's real home when `HOME` points elsewhere.
    package static var homeDirectory: URL {
        if let home = environment("HOME"), home.hasPrefix("/") {
            return URL(fileURLWithPath: home, isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser
    }

    /// Resets `rootDirectory` to what the environment says.
    package static func resetRootDirectory() {
        rootOverride.withLock { $0 = nil }
    }

    /// The directory holding one app's indexes.
    package static func appDirectory(for app: String, root: URL? = nil) -> URL {
        (root ?? rootDirectory).appendingPathComponent("apps", isDirectory: true)
            .appendingPathComponent(fileNameComponent(app), isDirectory: true)
    }

    /// The store file of one (app, index name).
    package static func storeURL(app: String, indexName: String, root: URL? = nil) -> URL {
        appDirectory(for: app, root: root).appendingPathComponent("indexes", isDirectory: true)
            .appendingPathComponent(fileNameComponent(indexName) + ".sqlite")
    }

    /// Every app identifier that has an index directory under the root.
    package static func installedApps(root: URL? = nil) -> [String] {
        let apps = (root ?? rootDirectory).appendingPathComponent("apps", isDirectory: true)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: apps.path)) ?? []
        return names.map(decodeFileNameComponent).sorted()
    }

    /// The path of the folder of one app's store files (built as text: `AppIndexes` checks it on every query).
    static func indexesPath(app: String, root: URL? = nil) -> String {
        (root ?? rootDirectory).path + "/apps/" + fileNameComponent(app) + "/indexes"
    }

    /// Every index name of an app that has a store file.
    package static func indexNames(app: String, root: URL? = nil) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: indexesPath(app: app, root: root))) ?? []
        return names.filter { $0.hasSuffix(".sqlite") }
            .map { decodeFileNameComponent(String($0.dropLast(".sqlite".count))) }
            .sorted()
    }

    /// Whether something is at `url`, without following a symbolic link there (a dangling link exists too).
    static func exists(_ url: URL) -> Bool {
        var info = stat()
        return lstat(url.path, &info) == 0
    }

    /// Whether `path` is a symbolic link (not following it).
    static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    /// Refuses a store whose file, `-wal` or `-shm`, or whose `indexes`, app or `apps` folder, is a symbolic link: following
    /// one would read or write another app's store, or files outside the root. The root itself may be a link
    /// (a home folder on another disk); what the engine creates under it may not.
    static func refuseSymbolicLinks(_ url: URL) throws {
        let indexes = url.deletingLastPathComponent()
        let app = indexes.deletingLastPathComponent()
        var paths = [url.path, url.path + "-wal", url.path + "-shm"]
        if indexes.lastPathComponent == "indexes" {
            paths += [indexes.path, app.path]
            let apps = app.deletingLastPathComponent()
            if apps.lastPathComponent == "apps" { paths.append(apps.path) }
        }
        for path in paths where isSymbolicLink(path) {
            throw EngineError(.indexUnavailable, "\(path) is a symbolic link; index files are never reached through links")
        }
    }

    /// Creates a directory and its missing parents with mode 0700.
    static func createPrivateDirectory(_ url: URL) throws {
        try FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        _ = chmod(url.path, 0o700)
    }

    /// Percent-encodes everything but ASCII letters, digits, `.`, `-` and `_` so any name is a safe file name.
    static func fileNameComponent(_ name: String) -> String {
        var out = ""
        for byte in name.utf8 {
            let c = Character(Unicode.Scalar(byte))
            if byte < 0x80, c.isLetter || c.isNumber || c == "-" || c == "_" || (c == "." && !out.isEmpty) {
                out.append(c)
            } else {
                out += String(format: "%%%02X", byte)
            }
        }
        return out.isEmpty ? "%00" : out
    }

    static func decodeFileNameComponent(_ name: String) -> String {
        name.removingPercentEncoding ?? name
    }
}

/// A value protected by a lock, for the little shared state the engine keeps.
final class LockedBox<Value>: @unchecked Sendable {
    // @unchecked Sendable: every access goes through `lock`.
    private let lock = NSLock()
    private var _value: Value

    init(_ value: Value) { _value = value }

    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return _value
    }

    @discardableResult
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&_value)
    }
}
