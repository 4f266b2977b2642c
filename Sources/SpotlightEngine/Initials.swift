import Foundation

/// An item's best match for each one-letter prefix, kept with the item (`item.initials`) and read into the
/// segments' columns: for each ASCII letter and digit, the best word points a word starting with it earns in the
/// item, as the index would find them through the posting lists of every term the letter starts.
///
/// A typed word of one letter is the slowest word there is: it starts a large part of the vocabulary (`t` starts
/// 70,000 terms and millions of postings at a million items), yet it is what a person types first after a space
/// (`python t`) or into a search narrowed by a filter. Once the other words or a filter have named the candidates,
/// this column answers the letter for each candidate with one array read, instead of decoding every posting of
/// every term the letter starts (`IndexStore.initialCodes`).
///
/// Each letter has a 4-bit code: 0 when no word of the item starts with it, else the code of an exact match (the
/// letter as a whole word) or a prefix match in the best tier, so a lower code is always more points (`storedCode`:
/// the `MatchCode` of format 3 to 15, `1 + 3 × tier + kind`, kept on disk as written and converted as it is read,
/// `matchCodes`, since `MatchCode` has four kinds). 36
/// letters, two to a byte: at most 18 bytes per item, without the zero bytes at the end (format 7: digits come
/// last and few items have words starting with them, so PyPI's items keep 10.6 bytes on average; a missing byte
/// reads as zero codes, so format 6's 18 bytes read the same). The first letter
/// is the term's first UTF-8 byte, as the term dictionary orders a prefix's terms; terms that start with any
/// other character, and terms only in the metadata tier, have no code (a query letter outside a–z and 0–9 takes
/// the posting lists).
enum Initials {
    static let letters = 36
    static let byteCount = 18

    /// The column index of a word's one letter (`a`…`z` → 0…25, `0`…`9` → 26…35), or nil.
    @inline(__always)
    static func index(ofByte byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return Int(byte - UInt8(ascii: "a"))
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return 26 + Int(byte - UInt8(ascii: "0"))
        default: return nil
        }
    }

    /// The column index of a typed word when it is one letter this column holds.
    static func index(ofWord word: String) -> Int? {
        let bytes = word.utf8
        guard bytes.count == 1, let byte = bytes.first else { return nil }
        return index(ofByte: byte)
    }

    /// The 18 bytes of an item's terms (`TextIndexer.terms`).
    static func encode(_ terms: [String: UInt8]) -> [UInt8] { encode(ItemTerms(terms)) }

    /// The 18 bytes of an item's terms as a bulk load prepares them.
    static func encode(_ terms: ItemTerms) -> [UInt8] {
        var codes = [UInt8](repeating: 0, count: letters)
        for n in 0..<terms.count {
            let range = terms.table.range(of: n)
            guard !range.isEmpty, let letter = index(ofByte: terms.table.bytes[range.lowerBound]),
                  let tier = TextIndexer.bestTier(terms.tiers[n]) else { continue }
            let code = storedCode(tier: tier, exact: range.count == 1)
            if codes[letter] == 0 || code < codes[letter] { codes[letter] = code }
        }
        var bytes = [UInt8](repeating: 0, count: byteCount)
        for letter in 0..<letters { bytes[letter >> 1] |= codes[letter] << (letter & 1 == 0 ? 0 : 4) }
        while bytes.last == 0 { bytes.removeLast() }
        return bytes
    }

    /// The 4-bit code `encode` stores for a best match in `tier`: the letter as a whole word, or a prefix of one.
    @inline(__always)
    static func storedCode(tier: Int, exact: Bool) -> UInt8 { UInt8(1 + 3 * tier + (exact ? 0 : 1)) }

    /// The `MatchCode` of each stored 4-bit code (`storedCode`); 0, and any code `encode` never writes, no match.
    static let matchCodes: [UInt8] = (0..<16).map { stored in
        guard stored >= 1, stored <= 12, (stored - 1) % 3 < 2 else { return 0 }
        return MatchCode.make(tier: (stored - 1) / 3, kind: (stored - 1) % 3 == 0 ? .exact : .prefix)
    }

    /// Whether an item's stored bytes have a length `encode` writes (another is damage: read as no initials).
    @inline(__always)
    static func isValid(count: Int) -> Bool { count <= byteCount }

    /// The `MatchCode` of `letter` in an item's bytes (0 past their end, and for bytes of a length `encode` never
    /// writes: damage reads as no match, never a trap).
    @inline(__always)
    static func code<C: RandomAccessCollection>(_ bytes: C, letter: Int) -> UInt8 where C.Element == UInt8, C.Index == Int {
        guard isValid(count: bytes.count), letter >> 1 < bytes.count else { return 0 }
        let byte = bytes[bytes.startIndex + letter >> 1]
        return matchCodes[Int(letter & 1 == 0 ? byte & 0x0F : byte >> 4)]
    }
}
