import Foundation
import GRDB
import SpotlightQueryLanguage
import SpotlightTestSupport
import XCTest
@testable import SpotlightEngine

/// Catalogued items (`ItemCatalog`, format 13): a large write's new items keep their fields in their record blocks
/// and have no row. Everything a reader or writer sees of them is what it would see of the same items as rows: the
/// same operations applied to a store that catalogues and to one that keeps rows give the same searches (scores
/// included), items, listings, counts, domains, queries and expiry, through deletes, updates in place, domain
/// deletes within the batch that wrote the items, expiry and the maintenance's moves back to rows. Real SQLite files
/// on disk.
final class ItemCatalogTests: XCTestCase {
    var directory: URL!
    var catalogued: IndexStore!
    var rows: IndexStore!
    let start = Date(timeIntervalSinceReferenceDate: 800_000_000)
    let calendar = utcCalendar

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("engine-catalog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        catalogued = try IndexStore(url: directory.appendingPathComponent("catalogued.sqlite"))
        rows = try IndexStore(url: directory.appendingPathComponent("rows.sqlite"))
    }

    override func tearDownWithError() throws {
        try? catalogued?.close()
        try? rows?.close()
        try? FileManager.default.removeItem(at: directory)
    }

    static let words = ["python", "parser", "network", "image", "tool", "async", "data", "fast", "pyramid", "pylon",
                        "nettle", "imagine", "toolbox", "database", "zebra", "quartz"]

    /// Items with every field a catalogue entry keeps: domains at several depths or none, ranking hints, last-used
    /// dates, expiry soon or later, names of one to three words.
    func item(_ n: Int, version: Int = 0, expiring soon: Bool = false) -> StoredItem {
        var random = SplitMix64(state: UInt64(n * 31 + version))
        func word() -> String { Self.words[Int(random.next() % UInt64(Self.words.count))] }
        let name = (0..<(1 + n % 3)).map { _ in word() }.joined(separator: " ")
        var attributes: [String: AttributeValue] = [
            "title": .string("\(name) \(n)"), "contentDescription": .string("\(word()) \(word()) v\(version)"),
            "keywords": .array([.string(word()), .string("k\(n % 7)")]),
            "contentCreationDate": .date(start.addingTimeInterval(-Double(n % 40) * 86_400)),
        ]
        if n % 5 == 0 { attributes["rankingHint"] = .double(Double(n % 97)) }
        if n % 7 == 0 { attributes["lastUsedDate"] = .date(start.addingTimeInterval(-Double(n) * 3_600)) }
        let domains: [String?] = [nil, "docs", "docs.a", "docs.a.b", "mail", "docsx"]
        return StoredItem(uniqueIdentifier: "it-\(n)-" + String(repeating: "é", count: n % 3), domainIdentifier: domains[n % domains.count],
                          expirationDate: soon ? start.addingTimeInterval(100) : start.addingTimeInterval(365 * 86_400),
                          attributes: attributes)
    }

    func apply(_ operations: [IndexOperation], now: Date) throws {
        try catalogued.apply(operations, now: now)
        try withRowItems { try rows.apply(operations, now: now) }
    }

    /// Everything a reader sees, as text.
    func snapshot(_ store: IndexStore, now: Date) throws -> [String] {
        var out: [String] = []
        var options = TextSearchOptions(limit: 0)
        options.now = now
        for text in ["py", "python p", "net", "image too", "databse", "zebra quartz", "k3", "", "t"] {
            let hits = try store.search(text, options: options)
            out.append("search \(text): " + hits.map { "\($0.item.uniqueIdentifier)=\(String(format: "%.9f", $0.score))" }.joined(separator: " "))
        }
        var limited = TextSearchOptions(limit: 5)
        limited.now = now
        limited.boosts = ["it-12-", "it-40-é"].reduce(into: [:]) { $0[$1] = 3 }
        out.append("top 5 of p: " + (try store.search("p", options: limited)).map(\.item.uniqueIdentifier).joined(separator: " "))
        // Nothing typed, more wanted than items have a hint or a last use: the others follow by id.
        var many = TextSearchOptions(limit: 300)
        many.now = now
        out.append("nothing typed, 300: " + (try store.search("", options: many)).map(\.item.uniqueIdentifier).joined(separator: " "))
        // Every item, a page at a time in identifier order, whole.
        var after: String? = nil
        while true {
            let page = try store.listItems(after: after, limit: 37, now: now)
            for item in page {
                out.append("item \(item.uniqueIdentifier) \(item.domainIdentifier ?? "-") \(item.expirationDate.timeIntervalSinceReferenceDate) \(item.attributes.sorted { $0.key < $1.key })")
            }
            guard let last = page.last else { break }
            after = last.uniqueIdentifier
        }
        out.append("count \(try store.count(now: now))")
        out.append("domains \(try store.domains(now: now).map { "\($0.domain)=\($0.count)" })")
        for domain in ["docs", "docs.a", "mail", "docsx", "none"] {
            out.append("domain \(domain): \(try store.count(domain: domain, now: now)) \(try store.listItems(domain: domain, limit: 1_000, now: now).map(\.uniqueIdentifier))")
        }
        for query in [#"keywords == "k3""#, #"title == "pyt*"cwdt"#, "rankingHint > 40", #"domainIdentifier == "docs.a""#,
                      "contentCreationDate >= $time.today(-10)", #"title == "*" && rankingHint >= 0"#] {
            let expression = try QueryParser.parse(query)
            let compiled = CompiledQuery(expression, now: now, calendar: calendar)
            let found = try store.items(matching: compiled, plan: QueryPlanner.plan(expression, now: now, calendar: calendar),
                                        options: QueryOptions(limit: 0, now: now))
            out.append("query \(query): \(found.map(\.uniqueIdentifier).sorted())")
        }
        // The number and date index (groups in the cataloguing store, rows in the other): every entry in order,
        // by identifier, and ranges.
        for attribute in ["rankingHint", "contentCreationDate", "lastUsedDate"] {
            let entries = try store.valueEntries(attribute)
            let uids = try store.read { db in
                try entries.map { try ItemCatalog(db).entry(id: $0.item)?.uid ?? "gone \($0.item)" }
            }
            out.append("values \(attribute): \(zip(entries, uids).map { "\($0.value)=\($1)" })")
            out.append("value count \(attribute): \(try store.valueCount(attribute)) \(try store.valueCount(attribute, 10, 50))")
        }
        for n in [0, 1, 5, 12, 40, 77, 500, 999, 1_100] {
            let uid = item(n).uniqueIdentifier
            out.append("by identifier \(uid): \(try store.item(withIdentifier: uid, now: now).map { "\($0.attributes.sorted { $0.key < $1.key })" } ?? "none")")
        }
        return out
    }

    func assertSame(_ now: Date, _ message: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let a = try snapshot(catalogued, now: now), b = try snapshot(rows, now: now)
        XCTAssertEqual(a.count, b.count, message, file: file, line: line)
        for (x, y) in zip(a, b) where x != y {
            XCTFail("\(message): catalogued \(x.prefix(600)) | rows \(y.prefix(600))", file: file, line: line)
            return
        }
        try catalogued.checkIntegrity()
        try rows.checkIntegrity()
    }

    func itemRows(_ store: IndexStore) throws -> Int {
        try store.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM item") } ?? 0
    }

    func keys(_ store: IndexStore) throws -> Int {
        try store.read { try Int.fetchOne($0, sql: "SELECT coalesce(sum(count), 0) FROM keyRun") } ?? 0
    }

    func testCataloguedItemsReadAsRowItemsThroughEveryChange() throws {
        // A large write: its new items are catalogued (no row but the few its last block leaves alone).
        try apply((0..<1_000).map { .upsert(item($0, expiring: $0 % 9 == 0)) }, now: start)
        XCTAssertLessThan(try itemRows(catalogued), RecordBlocks.minimumRecords)
        XCTAssertEqual(try keys(catalogued) + (try itemRows(catalogued)), 1_000)
        XCTAssertEqual(try itemRows(rows), 1_000)
        XCTAssertGreaterThan(try catalogued.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM itemExpiry") } ?? 0, 100,
                             "the catalogued items that expire are indexed by expiry")
        try assertSame(start, "after the bulk load")

        // A batch that adds items and, in the same batch, updates in place, replaces, deletes and deletes a
        // domain of some of them (the writer finds its own pending items), plus single operations on catalogued
        // items from the first write.
        var batch: [IndexOperation] = (1_000..<1_200).map { .upsert(item($0)) }
        batch += (1_000..<1_010).map { .upsert(StoredItem(uniqueIdentifier: item($0).uniqueIdentifier, domainIdentifier: nil,
                                                           expirationDate: .distantFuture, attributes: ["title": .string("renamed zebra \($0)")]),
                                           isUpdate: true, clearedAttributes: ["keywords"], clearedCustomKeys: []) }
        batch += (1_010..<1_020).map { .upsert(item($0, version: 1)) }
        batch.append(.delete(identifiers: (1_020..<1_030).map { item($0).uniqueIdentifier }))
        batch.append(.deleteDomains(["docs.a"]))
        batch += (0..<20).map { .upsert(StoredItem(uniqueIdentifier: item($0 * 3).uniqueIdentifier, domainIdentifier: nil,
                                                   expirationDate: .distantFuture, attributes: ["contentDescription": .string("quartz note")]),
                                     isUpdate: true, clearedAttributes: [], clearedCustomKeys: []) }
        batch.append(.delete(identifiers: (100..<140).map { item($0).uniqueIdentifier }))
        try apply(batch, now: start)
        try assertSame(start, "after a mixed batch")

        // Small writes on catalogued items: an update in place, a replacement, deletes, a domain.
        try apply([.upsert(StoredItem(uniqueIdentifier: item(41).uniqueIdentifier, domainIdentifier: nil, expirationDate: .distantFuture,
                                      attributes: ["title": .string("pylon renamed")]), isUpdate: true, clearedAttributes: [], clearedCustomKeys: [])],
                  now: start)
        try apply([.upsert(item(43, version: 2))], now: start)
        try apply([.delete(identifiers: [item(44).uniqueIdentifier, item(45).uniqueIdentifier, "never-there"])], now: start)
        try apply([.deleteDomains(["mail"])], now: start)
        try assertSame(start, "after small writes")

        // Time passes: the items that expire soon are gone to every reader, then purged.
        let later = start.addingTimeInterval(200)
        try assertSame(later, "once items expired")
        XCTAssertEqual(try catalogued.purgeExpired(now: later), try rows.purgeExpired(now: later))
        XCTAssertEqual(try catalogued.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM itemExpiry WHERE expires <= ?",
                                                           arguments: [later.timeIntervalSinceReferenceDate]) }, 0)
        try assertSame(later, "after the purge")

        // Most of the first blocks deleted: the maintenance gives their live items rows of their own.
        let blocks = try catalogued.read {
            try Row.fetchAll($0, sql: "SELECT id, last FROM recordBlock WHERE catalog = 1 ORDER BY id LIMIT 4").map { (try $0.stored(0) as Int64, try $0.stored(1) as Int64) }
        }
        var doomed: [String] = []
        for (id, last) in blocks {
            let uids = try catalogued.read { db in
                let catalog = ItemCatalog(db)
                var uids: [String] = []
                try catalog.forEachID(in: id...last) { if let entry = try catalog.entry(id: $0), case .block = entry.location { uids.append(entry.uid) } }
                return uids
            }
            doomed += uids.prefix(uids.count / 2 + 1)
        }
        let rowsBefore = try itemRows(catalogued)
        try apply([.delete(identifiers: doomed)], now: later)
        try catalogued.performMaintenance()
        try rows.performMaintenance()
        XCTAssertEqual(try catalogued.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM recordBlock WHERE id IN (\(blocks.map { "\($0.0)" }.joined(separator: ",")))") }, 0,
                       "the sparse catalogue blocks are gone")
        XCTAssertGreaterThan(try itemRows(catalogued), rowsBefore, "their live items have rows now")
        try assertSame(later, "after the maintenance moved items to rows")

        // Another store object, as another process would open it.
        try catalogued.close()
        catalogued = try IndexStore(url: directory.appendingPathComponent("catalogued.sqlite"))
        try assertSame(later, "reopened")

        // Everything replaced by a large write again, then deleted.
        try apply((0..<1_200).map { .upsert(item($0, version: 3)) }, now: later)
        try assertSame(later, "after replacing everything")
        try apply((0..<1_200).filter { $0 % 2 == 0 }.map { .delete(identifiers: [item($0).uniqueIdentifier]) }, now: later)
        try assertSame(later, "after deleting half")
        try apply([.deleteAll], now: later)
        XCTAssertEqual(try keys(catalogued), 0)
        XCTAssertEqual(try catalogued.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM recordBlock") }, 0)
        try assertSame(later, "after deleting everything")
    }

    /// The static columns a segment's ranking reads are the same from catalogue blocks as from rows.
    func testColumnsFromCatalogueBlocksEqualColumnsFromRows() throws {
        try apply((0..<700).map { .upsert(item($0)) }, now: start)
        try apply([.delete(identifiers: (0..<700).filter { $0 % 11 == 0 }.map { item($0).uniqueIdentifier })], now: start)
        func columns(_ store: IndexStore) throws -> [String] {
            let ids = try store.catalogueIDs()
            return try store.read { db in
                let columns = try SegmentColumns(db, firstItem: ids.first!, lastItem: ids.last!)
                return (0..<Int(ids.last! - ids.first! + 1)).map { i in
                    let id = ids.first! + Int64(i)
                    guard columns.present[i] else { return "\(id) -" }
                    return "\(id) \(columns.uid(at: i)) \(columns.hint[i]) \(columns.lastUsed[i]) \(columns.nameWords[i]) \(columns.nameFirst[i]) \(columns.nameKey[i]) \(columns.initials[(i * Initials.byteCount)..<((i + 1) * Initials.byteCount)])"
                }
            }
        }
        let a = try columns(catalogued), b = try columns(rows)
        XCTAssertEqual(a.count, b.count)
        XCTAssertEqual(a.filter { !$0.hasSuffix(" -") }.count, 700 - 64)
        for (x, y) in zip(a, b) where x != y { XCTFail("\(x) | \(y)"); break }
    }

    /// A format 12 store keeps its items as rows and is upgraded when opened for writing: its later large writes
    /// catalogue their items, and both kinds read back.
    func testAFormat12StoreIsUpgradedAndKeepsItsRows() throws {
        try withRowItems { try catalogued.apply((0..<300).map { .upsert(item($0)) }, now: start) }
        try catalogued.writeTransaction { db in
            try db.execute(sql: """
                DROP TABLE keyRun; DROP TABLE keyBlock; DROP TABLE itemExpiry; DROP INDEX recordBlock_catalog;
                ALTER TABLE recordBlock DROP COLUMN catalog; ALTER TABLE recordBlock DROP COLUMN gone;
                ALTER TABLE recordBlock DROP COLUMN rawFields;
                UPDATE meta SET value = 12 WHERE key = 'formatVersion';
                """)
        }
        try catalogued.close()
        catalogued = try IndexStore(url: directory.appendingPathComponent("catalogued.sqlite"))
        XCTAssertEqual(try catalogued.read { try Int.fetchOne($0, sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'formatVersion'") },
                       IndexStore.formatVersion)
        XCTAssertEqual(try itemRows(catalogued), 300)
        try withRowItems { try rows.apply((0..<300).map { .upsert(item($0)) }, now: start) }
        try assertSame(start, "upgraded")
        try apply((300..<600).map { .upsert(item($0)) }, now: start)
        XCTAssertGreaterThan(try keys(catalogued), 290, "its next large write is catalogued")
        try apply([.delete(identifiers: (250..<350).map { item($0).uniqueIdentifier })], now: start)
        try assertSame(start, "rows and catalogued items together")
    }

    /// A catalogue section and raw bytes as formats 13 to 16 wrote them: each item's initials after its name key in
    /// the raw bytes, none in the section (no flag 8).
    static func format16(_ all: [ItemCatalog.Fields]) -> (section: [UInt8], raw: [UInt8]) {
        var section: [UInt8] = [], raw: [UInt8] = []
        for fields in all {
            ValueCodec.writeString(fields.uid, to: &section)
            ValueCodec.writeOptionalString(fields.domain, to: &section)
            let expires = fields.expires < ItemCatalog.Fields.never
            section.append((expires ? 1 : 0) | (fields.hint != nil ? 2 : 0) | (fields.lastUsed != nil ? 4 : 0))
            if expires { ValueCodec.writeFixed(fields.expires.bitPattern, to: &section) }
            if let hint = fields.hint { ValueCodec.writeFixed(hint.bitPattern, to: &section) }
            if let lastUsed = fields.lastUsed { ValueCodec.writeFixed(lastUsed.bitPattern, to: &section) }
            ValueCodec.writeVarint(UInt64(fields.name.words), to: &section)
            ValueCodec.writeString(fields.name.first, to: &section)
            ValueCodec.writeFixed(fields.name.key, to: &raw)
            raw.append(UInt8(fields.initials.count))
            raw += fields.initials
        }
        return (section, raw)
    }

    /// The initials of every item of `store` by identifier, as its catalogue reads them.
    func initials(_ store: IndexStore, _ range: Range<Int>) throws -> [String] {
        try store.read { db in
            let catalog = ItemCatalog(db)
            return try range.map { n in
                let uid = item(n).uniqueIdentifier
                guard let id = try catalog.id(of: uid) else { return "\(uid) -" }
                var bytes: [UInt8] = []
                try catalog.withInitials(of: id) { bytes = Array($0) }
                return "\(uid) \(bytes)"
            }
        }
    }

    /// Format 17 keeps a catalogued item's initials in its block's compressed section; formats 13 to 16 kept them
    /// beside the frame, after the item's name key (`rawFields`). A format 16 store is upgraded by its version, its
    /// blocks read as they are, and the blocks of its next large writes, in the new layout, read beside them.
    func testAFormat16StoresBlocksReadAsTheyAreBesideTheNewOnes() throws {
        try apply((0..<400).map { .upsert(item($0)) }, now: start)
        let newRaw = try catalogued.read { try Int.fetchOne($0, sql: "SELECT sum(length(rawFields)) - 8 * sum(count) FROM recordBlock WHERE catalog = 1") }
        XCTAssertEqual(newRaw, 0, "format 17: only the name keys beside the frame")
        // The blocks written again as format 16 wrote them.
        let rewritten = try catalogued.writeTransaction { db -> Int in
            let dictionary = try RecordDictionary.current(in: db)
            let blocks = try Row.fetchAll(db, sql: "SELECT id, data, rawFields FROM recordBlock WHERE catalog = 1")
            for block in blocks {
                let id: Int64 = block[0]
                let data: Data = block[1], raw: Data = block[2]
                let decoded = try RecordBlocks.decode(frame: [UInt8](data), id: id, rawFields: [UInt8](raw), in: db)
                let (section, oldRaw) = Self.format16(Array(try XCTUnwrap(decoded.catalogue)))
                var plain: [UInt8] = [0]
                ValueCodec.writeVarint(UInt64(section.count), to: &plain)
                plain += section
                plain += RecordBlocks.encode(decoded.ids.indices.map { (id: decoded.ids[$0], plain: Array(decoded.record(at: $0))) },
                                             byAttribute: false)
                try db.execute(sql: "UPDATE recordBlock SET data = ?, rawFields = ? WHERE id = ?",
                               arguments: [Data(RecordBlocks.compressed(plain, dictionary: dictionary)), Data(oldRaw), id])
            }
            try db.execute(sql: "UPDATE meta SET value = 16 WHERE key = 'formatVersion'")
            return blocks.count
        }
        XCTAssertGreaterThan(rewritten, 3)
        try catalogued.close()
        catalogued = try IndexStore(url: directory.appendingPathComponent("catalogued.sqlite"))
        XCTAssertEqual(try catalogued.read { try Int.fetchOne($0, sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'formatVersion'") },
                       IndexStore.formatVersion)
        XCTAssertEqual(try catalogued.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM recordBlock WHERE catalog = 1 AND length(rawFields) > 8 * count") },
                       rewritten, "the blocks stay as they were")
        try assertSame(start, "format 16's blocks")
        XCTAssertEqual(try initials(catalogued, 0..<400), try initials(rows, 0..<400))
        try apply((400..<800).map { .upsert(item($0)) }, now: start)
        XCTAssertGreaterThan(try catalogued.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM recordBlock WHERE catalog = 1 AND length(rawFields) = 8 * count") } ?? 0,
                             3, "the new blocks in format 17's layout")
        try assertSame(start, "both layouts")
        XCTAssertEqual(try initials(catalogued, 0..<800), try initials(rows, 0..<800))
        try apply([.delete(identifiers: (350..<450).map { item($0).uniqueIdentifier })], now: start)
        _ = try catalogued.performMaintenance()
        _ = try rows.performMaintenance()
        try assertSame(start, "after deletes across both")
    }
}
