import Foundation
import SpotlightTestSupport
import Synchronization
import XCTest
@testable import SpotlightEngine

/// Stored attributes are zstd-compressed when that pays (`ValueCodec.stored`); rows written uncompressed (small
/// records, older versions) read the same, and a damaged frame is `.corruptIndex`, never a trap or a huge allocation.
final class RecordCompressionTests: XCTestCase {
    let attributes: [String: AttributeValue] = [
        "title": .string("Compression of stored attributes"),
        "contentDescription": .string(String(repeating: "a description with repeated words, ", count: 12)),
        "keywords": .array([.string("zstd"), .string("storage"), .string("records")]),
        "rankingHint": .int(42),
    ]

    func testLargeRecordsAreStoredCompressedAndReadBack() throws {
        let stored = ValueCodec.stored(attributes: attributes, custom: [:])
        let plain = ValueCodec.encode(attributes: attributes, custom: [:])
        XCTAssertTrue(ValueCodec.isCompressed(stored))
        XCTAssertLessThan(stored.count, plain.count / 2)
        XCTAssertEqual(try ValueCodec.decode(stored).attributes, attributes)
        // Rows written uncompressed (by an older version, or too small to compress) read the same.
        XCTAssertEqual(try ValueCodec.decode(plain).attributes, attributes)
        let small: [String: AttributeValue] = ["title": .string("x")]
        XCTAssertFalse(ValueCodec.isCompressed(ValueCodec.stored(attributes: small, custom: [:])))
        XCTAssertEqual(try ValueCodec.decode(ValueCodec.stored(attributes: small, custom: [:])).attributes, small)
    }

    func testReusedContextsServeManyThreadsAndSurviveDamagedFrames() throws {
        // The contexts are pooled: records compressed and read back on many threads at once each come back whole,
        // and a damaged frame read in between leaves no context in a state that spoils the next record.
        let failures = Mutex<[String]>([])
        let attributes = self.attributes
        DispatchQueue.concurrentPerform(iterations: 16) { thread in
            for i in 0..<150 {
                var record = attributes
                record["title"] = .string("record \(thread)-\(i) " + String(repeating: "words \(i) ", count: i % 40))
                let stored = ValueCodec.stored(attributes: record, custom: [:])
                if i % 10 == 0, ValueCodec.isCompressed(stored) {
                    var damaged = stored
                    damaged[damaged.count / 2] ^= 0xFF
                    _ = try? ValueCodec.decode(damaged)
                }
                if (try? ValueCodec.decode(stored).attributes) != record { failures.withLock { $0.append("\(thread)-\(i)") } }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
    }

    func testNoUncompressedRecordLooksLikeAFrame() {
        // 40 entries: the count byte is 0x28, zstd's first magic byte; the next byte is an entry kind (0 or 1).
        var many: [String: AttributeValue] = [:]
        for i in 0..<40 { many["k\(i)"] = .int(Int64(i)) }
        let plain = ValueCodec.encode(attributes: many, custom: [:])
        XCTAssertEqual(plain.first, 0x28)
        XCTAssertFalse(ValueCodec.isCompressed(plain))
    }

    func testARecordThatCompressesTooWellIsStoredUncompressed() throws {
        let huge: [String: AttributeValue] = ["textContent": .string(String(repeating: "a", count: 200_000))]
        let stored = ValueCodec.stored(attributes: huge, custom: [:])
        XCTAssertFalse(ValueCodec.isCompressed(stored), "a frame claiming more than 64× its size is refused on read")
        XCTAssertEqual(try ValueCodec.decode(stored).attributes, huge)
    }

    func testDamagedFramesThrowAndNeverTrap() throws {
        let good = ValueCodec.stored(attributes: attributes, custom: [:])
        var random = SplitMix64(state: 17)
        var thrown = 0
        for round in 0..<3_000 {
            var bytes = good
            switch round % 3 {
            case 0:
                for _ in 0..<Int(random.next() % 4 + 1) {
                    let at = 4 + Int(random.next() % UInt64(bytes.count - 4))
                    bytes[at] = UInt8(truncatingIfNeeded: random.next())
                }
            case 1:
                bytes.removeLast(Int(random.next() % UInt64(bytes.count - 4)) + 1)
            default:
                // The magic, then garbage: sizes claimed by garbage headers are refused before allocating.
                bytes = [0x28, 0xB5, 0x2F, 0xFD] + (0..<Int(random.next() % 64)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            }
            do {
                _ = try ValueCodec.decode(bytes)
            } catch let error as EngineError {
                XCTAssertEqual(error.code, .corruptIndex)
                thrown += 1
            }
        }
        XCTAssertGreaterThan(thrown, 1_500)
    }
}
