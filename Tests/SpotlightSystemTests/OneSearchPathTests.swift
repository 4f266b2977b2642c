import Foundation
import Synchronization
import XCTest
@testable import OpenCoreSpotlight
import SpotlightEngine
@testable import SpotlightSystem

/// `AppSearch`, `CSUserQuery`, `CSSearchQuery` and the system search go through one path (`AppIndexes`): the same
/// query over the same stores gives the same results, in the same order, ties included.
final class OneSearchPathTests: SystemTestCase {
    let app = "com.example.onepath"

    private func index(_ items: [(id: String, title: String)], into index: CSSearchableIndex) {
        let done = expectation(description: "indexed")
        index.indexSearchableItems(items.map { item in
            let set = CSSearchableItemAttributeSet(contentType: .text)
            set.title = item.title
            set.contentDescription = "a smoothie"
            return CSSearchableItem(uniqueIdentifier: item.id, domainIdentifier: "menu", attributeSet: set)
        }) { error in
            XCTAssertNil(error)
            done.fulfill()
        }
        wait(for: [done], timeout: 30)
    }

    func testEverySearchAgreesOnTheSameStores() throws {
        OpenSpotlight.configure(applicationIdentifier: app)
        // Ties on purpose: the same titles in several indexes, and one identifier in two named indexes.
        index([("berry-blue", "Berry Blue"), ("very-berry", "Very Berry"), ("mango", "Mango Tango")],
              into: CSSearchableIndex.default())
        index([("dup", "Berry Blue"), ("berry-bliss", "Berry Bliss")], into: CSSearchableIndex(name: "a"))
        index([("dup", "Berry Blue"), ("kiwi", "Kiwi Berry")], into: CSSearchableIndex(name: "b"))
        // A saved activity: the system shows it; the app's own searches do not.
        let activity = NSUserActivity(activityType: "com.example.onepath.view")
        activity.title = "Berry shelf"
        activity.isEligibleForSearch = true
        activity.becomeCurrent()

        for text in ["berry", "ber", "berry b", "smoothie", "tango", ""] {
            let appSearch = try AppSearch().search(text, limit: 50).map(\.stored.uniqueIdentifier)

            let context = CSUserQueryContext()
            context.maxResultCount = 50
            context.maxSuggestionCount = 0
            let query = CSUserQuery(userQueryString: text, userQueryContext: context)
            let done = expectation(description: "user query")
            let found = Mutex<[String]>([])
            query.foundItemsHandler = { items in found.withLock { $0 += items.map(\.uniqueIdentifier) } }
            query.completionHandler = { error in
                XCTAssertNil(error)
                done.fulfill()
            }
            query.start()
            wait(for: [done], timeout: 30)
            XCTAssertEqual(found.withLock { $0 }, appSearch, "CSUserQuery and AppSearch for \"\(text)\"")

            var system = SystemSearch(root: home)
            system.repairsAutomatically = false
            let outcome = system.search(text, limit: 50, applications: [app])
            let items = outcome.results.filter { $0.kind == "item" && $0.activityIdentifier == nil }.map(\.identifier)
            XCTAssertEqual(items, appSearch, "spotlight and AppSearch for \"\(text)\"")
        }
        XCTAssertEqual(try AppSearch().search("berry", limit: 50).filter { $0.stored.uniqueIdentifier == "dup" }.map(\.indexName),
                       ["a", "b"], "equal scores and identifiers order by index name")
        XCTAssertFalse(try AppSearch().search("shelf", limit: 50).contains { $0.indexName == SavedUserActivity.indexName },
                       "the app's own search leaves the system's activities out, as CSUserQuery does")

        // CSSearchQuery sees exactly the same stores.
        let all = try AppIndexes(applicationIdentifier: app, root: home).stores().map(\.name)
        XCTAssertEqual(all, ["_default", "a", "b"])
        let everything = expectation(description: "query")
        let matched = Mutex<[String]>([])
        let query = CSSearchQuery(queryString: #"title == "*""#, queryContext: nil)
        query.foundItemsHandler = { items in matched.withLock { $0 += items.map(\.uniqueIdentifier) } }
        query.completionHandler = { _ in everything.fulfill() }
        query.start()
        wait(for: [everything], timeout: 30)
        XCTAssertEqual(matched.withLock { $0 }.sorted(), ["berry-bliss", "berry-blue", "dup", "dup", "kiwi", "mango", "very-berry"])
    }
}
