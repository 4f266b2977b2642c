import Foundation
import GRDB
import SpotlightTestSupport
import XCTest
@testable import SpotlightEngine

/// Blocks whose records are laid out by attribute (`RecordColumns`, format 19) give back every record byte for
/// byte, whatever the records' shapes; blocks of records one after the other (formats 7 to 18) still read; damage
/// is damage, never a trap.
final class RecordColumnTests: XCTestCase {
    /// Records of several shapes: attributes present or not, custom attributes with their flags, every kind of
    /// value, nested arrays, an empty record.
    static func records(_ count: Int = 40) -> [(id: Int64, plain: [UInt8])] {
        (0..<count).map { k in
            var attributes: [String: AttributeValue] = [
                "title": .string("package-\(k)"),
                "contentDescription": .string("A library that does thing \(k) among others"),
                "contentModificationDate": .date(Date(timeIntervalSinceReferenceDate: Double(600_000_000 + k * 86_400))),
                "contentTypeTree": .array(["public.text", "public.data", "public.content", "public.item"].map { .string($0) }),
                "keywords": .array((0..<(k % 4)).map { .string("word\($0)") }),
            ]
            if k % 3 == 0 { attributes["rankingHint"] = .int(Int64(k)) }
            if k % 5 == 0 { attributes["rating"] = .double(Double(k) / 7) }
            if k % 7 == 0 { attributes["url"] = .url(URL(string: "https://example.org/\(k)")!) }
            if k % 11 == 0 {
                attributes["authors"] = .array([.person(PersonValue(displayName: "Ann \(k)", handles: ["ann@example.org"],
                                                                   handleIdentifier: "email", contactIdentifier: nil))])
                attributes["localizedTitle"] = .localized(["en": "Title \(k)", "fr": "Titre \(k)"])
                attributes["thumbnailData"] = .data(Data([UInt8](repeating: UInt8(truncatingIfNeeded: k), count: k % 50)))
                attributes["nested"] = .array([.array([.bool(true), .null]), .array([])])
                attributes["isFavorite"] = .bool(k % 2 == 0)
            }
            var custom: [String: CustomAttribute] = [:]
            if k % 4 == 1 { custom["com.example.size"] = CustomAttribute(value: .int(Int64(k * 1_000)), isSearchable: false) }
            if k % 6 == 2 { custom["com.example.tag"] = CustomAttribute(value: .string("tag \(k % 3)"), isUnique: true) }
            if k == 13 { attributes = [:]; custom = [:] }
            return (Int64(100 + k * 3), ValueCodec.encode(attributes: attributes, custom: custom))
        }
    }

    static func fields(_ records: [(id: Int64, plain: [UInt8])]) -> [ItemCatalog.Fields] {
        records.indices.map { k in
            ItemCatalog.Fields(uid: "item-\(k)", domain: k % 2 == 0 ? "d.\(k % 3)" : nil, expires: ItemCatalog.Fields.never,
                               hint: k % 3 == 0 ? Double(k) : nil, lastUsed: nil,
                               name: NameSignals(words: 1, first: "package", key: UInt64(k) &* 0x9E37_79B9_7F4A_7C15),
                               initials: [UInt8](repeating: UInt8(truncatingIfNeeded: k), count: k % (Initials.byteCount + 1)))
        }
    }

    func testEveryRecordComesBackByteForByte() throws {
        let records = Self.records()
        for catalogue in [nil, Self.fields(records)] {
            let byAttribute = RecordBlocks.encode(records, catalogue: catalogue)
            let oneAfterAnother = RecordBlocks.encode(records, catalogue: catalogue, byAttribute: false)
            XCTAssertLessThan(byAttribute.count, oneAfterAnother.count, "names written once a block")
            let raw = catalogue.map(ItemCatalog.Fields.encodeRaw)
            for plain in [byAttribute, oneAfterAnother] {
                let decoded = try RecordBlocks.decode(plain, id: 100, rawFields: raw)
                XCTAssertEqual(decoded.ids, records.map(\.id))
                for record in records { XCTAssertEqual(decoded.record(of: record.id).map(Array.init), record.plain) }
                XCTAssertEqual(decoded.catalogue.map(Array.init), catalogue)
                // Each record decodes to the item it was.
                for record in records {
                    let read = try ValueCodec.decode(Array(try XCTUnwrap(decoded.record(of: record.id))))
                    let original = try ValueCodec.decode(record.plain)
                    XCTAssertEqual(read.attributes, original.attributes)
                    XCTAssertEqual(read.custom, original.custom)
                }
            }
        }
    }

    /// A block whose records name more slots than `encode` compares in turn (`scannedSlots`) finds them through
    /// its dictionary from then on: every record still comes back, and each slot is written once.
    func testManySlotsComeBackByteForByte() throws {
        let slots = RecordColumns.scannedSlots * 2 + 3
        let records: [(id: Int64, plain: [UInt8])] = (0..<60).map { k in
            var custom: [String: CustomAttribute] = [:]
            // Each record names a window of the slots, so a slot's first record comes late in the block.
            for n in 0..<12 {
                let slot = (k + n * 5) % slots
                custom["com.example.field\(slot)"] = CustomAttribute(value: .int(Int64(k * 100 + n)), isSearchable: slot % 2 == 0)
            }
            return (Int64(10 + k), ValueCodec.encode(attributes: ["title": .string("item \(k)")], custom: custom))
        }
        let plain = RecordBlocks.encode(records, catalogue: nil)
        XCTAssertLessThan(plain.count, RecordBlocks.encode(records, catalogue: nil, byAttribute: false).count)
        let decoded = try RecordBlocks.decode(plain, id: 10, rawFields: nil)
        for record in records { XCTAssertEqual(decoded.record(of: record.id).map(Array.init), record.plain) }
        // Each name once: a slot looked up wrongly would have been written again as a new one.
        let name = Array("com.example.field7".utf8)
        let occurrences = (0...(plain.count - name.count)).filter { Array(plain[$0..<($0 + name.count)]) == name }.count
        XCTAssertEqual(occurrences, 1)
    }

    /// The head of a catalogue block (its fields and ids) ends with the 0 byte of records laid out by attribute,
    /// and reads alone.
    func testTheHeadEndsWhereTheColumnsStart() throws {
        let records = Self.records()
        let fields = Self.fields(records)
        let plain = RecordBlocks.encode(records, catalogue: fields)
        let head = try XCTUnwrap(plain.withUnsafeBytes { RecordBlocks.headLength($0) })
        XCTAssertEqual(plain[head - 1], 0)
        for cut in 0..<head { XCTAssertNil(Array(plain.prefix(cut)).withUnsafeBytes { RecordBlocks.headLength($0) }) }
        let frame = RecordBlocks.compressed(plain, dictionary: nil)
        let decoded = try frame.withUnsafeBytes { frame in
            try DatabaseQueue().read { db in
                try RecordBlocks.decodeHead(frame: frame, id: 100, rawFields: ItemCatalog.Fields.encodeRaw(fields), in: db)
            }
        }
        XCTAssertEqual(decoded.ids, records.map(\.id))
        XCTAssertEqual(decoded.catalogue.map(Array.init), fields)
        XCTAssertNil(decoded.record(of: 100), "a head holds no records")
    }

    /// Records that are not `ValueCodec.encode`'s keep the layout of records one after the other.
    func testRecordsThatDoNotParseStayOneAfterAnother() throws {
        var records = Self.records(6)
        records[2].plain = [1, 7, 0xFF]
        let plain = RecordBlocks.encode(records)
        XCTAssertEqual(plain, RecordBlocks.encode(records, byAttribute: false))
        let decoded = try RecordBlocks.decode(plain, id: 100)
        for record in records { XCTAssertEqual(decoded.record(of: record.id).map(Array.init), record.plain) }
    }

    /// A block whose layout would rebuild into more than `maximumExpansion` times its bytes (many records of long
    /// names and one-byte values) keeps its records one after the other, so that a reader can refuse such a layout.
    func testALayoutThatWouldExpandTooMuchIsNotWritten() throws {
        let names = (0..<8).map { "com.example." + String(repeating: "n\($0)", count: 400) }
        let records: [(id: Int64, plain: [UInt8])] = (0..<100).map { k in
            (Int64(100 + k), ValueCodec.encode(attributes: [:], custom: Dictionary(uniqueKeysWithValues: names.map {
                ($0, CustomAttribute(value: .bool(k % 2 == 0)))
            })))
        }
        let plain = RecordBlocks.encode(records)
        XCTAssertEqual(plain, RecordBlocks.encode(records, byAttribute: false))
        let decoded = try RecordBlocks.decode(plain, id: 100)
        for record in records { XCTAssertEqual(decoded.record(of: record.id).map(Array.init), record.plain) }
        // Fewer such records are laid out by attribute, and read back.
        let fewer = Array(records.prefix(20))
        let laidOut = RecordBlocks.encode(fewer)
        XCTAssertNotEqual(laidOut, RecordBlocks.encode(fewer, byAttribute: false))
        let read = try RecordBlocks.decode(laidOut, id: 100)
        for record in fewer { XCTAssertEqual(read.record(of: record.id).map(Array.init), record.plain) }
    }

    func testDamageIsDamageNotATrap() throws {
        let records = Self.records()
        let plain = RecordBlocks.encode(records)
        var random = SplitMix64(state: 19)
        for cut in 0..<plain.count {
            XCTAssertThrowsError(try RecordBlocks.decode(Array(plain.prefix(cut)), id: 100), "cut at \(cut)")
        }
        var read = 0
        for _ in 0..<5_000 {
            var damaged = plain
            for _ in 0..<(1 + Int(random.next() % 3)) {
                damaged[Int(random.next() % UInt64(damaged.count))] = UInt8(truncatingIfNeeded: random.next())
            }
            guard let decoded = try? RecordBlocks.decode(damaged, id: 100) else { continue }
            read += 1
            for record in records {
                if let bytes = decoded.record(of: record.id) { _ = try? ValueCodec.decode(Array(bytes)) }
            }
        }
        XCTAssertLessThan(read, 5_000, "most damage is found")
    }

    /// A dictionary is trained on records laid out by attribute, about a block's bytes together (at least about
    /// 128 samples).
    func testADictionaryIsTrainedOnRecordsLaidOutByAttribute() throws {
        let records = Self.records(RecordDictionary.trainingMinimum + 24).map(\.plain)
        for set in [records, Array(repeating: records, count: 16).flatMap { $0 }] {
            let samples = RecordDictionary.trainingSamples(set)
            let bytes = set.reduce(0) { $0 + $1.count }
            let target = min(RecordDictionary.trainingSampleBytes, bytes / 128)
            XCTAssertGreaterThanOrEqual(samples.count, bytes / (target + set.map(\.count).max()!), "\(set.count) records")
            XCTAssertLessThanOrEqual(samples.count, bytes / target + 1, "\(set.count) records")
            XCTAssertTrue(samples.allSatisfy { $0.first == 0 })
            XCTAssertGreaterThan(samples.reduce(0) { $0 + $1.count }, bytes / 2)
        }
        let dictionary = try XCTUnwrap(RecordDictionary.train(samples: records))
        let plain = RecordBlocks.encode(Self.records())
        let frame = RecordBlocks.compressed(plain, dictionary: dictionary)
        XCTAssertEqual(try ValueCodec.plain(frame, dictionary: { $0 == dictionary.id ? dictionary : nil }), plain)
        XCTAssertLessThan(frame.count, RecordBlocks.compressed(plain, dictionary: nil).count)
    }

    /// A format 18 store (its blocks' records one after the other) opens as format 19 with its blocks as they are:
    /// every item reads back, and the blocks its next large write makes are laid out by attribute; catalogued
    /// items and items in rows alike.
    func testAFormat18StoreReadsItsBlocksAndWritesNewOnesByAttribute() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("engine-columns-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let later = Date().addingTimeInterval(365 * 86_400)
        for catalogued in [true, false] {
            let url = directory.appendingPathComponent("index-\(catalogued).sqlite")
            var store = try IndexStore(url: url)
            let first = RecordDictionaryTests.items(0..<300, expiring: later)
            if catalogued {
                try store.apply(first.map { .upsert($0) })
            } else {
                try withRowItems { try store.apply(first.map { .upsert($0) }) }
            }
            /// Whether each block's records are laid out by attribute, by block id.
            func layouts() throws -> [Int64: Bool] {
                try store.read { db in
                    var found: [Int64: Bool] = [:]
                    for row in try Row.fetchAll(db, sql: "SELECT id, data FROM recordBlock") {
                        let id: Int64 = row[0]
                        let data: Data = row[1]
                        found[id] = try RecordBlocks.decode(frame: [UInt8](data), id: id, in: db).layout != nil
                    }
                    return found
                }
            }
            XCTAssertTrue(try layouts().values.allSatisfy { $0 }, "format 19 lays out what it writes")
            // The blocks written again as format 18 wrote them, and the store marked 18.
            try store.pool.write { db in
                let dictionary = try RecordDictionary.current(in: db)
                for row in try Row.fetchAll(db, sql: "SELECT id, data FROM recordBlock") {
                    let id: Int64 = row[0]
                    let data: Data = row[1]
                    let plain = try ValueCodec.plain([UInt8](data), dictionary: { try RecordDictionary.named($0, in: db) })
                    let decoded = try RecordBlocks.decode(plain, id: id)
                    let records = decoded.ids.indices.map { (id: decoded.ids[$0], plain: Array(decoded.record(at: $0))) }
                    var rewritten = RecordBlocks.encode(records, byAttribute: false)
                    if plain.first == 0 {
                        // A catalogue block: its section as it was, then the ids and records one after the other.
                        var reader = ValueCodec.Reader(bytes: plain)
                        reader.offset = 1
                        _ = try reader.rawBytes(try reader.count(minimumBytesEach: 1))
                        rewritten = Array(plain[..<reader.offset]) + rewritten
                    }
                    try db.execute(sql: "UPDATE recordBlock SET data = ? WHERE id = ?",
                                   arguments: [Data(RecordBlocks.compressed(rewritten, dictionary: dictionary)), id])
                }
                try db.execute(sql: "UPDATE meta SET value = 18 WHERE key = 'formatVersion'")
            }
            let old = try layouts()
            XCTAssertFalse(old.isEmpty)
            XCTAssertTrue(old.values.allSatisfy { !$0 }, "format 18's blocks")
            try store.close()
            store = try IndexStore(url: url)
            XCTAssertEqual(try store.read { try Int.fetchOne($0, sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'formatVersion'") },
                           IndexStore.formatVersion)
            for item in first { XCTAssertEqual(try store.item(withIdentifier: item.uniqueIdentifier), item) }
            let second = RecordDictionaryTests.items(300..<600, expiring: later)
            if catalogued {
                try store.apply(second.map { .upsert($0) })
            } else {
                try withRowItems { try store.apply(second.map { .upsert($0) }) }
            }
            let now = try layouts()
            XCTAssertTrue(now.allSatisfy { id, byAttribute in old[id] != nil ? !byAttribute : byAttribute },
                          "old blocks as they were, new ones laid out by attribute")
            XCTAssertGreaterThan(now.count, old.count)
            for item in first + second { XCTAssertEqual(try store.item(withIdentifier: item.uniqueIdentifier), item) }
            XCTAssertEqual(try store.search("\(RecordDictionaryTests.words[0])").isEmpty, false)
            try store.checkIntegrity()
            try store.close()
        }
    }
}
