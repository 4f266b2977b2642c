import Foundation
import XCTest
import GRDB
@testable import SpotlightEngine

#if canImport(Glibc)
import Glibc
#endif

/// Issue 17: damaged bytes never trap a reader, names never alias, recovery never deletes or overwrites, links are
/// never followed. Real SQLite files on disk.
final class StoreSafetyTests: XCTestCase {
    var directory: URL!
    let now = Date(timeIntervalSinceReferenceDate: 800_000_000)
    var later: Date { now.addingTimeInterval(365 * 86_400) }

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("engine-safety-\(UUID().uuidString)")
        StoreRegistry.forgetAll()
    }

    override func tearDownWithError() throws {
        StoreRegistry.forgetAll()
        try? FileManager.default.removeItem(at: directory)
    }

    func item(_ id: String, title: String = "note", domain: String? = nil,
              custom: [String: AttributeValue] = [:]) -> StoredItem {
        StoredItem(uniqueIdentifier: id, domainIdentifier: domain, expirationDate: later,
                   attributes: ["title": .string(title)],
                   customAttributes: custom.mapValues { CustomAttribute(value: $0) })
    }

    func makeStore(_ name: String = "test") throws -> IndexStore {
        try StoreRegistry.store(at: directory.appendingPathComponent("apps/app/indexes/\(name).sqlite"))
    }

    func ids(_ store: IndexStore, domain: String? = nil) throws -> [String] {
        try store.listItems(domain: domain, limit: 1_000, now: now).map(\.uniqueIdentifier)
    }

    // MARK: - Item 2: the decoder is total

    func assertCorrupt(_ bytes: [UInt8], _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try ValueCodec.decode(bytes), what, file: file, line: line) { error in
            XCTAssertEqual((error as? EngineError)?.code, .corruptIndex, "\(what): \(error)", file: file, line: line)
        }
    }

    func testDecoderRejectsTheRecordsThatCrashedReaders() {
        // One entry, an attribute named "a", a string whose length is 2^64 - 1 (SIGILL: Int(UInt64) trapped).
        assertCorrupt([1, 0, 1, 0x61, 1] + [UInt8](repeating: 0xFF, count: 9) + [0x01], "a length of 0xffff…")
        // A length of 2^63 exactly, and one just past the bytes that remain.
        assertCorrupt([1, 0, 1, 0x61, 1] + [UInt8](repeating: 0x80, count: 9) + [0x01], "a length of 2^63")
        assertCorrupt([1, 0, 1, 0x61, 1, 5, 0x62], "a length past the end")
        // 9 × FF then 7F: a varint of 70 bits (arithmetic overflow).
        assertCorrupt([UInt8](repeating: 0xFF, count: 9) + [0x7F], "9×FF 7F as the entry count")
        assertCorrupt([1, 0, 1, 0x61, 7] + [UInt8](repeating: 0xFF, count: 9) + [0x7F], "9×FF 7F as a data length")
        // Data, person handles, localizations and arrays with huge counts.
        for tag: UInt8 in [7, 9, 10, 11] {
            let prefix: [UInt8] = tag == 9 ? [1, 0, 1, 0x61, tag, 0] : [1, 0, 1, 0x61, tag]
            assertCorrupt(prefix + [UInt8](repeating: 0xFF, count: 9) + [0x01], "huge count for tag \(tag)")
        }
        // Arrays nested 20,000 deep (stack overflow), and just past the limit.
        let deep: [UInt8] = [1, 0, 1, 0x61] + [UInt8]((0..<20_000).flatMap { _ in [11, 1] as [UInt8] }) + [12]
        assertCorrupt(deep, "20,000 nested arrays")
        let limit = AttributeValue.maximumNestingDepth
        let justPast: [UInt8] = [1, 0, 1, 0x61] + [UInt8]((0...limit).flatMap { _ in [11, 1] as [UInt8] }) + [12]
        assertCorrupt(justPast, "nesting one past the limit")
        let atLimit: [UInt8] = [1, 0, 1, 0x61] + [UInt8]((0..<limit).flatMap { _ in [11, 1] as [UInt8] }) + [12]
        XCTAssertNoThrow(try ValueCodec.decode(atLimit), "nesting at the limit decodes")
    }

    func testDoctorCheckDecodesEveryRecord() throws {
        let store = try makeStore()
        try store.apply([.upsert(item("good")), .upsert(item("bad"))], now: now)
        XCTAssertNoThrow(try store.checkIntegrity())
        // One damaged record: SQLite finds nothing wrong with the file, but every reader of "bad" would trap.
        let damaged = Data([1, 0, 1, 0x61, 1] + [UInt8](repeating: 0xFF, count: 9) + [0x01])
        try store.pool.write { try $0.execute(sql: "UPDATE item SET attrs = ? WHERE uid = 'bad'", arguments: [damaged]) }
        XCTAssertThrowsError(try store.item(withIdentifier: "bad", now: now)) {
            XCTAssertEqual(($0 as? EngineError)?.code, .corruptIndex)
        }
        XCTAssertThrowsError(try store.checkIntegrity(), "the check reports the store damaged") {
            XCTAssertEqual(($0 as? EngineError)?.code, .corruptIndex)
            XCTAssertTrue("\($0)".contains("\"bad\""), "\($0)")
        }
    }

    // MARK: - Item 5: deep nesting on the write side

    func testDeeplyNestedValuesAreRefusedBeforeAnythingRecurses() throws {
        let store = try makeStore()
        var value = AttributeValue.string("x")
        for _ in 0..<10_000 { value = .array([value]) }
        let start = Date()
        XCTAssertThrowsError(try store.apply([.upsert(item("deep", custom: ["nested": value]))], now: now)) {
            XCTAssertEqual(($0 as? EngineError)?.code, .invalidItem)
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 5, "refused at once")
        XCTAssertEqual(value.nestingDepth(), AttributeValue.maximumNestingDepth + 1, "counting stops past the limit")
        // Flat arrays (the fast path), empty ones, and an array nested after flat elements.
        XCTAssertEqual(AttributeValue.string("x").nestingDepth(), 0)
        XCTAssertEqual(AttributeValue.array([]).nestingDepth(), 1)
        XCTAssertEqual(AttributeValue.array([.string("a"), .int(1)]).nestingDepth(), 1)
        XCTAssertEqual(AttributeValue.array([.string("a"), .array([.array([])])]).nestingDepth(), 3)
        XCTAssertEqual(AttributeValue.array([.string("a"), .array([.array([])])]).nestingDepth(upTo: 1), 2, "stops past the limit")
        XCTAssertEqual(try ids(store), [])
        // Unwind the value iteratively: releasing 10,000 nested enums at once recurses in the runtime.
        while case .array(let inner) = value, let first = inner.first { value = first }
    }

    // MARK: - Item 3: NUL never truncates

    func testNULIdentifiersAndDomainsAreRefusedAndNeverAlias() throws {
        let store = try makeStore()
        try store.apply([.upsert(item("a", title: "original")), .upsert(item("b", domain: "mail"))], now: now)
        for bad in [item("a\0zzz", title: "impostor"), item("\0hidden"), item("c", domain: "mail\0x")] {
            XCTAssertThrowsError(try store.apply([.upsert(bad)], now: now), bad.uniqueIdentifier.debugDescription) {
                XCTAssertEqual(($0 as? EngineError)?.code, .invalidItem)
            }
        }
        XCTAssertEqual(try store.item(withIdentifier: "a", now: now)?.attributes["title"], .string("original"))
        XCTAssertNil(try store.item(withIdentifier: "a\0zzz", now: now), "a NUL lookup does not find \"a\"")
        try store.apply([.delete(identifiers: ["a\0other"]), .deleteDomains(["mail\0other"])], now: now)
        XCTAssertEqual(try ids(store), ["a", "b"], "deleting \"a\\0other\" does not delete \"a\"")
        XCTAssertEqual(try store.count(domain: "mail\0other", now: now), 0)
        XCTAssertEqual(try ids(store, domain: "mail\0other"), [])
        XCTAssertThrowsError(try StoreRegistry.store(app: "app", indexName: "notes\0x", root: directory)) {
            XCTAssertEqual(($0 as? EngineError)?.code, .invalidItem)
        }
    }

    // MARK: - Item 4: domains match exactly, sub-domains by a case-sensitive prefix

    func testDomainDeletionCountingAndListingAgree() throws {
        let store = try makeStore()
        let domains = ["Mail", "Mail.inbox", "Mail.inbox.today", "mail", "mail.inbox", "Mailbox", "Mail_x", "Mail%",
                       "Mail%.a", "é", "é.x", "éa", "Mail/x"]
        try store.apply(domains.enumerated().map { .upsert(item("i\($0.offset)", domain: $0.element)) }, now: now)
        func inDomain(_ d: String) -> Set<String> {
            Set(domains.enumerated().filter { $0.element == d || $0.element.hasPrefix(d + ".") }.map { "i\($0.offset)" })
        }
        for domain in ["Mail", "mail", "é", "Mail%", "Mail.inbox"] {
            XCTAssertEqual(Set(try ids(store, domain: domain)), inDomain(domain), "listing \(domain)")
            XCTAssertEqual(try store.count(domain: domain, now: now), inDomain(domain).count, "counting \(domain)")
        }
        try store.apply([.deleteDomains(["Mail"])], now: now)
        XCTAssertEqual(Set(try ids(store)), Set(domains.indices.map { "i\($0)" }).subtracting(inDomain("Mail")),
                       "deleting Mail keeps mail, mail.inbox, Mailbox, Mail_x, Mail%")
        try store.apply([.deleteDomains(["é", "Mail%"])], now: now)
        XCTAssertEqual(Set(try ids(store)), ["i3", "i4", "i5", "i6", "i11", "i12"])
    }

    // MARK: - Item 1: recovery moves aside, uniquely, and never deletes

    /// The root and each store's place are remembered between calls, but follow the environment as it changes
    /// within the process (a relative root, against the current directory, at every call), and name the files
    /// that building them from their components names.
    func testStoreLocationsFollowTheEnvironmentAndMatchTheirComponents() throws {
        let names = ["OPENSPOTLIGHT_HOME", "XDG_DATA_HOME"]
        let saved = names.map { name in getenv(name).map { String(cString: $0) } }
        defer {
            for (name, value) in zip(names, saved) {
                if let value { setenv(name, value, 1) } else { unsetenv(name) }
            }
            // (Tests leave no override between them: each that sets one resets it.)
            StoreLocation.resetRootDirectory()
        }
        StoreLocation.resetRootDirectory()
        let first = directory.appendingPathComponent("first").path, second = directory.appendingPathComponent("second").path
        setenv("OPENSPOTLIGHT_HOME", first, 1)
        XCTAssertEqual(StoreLocation.rootDirectory.path, first)
        XCTAssertEqual(StoreRegistry.location(app: "org.example.a", indexName: "notes").url.path,
                       first + "/apps/org.example.a/indexes/notes.sqlite")
        setenv("OPENSPOTLIGHT_HOME", second, 1)
        XCTAssertEqual(StoreLocation.rootDirectory.path, second)
        XCTAssertEqual(StoreRegistry.location(app: "org.example.a", indexName: "notes").url.path,
                       second + "/apps/org.example.a/indexes/notes.sqlite")
        setenv("OPENSPOTLIGHT_HOME", "", 1)
        setenv("XDG_DATA_HOME", first, 1)
        XCTAssertEqual(StoreLocation.rootDirectory.path, first + "/openspotlight")
        setenv("OPENSPOTLIGHT_HOME", "relative-root", 1)
        XCTAssertEqual(StoreLocation.rootDirectory.path, URL(fileURLWithPath: "relative-root", isDirectory: true).path)
        // An override wins over the environment, and is forgotten by a reset.
        StoreLocation.rootDirectory = directory
        XCTAssertEqual(StoreLocation.rootDirectory, directory)
        StoreLocation.resetRootDirectory()
        XCTAssertEqual(StoreLocation.rootDirectory.path, URL(fileURLWithPath: "relative-root", isDirectory: true).path)
        // Names that need encoding, and an explicit root, name the file the components name.
        for (app, index) in [("org.example.a", "_default"), ("a/b", ".."), ("ünï", "名前"), ("x%2Fy", "a b")] {
            let remembered = StoreRegistry.location(app: app, indexName: index, root: directory)
            let built = StoreLocation.storeURL(app: app, indexName: index, root: directory)
            XCTAssertEqual(remembered.url, built, "\(app) \(index)")
            XCTAssertEqual(remembered.key, built.standardizedFileURL.path)
            XCTAssertEqual(StoreRegistry.location(app: app, indexName: index, root: directory).url, built)
            XCTAssertTrue(remembered.url.path.hasPrefix(directory.path + "/apps/"), remembered.url.path)
        }
    }

    func testMoveAsideNeverOverwritesAnEarlierRescue() throws {
        let url = directory.appendingPathComponent("apps/app/indexes/test.sqlite")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        var rescued: [URL] = []
        for content in ["first damaged store", "second damaged store", "third"] {
            try Data(content.utf8).write(to: url)
            try Data("wal of \(content)".utf8).write(to: URL(fileURLWithPath: url.path + "-wal"))
            rescued.append(try StoreRecovery.moveAside(url, reason: "test", now: now).movedTo)  // the same second
        }
        XCTAssertEqual(Set(rescued).count, 3)
        XCTAssertEqual(try rescued.map { try String(contentsOf: $0, encoding: .utf8) },
                       ["first damaged store", "second damaged store", "third"])
        XCTAssertEqual(try String(contentsOfFile: rescued[0].path + "-wal", encoding: .utf8), "wal of first damaged store")
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path))
        let log = try String(contentsOf: url.deletingLastPathComponent().appendingPathComponent("recovery.log"), encoding: .utf8)
        XCTAssertEqual(log.split(separator: "\n").count, 3)
    }

    func testAStoreThatCannotBeMovedAsideStaysInPlace() throws {
        // A file name so long that no longer name fits (NAME_MAX): every rename fails, as on a file system
        // that refuses it. The damaged store must stay, byte for byte, and the error must say why.
        let name = String(repeating: "n", count: 220)
        let url = directory.appendingPathComponent("apps/app/indexes/\(name).sqlite")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let garbage = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try garbage.write(to: url)
        try Data("wal".utf8).write(to: URL(fileURLWithPath: url.path + "-wal"))
        XCTAssertThrowsError(try StoreRecovery.moveAside(url, reason: "test")) { error in
            XCTAssertEqual((error as? EngineError)?.code, .indexUnavailable, "\(error)")
            XCTAssertTrue("\(error)".contains("left in place"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: url), garbage)
        XCTAssertEqual(try String(contentsOfFile: url.path + "-wal", encoding: .utf8), "wal", "the WAL is where it was")
        var left = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        XCTAssertEqual(Set(left), ["\(name).sqlite", "\(name).sqlite-wal"])
        // Opening it finds the damage, cannot move it aside, and fails without replacing it.
        XCTAssertThrowsError(try StoreRecovery.openStore(app: "app", indexName: name, root: directory)) { error in
            XCTAssertEqual((error as? EngineError)?.code, .indexUnavailable, "\(error)")
            XCTAssertTrue("\(error)".contains("left in place"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: url), garbage)
        left = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        XCTAssertFalse(left.contains { $0.contains("damaged") }, "\(left)")
    }

    func testOpenStoreRecoversDamageButNotOtherFailures() throws {
        let url = directory.appendingPathComponent("apps/app/indexes/test.sqlite")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(repeating: 0x42, count: 8192).write(to: url)
        let (store, rescue) = try StoreRecovery.openStore(app: "app", indexName: "test", root: directory)
        XCTAssertNotNil(rescue)
        XCTAssertEqual(try store.count(now: now), 0)
        XCTAssertEqual(try Data(contentsOf: rescue!.movedTo), Data(repeating: 0x42, count: 8192))
        // A directory where the store belongs cannot be opened, but is not damage: left alone.
        StoreRegistry.forgetAll()
        let other = directory.appendingPathComponent("apps/app/indexes/folder.sqlite")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        XCTAssertThrowsError(try StoreRecovery.openStore(app: "app", indexName: "folder", root: directory))
        var isDirectory: ObjCBool = false
        XCTAssertTrue(FileManager.default.fileExists(atPath: other.path, isDirectory: &isDirectory) && isDirectory.boolValue)
    }

    // MARK: - Item 9: links are never followed

    func testSymbolicLinksToStoresAreRefused() throws {
        let victim = try makeStore("victim")
        try victim.apply([.upsert(item("private", title: "secret"))], now: now)
        let indexes = directory.appendingPathComponent("apps/app/indexes")
        // The store of another name is a link to the victim's store: opening it must not reach the victim.
        try FileManager.default.createSymbolicLink(atPath: indexes.appendingPathComponent("link.sqlite").path,
                                                   withDestinationPath: victim.url.path)
        XCTAssertThrowsError(try StoreRegistry.store(app: "app", indexName: "link", root: directory)) {
            XCTAssertEqual(($0 as? EngineError)?.code, .indexUnavailable)
            XCTAssertTrue("\($0)".contains("symbolic link"), "\($0)")
        }
        // An app folder that is a link to a folder outside the root: nothing is created through it.
        let outside = directory.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("apps/evil").path,
                                                   withDestinationPath: outside.path)
        XCTAssertThrowsError(try StoreRegistry.store(app: "evil", indexName: "x", root: directory))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside.path), [])
        // A dangling link in the store's place is not created through either.
        try FileManager.default.createSymbolicLink(atPath: indexes.appendingPathComponent("dangling.sqlite").path,
                                                   withDestinationPath: outside.appendingPathComponent("made.sqlite").path)
        XCTAssertThrowsError(try StoreRegistry.store(app: "app", indexName: "dangling", root: directory))
        XCTAssertFalse(FileManager.default.fileExists(atPath: outside.appendingPathComponent("made.sqlite").path))
        XCTAssertEqual(try ids(victim), ["private"])
    }

    func testRecoveryLogThatIsALinkIsNotWrittenThrough() throws {
        let url = directory.appendingPathComponent("apps/app/indexes/test.sqlite")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let outside = directory.appendingPathComponent("outside.txt")
        try Data("untouched".utf8).write(to: outside)
        try FileManager.default.createSymbolicLink(atPath: url.deletingLastPathComponent().appendingPathComponent("recovery.log").path,
                                                   withDestinationPath: outside.path)
        try Data("damaged".utf8).write(to: url)
        let rescue = try StoreRecovery.moveAside(url, reason: "test", now: now)
        XCTAssertEqual(try String(contentsOf: rescue.movedTo, encoding: .utf8), "damaged")
        XCTAssertEqual(try String(contentsOf: outside, encoding: .utf8), "untouched")
    }
}
