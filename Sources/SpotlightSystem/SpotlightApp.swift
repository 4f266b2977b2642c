import Foundation
import Synchronization
import OpenCoreSpotlight

/// An app as the system knows it: identifier, name, icon, how to continue an activity in it, and its reindex
/// extension. Registered as a freedesktop desktop entry, so launchers know the app too.
///
/// ```swift
/// OpenSpotlight.configure(applicationIdentifier: "com.example.colleagues")
/// try SpotlightApp.register(displayName: "Colleagues", icon: "system-users", terminal: true)
/// ```
///
/// `register` writes `$XDG_DATA_HOME/applications/<app id>.desktop`:
///
/// ```ini
/// [Desktop Entry]
/// Type=Application
/// Name=Colleagues
/// Icon=system-users
/// Exec=/usr/local/bin/colleagues %u
/// Terminal=true
/// X-OpenSpotlight-AppID=com.example.colleagues
/// X-OpenSpotlight-ReindexExec=/usr/local/bin/colleagues --openspotlight-reindex %f
/// X-OpenSpotlight-SearchContinuation=true
/// X-OpenSpotlight-Protocol=1
/// ```
///
/// `Exec` receives the continuation URL in place of `%u` (`openspotlight://continue?activity=…`, read by
/// `ContinuationHandler`); `X-OpenSpotlight-ReindexExec` receives a reindex request file in place of `%f` (read by
/// `IndexExtensionRunner`). See `Documentation/System.md`.
public struct SpotlightApp: Sendable, Hashable, Codable {
    /// The app's identifier, the one its indexes are stored under.
    public var applicationIdentifier: String
    /// The name shown in results (`Name`).
    public var displayName: String
    /// An icon name from the icon theme, or an absolute path (`Icon`).
    public var icon: String?
    /// A short description (`Comment`).
    public var comment: String?
    /// The command line that continues an activity (`Exec`, desktop-entry syntax; `%u` is the continuation URL).
    public var exec: String
    /// The command line of the app's reindex extension (`X-OpenSpotlight-ReindexExec`; `%f` is the request file),
    /// or `nil` when the app has none (requests then wait for the app's next launch).
    public var reindexExec: String?
    /// Whether the app runs in a terminal (`Terminal`): `spotlight` then runs it in the terminal `spotlight` runs
    /// in and waits for it.
    public var terminal: Bool
    /// Whether the desktop's application menus leave the app out (`NoDisplay`), as for samples and tools that
    /// only the system starts.
    public var noDisplay: Bool
    /// Whether the app continues a search typed in the system (`CSQueryContinuationActionType`), Apple's
    /// `CoreSpotlightContinuation` Info.plist key.
    public var supportsSearchContinuation: Bool
    /// The web domains whose pages the app opens itself (`X-OpenSpotlight-AssociatedDomains`, `;`-separated; Apple's
    /// `applinks:` associated domains, `*.example.com` for every subdomain): a public web result on one of them is
    /// continued in the app as `NSUserActivityTypeBrowsingWeb` with the page in `webpageURL`.
    // Deviation: Apple checks the claim against the site's apple-app-site-association file; here the desktop entry's
    // claim is taken as it is (the user installed the app).
    public var associatedDomains: [String]
    /// The desktop file it was read from or written to.
    public var desktopFile: URL?

    /// The keys of the desktop entry beyond the standard ones.
    public enum Key {
        public static let applicationIdentifier = "X-OpenSpotlight-AppID"
        public static let reindexExec = "X-OpenSpotlight-ReindexExec"
        public static let searchContinuation = "X-OpenSpotlight-SearchContinuation"
        public static let protocolVersion = "X-OpenSpotlight-Protocol"
        public static let associatedDomains = "X-OpenSpotlight-AssociatedDomains"
    }

    /// The version of the continuation and extension protocol this library speaks.
    public static let protocolVersion = 1

    /// The argument that precedes a reindex request file in the default extension command line.
    public static let reindexArgument = "--openspotlight-reindex"

    public init(applicationIdentifier: String, displayName: String, icon: String? = nil, comment: String? = nil,
                exec: String, reindexExec: String? = nil, terminal: Bool = false, noDisplay: Bool = false,
                supportsSearchContinuation: Bool = false, associatedDomains: [String] = [], desktopFile: URL? = nil) {
        self.applicationIdentifier = applicationIdentifier
        self.displayName = displayName
        self.icon = icon
        self.comment = comment
        self.exec = exec
        self.reindexExec = reindexExec
        self.terminal = terminal
        self.noDisplay = noDisplay
        self.supportsSearchContinuation = supportsSearchContinuation
        self.associatedDomains = associatedDomains
        self.desktopFile = desktopFile
    }

    /// Where the app's reindex extension is.
    public enum ReindexExtension: Sendable, Hashable {
        /// No extension: reindex requests wait until the app calls `IndexExtensionRunner.processPendingRequests`.
        case none
        /// The app's own executable, run with `--openspotlight-reindex <request file>`.
        case sameExecutable
        /// Another executable, run with `--openspotlight-reindex <request file>`.
        case executable(URL)
        /// A full command line in desktop-entry syntax, with `%f` for the request file.
        case commandLine(String)
    }

    /// Registers the current app with the system, replacing an earlier registration. The desktop file is only
    /// rewritten when something changed, so apps may call this at every launch.
    ///
    /// - Parameters:
    ///   - applicationIdentifier: the app (default: this process's, `OpenSpotlight.applicationIdentifier`).
    ///   - displayName: the name shown in results.
    ///   - icon: an icon-theme name or an absolute path.
    ///   - executable: the program that continues activities (default: this process's executable).
    ///   - terminal: whether it is a terminal program.
    ///   - noDisplay: whether application menus leave it out (`NoDisplay=true`; samples and tools the system starts).
    ///   - supportsSearchContinuation: whether it handles `CSQueryContinuationActionType`.
    ///   - reindexExtension: its reindex extension (default: this executable).
    ///   - associatedDomains: web domains whose pages it opens (`example.com`, `applinks:example.com`, `*.example.com`).
    @discardableResult
    public static func register(applicationIdentifier: String = OpenSpotlight.applicationIdentifier,
                                displayName: String, icon: String? = nil, comment: String? = nil,
                                executable: URL? = nil, terminal: Bool = false, noDisplay: Bool = false,
                                supportsSearchContinuation: Bool = false,
                                reindexExtension: ReindexExtension = .sameExecutable,
                                associatedDomains: [String] = []) throws -> SpotlightApp {
        let program = (executable ?? currentExecutable).path
        let exec = DesktopEntry.joinExec([.literal(program), .fieldCode("u")])
        let reindex: String?
        switch reindexExtension {
        case .none: reindex = nil
        case .sameExecutable: reindex = DesktopEntry.joinExec([.literal(program), .literal(reindexArgument), .fieldCode("f")])
        case .executable(let url): reindex = DesktopEntry.joinExec([.literal(url.path), .literal(reindexArgument), .fieldCode("f")])
        case .commandLine(let line): reindex = line
        }
        var app = SpotlightApp(applicationIdentifier: applicationIdentifier, displayName: displayName, icon: icon,
                               comment: comment, exec: exec, reindexExec: reindex, terminal: terminal,
                               noDisplay: noDisplay, supportsSearchContinuation: supportsSearchContinuation,
                               associatedDomains: associatedDomains)
        try app.write()
        return app
    }

    /// Writes the app's desktop file into `SystemLocations.applicationsDirectory` (if its content changed).
    ///
    /// The file is written 0600 whatever the umask (its `Exec` and `ReindexExec` lines are what `spotlight`
    /// runs), a missing folder is created 0700, and a symbolic link in the file's place is replaced, never
    /// written through.
    public mutating func write(to directory: URL = SystemLocations.applicationsDirectory) throws {
        let url = directory.appendingPathComponent(Self.desktopFileID(applicationIdentifier) + ".desktop")
        let text = desktopEntry().serialized()
        desktopFile = url
        if let existing = SystemLocations.readRegularFile(url), existing == Data(text.utf8),
           SystemLocations.mode(of: url).map({ $0 & 0o077 == 0 }) == true {
            return
        }
        try SystemLocations.createPrivateDirectory(directory)
        try SystemLocations.writePrivateFile(Data(text.utf8), to: url)
    }

    /// Removes the app's registration from this user's applications directory.
    public static func unregister(_ applicationIdentifier: String) throws {
        for app in all() where app.applicationIdentifier == applicationIdentifier {
            if let file = app.desktopFile, file.deletingLastPathComponent().standardizedFileURL.path
                == SystemLocations.applicationsDirectory.standardizedFileURL.path {
                try FileManager.default.removeItem(at: file)
            }
        }
    }

    /// The desktop entry describing the app.
    public func desktopEntry() -> DesktopEntry {
        var entry = DesktopEntry()
        entry["Type"] = "Application"
        // 1.4: no key of ours is newer, and desktop-file-validate (Debian 12) knows no later version.
        entry["Version"] = "1.4"
        entry["Name"] = displayName
        entry["Comment"] = comment
        entry["Icon"] = icon
        entry["Exec"] = exec
        entry["Terminal"] = terminal ? "true" : "false"
        if noDisplay { entry["NoDisplay"] = "true" }
        entry[Key.applicationIdentifier] = applicationIdentifier
        entry[Key.reindexExec] = reindexExec
        entry[Key.searchContinuation] = supportsSearchContinuation ? "true" : "false"
        entry[Key.protocolVersion] = String(Self.protocolVersion)
        if !associatedDomains.isEmpty { entry[Key.associatedDomains] = associatedDomains.joined(separator: ";") + ";" }
        return entry
    }

    /// Reads an app from a desktop entry; `nil` when the entry is not an OpenSpotlight app (no
    /// `X-OpenSpotlight-AppID`), is hidden, or has no `Exec`.
    public init?(desktopEntry entry: DesktopEntry, file: URL? = nil) {
        guard let id = entry[Key.applicationIdentifier], !id.isEmpty, let exec = entry["Exec"],
              entry.bool("Hidden") != true else { return nil }
        self.init(applicationIdentifier: id, displayName: entry["Name"] ?? id, icon: entry["Icon"],
                  comment: entry["Comment"], exec: exec, reindexExec: entry[Key.reindexExec],
                  terminal: entry.bool("Terminal") ?? false, noDisplay: entry.bool("NoDisplay") ?? false,
                  supportsSearchContinuation: entry.bool(Key.searchContinuation) ?? false,
                  associatedDomains: (entry[Key.associatedDomains] ?? "").split(separator: ";")
                      .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty },
                  desktopFile: file)
    }

    /// Every registered app, the user's registrations first; one per app identifier.
    public static func all() -> [SpotlightApp] {
        var seen: Set<String> = []
        var apps: [SpotlightApp] = []
        for directory in SystemLocations.applicationDirectories {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
                .filter { $0.hasSuffix(".desktop") }.sorted()
            for name in names {
                let url = directory.appendingPathComponent(name)
                guard let app = Self.registration(at: url), !seen.contains(app.applicationIdentifier) else { continue }
                seen.insert(app.applicationIdentifier)
                apps.append(app)
            }
        }
        return apps.sorted { $0.applicationIdentifier < $1.applicationIdentifier }
    }

    /// The registration a desktop entry holds, if any. A long-running process (the desktop's search providers)
    /// lists the applications at every search: a file unchanged since it was last read (same inode, size and
    /// modification time) is not read again.
    private static func registration(at url: URL) -> SpotlightApp? {
        var info = stat()
        // A registration reached through a symbolic link is not trusted: `spotlight` runs its Exec lines.
        guard lstat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let signature = FileSignature(inode: UInt64(info.st_ino), size: Int64(info.st_size),
                                      seconds: Int64(info.st_mtim.tv_sec), nanoseconds: Int64(info.st_mtim.tv_nsec))
        if let cached = registrationCache.withLock({ $0[url.path] }), cached.signature == signature { return cached.app }
        var app: SpotlightApp?
        if let data = SystemLocations.readRegularFile(url), let text = String(data: data, encoding: .utf8),
           text.contains(Key.applicationIdentifier) {
            app = SpotlightApp(desktopEntry: DesktopEntry(parsing: text), file: url)
        }
        registrationCache.withLock { cache in
            if cache.count > 10_000 { cache.removeAll() }
            cache[url.path] = (signature, app)
        }
        return app
    }

    private struct FileSignature: Equatable {
        var inode: UInt64
        var size: Int64
        var seconds: Int64
        var nanoseconds: Int64
    }

    private static let registrationCache = Mutex<[String: (signature: FileSignature, app: SpotlightApp?)]>([:])

    /// Whether a web page's host is one of the app's associated domains (`applinks:` prefix ignored, `*.` matches
    /// every subdomain but not the domain itself, as Apple's do).
    public func claims(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
              let host = url.host?.lowercased(), !host.isEmpty else { return false }
        return associatedDomains.contains { domain in
            var pattern = domain.lowercased()
            if pattern.hasPrefix("applinks:") { pattern.removeFirst("applinks:".count) }
            if let query = pattern.firstIndex(of: "?") { pattern = String(pattern[..<query]) }
            if pattern.hasPrefix("*.") { return host.hasSuffix(String(pattern.dropFirst(1))) }
            return host == pattern
        }
    }

    /// The registration of an app identifier.
    public static func registered(_ applicationIdentifier: String) -> SpotlightApp? {
        all().first { $0.applicationIdentifier == applicationIdentifier }
    }

    /// An app named by its identifier, its display name (case-insensitively) or the last component of its
    /// identifier (`colleagues` for `com.example.colleagues`).
    public static func find(_ name: String) -> SpotlightApp? {
        let apps = all()
        if let app = apps.first(where: { $0.applicationIdentifier == name }) { return app }
        let folded = name.lowercased()
        return apps.first { $0.displayName.lowercased() == folded }
            ?? apps.first { $0.applicationIdentifier.split(separator: ".").last?.lowercased() == folded }
    }

    /// The desktop file ID of an app identifier: its characters outside letters, digits, `.`, `-` and `_`
    /// replaced with `_`.
    public static func desktopFileID(_ applicationIdentifier: String) -> String {
        String(applicationIdentifier.map { c -> Character in
            c.isASCII && (c.isLetter || c.isNumber || c == "." || c == "-" || c == "_") ? c : "_"
        })
    }

    /// The absolute path of the running executable.
    public static var currentExecutable: URL {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: path)
        }
        let argument0 = CommandLine.arguments.first ?? ProcessInfo.processInfo.processName
        if argument0.hasPrefix("/") { return URL(fileURLWithPath: argument0) }
        if argument0.contains("/") {
            return URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(argument0)
                .standardizedFileURL
        }
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(dir)).appendingPathComponent(argument0)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return URL(fileURLWithPath: argument0)
    }
}
