import Foundation
import SpotlightEngine
import Synchronization

/// The on-device index of the app's searchable items.
///
/// ```swift
/// let index = CSSearchableIndex(name: "smoothies")
/// try await index.indexSearchableItems(items)
/// try await index.deleteSearchableItems(withDomainIdentifiers: ["archived"])
/// ```
///
/// Each (app, index name) is one durable SQLite store under `StoreLocation.rootDirectory`. A completion handler
/// is called once the change is committed and durable, and the next query sees it (Apple only promises that the
/// change was journaled). Calls on one index instance are applied in the order they were made.
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableindex>
open class CSSearchableIndex: NSObject, @unchecked Sendable {
    // @unchecked Sendable: mutable state (the batch) is behind `state`'s lock; work runs on the serial `queue`.

    /// The index name; `nil` for the default index.
    internal let indexName: String?
    /// The app whose items this index holds, fixed when the index is created.
    internal let applicationIdentifier: String
    internal let root: URL
    /// The protection class passed at creation.
    // Deviation: protection classes are recorded but not enforced (no per-class encryption on Linux yet).
    public let protectionClass: FileProtectionType?

    /// The object the index asks to reindex items.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableindex/indexdelegate>
    open weak var indexDelegate: (any CSSearchableIndexDelegate)?

    private let queue: DispatchQueue
    /// The open batch, if any.
    private let state = Mutex<Batch?>(nil)
    /// How many changes (index, delete and batch-ending calls) are queued on `queue` or running there. The async
    /// forms apply a small change on the caller's thread only when there are none (`applyOnCallersThread`).
    private let changesQueued = Atomic<Int>(0)

    /// Whether indexing works on this machine: the index directory can be created and written.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableindex/isindexingavailable()>
    open class func isIndexingAvailable() -> Bool {
        isIndexingAvailable(root: StoreLocation.rootDirectory)
    }

    /// Whether the index location can be created and written: its nearest existing ancestor is a writable
    /// directory.
    internal static func isIndexingAvailable(root: URL) -> Bool {
        var probe = root
        var isDirectory: ObjCBool = false
        while !FileManager.default.fileExists(atPath: probe.path, isDirectory: &isDirectory), probe.path != "/" {
            probe.deleteLastPathComponent()
        }
        return isDirectory.boolValue && FileManager.default.isWritableFile(atPath: probe.path)
    }

    private static let defaults = LockedDefaults()

    /// The app's default index. It does not support batching or client state.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableindex/default()>
    open class func `default`() -> Self {
        let app = OpenSpotlight.applicationIdentifier
        let root = StoreLocation.rootDirectory
        return defaults.index(app: app, root: root) { CSSearchableIndex(indexName: nil, protectionClass: nil) } as! Self
    }

    /// Creates a named index. The name identifies the index's client state; queries search all of the app's
    /// indexes.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableindex/init(name:)>
    public convenience init(name: String) {
        self.init(name: name, protectionClass: nil)
    }

    /// Creates a named index whose items have the given protection class.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableindex/init(name:protectionclass:)>
    public convenience init(name: String, protectionClass: FileProtectionType?) {
        self.init(indexName: name, protectionClass: protectionClass)
    }

    internal init(indexName: String?, protectionClass: FileProtectionType?) {
        self.indexName = indexName
        self.protectionClass = protectionClass
        self.applicationIdentifier = OpenSpotlight.applicationIdentifier
        self.root = StoreLocation.rootDirectory
        self.queue = DispatchQueue(label: "OpenCoreSpotlight.CSSearchableIndex.\(indexName ?? "default")")
        super.init()
    }

    open override var description: String {
        "<CSSearchableIndex: \(indexName ?? "default") app: \(applicationIdentifier)>"
    }

    /// The engine store behind this index.
    // Deviation: items are identified per (app, index name): each named index is its own store, so the same
    // identifier in two named indexes is two items, and deletes act on the index they are called on. Apple
    // identifies items per app.
    ///
    /// A store file that is damaged, or was written in a format this version cannot read, is moved aside
    /// (`StoreRecovery`) and replaced by an empty store; the index delegate is then asked to reindex everything,
    /// as Apple's system does when an index is lost.
    internal func store() throws -> IndexStore {
        let name = indexName ?? StoreLocation.defaultIndexName
        let opened = try StoreRecovery.openStore(app: applicationIdentifier, indexName: name, root: root)
        if opened.rescue != nil { requestReindexAll() }
        return opened.store
    }

    /// Asks the delegate to reindex every item (after the index was lost), on a background queue.
    internal func requestReindexAll() {
        guard let delegate = indexDelegate else { return }
        // The delegate is the app's object; like Apple's system, we call it from a background queue.
        nonisolated(unsafe) let target = delegate
        DispatchQueue.global().async {
            target.searchableIndex(self, reindexAllSearchableItemsWithAcknowledgementHandler: {})
        }
    }

    // MARK: - Indexing

    /// Adds items to the index, or replaces (or, with `isUpdate`, updates) items with the same identifiers.
    ///
    /// Invalid items (an empty identifier, a NaN coordinate, a custom value of the wrong type, a value over the
    /// limits of `IndexLimits`) fail the whole call with `CSIndexError.invalidItemError`; nothing is indexed.
    ///
    /// Inside a batch (`beginBatch()`), the completion handler is called once the items are validated and
    /// accepted into the batch, so `try await index.indexSearchableItems(items)` returns; the items become
    /// visible and durable with the batch, which `endBatch`'s completion reports.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableindex/indexsearchableitems(_:completionhandler:)>
    @preconcurrency
    open func indexSearchableItems(_ items: [CSSearchableItem], completionHandler: (@Sendable ((any Error)?) -> Void)? = nil) {
        let operations: [IndexOperation]
        do {
            operations = try Self.operations(for: items)
        } catch {
            complete(completionHandler, error)
            return
        }
        submit(operations, batchable: true, completionHandler: completionHandler)
    }

    /// The engine operations of an index call, or `CSIndexError.invalidItemError` for the first invalid item.
    private static func operations(for items: [CSSearchableItem]) throws(CSIndexError) -> [IndexOperation] {
        let now = Date()
        do {
            // Deviation: one invalid item fails the whole call (Apple's granularity is undocumented).
            guard items.count >= parallelConversion else {
                return try items.map { try ItemConversion.operation(for: $0, now: now) }
            }
            // A large call's items are converted on every core, in parts (the caller's thread converted PyPI's
            // batches of 10,000 alone, 26 ms each, while the index waited for them); the error is the first invalid
            // item's, as one after the other: each part stops at its first, and the first part that failed wins.
            let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))
            let chunk = (items.count + workers - 1) / workers
            let parts = Mutex<[Result<[IndexOperation], any Error>?]>(Array(repeating: nil, count: workers))
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                let range = min(items.count, worker * chunk)..<min(items.count, (worker + 1) * chunk)
                let part = Result { try items[range].map { try ItemConversion.operation(for: $0, now: now) } }
                parts.withLock { $0[worker] = part }
            }
            var operations: [IndexOperation] = []
            operations.reserveCapacity(items.count)
            for part in parts.withLock({ $0 }) { operations += try part!.get() }
            return operations
        } catch {
            throw CSIndexError.from(error)
        }
    }

    /// From this many items, a call converts them on every core.
    static let parallelConversion = 1_024

    /// Removes items by identifier. Unknown identifiers are ignored.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableindex/deletesearchableitems(withidentifiers:completionhandler:)>
    @preconcurrency
    open func deleteSearchableItems(withIdentifiers identifiers: [String], completionHandler: (@Sendable ((any Error)?) -> Void)? = nil) {
        submit([.delete(identifiers: identifiers)], batchable: true, completionHandler: completionHandler)
    }

    /// Removes the items of the given domains and of their subdomains (`a.b` also removes `a.b.c`).
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableindex/deletesearchableitems(withdomainidentifiers:completionhandler:)>
    @preconcurrency
    open func deleteSearchableItems(withDomainIdentifiers domainIdentifiers: [String], completionHandler: (@Sendable ((any Error)?) -> Void)? = nil) {
        submit([.deleteDomains(domainIdentifiers)], batchable: true, completionHandler: completionHandler)
    }

    /// Removes every item of this index and forgets its client state.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableindex/deleteallsearchableitems(completionhandler:)>
    @preconcurrency
    open func deleteAllSearchableItems(completionHandler: (@Sendable ((any Error)?) -> Void)? = nil) {
        submit([.deleteAll], batchable: true, completionHandler: completionHandler)
    }

    // MARK: - Batching

    /// Starts a batch: index and delete calls are collected until `endBatch(withClientState:completionHandler:)`,
    /// which commits them and the client state in one atomic, durable transaction.
    ///
    /// ```swift
    /// let index = CSSearchableIndex(name: "SpotlightSearchExample")
    /// index.beginBatch()
    /// try await index.indexSearchableItems(items)          // returns once the items are accepted into the batch
    /// try await index.endBatch(withClientState: state)      // returns once the batch and state are durable
    /// ```
    ///
    /// Inside a batch, the completion handler of an index or delete call is called as soon as the call is
    /// validated and accepted into the batch (an invalid item fails its call at once, and nothing of that call
    /// joins the batch). Nothing of the batch is visible to queries until it ends; whether it was committed is
    /// what `endBatch`'s completion handler reports.
    ///
    /// Calling `beginBatch()` again before the batch ended keeps the open batch and everything in it: the next
    /// `endBatch` commits it all. Nothing is discarded.
    ///
    /// On the default index batching is not supported: calls are applied at once and ending the batch fails with
    /// `CSIndexError.invalidClientStateError`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableindex/beginbatch()>
    open func beginBatch() {
        // Deviation: Apple does not document what batching on the default index does; here the calls apply at
        // once and ending the batch fails with invalidClientStateError.
        guard indexName != nil else { return }
        // Deviation: Apple asks not to call beginBatch() again before endBatch returned and leaves what happens
        // undefined; here a second call keeps the open batch (nothing is lost) and the next endBatch commits it.
        state.withLock { if $0 == nil { $0 = Batch() } }
    }

    /// Ends the batch, storing `clientState` with it atomically.
    ///
    /// - Throws (through the handler): `invalidClientStateError` on the default index or when the state is 250
    ///   bytes or more; nothing of the batch is applied then.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableindex/endbatch(withclientstate:completionhandler:)>
    @preconcurrency
    open func endBatch(withClientState clientState: Data, completionHandler: (@Sendable ((any Error)?) -> Void)? = nil) {
        endBatch(.set(clientState), completionHandler: completionHandler)
    }

    /// Ends the batch if the stored client state equals `expectedClientState` (`nil`: none stored yet), storing
    /// `newClientState` with it; otherwise applies nothing and fails with `CSIndexError.mismatchedClientState`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableindex/endindexbatch(expectedclientstate:newclientstate:completionhandler:)>
    @preconcurrency
    open func endIndexBatch(expectedClientState: Data?, newClientState: Data, completionHandler: (@Sendable ((any Error)?) -> Void)? = nil) {
        endBatch(.compareAndSet(expected: expectedClientState, new: newClientState), completionHandler: completionHandler)
    }

    /// The spelling of `endIndexBatch(expectedClientState:newClientState:completionHandler:)` used in some of
    /// Apple's material.
    // Deviation: an alias of Apple's Swift name, kept because both spellings appear in Apple's material.
    @preconcurrency
    open func endBatch(expectedClientState: Data?, newClientState: Data, completionHandler: (@Sendable ((any Error)?) -> Void)? = nil) {
        endIndexBatch(expectedClientState: expectedClientState, newClientState: newClientState, completionHandler: completionHandler)
    }

    /// The largest client state accepted, in bytes (Apple: "less than 250 bytes").
    public static let maximumClientStateSize = 249

    private func endBatch(_ change: IndexStore.ClientStateChange, completionHandler: (@Sendable ((any Error)?) -> Void)?) {
        let batch = state.withLock { open -> Batch? in
            defer { open = nil }
            return open
        }
        // Deviation: when the batch fails (state too large, mismatched state), nothing of it is applied; the
        // calls made during it completed when they were accepted, so only endBatch's completion gets the error.
        guard indexName != nil else {
            complete(completionHandler, CSIndexError(.invalidClientStateError,
                message: "batching and client state are not supported on the default index; use CSSearchableIndex(name:)"))
            return
        }
        let newState: Data
        switch change {
        case .set(let d), .compareAndSet(_, let d): newState = d
        case .keep: newState = Data()
        }
        if newState.count > Self.maximumClientStateSize {
            complete(completionHandler, CSIndexError(.invalidClientStateError,
                message: "client state is \(newState.count) bytes; it must be less than 250 bytes"))
            return
        }
        let operations = batch?.operations ?? []
        changesQueued.add(1, ordering: .relaxed)
        queue.async {
            defer { self.changesQueued.subtract(1, ordering: .relaxed) }
            completionHandler?(self.applyNow(operations, clientState: change))
        }
    }

    /// Fetches the client state stored with the last batch; `nil` when none is stored.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableindex/fetchlastclientstate(completionhandler:)>
    @preconcurrency
    open func fetchLastClientState(completionHandler: @escaping @Sendable (Data?, (any Error)?) -> Void) {
        guard indexName != nil else {
            queue.async {
                completionHandler(nil, CSIndexError(.invalidClientStateError,
                    message: "client state is not supported on the default index; use CSSearchableIndex(name:)"))
            }
            return
        }
        queue.async {
            do {
                completionHandler(try self.store().clientState(), nil)
            } catch {
                completionHandler(nil, self.indexError(error))
            }
        }
    }

    // MARK: - Plumbing

    private func submit(_ operations: [IndexOperation], batchable: Bool,
                        completionHandler: (@Sendable ((any Error)?) -> Void)?) {
        // Deviation: domain deletes and deleteAll made during a batch are part of the batch too (Apple's
        // batches cover index and delete-by-identifier calls).
        if batchable, addToOpenBatch(operations) {
            // Deviation: Apple does not say when a call made inside a batch completes; its sample code awaits it, so
            // it completes once accepted into the batch, and the batch's fate is endBatch's to report. On the
            // index's queue, so completions keep the order of the calls.
            complete(completionHandler, nil)
            return
        }
        // Deviation: the completion handler runs once the change is committed and durable, and the next query
        // sees it; Apple's runs when the change is journaled, and queries see it some time later.
        changesQueued.add(1, ordering: .relaxed)
        queue.async {
            defer { self.changesQueued.subtract(1, ordering: .relaxed) }
            completionHandler?(self.applyNow(operations))
        }
    }

    /// Adds operations to the open batch; false when no batch is open.
    private func addToOpenBatch(_ operations: [IndexOperation]) -> Bool {
        state.withLock { open -> Bool in
            guard open != nil else { return false }
            open?.operations += operations
            return true
        }
    }

    /// Commits a change (on `queue`), with the client state of a batch it ends, and deletes the activities it
    /// took with it; returns Apple's error when it failed.
    private func applyNow(_ operations: [IndexOperation], clientState: IndexStore.ClientStateChange = .keep) -> CSIndexError? {
        do {
            try store().apply(operations, clientState: clientState)
            deleteActivities(after: operations)
            return nil
        } catch {
            return indexError(error)
        }
    }

    /// The most operations (items or identifiers) a change may have for the async forms to apply it on the
    /// caller's thread; larger ones go through the index's queue, so a task does not hold one of the few
    /// threads of Swift's cooperative pool for the length of a large write.
    static let callersThreadOperations = 64

    /// Applies a change of the async forms on the caller's thread, or adds it to the open batch; returns false,
    /// having done nothing, when it must go through the queue instead: the caller is on the main thread, the
    /// change is large, this index has changes queued (they keep their order: those go first), or the index is a
    /// subclass (whose overrides of the completion-handler forms the async forms call, as Apple's do).
    ///
    /// An awaited single write used to cross two threads, to the index's queue and back to the awaiting task,
    /// each a hand-off that a busy machine can make wait for the scheduler's next tick (milliseconds on a 2-core
    /// machine, the tail of single writes). `queue.sync` runs the work on this thread when the queue is idle, and
    /// keeps the order of calls made meanwhile from other threads (they wait behind it).
    private func applyOnCallersThread(_ operations: [IndexOperation], count: Int) throws -> Bool {
        guard type(of: self) === CSSearchableIndex.self else { return false }
        // Accepted into the batch: the completion-handler form reports this at once too (`submit`).
        if addToOpenBatch(operations) { return true }
        guard count <= Self.callersThreadOperations, !Self.onMainThread(),
              changesQueued.load(ordering: .relaxed) == 0 else { return false }
        changesQueued.add(1, ordering: .relaxed)
        defer { changesQueued.subtract(1, ordering: .relaxed) }
        if let failure = queue.sync(execute: { applyNow(operations) }) { throw failure }
        return true
    }

    /// Whether this is the main thread (a function of its own: `Thread.isMainThread` is not for async contexts).
    private static func onMainThread() -> Bool { Thread.isMainThread }

    /// Apple's error for a failed change: `indexingUnsupported` when indexing is not available on this machine
    /// at all (`isIndexingAvailable()` is false: the index location cannot be created or written), else the
    /// engine's error mapped in the one place (`CSIndexError.from`).
    private func indexError(_ error: any Error) -> CSIndexError {
        let mapped = CSIndexError.from(error)
        if mapped.code == .indexUnavailableError, !Self.isIndexingAvailable(root: root) {
            return CSIndexError(.indexingUnsupported,
                message: "indexing is not available: \(root.path) cannot be created or written (\(mapped.message))")
        }
        return mapped
    }

    private func complete(_ handler: (@Sendable ((any Error)?) -> Void)?, _ error: (any Error)?) {
        guard let handler else { return }
        queue.async { handler(error) }
    }

    /// Deletes the app's saved activities that committed deletions took with them: those related
    /// (`relatedUniqueIdentifier`) to an item that is now gone, and those whose `domainIdentifier` was deleted.
    /// Best effort: a failure here leaves the activities to the system's own cascade (`spotlight` searches).
    // Deviation: Apple deletes the activities with the item; here they live in their own store and are deleted
    // in a second transaction right after the item's (a crash in between is caught by the system's next pass).
    private func deleteActivities(after operations: [IndexOperation]) {
        #if !canImport(Darwin)
        guard (indexName ?? StoreLocation.defaultIndexName) != SavedUserActivity.indexName else { return }
        _ = try? SavedUserActivity.cascade(afterDeleting: operations, onDefaultIndex: indexName == nil,
                                           applicationIdentifier: applicationIdentifier, rootDirectory: root)
        #endif
    }

    /// Waits until every change submitted so far on this index instance is applied.
    internal func waitUntilIdle() {
        queue.sync {}
    }
}

// MARK: - async forms

extension CSSearchableIndex {
    /// Adds or updates items. See `indexSearchableItems(_:completionHandler:)`.
    ///
    /// A small change (up to `callersThreadOperations` items) made off the main thread, with nothing else of this
    /// index queued, is applied on the caller's thread (the same transaction, the same durability when it returns);
    /// inside a batch, the items join it on the caller's thread.
    public func indexSearchableItems(_ items: [CSSearchableItem]) async throws {
        if type(of: self) === CSSearchableIndex.self {
            let operations = try Self.operations(for: items)
            if try applyOnCallersThread(operations, count: items.count) { return }
            return try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                submit(operations, batchable: true) { error in error.map { c.resume(throwing: $0) } ?? c.resume() }
            }
        }
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
            indexSearchableItems(items) { error in error.map { c.resume(throwing: $0) } ?? c.resume() }
        }
    }

    /// Removes items by identifier. See `deleteSearchableItems(withIdentifiers:completionHandler:)`.
    /// A small change (up to `callersThreadOperations` identifiers) is applied on the caller's thread, as in
    /// `indexSearchableItems(_:)`.
    public func deleteSearchableItems(withIdentifiers identifiers: [String]) async throws {
        if try applyOnCallersThread([.delete(identifiers: identifiers)], count: identifiers.count) { return }
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
            deleteSearchableItems(withIdentifiers: identifiers) { error in error.map { c.resume(throwing: $0) } ?? c.resume() }
        }
    }

    /// Removes items of domains and subdomains. See `deleteSearchableItems(withDomainIdentifiers:completionHandler:)`.
    public func deleteSearchableItems(withDomainIdentifiers domainIdentifiers: [String]) async throws {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
            deleteSearchableItems(withDomainIdentifiers: domainIdentifiers) { error in
                error.map { c.resume(throwing: $0) } ?? c.resume()
            }
        }
    }

    /// Removes every item and the client state. See `deleteAllSearchableItems(completionHandler:)`.
    public func deleteAllSearchableItems() async throws {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
            deleteAllSearchableItems { error in error.map { c.resume(throwing: $0) } ?? c.resume() }
        }
    }

    /// Ends the batch with a client state. See `endBatch(withClientState:completionHandler:)`.
    public func endBatch(withClientState clientState: Data) async throws {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
            endBatch(withClientState: clientState) { error in error.map { c.resume(throwing: $0) } ?? c.resume() }
        }
    }

    /// Ends the batch with compare-and-swap of the client state.
    /// See `endIndexBatch(expectedClientState:newClientState:completionHandler:)`.
    public func endIndexBatch(expectedClientState: Data?, newClientState: Data) async throws {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
            endIndexBatch(expectedClientState: expectedClientState, newClientState: newClientState) { error in
                error.map { c.resume(throwing: $0) } ?? c.resume()
            }
        }
    }

    /// Alias of `endIndexBatch(expectedClientState:newClientState:)`.
    public func endBatch(expectedClientState: Data?, newClientState: Data) async throws {
        try await endIndexBatch(expectedClientState: expectedClientState, newClientState: newClientState)
    }

    /// The client state stored with the last batch.
    // Deviation (spec choice): with no stored state, the async form returns empty `Data`.
    public func fetchLastClientState() async throws -> Data {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Data, any Error>) in
            fetchLastClientState { data, error in
                if let error { c.resume(throwing: error) } else { c.resume(returning: data ?? Data()) }
            }
        }
    }
}

// MARK: - State

/// The operations of an open batch, committed together by `endBatch`.
private struct Batch {
    var operations: [IndexOperation] = []
}

private final class LockedDefaults: Sendable {
    private let indexes = Mutex<[String: CSSearchableIndex]>([:])

    func index(app: String, root: URL, make: () -> CSSearchableIndex) -> CSSearchableIndex {
        indexes.withLock { indexes in
            let key = root.path + "\u{0}" + app
            if let index = indexes[key] { return index }
            let index = make()
            indexes[key] = index
            return index
        }
    }
}
