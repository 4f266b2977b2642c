import Foundation
import XCTest
@testable import SpotlightEngine

#if canImport(Glibc)
import Glibc
#endif

/// `AppIndexes` lists an app's indexes from its folder, and keeps a listing while the folder's modification time
/// stays as it was (every query asks): indexes created or removed are seen at once, also within the second of the
/// listing. Real store files on disk.
final class AppIndexesTests: XCTestCase {
    var root: URL!
    let app = "com.example.listing"

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("app-indexes-\(UUID().uuidString)")
        StoreRegistry.forgetAll()
    }

    override func tearDownWithError() throws {
        StoreRegistry.forgetAll()
        try? FileManager.default.removeItem(at: root)
    }

    var folder: String { root.path + "/apps/\(app)/indexes" }

    @discardableResult
    func open(_ name: String) throws -> IndexStore {
        try StoreRegistry.store(app: app, indexName: name, root: root)
    }

    /// Sets the folder's modification time `seconds` back, as a folder last changed that long ago.
    func age(_ seconds: Int) throws {
        var info = stat()
        XCTAssertEqual(stat(folder, &info), 0)
        var times = [timespec(tv_sec: info.st_atim.tv_sec, tv_nsec: info.st_atim.tv_nsec),
                     timespec(tv_sec: time(nil) - seconds, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, folder, &times, 0), 0)
    }

    func testIndexesCreatedAndRemovedAreSeenAtOnce() throws {
        let indexes = AppIndexes(applicationIdentifier: app, root: root)
        XCTAssertEqual(indexes.indexNames(), [], "no folder yet")
        try open(StoreLocation.defaultIndexName)
        try open("a")
        try open("_activities")
        let first = indexes.indexNames()
        XCTAssertEqual(first, ["a", StoreLocation.defaultIndexName].sorted(), "system indexes are not the app's")
        // Within the second of the last change: listed again, whatever the file system's clock did.
        try open("b")
        XCTAssertEqual(indexes.indexNames(), ["a", "b", StoreLocation.defaultIndexName].sorted())

        // A settled folder's listing is kept; a change of the folder is seen.
        try age(10)
        XCTAssertEqual(indexes.indexNames().count, 3)
        try open("c")
        XCTAssertEqual(indexes.indexNames(), ["a", "b", "c", StoreLocation.defaultIndexName].sorted())
        try age(10)
        XCTAssertEqual(indexes.indexNames().count, 4)
        let removed = StoreLocation.storeURL(app: app, indexName: "a", root: root)
        StoreRegistry.forget(removed)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: removed.path + suffix) }
        XCTAssertEqual(indexes.indexNames(), ["b", "c", StoreLocation.defaultIndexName].sorted())
        XCTAssertEqual(try indexes.stores().map(\.name), ["b", "c", StoreLocation.defaultIndexName].sorted())
        XCTAssertEqual(indexes.storesReadableWithoutWaiting()?.map(\.name), ["b", "c", StoreLocation.defaultIndexName].sorted())
    }

    func testASettledListingIsReusedWhileTheFolderIsUnchanged() throws {
        let indexes = AppIndexes(applicationIdentifier: app, root: root)
        try open(StoreLocation.defaultIndexName)
        try age(10)
        XCTAssertEqual(indexes.indexNames(), [StoreLocation.defaultIndexName])
        // A file that appears without the folder's time changing (as a change within one tick of its clock
        // would) is not listed: the listing was reused, not made again.
        var info = stat()
        XCTAssertEqual(stat(folder, &info), 0)
        _ = FileManager.default.createFile(atPath: folder + "/hidden.sqlite", contents: Data())
        var times = [info.st_atim, info.st_mtim]
        XCTAssertEqual(utimensat(AT_FDCWD, folder, &times, 0), 0)
        XCTAssertEqual(indexes.indexNames(), [StoreLocation.defaultIndexName])
        // Any later change of the folder lists it again.
        try open("d")
        XCTAssertEqual(indexes.indexNames(), ["d", "hidden", StoreLocation.defaultIndexName].sorted())
    }

    func testStoresOpensEachListedIndexOnce() throws {
        let indexes = AppIndexes(applicationIdentifier: app, root: root)
        let a = try open("a")
        try age(10)
        let first = try indexes.stores()
        let second = try indexes.stores()
        XCTAssertEqual(first.map(\.name), ["a"])
        XCTAssertTrue(first[0].store === a && second[0].store === a, "the registry's store, found by the listing's key")
    }
}
