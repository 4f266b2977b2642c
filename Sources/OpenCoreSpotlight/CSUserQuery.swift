import Foundation
import SpotlightEngine
import SpotlightQueryLanguage
import SpotlightText

/// A search of the app's items for text a person typed, with ranked results and suggestions.
///
/// ```swift
/// let context = CSUserQueryContext()
/// context.fetchAttributes = ["title"]
/// context.enableRankedResults = true
/// context.maxSuggestionCount = 5
/// let query = CSUserQuery(userQueryString: "berry smo", userQueryContext: context)
/// for try await response in query.responses {
///     switch response {
///     case .item(let item): print(item.item.attributeSet.title ?? "")
///     case .suggestion(let suggestion): print("→", suggestion.suggestion.localizedAttributedSuggestion)
///     }
/// }
/// ```
///
/// Typed text matches as a search field should: every word must match a word of an item (title, names,
/// keywords, description, body, custom keys searchable by default), the last word as a prefix; case and diacritics
/// are ignored and typos tolerated (none up to 3 letters, 1 up to 8, 2 beyond; a transposition is one typo).
/// Results are ranked by `Ranking` — match quality, the attribute that matched, `rankingHint`, `lastUsedDate` and
/// engagement reported with `userEngaged` — and arrive best first. `AppSearch` explains a ranking.
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/csuserquery>
open class CSUserQuery: CSSearchQuery, @unchecked Sendable {
    internal let userQueryString: String
    internal let userContext: CSUserQueryContext
    private var _foundSuggestionCount = 0
    private var _foundSuggestionsHandler: (([CSSuggestion]) -> Void)?
    private var suggestionsWanted = false

    /// Creates a query for typed text. `nil` or empty text returns items by `rankingHint` and recency.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/csuserquery/init(userquerystring:userquerycontext:)>
    public init(userQueryString: String?, userQueryContext: CSUserQueryContext?) {
        let context = (userQueryContext?.copy() as? CSUserQueryContext) ?? {
            // Apple's defaults without a context: display name fetched, suggestions on.
            let c = CSUserQueryContext(currentSuggestion: nil)
            c.fetchAttributes = ["displayName"]
            return c
        }()
        // Deviation (spec choice): nil or empty text returns items by rankingHint and recency.
        var text = userQueryString ?? ""
        if text.trimmingCharacters(in: .whitespaces).isEmpty, let suggestion = context.currentSuggestion {
            text = suggestion.text
        }
        self.userQueryString = text
        self.userContext = context
        super.init(queryString: text, queryContext: context)
    }

    /// Loads what queries need before the search UI appears. Idempotent.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/csuserquery/prepare()>
    open class func prepare() {
        _ = try? StoreRegistry.stores(app: OpenSpotlight.applicationIdentifier)
    }

    /// Loads what queries of these protection classes need. Idempotent.
    open class func prepareProtectionClasses(_ protectionClasses: [FileProtectionType]) {
        prepare()
    }

    /// The number of suggestions in the latest list.
    open var foundSuggestionCount: Int {
        lock.lock(); defer { lock.unlock() }
        return _foundSuggestionCount
    }

    /// Called with the complete, ordered list of suggestions (replace what you show; don't append), on a
    /// background queue.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/csuserquery/foundsuggestionshandler>
    open var foundSuggestionsHandler: (([CSSuggestion]) -> Void)? {
        get { lock.lock(); defer { lock.unlock() }; return _foundSuggestionsHandler }
        set { lock.lock(); _foundSuggestionsHandler = newValue; lock.unlock() }
    }

    // MARK: - Execution

    private var suggestionSink: (([CSSuggestion]) -> Void)?

    override func execute(in given: [(name: String, store: IndexStore)]? = nil, deadline: UInt64? = nil,
                          deliver: ([CSSearchableItem], Int) -> Bool) throws -> Bool {
        try QueryLimits.check(userQueryText: userQueryString)
        let compiledFilter = try compiledPredicate(includeQueryString: false)
        let filter = compiledFilter?.0
        let engagement = try? EngagementStore.forApp(applicationIdentifier, root: root)
        let boosts = (try? engagement?.boosts(for: userQueryString)) ?? [:]
        let limit = userContext.maxResultCount
        let indexes = appIndexes
        let named = try given ?? indexes.stores()
        let stores = named.map(\.store)
        var options = TextSearchOptions(limit: limit)
        // cancel() (or a consumer that stopped iterating `responses`) stops the search inside SQLite.
        options.isCancelled = Self.cancellation(of: self, deadline: deadline)
        options.boosts = boosts
        // Its results carry no explanation: the terms that prefix and typo matches matched are not looked for.
        options.resolvesMatchedTerms = false
        if let filter {
            options.filter = { StoredItemMatcher.matches(filter, $0) }
            if case .candidates(let lookup)? = compiledFilter?.1 { options.filterLookup = lookup }
        }
        if isCancelled { return false }
        let hits = try indexes.search(userQueryString, options: options, in: named).map(\.hit)
        let fetch = userContext.fetchAttributes
        let ranked = userContext.enableRankedResults
        var batch: [CSSearchableItem] = []
        for (position, hit) in hits.enumerated() {
            if isCancelled { return false }
            let item = ItemConversion.searchableItem(hit.item, fetchAttributes: fetch)
            if ranked, position < max(userContext.maxRankedResultCount, 0) { item._rank = position }
            batch.append(item)
            if batch.count == Self.batchSize {
                if !deliver(batch, 0) { return false }
                batch.removeAll()
            }
        }
        if !batch.isEmpty, !deliver(batch, 0) { return false }

        let wantSuggestions = userContext.maxSuggestionCount > 0 && (foundSuggestionsHandler != nil || suggestionsWanted)
        if wantSuggestions, !isCancelled {
            let suggestions = try SuggestionBuilder(
                typed: userQueryString, stores: stores, engagement: engagement, filter: filter,
                limit: userContext.maxSuggestionCount, ranked: ranked
            ).build()
            lock.lock()
            _foundSuggestionCount = suggestions.count
            let handler = _foundSuggestionsHandler
            let sink = suggestionSink
            lock.unlock()
            if let handler { handlerQueue.sync { handler(suggestions) } }
            sink?(suggestions)
        }
        return !isCancelled
    }

    // MARK: - Engagement

    /// Reports that the person acted on `item` while `visibleItems` were shown. It is persisted and raises the item
    /// for this query and, less, for any query.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/csuserquery/userengaged(_:visibleitems:interaction:)>
    public func userEngaged(_ item: Item, visibleItems: [Item], interaction: UserInteractionKind) {
        let weight = interaction == .focus ? 0.25 : 1
        try? EngagementStore.forApp(applicationIdentifier, root: root)
            .recordItem(item.item.uniqueIdentifier, query: userQueryString, weight: weight)
    }

    /// Reports that the person picked or focused a suggestion; later suggestions for similar text rank it higher.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/csuserquery/userengaged(_:visiblesuggestions:interaction:)>
    public func userEngaged(_ suggestion: Suggestion, visibleSuggestions: [Suggestion], interaction: UserInteractionKind) {
        let weight = interaction == .focus ? 0.25 : 1
        try? EngagementStore.forApp(applicationIdentifier, root: root)
            .recordQuery(suggestion.suggestion.text, weight: weight)
    }

    /// How the person engaged with a result.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/csuserquery/userinteractionkind>
    public enum UserInteractionKind: Int, Sendable, Hashable {
        /// Opened or tapped.
        case select = 0
        /// Highlighted (keyboard focus, hover).
        case focus = 1
        public static let `default`: UserInteractionKind = .select
    }

    // MARK: - async responses

    /// An item found by a user query.
    public struct Item: Hashable, Identifiable, Comparable, @unchecked Sendable {
        // @unchecked Sendable as Apple's: CSSearchableItem is a class the app mutates from one thread at a time.
        public var item: CSSearchableItem
        public init(item: CSSearchableItem) { self.item = item }
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

    /// A suggestion found by a user query.
    public struct Suggestion: Hashable, Identifiable, Comparable, @unchecked Sendable {
        public var suggestion: CSSuggestion
        public init(suggestion: CSSuggestion) { self.suggestion = suggestion }
        public var id: String { suggestion.text }
        public static func == (lhs: Suggestion, rhs: Suggestion) -> Bool { lhs.suggestion.isEqual(rhs.suggestion) }
        public func hash(into hasher: inout Hasher) { hasher.combine(suggestion.text) }
        public static func < (lhs: Suggestion, rhs: Suggestion) -> Bool {
            lhs.suggestion.compare(byRank: rhs.suggestion) == .orderedAscending
        }
    }

    /// The items and suggestions of a query as one asynchronous sequence. Reading this property starts the query;
    /// do not also call `start()`. Items come first, best first, then the suggestions.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/csuserquery/responses-swift.property>
    public var responses: Responses {
        let (stream, start) = stream(items: true, suggestions: true)
        return Responses(stream: stream, start: start)
    }

    /// Only the suggestions of the query. Reading this property starts the query.
    public var suggestions: Suggestions {
        let (base, start) = stream(items: false, suggestions: true)
        let (stream, continuation) = AsyncThrowingStream<Suggestion, any Error>.makeStream()
        Task {
            start?.run(taken: 0)
            do {
                for try await response in base {
                    if case .suggestion(let s) = response { continuation.yield(s) }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        return Suggestions(stream: stream)
    }

    /// The query's responses and its start, which the consumer runs when it first asks for a response (the search
    /// on its thread when it can: `startInline`).
    private func stream(items: Bool, suggestions: Bool) -> (AsyncThrowingStream<Responses.Response, any Error>, QueryStart?) {
        let (stream, continuation) = AsyncThrowingStream<Responses.Response, any Error>.makeStream()
        guard markStarted() else {
            continuation.finish(throwing: CSSearchQueryError(.unknown, message: "a query can be started once"))
            return (stream, nil)
        }
        lock.lock()
        suggestionsWanted = suggestions
        suggestionSink = { list in list.forEach { continuation.yield(.suggestion(Suggestion(suggestion: $0))) } }
        lock.unlock()
        continuation.onTermination = { [weak self] termination in
            if case .cancelled = termination { self?.cancel() }
        }
        let finish: @Sendable ((any Error)?) -> Void = { error in
            if let error { continuation.finish(throwing: error) } else { continuation.finish() }
        }
        let start = QueryStart { [self] _ in
            // Reached only when nothing was delivered on the consumer's thread (no deadline there): every hit.
            let background: @Sendable (Set<DeliveredItem>) -> Void = { _ in
                do {
                    _ = try self.execute { batch, _ in
                        guard items else { return true }
                        for item in batch { continuation.yield(.item(Item(item: item))) }
                        return true
                    }
                    finish(self.isCancelled ? CSSearchQueryError(.cancelled, message: "the query was cancelled") : nil)
                } catch {
                    finish(CSSearchQueryError.from(error))
                }
            }
            // A consumer on the main thread gets the search from a producer thread, as before: a typed search
            // can take tens of milliseconds, a frame or two. Elsewhere the whole search (its hits come all at once,
            // best first) runs on the consumer's thread, without a time limit: a search stopped at a deadline
            // would be run again from the start in the background, and the slowest searches would pay twice.
            if Thread.isMainThread {
                QueryProducer.start { background([]) }
            } else {
                self.startInline(firstBatchOnly: false, budget: nil, yield: { batch in
                    guard items else { return }
                    for item in batch { continuation.yield(.item(Item(item: item))) }
                }, finish: finish, background: background)
            }
        }
        return (stream, start)
    }

    /// The responses of a user query.
    public struct Responses: AsyncSequence, Sendable {
        public typealias Element = Response
        public typealias Failure = any Error
        let stream: AsyncThrowingStream<Response, any Error>
        let start: QueryStart?

        public typealias AsyncIterator = Iterator

        public func makeAsyncIterator() -> Iterator { Iterator(base: stream.makeAsyncIterator(), start: start) }

        /// The iterator of the responses.
        public struct Iterator: AsyncIteratorProtocol {
            public typealias Element = Response
            public typealias Failure = any Error
            var base: AsyncThrowingStream<Response, any Error>.AsyncIterator
            let start: QueryStart?

            public mutating func next() async throws -> Response? {
                start?.run(taken: 0)
                return try await base.next()
            }

            /// `next()` on the caller's actor (Swift 6 `for try await`).
            public mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error) -> Response? {
                start?.run(taken: 0)
                return try await base.next(isolation: actor)
            }
        }

        /// An item or a suggestion.
        public enum Response: Hashable, Identifiable, @unchecked Sendable {
            case item(Item)
            case suggestion(Suggestion)

            public var id: String {
                switch self {
                case .item(let i): return "item:" + i.id
                case .suggestion(let s): return "suggestion:" + s.id
                }
            }
        }
    }

    /// The suggestions of a user query.
    public struct Suggestions: AsyncSequence, Sendable {
        public typealias Element = Suggestion
        let stream: AsyncThrowingStream<Suggestion, any Error>

        public typealias AsyncIterator = Iterator

        public func makeAsyncIterator() -> Iterator { Iterator(base: stream.makeAsyncIterator()) }

        /// The iterator of the suggestions.
        public struct Iterator: AsyncIteratorProtocol {
            public typealias Element = Suggestion
            var base: AsyncThrowingStream<Suggestion, any Error>.AsyncIterator
            public mutating func next() async throws -> Suggestion? { try await base.next() }
        }
    }
}

/// Evaluates a compiled query-language predicate on a stored item (for `filterQueries`).
enum StoredItemMatcher {
    static func matches(_ query: CompiledQuery, _ item: StoredItem) -> Bool {
        query.matches(StoredItemQueryView(item: item))
    }
}
