import Foundation
import Synchronization
import SpotlightEngine
import SpotlightQueryLanguage

/// A query of the app's items in Spotlight's query language.
///
/// ```swift
/// let query = CSSearchQuery(queryString: #"(keywords == "natural*"cwdt)"#, attributes: ["displayName", "keywords"])
/// query.foundItemsHandler = { items in items.forEach { print($0.attributeSet.displayName ?? "") } }
/// query.completionHandler = { error in print("done", error as Any) }
/// query.start()
///
/// // or
/// for try await result in CSSearchQuery(queryString: "title == \"berry*\"c", queryContext: nil).results {
///     print(result.item.uniqueIdentifier)
/// }
/// ```
///
/// A query searches every index of the app, sees every change whose completion handler was called before it
/// started, and is one-shot: it cannot be restarted. Items arrive in batches of at most 100, carrying their
/// identifiers and the context's `fetchAttributes` only. A malformed query string completes with
/// `CSSearchQueryError.invalidQuery` and a message that says where and why; `cancel()` completes with `.cancelled`.
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchquery>
open class CSSearchQuery: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the mutable state is behind `lock`; handlers run on the query's serial queue.

    internal let queryString: String
    internal let queryContext: CSSearchQueryContext
    internal let applicationIdentifier: String
    internal let root: URL
    internal let lock = NSLock()
    internal let handlerQueue = DispatchQueue(label: "OpenCoreSpotlight.CSSearchQuery")
    private var _isCancelled = false
    private var _foundItemCount = 0
    private var _started = false
    // Apple's handler properties are not @Sendable: the app's closures may capture its (main-actor) state, as
    // they do with Apple's SDK. They are stored under `lock` and called on `handlerQueue`, one at a time.
    private var _foundItemsHandler: (([CSSearchableItem]) -> Void)?
    private var _completionHandler: (((any Error)?) -> Void)?

    /// Items per `foundItemsHandler` call, at most (the first call gets at most 20, a screenful).
    public static let batchSize = 100

    /// Creates a query with a query string and a context.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchquery/init(querystring:querycontext:)>
    public init(queryString: String, queryContext: CSSearchQueryContext?) {
        self.queryString = queryString
        self.queryContext = (queryContext?.copy() as? CSSearchQueryContext) ?? CSSearchQueryContext()
        self.applicationIdentifier = OpenSpotlight.applicationIdentifier
        self.root = OpenSpotlight.rootDirectory
        super.init()
    }

    /// Creates a query that fetches the given attributes.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchquery/init(querystring:attributes:)>
    @available(*, deprecated, renamed: "init(queryString:queryContext:)")
    public convenience init(queryString: String, attributes: [String]?) {
        let context = CSSearchQueryContext()
        context.fetchAttributes = attributes ?? []
        self.init(queryString: queryString, queryContext: context)
    }

    /// Whether `cancel()` was called.
    open var isCancelled: Bool {
        lock.lock(); defer { lock.unlock() }
        return _isCancelled
    }

    /// The number of items found so far; updated before each `foundItemsHandler` call.
    open var foundItemCount: Int {
        lock.lock(); defer { lock.unlock() }
        return _foundItemCount
    }

    /// Called with each new batch of found items. Calls are serialized, on a background queue.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchquery/founditemshandler>
    open var foundItemsHandler: (([CSSearchableItem]) -> Void)? {
        get { lock.lock(); defer { lock.unlock() }; return _foundItemsHandler }
        set { lock.lock(); _foundItemsHandler = newValue; lock.unlock() }
    }

    /// Called exactly once when the query ends, on a background queue: `nil` on success, a `CSSearchQueryError`
    /// otherwise.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchquery/completionhandler>
    open var completionHandler: (((any Error)?) -> Void)? {
        get { lock.lock(); defer { lock.unlock() }; return _completionHandler }
        set { lock.lock(); _completionHandler = newValue; lock.unlock() }
    }

    /// The protection classes whose items the query returns.
    // Deviation: protection classes are not enforced on Linux; every item of the app is searched.
    open var protectionClasses: [FileProtectionType] = []

    /// Starts the query. A second call does nothing.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchquery/start()>
    open func start() {
        guard markStarted() else { return }
        QueryProducer.start {
            let error: (any Error)?
            do {
                try self.execute { items, _ in
                    self.lock.lock()
                    self._foundItemCount += items.count
                    let handler = self._foundItemsHandler
                    self.lock.unlock()
                    if let handler { self.handlerQueue.sync { handler(items) } }
                    return true
                }
                error = self.isCancelled ? CSSearchQueryError(.cancelled, message: "the query was cancelled") : nil
            } catch let e {
                error = CSSearchQueryError.from(e)
            }
            nonisolated(unsafe) let completion = self.completionHandler
            self.handlerQueue.async { completion?(error) }
        }
    }

    /// Stops the query; its completion handler gets `CSSearchQueryError.cancelled`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchquery/cancel()>
    open func cancel() {
        lock.lock()
        _isCancelled = true
        lock.unlock()
    }

    internal func markStarted() -> Bool {
        lock.lock(); defer { lock.unlock() }
        if _started { return false }
        _started = true
        return true
    }

    /// The app's stores a query searches: every index except the system's own (`_activities`…).
    // Deviation: activities indexed through NSUserActivity are not returned by app queries; the system search
    // (`spotlight`) shows them.
    internal func stores() throws -> [IndexStore] {
        // Deviation: a store that cannot be opened fails the query (indexUnreachable); only one removed since it was
        // listed is skipped.
        try appIndexes.stores().map(\.store)
    }

    /// The app's indexes, through the engine's one path.
    internal var appIndexes: AppIndexes {
        AppIndexes(applicationIdentifier: applicationIdentifier, root: root)
    }

    /// Parses a query string into an expression, mapping syntax errors to `invalidQuery`.
    internal static func parse(_ string: String, role: String) throws -> QueryExpression {
        try QueryLimits.check(queryString: string, role: role)
        let expression: QueryExpression
        do {
            expression = try QueryParser.parse(string)
        } catch {
            throw CSSearchQueryError(.invalidQuery, message: "\(role) \(String(reflecting: string)): \(error)")
        }
        try QueryLimits.check(expression, role: role)
        return expression
    }

    /// Compiles the query string and the filter queries into one predicate.
    internal func compiledPredicate(includeQueryString: Bool = true) throws -> (CompiledQuery, QueryPlan)? {
        var parts: [QueryExpression] = []
        if includeQueryString { parts.append(try Self.parse(queryString, role: "query")) }
        for filter in queryContext.filterQueries {
            parts.append(try Self.parse(filter, role: "filter query"))
        }
        guard !parts.isEmpty else { return nil }
        let expression = parts.count == 1 ? parts[0] : .and(parts)
        let now = Date()
        return (CompiledQuery(expression, now: now), QueryPlanner.plan(expression, now: now))
    }

    /// Runs the query over `stores` (by default the app's, `stores()`), handing batches of items to `deliver`
    /// (with the position of the store they come from) until it returns false; returns whether every match was
    /// delivered. Past `deadline` (an uptime in nanoseconds) the run stops as a cancelled one does. Overridden by
    /// `CSUserQuery`.
    @discardableResult
    internal func execute(in stores: [(name: String, store: IndexStore)]? = nil, deadline: UInt64? = nil,
                          deliver: ([CSSearchableItem], Int) -> Bool) throws -> Bool {
        guard let (compiled, plan) = try compiledPredicate() else { return true }
        var options = QueryOptions()
        options.isCancelled = Self.cancellation(of: self, deadline: deadline)
        let fetch = queryContext.fetchAttributes
        // Only what `searchableItem` copies is decoded: a property by its own name (`kMDItemTitle` is `title`), a
        // custom key by its.
        options.fetchAttributes = Set(fetch.flatMap { [$0] + (AttributeCatalog.descriptor(named: $0).map { [$0.name] } ?? []) })
        let all = try stores?.map(\.store) ?? self.stores()
        for (position, store) in all.enumerated() {
            if isCancelled { return false }
            let readToTheEnd = try store.forEachMatch(compiled, plan: plan, options: options, batchSize: Self.batchSize) { batch in
                if isCancelled { return false }
                return deliver(batch.map { ItemConversion.searchableItem($0, fetchAttributes: fetch) }, position)
            }
            // A store whose last batch was all its consumer asked for is done all the same: a query with fewer
            // matches than a first batch is complete once it is delivered (it used to run again on a producer
            // thread, skipping what it had delivered: twice the work and a thread hop, ~1 ms of 2). The next store
            // is read here too: a consumer given fewer items than a batch waits for more.
            if !readToTheEnd || isCancelled { return false }
        }
        return true
    }

    /// What the engine asks to know whether to stop: the query was cancelled (or is gone), or `deadline` passed.
    static func cancellation(of query: CSSearchQuery, deadline: UInt64?) -> @Sendable () -> Bool {
        { [weak query] in
            guard let query, !query.isCancelled else { return true }
            if let deadline { return DispatchTime.now().uptimeNanoseconds > deadline }
            return false
        }
    }

    /// How long a query may work on the consumer's thread for its first batch (`Results`, `CSUserQuery.responses`).
    static var inlineBudgetNanoseconds: UInt64 { inlineBudget.load(ordering: .relaxed) }
    /// The budget itself: 5 ms. Tests that check what runs on the consumer's thread raise it, so that a slow debug
    /// build on a busy machine does not hand the first batch to the background and change what they observe.
    static let inlineBudget = Atomic<UInt64>(5_000_000)

    /// Runs the start of a query on the calling thread — the consumer's, which is waiting for the first results —
    /// then whatever is left on a producer thread of its own.
    ///
    /// Handing the whole query to another thread costs two wake-ups per query (the producer's, then the
    /// consumer's when the first batch is out); on a busy or virtual machine each can wait for the scheduler's
    /// next tick (4 ms), which made a query whose 20 items took 0.2 ms answer in 4 ms. So the first batch is read
    /// here when the app's stores are open and have a reader free, within `inlineBudgetNanoseconds`; a query that
    /// needs more, or finds more than its first batch, goes on in the background, skipping what it delivered.
    ///
    /// - Parameters:
    ///   - firstBatchOnly: stop after the first batch (`CSSearchQuery`), or run the whole query (`CSUserQuery`,
    ///     whose hits come all at once).
    ///   - budget: nanoseconds the work here may take before the rest goes to the background (`nil`: no limit).
    ///   - yield: hands delivered items to the consumer.
    ///   - finish: ends the sequence (with an error or not).
    ///   - later: given the number of items delivered here and the start of the rest, runs that start when the
    ///     consumer wants more than those (`nil`: start it at once).
    ///   - background: runs the rest, given the items already delivered; called on the producer's thread.
    func startInline(firstBatchOnly: Bool = true, budget: UInt64? = CSSearchQuery.inlineBudgetNanoseconds,
                     yield: ([CSSearchableItem]) -> Void, finish: @escaping @Sendable ((any Error)?) -> Void,
                     later: ((Int, @escaping @Sendable () -> Void) -> Void)? = nil,
                     background: @escaping @Sendable (Set<DeliveredItem>) -> Void) {
        var delivered = Set<DeliveredItem>()
        if !isCancelled, let stores = appIndexes.storesReadableWithoutWaiting() {
            let deadline = budget.map { DispatchTime.now().uptimeNanoseconds + $0 }
            do {
                let complete = try execute(in: stores, deadline: deadline) { items, store in
                    yield(items)
                    delivered.formUnion(items.lazy.map { DeliveredItem(store: store, identifier: $0.uniqueIdentifier) })
                    return !firstBatchOnly
                }
                if complete || isCancelled {
                    finish(isCancelled ? CSSearchQueryError(.cancelled, message: "the query was cancelled") : nil)
                    return
                }
            } catch {
                // Past the deadline the engine stops as if cancelled: go on in the background. Any other error
                // (a cancellation by the app included) ends the query here.
                if isCancelled || DispatchTime.now().uptimeNanoseconds <= deadline ?? .max {
                    finish(CSSearchQueryError.from(error))
                    return
                }
            }
        }
        let shown = delivered
        let rest: @Sendable () -> Void = { QueryProducer.start { background(shown) } }
        if let later, !shown.isEmpty { later(shown.count, rest) } else { rest() }
    }

    // MARK: - async results

    /// The query's results as an asynchronous sequence. Reading this property claims the query (do not also call
    /// `start()`); the search runs when the sequence is first asked for an item, its first batch on the asking
    /// thread. Iteration throws `CSSearchQueryError` on failure, `.cancelled` after `cancel()`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchquery/results-swift.property>
    public var results: Results {
        let (stream, continuation) = AsyncThrowingStream<Results.Item, any Error>.makeStream()
        let flow = ResultFlow(batchSize: Self.batchSize)
        guard markStarted() else {
            continuation.finish(throwing: CSSearchQueryError(.unknown, message: "a query can be started once"))
            return Results(stream: stream, flow: flow, start: nil)
        }
        continuation.onTermination = { [weak self] termination in
            if case .cancelled = termination { self?.cancel() }
            flow.release()
        }
        let finish: @Sendable ((any Error)?) -> Void = { error in
            if let error { continuation.finish(throwing: error) } else { continuation.finish() }
        }
        // The query starts when the consumer first asks for an item: its first batch is read on that thread.
        let start = QueryStart { [self] start in
            self.startInline(yield: { items in
                flow.waitForRoom(for: items.count)   // never waits: the first batch is all there is yet
                self.lock.lock()
                self._foundItemCount += items.count
                self.lock.unlock()
                for item in items { continuation.yield(Results.Item(item: item)) }
            }, finish: finish, later: { count, rest in start.deferRest(rest, after: count) }, background: { shown in
                do {
                    try self.execute { items, store in
                        let fresh = shown.isEmpty ? items
                            : items.filter { !shown.contains(DeliveredItem(store: store, identifier: $0.uniqueIdentifier)) }
                        if fresh.isEmpty { return !self.isCancelled }
                        // Back-pressure: at most `ResultFlow.batchesAhead` batches wait for the consumer.
                        flow.waitForRoom(for: fresh.count)
                        if self.isCancelled { return false }
                        self.lock.lock()
                        self._foundItemCount += fresh.count
                        self.lock.unlock()
                        for item in fresh { continuation.yield(Results.Item(item: item)) }
                        return true
                    }
                    // Deviation (spec choice): after cancel(), iteration ends by throwing `.cancelled`.
                    finish(self.isCancelled ? CSSearchQueryError(.cancelled, message: "the query was cancelled") : nil)
                } catch {
                    finish(CSSearchQueryError.from(error))
                }
            })
        }
        return Results(stream: stream, flow: flow, start: start)
    }

    /// The results of a query as an asynchronous sequence. The query runs ahead of the consumer by at most two
    /// batches of 100 items, so a slow consumer of a query matching millions of items does not fill memory.
    public struct Results: AsyncSequence, Sendable {
        public typealias Element = Item
        public typealias Failure = any Error
        let stream: AsyncThrowingStream<Item, any Error>
        let flow: ResultFlow
        let start: QueryStart?

        public typealias AsyncIterator = Iterator

        public func makeAsyncIterator() -> Iterator {
            Iterator(base: stream.makeAsyncIterator(), flow: flow, start: start)
        }

        /// The iterator of the results.
        public struct Iterator: AsyncIteratorProtocol {
            public typealias Element = Item
            public typealias Failure = any Error
            var base: AsyncThrowingStream<Item, any Error>.AsyncIterator
            let flow: ResultFlow
            let start: QueryStart?

            var taken = 0

            public mutating func next() async throws -> Item? {
                start?.run(taken: taken)
                let item = try await base.next()
                if item != nil { flow.consumed(); taken += 1 }
                return item
            }

            /// `next()` on the caller's actor (Swift 6 `for try await`): a consumer on the main actor does not hop
            /// to another thread for each item.
            public mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error) -> Item? {
                start?.run(taken: taken)
                let item = try await base.next(isolation: actor)
                if item != nil { flow.consumed(); taken += 1 }
                return item
            }
        }

        /// One found item.
        public struct Item: Hashable, Identifiable, Comparable, @unchecked Sendable {
            // @unchecked Sendable as Apple's: CSSearchableItem is a class the app mutates from one thread at a time.
            public var item: CSSearchableItem
            public var id: String { item.uniqueIdentifier }

            public static func == (lhs: Item, rhs: Item) -> Bool { lhs.item.uniqueIdentifier == rhs.item.uniqueIdentifier }
            public func hash(into hasher: inout Hasher) { hasher.combine(item.uniqueIdentifier) }
            public static func < (lhs: Item, rhs: Item) -> Bool {
                switch lhs.item.compare(byRank: rhs.item) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: return lhs.item.uniqueIdentifier < rhs.item.uniqueIdentifier
                }
            }
        }
    }
}

/// An item a query delivered: its identifier in one of the app's stores (a named index is a store of its own, and
/// two may hold the same identifier).
struct DeliveredItem: Hashable, Sendable {
    var store: Int
    var identifier: String
}

/// A query's start, in two stages run by its consumer: the first batch, read on the consumer's thread when it
/// first asks for an item; the rest, started on a producer thread only when the consumer has taken every item of
/// the first batch and asks for more (most consumers stop at a screenful).
final class QueryStart: Sendable {
    private struct Stages {
        var first: (@Sendable (QueryStart) -> Void)?
        var rest: (@Sendable () -> Void)?
        var firstCount = 0
    }
    private let stages: Mutex<Stages>

    init(_ first: @escaping @Sendable (QueryStart) -> Void) {
        stages = Mutex(Stages(first: first))
    }

    /// Runs the first stage unless it ran; then, once `taken` items were consumed, the rest.
    func run(taken: Int) {
        if let first = stages.withLock({ s in defer { s.first = nil }; return s.first }) { first(self) }
        if let rest = stages.withLock({ s -> (@Sendable () -> Void)? in
            guard taken >= s.firstCount, let rest = s.rest else { return nil }
            s.rest = nil
            return rest
        }) {
            rest()
        }
    }

    /// Called by the first stage: `rest` is to run after the consumer took the first stage's `count` items.
    func deferRest(_ rest: @escaping @Sendable () -> Void, after count: Int) {
        stages.withLock { $0.rest = rest; $0.firstCount = count }
    }
}

/// Where a query's producer runs: a serial queue of its own. Such a queue is served by libdispatch's overcommit
/// pool, which starts a thread when every other is busy; a global queue's pool stops at one thread per core.
/// On a machine with two cores, a producer on the global queue left the consumer's wake-up (the cooperative
/// pool's job) waiting until the producer's work ended, so a query that had its 20 items in 0.2 ms answered
/// in 3 ms; and a producer waiting for room (below) held one of the two threads.
enum QueryProducer {
    /// How many producers were started (tests: a query done in its first batch starts none).
    static let starts = Atomic<Int>(0)

    static func start(_ work: @escaping @Sendable () -> Void) {
        starts.add(1, ordering: .relaxed)
        DispatchQueue(label: "OpenSpotlight.query", qos: .userInitiated).async(execute: work)
    }
}

/// Back-pressure between a query's producer (a thread of its own, never the cooperative pool) and the consumer of
/// its `results`, counted in items: before handing over a batch, the producer waits until fewer than two full
/// batches (200 items) wait for the consumer; each item the consumer takes makes room. Ending the sequence
/// (finished, cancelled or dropped) releases a waiting producer.
///
/// Counted in batches, as it was, the room was made once per 100 items taken, while a query over several indexes
/// hands over a short first batch and a partial last one per index: three indexes with five matches each left the
/// producer waiting for room that 15 items could never make, and the consumer waiting for the 11th item (a hang).
final class ResultFlow: @unchecked Sendable {
    // @unchecked Sendable: `waiting` and `released` are only touched under `condition`'s lock.
    /// Batches the producer may have delivered and the consumer not yet taken.
    static let batchesAhead = 2
    private let condition = NSCondition()
    private let limit: Int
    private var waiting = 0
    private var released = false

    init(batchSize: Int) {
        self.limit = batchSize * Self.batchesAhead
    }

    /// Waits until fewer than `batchesAhead` batches' worth of items wait for the consumer (or the sequence ended),
    /// then counts `count` more.
    func waitForRoom(for count: Int) {
        condition.lock()
        defer { condition.unlock() }
        while !released, waiting >= limit { condition.wait() }
        waiting += count
    }

    /// The consumer took an item.
    func consumed() {
        condition.lock()
        waiting -= 1
        if waiting < limit { condition.signal() }
        condition.unlock()
    }

    /// Unblocks the producer for good (the sequence ended).
    func release() {
        condition.lock()
        released = true
        condition.broadcast()
        condition.unlock()
    }
}
