import Foundation

/// Distinct terms as UTF-8 bytes in one buffer, numbered in the order they were first added and found by a hash of
/// their bytes (open addressing): how a bulk load's preparing keeps an item's terms and a part's, without a
/// `String` per token or `Hasher` (SipHash) per lookup. Making and hashing a `String` for each of tens of millions
/// of tokens, in a `[String: UInt8]` per item and a `[String: Int32]` per window, were two thirds of preparing
/// PyPI's items (`spotlight-bench prepare`).
///
/// Numbers do not depend on the hash (the order terms came in), so whichever thread prepared a part, its terms get
/// the same numbers. The hash is seeded per process, so text chosen to collide cannot be written down in advance.
struct TermTable: Sendable {
    /// The terms' bytes, one after the other.
    private(set) var bytes: [UInt8] = []
    /// Where each term ends in `bytes` (term n starts where term n − 1 ends).
    private(set) var ends: [Int32] = []
    /// Each term's hash (`hash(_:)`): tables merged into another rehash nothing.
    private(set) var hashes: [UInt64] = []
    /// Term numbers + 1 (0: empty), a power of two of them, at most half full.
    private var slots: [Int32] = []

    init(capacity: Int = 0) {
        if capacity > 0 {
            bytes.reserveCapacity(capacity * 8)
            ends.reserveCapacity(capacity)
            hashes.reserveCapacity(capacity)
            slots = [Int32](repeating: 0, count: OpenAddressing.slotCount(for: capacity))
        }
    }

    var count: Int { ends.count }

    /// Empties the table, keeping its memory for the next item.
    mutating func removeAll() {
        guard !ends.isEmpty else { return }
        bytes.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        hashes.removeAll(keepingCapacity: true)
        for i in slots.indices { slots[i] = 0 }
    }

    /// The range of term `n` in `bytes`.
    @inline(__always)
    func range(of n: Int) -> Range<Int> { (n == 0 ? 0 : Int(ends[n - 1]))..<Int(ends[n]) }

    /// Term `n` as text.
    func string(_ n: Int) -> String { String(decoding: bytes[range(of: n)], as: UTF8.self) }

    /// Every term as text, in number order.
    var strings: [String] { (0..<count).map(string) }

    /// The number of `term`, added if the table lacks it (`added`).
    @inline(__always)
    mutating func number(of term: UnsafeBufferPointer<UInt8>) -> (number: Int32, added: Bool) {
        number(of: term, hash: Self.hash(term))
    }

    /// The number of `term`, whose `hash(_:)` is `hash`, added if the table lacks it.
    mutating func number(of term: UnsafeBufferPointer<UInt8>, hash: UInt64) -> (number: Int32, added: Bool) {
        if (ends.count + 1) * 2 > slots.count { grow() }
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = slots[slot]
            if entry == 0 { break }
            let n = Int(entry - 1)
            if hashes[n] == hash, equals(n, term) { return (Int32(n), false) }
            slot = (slot + 1) & mask
        }
        let n = Int32(ends.count)
        slots[slot] = n + 1
        bytes.append(contentsOf: term)
        ends.append(Int32(bytes.count))
        hashes.append(hash)
        return (n, true)
    }

    /// The number of `term`, if the table has it.
    func existingNumber(of term: UnsafeBufferPointer<UInt8>) -> Int32? {
        guard !slots.isEmpty else { return nil }
        let hash = Self.hash(term)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = slots[slot]
            if entry == 0 { return nil }
            let n = Int(entry - 1)
            if hashes[n] == hash, equals(n, term) { return Int32(n) }
            slot = (slot + 1) & mask
        }
    }

    /// The number of `text`, added if the table lacks it.
    mutating func number(of text: String) -> Int32 {
        var text = text
        return text.withUTF8 { number(of: $0).number }
    }

    /// The number of `text`, if the table has it.
    func existingNumber(of text: String) -> Int32? {
        var text = text
        return text.withUTF8 { existingNumber(of: $0) }
    }

    /// Adds every term of `other` (those it lacks) and returns their numbers here, by number there.
    mutating func add(_ other: TermTable) -> [Int32] {
        var numbers: [Int32] = []
        numbers.reserveCapacity(other.count)
        other.bytes.withUnsafeBufferPointer { source in
            for n in 0..<other.count {
                let range = other.range(of: n)
                numbers.append(number(of: UnsafeBufferPointer(rebasing: source[range]), hash: other.hashes[n]).number)
            }
        }
        return numbers
    }

    @inline(__always)
    private func equals(_ n: Int, _ term: UnsafeBufferPointer<UInt8>) -> Bool {
        let range = range(of: n)
        guard range.count == term.count else { return false }
        return bytes.withUnsafeBufferPointer { stored in
            range.count == 0 || memcmp(stored.baseAddress! + range.lowerBound, term.baseAddress!, range.count) == 0
        }
    }

    private mutating func grow() {
        let count = OpenAddressing.slotCount(for: max(ends.count + 1, slots.count))
        var slots = [Int32](repeating: 0, count: count)
        let mask = count - 1
        for n in 0..<ends.count {
            var slot = Int(truncatingIfNeeded: hashes[n]) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(n + 1)
        }
        self.slots = slots
    }

    /// This process's seed (`hash(_:)`).
    private static let seed = UInt64.random(in: .min ... .max)

    /// A 64-bit hash of a term's bytes, eight at a time (multiply and fold, as wyhash and FxHash do), seeded per
    /// process. Its low bits pick a slot.
    @inline(__always)
    static func hash(_ term: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h = seed ^ (UInt64(term.count) &* 0x9E37_79B9_7F4A_7C15)
        guard let base = term.baseAddress else { return mix(h) }
        let raw = UnsafeRawPointer(base)
        var offset = 0
        while offset + 8 <= term.count {
            h = mix(h ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        if offset < term.count {
            var tail: UInt64 = 0
            for k in offset..<term.count { tail |= UInt64(base[k]) << (UInt64(k - offset) * 8) }
            h = mix(h ^ tail)
        }
        return mix(h)
    }

    @inline(__always)
    private static func mix(_ value: UInt64) -> UInt64 {
        let product = value.multipliedFullWidth(by: 0xBF58_476D_1CE4_E5B9)
        return product.high ^ product.low
    }
}

/// An item's distinct terms with the tiers each occurs in (`TextIndexer.collectTerms`): what `TextIndexer.terms`
/// returns as a dictionary, kept as bytes for a bulk load's preparing and reused from one item to the next.
struct ItemTerms: Sendable {
    var table = TermTable(capacity: 64)
    /// Each term's tier mask, by number.
    private(set) var tiers: [UInt8] = []
    var count: Int { table.count }

    init() {}

    /// The terms of `TextIndexer.terms`' dictionary.
    init(_ terms: [String: UInt8]) {
        for (term, tiers) in terms { add(term, tiers: tiers) }
    }

    mutating func removeAll() {
        table.removeAll()
        tiers.removeAll(keepingCapacity: true)
    }

    /// Adds `term` in the tiers of `bit` (or-ed into the tiers it has).
    @inline(__always)
    mutating func add(_ term: UnsafeBufferPointer<UInt8>, tiers bit: UInt8) {
        let (n, added) = table.number(of: term)
        if added { tiers.append(bit) } else { tiers[Int(n)] |= bit }
    }

    /// Adds `prefix` followed by `term`.
    mutating func add(_ term: UnsafeBufferPointer<UInt8>, after prefix: UInt8, tiers bit: UInt8) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: term.count + 1) { joined in
            joined[0] = prefix
            _ = UnsafeMutableBufferPointer(rebasing: joined[1...]).initialize(from: term)
            add(UnsafeBufferPointer(joined), tiers: bit)
        }
    }

    /// Adds a term given as text.
    mutating func add(_ text: String, tiers bit: UInt8) {
        var text = text
        text.withUTF8 { add($0, tiers: bit) }
    }

    /// Calls `body` with each term's bytes and tiers, in number order.
    func forEach(_ body: (UnsafeBufferPointer<UInt8>, UInt8) -> Void) {
        table.bytes.withUnsafeBufferPointer { bytes in
            for n in 0..<table.count {
                body(UnsafeBufferPointer(rebasing: bytes[table.range(of: n)]), tiers[n])
            }
        }
    }

    /// The terms as `TextIndexer.terms` returns them.
    var dictionary: [String: UInt8] {
        var result: [String: UInt8] = [:]
        result.reserveCapacity(count)
        forEach { term, tiers in result[String(decoding: term, as: UTF8.self)] = tiers }
        return result
    }
}

/// A map from 64-bit keys (`PrefixLists.shortKey`s) to values, by open addressing with a multiplicative hash,
/// iterated in the order keys came in: `Dictionary<UInt64, _>` hashes each key with SipHash, which was most of
/// computing an item's prefix points and its window's offers in a bulk load.
struct UInt64Map<Value: Sendable>: Sendable {
    private(set) var keys: [UInt64] = []
    private(set) var values: [Value] = []
    /// Key numbers + 1 (0: empty), a power of two of them, at most half full.
    private var slots: [Int32] = []

    init(capacity: Int = 0) {
        if capacity > 0 {
            keys.reserveCapacity(capacity)
            values.reserveCapacity(capacity)
            slots = [Int32](repeating: 0, count: OpenAddressing.slotCount(for: capacity))
        }
    }

    var count: Int { keys.count }

    /// Empties the map, keeping its memory.
    mutating func removeAll() {
        guard !keys.isEmpty else { return }
        keys.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
        for i in slots.indices { slots[i] = 0 }
    }

    @inline(__always)
    private func slot(_ key: UInt64, shift: Int) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift))
    }

    private var shift: Int { 64 - slots.count.trailingZeroBitCount }

    /// The number of `key`, inserted with `value()` when absent.
    @inline(__always)
    mutating func index(of key: UInt64, inserting value: () -> Value) -> (index: Int, inserted: Bool) {
        if (keys.count + 1) * 2 > slots.count { grow() }
        let mask = slots.count - 1
        var slot = slot(key, shift: shift)
        while true {
            let entry = slots[slot]
            if entry == 0 { break }
            if keys[Int(entry - 1)] == key { return (Int(entry - 1), false) }
            slot = (slot + 1) & mask
        }
        slots[slot] = Int32(keys.count + 1)
        keys.append(key)
        values.append(value())
        return (keys.count - 1, true)
    }

    /// Sets the value of the key numbered `index`.
    @inline(__always)
    mutating func setValue(_ value: Value, at index: Int) { values[index] = value }

    /// Changes the value of the key numbered `index` in place.
    @inline(__always)
    mutating func modifyValue(at index: Int, _ body: (inout Value) -> Void) { body(&values[index]) }

    /// Calls `body` with each key and value, in the order keys came in.
    func forEach(_ body: (UInt64, Value) throws -> Void) rethrows {
        for i in keys.indices { try body(keys[i], values[i]) }
    }

    private mutating func grow() {
        let count = OpenAddressing.slotCount(for: max(keys.count + 1, slots.count))
        slots = [Int32](repeating: 0, count: count)
        let mask = count - 1, shift = self.shift
        for (n, key) in keys.enumerated() {
            var slot = slot(key, shift: shift)
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(n + 1)
        }
    }
}

/// The slot arrays of `TermTable` and `UInt64Map`: a power of two, at least 16, at most half full.
enum OpenAddressing {
    static func slotCount(for entries: Int) -> Int {
        var count = 16
        while count < entries * 2 { count <<= 1 }
        return count
    }
}
