/// A set of item ids as bits, for the candidates of index lookups: inserting, testing and intersecting hundreds of
/// thousands of ids (a month range of a million items) without hashing, and listed in ascending order.
///
/// Item ids are allocated from 1 upwards and never reused (`meta.nextItem`), so the bits stay about one per id ever
/// allocated (128 KiB per million). Ids past `bitLimit` (only damage makes them) are kept in a hashed set instead,
/// so a damaged id never allocates a huge bitset.
struct ItemIDSet: Sequence, Sendable {
    private var words: [UInt64] = []
    private var others: Set<Int64> = []
    private(set) var count = 0

    /// Ids below this are bits (2²⁸: at most 32 MiB of bits).
    static let bitLimit: Int64 = 1 << 28

    init() {}

    init<S: Sequence>(_ ids: S) where S.Element == Int64 {
        for id in ids { insert(id) }
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    mutating func insert(_ id: Int64) {
        guard id >= 0, id < Self.bitLimit else {
            if others.insert(id).inserted { count += 1 }
            return
        }
        let w = Int(id >> 6)
        if w >= words.count { words.append(contentsOf: repeatElement(0, count: Swift.max(w + 1 - words.count, words.count))) }
        let bit: UInt64 = 1 << UInt64(id & 63)
        if words[w] & bit == 0 {
            words[w] |= bit
            count += 1
        }
    }

    @inline(__always)
    func contains(_ id: Int64) -> Bool {
        guard id >= 0, id < Self.bitLimit else { return others.contains(id) }
        let w = Int(id >> 6)
        return w < words.count && words[w] & (1 << UInt64(id & 63)) != 0
    }

    /// The ids in both sets.
    func intersection(_ other: ItemIDSet) -> ItemIDSet {
        var result = ItemIDSet()
        let n = Swift.min(words.count, other.words.count)
        result.words = (0..<n).map { words[$0] & other.words[$0] }
        result.count = result.words.reduce(0) { $0 + $1.nonzeroBitCount }
        for id in others where other.contains(id) {
            result.others.insert(id)
            result.count += 1
        }
        return result
    }

    /// Adds every id of `other`.
    mutating func formUnion(_ other: ItemIDSet) {
        if words.count < other.words.count { words.append(contentsOf: repeatElement(0, count: other.words.count - words.count)) }
        for w in other.words.indices where other.words[w] != 0 { words[w] |= other.words[w] }
        others.formUnion(other.others)
        count = words.reduce(0) { $0 + $1.nonzeroBitCount } + others.count
    }

    /// The ids in ascending order. (A concrete iterator: `AnyIterator`'s closure call per id was two thirds of a
    /// search under a filter that keeps a tenth of PyPI's items, 7 of its 11 ms, listing 100,000 ids.)
    func makeIterator() -> Iterator { Iterator(self) }

    struct Iterator: IteratorProtocol {
        private let words: [UInt64]
        private var w = 0
        private var word: UInt64
        /// The ids kept apart, sorted: negative ones (damage) come before the bits, the others after.
        private let apart: [Int64]
        private var a = 0

        fileprivate init(_ set: ItemIDSet) {
            words = set.words
            word = set.words.first ?? 0
            apart = set.others.sorted()
        }

        @inline(__always)
        mutating func next() -> Int64? {
            if a < apart.count, apart[a] < 0 {
                a += 1
                return apart[a - 1]
            }
            while w < words.count {
                if word != 0 {
                    let bit = word.trailingZeroBitCount
                    word &= word - 1
                    return Int64(w << 6 | bit)
                }
                w += 1
                word = w < words.count ? words[w] : 0
            }
            guard a < apart.count else { return nil }
            a += 1
            return apart[a - 1]
        }
    }

    /// The dense numbers (`StaticColumns.index(of:)`) of the ids a segment's range holds, in ascending order: each
    /// segment's range of bits read a word at a time. (Ids no range holds, items without terms, are left out.)
    func denseNumbers(in space: StaticColumns) -> [Int32] {
        var result: [Int32] = []
        result.reserveCapacity(count)
        // Ids kept apart are never in a range (ranges hold ids from 1 to `bitLimit`, but for damage): looked up
        // one by one, in order, before and after the bits.
        let apart = others.sorted()
        for id in apart where id < 0 {
            if let n = space.index(of: id) { result.append(Int32(n)) }
        }
        for entry in space.entries {
            let first = Swift.max(entry.first, 0), last = Swift.min(entry.last, Int64(words.count) * 64 - 1)
            guard first <= last else { continue }
            let base = Int64(entry.offset) - entry.first
            for w in Int(first >> 6)...Int(last >> 6) {
                var word = words[w]
                if w == Int(first >> 6) { word &= ~0 << UInt64(first & 63) }
                if w == Int(last >> 6), last & 63 != 63 { word &= (1 << UInt64(last & 63 + 1)) - 1 }
                while word != 0 {
                    let id = Int64(w << 6 | word.trailingZeroBitCount)
                    word &= word - 1
                    result.append(Int32(truncatingIfNeeded: base + id))
                }
            }
        }
        for id in apart where id >= 0 {
            if let n = space.index(of: id) { result.append(Int32(n)) }
        }
        return result
    }
}
