import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// The number and date index (`AttributeValueIndex`: every number, Boolean and date value under its attribute's
/// code), read by `QueryPlanner`'s ranges and `ValueColumns`. Every read and write of it goes through this type, so
/// its storage can change behind it (as the item catalogue's does, `ItemCatalog`).
///
/// Two kinds of entries:
/// - rows of `attrValue(attr, value, item)`: single writes, and every entry of a store written before format 14;
/// - groups (format 14) of `valueGroup(attr, value, first, last, count, items)`: the new items of a large write
///   that have one value of one attribute, at most `groupCapacity` of them in id order, as the first id and the
///   gaps to each next one (LEB128 varints). A row per entry was 18.1 MB of PyPI's index for 901,000 entries
///   of 360 distinct values (a month each); a group holds a batch's items of one month, ~2 bytes each.
///
/// Groups of one attribute and value never overlap (a write's new ids are all above every earlier id, and a group
/// loses ids but never takes any), so reading them in key order reads their items in id order. Deleting an item
/// removes its entries, wherever they are: the index names live items only, as rows always did.
struct ValueIndex {
    let db: Database

    /// Whether large writes store their new items' values as groups (on by default; tests turn it off to compare).
    static let groupsLargeWrites = Atomic<Bool>(true)
    /// The most items of a group (a delete rewrites its group: at most a few kilobytes).
    static let groupCapacity = 1_024

    static let groupTableSQL = """
        CREATE TABLE IF NOT EXISTS valueGroup(
            attr INTEGER NOT NULL, value REAL NOT NULL, first INTEGER NOT NULL, last INTEGER NOT NULL,
            count INTEGER NOT NULL, items BLOB NOT NULL, PRIMARY KEY(attr, value, first)) WITHOUT ROWID
        """

    init(_ db: Database) {
        self.db = db
    }

    /// Whether the store has groups (a store of format 13 or older opened read-only has none).
    var hasGroups: Bool {
        get throws { try db.tableExists("valueGroup") }
    }

    // MARK: Reading

    /// Calls `body` with the item of each entry of attribute `code` whose value is in `lower...upper` (items with
    /// several such values once for each; rows first, then groups).
    func forEachItem(code: Int64, lower: Double, upper: Double, _ body: (Int64) throws -> Void) throws {
        let rows = try db.cachedStatement(sql: "SELECT item FROM attrValue WHERE attr = ? AND value BETWEEN ? AND ?")
        try IndexStore.forEachRawRow(db, rows, [code, lower, upper]) { h in try body(sqlite3_column_int64(h, 0)) }
        guard try hasGroups else { return }
        let groups = try db.cachedStatement(sql: """
            SELECT first, last, count, items FROM valueGroup WHERE attr = ? AND value BETWEEN ? AND ?
            """)
        try IndexStore.forEachRawRow(db, groups, [code, lower, upper]) { h in try Self.forEachGroupItem(h, body) }
    }

    /// The number of entries of attribute `code` with a value in `lower...upper`, counted up to `cap` at least
    /// (beyond it, whatever the last group read added).
    func count(code: Int64, lower: Double, upper: Double, cap: Int) throws -> Int {
        var total = try Int.fetchOne(db.cachedStatement(sql: """
            SELECT count(*) FROM (SELECT 1 FROM attrValue WHERE attr = ? AND value BETWEEN ? AND ? LIMIT ?)
            """), arguments: [code, lower, upper, max(cap, 1)]) ?? 0
        guard total < cap, try hasGroups else { return total }
        let groups = try db.cachedStatement(sql: "SELECT count FROM valueGroup WHERE attr = ? AND value BETWEEN ? AND ?")
        struct Enough: Error {}
        do {
            try IndexStore.forEachRawRow(db, groups, [code, lower, upper]) { h in
                total += Int(sqlite3_column_int64(h, 0))
                if total >= cap { throw Enough() }
            }
        } catch is Enough {}
        return total
    }

    /// Calls `body` with every entry of attribute `code`, in order of value, then item: the rows and the groups
    /// merged.
    func forEachEntry(code: Int64, _ body: (Double, Int64) throws -> Void) throws {
        let rows = try db.cachedStatement(sql: "SELECT value, item FROM attrValue WHERE attr = ?")
        guard try hasGroups else {
            try IndexStore.forEachRawRow(db, rows, [code]) { h in try body(sqlite3_column_double(h, 0), sqlite3_column_int64(h, 1)) }
            return
        }
        // (Two statements stepped in turn on one connection: each keeps its own cursor.)
        let groups = try db.cachedStatement(sql: "SELECT value, first, last, count, items FROM valueGroup WHERE attr = ?")
        let rowHandle = rows.sqliteStatement, groupHandle = groups.sqliteStatement
        try rows.setArguments([code])
        try groups.setArguments([code])
        defer {
            sqlite3_reset(rowHandle)
            sqlite3_reset(groupHandle)
        }
        func step(_ handle: OpaquePointer) throws -> Bool {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return false }
            guard code == SQLITE_ROW else { throw IndexStore.stepError(db, code) }
            return true
        }
        func nextRow() throws -> (value: Double, item: Int64)? {
            try step(rowHandle) ? (sqlite3_column_double(rowHandle, 0), sqlite3_column_int64(rowHandle, 1)) : nil
        }
        var row = try nextRow()
        while try step(groupHandle) {
            let value = sqlite3_column_double(groupHandle, 0)
            var items: [Int64] = []
            try Self.forEachGroupItem(groupHandle, offset: 1) { items.append($0) }
            for item in items {
                while let (rowValue, rowItem) = row, (rowValue, rowItem) < (value, item) {
                    try body(rowValue, rowItem)
                    row = try nextRow()
                }
                try body(value, item)
            }
        }
        while let (rowValue, rowItem) = row {
            try body(rowValue, rowItem)
            row = try nextRow()
        }
    }

    /// The items of the group in the current row of `h` (columns `first`, `last`, `count`, `items` from `offset`).
    /// Damage (bytes that end inside a varint, more or fewer items than `count`, ids past `last`) is
    /// `.corruptIndex`, never a trap.
    private static func forEachGroupItem(_ h: OpaquePointer, offset: Int32 = 0, _ body: (Int64) throws -> Void) throws {
        let first = sqlite3_column_int64(h, offset), last = sqlite3_column_int64(h, offset + 1)
        let count = sqlite3_column_int64(h, offset + 2)
        let length = Int(sqlite3_column_bytes(h, offset + 3))
        let bytes = UnsafeRawBufferPointer(start: length > 0 ? sqlite3_column_blob(h, offset + 3) : nil, count: length)
        guard count >= 1, count <= Int64(groupCapacity), first <= last else { throw damaged }
        var item = first
        var read: Int64 = 1
        try body(item)
        var i = 0
        while i < bytes.count {
            var gap: UInt64 = 0, shift: UInt64 = 0
            while true {
                guard i < bytes.count, shift < 63 else { throw damaged }
                let byte = bytes[i]
                i += 1
                gap |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { break }
                shift += 7
            }
            let (next, overflow) = item.addingReportingOverflow(Int64(truncatingIfNeeded: gap))
            guard gap > 0, gap <= UInt64(Int64.max), !overflow, next <= last else { throw damaged }
            item = next
            read += 1
            try body(item)
        }
        guard read == count, item == last else { throw damaged }
    }

    private static var damaged: EngineError {
        EngineError(.corruptIndex, "the index is damaged: a group of its number and date index does not read back")
    }

    // MARK: Writing

    /// Adds one entry as a row (`INSERT OR IGNORE`: an item with two values that share an attribute code and value
    /// has one entry).
    func insertRow(code: Int64, value: Double, item: Int64) throws {
        let handle = try db.cachedStatement(sql: "INSERT OR IGNORE INTO attrValue(attr, value, item) VALUES(?, ?, ?)").sqliteStatement
        try SegmentMerger.bindAndStep(db, handle) {
            sqlite3_bind_int64(handle, 1, code)
            sqlite3_bind_double(handle, 2, value)
            sqlite3_bind_int64(handle, 3, item)
        }
    }

    /// Adds the items of a large write that have `value` of attribute `code` (ascending, without repeats), as
    /// groups of at most `groupCapacity`.
    func insertGroups(code: Int64, value: Double, items: [Int64]) throws {
        let insert = try db.cachedStatement(sql: """
            INSERT INTO valueGroup(attr, value, first, last, count, items) VALUES(?, ?, ?, ?, ?, ?)
            """).sqliteStatement
        var start = 0
        while start < items.count {
            let part = items[start..<min(items.count, start + Self.groupCapacity)]
            try SegmentMerger.bindAndStep(db, insert) {
                sqlite3_bind_int64(insert, 1, code)
                sqlite3_bind_double(insert, 2, value)
                sqlite3_bind_int64(insert, 3, part.first!)
                sqlite3_bind_int64(insert, 4, part.last!)
                sqlite3_bind_int64(insert, 5, Int64(part.count))
                RawBind.blob(insert, 6, Self.encodeGaps(part))
            }
            start += Self.groupCapacity
        }
    }

    /// The gaps from each item to the next, as LEB128 varints.
    static func encodeGaps(_ items: ArraySlice<Int64>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(items.count * 2)
        var previous = items.first ?? 0
        for item in items.dropFirst() {
            ValueCodec.writeVarint(UInt64(item - previous), to: &bytes)
            previous = item
        }
        return bytes
    }

    /// Removes the entry of `item` with `value` of attribute `code`: its row, or its place in its group (the group
    /// written again without it, or deleted with its last item).
    func remove(code: Int64, value: Double, item: Int64) throws {
        let deleteRow = try db.cachedStatement(sql: "DELETE FROM attrValue WHERE attr = ? AND value = ? AND item = ?")
        try deleteRow.execute(arguments: [code, value, item])
        guard db.changesCount == 0, try hasGroups else { return }
        let find = try db.cachedStatement(sql: """
            SELECT first, last, count, items FROM valueGroup WHERE attr = ? AND value = ? AND first <= ?
            ORDER BY first DESC LIMIT 1
            """)
        var group: (first: Int64, items: [Int64])? = nil
        try IndexStore.forEachRawRow(db, find, [code, value, item]) { h in
            guard sqlite3_column_int64(h, 1) >= item else { return }
            var items: [Int64] = []
            try Self.forEachGroupItem(h) { items.append($0) }
            group = (sqlite3_column_int64(h, 0), items)
        }
        guard let (first, found) = group, let position = found.firstIndex(of: item) else { return }
        var items = found
        items.remove(at: position)
        try db.cachedStatement(sql: "DELETE FROM valueGroup WHERE attr = ? AND value = ? AND first = ?")
            .execute(arguments: [code, value, first])
        if !items.isEmpty { try insertGroups(code: code, value: value, items: items) }
    }

    /// Removes every entry (`deleteAll`).
    func deleteAll() throws {
        try db.execute(sql: "DELETE FROM attrValue")
        if try hasGroups { try db.execute(sql: "DELETE FROM valueGroup") }
    }
}

/// The values a large write's new items will have as groups (`ValueIndex.insertGroups`), gathered as the items
/// come (ids ascending) and written when the write finishes.
struct PendingValueGroups {
    private var items: [Key: [Int64]] = [:]

    private struct Key: Hashable {
        var code: Int64
        var value: Double
    }

    var isEmpty: Bool { items.isEmpty }

    mutating func add(code: Int64, value: Double, item: Int64) {
        let key = Key(code: code, value: value)
        // (Two attributes whose names share a code, with one value: one entry, as `INSERT OR IGNORE` keeps.)
        if items[key]?.last != item { items[key, default: []].append(item) }
    }

    /// Takes out `item`'s entry of `value` of attribute `code`; false if it has none here.
    mutating func remove(code: Int64, value: Double, item: Int64) -> Bool {
        let key = Key(code: code, value: value)
        guard var list = items[key] else { return false }
        // (Ascending: a binary search.)
        var low = 0, high = list.count
        while low < high {
            let mid = (low + high) / 2
            if list[mid] < item { low = mid + 1 } else { high = mid }
        }
        guard low < list.count, list[low] == item else { return false }
        list.remove(at: low)
        items[key] = list.isEmpty ? nil : list
        return true
    }

    mutating func removeAll() { items.removeAll() }

    /// Writes the groups, in the table's key order, and empties the pending set.
    mutating func write(_ index: ValueIndex) throws {
        for (key, list) in items.sorted(by: { ($0.key.code, $0.key.value) < ($1.key.code, $1.key.value) }) {
            try index.insertGroups(code: key.code, value: key.value, items: list)
        }
        items.removeAll()
    }
}
