import Foundation
import XCTest
@testable import OpenCoreSpotlight
import SpotlightEngine
@testable import SpotlightSystem

/// One app cannot delete or alter another app's items through the library; results name their app.
final class IsolationTests: SystemTestCase {
    private func index(_ ids: [String], title: String, app: String) throws {
        OpenSpotlight.configure(applicationIdentifier: app)
        let items = ids.map { id -> CSSearchableItem in
            let set = CSSearchableItemAttributeSet(contentType: .text)
            set.title = title
            return CSSearchableItem(uniqueIdentifier: id, domainIdentifier: "shared", attributeSet: set)
        }
        let index = CSSearchableIndex.default()
        let done = expectation(description: "indexed")
        index.indexSearchableItems(items) { error in XCTAssertNil(error); done.fulfill() }
        wait(for: [done], timeout: 10)
    }

    private func complete(_ body: (@escaping @Sendable ((any Error)?) -> Void) -> Void) {
        let done = expectation(description: "completed")
        body { error in XCTAssertNil(error); done.fulfill() }
        wait(for: [done], timeout: 10)
    }

    func testAnAppsDeletesNeverReachAnotherAppsItems() throws {
        try index(["shared-1"], title: "Quarterly report", app: "com.example.a")
        try index(["shared-1"], title: "Quarterly report", app: "com.example.b")
        // App b deletes the same identifier, the same domain, then everything: only b's items go.
        let b = CSSearchableIndex.default()
        complete { b.deleteSearchableItems(withIdentifiers: ["shared-1"], completionHandler: $0) }
        complete { b.deleteSearchableItems(withDomainIdentifiers: ["shared"], completionHandler: $0) }
        complete { b.deleteAllSearchableItems(completionHandler: $0) }
        let outcome = SystemSearch(root: home).search("quarterly")
        XCTAssertEqual(outcome.results.map(\.applicationIdentifier), ["com.example.a"])
        XCTAssertEqual(outcome.apps.map(\.displayName), ["com.example.a"], "an unregistered app is named by its identifier")
        XCTAssertEqual(outcome.results.first?.actions, [], "an unregistered app's results cannot be opened")
    }

    func testAnAppsActivitiesAreItsOwn() async throws {
        OpenSpotlight.configure(applicationIdentifier: "com.example.a")
        let activity = NSUserActivity(activityType: "com.example.a.view")
        activity.title = "Holiday photos"
        activity.isEligibleForSearch = true
        activity.becomeCurrent()
        OpenSpotlight.configure(applicationIdentifier: "com.example.b")
        await NSUserActivity.deleteAllSavedUserActivities()
        XCTAssertEqual(try SavedUserActivity.all(applicationIdentifier: "com.example.a", rootDirectory: home).count, 1)
        XCTAssertEqual(SystemSearch(root: home).search("holiday").results.map(\.applicationIdentifier), ["com.example.a"])
    }

    func testAppQueriesSeeOnlyTheirOwnItems() throws {
        try succeed("colleagues", ["setting", "all-records"])
        let output = try succeed("smoothies", ["search", "brent"])
        XCTAssertTrue(output.stdout.contains("No smoothies match"), output.stdout)
    }

    func testAContinuationForAnotherAppIsRefused() throws {
        let payload = ContinuationPayload.item("employee-1", applicationIdentifier: "com.example.colleagues")
        let output = try run("smoothies", [try payload.url()])
        XCTAssertEqual(output.status, 1)
        XCTAssertTrue(output.stderr.contains("is for com.example.colleagues"), output.stderr)
        XCTAssertFalse(output.stdout.contains("Brent"))
    }

    func testResultsOfSeveralAppsAreGroupedAndNamed() throws {
        try succeed("colleagues", ["setting", "all-records"])
        try succeed("smoothies", ["list"])
        // "ma" starts Marcus, Marketing… and Mango, Martin… in both apps.
        let outcome = try search("ma")
        XCTAssertEqual(Set(outcome.apps.map(\.displayName)), ["Colleagues", "Smoothies"])
        for group in outcome.apps {
            XCTAssertTrue(group.results.allSatisfy { $0.applicationIdentifier == group.applicationIdentifier })
        }
        XCTAssertEqual(outcome.results.map(\.number), Array(1...outcome.results.count))
    }
}
