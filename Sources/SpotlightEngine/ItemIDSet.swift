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

    /// The ids in ascending order.
    func makeIterator() -> AnyIterator<Int64> {
        var w = 0
        var word: UInt64 = words.first ?? 0
        let sorted = others.sorted()
        // Negative ids (damage) come before the bits, the others after.
        var below = sorted.prefix { $0 < 0 }.makeIterator()
        var rest = sorted.drop { $0 < 0 }.makeIterator()
        return AnyIterator {
            if let id = below.next() { return id }
            while w < words.count {
                if word != 0 {
                    let bit = word.trailingZeroBitCount
                    word &= word - 1
                    return Int64(w << 6 | bit)
                }
                w += 1
                word = w < words.count ? words[w] : 0
            }
            return rest.next()
        }
    }
}
