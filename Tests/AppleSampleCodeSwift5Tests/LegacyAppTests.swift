import CoreSpotlight
import Foundation
import XCTest

/// Runs `LegacyApp.swift` (Swift 5 language mode).
final class LegacyAppTests: XCTestCase {
    private var root: URL!

    override func setUp() {
        super.setUp()
        root = FileManager.default.temporaryDirectory.appendingPathComponent("apple-legacy-\(UUID().uuidString)")
        OpenSpotlight.setRootDirectory(root)
        OpenSpotlight.configure(applicationIdentifier: "com.example.colleagues.\(UUID().uuidString.prefix(8))")
    }

    override func tearDown() {
        OpenSpotlight.setRootDirectory(nil)
        try? FileManager.default.removeItem(at: root)
        super.tearDown()
    }

    func testBatchWithCompletionHandlersThenSearchOnTheMainQueue() {
        let index = CSSearchableIndex(name: "colleagues")
        let indexed = expectation(description: "batch committed")
        var outcome: (Error?, Int)?
        indexInBatch(Colleague.all, index: index) { error, accepted in
            outcome = (error, accepted)
            indexed.fulfill()
        }
        wait(for: [indexed], timeout: 30)
        XCTAssertNil(outcome?.0)
        XCTAssertEqual(outcome?.1, 3, "every call inside the batch completed before the batch did")

        let controller = SearchController()
        let searched = expectation(description: "search finished")
        controller.search("br") { searched.fulfill() }
        wait(for: [searched], timeout: 30)
        XCTAssertTrue(controller.finished)
        XCTAssertEqual(controller.names, ["Brent Reid"])
    }

    func testExtensionOverridesWithoutSendable() {
        let index = CSSearchableIndex(name: "colleagues")
        let acknowledged = expectation(description: "acknowledged")
        ColleaguesIndexRequestHandler().searchableIndex(index, reindexAllSearchableItemsWithAcknowledgementHandler: {
            acknowledged.fulfill()
        })
        wait(for: [acknowledged], timeout: 30)
        let state = expectation(description: "state")
        index.fetchLastClientState { data, error in
            XCTAssertNil(error)
            XCTAssertNil(data, "no batch, no client state")
            state.fulfill()
        }
        wait(for: [state], timeout: 30)
        let item = Colleague.all[0].searchableItem
        XCTAssertEqual(item.attributeSet.contentType, "public.contact")
        XCTAssertNil(item.attributeSet.contentTypeTree, "the index records the tree; the app's set stays as made")
    }
}
