import Foundation
import XCTest
@testable import OpenCoreSpotlight
import SpotlightEngine

/// Issue 17 through Apple's API: NUL never truncates a name, a domain deletion deletes that domain and its
/// sub-domains only, deeply nested values are refused at once, a store that cannot be opened fails the query,
/// and a store file that is a link is never followed.
final class InputSafetyTests: IndexTestCase {
    func expectInvalidItem(_ body: () async throws -> Void, _ what: String, line: UInt = #line) async {
        do {
            try await body()
            XCTFail("\(what): expected invalidItemError", line: line)
        } catch let error as CSIndexError {
            XCTAssertEqual(error.code, .invalidItemError, "\(what): \(error)", line: line)
        } catch {
            XCTFail("\(what): unexpected \(error)", line: line)
        }
    }

    // Item 3
    func testNULIsRefusedInIdentifiersDomainsAndIndexNames() async throws {
        let index = CSSearchableIndex(name: "notes")
        try await index.indexSearchableItems([makeItem("a", title: "original"), makeItem("b", domain: "mail")])
        await expectInvalidItem({ try await index.indexSearchableItems([self.makeItem("a\0zzz", title: "impostor")]) }, "a\\0zzz")
        await expectInvalidItem({ try await index.indexSearchableItems([self.makeItem("\0hidden")]) }, "\\0hidden")
        await expectInvalidItem({ try await index.indexSearchableItems([self.makeItem("c", domain: "mail\0x")]) }, "domain")
        try await index.deleteSearchableItems(withIdentifiers: ["a\0other"])
        try await index.deleteSearchableItems(withDomainIdentifiers: ["mail\0other"])
        XCTAssertEqual(try ids(index), ["a", "b"], "deleting \"a\\0other\" keeps \"a\"")
        let titles = try IndexInspector(index).items(limit: 10).map { $0.attributeSet.title }
        XCTAssertEqual(titles, ["original", "b"])
        // Index names: "notes\0x" would share a file name with nothing else, but "" and "\0" would; refused.
        let named = CSSearchableIndex(name: "notes\0x")
        await expectInvalidItem({ try await named.indexSearchableItems([self.makeItem("z")]) }, "index name")
    }

    // Item 4
    func testDeletingADomainDeletesItAndItsSubDomainsOnly() async throws {
        let index = CSSearchableIndex(name: "mail")
        try await index.indexSearchableItems([
            makeItem("1", domain: "Mail"), makeItem("2", domain: "Mail.inbox"), makeItem("3", domain: "mail.inbox"),
            makeItem("4", domain: "mail"), makeItem("5", domain: "Mailbox"), makeItem("6", domain: "Mail_x"),
        ])
        XCTAssertEqual(try ids(index, domain: "Mail"), ["1", "2"])
        XCTAssertEqual(try IndexInspector(index).count(domain: "Mail"), 2)
        try await index.deleteSearchableItems(withDomainIdentifiers: ["Mail"])
        XCTAssertEqual(try ids(index), ["3", "4", "5", "6"], "mail.inbox is not a sub-domain of Mail")
    }

    // Item 5. Synchronous, on the main thread: releasing an NSArray nested 10,000 deep recurses in Foundation,
    // which a cooperative thread's smaller stack would not survive (the app's own business, as on Apple's).
    func testDeeplyNestedCustomValuesAreRefusedAtOnce() throws {
        let key = CSCustomAttributeKey(keyName: "com_example_nested", searchable: true, searchableByDefault: false,
                                       unique: false, multiValued: true)!
        let index = CSSearchableIndex(name: "deep")
        for depth in [2, 1_000, 10_000] {
            var swiftValue: Any = "leaf"
            var foundationValue: NSArray = NSArray(object: NSString(string: "leaf"))
            for level in 0..<depth {
                if level < 1_000 { swiftValue = [swiftValue] }
                foundationValue = NSArray(object: foundationValue)
            }
            // Foundation itself bridges a Swift array to NSArray recursively: the Swift form only up to 1,000 deep.
            for value in depth <= 1_000 ? [NSArray(array: [swiftValue]), foundationValue] : [foundationValue] {
                let start = Date()
                let item = makeItem("deep-\(depth)")
                item.attributeSet.setValue(value, forCustomKey: key)
                XCTAssertNil(item.attributeSet.value(forCustomKey: key))
                let error = waitFor { index.indexSearchableItems([item], completionHandler: $0) }
                XCTAssertEqual((error as? CSIndexError)?.code, .invalidItemError, "\(depth) deep: \(String(describing: error))")
                XCTAssertLessThan(Date().timeIntervalSince(start), 5, "\(depth) deep is refused at once")
            }
        }
        XCTAssertEqual(try ids(index), [])
    }

    // Item 7
    func testAQueryFailsWhenAStoreCannotBeOpened() async throws {
        try await CSSearchableIndex(name: "good").indexSearchableItems([makeItem("g", title: "berry")])
        // A store that exists but cannot be opened (here a folder in its place): the query must fail, not return
        // the other stores' results as if they were all.
        let blocked = StoreLocation.storeURL(app: app, indexName: "blocked", root: root)
        try FileManager.default.createDirectory(at: blocked, withIntermediateDirectories: true)
        StoreRegistry.forgetAll()
        var found: [String] = []
        do {
            for try await result in CSSearchQuery(queryString: "title == \"berry\"", queryContext: nil).results {
                found.append(result.id)
            }
            XCTFail("the query succeeded with \(found) although an index could not be opened")
        } catch let error as CSSearchQueryError {
            XCTAssertEqual(error.code, .indexUnreachable, "\(error)")
        }
    }

    // Item 9
    func testAStoreFileThatIsALinkIsNeverWrittenThrough() async throws {
        let victimApp = "com.example.victim"
        let victimURL = StoreLocation.storeURL(app: victimApp, indexName: "private", root: root)
        let victim = try StoreRegistry.store(at: victimURL)
        try victim.apply([.upsert(StoredItem(uniqueIdentifier: "secret", domainIdentifier: nil,
                                             expirationDate: .distantFuture, attributes: ["title": .string("secret")]))])
        let link = StoreLocation.storeURL(app: app, indexName: "linked", root: root)
        try FileManager.default.createDirectory(at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: victimURL.path)
        do {
            try await CSSearchableIndex(name: "linked").indexSearchableItems([makeItem("intruder")])
            XCTFail("indexing through a link succeeded")
        } catch let error as CSIndexError {
            XCTAssertEqual(error.code, .indexUnavailableError)
            XCTAssertTrue(error.localizedDescription.contains("symbolic link"), error.localizedDescription)
        }
        XCTAssertEqual(try victim.listItems(limit: 10).map(\.uniqueIdentifier), ["secret"])
    }
}
