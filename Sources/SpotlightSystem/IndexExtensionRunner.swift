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
        guard request.kind.isReindex else { return await provide(request, file: file, index: index, delegate: delegate) }
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
            case .provideData, .provideFile, .provideItems:
                once.resume(false)  // answered by provide(_:…) above
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

    /// Answers a `provide…` request: the item's data (`data(for:itemIdentifier:typeIdentifier:)`), a file of it
    /// (`fileURL(for:itemIdentifier:typeIdentifier:inPlace:)`) or the app's current items
    /// (`searchableItems(forIdentifiers:)`, the async form, which calls the handler form unless the app
    /// implemented the async one). The reply goes to `<id>.reply`; an error the delegate throws, to `<id>.error`.
    static func provide(_ request: ReindexRequest, file: URL, index: CSSearchableIndex,
                        delegate: any CSSearchableIndexDelegate) async -> Bool {
        let reply: Data
        do {
            switch request.kind {
            case .provideData, .provideFile:
                guard let identifier = request.identifiers.first, let type = request.typeIdentifier else {
                    throw SystemError("the request names no item or no type")
                }
                if request.kind == .provideData {
                    reply = try delegate.data(for: index, itemIdentifier: identifier, typeIdentifier: type)
                } else {
                    let url = try delegate.fileURL(for: index, itemIdentifier: identifier, typeIdentifier: type,
                                                   inPlace: request.inPlace ?? false)
                    guard url.isFileURL else { throw SystemError("the app answered \(url), not a file") }
                    reply = Data(url.path.utf8)
                }
            case .provideItems:
                let items = await Self.searchableItems(of: UncheckedDelegate(delegate), request.identifiers)
                reply = try JSONEncoder().encode(items.map(ItemSnapshot.init))
            case .reindexAll, .reindexIdentifiers:
                throw SystemError("not a provide request")
            }
        } catch {
            let message = error is CSSearchableIndexDelegateNotImplemented
                ? "the app does not implement \(request.kind.delegateMethod)" : "\(error)"
            log("\(request.kind.rawValue) for \(request.identifiers.joined(separator: ", ")) failed: \(message)")
            try? SystemLocations.writePrivateFile(Data(message.utf8), to: ReindexRequestStore.errorFile(for: file))
            return false
        }
        do {
            try SystemLocations.writePrivateFile(reply, to: ReindexRequestStore.replyFile(for: file))
            try ReindexRequestStore.acknowledge(requestFile: file)
        } catch {
            log("cannot record the answer: \(error)")
            return false
        }
        return true
    }

    /// Calls the async `searchableItems(forIdentifiers:)` off the main actor.
    private nonisolated static func searchableItems(of box: UncheckedDelegate, _ identifiers: [String]) async -> [CSSearchableItem] {
        await box.delegate.searchableItems(forIdentifiers: identifiers)
    }

    private static func log(_ message: String) {
        FileHandle.standardError.write(Data("reindex: \(message)\n".utf8))
    }
}

/// The app's delegate, handed to a nonisolated call; the runner uses it from one place at a time.
private struct UncheckedDelegate: @unchecked Sendable {
    let delegate: any CSSearchableIndexDelegate
    init(_ delegate: any CSSearchableIndexDelegate) { self.delegate = delegate }
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
