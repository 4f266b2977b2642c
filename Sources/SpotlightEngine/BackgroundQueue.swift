import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A serial queue for work nobody waits for (merges, list builds, column reads), run on a thread of its own at a
/// lower scheduling priority, so that it yields the cores to the threads that write and search.
///
/// On Linux, libdispatch ignores quality of service: a `.utility` queue's work ran at the priority of a write, and
/// with two cores a merge's preparation that started right after a commit made the next single write wait for a
/// core (its call returned 4.3–4.5 ms after its commit, once in 200 writes) and a search meanwhile take twice its
/// time. A thread's nice value is what the Linux scheduler weighs: this queue's thread sets its own to 10 more
/// than the process's (a thread at nice 10 gets about a tenth of a core that a nice-0 thread wants). An
/// unprivileged thread can raise its nice value but never lower it again, so the work cannot borrow a thread of
/// libdispatch's shared pool: the thread is the queue's own, started for the first job and ended after
/// `idleSeconds` without work (an idle store holds no thread).
///
/// Semantics are `DispatchQueue`'s for a serial queue: jobs run one at a time in the order they were queued;
/// `sync` waits for the jobs queued before it (never call it from a job of the same queue); `asyncAfter` queues
/// the job when its deadline comes.
final class BackgroundQueue: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var hasThread = false
        /// The running thread (`sync` from one of the queue's own jobs returns at once instead of deadlocking).
        var thread: pthread_t? = nil
    }

    /// Names the thread (`label` of a `DispatchQueue`): what follows its last dot, at most 15 bytes (Linux's limit),
    /// as debuggers and `ps -L` show it.
    let label: String
    private let state = Mutex(State())
    /// Signalled for each job queued while the thread runs.
    private let wakeUp = DispatchSemaphore(value: 0)
    /// How much the thread's nice value exceeds the process's: 10, or `OPENSPOTLIGHT_BACKGROUND_NICE` (0 to 19; 0
    /// runs the work at the process's priority, for comparisons).
    static let niceIncrement: Int32 = {
        guard let text = ProcessInfo.processInfo.environment["OPENSPOTLIGHT_BACKGROUND_NICE"], let value = Int32(text) else { return 10 }
        return min(19, max(0, value))
    }()
    /// How long the thread waits for work before it ends.
    let idleSeconds: Double
    /// Threads started so far (diagnostics, tests).
    static let threadsStarted = Atomic<Int>(0)

    init(label: String, idleSeconds: Double = 2.0) {
        self.label = label
        self.idleSeconds = idleSeconds
    }

    func async(execute job: @escaping @Sendable () -> Void) {
        let start = state.withLock { state -> Bool in
            state.jobs.append(job)
            if state.hasThread { return false }
            state.hasThread = true
            return true
        }
        if start {
            Self.threadsStarted.add(1, ordering: .relaxed)
            Thread { [self] in run() }.start()
        } else {
            wakeUp.signal()
        }
    }

    func asyncAfter(deadline: DispatchTime, execute job: @escaping @Sendable () -> Void) {
        // The timer's thread only queues the job.
        DispatchQueue.global().asyncAfter(deadline: deadline) { [self] in async(execute: job) }
    }

    /// Waits until the jobs queued so far have run. From one of the queue's own jobs it returns at once (it would
    /// wait for itself).
    func sync() {
        let onOwnThread = state.withLock { state in state.thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
        if onOwnThread { return }
        let done = DispatchSemaphore(value: 0)
        async { done.signal() }
        done.wait()
    }

    private func run() {
        Self.lowerOwnPriority()
        Thread.current.name = String(label.split(separator: ".").last ?? "").utf8Prefix(15)
        state.withLock { $0.thread = pthread_self() }
        while true {
            let job = state.withLock { state -> (@Sendable () -> Void)? in
                state.jobs.isEmpty ? nil : state.jobs.removeFirst()
            }
            if let job {
                job()
                continue
            }
            if wakeUp.wait(timeout: .now() + idleSeconds) == .timedOut {
                // Ends only if nothing came meanwhile; a job queued after this finds no thread and starts one.
                let ends = state.withLock { state -> Bool in
                    guard state.jobs.isEmpty else { return false }
                    state.hasThread = false
                    state.thread = nil
                    return true
                }
                if ends { return }
            }
        }
    }

    /// Raises the calling thread's nice value by `niceIncrement` (Linux: the nice value is per thread).
    static func lowerOwnPriority() {
        #if os(Linux)
        // (The process's: its main thread's, whose id is the process id. A thread started by a lowered one
        // inherits its value; lowering from there again would go past what is meant.)
        guard niceIncrement > 0 else { return }
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        errno = 0
        let process = getpriority(which, id_t(getpid()))
        let base = errno == 0 ? process : 0
        _ = setpriority(which, 0, min(19, base + niceIncrement))
        #endif
    }

    /// The calling thread's nice value (tests).
    static func ownNiceValue() -> Int32 {
        #if os(Linux)
        return getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        #else
        return 0
        #endif
    }
}

private extension String {
    /// The longest prefix of at most `count` UTF-8 bytes that ends on a scalar boundary.
    func utf8Prefix(_ count: Int) -> String {
        var result = ""
        for scalar in unicodeScalars {
            if result.utf8.count + String(scalar).utf8.count > count { break }
            result.unicodeScalars.append(scalar)
        }
        return result
    }
}

/// A value computed on another core while the caller goes on, for work the caller waits for before it commits
/// (a bulk load's next window, its compressed record blocks, its new segment's lists): unlike `BackgroundQueue`'s
/// jobs, it runs at the caller's priority on libdispatch's shared pool. `value()` waits for it, or computes it
/// itself when no thread of the pool has taken it up yet.
///
/// The pool runs as many jobs at a time as there are cores: with both of them taken (a merge being prepared, a
/// search), a single write's one-item segment waited 1–3.5 ms in the queue for an encoding of microseconds, every
/// seventh write of a burst.
final class Concurrently<Value: Sendable>: Sendable {
    private let done = DispatchSemaphore(value: 0)
    /// The work until a thread takes it (the pool's or `value()`'s caller), then the value once computed.
    private let state: Mutex<(work: (@Sendable () -> Value)?, value: Value?)>
    /// Whether `value()` may compute the value on its caller's thread.
    private let mayRunInline: Bool

    /// `queue`: libdispatch's shared pool (tests pass another). `mayRunInline` false: only the pool computes it
    /// (work that reads the store, waited for by its writer's thread, where a read is a reentrant access).
    init(on queue: DispatchQueue = .global(qos: .userInitiated), mayRunInline: Bool = true,
         _ work: @escaping @Sendable () -> Value) {
        state = Mutex((work, nil))
        self.mayRunInline = mayRunInline
        queue.async { [self] in run() }
    }

    /// Computes the value if no thread has taken up the work yet.
    private func run() {
        guard let work = state.withLock({ state in
            defer { state.work = nil }
            return state.work
        }) else { return }
        let value = work()
        state.withLock { $0.value = value }
        done.signal()
    }

    /// Waits for the value (any number of times, from any thread).
    func value() -> Value {
        if mayRunInline { run() }
        done.wait()
        done.signal()
        return state.withLock { $0.value! }
    }
}
