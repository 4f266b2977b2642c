import Foundation
import XCTest
import OpenCoreSpotlight
@testable import SpotlightSystem

/// The `spotlight` command and the Colleagues app as real processes: search, continuation, actions, settings.
final class ColleaguesEndToEndTests: SystemTestCase {
    static let app = "com.example.colleagues"
    static let engineering: Set<String> = ["Brent Reid", "Ava Thompson", "Marcus Chen", "Priya Patel", "Jonas Weber", "Sofia Alvarez"]

    func testNothingIndexedYetSaysSo() throws {
        let output = try succeed("spotlight", ["brent", "reid"])
        XCTAssertTrue(output.stdout.contains("Nothing is indexed yet"), output.stdout)
        let apps = try succeed("spotlight", ["apps"])
        XCTAssertTrue(apps.stdout.contains("No app"), apps.stdout)
    }

    func testColleaguesRegistersADesktopEntry() throws {
        try succeed("colleagues", ["list"])
        let file = dataHome.appendingPathComponent("applications/com.example.colleagues.desktop")
        let entry = DesktopEntry(parsing: try String(contentsOf: file, encoding: .utf8))
        XCTAssertEqual(entry["Type"], "Application")
        XCTAssertEqual(entry["Name"], "Colleagues")
        XCTAssertEqual(entry["X-OpenSpotlight-AppID"], Self.app)
        XCTAssertEqual(entry["Terminal"], "true")
        let exec = try DesktopEntry.splitExec(entry["Exec"] ?? "")
        XCTAssertEqual(exec.last, .fieldCode("u"))
        XCTAssertNotNil(entry["X-OpenSpotlight-ReindexExec"])
    }

    func testViewedEmployeeIsFoundBySpotlight() throws {
        let view = try succeed("colleagues", ["view", "Brent Reid"])
        XCTAssertTrue(view.stdout.contains("Senior Software Engineer"))
        let text = try succeed("spotlight", ["brent", "reid"])
        XCTAssertTrue(text.stdout.contains("Colleagues"), text.stdout)
        XCTAssertTrue(text.stdout.contains("1. Brent Reid — Senior Software Engineer, Engineering"), text.stdout)
        XCTAssertTrue(text.stdout.contains("open, call, directions"), text.stdout)

        let outcome = try search("brent reid")
        XCTAssertEqual(outcome.results.map(\.title), ["Brent Reid"])
        let result = try XCTUnwrap(outcome.results.first)
        XCTAssertEqual(result.applicationIdentifier, Self.app)
        XCTAssertEqual(result.appDisplayName, "Colleagues")
        XCTAssertEqual(result.kind, "activity")
        XCTAssertEqual(result.activityType, "com.example.colleagues.view-employee")
        XCTAssertEqual(result.visitCount, 1)

        try succeed("colleagues", ["view", "employee-1"])
        XCTAssertEqual(try search("brent").results.first?.visitCount, 2, "each visit is counted")
    }

    func testAllRecordsListsTheEngineeringDepartment() throws {
        try succeed("colleagues", ["setting", "all-records"])
        let outcome = try search("engineering")
        XCTAssertEqual(Set(outcome.results.map(\.title)), Self.engineering)
        XCTAssertEqual(Set(outcome.results.map(\.applicationIdentifier)), [Self.app])
        XCTAssertTrue(outcome.results.allSatisfy { $0.kind == "item" && $0.actions == [.open, .call, .directions] })
        let text = try succeed("spotlight", ["engineering"])
        for name in Self.engineering { XCTAssertTrue(text.stdout.contains(name), text.stdout) }
    }

    func testOpeningAResultMakesTheAppShowThatEmployee() throws {
        try succeed("colleagues", ["setting", "all-records"])
        _ = try search("brent reid")
        let opened = try succeed("spotlight", ["open", "1"])
        XCTAssertTrue(opened.stdout.contains("Brent Reid"), opened.stdout)
        XCTAssertTrue(opened.stdout.contains("brent.reid@example.com"), opened.stdout)

        let byID = try succeed("spotlight", ["open", "colleagues", "employee-3"])
        XCTAssertTrue(byID.stdout.contains("marcus.chen@example.com"), byID.stdout)

        // What the app receives: a Core Spotlight item as CSSearchableItemActionType with the identifier (Marcus
        // has an activity now, since the app recorded the visit; Jonas has none).
        let dry = try succeed("spotlight", ["open", "com.example.colleagues", "employee-5", "--dry-run"])
        let lines = dry.stdout.split(separator: "\n").map(String.init)
        let payload = try ContinuationPayload.parse(lines[1])
        XCTAssertEqual(payload.activityType, CSSearchableItemActionType)
        XCTAssertEqual(payload.userInfo[CSSearchableItemActivityIdentifier], .string("employee-5"))
        XCTAssertTrue(lines[0].contains("openspotlight://continue?activity="), lines[0])

        XCTAssertNotEqual(try run("spotlight", ["open", "colleagues", "employee-99"]).status, 0)
    }

    func testOpeningAViewedActivityContinuesThatActivity() throws {
        try succeed("colleagues", ["view", "Priya Patel"])
        _ = try search("priya")
        let dry = try succeed("spotlight", ["open", "1", "--dry-run"])
        let payload = try ContinuationPayload.parse(String(dry.stdout.split(separator: "\n")[1]))
        XCTAssertEqual(payload.activityType, "com.example.colleagues.view-employee")
        XCTAssertEqual(payload.userInfo, ["id": .string("employee-4")])
        let opened = try succeed("spotlight", ["open", "1"])
        XCTAssertTrue(opened.stdout.contains("priya.patel@example.com"), opened.stdout)
    }

    func testContinuingASearchInTheApp() throws {
        try succeed("colleagues", ["list"])  // installed and launched once: registered
        let output = try succeed("spotlight", ["open", "colleagues", "--search", "design"])
        XCTAssertTrue(output.stdout.contains("Search \"design\": 3 employees"), output.stdout)
    }

    func testActivityRelatedToAnItemIsOneResult() throws {
        try succeed("colleagues", ["setting", "all-records"])
        try succeed("colleagues", ["view", "Ava Thompson"])
        let outcome = try search("ava")
        XCTAssertEqual(outcome.results.map(\.title), ["Ava Thompson"], "merged with its item, not twice")
        let result = try XCTUnwrap(outcome.results.first)
        XCTAssertEqual(result.kind, "item")
        XCTAssertEqual(result.identifier, "employee-2")
        XCTAssertEqual(result.activityType, "com.example.colleagues.view-employee")
        // Opening the merged result continues the activity.
        let payload = try ContinuationPayload.parse(String(try succeed("spotlight", ["open", "1", "--dry-run"]).stdout.split(separator: "\n")[1]))
        XCTAssertEqual(payload.activityType, "com.example.colleagues.view-employee")
    }

    func testDeletingAnItemDeletesItsActivities() throws {
        try succeed("colleagues", ["setting", "all-records"])
        try succeed("colleagues", ["view", "Grace Liu"])
        XCTAssertEqual(try search("grace").results.count, 1)
        try succeed("colleagues", ["delete", "--id", "employee-18"])
        XCTAssertEqual(try search("grace").results.count, 0)
        XCTAssertTrue(try SavedUserActivity.all(applicationIdentifier: Self.app, rootDirectory: home).isEmpty)
    }

    func testDisabledDeletesEverythingAndIndexesNothing() throws {
        try succeed("colleagues", ["setting", "all-records"])
        try succeed("colleagues", ["view", "Brent Reid"])
        XCTAssertFalse(try search("brent").results.isEmpty)
        try succeed("colleagues", ["setting", "disabled"])
        XCTAssertTrue(try search("brent").results.isEmpty)
        try succeed("colleagues", ["view", "Brent Reid"])  // ineligible: not indexed
        XCTAssertTrue(try search("brent").results.isEmpty)
        XCTAssertTrue(try SavedUserActivity.all(applicationIdentifier: Self.app, rootDirectory: home).isEmpty)
    }

    func testDeleteByDomainAndIdentifier() throws {
        try succeed("colleagues", ["setting", "all-records"])
        try succeed("colleagues", ["delete", "--domain", "employees.engineering"])
        XCTAssertTrue(try search("engineering").results.isEmpty)
        XCTAssertEqual(try search("design").results.count, 3)
        try succeed("colleagues", ["delete", "--id", "employee-7"])
        XCTAssertEqual(Set(try search("design").results.map(\.title)), ["Chloé Martin", "Noah Kim"])
        try succeed("colleagues", ["delete", "--domain", "employees"])
        XCTAssertTrue(try search("design").results.isEmpty)
    }

    /// The delegate's `data(for:…)`, `fileURL(for:…)` and async `searchableItems(forIdentifiers:)` answer the
    /// system through the app's extension.
    func testDataFileAndCurrentItemComeFromTheAppsExtension() throws {
        try succeed("colleagues", ["setting", "all-records"])
        _ = try search("brent reid")
        let card = try succeed("spotlight", ["data", "1"])
        XCTAssertTrue(card.stdout.hasPrefix("BEGIN:VCARD"), card.stdout)
        XCTAssertTrue(card.stdout.contains("FN:Brent Reid"), card.stdout)
        let plain = try succeed("spotlight", ["data", "colleagues", "employee-1", "--type", "public.plain-text"])
        XCTAssertTrue(plain.stdout.contains("brent.reid@example.com"), plain.stdout)

        let output = home.appendingPathComponent("brent.vcf")
        try succeed("spotlight", ["data", "1", "--output", output.path])
        XCTAssertEqual(try String(contentsOf: output, encoding: .utf8), card.stdout)

        let file = try succeed("spotlight", ["file", "1"])
        let path = file.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(path.hasSuffix(".vcf"), path)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), card.stdout)

        let item = try succeed("spotlight", ["item", "1"])
        XCTAssertTrue(item.stdout.hasPrefix("Brent Reid\n  Senior Software Engineer, Engineering"), item.stdout)

        let refused = try run("spotlight", ["data", "1", "--type", "public.jpeg"])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("not offered as public.jpeg; it is offered as public.vcard, public.plain-text"),
                      refused.stderr)
        let notInPlace = try run("spotlight", ["file", "1", "--in-place"])
        XCTAssertNotEqual(notInPlace.status, 0)
        XCTAssertTrue(notInPlace.stderr.contains("offers no"), notInPlace.stderr)
        let leftovers = try FileManager.default.subpathsOfDirectory(atPath: home.appendingPathComponent("system").path)
            .filter { $0.contains("requests/") && !$0.hasSuffix("/") && $0.split(separator: "/").count > 2 }
        XCTAssertEqual(leftovers, [], "answered requests leave nothing behind")
    }

    func testCallAndDirectionsGoThroughTheOpener() throws {
        try succeed("colleagues", ["setting", "all-records"])
        _ = try search("brent reid")
        try succeed("spotlight", ["call", "1"])
        try succeed("spotlight", ["directions", "colleagues", "employee-3"])
        let log = try String(contentsOf: openerLog, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(log, ["tel:+15550101", "geo:30.3922,-97.7252"])
        XCTAssertEqual(try succeed("spotlight", ["call", "1", "--dry-run"]).stdout, "tel:+15550101\n")
    }

    func testAppsListsItemCountsAndSizes() throws {
        try succeed("colleagues", ["setting", "all-records"])
        try succeed("colleagues", ["view", "Brent Reid"])
        let apps = try spotlightJSON([AppInventory.AppSummary].self, ["apps"])
        let colleagues = try XCTUnwrap(apps.first { $0.applicationIdentifier == Self.app })
        XCTAssertEqual(colleagues.displayName, "Colleagues")
        XCTAssertEqual(colleagues.items, 25)
        XCTAssertEqual(colleagues.activities, 1)
        XCTAssertTrue(colleagues.isRegistered && colleagues.hasReindexExtension)
        XCTAssertGreaterThan(colleagues.bytes, 0)
        let text = try succeed("spotlight", ["apps"])
        XCTAssertTrue(text.stdout.contains("25 items, 1 activity"), text.stdout)
    }

    func testMatchedWordsAndSnippetsAreShown() throws {
        try succeed("colleagues", ["setting", "all-records"])
        // In a pipe nothing is marked (`--highlight auto`); asked for, brackets or escape codes.
        let piped = try succeed("spotlight", ["search", "marc"]).stdout
        XCTAssertTrue(piped.contains(" Marcus Chen — "), piped)
        let brackets = try succeed("spotlight", ["search", "marc", "--highlight", "brackets"]).stdout
        XCTAssertTrue(brackets.contains(" [Marc]us Chen — "), brackets)
        let terminal = try succeed("spotlight", ["search", "marc", "--highlight", "terminal"]).stdout
        XCTAssertTrue(terminal.contains(" \u{1B}[1;4mMarc\u{1B}[22;24mus Chen — "), terminal)
        XCTAssertEqual(try run("spotlight", ["search", "marc", "--highlight", "sparkly"]).status, 64, "an unknown style is a usage error")
        // JSON carries the title's and the snippet's ranges in UTF-16 units.
        struct Range: Decodable { var location: Int; var length: Int }
        struct Highlight: Decodable { var attribute: String; var text: String; var ranges: [Range] }
        struct Result: Decodable { var title: String; var titleHighlight: Highlight?; var snippet: Highlight? }
        struct Group: Decodable { var results: [Result] }
        struct Outcome: Decodable { var apps: [Group] }
        func marked(_ highlight: Highlight) -> [String] {
            highlight.ranges.map { (highlight.text as NSString).substring(with: NSRange(location: $0.location, length: $0.length)) }
        }
        let marc = try JSONDecoder().decode(Outcome.self, from: Data(try succeed("spotlight", ["search", "marc", "--json"]).stdout.utf8))
        let first = try XCTUnwrap(marc.apps.first?.results.first)
        XCTAssertEqual(first.titleHighlight?.attribute, "title")
        XCTAssertEqual(first.titleHighlight.map(marked), ["Marc"])
        let engineer = try JSONDecoder().decode(Outcome.self, from: Data(try succeed("spotlight", ["search", "engineer", "--json"]).stdout.utf8))
        let snippets = engineer.apps.flatMap(\.results).compactMap(\.snippet)
        XCTAssertFalse(snippets.isEmpty)
        for snippet in snippets {
            XCTAssertFalse(snippet.ranges.isEmpty, snippet.text)
            for word in marked(snippet) { XCTAssertTrue(word.lowercased().hasPrefix("engineer"), "\(word) in \(snippet.text)") }
        }
    }

    func testQueryLanguageAndJSONListings() throws {
        try succeed("colleagues", ["setting", "all-records"])
        struct Match: Decodable { var applicationIdentifier: String; var identifier: String; var title: String? }
        let matches = try spotlightJSON([Match].self, ["query", #"keywords == "engineering"cd"#])
        XCTAssertEqual(Set(matches.compactMap(\.title)), Self.engineering)
        XCTAssertEqual(try run("spotlight", ["query", "title == "]).status, 2, "a malformed query fails clearly")
        // Every listing parses as JSON.
        for arguments in [["search", "brent"], ["apps"], ["doctor"], ["query", "title == \"*\""]] {
            let output = try succeed("spotlight", arguments + ["--json"])
            XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)), arguments.joined(separator: " "))
        }
    }
}
