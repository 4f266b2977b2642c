import Foundation
import XCTest
import OpenCoreSpotlight
@testable import SpotlightSystem

/// The less-travelled paths of `spotlight` and the samples (issue 14), through the built binaries.
final class CommandHardeningTests: SystemTestCase {
    /// `spotlight reindex smoothies` rebuilds Smoothies' own index; it used to ask for `_default`, which the app
    /// filled with a second copy of the menu.
    func testReindexAsksForTheAppsOwnIndexesAndNeverDuplicates() throws {
        try succeed("smoothies", ["list"])
        let reindexed = try succeed("spotlight", ["reindex", "smoothies"])
        XCTAssertEqual(reindexed.stdout, "Smoothies reindexed smoothies.\n")
        let apps = AppInventory.apps(root: home).first { $0.applicationIdentifier == "com.example.smoothies" }
        XCTAssertEqual(apps?.indexes.map(\.name), ["smoothies"], "no second index")
        let berry = try search("berry")
        XCTAssertEqual(berry.results.count, Set(berry.results.map(\.identifier)).count, "no smoothie twice")

        let refused = try run("spotlight", ["reindex", "smoothies", "--index", "_default"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("Smoothies has no index \"_default\"; its indexes are: smoothies"), refused.stderr)
    }

    /// A forgotten index stays forgotten: the system does not "rebuild" it on the next search.
    func testForgetAnIndexAndAnApp() throws {
        try succeed("smoothies", ["list"])
        // An index made by mistake (what the old `spotlight reindex` did).
        OpenSpotlight.configure(applicationIdentifier: "com.example.smoothies")
        let stray = expectation(description: "stray")
        CSSearchableIndex.default().indexSearchableItems([CSSearchableItem(uniqueIdentifier: "berry-blue", domainIdentifier: nil,
                                                                           attributeSet: CSSearchableItemAttributeSet())]) { _ in stray.fulfill() }
        wait(for: [stray], timeout: 30)
        _ = try search("berry")  // the system now knows the stray index too
        let needsYes = try run("spotlight", ["forget", "smoothies", "--index", "_default"])
        XCTAssertEqual(needsYes.status, 1)
        XCTAssertTrue(needsYes.stderr.contains("run again with --yes"), needsYes.stderr)

        let forgot = try succeed("spotlight", ["forget", "smoothies", "--index", "_default", "--yes"])
        XCTAssertTrue(forgot.stdout.hasPrefix("Forgot the index \"_default\" of Smoothies: 1 item"), forgot.stdout)
        _ = try search("berry")
        XCTAssertEqual(AppInventory.indexNames(of: "com.example.smoothies", root: home), ["smoothies"],
                       "a search does not rebuild a forgotten index")

        let all = try succeed("spotlight", ["forget", "smoothies", "--yes"])
        XCTAssertTrue(all.stdout.contains("Forgot Smoothies (com.example.smoothies): 1 index (smoothies), 16 items"), all.stdout)
        XCTAssertTrue(all.stdout.contains("its registration"), all.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dataHome.appendingPathComponent("applications/com.example.smoothies.desktop").path))
        XCTAssertEqual(try search("berry").results, [])
        let unknown = try run("spotlight", ["forget", "smoothies", "--yes"])
        XCTAssertEqual(unknown.status, 1, "a forgotten app is unknown")
    }

    /// Unknown apps are named as such, not reported as "nothing indexed" or "no match".
    func testUnknownAppIsAnError() throws {
        try succeed("colleagues", ["setting", "all-records"])
        for arguments in [["brent", "--app", "nosuch"], ["query", "title == \"*\"", "--app", "nosuch"]] {
            let output = try run("spotlight", arguments)
            XCTAssertEqual(output.status, 1, arguments.joined(separator: " "))
            XCTAssertTrue(output.stderr.contains("no app named \"nosuch\" has indexes or is registered; the apps are: Colleagues (com.example.colleagues)"),
                          output.stderr)
            XCTAssertEqual(output.stdout, "")
        }
    }

    /// Result numbers belong to the terminal session that searched.
    func testResultNumbersBelongToTheirSession() throws {
        try succeed("colleagues", ["setting", "all-records"])
        let first = ["OPENSPOTLIGHT_SESSION": "terminal-1"], second = ["OPENSPOTLIGHT_SESSION": "terminal-2"]
        try succeed("spotlight", ["ava", "thompson"], environment: first)
        try succeed("spotlight", ["brent", "reid"], environment: second)
        let opened = try succeed("spotlight", ["open", "1"], environment: first)
        XCTAssertTrue(opened.stdout.contains("Ava Thompson"), opened.stdout)
        let other = try succeed("spotlight", ["open", "1"], environment: second)
        XCTAssertTrue(other.stdout.contains("Brent Reid"), other.stdout)
        let none = try run("spotlight", ["open", "1"], environment: ["OPENSPOTLIGHT_SESSION": "terminal-3"])
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.stderr.contains("no previous search in this terminal"), none.stderr)
    }

    /// A search whose numbered list cannot be saved leaves no older list for `open N` to act on.
    func testAListThatCannotBeSavedNeverLeavesAnOlderOne() throws {
        setenv("XDG_RUNTIME_DIR", runtimeDirectory.path, 1)
        setenv("OPENSPOTLIGHT_SESSION", "unit", 1)
        defer { unsetenv("OPENSPOTLIGHT_SESSION") }
        let older = SystemSearch.Outcome(query: "ava", apps: [], repairs: [], problems: [], somethingIndexed: true, date: Date())
        try LastSearch.save(older, root: home)
        XCTAssertEqual(LastSearch.load(root: home)?.query, "ava")
        // The list's file cannot be replaced (a directory stands where it is).
        let file = LastSearch.url(root: home)
        try FileManager.default.removeItem(at: file)
        try FileManager.default.createDirectory(at: file.appendingPathComponent("blocker"), withIntermediateDirectories: true)
        let newer = SystemSearch.Outcome(query: "brent", apps: [], repairs: [], problems: [], somethingIndexed: true, date: Date())
        XCTAssertThrowsError(try LastSearch.save(newer, root: home)) { error in
            XCTAssertTrue("\(error)".contains("could not be saved"), "\(error)")
        }
        XCTAssertNil(LastSearch.load(root: home))
        XCTAssertThrowsError(try LastSearch.result(1, root: home))
    }

    /// With `XDG_DATA_HOME` and `OPENSPOTLIGHT_HOME` unset, data goes under `$HOME`, not the account's home.
    func testDataFollowsHOME() throws {
        let fakeHome = temporary.appendingPathComponent("somebody")
        try FileManager.default.createDirectory(at: fakeHome, withIntermediateDirectories: true)
        let environment = ["HOME": fakeHome.path, "OPENSPOTLIGHT_HOME": "", "XDG_DATA_HOME": ""]
        try succeed("colleagues", ["view", "Brent Reid"], environment: environment)
        let store = fakeHome.appendingPathComponent(".local/share/openspotlight/apps/com.example.colleagues/indexes/_activities.sqlite")
        XCTAssertTrue(FileManager.default.fileExists(atPath: store.path), "the activity is under $HOME")
        XCTAssertTrue(FileManager.default.fileExists(
            atPath: fakeHome.appendingPathComponent(".local/share/applications/com.example.colleagues.desktop").path))
        let found = try succeed("spotlight", ["brent"], environment: environment)
        XCTAssertTrue(found.stdout.contains("Brent Reid"), found.stdout)
    }

    /// System.md's walkthrough: a colleague viewed before All Records is one result after it, not two.
    func testAnActivityMergesWithItsItemIndexedLater() throws {
        try succeed("colleagues", ["view", "Brent Reid"])
        try succeed("colleagues", ["setting", "all-records"])
        let outcome = try search("engineering")
        XCTAssertEqual(outcome.results.filter { $0.title == "Brent Reid" }.count, 1, "\(outcome.results.map(\.title))")
        let brent = try XCTUnwrap(outcome.results.first { $0.title == "Brent Reid" })
        XCTAssertEqual(brent.kind, "item")
        XCTAssertEqual(brent.visitCount, 1, "the visit before All Records still counts")
    }

    /// The demo keeps to its own directory: `--help` indexes nothing, a run never reaches machine-wide search,
    /// and `--cleanup` removes what it made.
    func testTheDemoStaysApartAndCleansUp() throws {
        let fakeHome = temporary.appendingPathComponent("demo-home")
        try FileManager.default.createDirectory(at: fakeHome, withIntermediateDirectories: true)
        let environment = ["HOME": fakeHome.path, "OPENSPOTLIGHT_HOME": "", "XDG_CACHE_HOME": "",
                           "OPENSPOTLIGHT_DATA": temporary.appendingPathComponent("no-corpus").path]
        let help = try succeed("spotlight-demo", ["--help"], environment: environment)
        XCTAssertTrue(help.stdout.hasPrefix("usage: spotlight-demo"), help.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: fakeHome.path), [], "--help writes nothing")

        let ran = try succeed("spotlight-demo", ["vim"], environment: environment)
        XCTAssertTrue(ran.stdout.contains("vim — Vi IMproved"), ran.stdout)
        XCTAssertTrue(ran.stderr.contains("apart from your apps' search"), ran.stderr)
        XCTAssertFalse(ran.stdout.contains("Indexing"), "progress goes to standard error")
        let index = fakeHome.appendingPathComponent(".cache/openspotlight-demo/apps/org.openspotlight.demo/indexes/debian.sqlite")
        XCTAssertTrue(FileManager.default.fileExists(atPath: index.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: fakeHome.appendingPathComponent(".local").path),
                       "nothing in the machine-wide index or registrations")
        let machine = try succeed("spotlight", ["vim"], environment: ["HOME": fakeHome.path, "OPENSPOTLIGHT_HOME": "", "XDG_DATA_HOME": ""])
        XCTAssertFalse(machine.stdout.contains("Vi IMproved"), machine.stdout)

        let cleaned = try succeed("spotlight-demo", ["--cleanup"], environment: environment)
        XCTAssertTrue(cleaned.stdout.hasPrefix("Removed the demo's index"), cleaned.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: index.path))
    }

    /// The samples' registrations pass the freedesktop validator and stay out of application menus.
    func testDesktopEntriesAreValid() throws {
        try succeed("colleagues", ["list"])
        try succeed("smoothies", ["list"])
        let validator = ["/usr/bin/desktop-file-validate", "/usr/local/bin/desktop-file-validate"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let validator else {
            return XCTFail("desktop-file-validate is missing: scripts/bootstrap.sh installs desktop-file-utils")
        }
        for app in ["com.example.colleagues", "com.example.smoothies"] {
            let file = dataHome.appendingPathComponent("applications/\(app).desktop")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: validator)
            process.arguments = [file.path]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, output)
            XCTAssertEqual(output, "", "no warnings either")
            let entry = DesktopEntry(parsing: try String(contentsOf: file, encoding: .utf8))
            XCTAssertEqual(entry["NoDisplay"], "true")
        }
    }

    /// Listings read as English and carry no trailing spaces; a huge query is not echoed whole.
    func testWordingOfListings() throws {
        try succeed("colleagues", ["setting", "all-records"])
        try succeed("colleagues", ["view", "Brent Reid"])
        let listing = try succeed("spotlight", ["engineering"]).stdout + (try succeed("spotlight", ["apps"]).stdout)
        for line in listing.split(separator: "\n") {
            XCTAssertFalse(line.hasSuffix(" "), "trailing space in \"\(line)\"")
        }
        XCTAssertFalse(listing.contains(" 1 items"), listing)
        let long = String(repeating: "zq", count: 5_000)
        let none = try succeed("spotlight", ["search", long])
        XCTAssertLessThan(none.stdout.count, 120, "the query is cut, not echoed whole")
        XCTAssertTrue(none.stdout.hasPrefix("No results for \"zqzq"), none.stdout)
        XCTAssertEqual(TextReport.possessive("Colleagues"), "Colleagues'")
        XCTAssertEqual(TextReport.possessive("Smoothie Bar"), "Smoothie Bar's")
        XCTAssertEqual(TextReport.counted(1, "activity", "activities"), "1 activity")
    }

    /// Rescued copies are kept until the person asks `doctor --clean` to remove the old ones.
    func testDoctorCleanRemovesOnlyOldRescuedCopies() throws {
        let quarantine = home.appendingPathComponent("system/quarantine/com.example.x", isDirectory: true)
        let indexes = home.appendingPathComponent("apps/com.example.x/indexes", isDirectory: true)
        try FileManager.default.createDirectory(at: quarantine, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: indexes, withIntermediateDirectories: true)
        let old = quarantine.appendingPathComponent("main.sqlite-old"), oldBeside = indexes.appendingPathComponent("main.sqlite.damaged-1")
        let recent = quarantine.appendingPathComponent("main.sqlite-recent")
        for file in [old, oldBeside, recent] { try Data(repeating: 7, count: 1_000).write(to: file) }
        let fortyDaysAgo = Date().addingTimeInterval(-40 * 86_400)
        for file in [old, oldBeside] {
            try FileManager.default.setAttributes([.modificationDate: fortyDaysAgo], ofItemAtPath: file.path)
        }
        let cleaned = try succeed("spotlight", ["doctor", "--clean"])
        XCTAssertTrue(cleaned.stdout.hasPrefix("Removed 2 rescued copies"), cleaned.stdout)
        XCTAssertTrue(cleaned.stdout.contains("1 newer copy kept"), cleaned.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: old.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: oldBeside.path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: recent.path))
        try succeed("spotlight", ["doctor", "--clean", "--days", "0"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: recent.path))
    }

    func testVersion() throws {
        let output = try succeed("spotlight", ["--version"])
        XCTAssertTrue(output.stdout.hasPrefix("spotlight (OpenSpotlight) 0."), output.stdout)
    }
}
