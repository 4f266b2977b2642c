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
}
