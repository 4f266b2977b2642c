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
        DispatchQueue.global(qos: .userInitiated).async {
            let error: (any Error)?
            do {
                try self.execute { items in
                    self.lock.lock()
                    self._foundItemCount += items.count
                    let handler = self._foundItemsHandler
                    self.lock.unlock()
                    if let handler { self.handlerQueue.sync { handler(items) } }
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

    /// Runs the query, handing batches of items to `deliver`. Overridden by `CSUserQuery`.
    internal func execute(deliver: ([CSSearchableItem]) -> Void) throws {
        guard let (compiled, plan) = try compiledPredicate() else { return }
        var options = QueryOptions()
        options.isCancelled = { [weak self] in self?.isCancelled ?? true }
        let fetch = queryContext.fetchAttributes
        for store in try stores() {
            if isCancelled { return }
            try store.forEachMatch(compiled, plan: plan, options: options, batchSize: Self.batchSize) { batch in
                if isCancelled { return false }
                deliver(batch.map { ItemConversion.searchableItem($0, fetchAttributes: fetch) })
                return true
            }
        }
    }

    // MARK: - async results

    /// The query's results as an asynchronous sequence. Reading this property starts the query; do not also call
    /// `start()`. Iteration throws `CSSearchQueryError` on failure, `.cancelled` after `cancel()`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchquery/results-swift.property>
    public var results: Results {
        let (stream, continuation) = AsyncThrowingStream<Results.Item, any Error>.makeStream()
        let flow = ResultFlow(batchSize: Self.batchSize)
        if markStarted() {
            continuation.onTermination = { [weak self] termination in
                if case .cancelled = termination { self?.cancel() }
                flow.release()
            }
            DispatchQueue.global(qos: .userInitiated).async {
                do {
                    try self.execute { items in
                        // Back-pressure: at most `ResultFlow.batchesAhead` batches wait for the consumer.
                        flow.waitForRoom()
                        if self.isCancelled { return }
                        self.lock.lock()
                        self._foundItemCount += items.count
                        self.lock.unlock()
                        for item in items { continuation.yield(Results.Item(item: item)) }
                    }
                    // Deviation (spec choice): after cancel(), iteration ends by throwing `.cancelled`.
                    if self.isCancelled {
                        continuation.finish(throwing: CSSearchQueryError(.cancelled, message: "the query was cancelled"))
                    } else {
                        continuation.finish()
                    }
                } catch {
                    continuation.finish(throwing: CSSearchQueryError.from(error))
                }
            }
        } else {
            continuation.finish(throwing: CSSearchQueryError(.unknown, message: "a query can be started once"))
        }
        return Results(stream: stream, flow: flow)
    }

    /// The results of a query as an asynchronous sequence. The query runs ahead of the consumer by at most two
    /// batches of 100 items, so a slow consumer of a query matching millions of items does not fill memory.
    public struct Results: AsyncSequence, Sendable {
        public typealias Element = Item
        let stream: AsyncThrowingStream<Item, any Error>
        let flow: ResultFlow

        public typealias AsyncIterator = Iterator

        public func makeAsyncIterator() -> Iterator {
            Iterator(base: stream.makeAsyncIterator(), flow: flow)
        }

        /// The iterator of the results.
        public struct Iterator: AsyncIteratorProtocol {
            public typealias Element = Item
            var base: AsyncThrowingStream<Item, any Error>.AsyncIterator
            let flow: ResultFlow
            public mutating func next() async throws -> Item? {
                let item = try await base.next()
                if item != nil { flow.consumed() }
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

/// Back-pressure between a query's producer (a dispatch worker, never the cooperative pool) and the consumer of
/// its `results`: the producer waits for room before each batch; the consumer makes room each time it has taken a
/// batch's worth of items. Ending the sequence (finished, cancelled or dropped) releases a waiting producer.
final class ResultFlow: Sendable {
    /// Batches the producer may have delivered and the consumer not yet taken.
    static let batchesAhead = 2
    private let room = DispatchSemaphore(value: batchesAhead)
    private let taken = Mutex(0)
    private let batchSize: Int

    init(batchSize: Int) {
        self.batchSize = batchSize
    }

    func waitForRoom() { room.wait() }

    func consumed() {
        let madeRoom = taken.withLock { count -> Bool in
            count += 1
            if count < batchSize { return false }
            count = 0
            return true
        }
        if madeRoom { room.signal() }
    }

    /// Unblocks the producer for good (the sequence ended).
    func release() {
        for _ in 0...Self.batchesAhead { room.signal() }
    }
}
