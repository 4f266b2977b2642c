// A child process for the crash and multi-process tests: it writes to an index the way an app would, and the
// test kills it or runs several at once. Not installed; built with the tests.
import Foundation
import OpenCoreSpotlight
import SpotlightEngine
import Synchronization

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

let args = CommandLine.arguments
guard args.count >= 4 else {
    fail("usage: openspotlight-test-helper batch-loop|write-loop|query|engine-batch-loop|kill-loop|merge-loop <app> <index> [arguments…]")
}
let mode = args[1]
OpenSpotlight.configure(applicationIdentifier: args[2])
let index = CSSearchableIndex(name: args[3])
/// Writes a line to standard output at once (no buffering), for the parent test to read.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func wait(_ body: (@escaping @Sendable ((any Error)?) -> Void) -> Void) {
    let done = DispatchSemaphore(value: 0)
    let failure = LockedError()
    body { error in
        failure.error = error
        done.signal()
    }
    done.wait()
    if let error = failure.error { fail("error: \(error)") }
}

final class LockedError: @unchecked Sendable {
    private let lock = NSLock()
    private var _error: (any Error)?
    var error: (any Error)? {
        get { lock.lock(); defer { lock.unlock() }; return _error }
        set { lock.lock(); _error = newValue; lock.unlock() }
    }
}

switch mode {
case "batch-loop":
    // Batch n replaces every item "slot-k" with title "batch n" and stores client state "n".
    let perBatch = args.count > 4 ? Int(args[4]) ?? 2000 : 2000
    var n = 0
    while true {
        n += 1
        index.beginBatch()
        let items = (0..<perBatch).map { k -> CSSearchableItem in
            let set = CSSearchableItemAttributeSet()
            set.title = "batch \(n)"
            set.contentDescription = "slot \(k) written by batch \(n) with some words to index"
            return CSSearchableItem(uniqueIdentifier: "slot-\(k)", domainIdentifier: "slots", attributeSet: set)
        }
        index.indexSearchableItems(items)
        // Items only present in odd batches, to check none leak from an uncommitted batch.
        if n % 2 == 1 {
            let set = CSSearchableItemAttributeSet()
            set.title = "odd \(n)"
            index.indexSearchableItems([CSSearchableItem(uniqueIdentifier: "odd-\(n)", domainIdentifier: "odd", attributeSet: set)])
        } else {
            index.deleteSearchableItems(withIdentifiers: ["odd-\(n - 1)"])
        }
        wait { index.endBatch(withClientState: Data("\(n)".utf8), completionHandler: $0) }
        say("committed \(n)")
    }
case "write-loop":
    let count = args.count > 4 ? Int(args[4]) ?? 200 : 200
    let prefix = args.count > 5 ? args[5] : "p"
    for i in 0..<count {
        let set = CSSearchableItemAttributeSet()
        set.title = "\(prefix) item \(i)"
        set.keywords = [prefix]
        wait { index.indexSearchableItems([CSSearchableItem(uniqueIdentifier: "\(prefix)-\(i)", domainIdentifier: prefix, attributeSet: set)], completionHandler: $0) }
        if i % 10 == 0 {
            let shared = CSSearchableItemAttributeSet()
            shared.title = "shared written by \(prefix) at \(i)"
            wait { index.indexSearchableItems([CSSearchableItem(uniqueIdentifier: "shared", domainIdentifier: "shared", attributeSet: shared)], completionHandler: $0) }
        }
    }
    say("done \(prefix)")
case "engine-batch-loop":
    // Commits batches of `perBatch` items prepared once, straight to the engine, back to back (no pause between
    // transactions: the worst case for another process waiting to write). Batch n stores client state "n".
    let perBatch = args.count > 4 ? Int(args[4]) ?? 1000 : 1000
    let store: IndexStore
    do { store = try StoreRegistry.store(app: args[2], indexName: args[3]) } catch { fail("cannot open: \(error)") }
    let operations = (0..<perBatch).map { k in
        IndexOperation.upsert(StoredItem(uniqueIdentifier: "big-\(k)", domainIdentifier: "big", expirationDate: .distantFuture,
                                         attributes: ["title": .string("big slot \(k)")]))
    }
    var n = 0
    while true {
        n += 1
        do { try store.apply(operations, clientState: .set(Data("\(n)".utf8))) } catch { fail("error: \(error)") }
        say("committed \(n)")
    }
case "merge-loop":
    // Single commits that replace random items "m-0…m-<count-1>" (title "item k", keyword token "t<n>": the n-th
    // write), with merges between them, until killed: SIGKILL lands in segment writes and in merges. Announces
    // "write n k" before write n (of item k) and "ack n k" once it is committed (a kill between the commit and the
    // announcement leaves a committed write that was never acknowledged).
    let count = args.count > 4 ? Int(args[4]) ?? 60 : 60
    // A segment size (postings) above which segments are not packed: a small one makes merges write term blocks.
    if args.count > 5, let limit = Int(args[5]) { PackedSegment.limit.store(limit, ordering: .relaxed) }
    let store: IndexStore
    do { store = try StoreRegistry.store(app: args[2], indexName: args[3]) } catch { fail("cannot open: \(error)") }
    var random = SystemRandomNumberGenerator()
    var n = (try? store.clientState()).flatMap { $0 }.flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0
    say("ready")
    while true {
        n += 1
        let k = Int.random(in: 0..<count, using: &random)
        let item = StoredItem(uniqueIdentifier: "m-\(k)", domainIdentifier: "merge", expirationDate: .distantFuture,
                              attributes: ["title": .string("item \(k)"), "keywords": .array([.string("t\(n)")])])
        do {
            say("write \(n) \(k)")
            try store.apply([.upsert(item)], clientState: .set(Data("\(n)".utf8)))
            say("ack \(n) \(k)")
            if n % 3 == 0 { try store.performMaintenance() }
        } catch {
            fail("error: \(error)")
        }
    }
case "dictionary-loop":
    // Batches of 200 items "d-<n>" (title and description from n), each acknowledged as "ack <n>" for its last
    // item, below the size that trains a record dictionary in the write; past 1,000 items the maintenance trains
    // one and compresses every record again in the background, then writes go on with it, until killed: SIGKILL
    // lands in the training, in the recompression's transactions and in writes beside them.
    let store: IndexStore
    do { store = try StoreRegistry.store(app: args[2], indexName: args[3]) } catch { fail("cannot open: \(error)") }
    say("ready")
    var n = 0
    while true {
        let batch = (0..<200).map { _ -> IndexOperation in
            defer { n += 1 }
            return .upsert(StoredItem(uniqueIdentifier: "d-\(n)", domainIdentifier: "dictionary", expirationDate: .distantFuture,
                                      attributes: dictionaryLoopAttributes(n)))
        }
        do {
            try store.apply(batch)
            say("ack \(n - 1)")
        } catch {
            fail("error: \(error)")
        }
    }
case "kill-loop":
    // Random batches and single writes until killed, for the SIGKILL loop (ProcessTests). Batch n (numbered from
    // `first`) indexes items "b<n>-0…k-1" in domain "batch-<n>" (description "part j of k"), deletes the domain of
    // batch n-2, and stores client state "n": whatever the kill, the store must hold exactly batches c-1 and c (c =
    // the stored state), each whole. Single writes index "s-<round>-<m>" one commit each. Every write is announced
    // ("ack batch n", "ack single m") only after its completion handler reported success.
    let first = args.count > 4 ? Int(args[4]) ?? 1 : 1
    let round = args.count > 5 ? args[5] : "0"
    var random = SystemRandomNumberGenerator()
    say("ready")
    var n = first, m = 0
    while true {
        if Int.random(in: 0..<10, using: &random) < 6 {
            let k = Int.random(in: 1...300, using: &random)
            index.beginBatch()
            // Indexed in a few calls, with the delete in between, as an app's batch would.
            var j = 0
            while j < k {
                let step = min(k - j, Int.random(in: 1...100, using: &random))
                let items = (j..<(j + step)).map { p -> CSSearchableItem in
                    let set = CSSearchableItemAttributeSet()
                    set.title = "batch \(n)"
                    set.contentDescription = "part \(p) of \(k)"
                    return CSSearchableItem(uniqueIdentifier: "b\(n)-\(p)", domainIdentifier: "batch-\(n)", attributeSet: set)
                }
                index.indexSearchableItems(items, completionHandler: nil)
                if j == 0 { index.deleteSearchableItems(withDomainIdentifiers: ["batch-\(n - 2)"], completionHandler: nil) }
                j += step
            }
            wait { index.endBatch(withClientState: Data("\(n)".utf8), completionHandler: $0) }
            say("ack batch \(n)")
            n += 1
        } else {
            let set = CSSearchableItemAttributeSet()
            set.title = "single \(m)"
            wait { index.indexSearchableItems([CSSearchableItem(uniqueIdentifier: "s-\(round)-\(m)", domainIdentifier: "single", attributeSet: set)], completionHandler: $0) }
            say("ack single \(m)")
            m += 1
        }
    }
case "query":
    // Runs a CSSearchQuery over every index of the app and prints the identifiers found, one a line; an error
    // exits 3 with the error on standard error (the permission tests run it as another user).
    let text = args.count > 4 ? args[4] : "*"
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do {
            var ids: [String] = []
            for try await result in CSSearchQuery(queryString: text, queryContext: nil).results { ids.append(result.id) }
            for id in ids.sorted() { say(id) }
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            exit(3)
        }
        done.signal()
    }
    done.wait()
default:
    fail("unknown mode \(mode)")
}

/// The attributes the `dictionary-loop` writes for item n (the test checks them).
func dictionaryLoopAttributes(_ n: Int) -> [String: AttributeValue] {
    let words = ["archive", "tool", "library", "for", "parsing", "network", "data", "fast", "python", "images"]
    return ["title": .string("item \(n) \(words[n % 10])"),
            "contentDescription": .string("A \(words[(n / 10) % 10]) \(words[(n / 100) % 10]) of number \(n)."),
            "keywords": .array([.string(words[n % 7]), .string("k\(n % 13)")])]
}
