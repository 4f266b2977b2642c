import Foundation
import XCTest
@testable import OpenCoreSpotlight
import SpotlightEngine

/// Crash safety and several writers, with real child processes.
final class ProcessTests: IndexTestCase {
    private func helper(_ arguments: [String]) throws -> (Process, Pipe) {
        let binary = Self.productsDirectory.appendingPathComponent("openspotlight-test-helper")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw TestPrerequisiteMissing("test helper not built at \(binary.path)")
        }
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env[StoreLocation.rootEnvironmentVariable] = root.path
        process.environment = env
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.standardError
        try process.run()
        return (process, pipe)
    }

    /// Reads lines from the child until one satisfies `condition` (or the child ends).
    private func waitForLine(_ pipe: Pipe, timeout: TimeInterval = 60, _ condition: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = ""
        while Date() < deadline {
            let data = pipe.fileHandleForReading.availableData
            if data.isEmpty { return false }
            buffer += String(decoding: data, as: UTF8.self)
            if buffer.split(separator: "\n").contains(where: { condition(String($0)) }) { return true }
        }
        return false
    }

    func testSIGKILLInTheMiddleOfBatchesLeavesTheLastCommittedBatch() async throws {
        let perBatch = 1500
        for round in 0..<3 {
            let (process, pipe) = try helper(["batch-loop", app, "crash", "\(perBatch)"])
            XCTAssertTrue(waitForLine(pipe) { $0 == "committed \(2 + round)" }, "the child commits batches")
            // Kill at a varying point, most likely inside a batch's transaction.
            try await Task.sleep(nanoseconds: UInt64(37_000_000 * (round + 1)))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .uncaughtSignal)

            StoreRegistry.forgetAll()
            let index = CSSearchableIndex(name: "crash")
            let state = try await index.fetchLastClientState()
            let n = try XCTUnwrap(Int(String(decoding: state, as: UTF8.self)), "a committed client state survives")
            let items = try IndexInspector(index).items(limit: 100_000)
            let slots = items.filter { $0.uniqueIdentifier.hasPrefix("slot-") }
            XCTAssertEqual(slots.count, perBatch, "every slot of the last committed batch is present")
            XCTAssertEqual(Set(slots.map { $0.attributeSet.title }), ["batch \(n)"],
                           "all items come from batch \(n), the one whose state was stored: none from a half batch")
            let odd = items.filter { $0.uniqueIdentifier.hasPrefix("odd-") }.map(\.uniqueIdentifier)
            XCTAssertEqual(odd, n % 2 == 1 ? ["odd-\(n)"] : [], "batch \(n)'s deletes and inserts are all there")
            try index.store().checkIntegrity()
        }
    }

    func testTwoProcessesWriteTheSameIndexWhileWeRead() async throws {
        let (a, pipeA) = try helper(["write-loop", app, "shared", "150", "alpha"])
        let (b, pipeB) = try helper(["write-loop", app, "shared", "150", "beta"])
        // Read while they write: every read sees whole items only.
        let index = CSSearchableIndex(name: "shared")
        var reads = 0
        while a.isRunning || b.isRunning {
            for item in try IndexInspector(index).items(limit: 1_000) {
                XCTAssertNotNil(item.attributeSet.title, "no half-written item")
            }
            reads += 1
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        a.waitUntilExit()
        b.waitUntilExit()
        XCTAssertEqual(a.terminationStatus, 0)
        XCTAssertEqual(b.terminationStatus, 0)
        XCTAssertTrue(waitForLine(pipeA) { $0 == "done alpha" })
        XCTAssertTrue(waitForLine(pipeB) { $0 == "done beta" })
        XCTAssertGreaterThan(reads, 0)
        StoreRegistry.forgetAll()
        let inspector = IndexInspector(CSSearchableIndex(name: "shared"))
        XCTAssertEqual(try inspector.count(domain: "alpha"), 150, "nothing lost")
        XCTAssertEqual(try inspector.count(domain: "beta"), 150, "nothing lost")
        XCTAssertEqual(try inspector.count(domain: "shared"), 1)
        let store = try CSSearchableIndex(name: "shared").store()
        XCTAssertEqual(try store.search("alpha").count, 20, "top 20")
        let all = try store.search("alpha", options: TextSearchOptions(limit: 0))
        XCTAssertEqual(all.filter { $0.item.domainIdentifier == "alpha" }.count, 150, "the text index has every item")
        try store.checkIntegrity()
    }
}
