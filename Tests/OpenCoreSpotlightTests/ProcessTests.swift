import Foundation
import GRDB
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

    // MARK: - Fairness (issue 17, item 10)

    /// A process committing 1,000-item batches back to back, with no pause between its transactions, and this
    /// process writing one item at a time beside it: each of our writes gets the lock after at most the batch in
    /// progress (plus, at the edge, the one that had just begun), because the waiting writer holds the turnstile
    /// (`WriterTurnstile`). Counted in the other process's commits (its client state), not timed. Before the
    /// turnstile, the batch writer took the lock again before our busy handler woke up, often for dozens of batches,
    /// and writes failed with "database is locked" after the 30 s busy timeout (two runs of three).
    func testAWaitingWriterGetsTheLockBetweenAnotherProcesssBatches() async throws {
        let (process, pipe) = try helper(["engine-batch-loop", app, "fair", "1000"])
        defer { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        XCTAssertTrue(waitForLine(pipe) { $0 == "committed 2" }, "the batch writer commits")
        let index = CSSearchableIndex(name: "fair")
        func batchesCommitted() async throws -> Int {
            Int(String(decoding: try await index.fetchLastClientState(), as: UTF8.self)) ?? 0
        }
        var overlaps: [Int] = []
        for i in 0..<8 {
            let before = try await batchesCommitted()
            try await index.indexSearchableItems([makeItem("small-\(i)", domain: "small")])
            overlaps.append(try await batchesCommitted() - before)
        }
        XCTAssertTrue(process.isRunning, "the batch writer was writing the whole time")
        // One batch per write; two at the edge, when our write began just as a batch committed.
        XCTAssertLessThanOrEqual(overlaps.max() ?? 0, 2,
            "batches the other process committed while one of our writes waited: \(overlaps)")
        XCTAssertLessThanOrEqual(overlaps.reduce(0, +), overlaps.count + 3,
            "batches the other process committed while one of our writes waited: \(overlaps)")
        XCTAssertEqual(try IndexInspector(index).count(domain: "small"), 8)
    }

    // MARK: - SIGKILL loop (issue 17, fuzz d)

    /// What the SIGKILL loop saw.
    struct KillLoopFigures {
        var kills = 0
        var acknowledgedBatches = 0
        var acknowledgedSingles = 0
        /// Kills after which the store held a batch whose acknowledgement never arrived (killed between commit and
        /// acknowledgement): committed, and whole.
        var committedUnacknowledged = 0
        var lostOrPartial = 0
    }

    /// Kills a writer at random moments of random batches and single writes, again and again, and checks after
    /// every kill: every acknowledged batch and single write is there; the store holds exactly the last two
    /// committed batches (each batch deletes the one two before it), each whole, and nothing of a batch that did
    /// not commit; the file passes SQLite's check. `OPENSPOTLIGHT_KILLS` sets the number of kills (default 25;
    /// `scripts/kill-loop.sh` runs 1,000).
    func testSIGKILLLoopKeepsEveryAcknowledgedWriteAndNoPartialBatch() throws {
        let kills = Int(ProcessInfo.processInfo.environment["OPENSPOTLIGHT_KILLS"] ?? "") ?? 25
        var figures = KillLoopFigures()
        var random = SystemRandomNumberGenerator()
        var acknowledgedSingles = Set<String>()
        var maxAcknowledgedBatch = 0
        var nextBatch = 1
        for round in 0..<kills {
            let (process, pipe) = try helper(["kill-loop", app, "kills", "\(nextBatch)", "\(round)"])
            var output = ""
            while !output.contains("ready\n") {
                let data = pipe.fileHandleForReading.availableData
                if data.isEmpty { break }
                output += String(decoding: data, as: UTF8.self)
            }
            XCTAssertTrue(output.contains("ready\n"), "the writer starts")
            usleep(UInt32.random(in: 0...400_000, using: &random))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .uncaughtSignal)
            figures.kills += 1
            output += String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            for line in output.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard words.count == 3, words[0] == "ack", let number = Int(words[2]) else { continue }
                if words[1] == "batch" {
                    maxAcknowledgedBatch = max(maxAcknowledgedBatch, number)
                    figures.acknowledgedBatches += 1
                } else {
                    acknowledgedSingles.insert("s-\(round)-\(number)")
                    figures.acknowledgedSingles += 1
                }
            }

            StoreRegistry.forgetAll()
            let index = CSSearchableIndex(name: "kills")
            let state = try index.store().clientState()
            let committed = state.flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0
            XCTAssertGreaterThanOrEqual(committed, maxAcknowledgedBatch, "an acknowledged batch was lost (kill \(round))")
            XCTAssertLessThanOrEqual(committed, max(maxAcknowledgedBatch, nextBatch - 1) + 1,
                                     "at most the batch in flight committed unacknowledged (kill \(round))")
            if committed > maxAcknowledgedBatch { figures.committedUnacknowledged += 1 }
            maxAcknowledgedBatch = max(maxAcknowledgedBatch, committed)
            nextBatch = committed + 1

            var batches: [Int: (count: Int, declared: Set<Int>)] = [:]
            var singles = Set<String>()
            var after: String?
            while true {
                let page = try IndexInspector(index).items(after: after, limit: 1_000)
                guard let last = page.last else { break }
                after = last.uniqueIdentifier
                for item in page {
                    if item.domainIdentifier == "single" { singles.insert(item.uniqueIdentifier); continue }
                    let n = Int(item.domainIdentifier?.dropFirst("batch-".count) ?? "") ?? -1
                    let k = Int(item.attributeSet.contentDescription?.split(separator: " ").last ?? "") ?? -1
                    batches[n, default: (0, [])].count += 1
                    batches[n, default: (0, [])].declared.insert(k)
                }
            }
            let expected = Set([committed - 1, committed].filter { $0 >= 1 })
            var broken = false
            if Set(batches.keys) != expected {
                XCTFail("kill \(round): batches present \(batches.keys.sorted()), expected \(expected.sorted()) (client state \(committed))")
                broken = true
            }
            for (n, batch) in batches where batch.declared.count != 1 || batch.declared.first != batch.count {
                XCTFail("kill \(round): batch \(n) is partial: \(batch.count) items of \(batch.declared)")
                broken = true
            }
            let lostSingles = acknowledgedSingles.subtracting(singles)
            if !lostSingles.isEmpty {
                XCTFail("kill \(round): acknowledged single writes lost: \(lostSingles.sorted().prefix(5))")
                broken = true
            }
            acknowledgedSingles.formUnion(singles)
            do { try index.store().checkIntegrity() } catch {
                XCTFail("kill \(round): \(error)")
                broken = true
            }
            if broken { figures.lostOrPartial += 1 }
        }
        let line = "kill loop: \(figures.kills) SIGKILLs, \(figures.acknowledgedBatches) acknowledged batches, "
            + "\(figures.acknowledgedSingles) acknowledged single writes, \(figures.committedUnacknowledged) kills between a "
            + "commit and its acknowledgement, \(figures.lostOrPartial) kills with a lost or partial write\n"
        FileHandle.standardError.write(Data(line.utf8))
        XCTAssertEqual(figures.lostOrPartial, 0)
    }

    /// Kills a writer that replaces items one commit at a time and merges segments in between, at random moments
    /// (in segment writes, in merges, between them; every other round its merges write term blocks), while this
    /// process reads the same store: after every kill the
    /// store passes its integrity check (every posting list decodes and lies in its segment), every acknowledged
    /// write is there, and every item is found by its current token and never by an older one (no dead posting
    /// comes back, no live one is lost in a merge).
    func testSIGKILLDuringMergesLosesNothingAndReadersStayExact() throws {
        let kills = Int(ProcessInfo.processInfo.environment["OPENSPOTLIGHT_KILLS"] ?? "") ?? 12
        var random = SystemRandomNumberGenerator()
        var lastToken: [Int: Int] = [:]       // item → the newest acknowledged write of it
        var everToken: [Int: Set<Int>] = [:]  // item → every write of it seen
        var acknowledged = 0
        let url = try StoreLocation.storeURL(app: app, indexName: "merges", root: root)
        for round in 0..<kills {
            // Every other round, merges write term blocks (segments of more than 16 postings are not packed).
            let (process, pipe) = try helper(["merge-loop", app, "merges", "40", round % 2 == 1 ? "16" : "\(PackedSegment.defaultLimit)"])
            XCTAssertTrue(waitForLine(pipe) { $0 == "ready" }, "the writer starts")
            // Read the store from here while the child merges (other connections, same file).
            let reader = try IndexStore(url: url, create: false)
            let deadline = Date().addingTimeInterval(Double.random(in: 0.05...0.6, using: &random))
            var searches = 0
            while Date() < deadline {
                var options = TextSearchOptions(limit: 100)
                options.typoTolerance = false
                let hits = try reader.search("item", options: options)
                XCTAssertLessThanOrEqual(hits.count, 40, "round \(round): an item is never found twice")
                XCTAssertEqual(Set(hits.map(\.item.uniqueIdentifier)).count, hits.count)
                searches += 1
            }
            XCTAssertGreaterThan(searches, 0)
            try reader.close()
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            // The write the kill interrupted, if any: it may have committed before its "ack" was written.
            var interrupted: (n: Int, k: Int)? = nil
            for line in output.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard words.count == 3, let n = Int(words[1]), let k = Int(words[2]) else { continue }
                if words[0] == "write" { interrupted = (n, k) }
                guard words[0] == "ack" else { continue }
                interrupted = nil
                lastToken[k] = max(lastToken[k] ?? 0, n)
                everToken[k, default: []].insert(n)
                acknowledged += 1
            }
            StoreRegistry.forgetAll()
            let store = try IndexStore(url: url, create: false)
            defer { try? store.close() }
            try store.checkIntegrity()
            var options = TextSearchOptions(limit: 0)
            options.typoTolerance = false
            options.lastWordIsPrefix = false
            let all = try store.search("item", options: options)
            if let interrupted, let hit = all.first(where: { $0.item.uniqueIdentifier == "m-\(interrupted.k)" }),
               case .array(let keywords)? = hit.item.attributes["keywords"], keywords.first == .string("t\(interrupted.n)") {
                // It committed: durable from now on, as an acknowledged write.
                lastToken[interrupted.k] = interrupted.n
            }
            for hit in all {
                let k = Int(hit.item.uniqueIdentifier.dropFirst(2)) ?? -1
                guard case .array(let keywords)? = hit.item.attributes["keywords"], case .string(let token)? = keywords.first,
                      let n = Int(token.dropFirst()) else {
                    XCTFail("round \(round): \(hit.item.uniqueIdentifier) has no token")
                    continue
                }
                XCTAssertGreaterThanOrEqual(n, lastToken[k] ?? 0, "round \(round): item \(k) lost its acknowledged write")
                everToken[k, default: []].insert(n)
                XCTAssertEqual(try store.search(token, options: options).map(\.item.uniqueIdentifier), [hit.item.uniqueIdentifier],
                               "round \(round): found by its current token")
                for old in everToken[k, default: []] where old < n {
                    XCTAssertEqual(try store.search("t\(old)", options: options).count, 0,
                                   "round \(round): item \(k) is found by its old token t\(old)")
                }
            }
            XCTAssertEqual(Set(all.map(\.item.uniqueIdentifier)), Set(lastToken.keys.map { "m-\($0)" }),
                           "round \(round): every acknowledged item is there")
        }
        XCTAssertGreaterThan(acknowledged, kills, "the writer got some writes done between kills")
    }

    /// SIGKILL while the maintenance trains a record dictionary and compresses every record again, and while writes
    /// go on beside it: each kill leaves a store whose every acknowledged item reads back whole (compressed with
    /// the dictionary or not), no record names a dictionary the file lacks, and the integrity check passes. A fresh
    /// index each round, so that every round trains (a store keeps its dictionary).
    func testSIGKILLDuringRecordDictionaryTrainingAndRecompressionLosesNothing() throws {
        let kills = Int(ProcessInfo.processInfo.environment["OPENSPOTLIGHT_KILLS"] ?? "") ?? 6
        var random = SystemRandomNumberGenerator()
        var trained = 0, checked = 0, compressed = 0
        for round in 0..<kills {
            let name = "dictionary-\(round)"
            let (process, pipe) = try helper(["dictionary-loop", app, name])
            XCTAssertTrue(waitForLine(pipe) { $0 == "ready" }, "the writer starts")
            Thread.sleep(forTimeInterval: Double.random(in: 0.1...2.5, using: &random))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let acknowledged = output.split(separator: "\n").compactMap { line -> Int? in
                let words = line.split(separator: " ")
                return words.count == 2 && words[0] == "ack" ? Int(words[1]) : nil
            }.max() ?? -1
            StoreRegistry.forgetAll()
            let url = try StoreLocation.storeURL(app: app, indexName: name, root: root)
            let store = try IndexStore(url: url, create: false)
            defer { try? store.close() }
            try store.checkIntegrity()
            XCTAssertGreaterThanOrEqual(try store.count(), acknowledged + 1, "round \(round): every acknowledged item is there")
            for n in 0...max(acknowledged, 0) where acknowledged >= 0 {
                XCTAssertEqual(try store.item(withIdentifier: "d-\(n)")?.attributes, dictionaryLoopAttributes(n),
                               "round \(round): item \(n)")
            }
            var readOnly = Configuration()
            readOnly.readonly = true
            let file = try DatabaseQueue(path: url.path, configuration: readOnly)
            if try file.read({ try Int.fetchOne($0, sql: "SELECT count(*) FROM recordDictionary") }) ?? 0 > 0 { trained += 1 }
            // Records compressed with a dictionary (zstd frames whose header names one: bytes 4–5 hold the frame
            // header descriptor, whose low two bits give the dictionary id's size).
            // (Records in their rows, and the live records of blocks: a catalogued item has no row.)
            compressed += try file.read { db in
                func namesDictionary(_ data: Data) -> Bool {
                    data.count > 5 && data.prefix(4) == Data([0x28, 0xB5, 0x2F, 0xFD]) && data[data.startIndex + 4] & 3 != 0
                }
                let rows = try Data.fetchAll(db, sql: "SELECT attrs FROM item").filter(namesDictionary).count
                let blocks = try Row.fetchAll(db, sql: "SELECT data, count - dead FROM recordBlock").reduce(0) { total, row in
                    total + (namesDictionary(row[0]) ? row[1] as Int : 0)
                }
                return rows + blocks
            }
            try file.close()
            checked += acknowledged + 1
        }
        print("dictionary kill loop: \(kills) SIGKILLs, \(trained) stores with a dictionary, \(compressed) records compressed with one, \(checked) acknowledged items read back whole")
        XCTAssertGreaterThan(trained, 0, "some rounds were killed after a dictionary was trained")
    }

    func dictionaryLoopAttributes(_ n: Int) -> [String: AttributeValue] {
        let words = ["archive", "tool", "library", "for", "parsing", "network", "data", "fast", "python", "images"]
        return ["title": .string("item \(n) \(words[n % 10])"),
                "contentDescription": .string("A \(words[(n / 10) % 10]) \(words[(n / 100) % 10]) of number \(n)."),
                "keywords": .array([.string(words[n % 7]), .string("k\(n % 13)")])]
    }
}
