import Foundation
import XCTest

/// Runs the built benchmark on the tiny corpus, so the benchmark cannot rot. Not a timing test: it checks that every
/// figure of the schema is there and sane.
final class BenchmarkSmokeTests: XCTestCase {
    func testSmokeRunPrintsEveryFigure() throws {
        var candidates: [URL] = []
        for arg in [CommandLine.arguments.first, Bundle.main.executablePath].compactMap({ $0 }) {
            var url = URL(fileURLWithPath: arg)
            for _ in 0..<4 { url.deleteLastPathComponent(); candidates.append(url) }
        }
        guard let dir = candidates.first(where: {
            FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("spotlight-bench").path)
        }) else { throw TestPrerequisiteMissing("spotlight-bench is not built") }
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let data = package.deletingLastPathComponent().appendingPathComponent("shared/data")
        guard FileManager.default.fileExists(atPath: data.appendingPathComponent("debian-packages.jsonl.gz").path) else {
            throw TestPrerequisiteMissing("no corpus at \(data.path)")
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("bench-smoke-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let process = Process()
        process.executableURL = dir.appendingPathComponent("spotlight-bench")
        process.arguments = ["--corpus", "tiny", "--smoke", "--json", "--workdir", work.path, "--data", data.path,
                             "--queries", package.appendingPathComponent("Benchmarks/queries").path, "--churn-rounds", "2", "--churn-batch", "500"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let bytes = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: bytes) as? [String: Any])
        XCTAssertEqual(json["schema"] as? String, "openspotlight-bench/1")
        XCTAssertEqual(json["items"] as? Int, 2_000)
        for key in ["bulk_index", "disk", "search", "filtered_search", "attribute_query", "typo", "upsert", "delete",
                    "cold_open", "memory"] {
            XCTAssertNotNil(json[key], key)
        }
        let bulk = try XCTUnwrap(json["bulk_index"] as? [String: Any])
        XCTAssertGreaterThan(bulk["items_per_s"] as? Int ?? 0, 0)
        let all = try XCTUnwrap((json["search"] as? [String: Any])?["all"] as? [String: Any])
        XCTAssertGreaterThan(all["n"] as? Int ?? 0, 0)
        XCTAssertGreaterThanOrEqual(all["p99_ms"] as? Double ?? -1, all["p50_ms"] as? Double ?? 0)
        let typo = try XCTUnwrap(json["typo"] as? [String: Any])
        XCTAssertGreaterThan(typo["hit_rate"] as? Double ?? 0, 0.5, "typo tolerance finds most typo queries")
        let disk = try XCTUnwrap(json["disk"] as? [String: Any])
        XCTAssertGreaterThan(disk["fresh_bytes"] as? Int ?? 0, 0)
        XCTAssertEqual(disk["churn_rounds"] as? Int, 2)
        XCTAssertGreaterThan(disk["churned_bytes"] as? Int ?? 0, 0)
        XCTAssertGreaterThan(disk["churn_items_per_s"] as? Int ?? 0, 0)
        XCTAssertEqual((json["upsert"] as? [String: Any])?["n"] as? Int, 20)
        // The relevance phase: judged queries whose items are among the 2,000, per kind.
        let relevance = try XCTUnwrap(json["relevance"] as? [String: [String: Any]])
        XCTAssertEqual(Set(relevance.keys), ["full", "typo", "typo-first", "descriptive"])
        let full = try XCTUnwrap(relevance["full"])
        XCTAssertGreaterThan(full["queries"] as? Int ?? 0, 5)
        XCTAssertEqual(full["mrr_at_10"] as? Double ?? 0, 1, accuracy: 0.1, "exact names come first")
        for (kind, block) in relevance {
            let mrr = block["mrr_at_10"] as? Double ?? -1, first = block["success_at_1"] as? Double ?? -1
            XCTAssertTrue((0...1).contains(mrr) && (0...mrr).contains(first), "\(kind): MRR \(mrr), success@1 \(first)")
        }
    }
}

/// What a test needs and cannot find (a built helper, the corpus): the test fails with this, it is never skipped.
struct TestPrerequisiteMissing: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
