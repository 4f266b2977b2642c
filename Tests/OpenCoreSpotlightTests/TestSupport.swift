import Foundation
import XCTest
@testable import OpenCoreSpotlight
import SpotlightEngine

/// A test case whose indexes live in a fresh temporary directory, for a fresh app identifier.
class IndexTestCase: XCTestCase {
    var root: URL!
    var app: String!

    override func setUp() {
        super.setUp()
        root = FileManager.default.temporaryDirectory.appendingPathComponent("openspotlight-tests-\(UUID().uuidString)")
        app = "com.example.tests.\(UUID().uuidString.prefix(8))"
        StoreRegistry.forgetAll()
        OpenSpotlight.setRootDirectory(root)
        OpenSpotlight.configure(applicationIdentifier: app)
    }

    override func tearDown() {
        StoreRegistry.forgetAll()
        OpenSpotlight.setRootDirectory(nil)
        OpenSpotlight.resetApplicationIdentifier()
        try? FileManager.default.removeItem(at: root)
        super.tearDown()
    }

    func makeItem(_ id: String, title: String? = nil, domain: String? = nil, description: String? = nil,
                  keywords: [String]? = nil) -> CSSearchableItem {
        let set = CSSearchableItemAttributeSet(contentType: .text)
        set.title = title ?? id
        set.contentDescription = description
        set.keywords = keywords
        return CSSearchableItem(uniqueIdentifier: id, domainIdentifier: domain, attributeSet: set)
    }

    func ids(_ index: CSSearchableIndex, domain: String? = nil) throws -> [String] {
        try IndexInspector(index).items(domain: domain, limit: 10_000).map(\.uniqueIdentifier)
    }

    /// Calls a completion-handler API and waits for it.
    func waitFor(_ body: (@escaping @Sendable ((any Error)?) -> Void) -> Void, file: StaticString = #filePath,
               line: UInt = #line) -> (any Error)? {
        let done = expectation(description: "completion")
        let box = ErrorBox()
        body { error in
            box.set(error)
            done.fulfill()
        }
        wait(for: [done], timeout: 30)
        return box.get()
    }

    /// The directory of the built products (where the test helper executable is).
    static var productsDirectory: URL {
        var candidates: [URL] = []
        for arg in [CommandLine.arguments.first, Bundle.main.executablePath].compactMap({ $0 }) {
            var url = URL(fileURLWithPath: arg)
            for _ in 0..<4 {
                url.deleteLastPathComponent()
                candidates.append(url)
            }
        }
        for bundle in Bundle.allBundles { candidates.append(bundle.bundleURL.deletingLastPathComponent()) }
        for dir in candidates where FileManager.default.fileExists(atPath: dir.appendingPathComponent("openspotlight-test-helper").path) {
            return dir
        }
        return candidates.first ?? URL(fileURLWithPath: ".")
    }
}

final class ErrorBox: @unchecked Sendable {
    private let lock = NSLock()
    private var error: (any Error)?
    func set(_ e: (any Error)?) { lock.lock(); error = e; lock.unlock() }
    func get() -> (any Error)? { lock.lock(); defer { lock.unlock() }; return error }
}

/// What a test needs and cannot find (a built helper, the corpus): the test fails with this, it is never skipped.
struct TestPrerequisiteMissing: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
