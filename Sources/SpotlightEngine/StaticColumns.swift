import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// The static ranking signals of a segment's items as columns (doc values): `rankingHint`, `lastUsedDate` and the
/// unique identifier (for ties), by item id, so ranking reads arrays instead of one SQLite row per candidate.
///
/// A segment's items never change: an item row is written once under its id (an update is a new id) and only
/// ever deleted. So the columns of a segment, read once from the item rows of its id range, stay right for as
/// long as the segment exists, in every process, and are cached by segment id (`ColumnCache`). An item deleted
/// after they were read is still in them: readers check the item row of every hit they return.
final class SegmentColumns: Sendable {
    let firstItem: Int64
    /// Per id in `firstItem...`: whether the row existed when read, its hint and last-used date (NaN: none).
    let present: [Bool]
    let hint: [Double]
    let lastUsed: [Double]
    /// The identifiers' UTF-8 bytes, one after the other; item `i`'s are `uidBytes[uidStart[i]..<uidStart[i + 1]]`.
    let uidStart: [Int]
    let uidBytes: [UInt8]

    /// Reads the columns of `firstItem...lastItem`, copying what `known` (columns of other segments, such as the
    /// ones a merge just replaced) already holds and reading only the rest from the item rows.
    init(_ db: Database, firstItem: Int64, lastItem: Int64, known: [SegmentColumns] = []) throws {
        self.firstItem = firstItem
        let count = Int(max(0, lastItem - firstItem + 1))
        var present = [Bool](repeating: false, count: count)
        var hint = [Double](repeating: .nan, count: count)
        var lastUsed = [Double](repeating: .nan, count: count)
        var uids = [ArraySlice<UInt8>](repeating: [], count: count)
        // Ids covered by known columns, as sorted ranges.
        var covered: [ClosedRange<Int64>] = []
        for column in known.sorted(by: { $0.firstItem < $1.firstItem }) {
            let low = max(firstItem, column.firstItem), high = min(lastItem, column.lastItem)
            guard low <= high else { continue }
            for id in low...high {
                let source = Int(id - column.firstItem), target = Int(id - firstItem)
                present[target] = column.present[source]
                hint[target] = column.hint[source]
                lastUsed[target] = column.lastUsed[source]
                uids[target] = column.uidBytes[column.uidStart[source]..<column.uidStart[source + 1]]
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
        let statement = try db.cachedStatement(sql: "SELECT id, hint, lastUsed, uid FROM item WHERE id BETWEEN ? AND ?")
        for gap in gaps {
            try IndexStore.forEachRawRow(db, statement, [gap.lowerBound, gap.upperBound]) { h in
                let i = Int(sqlite3_column_int64(h, 0) - firstItem)
                guard i >= 0, i < count else { return }
                present[i] = true
                if sqlite3_column_type(h, 1) != SQLITE_NULL { hint[i] = sqlite3_column_double(h, 1) }
                if sqlite3_column_type(h, 2) != SQLITE_NULL { lastUsed[i] = sqlite3_column_double(h, 2) }
                if let text = sqlite3_column_text(h, 3) {
                    uids[i] = ArraySlice(UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(h, 3))))
                }
            }
        }
        var start = [Int]()
        start.reserveCapacity(count + 1)
        var bytes = [UInt8]()
        bytes.reserveCapacity(uids.reduce(0) { $0 + $1.count })
        for uid in uids {
            start.append(bytes.count)
            bytes += uid
        }
        start.append(bytes.count)
        self.present = present
        self.hint = hint
        self.lastUsed = lastUsed
        self.uidStart = start
        self.uidBytes = bytes
    }

    var lastItem: Int64 { firstItem + Int64(present.count) - 1 }

    var memoryFootprint: Int { present.count * 33 + uidBytes.count }

    func uid(at i: Int) -> String {
        String(decoding: uidBytes[uidStart[i]..<uidStart[i + 1]], as: UTF8.self)
    }
}

/// The columns of every segment of a store as one snapshot (`ColumnCache.columns`).
struct StaticColumns {
    /// Segments in id order, with the first id of each for a binary search.
    let segments: [SegmentColumns]
    let firsts: [Int64]

    /// The item's (hint, last used, identifier), or nil if no segment read it (an item without text, or one
    /// written after the columns were read): the caller then reads its row.
    @inline(__always)
    func signals(_ id: Int64) -> (hint: Double?, lastUsed: Double?, column: SegmentColumns, index: Int)? {
        var low = 0, high = firsts.count
        while low < high {
            let mid = (low + high) / 2
            if firsts[mid] <= id { low = mid + 1 } else { high = mid }
        }
        guard low > 0 else { return nil }
        let column = segments[low - 1]
        let i = Int(id - column.firstItem)
        guard i < column.present.count, column.present[i] else { return nil }
        let hint = column.hint[i], lastUsed = column.lastUsed[i]
        return (hint.isNaN ? nil : hint, lastUsed.isNaN ? nil : lastUsed, column, i)
    }
}

/// Columns by segment id, per store; segments that no longer exist are dropped when the next snapshot is taken.
final class ColumnCache: Sendable {
    private let cache = Mutex<[Int64: SegmentColumns]>([:])

    /// The columns of the segments `db` sees, reading those not cached yet.
    func columns(_ db: Database) throws -> StaticColumns {
        let rows = try Row.fetchAll(db.cachedStatement(sql: "SELECT id, firstItem, lastItem FROM segment ORDER BY firstItem"))
        var segments: [SegmentColumns] = []
        var firsts: [Int64] = []
        var missing: [(id: Int64, first: Int64, last: Int64)] = []
        let cached = cache.withLock { $0 }
        for row in rows {
            let id: Int64 = try row.stored(0)
            if cached[id] == nil { missing.append((id, try row.stored(1), try row.stored(2))) }
        }
        var built: [Int64: SegmentColumns] = [:]
        let all = Array(cache.withLock { $0.values })
        for m in missing {
            // A merged segment's ids were the merged segments' ids: their columns are copied, not read again.
            let known = all.filter { $0.firstItem <= m.last && $0.lastItem >= m.first }
            built[m.id] = try SegmentColumns(db, firstItem: m.first, lastItem: m.last, known: known)
        }
        let live = Set(try rows.map { try $0.stored(0) as Int64 })
        cache.withLock { cache in
            cache.merge(built) { a, _ in a }
            if cache.count > live.count { cache = cache.filter { live.contains($0.key) } }
        }
        for row in rows {
            let id: Int64 = try row.stored(0)
            guard let column = built[id] ?? cached[id] else { continue }
            segments.append(column)
            firsts.append(column.firstItem)
        }
        return StaticColumns(segments: segments, firsts: firsts)
    }
}
