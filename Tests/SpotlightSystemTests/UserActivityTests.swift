import Foundation
import XCTest
@testable import OpenCoreSpotlight
import SpotlightEngine
@testable import SpotlightSystem

/// NSUserActivity's search side, in process: eligibility, visits, userInfo, relatedUniqueIdentifier, deletion.
final class UserActivityTests: SystemTestCase {
    let app = "com.example.notes"

    override func setUp() {
        super.setUp()
        OpenSpotlight.configure(applicationIdentifier: app)
    }

    private func saved() throws -> [SavedUserActivity] {
        try SavedUserActivity.all(applicationIdentifier: app, rootDirectory: home)
    }

    private func activity(_ title: String, type: String = "com.example.notes.open") -> NSUserActivity {
        let activity = NSUserActivity(activityType: type)
        activity.title = title
        activity.isEligibleForSearch = true
        return activity
    }

    private func indexItem(_ id: String, title: String) {
        let set = CSSearchableItemAttributeSet(contentType: .text)
        set.title = title
        let done = expectation(description: "indexed")
        CSSearchableIndex.default().indexSearchableItems([CSSearchableItem(uniqueIdentifier: id, domainIdentifier: nil, attributeSet: set)]) { _ in
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
    }

    func testDefaults() {
        let activity = NSUserActivity(activityType: "t")
        XCTAssertFalse(activity.isEligibleForSearch)
        XCTAssertFalse(activity.isEligibleForPublicIndexing)
        XCTAssertTrue(activity.isEligibleForHandoff)
        XCTAssertEqual(activity.keywords, [])
        XCTAssertNil(activity.userInfo)
        activity.addUserInfoEntries(from: ["a": 1])
        activity.addUserInfoEntries(from: ["b": "two"])
        XCTAssertEqual(activity.userInfo?.count, 2)
        activity.webpageURL = URL(string: "ftp://example.com")
        XCTAssertNil(activity.webpageURL, "only http and https")
        activity.webpageURL = URL(string: "https://example.com/notes/1")
        XCTAssertNotNil(activity.webpageURL)
    }

    func testIneligibleActivitiesAreNeverIndexed() throws {
        let activity = NSUserActivity(activityType: "com.example.notes.open")
        activity.title = "Groceries"
        activity.becomeCurrent()
        XCTAssertTrue(try saved().isEmpty)
        let expired = self.activity("Expired")
        expired.expirationDate = Date(timeIntervalSinceNow: -60)
        expired.becomeCurrent()
        XCTAssertTrue(try saved().isEmpty)
        let invalidated = self.activity("Gone")
        invalidated.invalidate()
        invalidated.becomeCurrent()
        XCTAssertTrue(try saved().isEmpty)
    }

    func testAnEligibleActivityIsIndexedAndEveryVisitCounted() throws {
        let activity = self.activity("Groceries")
        activity.keywords = ["shopping"]
        activity.userInfo = ["note": "n-1", "scroll": 120, "ratio": 0.5, "pinned": true, "date": Date(timeIntervalSince1970: 5),
                             "tags": ["a", "b"], "url": URL(string: "https://example.com")!]
        activity.persistentIdentifier = "n-1"
        activity.becomeCurrent()
        activity.resignCurrent()
        activity.becomeCurrent()
        let all = try saved()
        XCTAssertEqual(all.count, 1)
        let one = try XCTUnwrap(all.first)
        XCTAssertEqual(one.visitCount, 2)
        XCTAssertEqual(one.title, "Groceries")
        XCTAssertEqual(one.activityType, "com.example.notes.open")
        XCTAssertEqual(one.persistentIdentifier, "n-1")
        XCTAssertEqual(one.userInfo["note"], .string("n-1"))
        XCTAssertEqual(one.userInfo["scroll"], .int(120))
        XCTAssertEqual(one.userInfo["ratio"], .double(0.5))
        XCTAssertEqual(one.userInfo["pinned"], .bool(true))
        XCTAssertEqual(one.userInfo["date"], .date(Date(timeIntervalSince1970: 5)))
        XCTAssertEqual(one.userInfo["tags"], .array([.string("a"), .string("b")]))
        XCTAssertEqual(one.userInfo["url"], .url(URL(string: "https://example.com")!))
        let restored = one.makeUserActivity()
        XCTAssertEqual(restored.userInfo?["scroll"] as? Int, 120)
        XCTAssertEqual(restored.userInfo?["pinned"] as? Bool, true)
        // Found by title and keywords, in the system search.
        XCTAssertEqual(SystemSearch(root: home).search("shopping").results.map(\.title), ["Groceries"])
    }

    func testRequiredUserInfoKeysRestrictWhatIsSaved() throws {
        let activity = self.activity("Budget")
        activity.userInfo = ["id": "n-2", "draft": "a long unsaved draft"]
        activity.requiredUserInfoKeys = ["id"]
        activity.becomeCurrent()
        XCTAssertEqual(try saved().first?.userInfo, ["id": .string("n-2")])
    }

    func testNeedsSaveAsksTheDelegate() throws {
        final class Delegate: NSObject, NSUserActivityDelegate {
            var saves = 0
            func userActivityWillSave(_ userActivity: NSUserActivity) {
                saves += 1
                userActivity.addUserInfoEntries(from: ["page": saves])
            }
        }
        let delegate = Delegate()
        let activity = self.activity("Book")
        activity.delegate = delegate
        activity.becomeCurrent()
        activity.needsSave = true
        XCTAssertEqual(delegate.saves, 1)
        let one = try XCTUnwrap(try saved().first)
        XCTAssertEqual(one.userInfo["page"], .int(1))
        XCTAssertEqual(one.visitCount, 1, "saving again is not a visit")
    }

    func testRelatedActivityIsStoredOnlyWhenTheItemExists() throws {
        let activity = self.activity("Trip to Lisbon")
        let set = CSSearchableItemAttributeSet(contentType: .text)
        set.relatedUniqueIdentifier = "note-9"
        activity.contentAttributeSet = set
        activity.becomeCurrent()
        XCTAssertTrue(try saved().isEmpty, "not stored while no item note-9 exists")

        indexItem("note-9", title: "Trip to Lisbon")
        activity.becomeCurrent()
        XCTAssertEqual(try saved().first?.relatedUniqueIdentifier, "note-9")
        let outcome = SystemSearch(root: home).search("lisbon")
        XCTAssertEqual(outcome.results.count, 1, "one result with its item")
        XCTAssertEqual(outcome.results.first?.identifier, "note-9")
        XCTAssertNotNil(outcome.results.first?.activityIdentifier)

        // Deleting the item deletes the activity.
        let done = expectation(description: "deleted")
        CSSearchableIndex.default().deleteSearchableItems(withIdentifiers: ["note-9"]) { _ in done.fulfill() }
        wait(for: [done], timeout: 10)
        XCTAssertTrue(SystemSearch(root: home).search("lisbon").results.isEmpty)
        XCTAssertTrue(try saved().isEmpty)
    }

    func testWeakRelatedActivityOutlivesItsItem() throws {
        indexItem("note-3", title: "Reading list")
        let activity = self.activity("Reading list")
        let set = CSSearchableItemAttributeSet(contentType: .text)
        set.weakRelatedUniqueIdentifier = "note-3"
        activity.contentAttributeSet = set
        activity.becomeCurrent()
        XCTAssertEqual(SystemSearch(root: home).search("reading").results.count, 1)
        let done = expectation(description: "deleted")
        CSSearchableIndex.default().deleteSearchableItems(withIdentifiers: ["note-3"]) { _ in done.fulfill() }
        wait(for: [done], timeout: 10)
        let outcome = SystemSearch(root: home).search("reading")
        XCTAssertEqual(outcome.results.map(\.kind), ["activity"])
    }

    func testDeletingAnItemDeletesItsActivitiesAtOnce() throws {
        indexItem("note-4", title: "Groceries")
        indexItem("note-5", title: "Garden")
        for id in ["note-4", "note-5"] {
            let activity = self.activity(id == "note-4" ? "Groceries" : "Garden")
            activity.persistentIdentifier = id
            let set = CSSearchableItemAttributeSet(contentType: .text)
            set.relatedUniqueIdentifier = id
            activity.contentAttributeSet = set
            activity.becomeCurrent()
        }
        XCTAssertEqual(try saved().count, 2)
        let done = expectation(description: "deleted")
        CSSearchableIndex.default().deleteSearchableItems(withIdentifiers: ["note-4"]) { _ in done.fulfill() }
        wait(for: [done], timeout: 10)
        // Gone from the activity index itself, before any system search ran.
        XCTAssertEqual(try saved().map(\.persistentIdentifier), ["note-5"])
        let all = expectation(description: "deleted all")
        CSSearchableIndex.default().deleteAllSearchableItems { _ in all.fulfill() }
        wait(for: [all], timeout: 10)
        XCTAssertEqual(try saved().count, 0)
    }

    func testDeletingADomainDeletesTheActivitiesInIt() throws {
        for (title, domain) in [("Paris trip", "trips.2026"), ("Rome trip", "trips"), ("Budget", "finance")] {
            let activity = self.activity(title)
            let set = CSSearchableItemAttributeSet(contentType: .text)
            set.domainIdentifier = domain
            activity.contentAttributeSet = set
            activity.becomeCurrent()
        }
        XCTAssertEqual(try saved().count, 3)
        // A named index's domain deletion deletes its own items only: activities belong to the default index.
        let named = expectation(description: "named index deleted")
        CSSearchableIndex(name: "archive").deleteSearchableItems(withDomainIdentifiers: ["trips"]) { _ in named.fulfill() }
        wait(for: [named], timeout: 10)
        XCTAssertEqual(try saved().count, 3)
        let done = expectation(description: "deleted")
        CSSearchableIndex.default().deleteSearchableItems(withDomainIdentifiers: ["trips"]) { _ in done.fulfill() }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(try saved().map(\.title), ["Budget"])
    }

    /// `spotlight --explain` lists every part of a result's score, and the parts add up to the score it prints: also
    /// when an activity outscores the item it is merged with (its explanation is then the one shown), and with
    /// visits (issue 13: the parts used to be the item's while the score was the activity's).
    func testExplanationsAddUpToTheScore() throws {
        let set = CSSearchableItemAttributeSet(contentType: .text)
        set.title = "Travel notes"
        set.textContent = "three days in lisbon"
        let done = expectation(description: "indexed")
        CSSearchableIndex.default().indexSearchableItems([CSSearchableItem(uniqueIdentifier: "note-1", domainIdentifier: nil, attributeSet: set)]) { _ in
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        indexItem("note-2", title: "Lisbon restaurants")
        let related = activity("Lisbon itinerary")
        let relation = CSSearchableItemAttributeSet(contentType: .text)
        relation.relatedUniqueIdentifier = "note-1"
        related.contentAttributeSet = relation
        for _ in 0..<3 { related.becomeCurrent() }
        let alone = activity("Lisbon flights")
        alone.userInfo = ["id": "f"]
        alone.becomeCurrent()

        let results = SystemSearch(root: home).search("lisbon").results
        XCTAssertEqual(Set(results.map(\.identifier)).count, results.count)
        XCTAssertEqual(results.count, 3, "note-1 with its activity, note-2, the activity alone")
        let merged = try XCTUnwrap(results.first { $0.identifier == "note-1" })
        XCTAssertNotNil(merged.activityIdentifier)
        XCTAssertTrue(merged.explanation?.contains("tier 0") == true, "the activity's title match scored it: \(merged.explanation ?? "")")
        XCTAssertTrue(merged.explanation?.contains("visits (3)") == true, merged.explanation ?? "")
        for result in results {
            let explanation = try XCTUnwrap(result.explanation, result.identifier)
            let halves = explanation.components(separatedBy: " = ")
            XCTAssertEqual(halves.count, 2, explanation)
            let parts = halves[0].components(separatedBy: ", ").compactMap { Double($0.components(separatedBy: ": ").last ?? "") }
            XCTAssertEqual(parts.count, halves[0].components(separatedBy: ", ").count, "every part has points: \(explanation)")
            let total = try XCTUnwrap(Double(halves[1]), explanation)
            XCTAssertEqual(parts.reduce(0, +), total, accuracy: 0.01, "the parts add up: \(explanation)")
            XCTAssertEqual(total, result.score, accuracy: 0.0015, "the total is the printed score: \(explanation) vs \(result.score)")
        }
    }

    func testVisitsRaiseAnActivity() throws {
        let often = activity("Project alpha")
        often.userInfo = ["id": "a"]
        let once = activity("Project beta")
        once.userInfo = ["id": "b"]
        once.becomeCurrent()
        for _ in 0..<3 { often.becomeCurrent() }
        once.becomeCurrent()  // the most recent visit
        XCTAssertEqual(SystemSearch(root: home).search("project").results.map(\.title), ["Project alpha", "Project beta"])
        XCTAssertGreaterThan(SystemSearch.visitPoints(4), SystemSearch.visitPoints(2))
        XCTAssertEqual(SystemSearch.visitPoints(1000), 1.5)
        XCTAssertEqual(SystemSearch.visitPoints(1000, engagement: 1.5), 0.5, "visits and engagement share a budget of 2")
    }

    func testDeletingSavedActivities() async throws {
        for (title, id) in [("One", "p1"), ("Two", "p2"), ("Three", "p3")] {
            let activity = self.activity(title)
            activity.persistentIdentifier = id
            activity.becomeCurrent()
        }
        await NSUserActivity.deleteSavedUserActivities(withPersistentIdentifiers: ["p1", "p3"])
        XCTAssertEqual(try saved().map(\.title), ["Two"])
        await NSUserActivity.deleteAllSavedUserActivities()
        XCTAssertTrue(try saved().isEmpty)
    }

    func testExpirationDateIsHonoured() throws {
        let activity = self.activity("Flash sale")
        activity.expirationDate = Date(timeIntervalSinceNow: 1)
        activity.becomeCurrent()
        XCTAssertEqual(try saved().count, 1)
        XCTAssertEqual(SystemSearch(root: home).search("flash").results.count, 1)
        Thread.sleep(forTimeInterval: 1.2)
        XCTAssertTrue(SystemSearch(root: home).search("flash").results.isEmpty)
        XCTAssertTrue(try saved().isEmpty)
    }
}
