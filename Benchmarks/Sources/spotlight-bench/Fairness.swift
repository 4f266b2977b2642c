// Writer fairness between processes (issue 17, item 10): how long small writers wait for the write lock beside a
// process that commits large batches in a loop.
//
//   spotlight-bench fairness [--big-batch 2000] [--small 400] [--writers 2] [--big-api] [--workdir DIR]
//
// The big writer commits prepared batches straight to the engine (`IndexStore.apply`, no pause between its
// transactions: the worst case), or through `CSSearchableIndex` batches with `--big-api` (building each batch
// leaves the others a window).
// Runs the small writers alone first (the baseline), then again beside a child committing `--big-batch`-item
// batches back to back, and prints, for each run, the small writers' wall time and the latency of each of their
// one-item commits (p50, p99, max). A fair lock keeps the max near one big batch's commit time; without it a small
// writer can miss the lock for seconds. Not a test: the figures go to BENCHMARKS.md and Documentation/Reliability.md.
import Foundation
import OpenCoreSpotlight
import SpotlightEngine

#if canImport(Glibc)
import Glibc
#endif

enum Fairness {
    static let app = "org.openspotlight.bench.fairness"
    static let indexName = "fair"

    /// Handles `fairness` and the child modes; returns false when the arguments are not one of them.
    static func runIfRequested(_ arguments: [String]) async throws -> Bool {
        guard arguments.count > 1 else { return false }
        switch arguments[1] {
        case "fairness": try await parent(Array(arguments.dropFirst(2)))
        case "fairness-big": try await bigWriter(home: arguments[2], perBatch: Int(arguments[3]) ?? 2000)
        case "fairness-big-engine": try bigEngineWriter(home: arguments[2], perBatch: Int(arguments[3]) ?? 2000)
        case "fairness-small": try await smallWriter(home: arguments[2], count: Int(arguments[3]) ?? 400, prefix: arguments[4])
        default: return false
        }
        return true
    }

    static func configure(home: String) {
        OpenSpotlight.setRootDirectory(URL(fileURLWithPath: home))
        OpenSpotlight.configure(applicationIdentifier: app)
    }

    /// Commits batches of `perBatch` items (one transaction each, with client state) until killed.
    static func bigWriter(home: String, perBatch: Int) async throws {
        configure(home: home)
        let index = CSSearchableIndex(name: indexName)
        var n = 0
        while true {
            n += 1
            index.beginBatch()
            let items = (0..<perBatch).map { k -> CSSearchableItem in
                let set = CSSearchableItemAttributeSet(contentType: .text)
                set.title = "batch \(n) slot \(k)"
                set.contentDescription = "slot \(k) written by batch \(n) with some words to index"
                return CSSearchableItem(uniqueIdentifier: "slot-\(k)", domainIdentifier: "slots", attributeSet: set)
            }
            index.indexSearchableItems(items, completionHandler: nil)
            let start = DispatchTime.now().uptimeNanoseconds
            try await index.endBatch(withClientState: Data("\(n)".utf8))
            let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            FileHandle.standardOutput.write(Data("committed \(n) \(String(format: "%.1f", ms))\n".utf8))
        }
    }

    /// Commits batches of `perBatch` items prepared once, straight to the engine, until killed: a writer with no
    /// pause between its transactions (the worst case for the others).
    static func bigEngineWriter(home: String, perBatch: Int) throws {
        configure(home: home)
        let store = try StoreRegistry.store(app: app, indexName: indexName)
        let far = Date.distantFuture
        var n = 0
        while true {
            n += 1
            let operations = (0..<perBatch).map { k in
                IndexOperation.upsert(StoredItem(
                    uniqueIdentifier: "slot-\(k)", domainIdentifier: "slots", expirationDate: far,
                    attributes: ["title": .string("batch \(n) slot \(k)"),
                                 "contentDescription": .string("slot \(k) written by batch \(n) with some words to index")]))
            }
            let start = DispatchTime.now().uptimeNanoseconds
            try store.apply(operations, clientState: .set(Data("\(n)".utf8)))
            let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            FileHandle.standardOutput.write(Data("committed \(n) \(String(format: "%.1f", ms))\n".utf8))
        }
    }

    /// Indexes `count` items one commit each and prints the commit latencies as one JSON line.
    static func smallWriter(home: String, count: Int, prefix: String) async throws {
        configure(home: home)
        let index = CSSearchableIndex(name: indexName)
        var latencies: [Double] = []
        let begin = DispatchTime.now().uptimeNanoseconds
        for i in 0..<count {
            let set = CSSearchableItemAttributeSet(contentType: .text)
            set.title = "\(prefix) item \(i)"
            let start = DispatchTime.now().uptimeNanoseconds
            try await index.indexSearchableItems([CSSearchableItem(uniqueIdentifier: "\(prefix)-\(i)", domainIdentifier: prefix, attributeSet: set)])
            latencies.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        let total = Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e9
        let line: [String: Any] = ["writer": prefix, "items": count, "seconds": total, "latencies_ms": latencies]
        print(String(decoding: try JSONSerialization.data(withJSONObject: line), as: UTF8.self))
    }

    struct SmallResult {
        var seconds: Double
        var latencies: [Double]
    }

    static func spawn(_ arguments: [String]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        if !FileManager.default.isExecutableFile(atPath: process.executableURL!.path) {
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        }
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        return (process, pipe)
    }

    static func runSmall(home: String, writers: Int, count: Int) throws -> [SmallResult] {
        let children = try (0..<writers).map { try spawn(["fairness-small", home, "\(count)", "w\($0)"]) }
        return try children.map { process, pipe in
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0,
                  let line = String(decoding: data, as: UTF8.self).split(separator: "\n").last,
                  let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw BenchError("a small writer failed (status \(process.terminationStatus))")
            }
            return SmallResult(seconds: object["seconds"] as? Double ?? 0, latencies: object["latencies_ms"] as? [Double] ?? [])
        }
    }

    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }

    static func summary(_ label: String, _ results: [SmallResult]) -> String {
        let all = results.flatMap(\.latencies).sorted()
        let seconds = results.map(\.seconds).max() ?? 0
        return "\(label): \(results.count) writers × \(results.first?.latencies.count ?? 0) commits in "
            + String(format: "%.2f s (slowest writer); commit p50 %.1f ms, p99 %.1f ms, max %.1f ms",
                     seconds, percentile(all, 0.5), percentile(all, 0.99), all.last ?? 0)
    }

    static func parent(_ arguments: [String]) async throws {
        var bigBatch = 2000, small = 400, writers = 2
        var bigMode = "fairness-big-engine"
        var workdir = FileManager.default.temporaryDirectory.appendingPathComponent("spotlight-bench-fairness-\(getpid())").path
        var i = 0
        while i < arguments.count {
            let value = i + 1 < arguments.count ? arguments[i + 1] : ""
            switch arguments[i] {
            case "--big-batch": bigBatch = Int(value) ?? bigBatch
            case "--small": small = Int(value) ?? small
            case "--writers": writers = Int(value) ?? writers
            case "--workdir": workdir = value
            case "--big-api": bigMode = "fairness-big"; i -= 1
            default: throw BenchError("unknown argument \(arguments[i])")
            }
            i += 2
        }
        defer { try? FileManager.default.removeItem(atPath: workdir) }
        try? FileManager.default.removeItem(atPath: workdir)

        let alone = try runSmall(home: workdir + "/alone", writers: writers, count: small)
        FileHandle.standardOutput.write(Data((summary("alone", alone) + "\n").utf8))

        let home = workdir + "/beside"
        let (big, bigPipe) = try spawn([bigMode, home, "\(bigBatch)"])
        // Wait for the big writer's first commit, so the store exists and the loop is running.
        var bigLines = ""
        while !bigLines.contains("committed 1 ") {
            let data = bigPipe.fileHandleForReading.availableData
            if data.isEmpty { throw BenchError("the big writer ended") }
            bigLines += String(decoding: data, as: UTF8.self)
        }
        let beside = try runSmall(home: home, writers: writers, count: small)
        kill(big.processIdentifier, SIGKILL)
        big.waitUntilExit()
        bigLines += String(decoding: bigPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let bigCommits = bigLines.split(separator: "\n").compactMap { line -> Double? in
            let parts = line.split(separator: " ")
            return parts.count == 3 ? Double(parts[2]) : nil
        }.sorted()
        print(summary("beside a writer of \(bigBatch)-item batches", beside))
        print("the big writer: \(bigCommits.count) batches, endBatch p50 \(String(format: "%.1f", percentile(bigCommits, 0.5))) ms, max \(String(format: "%.1f", bigCommits.last ?? 0)) ms")
    }
}
