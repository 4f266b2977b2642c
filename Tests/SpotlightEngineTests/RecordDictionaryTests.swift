import Foundation
import GRDB
import SpotlightTestSupport
import XCTest
@testable import SpotlightEngine

/// Stored records are compressed with a zstd dictionary trained on the index's own records (`RecordDictionary`,
/// format 5): trained by the first large write or by the maintenance, stored in the same transaction as the first
/// record that uses it, read back from the file by a process that never saw it trained, and every record written
/// before it (or by format 4) still reads. A real SQLite file on disk.
final class RecordDictionaryTests: XCTestCase {
    var directory: URL!
    let later = Date().addingTimeInterval(365 * 86_400)

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("engine-dictionary-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    static let words = ["library", "python", "client", "server", "parser", "data", "fast", "simple", "tools", "for",
                        "the", "and", "with", "async", "http", "json", "database", "testing", "framework", "image",
                        "network", "graph", "plugin", "command", "line", "interface", "wrapper", "api", "model"]

    /// Items shaped like a package index's: a name, a one-line summary, keywords, a date and a type.
    func items(_ range: Range<Int>, prefix: String = "pkg") -> [StoredItem] {
        Self.items(range, prefix: prefix, expiring: later)
    }

    static func items(_ range: Range<Int>, prefix: String = "pkg", expiring later: Date) -> [StoredItem] {
        var random = SplitMix64(state: UInt64(range.lowerBound) &+ 7)
        func word() -> String { words[Int(random.next() % UInt64(words.count))] }
        return range.map { n in
            let name = "\(word())-\(word())-\(n)"
            let summary = (0..<(4 + Int(random.next() % 8))).map { _ in word() }.joined(separator: " ")
            return StoredItem(uniqueIdentifier: "\(prefix):\(n)", domainIdentifier: "packages", expirationDate: later,
                              attributes: ["title": .string(name), "contentDescription": .string("A \(summary)."),
                                           "keywords": .array(name.split(separator: "-").map { .string(String($0)) }),
                                           "contentModificationDate": .date(Date(timeIntervalSinceReferenceDate: Double(n) * 86_400)),
                                           "contentType": .string("public.text"),
                                           "contentTypeTree": .array(["public.text", "public.data", "public.content", "public.item"].map { .string($0) })])
        }
    }

    func lists(_ store: IndexStore) throws -> [(prefix: String, complete: Bool, entries: [PrefixLists.Entry])] {
        try store.read { db in
            try Row.fetchAll(db, sql: "SELECT prefix, complete, entries FROM prefixTop ORDER BY prefix").map {
                (try $0.stored(0), try $0.stored(1), PrefixLists.decode(try $0.stored(2)))
            }
        }
    }

    /// Format 4's encoding of a prefix list: per entry the item id (8), the key's bits (8), the identifier's
    /// length (2) and bytes.
    static func encodeFormat4(_ entries: [PrefixLists.Entry]) -> Data {
        var data = Data()
        for e in entries {
            withUnsafeBytes(of: e.item.littleEndian) { data.append(contentsOf: $0) }
            withUnsafeBytes(of: e.key.bitPattern.littleEndian) { data.append(contentsOf: $0) }
            withUnsafeBytes(of: UInt16(e.uid.utf8.count).littleEndian) { data.append(contentsOf: $0) }
            data.append(contentsOf: Array(e.uid.utf8))
        }
        return data
    }

    func testPrefixListsEncodeIdentifiersAsTheirSharedStartAndReadDamageAsAShorterList() {
        let entries = [
            PrefixLists.Entry(item: 1, key: 9.5, uid: "debian:libfoo"),
            PrefixLists.Entry(item: 300_000_000_000, key: 9.5, uid: "debian:libfoo-dev"),
            PrefixLists.Entry(item: 7, key: 3.25, uid: "debian:lib"),
            PrefixLists.Entry(item: 8, key: 3.0, uid: ""),
            PrefixLists.Entry(item: 9, key: -1, uid: "Boîte/reçue 📬"),
            PrefixLists.Entry(item: 10, key: .infinity, uid: "Boîte/reçue 📮"),
        ]
        let encoded = PrefixLists.encode(entries)
        XCTAssertEqual(PrefixLists.decode(encoded), entries)
        XCTAssertLessThan(encoded.count, Self.encodeFormat4(entries).count * 3 / 4)
        XCTAssertEqual(PrefixLists.decodeFormat4(Self.encodeFormat4(entries)), entries)
        // Every cut and every changed byte reads as a list (a prefix of the entries for a cut), never a trap.
        for cut in 0..<encoded.count {
            let decoded = PrefixLists.decode(encoded.prefix(cut))
            XCTAssertEqual(decoded, Array(entries.prefix(decoded.count)))
        }
        var random = SplitMix64(state: 11)
        for _ in 0..<2_000 {
            var damaged = [UInt8](encoded)
            damaged[Int(random.next() % UInt64(damaged.count))] = UInt8(truncatingIfNeeded: random.next())
            _ = PrefixLists.decode(Data(damaged))
            _ = Data(damaged).withUnsafeBytes { PrefixLists.forEachEncoded($0) { _, _, _ in true } }
        }
    }

    func recordBytes(_ store: IndexStore) throws -> Int {
        try store.read {
            try Int.fetchOne($0, sql: """
                SELECT (SELECT coalesce(sum(length(attrs)), 0) FROM item) + (SELECT coalesce(sum(length(data)), 0) FROM recordBlock)
                """)
        } ?? 0
    }

    /// The dictionary ids the store's records name (0: a frame without one, or an uncompressed record).
    func dictionaryIDs(_ store: IndexStore) throws -> [UInt32: Int] {
        try store.read { db in
            var ids: [UInt32: Int] = [:]
            // A record in a block (an empty `attrs`) names its block's dictionary.
            for data in try Data.fetchAll(db, sql: """
                SELECT CASE WHEN length(i.attrs) > 0 THEN i.attrs
                            ELSE (SELECT data FROM recordBlock b WHERE b.id <= i.id ORDER BY b.id DESC LIMIT 1) END
                FROM item i
                """) {
                ids[ValueCodec.dictionaryID(of: [UInt8](data)), default: 0] += 1
            }
            // So does a catalogued item (`ItemCatalog`), which has no row.
            for row in try Row.fetchAll(db, sql: "SELECT data, count - dead FROM recordBlock WHERE catalog = 1") {
                ids[ValueCodec.dictionaryID(of: [UInt8](try row.stored(0) as Data)), default: 0] += try row.stored(1) as Int
            }
            return ids
        }
    }

    func testALargeWriteTrainsADictionaryThatMakesRecordsSmallerAndReadsBackFromTheFile() throws {
        let url = directory.appendingPathComponent("large.sqlite")
        let store = try IndexStore(url: url)
        let written = items(0..<3_000)
        try store.apply(written.map { .upsert($0) })
        let stored = try store.read { db in
            try Row.fetchAll(db, sql: "SELECT id, length(data) AS n FROM recordDictionary").map { (try $0.stored("id") as Int64, try $0.stored("n") as Int) }
        }
        XCTAssertEqual(stored.count, 1, "one dictionary, stored with the batch")
        XCTAssertGreaterThan(stored[0].1, 1_000)
        XCTAssertEqual(try store.read { try Int64.fetchOne($0, sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'recordDictionary'") },
                       stored[0].0, "the store's dictionary for writes")
        let ids = try dictionaryIDs(store)
        XCTAssertEqual(ids[UInt32(stored[0].0)], 3_000, "every record of the batch uses it: \(ids)")

        // The same records compressed without a dictionary (as format 4 stored them) take far more room.
        let withDictionary = try recordBytes(store)
        let without = written.reduce(0) { $0 + ValueCodec.stored(attributes: $1.attributes, custom: $1.customAttributes).count }
        XCTAssertLessThan(Double(withDictionary), Double(without) * 0.8, "\(withDictionary) bytes against \(without)")

        // Read back whole, here and from a copy of the file that no process has read yet (its dictionary comes
        // from the file, not from what this process trained).
        for item in written.prefix(50) + written.suffix(50) {
            XCTAssertEqual(try store.item(withIdentifier: item.uniqueIdentifier)?.attributes, item.attributes)
        }
        try store.close()
        let copy = directory.appendingPathComponent("copy.sqlite")
        try FileManager.default.copyItem(at: url, to: copy)
        let reopened = try IndexStore(url: copy)
        defer { try? reopened.close() }
        for item in written.shuffled().prefix(200) {
            XCTAssertEqual(try reopened.item(withIdentifier: item.uniqueIdentifier)?.attributes, item.attributes)
        }
        var options = TextSearchOptions()
        options.limit = 5
        XCTAssertEqual(try reopened.search("python", options: options).count, 5)
        XCTAssertNoThrow(try reopened.checkIntegrity(), "the integrity check decodes records with the dictionary")
        // Later writes, small ones included, use the store's dictionary.
        try reopened.apply([.upsert(items(5_000..<5_001)[0])])
        XCTAssertEqual(try dictionaryIDs(reopened)[UInt32(stored[0].0)], 3_001)
    }

    func testARecordNamingADictionaryTheFileLacksIsDamageNotATrap() throws {
        let url = directory.appendingPathComponent("damaged.sqlite")
        let store = try IndexStore(url: url)
        try store.apply(items(0..<1_200).map { .upsert($0) })
        try store.close()
        // A copy (read by no process yet) whose dictionary row was lost.
        let copy = directory.appendingPathComponent("lost-dictionary.sqlite")
        try FileManager.default.copyItem(at: url, to: copy)
        let queue = try DatabaseQueue(path: copy.path)
        try queue.write { try $0.execute(sql: "DELETE FROM recordDictionary") }
        try queue.close()
        let damaged = try IndexStore(url: copy)
        defer { try? damaged.close() }
        XCTAssertThrowsError(try damaged.item(withIdentifier: "pkg:7")) { error in
            XCTAssertEqual((error as? EngineError)?.code, .corruptIndex, "\(error)")
        }
        XCTAssertThrowsError(try damaged.checkIntegrity(), "the integrity check finds the records") { error in
            XCTAssertEqual((error as? EngineError)?.code, .corruptIndex)
            XCTAssertTrue("\(error)".contains("does not decode"), "\(error)")
        }
    }

    func testSmallWritesGetADictionaryFromTheMaintenanceAndEveryRecordIsCompressedAgain() throws {
        let store = try IndexStore(url: directory.appendingPathComponent("small.sqlite"))
        defer { try? store.close() }
        let written = items(0..<1_600)
        // Batches below the training minimum, and fewer items in all than it: no dictionary yet.
        for start in stride(from: 0, to: 800, by: 400) {
            try store.apply(Array(written[start..<(start + 400)]).map { .upsert($0) })
        }
        try store.performMaintenance()
        XCTAssertEqual(try store.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM recordDictionary") }, 0)
        XCTAssertEqual(try dictionaryIDs(store).keys.sorted(), [0])
        // The maintenance after the batches that pass it.
        for start in stride(from: 800, to: 1_600, by: 400) {
            try store.apply(Array(written[start..<(start + 400)]).map { .upsert($0) })
        }
        try store.performMaintenance()
        let ids = try dictionaryIDs(store)
        XCTAssertEqual(ids.count, 1, "every record uses the one dictionary now: \(ids)")
        XCTAssertNotEqual(ids.keys.first, 0)
        XCTAssertEqual(ids.values.first, 1_600)
        for item in written.shuffled().prefix(100) {
            XCTAssertEqual(try store.item(withIdentifier: item.uniqueIdentifier)?.attributes, item.attributes)
        }
        // Writes after it use it too.
        try store.apply([.upsert(items(9_000..<9_001)[0])])
        XCTAssertEqual(try dictionaryIDs(store).count, 1)
    }

    func testFormat4StoresAreUpgradedWithTheirRecordsAndPrefixListsAsBefore() throws {
        let url = directory.appendingPathComponent("format4.sqlite")
        let store = try IndexStore(url: url)
        let written = items(0..<300)
        // (Lists with their entries, as format 4 kept them: this version stores complete ones as their count.)
        try withWholeLists { try withRowItems { try store.apply(written.map { .upsert($0) }) } }
        // Made a format 4 store: no dictionary table, the prefix lists in a WITHOUT ROWID table and format 4's
        // encoding, the values under their attribute's name.
        let lists = try self.lists(store)
        XCTAssertGreaterThan(lists.count, 50)
        // A format 4 store had a global vocabulary (`term`): made from the segments' dictionaries.
        let vocabulary = try store.read { try SegmentVocabulary.terms($0, from: [], below: [0xF4, 0x90]) }
        XCTAssertGreaterThan(vocabulary.count, 30)
        let dateCode = AttributeValueIndex.code("contentModificationDate")
        XCTAssertEqual(try store.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM attrValue WHERE attr = ?", arguments: [dateCode]) }, 300)
        try store.pool.write { db in
            try db.execute(sql: """
                ALTER TABLE attrValue RENAME TO attrValueFormat5;
                CREATE TABLE attrValue(attr TEXT NOT NULL, value REAL NOT NULL, item INTEGER NOT NULL,
                                       PRIMARY KEY(attr, value, item)) WITHOUT ROWID;
                INSERT INTO attrValue SELECT 'contentModificationDate', value, item FROM attrValueFormat5 WHERE attr = \(dateCode);
                DROP TABLE attrValueFormat5;
                CREATE TABLE term(id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE, df INTEGER NOT NULL DEFAULT 0);
                CREATE INDEX term_cover ON term(text, df);
                DROP TABLE recordDictionary;
                DROP TABLE prefixTop;
                CREATE TABLE prefixTop(prefix TEXT PRIMARY KEY, complete INTEGER NOT NULL, entries BLOB NOT NULL) WITHOUT ROWID;
                \(PrefixLists.longPrefixIndexSQL);
                UPDATE meta SET value = 4 WHERE key = 'formatVersion';
                """)
            for (n, term) in vocabulary.enumerated() {
                try db.execute(sql: "INSERT INTO term(id, text, df) VALUES(?, ?, ?)", arguments: [n + 1, term.text, term.count])
            }
            for list in lists {
                try db.execute(sql: "INSERT INTO prefixTop(prefix, complete, entries) VALUES(?, ?, ?)",
                               arguments: [list.prefix, list.complete, Self.encodeFormat4(list.entries)])
            }
        }
        try store.close()
        // Opened read-only first (by a user who may not write it, so nothing is upgraded): unavailable, not
        // recovered (its lists and values are not in format 5's encoding), until its owner opens it.
        var readOnly = Configuration()
        readOnly.readonly = true
        let pool = try DatabasePool(path: url.path, configuration: readOnly)
        XCTAssertThrowsError(try IndexStore.checkFormat(pool, url: url)) { error in
            XCTAssertEqual((error as? EngineError)?.code, .indexUnavailable)
        }
        try pool.close()
        let upgraded = try IndexStore(url: url)
        defer { try? upgraded.close() }
        XCTAssertEqual(try upgraded.read { try Int.fetchOne($0, sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'formatVersion'") },
                       IndexStore.formatVersion)
        for item in written {
            XCTAssertEqual(try upgraded.item(withIdentifier: item.uniqueIdentifier)?.attributes, item.attributes)
        }
        // The dates are found by range under the attribute's code: days 100 to 149.
        let days = try upgraded.read {
            try TermLookup.range("contentModificationDate", lower: 100 * 86_400, upper: 149 * 86_400).candidateIDs($0)
        }
        XCTAssertEqual(days.count, 50)
        XCTAssertEqual(try upgraded.read { try String.fetchOne($0, sql: "SELECT typeof(attr) FROM attrValue LIMIT 1") }, "integer")
        XCTAssertEqual(try upgraded.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM sqlite_master WHERE name IN ('term', 'term_cover', 'term_id')") }, 0,
                       "no global vocabulary (format 16)")
        let frequencies = try upgraded.read { db in
            try vocabulary.map { try IndexStore.documentFrequency(db, word: $0.text, prefix: false) }
        }
        XCTAssertEqual(frequencies, vocabulary.map(\.count), "the same terms and frequencies, from the segments")
        let upgradedLists = try self.lists(upgraded)
        XCTAssertEqual(upgradedLists.map(\.prefix), lists.map(\.prefix))
        XCTAssertTrue(upgradedLists.elementsEqual(lists) { $0.complete == $1.complete && $0.entries == $1.entries },
                      "the same prefix lists, in format 5's encoding")
        let schema = try upgraded.read { try String.fetchOne($0, sql: "SELECT sql FROM sqlite_master WHERE name = 'prefixTop'") }
        XCTAssertFalse(schema?.uppercased().contains("WITHOUT ROWID") ?? true, schema ?? "no prefixTop")
        XCTAssertEqual(try upgraded.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'prefixTop_long'") }, 1)
        var options = TextSearchOptions()
        options.limit = 3
        XCTAssertEqual(try upgraded.search("p", options: options).count, 3, "a one-letter search reads its list")
        // A large write trains the dictionary; the old records keep reading.
        try upgraded.apply(items(1_000..<2_200).map { .upsert($0) })
        XCTAssertEqual(try upgraded.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM recordDictionary") }, 1)
        XCTAssertEqual(try upgraded.item(withIdentifier: "pkg:299")?.attributes, written[299].attributes)
        // New terms after the upgrade.
        try upgraded.apply([.upsert(StoredItem(uniqueIdentifier: "new", domainIdentifier: nil, expirationDate: later,
                                               attributes: ["title": .string("zyzzyva quokka")]))])
        XCTAssertEqual(try upgraded.documentFrequency(of: "zyzzyva"), 1)
        var found = TextSearchOptions()
        found.limit = 5
        XCTAssertEqual(try upgraded.search("quokka", options: found).map(\.item.uniqueIdentifier), ["new"])
    }

    /// Two processes that trained different dictionaries under one id (zstd's id comes from the content, so this
    /// is about one chance in 2³¹; made here by storing other bytes under the id the batch will train): the write
    /// is not lost and no record names bytes it was not compressed with.
    func testADictionaryIdTakenByOtherBytesFallsBackToTheStoresOwn() throws {
        let store = try IndexStore(url: directory.appendingPathComponent("conflict.sqlite"))
        defer { try? store.close() }
        let written = items(0..<1_500)
        let operations = written.map { IndexOperation.upsert($0) }
        let trained = try XCTUnwrap(RecordDictionary.train(from: operations))
        XCTAssertEqual(RecordDictionary.train(from: operations)?.data, trained.data, "training is deterministic")
        let other = try XCTUnwrap(RecordDictionary.train(from: items(50_000..<51_500).map { .upsert($0) }))
        XCTAssertNotEqual(other.data, trained.data)
        try store.pool.write { db in
            try db.execute(sql: "INSERT INTO recordDictionary(id, data) VALUES(?, ?)", arguments: [Int64(trained.id), other.data])
        }
        try store.apply(operations)
        XCTAssertEqual(try store.count(now: Date()), 1_500)
        for item in written.shuffled().prefix(100) {
            XCTAssertEqual(try store.item(withIdentifier: item.uniqueIdentifier)?.attributes, item.attributes)
        }
        XCTAssertNil(try dictionaryIDs(store)[trained.id], "no record claims the id whose bytes are another's")
    }

    func testTrainingNeedsEnoughRecords() {
        XCTAssertNil(RecordDictionary.train(from: items(0..<(RecordDictionary.trainingMinimum - 1)).map { .upsert($0) }))
        // Updates merge into stored attributes: they are not samples of whole records.
        XCTAssertNil(RecordDictionary.train(from: items(0..<2_000).map { .upsert($0, isUpdate: true, clearedAttributes: [], clearedCustomKeys: []) }))
        XCTAssertNil(RecordDictionary(data: Data("not a dictionary".utf8)))
    }
}
