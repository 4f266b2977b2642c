import Foundation
import XCTest
import GRDB
@testable import SpotlightEngine
import SpotlightTestSupport

typealias FuzzRandom = SplitMix64

/// How many inputs each fuzz test tries: `OPENSPOTLIGHT_FUZZ_ITERATIONS` (a long run: `scripts/fuzz.sh`), else
/// the suite's default.
func fuzzIterations(default value: Int) -> Int {
    ProcessInfo.processInfo.environment["OPENSPOTLIGHT_FUZZ_ITERATIONS"].flatMap(Int.init) ?? value
}

/// Fuzzing (issue 17, b): the attribute decoder and the store opener on random and mutated bytes. Every input
/// decodes (and what decodes can be indexed and read like a stored record) or fails with `.corruptIndex` —
/// never a trap. A crash here kills the test process, which is the failure.
final class DecoderFuzzTests: XCTestCase {
    // MARK: Decoder

    /// Decodes `bytes`; a success is used the way readers and writers use a record.
    static func check(_ bytes: [UInt8]) -> Bool {
        do {
            let decoded = try ValueCodec.decode(bytes)
            _ = TextIndexer.terms(attributes: decoded.attributes, custom: decoded.custom, domain: "d")
            _ = AttributeValueIndex.values(attributes: decoded.attributes, custom: decoded.custom)
            let item = StoredItem(uniqueIdentifier: "u", domainIdentifier: nil, expirationDate: .distantFuture,
                                  attributes: decoded.attributes, customAttributes: decoded.custom)
            _ = item.rankingHint
            _ = item.lastUsedDate
            for value in decoded.attributes.values { _ = value.approximateByteCount; _ = value.nestingDepth() }
            // What decodes encodes to something that decodes to the same.
            let again = try ValueCodec.decode(ValueCodec.encode(attributes: decoded.attributes, custom: decoded.custom))
            XCTAssertEqual(again.attributes.count, decoded.attributes.count)
            XCTAssertEqual(again.custom.count, decoded.custom.count)
            checkEntries(bytes, decoded)
            return true
        } catch let error as EngineError {
            XCTAssertEqual(error.code, .corruptIndex, "\(bytes): \(error)")
            // What does not decode is refused by the reader of single attributes too.
            XCTAssertThrowsError(try RecordEntries(try ValueCodec.plain(bytes)), "\(bytes)")
            return false
        } catch {
            XCTFail("\(bytes): not an EngineError: \(error)")
            return false
        }
    }

    /// A record read one attribute at a time (`RecordEntries`, as queries read candidates) gives what the whole
    /// record decoded gives: every attribute and custom attribute by name, all of them, and any subset. Values are
    /// compared encoded (a damaged double may be a NaN, unequal to itself).
    static func checkEntries(_ bytes: [UInt8], _ decoded: (attributes: [String: AttributeValue], custom: [String: CustomAttribute])) {
        func encoded(_ value: AttributeValue?) -> [UInt8]? { value.map { ValueCodec.encode(attributes: ["v": $0], custom: [:]) } }
        func encoded(_ custom: CustomAttribute?) -> [UInt8]? { custom.map { ValueCodec.encode(attributes: [:], custom: ["v": $0]) } }
        guard let entries = XCTUnwrapNoThrow(try RecordEntries(try ValueCodec.plain(bytes)), "\(bytes)") else { return }
        for (name, value) in decoded.attributes { XCTAssertEqual(encoded(entries.attribute(name)), encoded(value), name) }
        for (name, custom) in decoded.custom { XCTAssertEqual(encoded(entries.customAttribute(name)), encoded(custom), name) }
        for name in ["absent", "title", "com_acme_0"] where decoded.attributes[name] == nil && decoded.custom[name] == nil {
            XCTAssertNil(entries.attribute(name))
            XCTAssertNil(entries.customAttribute(name))
        }
        let whole = entries.decoded()
        XCTAssertEqual(Set(whole.attributes.keys), Set(decoded.attributes.keys))
        XCTAssertEqual(Set(whole.custom.keys), Set(decoded.custom.keys))
        let some = Set(decoded.attributes.keys.sorted().prefix(1) + decoded.custom.keys.sorted().suffix(1))
        let part = entries.decoded(only: some)
        XCTAssertEqual(Set(part.attributes.keys), Set(decoded.attributes.keys).intersection(some))
        XCTAssertEqual(Set(part.custom.keys), Set(decoded.custom.keys).intersection(some))
        for (name, value) in part.attributes { XCTAssertEqual(encoded(value), encoded(decoded.attributes[name]), name) }
        for (name, custom) in part.custom { XCTAssertEqual(encoded(custom), encoded(decoded.custom[name]), name) }
    }

    static func XCTUnwrapNoThrow<T>(_ body: @autoclosure () throws -> T, _ message: String) -> T? {
        do { return try body() } catch { XCTFail("\(message): \(error)"); return nil }
    }

    static func randomString(_ r: inout FuzzRandom) -> String {
        let pool = ["", "a", "title", "Berry", "é", "東京", "🎉", "x y", "\u{301}", "naïve café", "com_acme"]
        return (0..<Int.random(in: 0...3, using: &r)).map { _ in pool.randomElement(using: &r)! }.joined()
    }

    static func randomValue(_ r: inout FuzzRandom, depth: Int = 0) -> AttributeValue {
        switch Int.random(in: 0...(depth < 3 ? 11 : 9), using: &r) {
        case 0: return .string(randomString(&r))
        case 1: return .int(Int64.random(in: .min ... .max, using: &r))
        case 2: return .double(Double.random(in: -1e9...1e9, using: &r))
        case 3: return .bool(Bool.random(using: &r))
        case 4: return .date(Date(timeIntervalSinceReferenceDate: Double(Int32.random(in: .min ... .max, using: &r))))
        case 5: return .data(Data((0..<Int.random(in: 0...8, using: &r)).map { _ in UInt8.random(in: 0...255, using: &r) }))
        case 6: return .url(URL(string: "https://example.com/\(Int.random(in: 0...99, using: &r))")!)
        case 7: return .person(PersonValue(displayName: Bool.random(using: &r) ? randomString(&r) : nil,
                                           handles: [randomString(&r)], handleIdentifier: "phoneNumbers",
                                           contactIdentifier: Bool.random(using: &r) ? "c" : nil))
        case 8: return .localized(["en": randomString(&r), "fr": randomString(&r)])
        case 9: return .null
        default: return .array((0..<Int.random(in: 0...3, using: &r)).map { _ in randomValue(&r, depth: depth + 1) })
        }
    }

    static func randomRecord(_ r: inout FuzzRandom) -> (attributes: [String: AttributeValue], custom: [String: CustomAttribute]) {
        var attributes: [String: AttributeValue] = [:]
        var custom: [String: CustomAttribute] = [:]
        let names = ["title", "keywords", "contentDescription", "rankingHint", "lastUsedDate", "authors", "latitude"]
        for _ in 0..<Int.random(in: 0...5, using: &r) {
            attributes[names.randomElement(using: &r)!] = randomValue(&r)
        }
        for _ in 0..<Int.random(in: 0...2, using: &r) {
            custom["com_acme_\(Int.random(in: 0...3, using: &r))"] = CustomAttribute(
                value: randomValue(&r), isSearchable: Bool.random(using: &r), isSearchableByDefault: Bool.random(using: &r),
                isUnique: Bool.random(using: &r), isMultiValued: Bool.random(using: &r))
        }
        return (attributes, custom)
    }

    /// One mutation of the kinds damage makes: flipped bits, changed, inserted and deleted bytes, truncation,
    /// runs of 0xFF (huge varints), a copied range (repeated structure).
    static func mutate(_ bytes: [UInt8], _ r: inout FuzzRandom) -> [UInt8] {
        var b = bytes
        for _ in 0..<Int.random(in: 1...4, using: &r) {
            let i = b.isEmpty ? 0 : Int.random(in: 0..<b.count, using: &r)
            switch Int.random(in: 0...7, using: &r) {
            case 0 where !b.isEmpty: b[i] ^= 1 << UInt8.random(in: 0...7, using: &r)
            case 1 where !b.isEmpty: b[i] = UInt8.random(in: 0...255, using: &r)
            case 2: b.insert(UInt8.random(in: 0...255, using: &r), at: i)
            case 3 where !b.isEmpty: b.remove(at: i)
            case 4: b = Array(b.prefix(i))
            case 5: b.insert(contentsOf: [UInt8](repeating: 0xFF, count: Int.random(in: 1...10, using: &r)) + [0x7F], at: i)
            case 6 where !b.isEmpty:
                let j = Int.random(in: i..<b.count, using: &r)
                b.insert(contentsOf: b[i...j], at: Int.random(in: 0...b.count, using: &r))
            case 7: b.insert(contentsOf: [UInt8]((0..<Int.random(in: 1...200, using: &r)).flatMap { _ in [11, 1] as [UInt8] }), at: i)
            default: break
            }
        }
        return b
    }

    func testValidRecordsRoundTrip() {
        var r = FuzzRandom(state: 17)
        for _ in 0..<fuzzIterations(default: 2_000) / 2 {
            let record = Self.randomRecord(&r)
            let bytes = ValueCodec.encode(attributes: record.attributes, custom: record.custom)
            let decoded = try? ValueCodec.decode(bytes)
            XCTAssertEqual(decoded?.attributes, record.attributes)
            XCTAssertEqual(decoded?.custom, record.custom)
            // Read one attribute at a time, as queries read candidates.
            let entries = try? RecordEntries(bytes)
            for (name, value) in record.attributes { XCTAssertEqual(entries?.attribute(name), value) }
            for (name, custom) in record.custom { XCTAssertEqual(entries?.customAttribute(name), custom) }
            XCTAssertEqual(entries?.decoded().attributes, record.attributes)
            XCTAssertEqual(entries?.decoded().custom, record.custom)
        }
    }

    func testRandomBytesNeverTrap() {
        var r = FuzzRandom(state: 1)
        var decoded = 0
        let n = fuzzIterations(default: 3_000)
        for _ in 0..<n {
            // Small tags and counts are likelier than uniform bytes to reach deep into the format.
            let bytes = (0..<Int.random(in: 0...48, using: &r)).map { _ in
                Bool.random(using: &r) ? UInt8.random(in: 0...13, using: &r) : UInt8.random(in: 0...255, using: &r)
            }
            if Self.check(bytes) { decoded += 1 }
        }
        print("fuzz: \(n) random byte strings, \(decoded) decoded, 0 traps")
    }

    func testMutatedRecordsNeverTrap() {
        var r = FuzzRandom(state: 2)
        var decoded = 0
        let n = fuzzIterations(default: 3_000)
        for _ in 0..<n {
            let record = Self.randomRecord(&r)
            let bytes = Self.mutate(ValueCodec.encode(attributes: record.attributes, custom: record.custom), &r)
            if Self.check(bytes) { decoded += 1 }
        }
        print("fuzz: \(n) mutated records, \(decoded) decoded, 0 traps")
    }

    // MARK: Store opener

    /// A store file with some items, closed (checkpointed into the main file). Its records are compressed with a
    /// record dictionary (`RecordDictionary`), so damage reaches the dictionary and the frames that name it too.
    func seedStoreBytes(in directory: URL) throws -> Data {
        let url = directory.appendingPathComponent("seed.sqlite")
        let store = try IndexStore(url: url)
        var r = FuzzRandom(state: 3)
        // A batch large enough to train the dictionary, then removed: the dictionary stays for the 40 items.
        try store.apply((0..<RecordDictionary.trainingMinimum).map { i in
            .upsert(StoredItem(uniqueIdentifier: "train\(i)", domainIdentifier: "a.b", expirationDate: .distantFuture,
                               attributes: ["title": .string("training item \(i) berry"),
                                            "contentDescription": .string("a record like the others, number \(i % 97)"),
                                            "keywords": .array([.string("berry"), .string("k\(i % 13)")])]))
        })
        try store.apply([.deleteAll])
        try store.apply((0..<40).map { i in
            var record = Self.randomRecord(&r)
            record.attributes["title"] = .string("item \(i) berry \(Self.randomString(&r))")
            return .upsert(StoredItem(uniqueIdentifier: "id\(i)", domainIdentifier: i % 2 == 0 ? "a.b" : nil,
                                      expirationDate: .distantFuture, attributes: record.attributes,
                                      customAttributes: record.custom))
        })
        try store.pool.writeWithoutTransaction { try $0.execute(sql: "VACUUM; PRAGMA wal_checkpoint(TRUNCATE)") }
        let dictionaryRecords = try store.read { db in
            try Data.fetchAll(db, sql: "SELECT attrs FROM item UNION ALL SELECT data FROM recordBlock")
                .filter { ValueCodec.dictionaryID(of: [UInt8]($0)) != 0 }.count
        }
        XCTAssertGreaterThan(dictionaryRecords, 20, "the seed's records use the dictionary")
        try store.close()
        return try Data(contentsOf: url)
    }

    /// Opens a damaged file and does what readers, the doctor and writers do with it: every outcome is a value
    /// or an `EngineError`.
    static func exercise(_ url: URL) -> String {
        do {
            let store = try IndexStore(url: url, create: false)
            defer { try? store.close() }
            var outcome = "opened"
            do { try store.checkIntegrity() } catch { outcome += ", damaged" }
            _ = try? store.count()
            _ = try? store.listItems(limit: 100)
            _ = try? store.domains()
            _ = try? store.search("berry", options: TextSearchOptions(limit: 10))
            _ = try? store.search("it", options: TextSearchOptions(limit: 10))
            _ = try? store.item(withIdentifier: "id3")
            _ = try? store.apply([.upsert(StoredItem(uniqueIdentifier: "new", domainIdentifier: "a",
                                                     expirationDate: .distantFuture, attributes: ["title": .string("berry new")])),
                                  .delete(identifiers: ["id4"]), .deleteDomains(["a"])])
            return outcome
        } catch let error as EngineError {
            if error.code != .corruptIndex { print("fuzz: refused with \(error.code): \(error.message)") }
            return "refused (\(error.code))"
        } catch {
            XCTFail("not an EngineError: \(error)")
            return "other"
        }
    }

    func testDamagedStoreFilesNeverTrap() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-fuzz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let seed = [UInt8](try seedStoreBytes(in: directory))
        var r = FuzzRandom(state: 4)
        var outcomes: [String: Int] = [:]
        let n = max(1, fuzzIterations(default: 3_000) / 20)
        for i in 0..<n {
            var bytes = seed
            let pageSize = 4096
            switch Int.random(in: 0...3, using: &r) {
            case 0:  // scattered byte damage past the header
                for _ in 0..<Int.random(in: 1...16, using: &r) {
                    bytes[Int.random(in: 100..<bytes.count, using: &r)] = UInt8.random(in: 0...255, using: &r)
                }
            case 1:  // a whole page of garbage
                let page = Int.random(in: 1..<(bytes.count / pageSize), using: &r)
                for j in (page * pageSize)..<((page + 1) * pageSize) { bytes[j] = UInt8.random(in: 0...255, using: &r) }
            case 2:  // truncated
                bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &r)))
            default:  // the mutations of records, anywhere
                bytes = Self.mutate(bytes, &r)
            }
            let url = directory.appendingPathComponent("fuzz-\(i).sqlite")
            try Data(bytes).write(to: url)
            outcomes[Self.exercise(url), default: 0] += 1
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        }
        print("fuzz: \(n) damaged store files, outcomes \(outcomes.sorted { $0.key < $1.key }), 0 traps")
    }
}
