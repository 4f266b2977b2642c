import Foundation
import OpenCoreSpotlight
import SpotlightEngine

/// Starts programs for the system: an app continuing an activity, the `tel:`/`geo:` handler for actions.
public enum Launcher {
    /// The environment variable naming the program that opens `tel:` and `geo:` URIs (a command line; the URI is
    /// appended). Default: `xdg-open`.
    public static let openerEnvironmentVariable = "OPENSPOTLIGHT_OPENER"

    /// The environment variable naming the terminal emulator that runs a terminal app (`Terminal=true`) continued
    /// from the desktop (a command line; the app's command is appended). Default: `x-terminal-emulator -e`, else
    /// the first of gnome-terminal, konsole and xterm on `PATH`.
    public static let terminalEnvironmentVariable = "OPENSPOTLIGHT_TERMINAL"

    /// Continues an activity in its app: runs the app's `Exec` with the continuation URL.
    ///
    /// From a terminal (`fromDesktop` false), a terminal app (`Terminal=true`) runs in the caller's terminal and is
    /// waited for; its exit status is returned. From the desktop (a search provider, the search page), it runs in
    /// a new terminal emulator window, detached. Any other app is started detached (standard streams to
    /// `/dev/null`) and `nil` is returned.
    ///
    /// - Throws: `SystemError` when the app's `Exec` is malformed or its program cannot be started.
    @discardableResult
    public static func `continue`(_ payload: ContinuationPayload, in app: SpotlightApp,
                                  root: URL = OpenSpotlight.rootDirectory, fromDesktop: Bool = false) throws -> Int32? {
        guard payload.applicationIdentifier == app.applicationIdentifier else {
            throw SystemError("a continuation for \(payload.applicationIdentifier) cannot be sent to \(app.applicationIdentifier)")
        }
        let url = try payload.url(fileDirectory: SystemLocations.systemDirectory(root: root)
            .appendingPathComponent("continuations", isDirectory: true))
        let command: [String]
        do {
            command = try DesktopEntry.expandExec(app.exec, url: url, icon: app.icon, name: app.displayName,
                                                  desktopFile: app.desktopFile?.path)
        } catch {
            throw SystemError("\(app.displayName) has a malformed Exec line (\(app.exec)): \(error)")
        }
        let environment = ["OPENSPOTLIGHT_HOME": root.path]
        if fromDesktop {
            return try run(app.terminal ? try terminalEmulator() + command : command, wait: false, environment: environment)
        }
        return try run(command, wait: app.terminal, environment: environment)
    }

    /// The command line that runs a program in a new terminal window: `$OPENSPOTLIGHT_TERMINAL`, else the first
    /// known emulator on `PATH`.
    static func terminalEmulator() throws -> [String] {
        if let configured = try configuredCommand(terminalEnvironmentVariable) { return configured }
        for candidate in [["x-terminal-emulator", "-e"], ["gnome-terminal", "--"], ["konsole", "-e"], ["xterm", "-e"]]
            where resolve(candidate[0]) != nil {
            return candidate
        }
        throw SystemError("this app runs in a terminal, and no terminal emulator was found"
            + " (Debian: apt install xterm, or set \(terminalEnvironmentVariable))")
    }

    /// Opens a URI (`tel:+1…`, `geo:48.85,2.35`) with the desktop's handler: `$OPENSPOTLIGHT_OPENER`, else
    /// `xdg-open`. Waits for the opener and returns its exit status.
    @discardableResult
    public static func open(uri: String) throws -> Int32 {
        let command = try configuredCommand(openerEnvironmentVariable) ?? ["xdg-open"]
        guard let status = try run(command + [uri], wait: true) else { return 0 }
        return status
    }

    /// A command line set in an environment variable (split as an `Exec` line is), or nil when it is unset or empty.
    static func configuredCommand(_ variable: String) throws -> [String]? {
        guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else { return nil }
        return try DesktopEntry.splitExec(value).compactMap {
            if case .literal(let s) = $0 { return s } else { return nil }
        }
    }

    /// Runs a command line. With `wait`, in the caller's terminal, returning its exit status; without, detached.
    static func run(_ command: [String], wait: Bool, environment extra: [String: String] = [:],
                    standardOutput: FileHandle? = nil) throws -> Int32? {
        guard let program = command.first else { throw SystemError("empty command") }
        guard let executable = resolve(program) else {
            throw SystemError(program == "xdg-open"
                ? "xdg-open is not installed (Debian: apt install xdg-utils), or set \(openerEnvironmentVariable)"
                : "\(program) is not an executable program")
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = Array(command.dropFirst())
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        if wait {
            if let standardOutput { process.standardOutput = standardOutput }
        } else {
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        do {
            try process.run()
        } catch {
            throw SystemError("cannot start \(executable.path): \(error.localizedDescription)")
        }
        guard wait else { return nil }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// An absolute program path, or the first match on `PATH`.
    static func resolve(_ program: String) -> URL? {
        if program.contains("/") {
            return FileManager.default.isExecutableFile(atPath: program) ? URL(fileURLWithPath: program) : nil
        }
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(dir)).appendingPathComponent(program)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// The `tel:` URI of a phone number (RFC 3966): spaces removed, only `+`, digits and visual separators kept.
    public static func telURI(_ phoneNumber: String) -> String {
        let allowed = Set("+0123456789-.()*#")
        return "tel:" + String(phoneNumber.filter { allowed.contains($0) })
    }

    /// The `geo:` URI of a coordinate (RFC 5870).
    public static func geoURI(latitude: Double, longitude: Double) -> String {
        "geo:\(format(latitude)),\(format(longitude))"
    }

    private static func format(_ value: Double) -> String {
        var s = String(format: "%.6f", value)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }
}

/// The actions of a result beyond opening it: calling and directions.
public enum ResultActions {
    /// The `tel:` URI for calling a result, which must offer the call action.
    public static func callURI(for result: SystemSearch.Result, phoneIndex: Int = 0) throws -> String {
        guard result.actions.contains(.call), let phones = result.phoneNumbers, !phones.isEmpty else {
            throw SystemError("\"\(result.title)\" cannot be called (it needs supportsPhoneCall and phoneNumbers)")
        }
        guard phones.indices.contains(phoneIndex) else {
            throw SystemError("\"\(result.title)\" has \(phones.count) phone number\(phones.count == 1 ? "" : "s")")
        }
        return Launcher.telURI(phones[phoneIndex])
    }

    /// The `geo:` URI for directions to a result, which must offer the directions action.
    public static func directionsURI(for result: SystemSearch.Result) throws -> String {
        guard result.actions.contains(.directions), let latitude = result.latitude, let longitude = result.longitude else {
            throw SystemError("\"\(result.title)\" offers no directions (it needs supportsNavigation, latitude and longitude)")
        }
        return Launcher.geoURI(latitude: latitude, longitude: longitude)
    }

    /// An app's item (or saved activity, `activity:…`) as a result, for choosing an action without searching.
    public static func result(app: String, identifier: String, root: URL = OpenSpotlight.rootDirectory) throws -> SystemSearch.Result {
        let registration = SpotlightApp.registered(app)
        if identifier.hasPrefix("activity:") {
            guard let activity = try SavedUserActivity.all(applicationIdentifier: app, rootDirectory: root)
                .first(where: { $0.uniqueIdentifier == identifier }) else {
                throw SystemError("\(app) has no saved activity \(identifier)")
            }
            var candidate = Candidate(app: app, indexName: SavedUserActivity.indexName, item: activity.stored)
            candidate.activity = activity
            candidate.isActivityOnly = true
            return candidate.result(number: 0, registration: registration)
        }
        guard let (item, indexName) = try SavedUserActivity.item(withIdentifier: identifier, applicationIdentifier: app,
                                                                 rootDirectory: root) else {
            throw SystemError("\(app) has no item \(identifier)")
        }
        return Candidate(app: app, indexName: indexName, item: item)
            .result(number: 0, registration: registration)
    }
}
