import Foundation
import Synchronization
import XCTest
@testable import SpotlightEngine

/// The queue the maintenance and the column reads run on: serial, in order, on a thread of its own at a lower
/// priority that ends when idle.
final class BackgroundQueueTests: XCTestCase {
    func testJobsRunInOrderOneAtATimeAndSyncWaitsForThem() {
        let queue = BackgroundQueue(label: "test", idleSeconds: 0.2)
        let log = Mutex<[Int]>([])
        let running = Atomic<Int>(0)
        let overlapped = Atomic<Bool>(false)
        for n in 0..<200 {
            queue.async {
                if running.add(1, ordering: .relaxed).newValue > 1 { overlapped.store(true, ordering: .relaxed) }
                if n % 50 == 0 { Thread.sleep(forTimeInterval: 0.002) }
                log.withLock { $0.append(n) }
                running.subtract(1, ordering: .relaxed)
            }
        }
        queue.sync()
        XCTAssertEqual(log.withLock { $0 }, Array(0..<200))
        XCTAssertFalse(overlapped.load(ordering: .relaxed))
    }

    func testTheThreadRunsAtALowerPriorityThanTheProcess() {
        let queue = BackgroundQueue(label: "OpenSpotlight.Maintenance", idleSeconds: 0.2)
        let seen = Mutex<Int32>(0)
        let name = Mutex<String>("")
        queue.async {
            seen.withLock { $0 = BackgroundQueue.ownNiceValue() }
            name.withLock { $0 = String(contentsOfProcFile: "/proc/thread-self/comm") }
        }
        queue.sync()
        let process = BackgroundQueue.ownNiceValue()
        #if os(Linux)
        XCTAssertEqual(seen.withLock { $0 }, min(19, process + BackgroundQueue.niceIncrement))
        XCTAssertEqual(name.withLock { $0 }, "Maintenance", "the thread is named after the label's last part")
        #endif
        // The caller's own priority is untouched.
        XCTAssertEqual(BackgroundQueue.ownNiceValue(), process)
    }

    func testAnIdleThreadEndsAndTheNextJobStartsAnother() {
        let queue = BackgroundQueue(label: "test", idleSeconds: 0.05)
        let started = BackgroundQueue.threadsStarted.load(ordering: .relaxed)
        let ran = Atomic<Int>(0)
        queue.async { ran.add(1, ordering: .relaxed) }
        queue.async { ran.add(1, ordering: .relaxed) }
        queue.sync()
        XCTAssertEqual(BackgroundQueue.threadsStarted.load(ordering: .relaxed) - started, 1)
        Thread.sleep(forTimeInterval: 0.3)
        queue.async { ran.add(1, ordering: .relaxed) }
        queue.sync()
        XCTAssertEqual(ran.load(ordering: .relaxed), 3)
        // (Other tests' queues may start threads meanwhile: at least this one's second.)
        XCTAssertGreaterThanOrEqual(BackgroundQueue.threadsStarted.load(ordering: .relaxed) - started, 2)
    }

    func testAsyncAfterRunsTheJobOnTheQueueWhenItsTimeComes() {
        let queue = BackgroundQueue(label: "test", idleSeconds: 0.2)
        let order = Mutex<[String]>([])
        let done = expectation(description: "delayed job")
        let start = DispatchTime.now()
        queue.asyncAfter(deadline: .now() + 0.1) {
            order.withLock { $0.append("delayed") }
            XCTAssertGreaterThanOrEqual(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds, 100_000_000)
            done.fulfill()
        }
        queue.async { order.withLock { $0.append("now") } }
        wait(for: [done], timeout: 5)
        XCTAssertEqual(order.withLock { $0 }, ["now", "delayed"])
    }

    func testSyncFromAJobOfTheQueueDoesNotDeadlock() {
        let queue = BackgroundQueue(label: "test", idleSeconds: 0.2)
        let done = expectation(description: "job")
        queue.async {
            queue.sync()
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
    }

    /// `Concurrently`: the caller computes the value itself when no thread has taken up the work (a pool whose
    /// threads are all busy), instead of waiting for one; the work runs once either way.
    func testConcurrentlyComputesTheValueItselfWhenNoThreadHasTakenTheWork() {
        let pool = DispatchQueue(label: "busy pool")
        pool.suspend()
        defer { pool.resume() }
        let runs = Atomic<Int>(0)
        let value = Concurrently(on: pool) { () -> Int in
            runs.add(1, ordering: .relaxed)
            return 42
        }
        let got = expectation(description: "the value, with the pool's only thread busy")
        DispatchQueue.global().async {
            XCTAssertEqual(value.value(), 42)
            got.fulfill()
        }
        wait(for: [got], timeout: 10)
        pool.resume()
        pool.sync {}
        pool.suspend()
        XCTAssertEqual(value.value(), 42, "asked again")
        XCTAssertEqual(runs.load(ordering: .relaxed), 1, "the pool's turn found the work done")

        // And on a free pool, computed there and waited for.
        let free = Concurrently { () -> [Int] in
            Thread.sleep(forTimeInterval: 0.01)
            return Array(0..<1_000)
        }
        XCTAssertEqual(free.value().count, 1_000)
    }
}

private extension String {
    init(contentsOfProcFile path: String) {
        self = ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").trimmingCharacters(in: .newlines)
    }
}
