import ArgumentParser
import Foundation
import OpenCoreSpotlight
import SpotlightDesktop
import SpotlightSystem

#if canImport(Glibc)
import Glibc
#endif

/// This program's own path (for the files that start it again, and for starting the page from the providers).
private var ownExecutable: String {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
}

// MARK: - serve

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the search page on this machine, or the desktop's search providers (--dbus).",
        discussion: """
            spotlight serve                 the search page on 127.0.0.1 (prints its address, with its token)
            spotlight serve --open          …and open it in the browser (or open the page already running)
            spotlight serve --dbus          GNOME Shell's and KRunner's providers on the session bus

            The page answers only requests carrying the token drawn at start. The providers are started by D-Bus \
            when GNOME Shell or KRunner first asks (spotlight desktop install writes the files). See \
            Documentation/System.md.
            """)

    @Flag(help: "Answer GNOME Shell's and KRunner's searches on the session bus instead of serving the page.")
    var dbus = false

    @Option(help: "The page's port on 127.0.0.1 (0: any free port).")
    var port = 0

    @Flag(help: "Open the page in the browser (xdg-open, or $OPENSPOTLIGHT_OPENER); reuses a page already running.")
    var open = false

    @Option(help: "With --open: words to search at once.")
    var query: String?

    @Option(help: "With --dbus: exit after this many seconds without a call (D-Bus starts it again when asked).")
    var idleExit: Double?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        if let idleExit, !(idleExit > 0) { throw ValidationError("--idle-exit must be a positive number of seconds") }
        if dbus && open { throw ValidationError("--open is for the page, not with --dbus") }
    }

    mutating func run() async throws {
        let sender = Task { await sendPublicReportsPeriodically() }
        defer { sender.cancel() }
        if dbus {
            try await serveProviders()
            return
        }
        if open, let running = PageState.running() {
            let page = SearchPage(search: DesktopSearch(), token: running.token)
            try openInBrowser(page.url(port: running.port, query: query))
            return
        }
        let page = SearchPage(search: DesktopSearch())
        let open = self.open, query = self.query
        try await page.run(port: port) { port in
            // Written at once (not buffered): scripts and tests read the address from a pipe.
            FileHandle.standardOutput.write(Data("Search page: \(page.url(port: port))\n".utf8))
            do {
                try PageState(pid: getpid(), port: port, token: page.token).save()
            } catch {
                progressLine("the page's address could not be saved for reuse (\(error))")
            }
            if open {
                let url = page.url(port: port, query: query)
                Thread { try? openInBrowser(url) }.start()
            }
        }
        PageState.remove(pid: getpid())
    }

    private func serveProviders() async throws {
        let providers = SearchProviders(search: DesktopSearch()) { text in
            // GNOME's "show all results": the search page, started detached (or the one already running).
            var arguments = ["serve", "--open"]
            if !text.isEmpty { arguments += ["--query", text] }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: ownExecutable)
            process.arguments = arguments
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
        }
        let idleExit = self.idleExit
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            // sd-bus is used from this one thread.
            Thread {
                do {
                    try providers.run(idleExit: idleExit, ready: {
                        progressLine("answering GNOME Shell and KRunner as \(SearchProviders.busName)")
                    })
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: SystemError("\(error)"))
                }
            }.start()
        }
    }
}

private func openInBrowser(_ url: String) throws {
    let status = try Launcher.open(uri: url)
    if status != 0 { throw SystemError("the browser could not be opened (exit status \(status)); the page is at \(url)") }
}

// MARK: - desktop

struct Desktop: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put Spotlight into the desktop's search (GNOME Shell, KRunner), or take it out.",
        subcommands: [Install.self, Uninstall.self])

    struct Placement: ParsableArguments {
        @Flag(help: "Install for every user under --prefix (GNOME Shell reads search providers only there); needs root.")
        var system = false

        @Option(help: "With --system: the prefix.")
        var prefix = "/usr/local"

        @Option(help: "The spotlight executable the files start (default: this one).")
        var executable: String?

        func integration(systemdUnit: Bool) throws -> DesktopIntegration {
            let executable = self.executable ?? ownExecutable
            guard executable.hasPrefix("/") else { throw ValidationError("--executable must be an absolute path") }
            return system
                ? .system(executable: executable, prefix: URL(fileURLWithPath: prefix), systemdUnit: systemdUnit)
                : .user(executable: executable, systemdUnit: systemdUnit)
        }
    }

    struct Install: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Install the D-Bus service, GNOME Shell's provider, KRunner's plugin and the Spotlight desktop entry.")

        @OptionGroup var placement: Placement

        @Flag(help: "Also install a systemd user unit and let D-Bus start the providers through it.")
        var systemd = false

        mutating func run() throws {
            let integration = try placement.integration(systemdUnit: systemd)
            for url in try integration.install() { print("installed \(url.path)") }
            if !placement.system {
                progressLine("GNOME Shell reads search providers only from system data directories: for GNOME, run"
                    + " `sudo spotlight desktop install --system` as well. KRunner reads this one (restart krunner).")
            }
            if systemd { progressLine("run `systemctl --user daemon-reload` to load \(DesktopIntegration.unitName)") }
        }
    }

    struct Uninstall: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove what `spotlight desktop install` wrote.")

        @OptionGroup var placement: Placement

        mutating func run() throws {
            let removed = try placement.integration(systemdUnit: true).uninstall()
            for url in removed { print("removed \(url.path)") }
            if removed.isEmpty { print("Nothing was installed there.") }
        }
    }
}
