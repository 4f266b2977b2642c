/// The search key of single Unicode scalars, precomputed, so that common non-ASCII text folds without
/// Foundation's normalisation.
///
/// ```swift
/// ScalarFoldTable.searchKey("Crème Brûlée")  // "creme brulee"
/// ScalarFoldTable.searchKey("🎉")            // nil: not covered, use the general path
/// ```
///
/// The search key drops every nonspacing mark, so it is (almost) the concatenation of the keys of the scalars:
/// compatibility decomposition is per scalar and canonical reordering only moves marks that are dropped anyway.
/// What is not per scalar is the final canonical composition, which only matters when the output holds a
/// Hangul jamo, a spacing mark or a combining character; the table flags those and the result is then
/// recomposed. Tests check the table path against the general path.
enum ScalarFoldTable {
    /// The covered blocks, in table order: Latin-1 to General Punctuation, CJK symbols and Kana, Alphabetic
    /// Presentation Forms (ligatures), Halfwidth and Fullwidth Forms.
    private static let ranges: [Range<UInt32>] = [0x80..<0x2000, 0x3000..<0x3100, 0xFB00..<0xFB50, 0xFF00..<0xFFF0]

    /// The keys of all covered scalars, in UTF-8, back to back; scalar `i` of the table has
    /// `utf8[offsets[i]..<offsets[i + 1]]`.
    private struct Table: Sendable {
        var utf8: [UInt8] = []
        var offsets: [Int32] = [0]
        /// Whether the key of the scalar may compose with a neighbour under NFC.
        var mayCompose: [Bool] = []
    }

    private static let table: Table = {
        var table = Table()
        for range in ranges {
            for value in range {
                let key = Unicode.Scalar(value).map { TextFolding.slowSearchKey(String($0)) } ?? ""
                table.utf8 += key.utf8
                table.offsets.append(Int32(table.utf8.count))
                table.mayCompose.append(key.unicodeScalars.contains(where: composes))
            }
        }
        return table
    }()

    /// The table position of a covered scalar (≥ 0x80), or `nil`.
    @inline(__always)
    private static func position(_ value: UInt32) -> Int? {
        if value < 0x2000 { return Int(value &- 0x80) }
        if value >= 0x3000 && value < 0x3100 { return 0x1F80 + Int(value - 0x3000) }
        if value >= 0xFB00 && value < 0xFB50 { return 0x2080 + Int(value - 0xFB00) }
        if value >= 0xFF00 && value < 0xFFF0 { return 0x20D0 + Int(value - 0xFF00) }
        return nil
    }

    /// Ranges whose scalars are their own search key: CJK ideographs (extension A and unified) and Hangul syllables.
    @inline(__always)
    private static func isIdentity(_ value: UInt32) -> Bool {
        (0x3400..<0x4DC0).contains(value) || (0x4E00..<0xA000).contains(value) || (0xAC00..<0xD7A4).contains(value)
    }

    /// Whether a scalar can take part in a canonical composition other than as a plain starter.
    private static func composes(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        return properties.canonicalCombiningClass != .notReordered
            || properties.generalCategory == .spacingMark
            || (0x1100..<0x1200).contains(scalar.value)
    }

    /// The search key of a text whose scalars are all covered, or `nil`.
    static func searchKey(_ s: String) -> String? {
        let table = Self.table
        var bytes: [UInt8] = []
        bytes.reserveCapacity(s.utf8.count + 8)
        var needsComposition = false
        for scalar in s.unicodeScalars {
            let value = scalar.value
            if value < 0x80 {
                let byte = UInt8(truncatingIfNeeded: value)
                bytes.append(byte &- 0x41 < 26 ? byte | 0x20 : byte)
            } else if let i = position(value) {
                bytes.append(contentsOf: table.utf8[Int(table.offsets[i])..<Int(table.offsets[i + 1])])
                if table.mayCompose[i] { needsComposition = true }
            } else if isIdentity(value) {
                UTF8.encode(scalar) { bytes.append($0) }
                // A Hangul syllable may absorb a following trailing jamo; that jamo sets needsComposition.
            } else {
                return nil
            }
        }
        let result = String(decoding: bytes, as: UTF8.self)
        return needsComposition ? TextFolding.recompose(result) : result
    }
}
