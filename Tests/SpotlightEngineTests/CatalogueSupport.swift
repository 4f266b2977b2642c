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

/// Runs `body` with large writes storing their items as rows (format 12 and before): fixtures made into stores of
/// older formats must have every item in a row.
func withRowItems<T>(_ body: () throws -> T) rethrows -> T {
    ItemCatalog.cataloguesLargeWrites.store(false, ordering: .relaxed)
    defer { ItemCatalog.cataloguesLargeWrites.store(true, ordering: .relaxed) }
    return try body()
}
