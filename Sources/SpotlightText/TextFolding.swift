import Foundation

/// Folds text so that strings a person would call "the same" compare equal.
///
/// Two folds are provided:
/// - ``searchKey(_:)``, the fold of index terms and free-text search: compatibility decomposition, case folding,
///   diacritics removed, and a few letters that Unicode does not decompose spelled out (`ß`→`ss`, `æ`→`ae`,
///   `ø`→`o`, …).
/// - ``fold(_:caseInsensitive:diacriticInsensitive:)``, the fold of the query-language modifiers `c` and `d`.
///
/// ```swift
/// TextFolding.searchKey("Straße Œuvre ﬁle")              // "strasse oeuvre file"
/// TextFolding.fold("Café", caseInsensitive: true, diacriticInsensitive: false)  // "café"
/// ```
///
/// `searchKey` is coarser than every modifier fold: `searchKey(fold(s, …))` equals `searchKey(s)` for any flags,
/// so strings equal under a modifier fold have equal search keys, and an index of search keys can pre-select
/// candidates for any string comparison of the query language. (The one exception is U+0345 COMBINING GREEK
/// YPOGEGRAMMENI, a mark that case folding alone turns into the letter ι.)
public enum TextFolding {
    /// The search key of a string: the fold used for index terms and free-text search.
    ///
    /// Applies, in order: Unicode compatibility decomposition (NFKD: `ﬁ`→`fi`, full-width `Ａ１`→`A1`), removal of
    /// nonspacing marks (general category Mn: `é`→`e`), full case folding (`ß`→`ss`, `ς`→`σ`), the letters
    /// Unicode does not decompose (`æ`→`ae`, `œ`→`oe`, `ø`→`o`, `ł`→`l`, `đ`/`ð`→`d`, `þ`→`th`, `ħ`→`h`, `ŧ`→`t`,
    /// `ı`→`i`), and finally canonical composition (NFC), so Hangul and similar scripts come out composed.
    /// Canonically equivalent inputs (NFC vs NFD) give the same key.
    ///
    /// ASCII input takes a fast path that lowercases bytes and returns the input itself when it has no capitals;
    /// text in the Latin, Greek, Cyrillic, Kana, CJK and Hangul blocks folds scalar by scalar through a table
    /// (``ScalarFoldTable``); other text goes through Foundation's normalisation.
    ///
    /// - Parameter s: any text.
    /// - Returns: the folded key; empty if `s` has only marks.
    public static func searchKey(_ s: String) -> String {
        if let ascii = asciiLowercased(s) { return ascii }
        if let key = ScalarFoldTable.searchKey(s) { return key }
        return slowSearchKey(s)
    }

    /// ``searchKey(_:)`` through Foundation's normalisation, for any text.
    static func slowSearchKey(_ s: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in s.decomposedStringWithCompatibilityMapping.unicodeScalars {
            if isNonspacingMark(scalar) { continue }
            caseFold(scalar) { folded in
                if isNonspacingMark(folded) { return }
                if let spelled = spelledOutLetter(folded) {
                    scalars.append(contentsOf: spelled.unicodeScalars)
                } else {
                    scalars.append(folded)
                }
            }
        }
        return recompose(String(scalars))
    }

    /// Folds a string for the query-language modifiers `c` (case) and `d` (diacritics).
    ///
    /// The result is always in NFC. With `caseInsensitive`, Unicode full case folding is applied (`ß`→`ss`,
    /// `ﬁ`→`fi`, `Σ`/`ς`→`σ`). With `diacriticInsensitive`, the string is decomposed (NFD), its nonspacing marks
    /// (general category Mn) are dropped and it is recomposed — so `é`→`e` but `ø` stays `ø`, as in Apple's
    /// diacritic-insensitive comparison. The two flags are independent.
    ///
    /// ```swift
    /// TextFolding.fold("Crème", caseInsensitive: true, diacriticInsensitive: true)  // "creme"
    /// ```
    ///
    /// - Parameters:
    ///   - s: the text to fold.
    ///   - caseInsensitive: apply case folding (modifier `c`).
    ///   - diacriticInsensitive: remove diacritics (modifier `d`).
    public static func fold(_ s: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> String {
        if isASCII(s) {
            return caseInsensitive ? (asciiLowercased(s) ?? s) : s
        }
        if !caseInsensitive && !diacriticInsensitive {
            return recompose(s)
        }
        let source = diacriticInsensitive ? s.decomposedStringWithCanonicalMapping : recompose(s)
        var scalars = String.UnicodeScalarView()
        for scalar in source.unicodeScalars {
            if diacriticInsensitive && isNonspacingMark(scalar) { continue }
            if caseInsensitive {
                caseFold(scalar) { folded in
                    if diacriticInsensitive && isNonspacingMark(folded) { return }
                    scalars.append(folded)
                }
            } else {
                scalars.append(scalar)
            }
        }
        return recompose(String(scalars))
    }

    // MARK: - Pieces

    /// Canonical composition (NFC).
    ///
    /// Foundation's NFC on Linux leaves a precomposed Hangul LV syllable followed by a trailing jamo uncomposed
    /// (`각` written as `가` + `ᆨ` stays two scalars), so text with Hangul is fully decomposed first.
    static func recompose(_ s: String) -> String {
        let hasHangul = s.unicodeScalars.contains { scalar in
            let v = scalar.value
            return (0x1100..<0x1200).contains(v) || (0xAC00..<0xD7A4).contains(v) || (0xA960..<0xA980).contains(v)
                || (0xD7B0..<0xD800).contains(v)
        }
        if hasHangul {
            return s.decomposedStringWithCanonicalMapping.precomposedStringWithCanonicalMapping
        }
        return s.precomposedStringWithCanonicalMapping
    }

    /// Whether every byte of the string is ASCII.
    static func isASCII(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { bytes in
            for byte in bytes where byte >= 0x80 { return false }
            return true
        }
    }

    /// The string with ASCII capitals lowercased, or `nil` if it contains non-ASCII bytes. Returns the input
    /// itself (no allocation) when it has no capitals.
    static func asciiLowercased(_ s: String) -> String? {
        var s = s
        let result: String?? = s.withUTF8 { bytes -> String?? in
            var hasUpper = false
            for byte in bytes {
                if byte >= 0x80 { return .some(nil) }
                if byte &- 0x41 < 26 { hasUpper = true }
            }
            guard hasUpper else { return .none }
            return .some(String(unsafeUninitializedCapacity: bytes.count) { buffer in
                for (i, byte) in bytes.enumerated() {
                    buffer[i] = byte &- 0x41 < 26 ? byte | 0x20 : byte
                }
                return bytes.count
            })
        }
        switch result {
        case .none: return s
        case .some(let lowered): return lowered
        }
    }

    /// Whether a scalar is a nonspacing mark (general category Mn), the class `d` removes.
    static func isNonspacingMark(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0x300 && scalar.properties.generalCategory == .nonspacingMark
    }

    /// Emits the full case folding of a scalar.
    ///
    /// Computed as the lowercase mapping of the uppercase mapping for scalars that change when case-folded,
    /// which gives Unicode's full case folding (`ß`→`ss`, `ς`→`σ`, `ﬁ`→`fi`) except for `ẞ`, handled here.
    static func caseFold(_ scalar: Unicode.Scalar, _ emit: (Unicode.Scalar) -> Void) {
        if scalar.value < 0x80 {
            emit(scalar.value &- 0x41 < 26 ? Unicode.Scalar(UInt8(scalar.value | 0x20)) : scalar)
            return
        }
        let properties = scalar.properties
        guard properties.changesWhenCaseFolded else {
            emit(scalar)
            return
        }
        if scalar == "\u{1E9E}" || scalar == "\u{DF}" {  // ẞ, ß → ss
            emit("s")
            emit("s")
            return
        }
        for upper in properties.uppercaseMapping.unicodeScalars {
            for lower in upper.properties.lowercaseMapping.unicodeScalars {
                emit(lower)
            }
        }
    }

    /// The spelling of a lowercase letter that Unicode does not decompose into a base letter plus marks.
    static func spelledOutLetter(_ scalar: Unicode.Scalar) -> String? {
        switch scalar {
        case "\u{DF}": return "ss"  // ß
        case "\u{E6}": return "ae"  // æ
        case "\u{153}": return "oe"  // œ
        case "\u{F8}": return "o"  // ø
        case "\u{142}": return "l"  // ł
        case "\u{111}", "\u{F0}": return "d"  // đ, ð
        case "\u{FE}": return "th"  // þ
        case "\u{127}": return "h"  // ħ
        case "\u{167}": return "t"  // ŧ
        case "\u{131}": return "i"  // ı
        default: return nil
        }
    }
}
