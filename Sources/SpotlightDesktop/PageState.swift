import Foundation
import OpenCoreSpotlight
import SpotlightSystem
#if canImport(Glibc)
import Glibc
#endif

/// Where a running search page says it is, so that launching the search again (the desktop entry, GNOME's
/// `LaunchSearch`) opens the running page instead of starting a second server: `$XDG_RUNTIME_DIR/openspotlight/
/// page.json` (else the system directory under the root), readable by the user only, since it holds the token.
public struct PageState: Codable, Sendable, Hashable {
    public var pid: Int32
    public var port: Int
    public var token: String

    public init(pid: Int32, port: Int, token: String) {
        self.pid = pid
        self.port = port
        self.token = token
    }

    public static func url(root: URL = OpenSpotlight.rootDirectory) -> URL {
        if let runtime = SystemLocations.runtimeDirectory { return runtime.appendingPathComponent("page.json") }
        return SystemLocations.systemDirectory(root: root).appendingPathComponent("page.json")
    }

    /// The running page, if its process is still alive (a stale file is ignored).
    public static func running(root: URL = OpenSpotlight.rootDirectory) -> PageState? {
        guard let data = try? Data(contentsOf: url(root: root)),
              let state = try? JSONDecoder().decode(PageState.self, from: data),
              state.pid > 0, kill(state.pid, 0) == 0 || errno == EPERM else { return nil }
        // The process must still be a page server (not a later process given the same pid).
        guard let command = try? String(contentsOfFile: "/proc/\(state.pid)/cmdline", encoding: .utf8),
              command.split(separator: "\0").contains("serve") else { return nil }
        return state
    }

    public func save(root: URL = OpenSpotlight.rootDirectory) throws {
        try SystemLocations.writePrivateFile(try JSONEncoder().encode(self), to: Self.url(root: root))
    }

    /// Removes the file if it is still this process's.
    public static func remove(pid: Int32, root: URL = OpenSpotlight.rootDirectory) {
        let file = url(root: root)
        guard let data = try? Data(contentsOf: file),
              let state = try? JSONDecoder().decode(PageState.self, from: data), state.pid == pid else { return }
        try? FileManager.default.removeItem(at: file)
    }
}
