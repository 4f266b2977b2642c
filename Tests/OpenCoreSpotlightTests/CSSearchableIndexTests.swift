import Foundation
import Synchronization
import XCTest
@testable import OpenCoreSpotlight
@testable import SpotlightEngine
import GRDB

final class CSSearchableIndexTests: IndexTestCase {
    func state(_ index: CSSearchableIndex) async throws -> Data {
        try await index.fetchLastClientState()
    }

    func testIndexAndReadBack() async throws {
        let index = CSSearchableIndex(name: "people")
        let item = makeItem("brent", title: "Brent Reid", domain: "employees.engineering", keywords: ["engineer"])
        item.attributeSet.textContent = "Brent writes Swift"
        item.attributeSet.supportsPhoneCall = true
        item.attributeSet.phoneNumbers = ["+1 555 0100"]
        try await index.indexSearchableItems([item])

        let items = try IndexInspector(index).items()
        XCTAssertEqual(items.map(\.uniqueIdentifier), ["brent"])
        let back = try XCTUnwrap(items.first)
        XCTAssertEqual(back.domainIdentifier, "employees.engineering")
        XCTAssertEqual(back.attributeSet.title, "Brent Reid")
        XCTAssertEqual(back.attributeSet.keywords, ["engineer"])
        XCTAssertEqual(back.attributeSet.supportsPhoneCall, true)
        XCTAssertEqual(back.attributeSet.phoneNumbers, ["+1 555 0100"])
        XCTAssertEqual(back.attributeSet.contentType, "public.text")
        XCTAssertEqual(try IndexInspector(index).count(), 1)
    }

    func testReindexReplacesWithoutGhosts() async throws {
        let index = CSSearchableIndex(name: "i")
        try await index.indexSearchableItems([makeItem("a", title: "Old title", description: "old words", keywords: ["k1"])])
        try await index.indexSearchableItems([makeItem("a", title: "New title")])
        let back = try XCTUnwrap(try IndexInspector(index).items().first)
        XCTAssertEqual(back.attributeSet.title, "New title")
        XCTAssertNil(back.attributeSet.contentDescription, "a full replace drops attributes not supplied")
        XCTAssertNil(back.attributeSet.keywords)
        let store = try index.store()
        XCTAssertTrue(try store.search("old").isEmpty, "no ghost of old values in the text index")
        XCTAssertEqual(try store.search("new").map(\.item.uniqueIdentifier), ["a"])
    }

    func testIsUpdateMergesOnlyGivenAttributes() async throws {
        let index = CSSearchableIndex(name: "i")
        try await index.indexSearchableItems([makeItem("a", title: "Berry Blue", description: "A berry smoothie", keywords: ["berry"])])
        let set = CSSearchableItemAttributeSet()
        set.lastUsedDate = Date(timeIntervalSinceReferenceDate: 700_000_000)
        set.keywords = nil // explicitly removed
        let update = CSSearchableItem(uniqueIdentifier: "a", domainIdentifier: nil, attributeSet: set)
        update.isUpdate = true
        try await index.indexSearchableItems([update])
        let back = try XCTUnwrap(try IndexInspector(index).items().first)
        XCTAssertEqual(back.attributeSet.title, "Berry Blue")
        XCTAssertEqual(back.attributeSet.contentDescription, "A berry smoothie")
        XCTAssertEqual(back.attributeSet.lastUsedDate, Date(timeIntervalSinceReferenceDate: 700_000_000))
        XCTAssertNil(back.attributeSet.keywords)
    }

    func testIsUpdateOfMissingItemIsDropped() async throws {
        let index = CSSearchableIndex(name: "i")
        let item = makeItem("ghost", title: "Nobody")
        item.isUpdate = true
        try await index.indexSearchableItems([item])
        XCTAssertEqual(try IndexInspector(index).count(), 0)
    }

    func testLaterDuplicateInOneCallWins() async throws {
        let index = CSSearchableIndex(name: "i")
        try await index.indexSearchableItems([makeItem("a", title: "first"), makeItem("a", title: "second")])
        XCTAssertEqual(try IndexInspector(index).items().map { $0.attributeSet.title }, ["second"])
    }

    func testDeleteByIdentifier() async throws {
        let index = CSSearchableIndex(name: "i")
        try await index.indexSearchableItems([makeItem("a"), makeItem("b"), makeItem("c")])
        try await index.deleteSearchableItems(withIdentifiers: ["b", "unknown"])
        XCTAssertEqual(try ids(index), ["a", "c"])
        XCTAssertTrue(try index.store().search("b").isEmpty)
    }

    func testDeleteByDomainIsRecursive() async throws {
        let index = CSSearchableIndex(name: "i")
        try await index.indexSearchableItems([
            makeItem("1", domain: "a"), makeItem("2", domain: "a.b"), makeItem("3", domain: "a.b.c"),
            makeItem("4", domain: "a.bc"), makeItem("5", domain: "ab"), makeItem("6", domain: "x_y"),
            makeItem("7", domain: "x%y"), makeItem("8"),
        ])
        try await index.deleteSearchableItems(withDomainIdentifiers: ["a.b", "x_y"])
        XCTAssertEqual(try ids(index), ["1", "4", "5", "7", "8"])
        try await index.deleteSearchableItems(withDomainIdentifiers: ["a"])
        XCTAssertEqual(try ids(index), ["5", "7", "8"])
        XCTAssertEqual(try IndexInspector(index).domains().map(\.domain), ["ab", "x%y"])
    }

    func testDeleteAllResetsClientState() async throws {
        let index = CSSearchableIndex(name: "i")
        index.beginBatch()
        index.indexSearchableItems([makeItem("a")], completionHandler: nil)
        try await index.endBatch(withClientState: Data("v1".utf8))
        let stored100 = try await state(index)
        XCTAssertEqual(stored100, Data("v1".utf8))
        try await index.deleteAllSearchableItems()
        XCTAssertEqual(try IndexInspector(index).count(), 0)
        let stored104 = try await state(index)
        XCTAssertEqual(stored104, Data())
        let none = expectation(description: "nil state")
        index.fetchLastClientState { data, error in
            XCTAssertNil(data)
            XCTAssertNil(error)
            none.fulfill()
        }
        await fulfillment(of: [none], timeout: 10)
    }

    func testDefaultExpirationIsOneMonth() async throws {
        let index = CSSearchableIndex(name: "i")
        let before = Date()
        try await index.indexSearchableItems([makeItem("a")])
        let back = try XCTUnwrap(try IndexInspector(index).items().first)
        let expected = Calendar(identifier: .gregorian).date(byAdding: .month, value: 1, to: before)!
        XCTAssertEqual(back.expirationDate.timeIntervalSince1970, expected.timeIntervalSince1970, accuracy: 60)
        let fresh = makeItem("b")
        XCTAssertEqual(fresh.expirationDate.timeIntervalSince1970, expected.timeIntervalSince1970, accuracy: 60)
        fresh.expirationDate = Date(timeIntervalSince1970: 0)
        fresh.expirationDate = nil
        XCTAssertEqual(fresh.expirationDate.timeIntervalSince1970, expected.timeIntervalSince1970, accuracy: 60,
                       "assigning nil restores the default")
    }

    func testExpiredItemsAreNeverReturnedAndArePurged() async throws {
        let index = CSSearchableIndex(name: "i")
        let soon = makeItem("soon", title: "Ephemeral note")
        soon.expirationDate = Date().addingTimeInterval(1)
        let past = makeItem("past", title: "Ephemeral past")
        past.expirationDate = Date().addingTimeInterval(-10)
        try await index.indexSearchableItems([soon, past, makeItem("keep", title: "Ephemeral kept")])
        XCTAssertEqual(try ids(index), ["keep", "soon"])
        try await Task.sleep(nanoseconds: 1_200_000_000)
        XCTAssertEqual(try ids(index), ["keep"])
        XCTAssertEqual(try index.store().search("ephemeral").map(\.item.uniqueIdentifier), ["keep"])
        let purged = try index.store().purgeExpired()
        XCTAssertEqual(purged, 1)
        XCTAssertEqual(try index.store().rowCount(), 1, "expired rows are gone from the file")
    }

    /// Apple's sample code awaits calls inside a batch: each returns once accepted, the batch on endBatch.
    func testAwaitedCallsInsideABatchReturnAndTheBatchCommitsOnEnd() async throws {
        let index = CSSearchableIndex(name: "i")
        try await index.indexSearchableItems([makeItem("old"), makeItem("gone")])
        index.beginBatch()
        try await index.indexSearchableItems([makeItem("a"), makeItem("b")])
        try await index.deleteSearchableItems(withIdentifiers: ["gone"])
        try await index.deleteSearchableItems(withDomainIdentifiers: ["none"])
        XCTAssertEqual(try ids(index), ["gone", "old"], "accepted, not yet visible")
        try await index.endBatch(withClientState: Data("s".utf8))
        XCTAssertEqual(try ids(index), ["a", "b", "old"])
        let stored = try await state(index)
        XCTAssertEqual(stored, Data("s".utf8))
    }

    /// An awaited small write runs on the caller's thread when nothing of its index is queued; calls made before it
    /// with completion handlers (still queued) are applied first, in order, and an awaited call made meanwhile from
    /// another task never overtakes them either.
    func testAwaitedWritesComeAfterTheCallsQueuedBeforeThem() async throws {
        let index = CSSearchableIndex(name: "i")
        for round in 0..<20 {
            // A large write first, so that the next calls find the queue busy.
            index.indexSearchableItems((0..<200).map { makeItem("bulk\($0)", title: "bulk \(round)") }, completionHandler: nil)
            index.indexSearchableItems([makeItem("a", title: "queued \(round)")], completionHandler: nil)
            index.deleteSearchableItems(withIdentifiers: ["b"], completionHandler: nil)
            try await index.indexSearchableItems([makeItem("a", title: "awaited \(round)"), makeItem("b", title: "kept")])
            let items = try IndexInspector(index).items(limit: 1000).filter { ["a", "b"].contains($0.uniqueIdentifier) }
            XCTAssertEqual(items.map(\.uniqueIdentifier).sorted(), ["a", "b"], "round \(round)")
            XCTAssertEqual(items.first { $0.uniqueIdentifier == "a" }?.attributeSet.title, "awaited \(round)")
            // And the other way round: an awaited delete, then a queued write of the same item.
            try await index.deleteSearchableItems(withIdentifiers: ["a"])
            let done = expectation(description: "queued \(round)")
            index.indexSearchableItems([makeItem("a", title: "after \(round)")]) { error in
                XCTAssertNil(error)
                done.fulfill()
            }
            await fulfillment(of: [done], timeout: 30)
            XCTAssertEqual(try IndexInspector(index).items(limit: 1000).first { $0.uniqueIdentifier == "a" }?.attributeSet.title, "after \(round)")
        }
        // Two tasks writing the same items at once: whichever is applied last wins whole, nothing is lost.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                let items = (0..<10).map { makeItem("shared\($0)", title: "writer \(writer)") }
                group.addTask {
                    for item in items { try await index.indexSearchableItems([item]) }
                }
            }
            try await group.waitForAll()
        }
        XCTAssertEqual(try IndexInspector(index).items(limit: 1000).filter { $0.uniqueIdentifier.hasPrefix("shared") }.count, 10)
    }

    /// The async forms of a subclass go through its overrides of the completion-handler forms, as Apple's do (an
    /// app's mock or logging index sees every call).
    func testTheAsyncFormsOfASubclassCallItsOverrides() async throws {
        final class CountingIndex: CSSearchableIndex, @unchecked Sendable {
            let calls = Mutex<[String]>([])
            override func indexSearchableItems(_ items: [CSSearchableItem], completionHandler: (@Sendable ((any Error)?) -> Void)? = nil) {
                calls.withLock { $0.append("index \(items.count)") }
                super.indexSearchableItems(items, completionHandler: completionHandler)
            }
            override func deleteSearchableItems(withIdentifiers identifiers: [String], completionHandler: (@Sendable ((any Error)?) -> Void)? = nil) {
                calls.withLock { $0.append("delete \(identifiers.count)") }
                super.deleteSearchableItems(withIdentifiers: identifiers, completionHandler: completionHandler)
            }
        }
        let index = CountingIndex(indexName: "counted", protectionClass: nil)
        try await index.indexSearchableItems([makeItem("a"), makeItem("b")])
        try await index.deleteSearchableItems(withIdentifiers: ["a"])
        XCTAssertEqual(index.calls.withLock { $0 }, ["index 2", "delete 1"])
        XCTAssertEqual(try IndexInspector(index).items().map(\.uniqueIdentifier), ["b"])
    }

    func testCompletionsInsideABatchComeBeforeTheBatchsOwn() {
        let index = CSSearchableIndex(name: "i")
        let order = Mutex<[String]>([])
        let done = expectation(description: "batch")
        index.beginBatch()
        index.indexSearchableItems([makeItem("a")]) { error in
            XCTAssertNil(error)
            order.withLock { $0.append("index a") }
        }
        index.deleteSearchableItems(withIdentifiers: ["x"]) { error in
            XCTAssertNil(error)
            order.withLock { $0.append("delete x") }
        }
        index.endBatch(withClientState: Data()) { error in
            XCTAssertNil(error)
            order.withLock { $0.append("end") }
            done.fulfill()
        }
        wait(for: [done], timeout: 30)
        XCTAssertEqual(order.withLock { $0 }, ["index a", "delete x", "end"])
    }

    func testAnInvalidItemInsideABatchFailsAtOnceAndStaysOut() async throws {
        let index = CSSearchableIndex(name: "i")
        index.beginBatch()
        do {
            try await index.indexSearchableItems([makeItem("fine"), makeItem("")])
            XCTFail("an empty identifier is invalid")
        } catch let error as CSIndexError {
            XCTAssertEqual(error.code, .invalidItemError)
        }
        try await index.indexSearchableItems([makeItem("ok")])
        try await index.endBatch(withClientState: Data("1".utf8))
        XCTAssertEqual(try ids(index), ["ok"], "the failed call joined nothing; the rest of the batch committed")
    }

    func testANestedBeginBatchKeepsThePendingBatch() async throws {
        let index = CSSearchableIndex(name: "i")
        index.beginBatch()
        try await index.indexSearchableItems([makeItem("first")])
        index.beginBatch()  // Apple says not to; nothing is lost if an app does
        try await index.indexSearchableItems([makeItem("second")])
        try await index.endBatch(withClientState: Data("both".utf8))
        XCTAssertEqual(try ids(index), ["first", "second"])
        // A second endBatch is an empty batch that only stores its state.
        try await index.endBatch(withClientState: Data("again".utf8))
        XCTAssertEqual(try ids(index), ["first", "second"])
        let stored = try await state(index)
        XCTAssertEqual(stored, Data("again".utf8))
    }

    func testAFailedBatchReportsOnlyThroughEndBatch() async throws {
        let index = CSSearchableIndex(name: "i")
        index.beginBatch()
        try await index.indexSearchableItems([makeItem("a")])
        do {
            try await index.endIndexBatch(expectedClientState: Data("not stored".utf8), newClientState: Data("1".utf8))
            XCTFail("mismatched state")
        } catch let error as CSIndexError {
            XCTAssertEqual(error.code, .mismatchedClientState)
        }
        XCTAssertEqual(try ids(index), [], "nothing of a failed batch is applied")
    }

    func testTheIndexRecordsTheContentTypeTreeAndTheAppsSetStaysAsMade() async throws {
        let index = CSSearchableIndex(name: "i")
        let photo = CSSearchableItem(uniqueIdentifier: "photo", domainIdentifier: nil,
                                     attributeSet: CSSearchableItemAttributeSet(contentType: .jpeg))
        let note = makeItem("note")
        try await index.indexSearchableItems([photo, note])
        XCTAssertNil(photo.attributeSet.contentTypeTree)
        let found = try await CSSearchQuery(queryString: #"contentTypeTree == "public.image""#, queryContext: nil)
            .results.reduce(into: [String]()) { $0.append($1.item.uniqueIdentifier) }
        XCTAssertEqual(found, ["photo"])
        let stored = try IndexInspector(index).items().first { $0.uniqueIdentifier == "photo" }
        XCTAssertEqual(stored?.attributeSet.contentTypeTree,
                       ["public.jpeg", "public.image", "public.data", "public.content", "public.item"])
    }

    func testCustomValuesAreStoredWhateverTheirMultiValuedFlag() async throws {
        let index = CSSearchableIndex(name: "i")
        let single = CSCustomAttributeKey(keyName: "com_example_tag")!
        let multi = CSCustomAttributeKey(keyName: "com_example_tags", searchable: true, searchableByDefault: false,
                                         unique: false, multiValued: true)!
        let arrayForSingle = makeItem("array")
        arrayForSingle.attributeSet.setValue(["red", "green"] as NSArray, forCustomKey: single)
        let scalarForMulti = makeItem("scalar")
        scalarForMulti.attributeSet.setValue(NSString(string: "blue"), forCustomKey: multi)
        try await index.indexSearchableItems([arrayForSingle, scalarForMulti])
        XCTAssertEqual(try ids(index), ["array", "scalar"], "Apple documents no shape check; nothing is rejected")
        let green = try await CSSearchQuery(queryString: #"com_example_tag == "green""#, queryContext: nil)
            .results.reduce(into: [String]()) { $0.append($1.item.uniqueIdentifier) }
        XCTAssertEqual(green, ["array"])
        let blue = try await CSSearchQuery(queryString: #"com_example_tags == "blue""#, queryContext: nil)
            .results.reduce(into: [String]()) { $0.append($1.item.uniqueIdentifier) }
        XCTAssertEqual(blue, ["scalar"])
    }

    func testIndexingWhereNoIndexCanBeCreatedReportsIndexingUnsupported() async throws {
        let blocker = root.appendingPathComponent("a-file")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Data("not a directory".utf8).write(to: blocker)
        OpenSpotlight.setRootDirectory(blocker.appendingPathComponent("openspotlight"))
        XCTAssertFalse(CSSearchableIndex.isIndexingAvailable())
        do {
            try await CSSearchableIndex(name: "i").indexSearchableItems([makeItem("a")])
            XCTFail("nothing can be indexed here")
        } catch let error as CSIndexError {
            XCTAssertEqual(error.code, .indexingUnsupported)
            XCTAssertEqual(error.errorCode, -1005)
        }
    }

    func testBatchIsInvisibleUntilItEnds() async throws {
        let index = CSSearchableIndex(name: "i")
        try await index.indexSearchableItems([makeItem("old")])
        index.beginBatch()
        let calls = ErrorBox()
        index.indexSearchableItems([makeItem("a"), makeItem("b")]) { calls.set($0) }
        index.deleteSearchableItems(withIdentifiers: ["old"], completionHandler: nil)
        try await Task.sleep(nanoseconds: 100_000_000)
        XCTAssertEqual(try ids(index), ["old"], "nothing of an open batch is visible")
        try await index.endBatch(withClientState: Data([1, 2, 3]))
        XCTAssertEqual(try ids(index), ["a", "b"])
        XCTAssertNil(calls.get())
        let stored158 = try await state(index)
        XCTAssertEqual(stored158, Data([1, 2, 3]))
    }

    func testBatchClientStatePersistsAcrossReopen() async throws {
        let index = CSSearchableIndex(name: "i")
        index.beginBatch()
        index.indexSearchableItems([makeItem("a")], completionHandler: nil)
        try await index.endBatch(withClientState: Data("token-7".utf8))
        StoreRegistry.forgetAll()
        let reopened = CSSearchableIndex(name: "i")
        let stored169 = try await state(reopened)
        XCTAssertEqual(stored169, Data("token-7".utf8))
        XCTAssertEqual(try ids(reopened), ["a"])
        let other = CSSearchableIndex(name: "other")
        let stored173 = try await state(other)
        XCTAssertEqual(stored173, Data(), "client state is per index name")
    }

    func testCompareAndSwapClientState() async throws {
        let index = CSSearchableIndex(name: "i")
        index.beginBatch()
        index.indexSearchableItems([makeItem("a")], completionHandler: nil)
        try await index.endIndexBatch(expectedClientState: nil, newClientState: Data("1".utf8))
        let stored182 = try await state(index)
        XCTAssertEqual(stored182, Data("1".utf8))

        index.beginBatch()
        index.indexSearchableItems([makeItem("b")], completionHandler: nil)
        do {
            try await index.endIndexBatch(expectedClientState: Data("0".utf8), newClientState: Data("2".utf8))
            XCTFail("a mismatched state must fail")
        } catch let error as CSIndexError {
            XCTAssertEqual(error.code, .mismatchedClientState)
            XCTAssertEqual(error.errorCode, -1006)
        }
        XCTAssertEqual(try ids(index), ["a"], "nothing of a mismatched batch is applied")
        let stored195 = try await state(index)
        XCTAssertEqual(stored195, Data("1".utf8))

        index.beginBatch()
        index.indexSearchableItems([makeItem("c")], completionHandler: nil)
        try await index.endBatch(expectedClientState: Data("1".utf8), newClientState: Data("2".utf8))
        XCTAssertEqual(try ids(index), ["a", "c"])
    }

    func testOversizedClientStateFailsAndAppliesNothing() async throws {
        let index = CSSearchableIndex(name: "i")
        index.beginBatch()
        index.indexSearchableItems([makeItem("a")], completionHandler: nil)
        do {
            try await index.endBatch(withClientState: Data(count: 250))
            XCTFail("250 bytes of client state must fail")
        } catch CSIndexError.invalidClientStateError {
        }
        XCTAssertEqual(try ids(index), [])
        index.beginBatch()
        index.indexSearchableItems([makeItem("a")], completionHandler: nil)
        try await index.endBatch(withClientState: Data(count: 249))
        XCTAssertEqual(try ids(index), ["a"])
    }

    func testBatchingOnTheDefaultIndexFails() async throws {
        let index = CSSearchableIndex.default()
        XCTAssertTrue(index === CSSearchableIndex.default())
        index.beginBatch()
        try await index.indexSearchableItems([makeItem("a")])
        do {
            try await index.endBatch(withClientState: Data("x".utf8))
            XCTFail("batching on the default index must fail")
        } catch let error as CSIndexError {
            XCTAssertEqual(error.code, .invalidClientStateError)
            XCTAssertEqual(error.errorCode, -1002)
        }
        do {
            _ = try await index.fetchLastClientState()
            XCTFail("client state on the default index must fail")
        } catch CSIndexError.invalidClientStateError {
        }
        XCTAssertEqual(try ids(index), ["a"], "calls on the default index apply at once")
    }

    func testInvalidItemsFailTheWholeCallAndKeepTheIndex() async throws {
        let index = CSSearchableIndex(name: "i")
        try await index.indexSearchableItems([makeItem("kept")])

        func expectInvalid(_ items: [CSSearchableItem], _ fragment: String, line: UInt = #line) async {
            do {
                try await index.indexSearchableItems(items)
                XCTFail("expected invalidItemError", line: line)
            } catch let error as CSIndexError {
                XCTAssertEqual(error.code, .invalidItemError, line: line)
                XCTAssertEqual(error.errorCode, -1001, line: line)
                XCTAssertTrue(error.localizedDescription.contains(fragment), "\(error.localizedDescription)", line: line)
            } catch {
                XCTFail("unexpected \(error)", line: line)
            }
        }
        await expectInvalid([makeItem("ok"), makeItem("")], "empty")
        let nan = makeItem("nan")
        nan.attributeSet.latitude = NSNumber(value: Double.nan)
        await expectInvalid([nan], "finite")
        let far = makeItem("far")
        far.attributeSet.longitude = 200
        await expectInvalid([far], "longitude")
        let notPlist = makeItem("weird")
        notPlist.attributeSet.setValue(NSURLComponentsBox(), forCustomKey: CSCustomAttributeKey(keyName: "com_example_weird")!)
        await expectInvalid([notPlist], "property-list")
        let huge = makeItem("huge")
        huge.attributeSet.textContent = String(repeating: "x", count: IndexLimits.maximumValueSize + 1)
        await expectInvalid([huge], "limit")
        await expectInvalid([makeItem(String(repeating: "i", count: 2000))], "longer")

        XCTAssertEqual(try ids(index), ["kept"], "a failed call indexes nothing and keeps what was there")

        // A large call is converted on every core, in parts: the error is still the first invalid item's, whichever
        // part finished first, and the call indexes nothing.
        var many = (0..<(CSSearchableIndex.parallelConversion * 3)).map { makeItem("many-\($0)") }
        let farAway = makeItem("far-away")
        farAway.attributeSet.longitude = 200
        many[many.count - 10] = farAway
        let nanLater = makeItem("nan-later")
        nanLater.attributeSet.latitude = NSNumber(value: Double.nan)
        many[many.count / 2] = nanLater
        await expectInvalid(many, "finite")
        many[many.count / 2] = makeItem("fine")
        await expectInvalid(many, "longitude")
        XCTAssertEqual(try ids(index), ["kept"])
        many[many.count - 10] = makeItem("fine-too")
        try await index.indexSearchableItems(many)
        XCTAssertEqual(try ids(index).count, many.count + 1, "a large valid call indexes every item")
    }

    func testCompletionHandlerFormsReportErrors() {
        let index = CSSearchableIndex(name: "i")
        XCTAssertNil(waitFor { index.indexSearchableItems([self.makeItem("a")], completionHandler: $0) })
        let error = waitFor { index.indexSearchableItems([self.makeItem("")], completionHandler: $0) }
        XCTAssertEqual((error as? CSIndexError)?.code, .invalidItemError)
        XCTAssertNil(waitFor { index.deleteSearchableItems(withIdentifiers: ["a"], completionHandler: $0) })
        XCTAssertNil(waitFor { index.deleteSearchableItems(withDomainIdentifiers: ["d"], completionHandler: $0) })
        XCTAssertNil(waitFor { index.deleteAllSearchableItems(completionHandler: $0) })
        index.beginBatch()
        XCTAssertNil(waitFor { index.endIndexBatch(expectedClientState: nil, newClientState: Data("s".utf8), completionHandler: $0) })
    }

    func testFilesArePrivateAndRelocatable() async throws {
        let index = CSSearchableIndex(name: "private")
        try await index.indexSearchableItems([makeItem("a")])
        let url = IndexInspector(index).storeURL
        XCTAssertTrue(url.path.hasPrefix(root.path), "OpenSpotlight.setRootDirectory relocates the store")
        XCTAssertTrue(url.path.contains("/apps/\(app!)/indexes/private.sqlite"))
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let dir = try FileManager.default.attributesOfItem(atPath: url.deletingLastPathComponent().path)
        XCTAssertEqual((dir[.posixPermissions] as? NSNumber)?.intValue, 0o700)
        XCTAssertTrue(CSSearchableIndex.isIndexingAvailable())
    }

    func testStrangeIndexNamesAreSafeFileNames() async throws {
        let index = CSSearchableIndex(name: "../../etc/passwd é")
        try await index.indexSearchableItems([makeItem("a")])
        let url = IndexInspector(index).storeURL
        XCTAssertTrue(url.path.hasPrefix(root.path))
        XCTAssertEqual(url.deletingLastPathComponent().lastPathComponent, "indexes")
        XCTAssertEqual(StoreLocation.indexNames(app: app, root: root), ["../../etc/passwd é"])
    }

    func testADamagedStoreIsMovedAsideAndTheDelegateAskedToReindex() async throws {
        let index = CSSearchableIndex(name: "broken")
        let url = IndexInspector(index).storeURL
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(repeating: 0x42, count: 8192).write(to: url)
        let delegate = ReindexRecorder()
        index.indexDelegate = delegate
        let asked = expectation(description: "reindex all")
        delegate.onReindexAll = { asked.fulfill() }
        try await index.indexSearchableItems([makeItem("a")])
        await fulfillment(of: [asked], timeout: 10)
        XCTAssertEqual(try ids(index), ["a"], "the new store works")
        let dir = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        XCTAssertTrue(dir.contains { $0.hasPrefix("broken.sqlite.damaged-") }, "the damaged file is kept aside: \(dir)")
        XCTAssertTrue(dir.contains("recovery.log"))
    }

    func testAStoreFromANewerVersionIsMovedAside() async throws {
        let index = CSSearchableIndex(name: "future")
        try await index.indexSearchableItems([makeItem("old")])
        let store = try index.store()
        try await store.pool.write { try $0.execute(sql: "UPDATE meta SET value = 99 WHERE key = 'formatVersion'") }
        StoreRegistry.forgetAll()
        let reopened = CSSearchableIndex(name: "future")
        try await reopened.indexSearchableItems([makeItem("new")])
        XCTAssertEqual(try ids(reopened), ["new"])
    }

    func testAnUnwritableIndexReportsIndexUnavailable() async throws {
        // Indexing works here (the location is a writable directory), but this one index cannot be created.
        let store = StoreLocation.storeURL(app: app, indexName: "nowhere", root: root)
        try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
        XCTAssertTrue(CSSearchableIndex.isIndexingAvailable())
        do {
            try await CSSearchableIndex(name: "nowhere").indexSearchableItems([makeItem("a")])
            XCTFail("must fail")
        } catch let error as CSIndexError {
            XCTAssertEqual(error.code, .indexUnavailableError)
            XCTAssertEqual(error.errorCode, -1000)
        }
    }

    func testErrorCodesMatchApple() {
        XCTAssertEqual(CSIndexErrorDomain, "CSIndexErrorDomain")
        XCTAssertEqual(CSIndexError.errorDomain, "CSIndexErrorDomain")
        let codes: [(CSIndexError.Code, Int)] = [
            (.unknownError, -1), (.indexUnavailableError, -1000), (.invalidItemError, -1001),
            (.invalidClientStateError, -1002), (.remoteConnectionError, -1003), (.quotaExceeded, -1004),
            (.indexingUnsupported, -1005), (.mismatchedClientState, -1006),
        ]
        for (code, raw) in codes {
            XCTAssertEqual(code.rawValue, raw)
            let error = CSIndexError(code, userInfo: [NSLocalizedDescriptionKey: "m"])
            XCTAssertEqual(error.errorCode, raw)
            XCTAssertEqual(error.localizedDescription, "m")
            XCTAssertTrue(code ~= error)
            XCTAssertEqual((error as NSError).domain, CSIndexErrorDomain)
            XCTAssertEqual((error as NSError).code, raw)
        }
        XCTAssertEqual(CSIndexError.invalidItemError, .invalidItemError)
        XCTAssertEqual(CSIndexError.quotaExceeded, .quotaExceeded)
        XCTAssertEqual(CSIndexError.remoteConnectionError, .remoteConnectionError)
        XCTAssertEqual(CSIndexError.indexingUnsupported, .indexingUnsupported)
        XCTAssertEqual(CSIndexError.unknownError, .unknownError)
        XCTAssertEqual(CSIndexError.indexUnavailableError, .indexUnavailableError)
    }

    func testConstants() {
        XCTAssertEqual(CSSearchableItemActionType, "com.apple.corespotlightitem")
        XCTAssertEqual(CSSearchableItemActivityIdentifier, "kCSSearchableItemActivityIdentifier")
        XCTAssertEqual(CSQueryContinuationActionType, "com.apple.corespotlightquerycontinuation")
        XCTAssertEqual(CSSearchQueryString, "kCSSearchQueryString")
    }

    func testItemBasics() {
        let generated = CSSearchableItem(uniqueIdentifier: nil, domainIdentifier: nil,
                                         attributeSet: CSSearchableItemAttributeSet())
        XCTAssertNotNil(UUID(uuidString: generated.uniqueIdentifier), "a nil identifier becomes a UUID")
        XCTAssertFalse(generated.isUpdate)
        let a = makeItem("a"), b = makeItem("b")
        XCTAssertEqual(a.compare(byRank: b), .orderedSame, "unranked items compare equal")
        a._rank = 0
        XCTAssertEqual(a.compare(byRank: b), .orderedAscending)
        b._rank = 1
        XCTAssertEqual(b.compare(byRank: a), .orderedDescending)
        let copy = a.copy() as! CSSearchableItem
        copy.attributeSet.title = "changed"
        XCTAssertEqual(a.attributeSet.title, "a", "copies are deep")
    }

    func testApplicationIdentityRule() {
        OpenSpotlight.resetApplicationIdentifier()
        let env = ProcessInfo.processInfo.environment[OpenSpotlight.applicationIdentifierEnvironmentVariable]
        let expected = env ?? Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
        XCTAssertEqual(OpenSpotlight.applicationIdentifier, expected)
        OpenSpotlight.configure(applicationIdentifier: "com.example.explicit")
        XCTAssertEqual(OpenSpotlight.applicationIdentifier, "com.example.explicit")
    }

    func testAppsAreIsolated() async throws {
        try await CSSearchableIndex(name: "shared-name").indexSearchableItems([makeItem("mine")])
        OpenSpotlight.configure(applicationIdentifier: "com.example.other")
        let other = CSSearchableIndex(name: "shared-name")
        try await other.deleteAllSearchableItems()
        try await other.indexSearchableItems([makeItem("theirs")])
        XCTAssertEqual(try ids(other), ["theirs"])
        OpenSpotlight.configure(applicationIdentifier: app)
        XCTAssertEqual(try ids(CSSearchableIndex(name: "shared-name")), ["mine"], "another app cannot delete my items")
        XCTAssertEqual(StoreLocation.installedApps(root: root).sorted(), [app, "com.example.other"].sorted())
    }
}

/// A Foundation object that is not a property-list value.
final class NSURLComponentsBox: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    override init() {}
    init?(coder: NSCoder) {}
    func encode(with coder: NSCoder) {}
}


final class ReindexRecorder: NSObject, CSSearchableIndexDelegate, @unchecked Sendable {
    var onReindexAll: (@Sendable () -> Void)?
    func searchableIndex(_ searchableIndex: CSSearchableIndex,
                         reindexAllSearchableItemsWithAcknowledgementHandler acknowledgementHandler: @escaping @Sendable () -> Void) {
        onReindexAll?()
        acknowledgementHandler()
    }
    func searchableIndex(_ searchableIndex: CSSearchableIndex, reindexSearchableItemsWithIdentifiers identifiers: [String],
                         acknowledgementHandler: @escaping @Sendable () -> Void) {
        acknowledgementHandler()
    }
}
