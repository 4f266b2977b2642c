import Foundation
import XCTest
import OpenCoreSpotlight
@testable import SpotlightSystem

/// Damaged and lost indexes are noticed and rebuilt through the apps' reindex extensions, with nothing asked of
/// the user: by `spotlight doctor` and by plain searches.
final class IndexHealthEndToEndTests: SystemTestCase {
    let colleagues = "com.example.colleagues"
    let smoothies = "com.example.smoothies"

    func testCorruptedIndexIsRebuiltWhenSearching() throws {
        try succeed("colleagues", ["setting", "all-records"])
        XCTAssertEqual(try search("engineering").results.count, 6)
        try corrupt(storeURL(app: colleagues, index: "_default"))

        let output = try succeed("spotlight", ["search", "engineering", "--json"])
        let outcome = try JSONDecoder.iso.decode(SystemSearch.Outcome.self, from: Data(output.stdout.utf8))
        XCTAssertEqual(Set(outcome.results.map(\.title)), ColleaguesEndToEndTests.engineering)
        XCTAssertEqual(outcome.repairs.map(\.outcome), ["acknowledged"])
        XCTAssertTrue(output.stderr.contains("rebuilding"), output.stderr)
        XCTAssertTrue(output.stderr.contains("colleagues: reindexed 25 employees"), output.stderr)
        let indexes = storeURL(app: colleagues, index: "_default").deletingLastPathComponent()
        XCTAssertTrue(try FileManager.default.contentsOfDirectory(atPath: indexes.path).contains { $0.hasPrefix("_default.sqlite.damaged-") },
                      "the damaged file is kept aside")
        XCTAssertTrue(ReindexRequestStore(root: home).pending().isEmpty, "the request was acknowledged")
    }

    func testDeletedIndexIsRebuiltWhenSearching() throws {
        try succeed("colleagues", ["setting", "all-records"])
        XCTAssertEqual(try search("engineering").results.count, 6)
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: storeURL(app: colleagues, index: "_default").path + suffix)
        }
        let outcome = try search("engineering")
        XCTAssertEqual(outcome.results.count, 6)
        XCTAssertEqual(outcome.repairs.first?.kind, .reindexAll)
    }

    func testDoctorRebuildsDamagedAndLostIndexesThrottled() throws {
        try succeed("colleagues", ["setting", "all-records"])
        try succeed("colleagues", ["view", "Brent Reid"])
        try succeed("smoothies", ["list"])
        XCTAssertEqual(try search("engineering").results.count, 6)  // the system has seen both apps' indexes
        try corrupt(storeURL(app: smoothies, index: "smoothies"))
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: storeURL(app: colleagues, index: "_default").path + suffix)
        }

        let throttling = ["OPENSPOTLIGHT_THROTTLE_THRESHOLD": "1", "OPENSPOTLIGHT_THROTTLE_DELAY": "0"]
        let output = try succeed("spotlight", ["doctor", "--json"], environment: throttling)
        let report = try JSONDecoder.iso.decode(IndexDoctor.Report.self, from: Data(output.stdout.utf8))
        let byIndex = Dictionary(uniqueKeysWithValues: report.indexes.map { ("\($0.applicationIdentifier)/\($0.indexName)", $0) })
        XCTAssertEqual(byIndex["com.example.colleagues/_default"]?.status, .missing)
        XCTAssertEqual(byIndex["com.example.colleagues/_default"]?.action, .rebuilt)
        XCTAssertEqual(byIndex["com.example.colleagues/_default"]?.itemCount, 25)
        XCTAssertEqual(byIndex["com.example.smoothies/smoothies"]?.status, .corrupt)
        XCTAssertEqual(byIndex["com.example.smoothies/smoothies"]?.action, .rebuilt)
        XCTAssertEqual(byIndex["com.example.colleagues/_activities"]?.orphanActivitiesDeleted, 0,
                       "a lost index does not take its activities with it")
        XCTAssertTrue(report.throttled)
        XCTAssertEqual(report.requests.map(\.outcome), ["acknowledged", "acknowledged"])
        XCTAssertTrue(report.requests.allSatisfy(\.throttled))
        XCTAssertTrue(output.stderr.contains("colleagues: searchableIndexDidThrottle"), output.stderr)
        XCTAssertTrue(output.stderr.contains("colleagues: searchableIndexDidFinishThrottle"), output.stderr)
        XCTAssertTrue(output.stderr.contains("smoothies: searchableIndexDidThrottle"), output.stderr)

        // Healthy again: search works, the merged activity is still there, and a second doctor finds nothing.
        let brent = try search("brent")
        XCTAssertEqual(brent.results.count, 1)
        XCTAssertNotNil(brent.results.first?.activityIdentifier)
        XCTAssertEqual(try search("berry").results.count, 4)
        let again = try succeed("spotlight", ["doctor"])
        XCTAssertTrue(again.stdout.contains("All indexes are healthy."), again.stdout)
    }

    func testDoctorCheckOnlyReportsWithoutRepairing() throws {
        try succeed("smoothies", ["list"])
        try corrupt(storeURL(app: smoothies, index: "smoothies"))
        let output = try run("spotlight", ["doctor", "--check-only"])
        XCTAssertEqual(output.status, 1)
        XCTAssertTrue(output.stdout.contains("corrupt → reported"), output.stdout)
        XCTAssertEqual(try run("spotlight", ["doctor"]).status, 0)
    }

    func testRequestWaitsForTheAppsLaunchWhenItHasNoExtension() throws {
        try succeed("colleagues", ["setting", "all-records"])
        XCTAssertEqual(try search("engineering").results.count, 6)
        // Take the extension out of the registration (the app registers it again at its next launch).
        let desktop = dataHome.appendingPathComponent("applications/com.example.colleagues.desktop")
        let text = try String(contentsOf: desktop, encoding: .utf8)
        try text.split(separator: "\n").filter { !$0.hasPrefix("X-OpenSpotlight-ReindexExec=") }.joined(separator: "\n")
            .write(to: desktop, atomically: true, encoding: .utf8)
        try corrupt(storeURL(app: colleagues, index: "_default"))

        let doctor = try run("spotlight", ["doctor"])
        XCTAssertEqual(doctor.status, 1, doctor.stdout)
        XCTAssertTrue(doctor.stdout.contains("pending"), doctor.stdout)
        XCTAssertEqual(ReindexRequestStore(root: home).pending().count, 1, "persisted until acknowledged")

        try succeed("colleagues", ["list"])  // the app's launch picks the request up
        XCTAssertTrue(ReindexRequestStore(root: home).pending().isEmpty)
        XCTAssertEqual(try search("engineering").results.count, 6)
    }

    func testReindexCommandAsksTheApp() throws {
        try succeed("colleagues", ["setting", "all-records"])
        try succeed("colleagues", ["delete", "--all"])
        XCTAssertTrue(try search("engineering").results.isEmpty)
        let output = try succeed("spotlight", ["reindex", "colleagues"])
        XCTAssertTrue(output.stdout.contains("Colleagues reindexed _default"), output.stdout)
        XCTAssertEqual(try search("engineering").results.count, 6)
    }
}

extension JSONDecoder {
    static var iso: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
