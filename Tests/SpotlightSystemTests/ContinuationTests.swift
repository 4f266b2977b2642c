import Foundation
import XCTest
@testable import OpenCoreSpotlight
@testable import SpotlightSystem

/// The continuation protocol: payloads, URLs, and the app-side handler.
final class ContinuationTests: SystemTestCase {
    func testPayloadRoundTripsThroughItsURL() throws {
        let payload = ContinuationPayload(applicationIdentifier: "com.example.app", activityType: "com.example.app.view",
                                          title: "Brent", userInfo: ["id": .string("e-1"), "n": .int(3), "when": .date(Date(timeIntervalSince1970: 10)),
                                                                     "blob": .data(Data([0, 255])), "nested": .dictionary(["a": .array([.bool(true), .null])])],
                                          requiredUserInfoKeys: ["id"], webpageURL: URL(string: "https://example.com/e/1"),
                                          persistentIdentifier: "e-1")
        let url = try payload.url()
        XCTAssertTrue(url.hasPrefix("openspotlight://continue?activity="))
        XCTAssertEqual(try ContinuationPayload.parse(url), payload)
        XCTAssertEqual(try ContinuationPayload.parse(String(url.dropFirst("openspotlight://continue?activity=".count))), payload)
        XCTAssertEqual(try ContinuationPayload.parse(String(decoding: try payload.json(), as: UTF8.self)), payload)
        XCTAssertThrowsError(try ContinuationPayload.parse("openspotlight://continue?nothing=1"))
        XCTAssertThrowsError(try ContinuationPayload.parse("not a payload!"))
    }

    func testLargePayloadsTravelInAFile() throws {
        let big = String(repeating: "x", count: 100_000)
        let payload = ContinuationPayload(applicationIdentifier: "a", activityType: "t", userInfo: ["big": .string(big)])
        let url = try payload.url()
        XCTAssertTrue(url.hasPrefix("openspotlight://continue?file="), url)
        XCTAssertLessThan(url.utf8.count, 1000)
        XCTAssertEqual(try ContinuationPayload.parse(url), payload)
        XCTAssertThrowsError(try ContinuationPayload.parse(url), "the file is consumed")
    }

    func testStandardPayloads() {
        let item = ContinuationPayload.item("e-7", applicationIdentifier: "a", query: "brent")
        XCTAssertEqual(item.activityType, "com.apple.corespotlightitem")
        XCTAssertEqual(item.userInfo, ["kCSSearchableItemActivityIdentifier": .string("e-7"), "kCSSearchQueryString": .string("brent")])
        let search = ContinuationPayload.search("berry", applicationIdentifier: "a")
        XCTAssertEqual(search.activityType, CSQueryContinuationActionType)
        XCTAssertEqual(search.userInfo, [CSSearchQueryString: .string("berry")])
    }

    @MainActor
    func testHandlerDispatchesByActivityType() async throws {
        let handler = ContinuationHandler(applicationIdentifier: "com.example.app")
        var seen: [String] = []
        handler.onContinueUserActivity(CSSearchableItemActionType) { activity in
            seen.append("item " + (activity.userInfo?[CSSearchableItemActivityIdentifier] as? String ?? "?"))
        }
        handler.onContinueUserActivity(CSQueryContinuationActionType) { activity in
            seen.append("search " + (activity.userInfo?[CSSearchQueryString] as? String ?? "?"))
        }
        handler.onContinueUserActivity("com.example.app.view") { activity in
            seen.append("view \(activity.userInfo?["id"] as? String ?? "?") \(activity.title ?? "")")
        }
        let item = try ContinuationPayload.item("e-7", applicationIdentifier: "com.example.app").url()
        let didHandleItem = await handler.handleLaunchArguments(["app", item])
        XCTAssertTrue(didHandleItem)
        let search = try ContinuationPayload.search("brent", applicationIdentifier: "com.example.app").url()
        let didHandleSearch = await handler.handleLaunchArguments(["app", "--continue-activity", search])
        XCTAssertTrue(didHandleSearch)
        let view = ContinuationPayload(applicationIdentifier: "com.example.app", activityType: "com.example.app.view",
                                       title: "Brent", userInfo: ["id": .string("e-1")])
        let didHandleView = await handler.handleLaunchArguments(["app", "--continue-activity=" + ContinuationPayload.base64URL(try view.json())])
        XCTAssertTrue(didHandleView)
        XCTAssertEqual(seen, ["item e-7", "search brent", "view e-1 Brent"])

        // Not handled: no continuation, an unknown type (unless the fallback takes it), another app's.
        let noContinuation = await handler.handleLaunchArguments(["app", "list"])
        XCTAssertFalse(noContinuation)
        let unknown = try ContinuationPayload(applicationIdentifier: "com.example.app", activityType: "other").url()
        let unknownHandled = await handler.handleLaunchArguments(["app", unknown])
        XCTAssertFalse(unknownHandled)
        handler.fallback = { activity in activity.activityType == "other" }
        let fallbackHandled = await handler.handleLaunchArguments(["app", unknown])
        XCTAssertTrue(fallbackHandled)
        let foreign = try ContinuationPayload.item("e-7", applicationIdentifier: "com.example.other").url()
        let foreignHandled = await handler.handleLaunchArguments(["app", foreign])
        XCTAssertFalse(foreignHandled)
        XCTAssertEqual(seen.count, 3)
    }

    func testRequestsArePersistedAndMerged() throws {
        let store = ReindexRequestStore(root: home)
        let some = try store.add(ReindexRequest(applicationIdentifier: "a", indexName: "_default", kind: .reindexIdentifiers,
                                                identifiers: ["1", "2"], reason: "expired"))
        let merged = try store.add(ReindexRequest(applicationIdentifier: "a", indexName: "_default", kind: .reindexIdentifiers,
                                                  identifiers: ["2", "3"], reason: "expired"))
        XCTAssertEqual(merged.id, some.id)
        XCTAssertEqual(store.pending(app: "a").map(\.identifiers), [["1", "2", "3"]])
        let all = try store.add(ReindexRequest(applicationIdentifier: "a", indexName: "_default", kind: .reindexAll, reason: "lost"))
        XCTAssertEqual(store.pending(app: "a").map(\.kind), [.reindexAll], "reindex-all covers the rest")
        XCTAssertEqual(try store.add(ReindexRequest(applicationIdentifier: "a", indexName: "_default", kind: .reindexIdentifiers,
                                                    identifiers: ["9"], reason: "expired")).id, all.id)
        try ReindexRequestStore.acknowledge(requestFile: store.file(of: all))
        XCTAssertTrue(store.pending().isEmpty, "acknowledged requests are done")
    }

    @MainActor
    func testExtensionRunnerCallsTheDelegateAndAcknowledges() async throws {
        final class Handler: CSIndexExtensionRequestHandler, @unchecked Sendable {
            var calls: [String] = []
            override func searchableIndex(_ searchableIndex: CSSearchableIndex,
                                          reindexAllSearchableItemsWithAcknowledgementHandler acknowledgementHandler: @escaping @Sendable () -> Void) {
                calls.append("all")
                let set = CSSearchableItemAttributeSet(contentType: .text)
                set.title = "Rebuilt"
                searchableIndex.indexSearchableItems([CSSearchableItem(uniqueIdentifier: "r", domainIdentifier: nil, attributeSet: set)]) { _ in
                    acknowledgementHandler()
                }
            }
            override func searchableIndexDidThrottle(_ searchableIndex: CSSearchableIndex) { calls.append("throttle") }
            override func searchableIndexDidFinishThrottle(_ searchableIndex: CSSearchableIndex) { calls.append("finish") }
        }
        OpenSpotlight.configure(applicationIdentifier: "com.example.rebuilt")
        let store = ReindexRequestStore(root: home)
        var request = ReindexRequest(applicationIdentifier: "com.example.rebuilt", indexName: "books", kind: .reindexAll, reason: "test")
        request.throttled = true
        try store.save(request)
        let handler = Handler()
        let acknowledged = await IndexExtensionRunner.processPendingRequests(delegate: handler, rootDirectory: home)
        XCTAssertEqual(acknowledged, 1)
        XCTAssertEqual(handler.calls, ["throttle", "all", "finish"])
        XCTAssertTrue(store.pending().isEmpty)
        XCTAssertEqual(try IndexInspector(CSSearchableIndex(name: "books")).count(), 1)

        // A request for another app is refused.
        try store.save(ReindexRequest(applicationIdentifier: "com.example.other", indexName: "books", kind: .reindexAll, reason: "test"))
        let refused = await IndexExtensionRunner.run(requestFile: store.file(of: store.pending()[0]), delegate: handler)
        XCTAssertFalse(refused)
    }
}
