import Foundation
import XCTest
@testable import OpenCoreSpotlight

/// The async `searchableItems(forIdentifiers:)` that the system calls reaches whichever form the app implemented.
final class DelegateTests: XCTestCase {
    private final class HandlerFormDelegate: NSObject, CSSearchableIndexDelegate {
        func searchableIndex(_ searchableIndex: CSSearchableIndex,
                             reindexAllSearchableItemsWithAcknowledgementHandler acknowledgementHandler: @escaping @Sendable () -> Void) {
            acknowledgementHandler()
        }
        func searchableIndex(_ searchableIndex: CSSearchableIndex, reindexSearchableItemsWithIdentifiers identifiers: [String],
                             acknowledgementHandler: @escaping @Sendable () -> Void) {
            acknowledgementHandler()
        }
        func searchableItems(forIdentifiers identifiers: [String],
                             searchableItemsHandler: @escaping @Sendable ([CSSearchableItem]) -> Void) {
            searchableItemsHandler(identifiers.map { CSSearchableItem(uniqueIdentifier: "handler-" + $0, domainIdentifier: nil,
                                                                      attributeSet: CSSearchableItemAttributeSet()) })
        }
    }

    private final class AsyncFormExtension: CSIndexExtensionRequestHandler {
        override func searchableItems(forIdentifiers identifiers: [String]) async -> [CSSearchableItem] {
            identifiers.map { CSSearchableItem(uniqueIdentifier: "async-" + $0, domainIdentifier: nil,
                                               attributeSet: CSSearchableItemAttributeSet()) }
        }
    }

    private final class HandlerFormExtension: CSIndexExtensionRequestHandler {
        override func searchableItems(forIdentifiers identifiers: [String],
                                      searchableItemsHandler: @escaping @Sendable ([CSSearchableItem]) -> Void) {
            searchableItemsHandler([CSSearchableItem(uniqueIdentifier: "ext-handler", domainIdentifier: nil,
                                                     attributeSet: CSSearchableItemAttributeSet())])
        }
    }

    private func viaProtocol(_ delegate: any CSSearchableIndexDelegate, _ ids: [String]) async -> [String] {
        await delegate.searchableItems(forIdentifiers: ids).map(\.uniqueIdentifier)
    }

    func testTheAsyncFormReachesTheImplementedForm() async {
        let fromHandler = await viaProtocol(HandlerFormDelegate(), ["a", "b"])
        XCTAssertEqual(fromHandler, ["handler-a", "handler-b"])
        let fromAsync = await viaProtocol(AsyncFormExtension(), ["a"])
        XCTAssertEqual(fromAsync, ["async-a"])
        let fromExtensionHandler = await viaProtocol(HandlerFormExtension(), ["a"])
        XCTAssertEqual(fromExtensionHandler, ["ext-handler"])
        let none = await viaProtocol(CSIndexExtensionRequestHandler(), ["a"])
        XCTAssertEqual(none, [], "the base class has no items")
    }

    func testUnimplementedDataAndFileThrow() {
        let index = CSSearchableIndex(name: "i")
        XCTAssertThrowsError(try HandlerFormDelegate().data(for: index, itemIdentifier: "a", typeIdentifier: "public.text")) {
            XCTAssertTrue($0 is CSSearchableIndexDelegateNotImplemented)
        }
        XCTAssertThrowsError(try CSIndexExtensionRequestHandler().fileURL(for: index, itemIdentifier: "a",
                                                                          typeIdentifier: "public.text", inPlace: false))
    }

    func testVersionConstantsAndBrowsingWeb() {
        XCTAssertGreaterThan(CoreSpotlightVersionNumber, 0)
        XCTAssertTrue(String(cString: CoreSpotlightVersionString).hasPrefix("OpenSpotlight-"))
        XCTAssertEqual(NSUserActivityTypeBrowsingWeb, "NSUserActivityTypeBrowsingWeb")
    }
}
