import Foundation
import XCTest
import OpenCoreSpotlight
import SpotlightEngine
@testable import SpotlightSystem

#if canImport(Glibc)
import Glibc
#endif

/// Issue 17 through the built `spotlight` command: recovery never deletes an index, keeps every app's rescued
/// copy apart, leaves in place what it cannot move; permission problems are reported, never repaired; a store
/// this user may only read is searchable; registrations are private and never read through links.
final class RecoverySafetyTests: SystemTestCase {
    /// Creates an app's index with one item, closes it, and fills it with bytes unique to it (damage).
    @discardableResult
    func damagedIndex(app: String, index: String = "_default", seed: UInt8) throws -> Data {
        let store = try StoreRegistry.store(app: app, indexName: index, root: home)
        try store.apply([.upsert(StoredItem(uniqueIdentifier: "x", domainIdentifier: nil, expirationDate: .distantFuture,
                                            attributes: ["title": .string("x")]))])
        StoreRegistry.forgetAll()
        let url = storeURL(app: app, index: index)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(seed)) })
        try garbage.write(to: url)
        return garbage
    }

    /// Every file in the folder of an index whose name says it was moved aside, with its contents.
    func rescued(app: String, index: String = "_default") throws -> [Data] {
        let folder = storeURL(app: app, index: index).deletingLastPathComponent()
        return try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasPrefix("\(index).sqlite.damaged-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }
            .map { try Data(contentsOf: folder.appendingPathComponent($0)) }
    }

    /// A regular file where the old quarantine folder of `app` would go: creating the folder fails.
    func blockOldQuarantine(_ app: String) throws {
        let quarantine = home.appendingPathComponent("system/quarantine")
        try FileManager.default.createDirectory(at: quarantine, withIntermediateDirectories: true)
        try Data("in the way".utf8).write(to: quarantine.appendingPathComponent(SpotlightApp.desktopFileID(app)))
    }

    // MARK: - Item 1

    func testDoctorKeepsEveryDamagedIndexEvenForAppsSharingAFolderName() throws {
        // Three identifiers that the old quarantine folder name (the desktop file ID) mapped to one folder.
        let apps = ["com.ex/notes", "com.ex_notes", "com.ex notes"]
        XCTAssertEqual(Set(apps.map(SpotlightApp.desktopFileID)).count, 1, "the collision this test is about")
        var damaged: [String: Data] = [:]
        for (i, app) in apps.enumerated() {
            damaged[app] = try damagedIndex(app: app, seed: UInt8(i + 1))
        }
        try blockOldQuarantine(apps[0])
        let output = try run("spotlight", ["doctor", "--json"])
        let report = try JSONDecoder.iso.decode(IndexDoctor.Report.self, from: Data(output.stdout.utf8))
        for app in apps {
            let entry = report.indexes.first { $0.applicationIdentifier == app && $0.indexName == "_default" }
            XCTAssertEqual(entry?.status, .corrupt, app)
            XCTAssertEqual(entry?.action, .reset, app)
            XCTAssertEqual(try rescued(app: app), [damaged[app]!], "\(app): its own damaged copy is kept, byte for byte")
        }
        // A second round of damage in the same second keeps both copies.
        let again = try damagedIndex(app: apps[1], seed: 99)
        _ = try run("spotlight", ["doctor", "--json"])
        XCTAssertEqual(Set(try rescued(app: apps[1])), [damaged[apps[1]]!, again])
    }

    func testSearchMovesADamagedIndexAsideEvenWhenTheOldQuarantineIsBlocked() throws {
        let app = "com.example.blocked"
        let garbage = try damagedIndex(app: app, seed: 5)
        try blockOldQuarantine(app)
        let output = try run("spotlight", ["search", "anything", "--json"])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertEqual(try rescued(app: app), [garbage], "the damaged index is kept aside, not deleted")
    }

    func testDoctorLeavesAnIndexItCannotMoveAsideInPlace() throws {
        // No longer name fits beside this one (NAME_MAX), so every move fails, as on a file system refusing it.
        let app = "com.example.stuck"
        let name = String(repeating: "n", count: 220)
        let garbage = try damagedIndex(app: app, index: name, seed: 3)
        let output = try run("spotlight", ["doctor", "--json"])
        XCTAssertEqual(output.status, 1, "an unresolved problem: \(output.stdout)")
        let report = try JSONDecoder.iso.decode(IndexDoctor.Report.self, from: Data(output.stdout.utf8))
        let entry = try XCTUnwrap(report.indexes.first { $0.indexName == name })
        XCTAssertEqual(entry.status, .corrupt)
        XCTAssertEqual(entry.action, .unavailable)
        XCTAssertTrue(entry.message?.contains("left in place") == true, entry.message ?? "")
        XCTAssertEqual(try Data(contentsOf: storeURL(app: app, index: name)), garbage, "untouched")
        // A search does not delete it either; it says the index cannot be searched.
        let search = try run("spotlight", ["search", "anything"])
        XCTAssertEqual(try Data(contentsOf: storeURL(app: app, index: name)), garbage)
        XCTAssertTrue(search.stderr.contains(app), search.stderr)
    }

    // MARK: - Item 6 (as another user when the tests run as root, whom file modes do not stop)

    var isRoot: Bool { getuid() == 0 }
    let nobody: UInt32 = 65_534

    /// Runs a product as an unprivileged user: `nobody` when the tests run as root (after giving it this test's
    /// files), else this user.
    func runUnprivileged(_ product: String, _ arguments: [String]) throws -> Output {
        guard isRoot else { return try run(product, arguments) }
        // A copy of the program in this test's folder: the build folder may sit where `nobody` cannot go.
        let bin = temporary.appendingPathComponent("bin", isDirectory: true)
        let program = bin.appendingPathComponent(product)
        if !FileManager.default.fileExists(atPath: program.path) {
            try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Self.productsDirectory.appendingPathComponent(product), to: program)
            for path in [temporary.path, bin.path, program.path] { _ = chmod(path, 0o755) }
        }
        return try run(executable: URL(fileURLWithPath: "/usr/bin/setpriv"),
                       ["--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", "--", program.path] + arguments,
                       environment: ["HOME": temporary.path])
    }

    /// Gives every file of this test to `nobody` (as root), so that it is "this user" for `runUnprivileged`.
    func handOverFiles() throws {
        guard isRoot else { return }
        _ = chmod(temporary.path, 0o755)
        let paths = [temporary.path] + (FileManager.default.subpaths(atPath: temporary.path) ?? [])
            .map { temporary.appendingPathComponent($0).path }
        for path in paths { XCTAssertEqual(lchown(path, nobody, nobody), 0, path) }
    }

    func indexedColleagues() throws -> URL {
        try succeed("colleagues", ["setting", "all-records"])
        XCTAssertEqual(try search("engineering").results.count, 6)
        StoreRegistry.forgetAll()
        return storeURL(app: "com.example.colleagues", index: "_default")
    }

    func testIndexThatCanOnlyBeReadIsSearchableAndNeverRepaired() throws {
        let url = try indexedColleagues()
        try handOverFiles()
        let before = try Data(contentsOf: url)
        for suffix in ["", "-wal", "-shm"] { _ = chmod(url.path + suffix, 0o400) }

        let search = try runUnprivileged("spotlight", ["search", "engineering", "--json"])
        XCTAssertEqual(search.status, 0, search.stderr)
        let outcome = try JSONDecoder.iso.decode(SystemSearch.Outcome.self, from: Data(search.stdout.utf8))
        XCTAssertEqual(outcome.results.count, 6, "\(outcome.problems)")
        XCTAssertEqual(outcome.problems, [])

        let query = try runUnprivileged("openspotlight-test-helper", ["query", "com.example.colleagues", "_default", "keywords == \"Engineering\""])
        XCTAssertEqual(query.status, 0, query.stderr)
        XCTAssertEqual(query.stdout.split(separator: "\n").count, 6, query.stdout + query.stderr)

        let doctor = try runUnprivileged("spotlight", ["doctor", "--json"])
        let report = try JSONDecoder.iso.decode(IndexDoctor.Report.self, from: Data(doctor.stdout.utf8))
        let entry = report.indexes.first { $0.applicationIdentifier == "com.example.colleagues" && $0.indexName == "_default" }
        XCTAssertEqual(entry?.status, .ok, doctor.stdout + doctor.stderr)
        XCTAssertEqual(entry?.action, IndexDoctor.Action.none)
        XCTAssertEqual(try Data(contentsOf: url), before, "the index is untouched")
    }

    func testIndexThisUserMayNotReadIsReportedNotQuarantined() throws {
        let url = try indexedColleagues()
        try handOverFiles()
        let before = try Data(contentsOf: url)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: url.path + suffix) {
            // Another user's file (root's, 0600) when running as root; a file of mode 000 otherwise.
            if isRoot { XCTAssertEqual(lchown(url.path + suffix, 0, 0), 0) } else { _ = chmod(url.path + suffix, 0) }
        }

        let doctor = try runUnprivileged("spotlight", ["doctor", "--json"])
        XCTAssertEqual(doctor.status, 1, "reported as a problem: \(doctor.stdout)")
        let report = try JSONDecoder.iso.decode(IndexDoctor.Report.self, from: Data(doctor.stdout.utf8))
        let entry = report.indexes.first { $0.applicationIdentifier == "com.example.colleagues" && $0.indexName == "_default" }
        XCTAssertEqual(entry?.status, .permissionDenied, doctor.stdout)
        XCTAssertEqual(entry?.action, .reported)
        XCTAssertTrue(entry?.message?.contains("permission denied") == true, entry?.message ?? "")
        XCTAssertEqual(try Data(contentsOf: url), before, "never moved aside or reset")
        XCTAssertEqual(try rescued(app: "com.example.colleagues"), [])

        let search = try runUnprivileged("spotlight", ["search", "engineering"])
        XCTAssertTrue(search.stderr.contains("com.example.colleagues/_default") && search.stderr.contains("permission denied"),
                      search.stderr)
        let query = try runUnprivileged("openspotlight-test-helper", ["query", "com.example.colleagues", "_default", "keywords == \"Engineering\""])
        XCTAssertEqual(query.status, 3, "CSSearchQuery fails instead of skipping the index: \(query.stdout) \(query.stderr)")
        XCTAssertTrue(query.stderr.contains("permission denied"), query.stderr)
        XCTAssertEqual(try Data(contentsOf: url), before)
    }

    // MARK: - Item 9: registrations

    func testRegistrationsArePrivateWhateverTheUmaskAndNeverReadThroughLinks() throws {
        let saved = umask(0)
        defer { umask(saved) }
        let app = try SpotlightApp.register(applicationIdentifier: "com.example.umask", displayName: "Umask",
                                            executable: URL(fileURLWithPath: "/bin/true"))
        let file = try XCTUnwrap(app.desktopFile)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int, 0o600)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: file.deletingLastPathComponent().path)[.posixPermissions] as? Int, 0o700)

        // A registration that is a link (to a file someone else may write) is not read, and registering
        // replaces the link instead of writing through it.
        let elsewhere = temporary.appendingPathComponent("elsewhere.desktop")
        let text = try String(contentsOf: file, encoding: .utf8).replacingOccurrences(of: "com.example.umask", with: "com.example.linked")
        try text.write(to: elsewhere, atomically: true, encoding: .utf8)
        let link = file.deletingLastPathComponent().appendingPathComponent("com.example.linked.desktop")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: elsewhere.path)
        XCTAssertNil(SpotlightApp.registered("com.example.linked"))
        try SpotlightApp.register(applicationIdentifier: "com.example.linked", displayName: "Changed",
                                  executable: URL(fileURLWithPath: "/bin/true"))
        XCTAssertEqual(try String(contentsOf: elsewhere, encoding: .utf8), text, "the link's target is untouched")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: link.path)[.type] as? FileAttributeType, .typeRegular)
        XCTAssertEqual(SpotlightApp.registered("com.example.linked")?.displayName, "Changed")
    }
}
