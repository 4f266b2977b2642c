import SpotlightTestSupport
import XCTest
@testable import SpotlightEngine

/// `ItemIDSet` against `Set<Int64>` on random ids, damaged ones (negative, past the bits) included.
final class ItemIDSetTests: XCTestCase {
    func testBehavesLikeASetOfIdsListedInOrder() {
        var random = SplitMix64(state: 7)
        for round in 0..<20 {
            let spread: Int64 = round % 2 == 0 ? 5_000 : 2_000_000
            func ids() -> [Int64] {
                var ids = (0..<Int.random(in: 0...3_000, using: &random)).map { _ in Int64.random(in: 0...spread, using: &random) }
                if round % 5 == 0 { ids += [-3, ItemIDSet.bitLimit, ItemIDSet.bitLimit + 7, .max, 0, 63, 64] }
                return ids
            }
            let a = ids(), b = ids()
            let x = ItemIDSet(a), y = ItemIDSet(b)
            let sa = Set(a), sb = Set(b)
            XCTAssertEqual(x.count, sa.count)
            XCTAssertEqual(Array(x), sa.sorted(), "ascending, each once")
            XCTAssertEqual(Array(x.intersection(y)), sa.intersection(sb).sorted())
            XCTAssertEqual(x.intersection(y).count, sa.intersection(sb).count)
            var union = x
            union.formUnion(y)
            XCTAssertEqual(Array(union), sa.union(sb).sorted())
            XCTAssertEqual(union.count, sa.union(sb).count)
            for probe in b.prefix(200) + [-1, 1 << 40] {
                XCTAssertEqual(x.contains(probe), sa.contains(probe), "\(probe)")
            }
        }
        XCTAssertTrue(ItemIDSet().isEmpty)
        XCTAssertEqual(Array(ItemIDSet()), [])
    }

    func testDenseNumbersAreTheSegmentsNumbersOfTheIdsTheyHold() {
        // Random layouts of segment ranges (with gaps between them, ranges starting and ending mid-word or on a
        // word's edge) against the ids one by one through `StaticColumns.index(of:)`.
        var random = SplitMix64(state: 11)
        for round in 0..<60 {
            var ranges: [(first: Int64, last: Int64, columns: SegmentColumns?)] = []
            var next = Int64.random(in: 1...130, using: &random)
            for _ in 0..<Int.random(in: 0...6, using: &random) {
                let length = [1, 63, 64, 65, 128, Int64.random(in: 1...5_000, using: &random)].randomElement(using: &random)!
                ranges.append((next, next + length - 1, nil))
                next += length + [0, 0, 1, 64, Int64.random(in: 1...300, using: &random)].randomElement(using: &random)!
            }
            if round % 7 == 0, let last = ranges.last {
                ranges.append((last.last + 1, last.last + 1_000_000, nil))   // past every bit of the set
            }
            let space = StaticColumns(ranges)
            var ids = (0..<Int.random(in: 0...4_000, using: &random)).map { _ in Int64.random(in: 0...(next + 200), using: &random) }
            if round % 5 == 0 { ids += [-3, 0, 63, 64, ItemIDSet.bitLimit, ItemIDSet.bitLimit + 7, .max] }
            let set = ItemIDSet(ids)
            let expected = set.compactMap { space.index(of: $0).map(Int32.init) }
            XCTAssertEqual(set.denseNumbers(in: space), expected, "round \(round)")
        }
        XCTAssertEqual(ItemIDSet().denseNumbers(in: StaticColumns([(1, 100, nil)])), [])
        XCTAssertEqual(ItemIDSet([5, 9]).denseNumbers(in: StaticColumns([])), [])
    }
}
