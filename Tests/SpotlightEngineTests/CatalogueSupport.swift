import Foundation
import GRDB
@testable import SpotlightEngine

/// What tests read of the item catalogue, row items and catalogued items alike (`ItemCatalog`).
extension IndexStore {
    /// The id of the item with this identifier (expired or not).
    func catalogueID(_ uid: String) throws -> Int64? {
        try read { try ItemCatalog($0).id(of: uid) }
    }

    /// Every item's id, increasing.
    func catalogueIDs() throws -> [Int64] {
        try read { db in
            var ids: [Int64] = []
            try ItemCatalog(db).forEachID(in: Int64.min...Int64.max) { ids.append($0) }
            return ids
        }
    }

    /// The item with this id (expired or not).
    func catalogueEntry(_ id: Int64) throws -> ItemCatalog.Entry? {
        try read { try ItemCatalog($0).entry(id: id) }
    }
}

/// The Gregorian calendar in UTC, for query-language dates that do not depend on the machine's zone.
let utcCalendar: Calendar = {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar
}()

/// Runs `body` with large writes storing their items as rows (format 12 and before) and their values as rows
/// (format 13 and before): fixtures made into stores of older formats must have every item and value in a row.
func withRowItems<T>(_ body: () throws -> T) rethrows -> T {
    ItemCatalog.cataloguesLargeWrites.store(false, ordering: .relaxed)
    ValueIndex.groupsLargeWrites.store(false, ordering: .relaxed)
    defer {
        ItemCatalog.cataloguesLargeWrites.store(true, ordering: .relaxed)
        ValueIndex.groupsLargeWrites.store(true, ordering: .relaxed)
    }
    return try body()
}

extension IndexStore {
    /// The number and date index's entries of `attribute` in `lower...upper` (rows and groups).
    func valueCount(_ attribute: String, _ lower: Double = -.infinity, _ upper: Double = .infinity) throws -> Int {
        try read { try ValueIndex($0).count(code: AttributeValueIndex.code(attribute), lower: lower, upper: upper, cap: .max) }
    }

    /// Every entry of the number and date index of `attribute`, in its order (value, then item).
    func valueEntries(_ attribute: String) throws -> [(value: Double, item: Int64)] {
        try read { db in
            var entries: [(value: Double, item: Int64)] = []
            try ValueIndex(db).forEachEntry(code: AttributeValueIndex.code(attribute)) { entries.append(($0, $1)) }
            return entries
        }
    }

    /// The rows and groups of the number and date index.
    func valueRowsAndGroups() throws -> (rows: Int, groups: Int) {
        try read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM attrValue") ?? 0,
             try Int.fetchOne(db, sql: "SELECT count(*) FROM valueGroup") ?? 0)
        }
    }
}
