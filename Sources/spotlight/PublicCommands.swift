import ArgumentParser
import Foundation
import OpenCoreSpotlight
import SpotlightPublicClient
import SpotlightSystem

/// `spotlight public …`: the opt-in public index (Documentation/PublicIndex.md).
struct Public: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "public",
        abstract: "The public index: turn it on or off, send queued reports, see where it stands.",
        discussion: """
            Off by default. While off, nothing about your activities is queued or sent, and searches stay on this
            machine. Turned on, apps' public activities (NSUserActivity.isEligibleForPublicIndexing with a
            webpageURL) are reported anonymously to the server, and searches show its results "From the web".
            """,
        subcommands: [SetServer.self, Off.self, Status.self, Send.self],
        defaultSubcommand: Status.self)

    struct SetServer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-server", abstract: "Turn the public index on, with this server.")
        @Argument(help: "The service's address, e.g. https://public.example.org") var url: String

        func run() async throws {
            guard let server = URL(string: url) else { throw ValidationError("\(url) is not a URL") }
            try PublicIndex.turnOn(server: server)
            print("The public index is on: \(server.absoluteString). Public activities will be reported anonymously;")
            print("`spotlight public off` turns it off and deletes unsent reports.")
        }
    }

    struct Off: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Turn the public index off and delete unsent reports.")
        func run() async throws {
            try PublicIndex.turnOff()
            print("The public index is off; no report is queued or sent, and searches stay on this machine.")
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show whether the public index is on and what waits to be sent.")
        func run() async throws {
            guard let server = PublicIndex.server() else {
                print("The public index is off (`spotlight public set-server URL` turns it on).")
                return
            }
            print("The public index is on: \(server)")
            print("Reports waiting to be sent: \(PublicIndex.queuedReports())")
        }
    }

    struct Send: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Send the reports apps queued.")
        @Flag(help: "Print the summary as JSON.") var json = false

        func run() async throws {
            guard let client = PublicIndexClient.configured() else {
                throw SystemError("the public index is off; `spotlight public set-server URL` turns it on")
            }
            let summary = await client.sendQueuedReports()
            if json {
                try printJSON(summary)
            } else {
                print("sent \(summary.sent), refused \(summary.refused), still queued \(summary.kept)")
                for problem in summary.problems { progressLine(problem) }
            }
            if summary.kept > 0 { throw ExitCode(75) }  // EX_TEMPFAIL: try again later
        }
    }
}

/// Adds the public index's results to a search, when it is on; a failure is a note, never the search's failure.
func addWebResults(to outcome: inout SystemSearch.Outcome, limit: Int) async {
    guard let client = PublicIndexClient.configured(), !outcome.query.isEmpty else { return }
    do {
        outcome.appendWebResults(try await client.search(outcome.query, limit: limit))
    } catch {
        outcome.problems.append("the public index did not answer: \(error)")
    }
}

/// Opens a public result: in its app when installed, else in the browser.
func openWebResult(_ result: WebResult, dryRun: Bool) throws {
    switch result.opening() {
    case .app(_, let payload):
        try continueInApp(payload, dryRun: dryRun)
    case .browser(let url):
        if dryRun {
            print("open \(url)")
            return
        }
        let status = try Launcher.open(uri: url)
        if status != 0 { throw ExitCode(status) }
    }
}

/// While `spotlight serve` runs (the page, or the desktop's providers that D-Bus starts with the session): sends the
/// reports apps queued, at start and every ten minutes, when the public index is on.
func sendPublicReportsPeriodically(every seconds: Double = 600) async {
    while !Task.isCancelled {
        if let client = PublicIndexClient.configured() {
            let summary = await client.sendQueuedReports()
            if summary.sent + summary.refused > 0 || summary.kept > 0 {
                progressLine("public index: sent \(summary.sent), refused \(summary.refused), still queued \(summary.kept)")
            }
        }
        try? await Task.sleep(for: .seconds(seconds))
    }
}
