import CoreSpotlight
import Foundation
import Synchronization
import UniformTypeIdentifiers
import XCTest

/// Runs the Apple-style app code of `SampleApp.swift` (Swift 6 language mode) against a throwaway index location.
final class AppleSampleCodeTests: XCTestCase {
    private var root: URL!

    override func setUp() {
        super.setUp()
        root = FileManager.default.temporaryDirectory.appendingPathComponent("apple-sample-\(UUID().uuidString)")
        OpenSpotlight.setRootDirectory(root)
        OpenSpotlight.configure(applicationIdentifier: "com.example.smoothies.\(UUID().uuidString.prefix(8))")
    }

    override func tearDown() {
        OpenSpotlight.setRootDirectory(nil)
        try? FileManager.default.removeItem(at: root)
        super.tearDown()
    }

    /// The batch of Apple's sample code completes (it used to hang in the first `try await`) and its items are
    /// searchable afterwards, with the client state stored.
    func testSmoothiesStyleBatchCompletesAndIsSearchable() async throws {
        let finished = try await completes(within: 30) { try await SmoothieIndexer.reindex(Smoothie.all) }
        XCTAssertTrue(finished, "awaiting calls inside a batch must return")
        let model = SearchModel()
        try await model.search("berry")
        let found = await model.foundIdentifiers
        XCTAssertEqual(Set(found), ["berry-blue", "very-berry"])
        let stamp = try await SmoothieIndexer.lastIndexed()
        XCTAssertNotNil(stamp)
        XCTAssertLessThan(abs(stamp!.timeIntervalSinceNow), 120)
    }

    /// Handler properties that set main-actor state, as a view model does.
    @MainActor
    func testHandlersSetMainActorViewModel() async throws {
        try await SmoothieIndexer.reindex(Smoothie.all)
        let model = SearchModel()
        await model.find(#"title == "*berry*"c"#)
        XCTAssertEqual(Set(model.foundIdentifiers), ["berry-blue", "very-berry"])
        XCTAssertEqual(model.status, "found 2")
        XCTAssertFalse(model.isSearching)

        let done = expectation(description: "indexed")
        model.add(Smoothie(id: "kiwi", title: "Kiwi Cutie", description: "Kiwi and apple"),
                  to: CSSearchableIndex(name: SmoothieIndexer.indexName)) { done.fulfill() }
        await fulfillment(of: [done], timeout: 30)
        XCTAssertEqual(model.status, "indexed Kiwi Cutie")
        XCTAssertEqual(model.indexedCount, 1)
    }

    @MainActor
    func testSuggestionsArriveInTheResponsesLoop() async throws {
        try await SmoothieIndexer.reindex(Smoothie.all)
        let model = SearchModel()
        try await model.search("berr")
        XCTAssertEqual(Set(model.foundIdentifiers), ["berry-blue", "very-berry"])
        XCTAssertFalse(model.suggestions.isEmpty)
        XCTAssertTrue(model.suggestions.allSatisfy { $0.lowercased().hasPrefix("berr") }, "\(model.suggestions)")
    }

    @MainActor
    func testActivityWithContentAttributeSetBecomesSearchable() async throws {
        try await SmoothieIndexer.reindex(Smoothie.all)  // as Apple's: an activity related to an item needs the item
        let activity = makeRecipeActivity(Smoothie.all[0])
        activity.becomeCurrent()
        activity.resignCurrent()
        XCTAssertEqual(activity.contentAttributeSet?.relatedUniqueIdentifier, "berry-blue")
        let saved = try SavedUserActivity.all()
        XCTAssertEqual(saved.map(\.activityType), ["com.example.smoothies.view-recipe"])
        XCTAssertEqual(saved.first?.title, "Berry Blue")
        XCTAssertEqual(saved.first?.userInfo["id"], .string("berry-blue"))
        XCTAssertTrue(UTType.jpeg.conforms(to: .image))
    }

    func testDelegateAndExtensionSubclassesReindex() async throws {
        let index = CSSearchableIndex(name: SmoothieIndexer.indexName)
        let delegate = SmoothieIndexDelegate()
        index.indexDelegate = delegate
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            delegate.searchableIndex(index, reindexAllSearchableItemsWithAcknowledgementHandler: { c.resume() })
        }
        let model = SearchModel()
        try await model.search("carrot")
        let found = await model.foundIdentifiers
        XCTAssertEqual(found, ["carrot-chops"])
        let items = await delegate.searchableItems(forIdentifiers: ["very-berry"])
        XCTAssertEqual(items.map(\.uniqueIdentifier), ["very-berry"])
        XCTAssertEqual(try delegate.data(for: index, itemIdentifier: "berry-blue", typeIdentifier: UTType.plainText.identifier),
                       Data("A berry smoothie with blueberries".utf8))

        let handler = SmoothieIndexRequestHandler()
        try await index.deleteAllSearchableItems()
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            handler.searchableIndex(index, reindexAllSearchableItemsWithAcknowledgementHandler: { c.resume() })
        }
        try await model.search("mango")
        let again = await model.foundIdentifiers
        XCTAssertEqual(again, ["carrot-chops"])
    }

    /// Runs `body` in its own task and reports whether it finished in time, so a hang fails the test instead of
    /// hanging the suite.
    private func completes(within seconds: Double, _ body: @escaping @Sendable () async throws -> Void) async throws -> Bool {
        let outcome = Mutex<Result<Void, any Error>?>(nil)
        Task {
            do {
                try await body()
                outcome.withLock { $0 = .success(()) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
        }
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let result = outcome.withLock({ $0 }) {
                try result.get()
                return true
            }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        return false
    }
}
