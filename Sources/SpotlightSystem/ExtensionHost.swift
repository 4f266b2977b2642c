import Foundation
import OpenCoreSpotlight

/// The system side of reindex requests: runs an app's registered reindex extension on a request file and waits
/// for its acknowledgement.
///
/// The extension is the app's `X-OpenSpotlight-ReindexExec` command line with `%f` replaced by the request file,
/// run with `OPENSPOTLIGHT_HOME` and `OPENSPOTLIGHT_APP_ID` set to the request's root and app. Its output goes to
/// the caller's standard error. The request counts as acknowledged when the extension exits with status 0 and
/// the acknowledgement file (`<id>.ack`) exists; otherwise it stays pending and is issued again later.
public struct ExtensionHost: Sendable {
    public let root: URL
    /// How long an extension may run (`OPENSPOTLIGHT_EXTENSION_TIMEOUT` seconds, default 300).
    public var timeout: TimeInterval

    public init(root: URL = OpenSpotlight.rootDirectory) {
        self.root = root
        self.timeout = ProcessInfo.processInfo.environment["OPENSPOTLIGHT_EXTENSION_TIMEOUT"].flatMap(TimeInterval.init) ?? 300
    }

    /// What became of a request.
    public enum Outcome: Sendable, Hashable {
        case acknowledged
        /// The app registered no extension; the request waits for the app's next launch.
        case noExtension
        /// The app is not registered at all.
        case appNotRegistered
        case failed(String)
    }

    /// Issues a pending request to its app's extension and waits. Acknowledged requests are removed; others are
    /// saved with one more attempt.
    public func issue(_ request: ReindexRequest, store: ReindexRequestStore) -> Outcome {
        var request = request
        guard let app = SpotlightApp.registered(request.applicationIdentifier) else { return .appNotRegistered }
        guard app.reindexExec != nil else { return .noExtension }
        request.attempts += 1
        request.lastAttempt = Date()
        try? store.save(request)
        let outcome = run(request, store: store)
        if outcome == .acknowledged { store.remove(request) }
        return outcome
    }

    /// Runs the app's extension on a saved request and waits; the request's files stay (the caller reads the
    /// reply, then removes them).
    func run(_ request: ReindexRequest, store: ReindexRequestStore) -> Outcome {
        guard let app = SpotlightApp.registered(request.applicationIdentifier) else { return .appNotRegistered }
        guard let reindexExec = app.reindexExec else { return .noExtension }
        let file = store.file(of: request)
        let command: [String]
        do {
            command = try DesktopEntry.expandExec(reindexExec, url: file.path, icon: app.icon, name: app.displayName,
                                                  desktopFile: app.desktopFile?.path)
        } catch {
            return .failed("\(TextReport.possessive(app.displayName)) reindex command is malformed: \(error)")
        }
        guard let executable = Launcher.resolve(command[0]) else {
            return .failed("\(TextReport.possessive(app.displayName)) reindex extension \(command[0]) is not an executable program")
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = Array(command.dropFirst())
        var environment = ProcessInfo.processInfo.environment
        environment["OPENSPOTLIGHT_HOME"] = root.path
        environment["OPENSPOTLIGHT_APP_ID"] = request.applicationIdentifier
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.standardError
        process.standardError = FileHandle.standardError
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        do {
            try process.run()
        } catch {
            return .failed("cannot start \(executable.path): \(error.localizedDescription)")
        }
        if done.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            _ = done.wait(timeout: .now() + 5)
            return .failed("\(TextReport.possessive(app.displayName)) reindex extension did not finish within \(Int(timeout)) s")
        }
        let status = process.terminationStatus
        if status == 0, store.isAcknowledged(request) {
            return .acknowledged
        }
        return .failed(status == 0
            ? "\(TextReport.possessive(app.displayName)) reindex extension exited without acknowledging the request"
            : "\(TextReport.possessive(app.displayName)) reindex extension exited with status \(status)")
    }
}
