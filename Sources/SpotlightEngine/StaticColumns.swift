import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// The static ranking signals of a segment's items as columns (doc values): `rankingHint`, `lastUsedDate`, the
/// name's signals, the best match per one-letter prefix (`Initials`) and the unique identifier (for ties), by item id, so ranking reads arrays instead of one SQLite row per candidate.
///
/// A segment's items never change: an item row is written once under its id (an update is a new id) and only
/// ever deleted. So the columns of a segment, read once from the item rows of its id range, stay right for as
/// long as the segment exists, in every process, and are cached by segment id (`ColumnCache`). An item deleted
/// after they were read is still in them: readers check the item row of every hit they return.
final class SegmentColumns: Sendable {
    let firstItem: Int64
    /// Per id in `firstItem...`: whether the row existed when read, its hint and last-used date (NaN: none).
    let present: [Bool]
    let hint: OptionalDoubleColumn
    let lastUsed: OptionalDoubleColumn
    /// The name's signals (`NameSignals`).
    let nameWords: [UInt8]
    let nameFirst: [String]
    let nameKey: [UInt64]
    /// `Initials.byteCount` bytes per item (zeros: none, or a row without them; a row's bytes are padded with zeros).
    let initials: [UInt8]
    /// The identifiers' UTF-8 bytes, one after the other; item `i`'s are `uidBytes[uidStart[i]..<uidStart[i + 1]]`.
    let uidStart: CompactIntegers
    let uidBytes: [UInt8]
    /// The most hint points (`Ranking.hintPoints`) and the latest last-used date (nil: none) of the items read: what
    /// bounds the static part of an unread candidate's score (`StaticColumns.maxStaticPoints`).
    let maxHintPoints: Double
    let maxLastUsed: Double?

    /// Reads the columns of `firstItem...lastItem`, copying what `known` (columns of other segments, such as the
    /// ones a merge just replaced) already holds and reading only the rest from the item rows.
    convenience init(_ db: Database, firstItem: Int64, lastItem: Int64, known: [SegmentColumns] = []) throws {
        let catalog = ItemCatalog(db)
        try self.init(firstItem: firstItem, lastItem: lastItem, known: known) { range, row in
            try catalog.forEachColumnRow(in: range, row)
        }
    }

    /// Reads the columns of `firstItem...lastItem` as `init(_:firstItem:lastItem:known:)` does, the item rows of
    /// each id range that `known` does not cover coming from `rows` (`ItemCatalog.forEachColumnRow`, in any number
    /// of read transactions: a segment's items are only ever deleted, so reading its range in parts names each item
    /// that exists as of its part).
    init(firstItem: Int64, lastItem: Int64, known: [SegmentColumns] = [],
         rows: (ClosedRange<Int64>, (ItemCatalog.ColumnRow) throws -> Void) throws -> Void) throws {
        self.firstItem = firstItem
        let count = Int(max(0, lastItem - firstItem + 1))
        var present = [Bool](repeating: false, count: count)
        var hint = [Double](repeating: .nan, count: count)
        var lastUsed = [Double](repeating: .nan, count: count)
        var nameWords = [UInt8](repeating: 0, count: count)
        var nameFirst = [String](repeating: "", count: count)
        var nameKey = [UInt64](repeating: 0, count: count)
        var initials = [UInt8](repeating: 0, count: count * Initials.byteCount)
        // Where each item's identifier is until the columns are laid out: in `read` (the rows' bytes, appended as
        // they come) or in a known column's bytes (`uidSource` k ≥ 0: `sorted[k]`), at `uidOffset`. (An array per
        // identifier read made PyPI's 886,000 small allocations in every process's first searches.)
        let sorted = known.sorted(by: { $0.firstItem < $1.firstItem })
        var read: [UInt8] = []
        var uidSource = [Int32](repeating: -2, count: count)
        var uidOffset = [Int](repeating: 0, count: count)
        var uidLength = [Int32](repeating: 0, count: count)
        // Ids covered by known columns, as sorted ranges.
        var covered: [ClosedRange<Int64>] = []
        for (k, column) in sorted.enumerated() {
            let low = max(firstItem, column.firstItem), high = min(lastItem, column.lastItem)
            guard low <= high else { continue }
            for id in low...high {
                let source = Int(id - column.firstItem), target = Int(id - firstItem)
                present[target] = column.present[source]
                hint[target] = column.hint[source]
                lastUsed[target] = column.lastUsed[source]
                nameWords[target] = column.nameWords[source]
                nameFirst[target] = column.nameFirst[source]
                nameKey[target] = column.nameKey[source]
                initials.replaceSubrange(target * Initials.byteCount..<(target + 1) * Initials.byteCount,
                                         with: column.initials[source * Initials.byteCount..<(source + 1) * Initials.byteCount])
                uidSource[target] = Int32(k)
                uidOffset[target] = Int(column.uidStart[source])
                uidLength[target] = Int32(column.uidStart[source + 1] - column.uidStart[source])
            }
            covered.append(low...high)
        }
        var gaps: [ClosedRange<Int64>] = []
        var next = firstItem
        for range in covered {
            if range.lowerBound > next { gaps.append(next...(range.lowerBound - 1)) }
            next = max(next, range.upperBound + 1)
        }
        if next <= lastItem { gaps.append(next...lastItem) }
        for gap in gaps {
            try rows(gap) { row in
                let i = Int(row.id - firstItem)
                guard i >= 0, i < count else { return }
                present[i] = true
                if let value = row.hint { hint[i] = value }
                if let value = row.lastUsed { lastUsed[i] = value }
                if row.uid.baseAddress != nil {
                    uidSource[i] = -1
                    uidOffset[i] = read.count
                    uidLength[i] = Int32(clamping: row.uid.count)
                    read.append(contentsOf: UnsafeBufferPointer(rebasing: row.uid.prefix(Int(uidLength[i]))))
                }
                nameWords[i] = UInt8(clamping: row.nameWords)
                nameFirst[i] = row.nameFirst
                nameKey[i] = row.nameKey
                // Another length is damage: left as no initials (a search then finds the item through its postings
                // only where they are read).
                let stored = row.initials.count
                if stored > 0, Initials.isValid(count: stored) {
                    for k in 0..<stored { initials[i * Initials.byteCount + k] = row.initials[k] }
                }
            }
        }
        var start = [Int]()
        start.reserveCapacity(count + 1)
        var bytes = [UInt8]()
        bytes.reserveCapacity(uidLength.reduce(0) { $0 + Int($1) })
        for i in 0..<count {
            start.append(bytes.count)
            let offset = uidOffset[i], length = Int(uidLength[i])
            switch uidSource[i] {
            case -1: bytes.append(contentsOf: read[offset..<offset + length])
            case let k where k >= 0: bytes.append(contentsOf: sorted[Int(k)].uidBytes[offset..<offset + length])
            default: break
            }
        }
        start.append(bytes.count)
        var maxHintPoints = 0.0
        var maxLastUsed: Double? = nil
        for i in 0..<count where present[i] {
            if !hint[i].isNaN { maxHintPoints = max(maxHintPoints, Ranking.hintPoints(hint[i])) }
            if !lastUsed[i].isNaN { maxLastUsed = max(maxLastUsed ?? -.infinity, lastUsed[i]) }
        }
        self.maxHintPoints = maxHintPoints
        self.maxLastUsed = maxLastUsed
        self.present = present
        self.hint = OptionalDoubleColumn(hint)
        self.lastUsed = OptionalDoubleColumn(lastUsed)
        self.nameWords = nameWords
        self.nameFirst = nameFirst
        self.nameKey = nameKey
        self.initials = initials
        self.uidStart = CompactIntegers(start)
        self.uidBytes = bytes
    }

    var lastItem: Int64 { firstItem + Int64(present.count) - 1 }

    func name(at i: Int) -> NameSignals {
        NameSignals(words: Int(nameWords[i]), first: nameFirst[i], key: nameKey[i])
    }

    /// The `MatchCode` of `letter` (`Initials`) of the item at `i`.
    @inline(__always)
    func initial(at i: Int, letter: Int) -> UInt8 {
        Initials.code(initials[i * Initials.byteCount..<(i + 1) * Initials.byteCount], letter: letter)
    }

    func uid(at i: Int) -> String {
        String(decoding: uidBytes[Int(uidStart[i])..<Int(uidStart[i + 1])], as: UTF8.self)
    }
}

/// Integers in 32 bits each while every one is in `0...UInt32.max` (item ids, offsets into a buffer), else in 64:
/// half the memory of an array of them (PyPI: 7 MB of identifier offsets, 3.5 MB of a date column's items).
struct CompactIntegers: Sendable {
    private var narrow: [UInt32] = []
    private var wide: [Int64]? = nil

    init() {}

    init<S: Sequence>(_ values: S) where S.Element: BinaryInteger {
        for value in values { append(Int64(value)) }
    }

    mutating func append(_ value: Int64) {
        if wide == nil {
            if value >= 0, value <= Int64(UInt32.max) {
                narrow.append(UInt32(truncatingIfNeeded: value))
                return
            }
            wide = narrow.map { Int64($0) }
            narrow = []
        }
        wide!.append(value)
    }

    @inline(__always)
    subscript(i: Int) -> Int64 {
        if let wide { return wide[i] }
        return Int64(narrow[i])
    }

    /// Calls `body` with the integers at `range`, in order.
    func forEach(in range: Range<Int>, _ body: (Int64) -> Void) {
        if let wide {
            for i in range { body(wide[i]) }
        } else {
            for i in range { body(Int64(narrow[i])) }
        }
    }

    var count: Int { wide?.count ?? narrow.count }
}

/// A column of doubles most of whose entries may be missing (NaN): a hint or a last-used date, which PyPI's items
/// mostly lack (15,000 hints and no dates among 886,000 items). Dense as an array when at least one entry in eight
/// has a value; else a bit per entry, the number of values before each 64 entries, and the values alone (14 MB of
/// PyPI's columns as two arrays of doubles, 0.4 MB so).
struct OptionalDoubleColumn: Sendable {
    private enum Storage: Sendable {
        case dense([Double])
        case sparse(bits: [UInt64], ranks: [UInt32], values: [Double])
    }

    private let storage: Storage
    let count: Int

    init(_ values: [Double]) {
        count = values.count
        let present = values.reduce(0) { $1.isNaN ? $0 : $0 + 1 }
        guard present * 8 < values.count else {
            storage = .dense(values)
            return
        }
        var bits = [UInt64](repeating: 0, count: (values.count + 63) / 64)
        var ranks = [UInt32](repeating: 0, count: bits.count)
        var kept: [Double] = []
        kept.reserveCapacity(present)
        for (i, value) in values.enumerated() where !value.isNaN {
            bits[i >> 6] |= 1 << UInt64(i & 63)
            kept.append(value)
        }
        var before: UInt32 = 0
        for word in bits.indices {
            ranks[word] = before
            before += UInt32(bits[word].nonzeroBitCount)
        }
        storage = .sparse(bits: bits, ranks: ranks, values: kept)
    }

    /// The value at `i` (NaN: none).
    @inline(__always)
    subscript(i: Int) -> Double {
        switch storage {
        case .dense(let values):
            return values[i]
        case .sparse(let bits, let ranks, let values):
            let word = bits[i >> 6], bit = UInt64(1) << UInt64(i & 63)
            guard word & bit != 0 else { return .nan }
            return values[Int(ranks[i >> 6]) + (word & (bit &- 1)).nonzeroBitCount]
        }
    }

    /// Whether the values are kept sparse (tests).
    var isSparse: Bool {
        if case .sparse = storage { return true }
        return false
    }
}

/// The segments of one read, laid end to end as one dense numbering of their items (the **item space**), with the
/// columns of those whose columns are ready (`ColumnCache.columns`).
///
/// Segment `e` covers the ids `first...last` and the dense numbers `offset ..< offset + (last - first + 1)`, so an
/// item's dense number is `offset + (id - first)`, the same index its segment's columns use. A search keeps its
/// per-item state in arrays over this numbering instead of dictionaries keyed by id. Every item with a term lies
/// in a segment; segments in id order never overlap.
struct StaticColumns {
    struct Entry {
        let first: Int64
        let last: Int64
        let offset: Int
        /// Nil while a large segment's columns are read in the background.
        let columns: SegmentColumns?

        /// The dense numbers of the segment's ids.
        var dense: Range<Int> { offset..<(offset + Int(last - first + 1)) }
    }

    /// Every segment of the read, in id order.
    let entries: [Entry]
    /// The number of dense numbers (every id of every segment's range).
    let count: Int
    /// Whether every segment has its columns here (none is still being read in the background).
    let complete: Bool

    init(_ entries: [(first: Int64, last: Int64, columns: SegmentColumns?)]) {
        var laid: [Entry] = []
        laid.reserveCapacity(entries.count)
        var offset = 0
        // (`ColumnCache.columns` refuses reversed, overlapping and oversized ranges as damage.)
        for entry in entries {
            laid.append(Entry(first: entry.first, last: entry.last, offset: offset, columns: entry.columns))
            offset = laid[laid.count - 1].dense.upperBound
        }
        self.entries = laid
        count = offset
        complete = laid.allSatisfy { $0.columns != nil }
    }

    /// The most the static parts of a score (hint, recency and the name parts other than the exact name's) add
    /// for any item of these segments as of `now`: the largest hint and the latest last-used date the columns
    /// hold, when every segment has its columns (a search ranks only items of its segments, and an item never
    /// changes under its id); else what those parts can add at most. An index whose items have no hint and no date
    /// bounds them by the name parts alone (0.5 points instead of 3.5), so a ranking stops reading lower levels of
    /// candidates sooner.
    func maxStaticPoints(now: Date) -> Double {
        let name = Ranking.nameStartPoints + Ranking.maxNameLengthPoints
        guard complete else { return Ranking.maxRankingHintPoints + Ranking.maxRecencyPoints + name }
        var hint = 0.0
        var lastUsed: Double? = nil
        for entry in entries {
            guard let columns = entry.columns else { continue }
            hint = max(hint, columns.maxHintPoints)
            if let latest = columns.maxLastUsed { lastUsed = max(lastUsed ?? -.infinity, latest) }
        }
        return hint + Ranking.recencyPoints(lastUsed: lastUsed, now: now) + name
    }

    /// The segment whose range holds `id`.
    @inline(__always)
    func entry(containing id: Int64) -> Int? {
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].first <= id { low = mid + 1 } else { high = mid }
        }
        guard low > 0, id <= entries[low - 1].last else { return nil }
        return low - 1
    }

    /// The dense number of an item, or nil when no segment's range holds it (an item without terms).
    @inline(__always)
    func index(of id: Int64) -> Int? {
        guard let e = entry(containing: id) else { return nil }
        return entries[e].offset + Int(id - entries[e].first)
    }

    /// The segment holding dense number `i`.
    @inline(__always)
    func entry(atDense i: Int) -> Int {
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].offset <= i { low = mid + 1 } else { high = mid }
        }
        return max(low - 1, 0)
    }

    /// The item id of dense number `i`.
    @inline(__always)
    func item(at i: Int) -> Int64 {
        let entry = entries[entry(atDense: i)]
        return entry.first + Int64(i - entry.offset)
    }

    /// The item's (hint, last used, identifier), or nil if no columns hold it (an item without text, a segment
    /// whose columns are still being read, or an item gone when they were read): the caller then reads its row.
    /// `entry` is the segment's place in `entries` (a ranked candidate keeps it rather than its columns, which it
    /// would retain).
    @inline(__always)
    func signals(_ id: Int64) -> (hint: Double?, lastUsed: Double?, entry: Int, index: Int)? {
        guard let e = entry(containing: id), let column = entries[e].columns else { return nil }
        let i = Int(id - entries[e].first)
        guard i < column.present.count, column.present[i] else { return nil }
        let hint = column.hint[i], lastUsed = column.lastUsed[i]
        return (hint.isNaN ? nil : hint, lastUsed.isNaN ? nil : lastUsed, e, i)
    }

    /// The name signals of item `index` of entry `entry`'s columns (`signals`).
    @inline(__always)
    func name(entry: Int, index: Int) -> NameSignals {
        entries[entry].columns!.name(at: index)
    }

    /// The identifier of item `index` of entry `entry`'s columns (`signals`).
    func uid(entry: Int, index: Int) -> String {
        entries[entry].columns!.uid(at: index)
    }

    /// Whether the identifier of item `i` of entry `a` sorts before that of item `j` of entry `b`, compared as
    /// bytes when both are ASCII, whose byte order is `String`'s; nil when either is not (the caller compares
    /// `String`s). Ties of equal scores are broken by identifier, and making each a `String` first was a tenth of
    /// a search whose prefix names 12,000 items.
    func asciiIdentifierPrecedes(entry a: Int, index i: Int, entry b: Int, index j: Int) -> Bool? {
        guard let x = entries[a].columns, let y = entries[b].columns else { return nil }
        return x.uidBytes.withUnsafeBufferPointer { xBytes in
            y.uidBytes.withUnsafeBufferPointer { yBytes -> Bool? in
                let xs = UnsafeBufferPointer(rebasing: xBytes[Int(x.uidStart[i])..<Int(x.uidStart[i + 1])])
                let ys = UnsafeBufferPointer(rebasing: yBytes[Int(y.uidStart[j])..<Int(y.uidStart[j + 1])])
                var n = 0
                let common = min(xs.count, ys.count)
                while n < common, xs[n] == ys[n] {
                    if xs[n] >= 0x80 { return nil }
                    n += 1
                }
                for byte in xs[n...] where byte >= 0x80 { return nil }
                for byte in ys[n...] where byte >= 0x80 { return nil }
                return n < common ? xs[n] < ys[n] : xs.count < ys.count
            }
        }
    }
}

/// Columns by segment id, per store; segments that no longer exist are dropped when the next snapshot is taken.
///
/// A search never waits for a large segment's columns: it reads the rows of the items it ranks, as a cold process
/// must, while the columns are read on a background queue for the searches after it (a cold open's first result
/// stays as fast as before). Small segments (a few commits) are read at once.
final class ColumnCache: Sendable {
    private let cache = Mutex<[Int64: SegmentColumns]>([:])
    private let building = Mutex<Set<Int64>>([])
    private let stopped = Atomic<Bool>(false)
    private let queue = BackgroundQueue(label: "OpenSpotlight.ColumnCache")
    /// Segments spanning at most this many ids are read by the search itself.
    static let inlineSpan: Int64 = 4_096
    /// How many ids of a large segment a background read takes in one read transaction (~20 ms; tests lower it),
    /// and how many such parts this cache has read (diagnostics, tests).
    let partSpan = Atomic<Int64>(16_384), partsRead = Atomic<Int>(0)

    /// The columns of the segments `db` sees that are ready; reads small missing ones now and schedules the
    /// large ones (through `store`'s own reads).
    func columns(_ db: Database, store: IndexStore) throws -> StaticColumns {
        let rows = try Row.fetchAll(db.cachedStatement(sql: "SELECT id, firstItem, lastItem FROM segment ORDER BY firstItem"))
        // The item space numbers every id of every range in 32 bits, and columns hold an entry per id: ranges that
        // are reversed, overlap or add up past that come only from damage, and are reported, never allocated.
        var total: Int64 = 0
        var end: Int64 = .min
        for row in rows {
            let first: Int64 = try row.stored(1), last: Int64 = try row.stored(2)
            let (span, overflow) = last.subtractingReportingOverflow(first)
            guard first > end, !overflow, span >= 0, span < Int64(Int32.max) - total else {
                throw EngineError(.corruptIndex, "the index at \(store.url.path) is damaged: its segments' item ranges are impossible")
            }
            total += span + 1
            end = last
        }
        var missing: [(id: Int64, first: Int64, last: Int64)] = []
        let cached = cache.withLock { $0 }
        for row in rows {
            let id: Int64 = try row.stored(0)
            if cached[id] == nil { missing.append((id, try row.stored(1), try row.stored(2))) }
        }
        var built: [Int64: SegmentColumns] = [:]
        var later: [(id: Int64, first: Int64, last: Int64)] = []
        for m in missing {
            if m.last - m.first < Self.inlineSpan {
                built[m.id] = try SegmentColumns(db, firstItem: m.first, lastItem: m.last, known: known(m.first, m.last, cached))
            } else {
                later.append(m)
            }
        }
        let live = Set(try rows.map { try $0.stored(0) as Int64 })
        cache.withLock { cache in
            cache.merge(built) { a, _ in a }
            if cache.count > live.count + later.count { cache = cache.filter { live.contains($0.key) } }
        }
        if !later.isEmpty { scheduleBuild(later, store: store) }
        return StaticColumns(try rows.map { row in
            let id: Int64 = try row.stored(0)
            return (try row.stored(1), try row.stored(2), built[id] ?? cached[id])
        })
    }

    /// The cached columns overlapping `first...last`: a merged segment's columns are copied from its parts'.
    private func known(_ first: Int64, _ last: Int64, _ cached: [Int64: SegmentColumns]) -> [SegmentColumns] {
        cached.values.filter { $0.firstItem <= last && $0.lastItem >= first }
    }

    private func scheduleBuild(_ segments: [(id: Int64, first: Int64, last: Int64)], store: IndexStore) {
        let wanted = building.withLock { building -> [(id: Int64, first: Int64, last: Int64)] in
            let new = segments.filter { !building.contains($0.id) }
            building.formUnion(new.map(\.id))
            return new
        }
        guard !wanted.isEmpty else { return }
        queue.async { [weak self, weak store] in
            guard let self else { return }
            defer { self.building.withLock { $0.subtract(wanted.map(\.id)) } }
            guard let store else { return }
            var trim = false
            for segment in wanted {
                // Closing the store stops the builds and waits for the one in progress (`stop`).
                guard !self.stopped.load(ordering: .acquiring) else { return }
                let cached = self.cache.withLock { $0 }
                // Read a part at a time, each part in a read transaction of its own: one transaction over a large
                // segment (PyPI's 640,000 items: 0.7–0.9 s) kept every checkpoint from copying the frames
                // committed after it began, so the WAL of the writes meanwhile grew past its bound and the commits
                // had to checkpoint. The segment is looked for in each part (a merge may have replaced it).
                guard let column = try? SegmentColumns(firstItem: segment.first, lastItem: segment.last,
                                                       known: self.known(segment.first, segment.last, cached), rows: { range, row in
                    var low = range.lowerBound
                    while low <= range.upperBound {
                        guard !self.stopped.load(ordering: .acquiring) else { throw CancellationError() }
                        let high = min(range.upperBound, low + max(1, self.partSpan.load(ordering: .relaxed)) - 1)
                        try store.read { db in
                            guard try Int.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM segment WHERE id = ?"),
                                                   arguments: [segment.id]) != nil else {
                                throw CancellationError()
                            }
                            try ItemCatalog(db).forEachColumnRow(in: low...high, row)
                        }
                        self.partsRead.add(1, ordering: .relaxed)
                        low = high + 1
                    }
                }) else { continue }
                self.cache.withLock { $0[segment.id] = column }
                if segment.last - segment.first >= Self.trimmedAfter.load(ordering: .relaxed) { trim = true }
            }
            // A large segment's read leaves its rows' copies and the arrays the columns were gathered in free (PyPI:
            // ~50 MB for 886,000 items) in this thread's malloc arena, resident: given back, off any query's path.
            if trim { EngineMemory.trimHeap() }
        }
    }

    /// Columns of this many ids or more trim the heap once read in the background (tests lower it).
    static let trimmedAfter = Atomic<Int64>(65_536)

    /// Stops reading columns in the background and waits for a read in progress (the store is closing).
    func stop() {
        stopped.store(true, ordering: .releasing)
        queue.sync()
    }

    /// Waits for the columns being read in the background (tests, measurements).
    func waitForBuilds() {
        queue.sync()
    }
}
