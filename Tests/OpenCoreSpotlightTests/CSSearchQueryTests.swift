import Foundation
import XCTest
@testable import OpenCoreSpotlight
import SpotlightEngine

final class CSSearchQueryTests: IndexTestCase {
    /// Runs a query through the handler API and returns the identifiers found, and the error.
    func run(_ query: CSSearchQuery) -> (ids: [String], error: (any Error)?, batches: [Int]) {
        let found = Box<[String]>([])
        let batches = Box<[Int]>([])
        let counts = Box<[Int]>([])
        query.foundItemsHandler = { items in
            found.mutate { $0 += items.map(\.uniqueIdentifier) }
            batches.mutate { $0.append(items.count) }
            counts.mutate { $0.append(query.foundItemCount) }
        }
        let done = expectation(description: "completion")
        let calls = Box(0)
        let error = ErrorBox()
        query.completionHandler = { e in
            calls.mutate { $0 += 1 }
            error.set(e)
            done.fulfill()
        }
        query.start()
        wait(for: [done], timeout: 30)
        Thread.sleep(forTimeInterval: 0.05)
        XCTAssertEqual(calls.value, 1, "the completion handler is called exactly once")
        // foundItemCount is updated before each batch is handed over.
        var running = 0
        for (batch, count) in zip(batches.value, counts.value) {
            running += batch
            XCTAssertEqual(count, running)
        }
        return (found.value.sorted(), error.get(), batches.value)
    }

    func seedPhotos() async throws {
        let index = CSSearchableIndex(name: "photos")
        func photo(_ id: String, _ name: String, _ tags: [String]) -> CSSearchableItem {
            let set = CSSearchableItemAttributeSet(contentType: .image)
            set.displayName = name
            set.keywords = tags
            return CSSearchableItem(uniqueIdentifier: id, domainIdentifier: "photos", attributeSet: set)
        }
        try await index.indexSearchableItems([
            photo("p1", "Arches at dawn", ["Arches National Park", "Utah"]),
            photo("p2", "Owachomo Bridge", ["Natural Bridges State Park", "Utah"]),
            photo("p3", "Beach", ["nature", "Sea"]),
            photo("p4", "City", ["Urban", "Bridges of Paris"]),
        ])
    }

    func testTheSeedsTagsQueryFindsTheNaturalBridgesPhoto() async throws {
        try await seedPhotos()
        let query = CSSearchQuery(queryString: #"(keywords == "natural*"cwdt)"#, attributes: ["displayName", "keywords"])
        let result = run(query)
        XCTAssertNil(result.error)
        XCTAssertEqual(result.ids, ["p2"])
        XCTAssertEqual(run(CSSearchQuery(queryString: #"keywords == "natur*"cwdt"#, attributes: nil)).ids, ["p2", "p3"])
        XCTAssertEqual(run(CSSearchQuery(queryString: #"keywords == "bridges*"c"#, attributes: nil)).ids, ["p4"],
                       "without w the value must start with the pattern")
    }

    func testReturnedItemsCarryOnlyTheFetchedAttributes() async throws {
        try await seedPhotos()
        let context = CSSearchQueryContext()
        context.fetchAttributes = ["displayName"]
        var items: [CSSearchableItem] = []
        for try await result in CSSearchQuery(queryString: #"displayName == "Owachomo*""#, queryContext: context).results {
            items.append(result.item)
        }
        let item = try XCTUnwrap(items.first)
        XCTAssertEqual(items.count, 1)
        XCTAssertEqual(item.uniqueIdentifier, "p2")
        XCTAssertEqual(item.domainIdentifier, "photos")
        XCTAssertEqual(item.attributeSet.displayName, "Owachomo Bridge")
        XCTAssertNil(item.attributeSet.keywords, "not fetched")
        XCTAssertNil(item.attributeSet.contentType, "not fetched")
    }

    /// Fetched attributes named by their `kMDItem…` alias and by custom key come back; nothing else does, also when
    /// the query itself reads other attributes (candidates are read one attribute at a time, and only what is fetched
    /// is decoded for the item returned).
    func testFetchedAttributesByAliasAndCustomKeyAreTheOnlyOnesReturned() async throws {
        let index = CSSearchableIndex(name: "photos")
        let rating = try XCTUnwrap(CSCustomAttributeKey(keyName: "com_acme_rating", searchable: true,
                                                        searchableByDefault: false, unique: false, multiValued: false))
        let album = try XCTUnwrap(CSCustomAttributeKey(keyName: "com_acme_album"))
        let set = CSSearchableItemAttributeSet(contentType: .image)
        set.title = "Arches"
        set.keywords = ["Utah", "Arches National Park"]
        set.contentDescription = "Red rock at dawn"
        set.setValue(4 as NSNumber, forCustomKey: rating)
        set.setValue("Parks" as NSString, forCustomKey: album)
        try await index.indexSearchableItems([CSSearchableItem(uniqueIdentifier: "p1", domainIdentifier: "photos", attributeSet: set)])

        func found(_ query: String, fetching names: [String]) async throws -> CSSearchableItem? {
            let context = CSSearchQueryContext()
            context.fetchAttributes = names
            var items: [CSSearchableItem] = []
            for try await result in CSSearchQuery(queryString: query, queryContext: context).results { items.append(result.item) }
            XCTAssertLessThanOrEqual(items.count, 1)
            return items.first
        }
        let item = try await XCTUnwrapAsync(try await found(#"keywords == "utah"c && com_acme_rating > 3"#,
                                                            fetching: ["kMDItemTitle", "com_acme_rating"]))
        XCTAssertEqual(item.attributeSet.title, "Arches")
        XCTAssertEqual(item.attributeSet.value(forCustomKey: rating) as? NSNumber, 4)
        XCTAssertNil(item.attributeSet.value(forCustomKey: album), "not fetched")
        XCTAssertNil(item.attributeSet.keywords, "read by the query, not fetched")
        XCTAssertNil(item.attributeSet.contentDescription, "not fetched")
        let bare = try await XCTUnwrapAsync(try await found(#"contentDescription == "*dawn"c"#, fetching: []))
        XCTAssertEqual(bare.uniqueIdentifier, "p1")
        XCTAssertEqual(bare.domainIdentifier, "photos")
        XCTAssertNil(bare.attributeSet.title)
        XCTAssertNil(bare.attributeSet.contentType)
        // Every attribute the query reads is there to be read, whatever is fetched.
        let misses = try await found(#"keywords == "utah"c && com_acme_rating > 4"#, fetching: ["title"])
        XCTAssertNil(misses)
        let all = try await XCTUnwrapAsync(try await found(#"com_acme_album == "parks"c && title == "arches"c"#,
                                                           fetching: ["title", "keywords", "contentDescription", "com_acme_album"]))
        XCTAssertEqual(all.attributeSet.keywords, ["Utah", "Arches National Park"])
        XCTAssertEqual(all.attributeSet.contentDescription, "Red rock at dawn")
        XCTAssertEqual(all.attributeSet.value(forCustomKey: album) as? String, "Parks")
    }

    private func XCTUnwrapAsync<T>(_ value: @autoclosure () async throws -> T?, file: StaticString = #filePath,
                                   line: UInt = #line) async throws -> T {
        let unwrapped = try await value()
        return try XCTUnwrap(unwrapped, file: file, line: line)
    }

    func testFilterQueriesAreAnded() async throws {
        try await seedPhotos()
        let context = CSSearchQueryContext()
        context.filterQueries = [#"keywords == "utah"c"#]
        XCTAssertEqual(run(CSSearchQuery(queryString: #"displayName == "*""#, queryContext: context)).ids, ["p1", "p2"])
        context.filterQueries = [#"keywords == "utah"c"#, #"displayName == "arches*"c"#]
        XCTAssertEqual(run(CSSearchQuery(queryString: "true", queryContext: context)).ids, ["p1"])
    }

    func testInvalidQueriesFailWithInvalidQuery() async throws {
        try await seedPhotos()
        for bad in [#"title == "Paris"#, "title === \"x\"", "InRange(title, 1)", "date > $time.fortnight", #"title == "x"q"#, ""] {
            let result = run(CSSearchQuery(queryString: bad, queryContext: nil))
            let error = try XCTUnwrap(result.error as? CSSearchQueryError, bad)
            XCTAssertEqual(error.code, .invalidQuery, bad)
            XCTAssertEqual(error.errorCode, -2002)
            XCTAssertFalse(error.localizedDescription.isEmpty)
            XCTAssertEqual(result.ids, [], "nothing is delivered for an invalid query")
        }
        let context = CSSearchQueryContext()
        context.filterQueries = ["(("]
        let result = run(CSSearchQuery(queryString: "true", queryContext: context))
        XCTAssertEqual((result.error as? CSSearchQueryError)?.code, .invalidQuery)
        XCTAssertTrue((result.error as? CSSearchQueryError)?.message.contains("filter query") == true)
    }

    func testResultsThrowForInvalidQueries() async {
        do {
            for try await _ in CSSearchQuery(queryString: "((", queryContext: nil).results {}
            XCTFail("must throw")
        } catch CSSearchQueryError.invalidQuery {
        } catch {
            XCTFail("\(error)")
        }
    }

    /// The first batch is a screenful (20), so the first results show at once; then batches of at most 100.
    func testBatchesOfAtMostOneHundredAfterAFirstScreenful() async throws {
        let index = CSSearchableIndex(name: "many")
        try await index.indexSearchableItems((0..<250).map { makeItem("item-\($0)", title: "Item \($0)") })
        let result = run(CSSearchQuery(queryString: #"title == "item*"c"#, queryContext: nil))
        XCTAssertNil(result.error)
        XCTAssertEqual(result.ids.count, 250)
        XCTAssertEqual(result.batches, [20, 100, 100, 30])
    }

    func testCancelStopsPromptlyAndCompletesOnce() async throws {
        let index = CSSearchableIndex(name: "many")
        try await index.indexSearchableItems((0..<3_000).map { makeItem("item-\($0)", title: "Item \($0)") })
        let query = CSSearchQuery(queryString: #"title == "*item*"c"#, queryContext: nil)
        let delivered = Box(0)
        query.foundItemsHandler = { items in
            delivered.mutate { $0 += items.count }
            query.cancel()
        }
        let done = expectation(description: "completion")
        let calls = Box(0)
        let error = ErrorBox()
        query.completionHandler = { e in
            calls.mutate { $0 += 1 }
            error.set(e)
            done.fulfill()
        }
        query.start()
        query.start() // a second start does nothing
        await fulfillment(of: [done], timeout: 30)
        try await Task.sleep(nanoseconds: 100_000_000)
        XCTAssertEqual(calls.value, 1)
        XCTAssertTrue(query.isCancelled)
        XCTAssertEqual((error.get() as? CSSearchQueryError)?.code, .cancelled)
        XCTAssertEqual((error.get() as? CSSearchQueryError)?.errorCode, -2003)
        XCTAssertLessThan(delivered.value, 3_000, "delivery stops after cancel")
    }

    func testQueriesSeeWritesAndDeletesAtOnce() async throws {
        let index = CSSearchableIndex(name: "i")
        try await index.indexSearchableItems([makeItem("a", title: "Brent Reid")])
        XCTAssertEqual(run(CSSearchQuery(queryString: #"title == "brent*"c"#, queryContext: nil)).ids, ["a"])
        try await index.indexSearchableItems([makeItem("a", title: "Someone Else")])
        XCTAssertEqual(run(CSSearchQuery(queryString: #"title == "brent*"c"#, queryContext: nil)).ids, [], "no ghost")
        try await index.deleteSearchableItems(withIdentifiers: ["a"])
        XCTAssertEqual(run(CSSearchQuery(queryString: #"title == "*""#, queryContext: nil)).ids, [])
    }

    func testQueriesSearchEveryIndexOfTheAppOnly() async throws {
        try await CSSearchableIndex(name: "one").indexSearchableItems([makeItem("a", title: "Shared word")])
        try await CSSearchableIndex.default().indexSearchableItems([makeItem("b", title: "Shared word")])
        OpenSpotlight.configure(applicationIdentifier: "com.example.stranger")
        try await CSSearchableIndex(name: "one").indexSearchableItems([makeItem("c", title: "Shared word")])
        OpenSpotlight.configure(applicationIdentifier: app)
        XCTAssertEqual(run(CSSearchQuery(queryString: #"title == "shared*"c"#, queryContext: nil)).ids, ["a", "b"])
    }

    func testQueriesRunWhileAnotherProcessWrites() async throws {
        let binary = Self.productsDirectory.appendingPathComponent("openspotlight-test-helper")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else { throw TestPrerequisiteMissing("helper not built") }
        let process = Process()
        process.executableURL = binary
        process.arguments = ["write-loop", app, "live", "200", "writer"]
        process.environment = ProcessInfo.processInfo.environment.merging([StoreLocation.rootEnvironmentVariable: root.path]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var last = 0
        while process.isRunning {
            let ids = run(CSSearchQuery(queryString: #"keywords == "writer""#, queryContext: nil)).ids
            XCTAssertGreaterThanOrEqual(ids.count, last, "committed items never disappear")
            last = ids.count
        }
        process.waitUntilExit()
        XCTAssertEqual(run(CSSearchQuery(queryString: #"keywords == "writer""#, queryContext: nil)).ids.count, 200)
    }

    func testErrorCodesMatchApple() {
        XCTAssertEqual(CSSearchQueryErrorDomain, "CSSearchQueryErrorDomain")
        for (code, raw) in [(CSSearchQueryError.Code.unknown, -2000), (.indexUnreachable, -2001), (.invalidQuery, -2002), (.cancelled, -2003)] {
            XCTAssertEqual(code.rawValue, raw)
            XCTAssertEqual((CSSearchQueryError(code) as NSError).code, raw)
            XCTAssertEqual((CSSearchQueryError(code) as NSError).domain, CSSearchQueryErrorDomain)
        }
    }

    func testQueryLanguageFixtureFromTheNotes() async throws {
        let index = CSSearchableIndex(name: "fixture")
        func titled(_ id: String, _ title: String, keywords: [String]? = nil) -> CSSearchableItem {
            let item = makeItem(id, title: title)
            item.attributeSet.keywords = keywords
            return item
        }
        try await index.indexSearchableItems([
            titled("brent", "Brent Reid"), titled("creme", "Café Crème"), titled("latte", "cafe latte"),
            titled("case", "iPhoneCase"), titled("park", "Park", keywords: ["Natural Bridges State Park"]),
        ])
        let table: [(String, [String])] = [
            (#"title == "Brent Reid""#, ["brent"]),
            (#"title == "brent reid""#, []),
            (#"title == "brent*"c"#, ["brent"]),
            (#"title == "*Reid""#, ["brent"]),
            (#"title == "reid"cw"#, ["brent"]),
            (#"title == "cafe*"c"#, ["latte"]),
            (#"title == "cafe*"cd"#, ["creme", "latte"]),
            (#"title == "case"cw"#, ["case"]),
            (#"keywords == "natural*"cwdt"#, ["park"]),
            (#"keywords == "bridges*"c"#, []),
            (#"title ==[cd] "CAFE LATTE""#, ["latte"]),
        ]
        for (query, expected) in table {
            XCTAssertEqual(run(CSSearchQuery(queryString: query, queryContext: nil)).ids, expected.sorted(), query)
        }
    }

    /// `results` runs at most two batches ahead of its consumer, and ends cleanly however the consumer stops.
    func testResultsApplyBackPressure() async throws {
        let index = CSSearchableIndex(name: "many")
        try await index.indexSearchableItems((0..<2_050).map { makeItem("item-\($0)", title: "Bulk \($0)", keywords: ["bulk"]) })
        let slow = CSSearchQuery(queryString: #"keywords == "bulk""#, queryContext: nil)
        var iterator = slow.results.makeAsyncIterator()
        _ = try await iterator.next()
        try await Task.sleep(nanoseconds: 500_000_000)  // a consumer that pauses
        XCTAssertLessThanOrEqual(slow.foundItemCount, 300, "no more than the batch being read and two ahead")
        XCTAssertGreaterThan(slow.foundItemCount, 0)
        _ = iterator  // dropped here: the producer is released and stops

        var all: [String] = []
        for try await result in CSSearchQuery(queryString: #"keywords == "bulk""#, queryContext: nil).results {
            all.append(result.item.uniqueIdentifier)
        }
        XCTAssertEqual(all.count, 2_050, "a consumer that keeps reading gets everything, the last partial batch too")

        let abandoned = CSSearchQuery(queryString: #"keywords == "bulk""#, queryContext: nil)
        for try await _ in abandoned.results { break }
        try await Task.sleep(nanoseconds: 200_000_000)
        XCTAssertTrue(abandoned.isCancelled, "leaving the loop cancels the query")
    }

    /// A query over several indexes with a few matches each ends: each index hands over short batches (five indexes
    /// hung when the room for the producer was counted in batches and made once per 100 items taken).
    func testResultsOfSeveralSmallIndexesEnd() async throws {
        for n in 0..<5 {
            let index = CSSearchableIndex(name: "small-\(n)")
            try await index.indexSearchableItems((0..<5).map { makeItem("small-\(n)-\($0)", title: "Small \($0)", keywords: ["few"]) })
        }
        let query = CSSearchQuery(queryString: #"keywords == "few""#, queryContext: nil)
        var found: [String] = []
        for try await result in query.results { found.append(result.item.uniqueIdentifier) }
        XCTAssertEqual(found.sorted(), (0..<5).flatMap { n in (0..<5).map { "small-\(n)-\($0)" } }.sorted())
        // The same through a producer from the start (a consumer on the main thread gets the first batch read there
        // too; `start()` never reads on the caller's thread).
        let handlers = CSSearchQuery(queryString: #"keywords == "few""#, queryContext: nil)
        let count = Box(0)
        let done = expectation(description: "completion")
        handlers.foundItemsHandler = { items in count.mutate { $0 += items.count } }
        handlers.completionHandler = { _ in done.fulfill() }
        handlers.start()
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(count.value, 25)
    }

    /// The first batch is read on the consumer's thread; the rest starts only when the consumer asks for more, and
    /// skips what the first batch delivered.
    func testRestOfResultsStartsWhenTheConsumerWantsMore() async throws {
        // What this test observes depends on the first batch being read here, within the budget: a debug build on
        // a busy machine can take longer than 5 ms, and the query then rightly goes on in the background at once.
        CSSearchQuery.inlineBudget.store(10_000_000_000, ordering: .relaxed)
        defer { CSSearchQuery.inlineBudget.store(5_000_000, ordering: .relaxed) }
        let index = CSSearchableIndex(name: "many")
        try await index.indexSearchableItems((0..<250).map { makeItem("item-\($0)", title: "Bulk \($0)", keywords: ["bulk"]) })
        let query = CSSearchQuery(queryString: #"keywords == "bulk""#, queryContext: nil)
        var iterator = query.results.makeAsyncIterator()
        var ids: [String] = []
        for _ in 0..<20 {
            let result = try await iterator.next()
            ids.append(try XCTUnwrap(result).item.uniqueIdentifier)
        }
        try await Task.sleep(nanoseconds: 300_000_000)
        XCTAssertEqual(query.foundItemCount, 20, "nothing past the first batch is read before the consumer asks")
        while let result = try await iterator.next() { ids.append(result.item.uniqueIdentifier) }
        XCTAssertEqual(ids.count, 250)
        XCTAssertEqual(Set(ids).count, 250, "the rest skips what the first batch delivered")

        // The same identifiers in another named index are other items: the rest skips what was delivered from
        // the same index only.
        let other = CSSearchableIndex(name: "many-too")
        try await other.indexSearchableItems((0..<30).map { makeItem("item-\($0)", title: "Bulk \($0)", keywords: ["bulk"]) })
        let both = CSSearchQuery(queryString: #"keywords == "bulk""#, queryContext: nil)
        var fromBoth = 0
        for try await _ in both.results { fromBoth += 1 }
        XCTAssertEqual(fromBoth, 280, "250 items of one index and 30 of the other, 30 identifiers in both")

        let few = CSSearchQuery(queryString: #"title == "Bulk 7*""#, queryContext: nil)
        var found: [String] = []
        let producers = QueryProducer.starts.load(ordering: .relaxed)
        for try await result in few.results { found.append(result.item.uniqueIdentifier) }
        XCTAssertEqual(found.sorted(), (["item-7", "item-7"] + (70..<80).map { "item-\($0)" }).sorted(),
                       "a query done within its first batch (item-7 is in both indexes)")
        // Each index's matches are fewer than a batch: both are read to their end here, and nothing runs again.
        XCTAssertEqual(QueryProducer.starts.load(ordering: .relaxed), producers, "no producer ran the query a second time")
    }
}

/// A value shared with handlers.
final class Box<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var _value: Value
    init(_ value: Value) { _value = value }
    var value: Value { lock.lock(); defer { lock.unlock() }; return _value }
    func mutate(_ body: (inout Value) -> Void) { lock.lock(); body(&_value); lock.unlock() }
}