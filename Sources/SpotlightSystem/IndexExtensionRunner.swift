import Foundation
import OpenCoreSpotlight
import SpotlightEngine

/// The app side of reindex requests: turns the system's request into `CSSearchableIndexDelegate` calls on the
/// app's `CSIndexExtensionRequestHandler` (or any delegate), waits for the acknowledgement and records it.
///
/// ```swift
/// // At the top of main.swift: when the system runs us as our reindex extension, do that and exit.
/// await IndexExtensionRunner.handleLaunchArguments(CommandLine.arguments, handler: ColleaguesIndexExtension())
///
/// // At launch, pick up requests the system could not deliver (no extension, or it failed):
/// await IndexExtensionRunner.processPendingRequests(delegate: ColleaguesIndexExtension())
/// ```
///
/// For a request the runner creates the index it names (`CSSearchableIndex.default()` for `_default`, else
/// `CSSearchableIndex(name:)`), calls `searchableIndexDidThrottle` when the system is shedding load, then the
/// reindex method, waits for `acknowledgementHandler` (up to `acknowledgementTimeout`), waits until the changes
/// made on that index instance are applied, calls `searchableIndexDidFinishThrottle` if it throttled, and writes
/// the acknowledgement file. A request for another app is refused.
@MainActor
public enum IndexExtensionRunner {
    /// How long to wait for the delegate's acknowledgement (`OPENSPOTLIGHT_ACK_TIMEOUT` seconds, default 300).
    public static var acknowledgementTimeout: TimeInterval {
        ProcessInfo.processInfo.environment["OPENSPOTLIGHT_ACK_TIMEOUT"].flatMap(TimeInterval.init) ?? 300
    }

    /// When the arguments carry a reindex request (`--openspotlight-reindex <file>`), runs it on `handler` and
    /// exits the process: status 0 when acknowledged, 1 otherwise. Returns normally when there is no request.
    public static func handleLaunchArguments(_ arguments: [String],
                                             handler: @autoclosure () -> any CSSearchableIndexDelegate) async {
        guard let i = arguments.firstIndex(of: SpotlightApp.reindexArgument) else { return }
        guard i + 1 < arguments.count else {
            FileHandle.standardError.write(Data("\(SpotlightApp.reindexArgument) needs a request file\n".utf8))
            exit(2)
        }
        let acknowledged = await run(requestFile: URL(fileURLWithPath: arguments[i + 1]), delegate: handler())
        exit(acknowledged ? 0 : 1)
    }

    /// Runs one request file. Returns whether the delegate acknowledged it.
    public static func run(requestFile: URL, delegate: any CSSearchableIndexDelegate) async -> Bool {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let data = FileManager.default.contents(atPath: requestFile.path),
              let request = try? decoder.decode(ReindexRequest.self, from: data) else {
            log("cannot read the reindex request \(requestFile.path)")
            return false
        }
        return await run(request, file: requestFile, delegate: delegate)
    }

    /// Runs every pending request of this app with `delegate` (requests the system could not deliver through an
    /// extension). Returns how many were acknowledged.
    @discardableResult
    public static func processPendingRequests(delegate: any CSSearchableIndexDelegate,
                                              rootDirectory root: URL = OpenSpotlight.rootDirectory) async -> Int {
        let store = ReindexRequestStore(root: root)
        var acknowledged = 0
        for request in store.pending(app: OpenSpotlight.applicationIdentifier) {
            if await run(request, file: store.file(of: request), delegate: delegate) {
                store.remove(request)
                acknowledged += 1
            }
        }
        return acknowledged
    }

    static func run(_ request: ReindexRequest, file: URL, delegate: any CSSearchableIndexDelegate) async -> Bool {
        let app = OpenSpotlight.applicationIdentifier
        guard request.applicationIdentifier == app else {
            log("the reindex request is for \(request.applicationIdentifier), not \(app); refused")
            return false
        }
        let index: CSSearchableIndex = request.indexName == StoreLocation.defaultIndexName
            ? CSSearchableIndex.default() : CSSearchableIndex(name: request.indexName)
        if request.throttled { delegate.searchableIndexDidThrottle(index) }
        let acknowledged = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let once = ResumeOnce(continuation)
            let timeout = acknowledgementTimeout
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { once.resume(false) }
            switch request.kind {
            case .reindexAll:
                delegate.searchableIndex(index, reindexAllSearchableItemsWithAcknowledgementHandler: { once.resume(true) })
            case .reindexIdentifiers:
                delegate.searchableIndex(index, reindexSearchableItemsWithIdentifiers: request.identifiers,
                                         acknowledgementHandler: { once.resume(true) })
            }
        }
        // Changes the delegate made on this index instance are applied before the system is told.
        _ = try? IndexInspector(index).count()
        if request.throttled { delegate.searchableIndexDidFinishThrottle(index) }
        guard acknowledged else {
            log("the reindex request \(request.id) was not acknowledged within \(Int(acknowledgementTimeout)) s")
            return false
        }
        do {
            try ReindexRequestStore.acknowledge(requestFile: file)
        } catch {
            log("cannot record the acknowledgement: \(error)")
            return false
        }
        return true
    }

    private static func log(_ message: String) {
        FileHandle.standardError.write(Data("reindex: \(message)\n".utf8))
    }
}

/// Resumes a continuation once, whichever of the acknowledgement and the timeout comes first.
private final class ResumeOnce: @unchecked Sendable {
    // @unchecked Sendable: `continuation` is touched only under `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Bool, Never>?

    init(_ continuation: CheckedContinuation<Bool, Never>) {
        self.continuation = continuation
    }

    func resume(_ value: Bool) {
        lock.lock()
        let c = continuation
        continuation = nil
        lock.unlock()
        c?.resume(returning: value)
    }
}
