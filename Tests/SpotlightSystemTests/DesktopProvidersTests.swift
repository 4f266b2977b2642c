import Foundation
import XCTest
import OpenCoreSpotlight
@testable import SpotlightDesktop
@testable import SpotlightSystem

#if canImport(Glibc)
import Glibc
#endif

/// GNOME Shell's and KRunner's providers as the desktop reaches them: `spotlight desktop install` writes the D-Bus
/// service file into this test's data directory, a private session bus (a real dbus-daemon) reads it, and the
/// first call starts `spotlight serve --dbus` by D-Bus activation. Calls go through `busctl` (JSON replies) and
/// `gdbus` (which introspects first, as GLib clients do).
final class DesktopProvidersTests: SystemTestCase {
    static let colleagues = "com.example.colleagues"
    static let brent = "com.example.colleagues/employee-1"
    private var bus: PrivateSessionBus!

    override func setUp() {
        super.setUp()
        do {
            try succeed("colleagues", ["setting", "all-records"])
            try succeed("spotlight", ["desktop", "install"])
            bus = try PrivateSessionBus(directory: temporary, serviceDirectory: dataHome.appendingPathComponent("dbus-1/services"),
                                        environment: childEnvironment)
        } catch {
            XCTFail("set-up failed: \(error)")
        }
    }

    override func tearDown() {
        bus?.stop()
        if let page = try? pageState() { kill(page.pid, SIGTERM) }
        super.tearDown()
    }

    // MARK: GNOME Shell

    func testGnomeProviderIsStartedByDBusActivationAndFindsTypedWords() throws {
        XCTAssertEqual(try strings(call(gnome, "GetInitialResultSet", "as", ["1", "bre"])), [Self.brent])
        XCTAssertEqual(try strings(call(gnome, "GetInitialResultSet", "as", ["2", "brent", "reid"])), [Self.brent])
        let engineering = try strings(call(gnome, "GetInitialResultSet", "as", ["1", "engineering"]))
        XCTAssertEqual(engineering.count, 6, "\(engineering)")
        XCTAssertTrue(engineering.allSatisfy { $0.hasPrefix(Self.colleagues + "/") })
        // Typing more refines: the previous results are a hint, the search runs again.
        XCTAssertEqual(try strings(call(gnome, "GetSubsearchResultSet", "asas", ["1", "x", "1", "brent"])), [Self.brent])
        XCTAssertEqual(try strings(call(gnome, "GetInitialResultSet", "as", ["0"])), [], "no words, no results")
        XCTAssertEqual(try strings(call(gnome, "GetInitialResultSet", "as", ["1", "zzzzqqq"])), [])
    }

    func testGnomeMetasNameDescribeAndIconEachResultAndSkipUnknownOnes() throws {
        let reply = try call(gnome, "GetResultMetas", "as", ["3", Self.brent, "com.example.colleagues/employee-404", "not an id"])
        let metas = try XCTUnwrap((reply["data"] as? [Any])?.first as? [[String: Any]])
        XCTAssertEqual(metas.count, 1, "only the result that exists: \(metas)")
        func value(_ key: String) -> String? { (metas.first?[key] as? [String: Any])?["data"] as? String }
        XCTAssertEqual(value("id"), Self.brent)
        XCTAssertEqual(value("name"), "Brent Reid")
        XCTAssertEqual(value("description"), "Colleagues · Senior Software Engineer, Engineering")
        XCTAssertEqual(value("gicon"), "system-users", "the app's icon from its desktop entry")
        XCTAssertEqual(value("clipboardText"), "Brent Reid")
    }

    func testGdbusIntrospectsAndCallsTheProviderAsGLibClientsDo() throws {
        let introspection = try gdbus(["introspect", "--object-path", SearchProviders.gnomeObjectPath])
        for method in ["GetInitialResultSet(in  as terms", "GetResultMetas(in  as identifiers", "ActivateResult(in  s identifier",
                       "LaunchSearch(in  as terms"] {
            XCTAssertTrue(introspection.contains(method), "\(method) missing from\n\(introspection)")
        }
        let reply = try gdbus(["call", "--object-path", SearchProviders.gnomeObjectPath,
                               "--method", "org.gnome.Shell.SearchProvider2.GetInitialResultSet", "['priya']"])
        XCTAssertEqual(reply.trimmingCharacters(in: .whitespacesAndNewlines), "(['com.example.colleagues/employee-4'],)")
    }

    func testActivateResultLaunchesTheAppsExecWithTheContinuationURL() throws {
        let recorded = try replaceColleaguesWithRecorder()
        _ = try call(gnome, "ActivateResult", "sasu", [Self.brent, "1", "bre", "0"])
        let arguments = try waitForLines(recorded)
        XCTAssertEqual(arguments.count, 1, "\(arguments)")
        let payload = try ContinuationPayload.parse(try XCTUnwrap(arguments.first))
        XCTAssertEqual(payload.applicationIdentifier, Self.colleagues)
        XCTAssertEqual(payload.activityType, CSSearchableItemActionType)
        XCTAssertEqual(payload.userInfo[CSSearchableItemActivityIdentifier], .string("employee-1"))
        XCTAssertEqual(payload.userInfo[CSSearchQueryString], .string("bre"), "the typed words go with it")
        // Activating something that no longer exists is an error for the caller, not a launch.
        XCTAssertThrowsError(try call(gnome, "ActivateResult", "sasu", [Self.colleagues + "/employee-404", "0", "0"]))
    }

    func testATerminalAppOpensInATerminalEmulatorWindow() throws {
        // Colleagues is a terminal app: from the desktop it runs in $OPENSPOTLIGHT_TERMINAL (here a stand-in that
        // runs it and keeps its output), so the real app shows the employee.
        let output = temporary.appendingPathComponent("terminal.out")
        let terminal = try terminalStandIn(output: output)
        bus.stop()
        var environment = childEnvironment
        environment["OPENSPOTLIGHT_TERMINAL"] = terminal.path
        bus = try PrivateSessionBus(directory: temporary, serviceDirectory: dataHome.appendingPathComponent("dbus-1/services"),
                                    environment: environment)
        _ = try call(gnome, "ActivateResult", "sasu", [Self.brent, "0", "0"])
        let shown = try waitForLines(output).joined(separator: "\n")
        XCTAssertTrue(shown.contains("brent.reid@example.com"), shown)
    }

    func testLaunchSearchOpensTheSearchPageWithTheTypedWords() throws {
        _ = try call(gnome, "LaunchSearch", "asu", ["1", "bre", "0"])
        let opened = try waitForLines(openerLog)
        let url = try XCTUnwrap(opened.first)
        XCTAssertTrue(url.hasPrefix("http://127.0.0.1:"), url)
        XCTAssertTrue(url.hasSuffix("&q=bre"), url)
        let page = try PageClient(url: url)
        XCTAssertEqual(try page.get("/api/search?q=bre").status, 200, "the page it opened answers with its token")
        // Launching again reuses the page that is running.
        _ = try call(gnome, "LaunchSearch", "asu", ["1", "reid", "0"])
        let again = try waitForLines(openerLog, count: 2)
        XCTAssertEqual(again.count, 2)
        XCTAssertEqual(again[1], url.replacingOccurrences(of: "&q=bre", with: "&q=reid"))
    }

    // MARK: KRunner

    func testKRunnerMatchesWithSubtextCategoryAndActions() throws {
        let reply = try call(krunner, "Match", "s", ["brent reid"])
        let matches = try XCTUnwrap((reply["data"] as? [Any])?.first as? [[Any]])
        XCTAssertEqual(matches.count, 1, "\(matches)")
        let match = try XCTUnwrap(matches.first)
        XCTAssertEqual(match[0] as? String, Self.brent)
        XCTAssertEqual(match[1] as? String, "Brent Reid")
        XCTAssertEqual(match[2] as? String, "system-users")
        XCTAssertEqual(match[3] as? Int, 100, "the whole title: an exact match")
        XCTAssertEqual(match[4] as? Double, 1)
        let properties = try XCTUnwrap(match[5] as? [String: Any])
        func value(_ key: String) -> Any? { (properties[key] as? [String: Any])?["data"] }
        XCTAssertEqual(value("subtext") as? String, "Colleagues · Senior Software Engineer, Engineering")
        XCTAssertEqual(value("category") as? String, "Colleagues")
        XCTAssertEqual(value("actions") as? [String], ["call", "directions"])

        let partial = try XCTUnwrap((try call(krunner, "Match", "s", ["engineer"])["data"] as? [Any])?.first as? [[Any]])
        XCTAssertEqual(partial.count, 6)
        XCTAssertTrue(partial.allSatisfy { $0[3] as? Int == 30 }, "\(partial)")
        let relevances = partial.compactMap { $0[4] as? Double }
        XCTAssertEqual(relevances, relevances.sorted(by: >), "relevance follows the ranking")

        let actions = try XCTUnwrap((try call(krunner, "Actions", "", [])["data"] as? [Any])?.first as? [[String]])
        XCTAssertEqual(actions.map { $0[0] }, ["call", "directions"])
    }

    func testKRunnerRunOpensCallsAndGivesDirections() throws {
        _ = try call(krunner, "Run", "ss", [Self.brent, "call"])
        _ = try call(krunner, "Run", "ss", [Self.brent, "directions"])
        let opened = try waitForLines(openerLog, count: 2)
        XCTAssertEqual(opened.first, "tel:+15550101")
        XCTAssertTrue(opened.last?.hasPrefix("geo:") == true, "\(opened)")
        let recorded = try replaceColleaguesWithRecorder()
        _ = try call(krunner, "Run", "ss", [Self.brent, ""])
        let payload = try ContinuationPayload.parse(try XCTUnwrap(try waitForLines(recorded).first))
        XCTAssertEqual(payload.userInfo[CSSearchableItemActivityIdentifier], .string("employee-1"))
        XCTAssertThrowsError(try call(krunner, "Run", "ss", [Self.brent, "teleport"]))
    }

    // MARK: Bad calls

    func testBadCallsGetDBusErrorsAndTheServiceKeepsAnswering() throws {
        let wrongType = try busctl(["call", SearchProviders.busName, SearchProviders.gnomeObjectPath,
                                    "org.gnome.Shell.SearchProvider2", "GetInitialResultSet", "s", "bre"], expectFailure: true)
        XCTAssertTrue(wrongType.contains("GetInitialResultSet takes (as), not (s)"), wrongType)
        let unknown = try busctl(["call", SearchProviders.busName, SearchProviders.gnomeObjectPath,
                                  "org.gnome.Shell.SearchProvider2", "Explode"], expectFailure: true)
        XCTAssertTrue(unknown.lowercased().contains("unknown"), unknown)
        // Bytes that are not UTF-8 cannot reach it (the bus refuses them); long and odd words are searched.
        XCTAssertEqual(try strings(call(gnome, "GetInitialResultSet", "as", ["2", String(repeating: "ab", count: 5000), "*?\"\\"])), [])
        XCTAssertEqual(try strings(call(gnome, "GetInitialResultSet", "as", ["1", "bre"])), [Self.brent])
    }

    // MARK: Lifetime

    func testTheServiceExitsWhenIdleAndWhenTheBusGoesAway() throws {
        // Started by hand (not activated) with an idle exit: it answers, then leaves after a second without calls.
        let idle = try startService(["--idle-exit", "1"])
        XCTAssertEqual(try strings(call(gnome, "GetInitialResultSet", "as", ["1", "bre"])), [Self.brent])
        XCTAssertTrue(waitForExit(idle, seconds: 10), "still running after its idle time")
        XCTAssertEqual(idle.terminationStatus, 0)

        // Without one, it stays until the session bus ends, and then exits cleanly.
        let service = try startService([])
        XCTAssertEqual(try strings(call(gnome, "GetInitialResultSet", "as", ["1", "priya"])), ["com.example.colleagues/employee-4"])
        usleep(1_500_000)
        XCTAssertTrue(service.isRunning, "no idle exit unless asked")
        bus.stop()
        XCTAssertTrue(waitForExit(service, seconds: 10), "still running after the bus went away")
        XCTAssertEqual(service.terminationStatus, 0)
    }

    func testASecondServiceRefusesToStartWhileOneHasTheName() throws {
        _ = try call(gnome, "GetInitialResultSet", "as", ["1", "bre"])  // the activated one has the name
        let second = try run("spotlight", ["serve", "--dbus"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        XCTAssertNotEqual(second.status, 0)
        XCTAssertTrue(second.stderr.contains("already taken"), second.stderr)
    }

    // MARK: Install

    func testDesktopInstallWritesValidFilesAndUninstallRemovesThem() throws {
        let applications = dataHome.appendingPathComponent("applications/\(DesktopIntegration.desktopID)")
        let validation = try run(executable: URL(fileURLWithPath: "/usr/bin/desktop-file-validate"), [applications.path])
        XCTAssertEqual(validation.status, 0, validation.stdout + validation.stderr)
        let ini = try String(contentsOf: dataHome.appendingPathComponent("gnome-shell/search-providers/\(SearchProviders.busName).ini"),
                             encoding: .utf8)
        let entry = DesktopEntry(parsing: ini)
        XCTAssertEqual(entry["DesktopId", group: "Shell Search Provider"], DesktopIntegration.desktopID)
        XCTAssertEqual(entry["BusName", group: "Shell Search Provider"], SearchProviders.busName)
        XCTAssertEqual(entry["ObjectPath", group: "Shell Search Provider"], SearchProviders.gnomeObjectPath)
        XCTAssertEqual(entry["Version", group: "Shell Search Provider"], "2")
        let runner = DesktopEntry(parsing: try String(contentsOf: dataHome.appendingPathComponent(
            "krunner/dbusplugins/\(SearchProviders.busName).desktop"), encoding: .utf8))
        XCTAssertEqual(runner["X-Plasma-API"], "DBus")
        XCTAssertEqual(runner["X-Plasma-DBusRunner-Path"], SearchProviders.krunnerObjectPath)

        try succeed("spotlight", ["desktop", "install", "--systemd"])
        let unit = configHome.appendingPathComponent("systemd/user/\(DesktopIntegration.unitName)")
        XCTAssertTrue(try String(contentsOf: unit, encoding: .utf8).contains("BusName=\(SearchProviders.busName)"))
        let service = try String(contentsOf: dataHome.appendingPathComponent("dbus-1/services/\(SearchProviders.busName).service"),
                                 encoding: .utf8)
        XCTAssertTrue(service.contains("SystemdService=\(DesktopIntegration.unitName)"), service)
        XCTAssertTrue(service.contains(Self.productsDirectory.appendingPathComponent("spotlight").resolvingSymlinksInPath().path
            + " serve --dbus"), service)

        let removed = try succeed("spotlight", ["desktop", "uninstall"])
        XCTAssertEqual(removed.stdout.split(separator: "\n").count, 5, removed.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: unit.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: applications.path))
        XCTAssertTrue(try succeed("spotlight", ["desktop", "uninstall"]).stdout.contains("Nothing was installed"))
    }

    func testExecLinesQuoteAnExecutablePathWithSpaces() {
        let integration = DesktopIntegration.system(executable: "/opt/my apps/spot\"light", prefix: temporary)
        let service = integration.files.first { $0.url.pathExtension == "service" }?.contents ?? ""
        XCTAssertTrue(service.contains(#"Exec="/opt/my apps/spot\"light" serve --dbus"#), service)
        XCTAssertEqual(integration.files.count, 4)
    }

    // MARK: Helpers

    private let gnome = (SearchProviders.gnomeObjectPath, "org.gnome.Shell.SearchProvider2")
    private let krunner = (SearchProviders.krunnerObjectPath, "org.kde.krunner1")

    /// Calls a provider method through `busctl --json=short` and returns its decoded reply.
    private func call(_ object: (path: String, interface: String), _ method: String, _ signature: String,
                      _ arguments: [String]) throws -> [String: Any] {
        var command = ["call", SearchProviders.busName, object.path, object.interface, method]
        if !signature.isEmpty { command += [signature] + arguments }
        let output = try busctl(["--json=short"] + command)
        if output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return [:] }
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
    }

    private func strings(_ reply: [String: Any]) throws -> [String] {
        try XCTUnwrap((reply["data"] as? [Any])?.first as? [String], "\(reply)")
    }

    private func busctl(_ arguments: [String], expectFailure: Bool = false) throws -> String {
        let output = try run(executable: URL(fileURLWithPath: "/usr/bin/busctl"), ["--user"] + arguments,
                             environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        if expectFailure {
            XCTAssertNotEqual(output.status, 0, output.stdout)
            return output.stderr
        }
        guard output.status == 0 else { throw SystemError("busctl \(arguments.joined(separator: " ")): \(output.stderr)") }
        return output.stdout
    }

    private func gdbus(_ arguments: [String]) throws -> String {
        let output = try run(executable: URL(fileURLWithPath: "/usr/bin/gdbus"),
                             [arguments[0], "--session", "--dest", SearchProviders.busName] + arguments.dropFirst(),
                             environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        guard output.status == 0 else { throw SystemError("gdbus \(arguments.joined(separator: " ")): \(output.stderr)") }
        return output.stdout
    }

    /// Makes Colleagues' desktop entry start a stand-in that records its arguments (one per line) instead.
    private func replaceColleaguesWithRecorder() throws -> URL {
        let recorded = temporary.appendingPathComponent("recorded.txt")
        let recorder = temporary.appendingPathComponent("recorder.sh")
        try "#!/bin/sh\nprintf '%s\\n' \"$@\" > '\(recorded.path).tmp'; mv '\(recorded.path).tmp' '\(recorded.path)'\n"
            .write(to: recorder, atomically: true, encoding: .utf8)
        chmod(recorder.path, 0o755)
        let file = dataHome.appendingPathComponent("applications/\(Self.colleagues).desktop")
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("Exec=") ? "Exec=\(recorder.path) %u" : line.hasPrefix("Terminal=") ? "Terminal=false" : String(line)
        }
        try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        return recorded
    }

    /// The lines of a file that a detached process writes, once it has at least `count` of them (10 s at most).
    private func waitForLines(_ file: URL, count: Int = 1) throws -> [String] {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let text = try? String(contentsOf: file, encoding: .utf8) {
                let lines = text.split(separator: "\n").map(String.init)
                if lines.count >= count { return lines }
            }
            usleep(50_000)
        }
        throw SystemError("\(file.lastPathComponent) did not get \(count) line(s) in time")
    }

    /// Starts `spotlight serve --dbus` by hand on the private bus and waits until it has the name.
    private func startService(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = Self.productsDirectory.appendingPathComponent("spotlight")
        process.arguments = ["serve", "--dbus"] + arguments
        var environment = childEnvironment
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        process.environment = environment
        let err = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = err
        try process.run()
        let said = Self.read(err, until: "answering")
        guard said.contains("answering") else { throw SystemError("the service did not start: \(said)") }
        return process
    }

    private func waitForExit(_ process: Process, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        if process.isRunning { process.terminate(); return false }
        return true
    }

    private func pageState() throws -> PageState {
        try JSONDecoder().decode(PageState.self, from: Data(contentsOf: runtimeDirectory.appendingPathComponent("openspotlight/page.json")))
    }
}

/// A private session bus: a real `dbus-daemon` listening in a test's directory, activating services from one
/// directory with a given environment (what activated services inherit).
final class PrivateSessionBus {
    let address: String
    private let process: Process

    init(directory: URL, serviceDirectory: URL, environment: [String: String]) throws {
        let configuration = directory.appendingPathComponent("session-\(UUID().uuidString.prefix(6)).conf")
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:dir=\(directory.path)</listen>
              <servicedir>\(serviceDirectory.path)</servicedir>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """.write(to: configuration, atomically: true, encoding: .utf8)
        guard let daemon = ["/usr/bin/dbus-daemon", "/bin/dbus-daemon"].first(where: FileManager.default.isExecutableFile) else {
            throw SystemError("dbus-daemon is not installed (scripts/bootstrap.sh installs Debian's dbus-daemon)")
        }
        // In the foreground (not --fork: a forked daemon would hold the pipes Foundation watches for the exit).
        let process = Process()
        process.executableURL = URL(fileURLWithPath: daemon)
        process.arguments = ["--config-file=\(configuration.path)", "--nofork", "--print-address=1"]
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let printed = SystemTestCase.read(out, until: "\n")
        guard let line = printed.split(separator: "\n").first, line.hasPrefix("unix:") else {
            process.terminate()
            throw SystemError("dbus-daemon did not start: \(printed)")
        }
        address = String(line)
        self.process = process
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
