import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// The number and date index of one attribute (`ValueIndex` entries of one `AttributeValueIndex.code`) as a column in
/// memory, as Lucene's and Tantivy's doc values are: its values in order with their items, so a range is two binary
/// searches and an array read where `attrValue` stepped a SQLite row per item (a wide date filter on PyPI: 400,000
/// rows, more than half of a filtered search's time).
///
/// An item's values never change: an update deletes the item and inserts it again under a new id, and ids are never
/// reused (`meta.nextItem`). So a column read in one snapshot stays right for every later one once it has the items
/// created since, the newest rows of `item` (every id below `covered` is in the column): the search that finds a
/// few of them reads and decodes them (`ValueColumnCache.column`). Entries of items deleted since stay: a column
/// names a superset, as dead postings do, and whoever uses a lookup checks the item rows of what it names.
struct ValueColumn: Sendable {
    /// The values in order (`Values`: a value and where its run of entries starts, when values repeat) and each
    /// entry's item (32-bit while ids fit), sorted by value, then item.
    private(set) var values = Values()
    private(set) var items = CompactIntegers()
    /// Entries of the items added since the column was read, sorted the same way.
    private(set) var tail: [(value: Double, item: Int64)] = []
    /// Every item id below this is in the column.
    fileprivate(set) var covered: Int64 = 0
    /// The store's items' state (`IndexStore.itemsState`) the column is up to date with.
    fileprivate(set) var state: Int64 = 0

    /// The number of entries with a value in `lower...upper` (an item with several such values counts for each, as
    /// the index's entries do; deleted items count until the column is read again).
    func count(lower: Double, upper: Double) -> Int {
        let (a, b) = values.bounds(lower, upper)
        let (c, d) = Self.bounds(tail, lower, upper) { $0.value }
        return (b - a) + (d - c)
    }

    /// Calls `body` with the item of each entry whose value is in `lower...upper`.
    func forEach(lower: Double, upper: Double, _ body: (Int64) -> Void) {
        let (a, b) = values.bounds(lower, upper)
        items.forEach(in: a..<b, body)
        let (c, d) = Self.bounds(tail, lower, upper) { $0.value }
        for i in c..<d { body(tail[i].item) }
    }

    /// The entries in `lower...upper`: the first index whose value is at least `lower`, and the first past `upper`.
    /// (A NaN bound names nothing, as SQLite's `BETWEEN` with a NULL does.)
    fileprivate static func bounds<E>(_ array: [E], _ lower: Double, _ upper: Double, _ value: (E) -> Double) -> (Int, Int) {
        guard !lower.isNaN, !upper.isNaN, lower <= upper else { return (0, 0) }
        func first(_ isPast: (Double) -> Bool) -> Int {
            var low = 0, high = array.count
            while low < high {
                let mid = (low + high) / 2
                if isPast(value(array[mid])) { high = mid } else { low = mid + 1 }
            }
            return low
        }
        let start = first { $0 >= lower }
        let end = first { $0 > upper }
        return (start, max(start, end))
    }

    /// A column's values in order. Dates repeat (PyPI's 886,000 items have ~250 distinct months): then each
    /// distinct value is kept once with the index of its first entry, else every entry's value. As an array of
    /// doubles, PyPI's dates took 7 MB of every searching process.
    struct Values: Sendable {
        /// Every entry's value (`runStarts` nil), or each distinct value once.
        fileprivate var stored: [Double] = []
        /// The index of the first entry of each value of `stored`, and the entry count at the end.
        fileprivate var runStarts: [Int]? = nil
        fileprivate(set) var count = 0

        init() {}

        /// Values in ascending order (NaN never: the index holds numbers).
        init(_ sorted: [Double]) {
            var builder = Builder()
            for value in sorted { builder.append(value) }
            self = builder.values
        }

        /// Builds the values in ascending order, one at a time: as runs while values repeat enough (each run costs
        /// a value and an index, against a value per entry), else one per entry (from the first 1,024 entries
        /// on, once distinct values are more than a quarter of them).
        struct Builder {
            /// Each distinct value (`usesRuns`), or every value.
            private var stored: [Double] = []
            /// The index of each distinct value's first entry, while `usesRuns`.
            private var runs: [Int] = []
            private var usesRuns = true
            private var count = 0
            private var ordered = true

            mutating func append(_ value: Double) {
                if let last = stored.last, value < last { ordered = false }
                count += 1
                guard usesRuns else {
                    stored.append(value)
                    return
                }
                if stored.last != value {
                    stored.append(value)
                    runs.append(count - 1)
                    if count >= 1_024, stored.count * 4 > count {
                        // Values seldom repeat: one per entry from here on.
                        stored = Self.expand(stored, runs, count)
                        runs = []
                        usesRuns = false
                    }
                }
            }

            private static func expand(_ distinct: [Double], _ runs: [Int], _ count: Int) -> [Double] {
                var plain: [Double] = []
                plain.reserveCapacity(count)
                for (k, value) in distinct.enumerated() {
                    let end = k + 1 < runs.count ? runs[k + 1] : count
                    plain.append(contentsOf: repeatElement(value, count: end - runs[k]))
                }
                return plain
            }

            /// Whether every value came in order (rows out of order are damage).
            var isOrdered: Bool { ordered }

            var values: Values {
                var result = Values()
                result.count = count
                if usesRuns, stored.count * 4 <= max(count, 1) {
                    result.stored = stored
                    result.runStarts = runs + [count]
                } else {
                    result.stored = usesRuns ? Self.expand(stored, runs, count) : stored
                }
                return result
            }
        }

        /// The entries whose value is in `lower...upper`, as a range of indexes.
        func bounds(_ lower: Double, _ upper: Double) -> (Int, Int) {
            let (a, b) = ValueColumn.bounds(stored, lower, upper) { $0 }
            guard let runStarts else { return (a, b) }
            return (runStarts[a], runStarts[b])
        }
    }

    /// Reads the attribute's whole column in `db`'s snapshot.
    init(_ db: Database, code: Int64) throws {
        state = try IndexStore.itemsState(db)
        covered = try ItemCatalog(db).nextID()
        // In the index's order: by value, then item.
        let index = ValueIndex(db)
        // Built as the entries come, in the index's order (by value, then item): no plain arrays of every entry
        // first (PyPI's dates: 14 MB more at the column's peak).
        var values = Values.Builder(), items = CompactIntegers()
        try index.forEachEntry(code: code) { value, item in
            values.append(value)
            items.append(item)
        }
        if !values.isOrdered {
            // Entries out of the index's order: only damage does that. Read again and sorted, so that lookups name
            // every item whose value is in range.
            var rows: [(value: Double, item: Int64)] = []
            try index.forEachEntry(code: code) { rows.append(($0, $1)) }
            rows.sort { ($0.value, $0.item) < ($1.value, $1.item) }
            values = Values.Builder()
            items = CompactIntegers()
            for row in rows {
                values.append(row.value)
                items.append(row.item)
            }
        }
        self.values = values.values
        self.items = items
    }

    /// Adds the values of the items created since the column was last brought up to date (at most `limit` ids of
    /// them), as `db` sees them (in the items' `state` the caller read). False when there are more (the column is
    /// then read again instead).
    fileprivate mutating func catchUp(_ db: Database, code: Int64, state: Int64, limit: Int64) throws -> Bool {
        let next = try ItemCatalog(db).nextID()
        if next > covered {
            guard next - covered <= limit else { return false }
            var added: [(value: Double, item: Int64)] = []
            try ItemCatalog(db).forEachEntry(from: covered) { item in
                let record = try item.attributes(in: db)
                for entry in AttributeValueIndex.values(attributes: record.attributes, custom: record.custom)
                where AttributeValueIndex.code(entry.attribute) == code {
                    added.append((entry.value, item.id))
                }
                return true
            }
            if !added.isEmpty {
                tail = (tail + added).sorted { ($0.value, $0.item) < ($1.value, $1.item) }
            }
            covered = next
        }
        self.state = max(self.state, state)
        return true
    }

    /// Entries added since the column was read.
    var added: Int { tail.count }
    var count: Int { values.count + tail.count }
}

/// A store's value columns, as its lookups reach them (`TermLookup.range`).
struct ValueColumns {
    let cache: ValueColumnCache
    let store: IndexStore

    /// The column of `attribute` up to date with `db`'s snapshot, or nil while it is read in the background.
    func column(_ attribute: String, _ db: Database) throws -> ValueColumn? {
        try cache.column(AttributeValueIndex.code(attribute), db, store: store)
    }
}

/// The value columns of a store's attributes, by attribute code, read once per process and attribute.
///
/// A search never waits for a whole column: the first range of an attribute is read from the index, as a cold
/// process must, while its column is read on a background queue for the searches after it. A column is brought up
/// to date by the search that finds items created since it was read, when they are few (`catchUpLimit`); after a
/// larger write, or once the entries added that way (and the deleted ones they replace) reach an eighth of the
/// column, it is read again in the background, the old one serving meanwhile.
final class ValueColumnCache: Sendable {
    private let columns = Mutex<[Int64: ValueColumn]>([:])
    private let building = Mutex<Set<Int64>>([])
    private let stopped = Atomic<Bool>(false)
    private let queue = BackgroundQueue(label: "OpenSpotlight.ValueColumns")
    /// Ids of items created since a column was read that a search decodes itself (about 10 µs each).
    static let catchUpLimit: Int64 = 1_024

    /// The column of the attribute with `code`, up to date with `db`'s snapshot; nil when it is not in memory yet
    /// (its reading is then scheduled through `store`).
    func column(_ code: Int64, _ db: Database, store: IndexStore) throws -> ValueColumn? {
        guard var column = columns.withLock({ $0[code] }) else {
            schedule(code, store: store)
            return nil
        }
        let state = try IndexStore.itemsState(db)
        if state == column.state { return column }
        if state < column.state {
            // An older snapshot than the column's: it names a superset of what this one holds.
            return column
        }
        guard try column.catchUp(db, code: code, state: state, limit: Self.catchUpLimit) else {
            schedule(code, store: store)
            return nil
        }
        let updated = column
        columns.withLock { columns in
            if let current = columns[code], current.covered >= updated.covered, current.state >= updated.state { return }
            columns[code] = updated
        }
        if column.added * 8 > max(column.count, 8 * 1_024) { schedule(code, store: store) }
        return column
    }

    private func schedule(_ code: Int64, store: IndexStore) {
        guard building.withLock({ $0.insert(code).inserted }) else { return }
        queue.async { [weak self, weak store] in
            guard let self else { return }
            defer { self.building.withLock { _ = $0.remove(code) } }
            // Closing the store stops the reads and waits for the one in progress (`stop`).
            guard let store, !self.stopped.load(ordering: .acquiring) else { return }
            guard let column = try? store.read({ try ValueColumn($0, code: code) }) else { return }
            self.columns.withLock { columns in
                if let current = columns[code], current.covered > column.covered { return }
                columns[code] = column
            }
            // (What reading a large column left free goes back to the system, as after static columns.)
            if column.count >= Int(ColumnCache.trimmedAfter.load(ordering: .relaxed)) { EngineMemory.trimHeap() }
        }
    }

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
