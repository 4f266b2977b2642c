import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// The terms of one first letter, per segment, held in memory for typo tolerance's walk (`Typos.vocabularySpans`):
/// at most `byteLimit` for a store and `processByteLimit` for every store of the process together, the least
/// recently used letter of any store's segments going first.
///
/// A word of nine letters or more tolerates two typos, and its walk steps 28,000–45,000 terms of its letter and
/// seeks a thousand times (PyPI: `s3transfe`, `pycparser`, `platformd`): through SQLite, 13–20 ms, most of such a
/// keystroke; over the letter's terms in memory, a tenth of that.
///
/// Since format 16 the vocabulary is the segments' own dictionaries (`SegmentVocabulary`), and so are the letters:
/// one per segment and letter, kept by the segment's random token. A segment never changes, so a letter read once
/// stays right for as long as the segment exists, whatever is written after it: a write adds a segment, whose
/// letter is read when a search first needs it (a small write's segment is packed and already in memory), and a
/// merge replaces segments by one. (Formats 5 to 15 kept one list per letter of a global vocabulary, which every
/// write that added a term made stale; searches walked the vocabulary in SQLite until it was read again.) The walk
/// runs over each segment's letter and unites what it finds (`Typos`).
final class VocabularyLetters: Sendable {
    /// One segment's terms of a letter as UTF-8 bytes, one after the other, sorted as SQLite's `BINARY` collation
    /// sorts them, with the postings each term's list holds there.
    struct Source: Sendable {
        let bytes: [UInt8]
        /// Term `i` is `bytes[starts[i] ..< starts[i + 1]]`.
        let starts: [UInt32]
        let counts: [UInt32]

        var count: Int { starts.count - 1 }
        var byteCount: Int { bytes.count + 4 * starts.count + 4 * counts.count }

        /// Term `i` as text.
        func text(_ i: Int) -> String {
            String(decoding: bytes[Int(starts[i])..<Int(starts[i + 1])], as: UTF8.self)
        }

        /// The terms that start with `key` (only `key` itself when `exact`) and that `keep` accepts by their bytes,
        /// with their counts, in order.
        func terms(startingWith key: [UInt8], exact: Bool = false,
                   where keep: (UnsafeBufferPointer<UInt8>) -> Bool = { _ in true }) -> [(text: String, count: Int)] {
            // (Returned from the closure, not added to variables outside it: so added, a release build lost every
            // term `Typos.wholeWordTypos` found, while a debug build, or one that logged them, kept them.)
            bytes.withUnsafeBufferPointer { all in
                var found: [(text: String, count: Int)] = []
                var i = lowerBound(key)
                while i < count {
                    let term = UnsafeBufferPointer(rebasing: all[Int(starts[i])..<Int(starts[i + 1])])
                    guard exact ? term.elementsEqual(key) : term.starts(with: key) else { break }
                    if keep(term) { found.append((String(decoding: term, as: UTF8.self), Int(counts[i]))) }
                    i += 1
                }
                return found
            }
        }

        /// The position of the first term not below `key` (byte order).
        func lowerBound(_ key: [UInt8]) -> Int {
            bytes.withUnsafeBufferPointer { all in
                key.withUnsafeBufferPointer { key in
                    var low = 0, high = count
                    while low < high {
                        let mid = (low + high) / 2
                        let start = Int(starts[mid]), length = Int(starts[mid + 1]) - start
                        let common = min(length, key.count)
                        let order = common == 0 ? 0 : memcmp(all.baseAddress! + start, key.baseAddress!, common)
                        if order < 0 || (order == 0 && length < key.count) { low = mid + 1 } else { high = mid }
                    }
                    return low
                }
            }
        }
    }

    /// A letter's terms in every segment of one read: one source per segment that has any.
    struct Letter: Sendable {
        let sources: [Source]
    }

    private struct Key: Hashable {
        /// A packed segment's token, or for the large segments' letter merged, a hash of their tokens.
        var token: Int64
        var letter: String
        /// The large segments' (term blocks) letter merged into one.
        var merged = false
    }

    private struct State {
        var sources: [Key: Source] = [:]
        /// When each source was last used or read, on the process's clock (`clock`).
        var used: [Key: UInt64] = [:]
        var bytes = 0

        mutating func remove(_ key: Key) {
            bytes -= sources.removeValue(forKey: key)?.byteCount ?? 0
            used[key] = nil
        }

        mutating func removeOldest() {
            guard let oldest = used.min(by: { $0.value < $1.value })?.key else { return }
            remove(oldest)
        }
    }

    private let state = Mutex(State())
    /// Every store's letters in this process together hold at most this many bytes (tests lower it): a `spotlight`
    /// search or a desktop provider reads the stores of many apps, each allowed `byteLimit`. The least recently used
    /// letter of any store goes first.
    static let processByteLimit = Atomic<Int>(64 << 20)
    /// The stores' letters in this process, for the process's limit.
    private static let all = Mutex<[Registered]>([])
    private struct Registered {
        weak var letters: VocabularyLetters?
    }
    /// The order of uses across the stores (`State.used`).
    private static let clock = Atomic<UInt64>(0)
    private let stopped = Atomic<Bool>(false)

    init() {
        Self.all.withLock { all in
            all.removeAll { $0.letters == nil }
            all.append(Registered(letters: self))
        }
    }

    /// The bytes this store's letters hold, and whether it holds `letter` of some segment (tests, diagnostics).
    var heldBytes: Int { state.withLock { $0.bytes } }
    func holds(_ letter: String) -> Bool { state.withLock { $0.sources.keys.contains { $0.letter == letter } } }
    /// The most bytes the letters of one store hold together; the least recently used go first. (PyPI's whole
    /// vocabulary, 1.19 million terms, takes about 24 MB.)
    static let byteLimit = 24 << 20
    /// Segment letters read so far (tests, diagnostics).
    let lettersRead = Atomic<Int>(0)

    /// The terms of `letter` (one scalar, as text) in every segment of `db`'s snapshot: kept letters, and those
    /// not kept read now and kept (a large segment's commonest letter: PyPI's `p`, ~80,000 terms, a few
    /// milliseconds once per process).
    ///
    /// The large segments (term blocks) have one letter for all of them, their terms merged in order: each walk
    /// seeks once for every beginning too far from the word, in every source, so walking four large segments' `p`
    /// apart took PyPI's two-typo words (`platformd`, `pycparser`) 3 ms more than one. They change only with large
    /// writes and merges of large segments, when their letter is read again; the packed segments that single
    /// writes add are walked apart, each a few terms.
    func terms(of letter: String, _ db: Database, store: IndexStore) throws -> Letter? {
        guard !stopped.load(ordering: .acquiring) else { return nil }
        let low = Array(letter.utf8), high = low + Typos.SpanWalk.beyond
        var sources: [Source] = []
        var read: [(Key, Source)] = []
        let segments = try PostingStore.Segments(db)
        func source(_ key: Key, _ make: () throws -> Source) throws {
            if let kept = kept(key) {
                if kept.count > 0 { sources.append(kept) }
                return
            }
            let made = try make()
            read.append((key, made))
            if made.count > 0 { sources.append(made) }
        }
        if !segments.blocked.isEmpty {
            try source(Key(token: Self.combinedToken(segments.blocked), letter: letter, merged: true)) {
                Self.merge(try segments.blocked.map { segment in
                    try Self.source { visit in try segment.forEachTerm(db, from: low, below: high, visit) }
                })
            }
        }
        for segment in segments.packed {
            try source(Key(token: segment.token, letter: letter)) {
                try Self.source { visit in try segment.forEachTerm(from: low, below: high, visit) }
            }
        }
        for segment in segments.rows {
            // A format 10 store's segments stored as posting rows (read-only; a store opened for writing has them
            // written again as blocks by its maintenance): read at every search, never kept.
            let made = try Self.source { visit in
                try SegmentVocabulary.Source.rows(segment).forEachTerm(db, from: low, below: high, visit)
            }
            if made.count > 0 { sources.append(made) }
        }
        if !read.isEmpty {
            lettersRead.add(read.count, ordering: .relaxed)
            state.withLock { state in
                for (key, source) in read {
                    // (The letter of the large segments as they were before: gone.)
                    if key.merged {
                        for old in state.sources.keys where old.merged && old.letter == key.letter { state.remove(old) }
                    }
                    state.remove(key)
                    state.sources[key] = source
                    state.used[key] = Self.clock.add(1, ordering: .relaxed).newValue
                    state.bytes += source.byteCount
                }
                while state.bytes > Self.byteLimit, state.sources.count > 1 { state.removeOldest() }
            }
            Self.keepProcessLimit()
        }
        return Letter(sources: sources)
    }

    /// What the large segments' merged letters are kept by: a hash of the segments' tokens.
    static func combinedToken(_ blocked: [BlockedSegment]) -> Int64 {
        var combined: UInt64 = 0xCBF2_9CE4_8422_2325
        for segment in blocked {
            combined = (combined ^ UInt64(bitPattern: segment.token)) &* 0x0000_0100_0000_01B3
        }
        return Int64(bitPattern: combined)
    }

    /// The large segments' merged terms of `letter`, when this store keeps them for exactly these segments
    /// (nothing is read: typo tolerance's first-letter spellings look a spelling up here when its letter is kept,
    /// else in the segments' blocks).
    func keptLetter(_ letter: String, of blocked: [BlockedSegment]) -> Source? {
        guard !blocked.isEmpty else { return nil }
        return kept(Key(token: Self.combinedToken(blocked), letter: letter, merged: true))
    }

    /// The source kept under `key`, marked used.
    private func kept(_ key: Key) -> Source? {
        state.withLock { state in
            guard let source = state.sources[key] else { return nil }
            state.used[key] = Self.clock.add(1, ordering: .relaxed).newValue
            return source
        }
    }

    /// The terms of `word`'s first letter, as `terms(of:_:store:)` gives them.
    func terms(startingAs word: String, _ db: Database, store: IndexStore) throws -> Letter? {
        guard let first = word.unicodeScalars.first else { return nil }
        return try terms(of: String(first), db, store: store)
    }

    /// A source from a segment's range of terms (`visit` calls its argument with each term in order): its first
    /// `limit` terms (the rest of the range is not stepped).
    static func source(limit: Int = .max, _ visit: ((UnsafeRawBufferPointer, Int) throws -> Void) throws -> Void) throws
        -> Source
    {
        struct Enough: Error {}
        var bytes: [UInt8] = []
        var starts: [UInt32] = [0]
        var counts: [UInt32] = []
        do {
            try visit { term, count in
                guard counts.count < limit else { throw Enough() }
                bytes.append(contentsOf: term)
                // (A segment past 4 GB of one letter's text is no index this engine writes.)
                guard bytes.count < Int(UInt32.max) else { throw TermBlocks.damaged }
                starts.append(UInt32(bytes.count))
                counts.append(UInt32(clamping: count))
            }
        } catch is Enough {}
        return Source(bytes: bytes, starts: starts, counts: counts)
    }

    /// Sources merged into one in byte order, the counts of a term several hold added.
    static func merge(_ sources: [Source]) -> Source {
        let sources = sources.filter { $0.count > 0 }
        guard sources.count > 1 else { return sources.first ?? Source(bytes: [], starts: [0], counts: []) }
        var bytes: [UInt8] = []
        var starts: [UInt32] = [0]
        var counts: [UInt32] = []
        bytes.reserveCapacity(sources.reduce(0) { $0 + $1.bytes.count })
        starts.reserveCapacity(sources.reduce(1) { $0 + $1.count })
        var positions = [Int](repeating: 0, count: sources.count)
        /// Term `i` of source `s` against term `j` of source `t`: memcmp's order.
        func order(_ s: Int, _ i: Int, _ t: Int, _ j: Int) -> Int32 {
            let a = sources[s], b = sources[t]
            let aStart = Int(a.starts[i]), aCount = Int(a.starts[i + 1]) - aStart
            let bStart = Int(b.starts[j]), bCount = Int(b.starts[j + 1]) - bStart
            let common = min(aCount, bCount)
            let c = common == 0 ? 0 : a.bytes.withUnsafeBytes { x in
                b.bytes.withUnsafeBytes { y in memcmp(x.baseAddress! + aStart, y.baseAddress! + bStart, common) }
            }
            return c != 0 ? c : Int32(aCount - bCount).signum()
        }
        while true {
            var smallest = -1
            for s in sources.indices where positions[s] < sources[s].count {
                if smallest < 0 || order(s, positions[s], smallest, positions[smallest]) < 0 { smallest = s }
            }
            guard smallest >= 0 else { break }
            let head = positions[smallest]
            var count = UInt64(sources[smallest].counts[head])
            for s in sources.indices where s != smallest && positions[s] < sources[s].count
                && order(s, positions[s], smallest, head) == 0 {
                count += UInt64(sources[s].counts[positions[s]])
                positions[s] += 1
            }
            let source = sources[smallest]
            bytes.append(contentsOf: source.bytes[Int(source.starts[head])..<Int(source.starts[head + 1])])
            starts.append(UInt32(bytes.count))
            counts.append(UInt32(clamping: count))
            positions[smallest] += 1
        }
        return Source(bytes: bytes, starts: starts, counts: counts)
    }

    /// A letter's terms in every segment of `db`'s snapshot, read now and kept nowhere (tests, and callers
    /// without a store).
    static func read(_ letter: String, _ db: Database) throws -> Letter? {
        let low = Array(letter.utf8), high = low + Typos.SpanWalk.beyond
        var sources: [Source] = []
        for segment in try SegmentVocabulary.sources(db) {
            let made = try source { body in try segment.forEachTerm(db, from: low, below: high, body) }
            if made.count > 0 { sources.append(made) }
        }
        return Letter(sources: sources)
    }

    /// Drops the least recently used letters of every store in this process until they hold `processByteLimit` at
    /// most. Each store's lock is taken on its own (never two at once): a letter used since it was found oldest is
    /// kept, and the next oldest looked for.
    static func keepProcessLimit() {
        let limit = processByteLimit.load(ordering: .relaxed)
        while true {
            let stores = all.withLock { all -> [VocabularyLetters] in
                all.removeAll { $0.letters == nil }
                return all.compactMap(\.letters)
            }
            var total = 0
            var oldest: (store: VocabularyLetters, key: Key, used: UInt64)? = nil
            for store in stores {
                store.state.withLock { state in
                    total += state.bytes
                    for (key, used) in state.used where oldest.map({ used < $0.used }) ?? true {
                        oldest = (store, key, used)
                    }
                }
            }
            guard total > limit, let oldest else { return }
            oldest.store.state.withLock { state in
                if state.used[oldest.key] == oldest.used { state.remove(oldest.key) }
            }
        }
    }

    /// Forgets every letter and reads none again (the store is closing).
    func stop() {
        stopped.store(true, ordering: .releasing)
        // A closed store's letters count toward no limit.
        state.withLock { $0 = State() }
    }
}
