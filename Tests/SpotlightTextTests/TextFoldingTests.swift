import Foundation
import Testing
@testable import SpotlightText

/// An input and what it must fold to.
struct FoldCase: Sendable, CustomTestStringConvertible {
    var input: String
    var expected: String
    var testDescription: String { "\(input.debugDescription) → \(expected.debugDescription)" }
    init(_ input: String, _ expected: String) {
        self.input = input
        self.expected = expected
    }
}

@Suite("TextFolding.searchKey")
struct SearchKeyTests {
    static let cases: [FoldCase] = [
        // ASCII fast path
        FoldCase("hello", "hello"),
        FoldCase("Hello World", "hello world"),
        FoldCase("MyWindowClass 42", "mywindowclass 42"),
        FoldCase("", ""),
        // case and diacritics
        FoldCase("Café", "cafe"),
        FoldCase("CAFÉ", "cafe"),
        FoldCase("Cafe\u{301}", "cafe"),  // NFD
        FoldCase("Crème Brûlée", "creme brulee"),
        FoldCase("naïve", "naive"),
        FoldCase("Ångström", "angstrom"),
        FoldCase("Frédéric", "frederic"),
        FoldCase("İstanbul", "istanbul"),
        FoldCase("Łódź", "lodz"),
        // letters Unicode does not decompose
        FoldCase("Straße", "strasse"),
        FoldCase("STRASSE", "strasse"),
        FoldCase("ẞ", "ss"),
        FoldCase("Æther", "aether"),
        FoldCase("æ", "ae"),
        FoldCase("Œuvre", "oeuvre"),
        FoldCase("cœur", "coeur"),
        FoldCase("Øresund", "oresund"),
        FoldCase("ø", "o"),
        FoldCase("Łukasz", "lukasz"),
        FoldCase("Đakovo", "dakovo"),
        FoldCase("Þór", "thor"),
        FoldCase("ı", "i"),
        // ligatures and full-width forms (compatibility decomposition)
        FoldCase("ﬁle", "file"),
        FoldCase("ﬂow", "flow"),
        FoldCase("ﬀ", "ff"),
        FoldCase("Ａｐｐｌｅ", "apple"),
        FoldCase("ＡＢＣ１２３", "abc123"),
        FoldCase("①", "1"),
        // Greek final sigma
        FoldCase("ΟΔΟΣ", "οδοσ"),
        FoldCase("οδος", "οδοσ"),
        FoldCase("Σίσυφος", "σισυφοσ"),
        // scripts that must survive
        FoldCase("한국어", "한국어"),
        FoldCase("東京", "東京"),
        FoldCase("Москва", "москва"),
    ]

    @Test(arguments: cases)
    func folds(_ c: FoldCase) {
        #expect(TextFolding.searchKey(c.input) == c.expected)
    }

    /// Groups whose members must share one search key.
    static let equivalenceGroups: [[String]] = [
        ["Crème Brûlée", "CREME BRULEE", "cre\u{300}me bru\u{302}le\u{301}e", "ｃｒｅｍｅ ｂｒｕｌｅｅ"],
        ["Straße", "STRASSE", "strasse", "STRAẞE"],
        ["ﬁnancial", "financial", "FINANCIAL", "ｆｉｎａｎｃｉａｌ"],
        ["Æsir", "aesir", "AESIR"],
        ["Œdipe", "oedipe"],
        ["ΟΔΟΣ", "οδος", "οδοσ"],
        ["Ñandú", "N\u{303}andu\u{301}", "nandu"],
        ["Ｆ１", "f1", "F1"],
    ]

    @Test(arguments: equivalenceGroups)
    func equivalent(_ group: [String]) {
        let keys = Set(group.map(TextFolding.searchKey))
        #expect(keys.count == 1, "\(group) folded to \(keys)")
    }

    static let samples = ["Café Crème", "MyWindowClass", "Straße ẞ", "ΟΔΟΣ", "ﬁ Ａ１", "İı", "Øresund Łódź", "한국어",
                          "e\u{301}\u{327}", "Ǆemal", "ǅ", "ﬃ", "Ⅻ", "¼", "ŉ", "ΐ", "Ω", "K"]

    @Test(arguments: samples)
    func idempotent(_ s: String) {
        let key = TextFolding.searchKey(s)
        #expect(TextFolding.searchKey(key) == key)
    }

    /// `searchKey` is coarser than every modifier fold, so index terms can pre-filter any string comparison.
    @Test(arguments: samples)
    func coarserThanModifierFolds(_ s: String) {
        for c in [false, true] {
            for d in [false, true] {
                let folded = TextFolding.fold(s, caseInsensitive: c, diacriticInsensitive: d)
                #expect(TextFolding.searchKey(folded) == TextFolding.searchKey(s), "c=\(c) d=\(d) \(s)")
            }
        }
    }

    @Test func asciiWithoutCapitalsIsReturnedUnchanged() {
        let s = "already lowercase 123"
        #expect(TextFolding.searchKey(s) == s)
        #expect(TextFolding.asciiLowercased("ABC") == "abc")
        #expect(TextFolding.asciiLowercased("abç") == nil)
    }
}

/// A `fold(_:caseInsensitive:diacriticInsensitive:)` case.
struct ModifierFoldCase: Sendable, CustomTestStringConvertible {
    var input: String
    var c: Bool
    var d: Bool
    var expected: String
    var testDescription: String { "\(input.debugDescription) c=\(c) d=\(d) → \(expected.debugDescription)" }
}

@Suite("TextFolding.fold")
struct ModifierFoldTests {
    static let cases: [ModifierFoldCase] = [
        .init(input: "Café", c: false, d: false, expected: "Café"),
        .init(input: "Cafe\u{301}", c: false, d: false, expected: "Café"),  // NFC always
        .init(input: "Café", c: true, d: false, expected: "café"),
        .init(input: "Café", c: false, d: true, expected: "Cafe"),
        .init(input: "Café", c: true, d: true, expected: "cafe"),
        .init(input: "Cafe\u{301}", c: true, d: true, expected: "cafe"),
        .init(input: "PARIS", c: true, d: false, expected: "paris"),
        .init(input: "PARIS", c: false, d: true, expected: "PARIS"),
        .init(input: "Straße", c: true, d: false, expected: "strasse"),
        .init(input: "STRAẞE", c: true, d: false, expected: "strasse"),
        .init(input: "Straße", c: false, d: true, expected: "Straße"),
        .init(input: "ﬁle", c: true, d: false, expected: "file"),
        .init(input: "ﬁle", c: false, d: false, expected: "ﬁle"),  // no compatibility mapping without c
        .init(input: "ΟΔΟΣ", c: true, d: false, expected: "οδοσ"),
        .init(input: "οδος", c: true, d: false, expected: "οδοσ"),
        .init(input: "Øresund", c: false, d: true, expected: "Øresund"),  // ø has no combining mark
        .init(input: "Øresund", c: true, d: true, expected: "øresund"),
        .init(input: "Malmö", c: false, d: true, expected: "Malmo"),
        .init(input: "Ångström", c: true, d: true, expected: "angstrom"),
        .init(input: "Ａ", c: true, d: false, expected: "ａ"),
        .init(input: "İ", c: true, d: true, expected: "i"),
        .init(input: "한국어", c: true, d: true, expected: "한국어"),
    ]

    @Test(arguments: cases)
    func folds(_ c: ModifierFoldCase) {
        #expect(TextFolding.fold(c.input, caseInsensitive: c.c, diacriticInsensitive: c.d) == c.expected)
    }

    @Test func nfcAndNFDInputsAgree() {
        let nfc = "Frédéric Chopin Ñandú"
        let nfd = "Fre\u{301}de\u{301}ric Chopin N\u{303}andu\u{301}"
        for c in [false, true] {
            for d in [false, true] {
                let a = TextFolding.fold(nfc, caseInsensitive: c, diacriticInsensitive: d)
                let b = TextFolding.fold(nfd, caseInsensitive: c, diacriticInsensitive: d)
                #expect(Array(a.unicodeScalars) == Array(b.unicodeScalars))
            }
        }
    }
}

@Suite("ScalarFoldTable")
struct ScalarFoldTableTests {
    /// Random text over the table's blocks folds as the general path folds it.
    @Test(arguments: 0..<6)
    func tableMatchesGeneralPath(_ seed: Int) {
        var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1
        func next(_ bound: UInt32) -> UInt32 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt32(truncatingIfNeeded: state >> 33) % bound
        }
        let ranges: [Range<UInt32>] = [0x20..<0x80, 0x80..<0x2000, 0x3000..<0x3100, 0x4E00..<0x4E80, 0xAC00..<0xAD00,
                                       0xFB00..<0xFB50, 0xFF00..<0xFFF0, 0x300..<0x370, 0x1100..<0x1200,
                                       0x900..<0xE00]
        for _ in 0..<2000 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int(next(8)) {
                let range = ranges[Int(next(UInt32(ranges.count)))]
                if let scalar = Unicode.Scalar(range.lowerBound + next(UInt32(range.count))) {
                    scalars.append(scalar)
                }
            }
            let s = String(scalars)
            guard let fast = ScalarFoldTable.searchKey(s) else { continue }
            let slow = TextFolding.slowSearchKey(s)
            #expect(Array(fast.unicodeScalars) == Array(slow.unicodeScalars),
                    "\(s.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    /// The keys generated into `ScalarFoldTable+Keys.swift` are what Foundation's normalisation makes of every
    /// covered scalar today. Run with OPENSPOTLIGHT_REGENERATE_FOLD_TABLE=1 to write them again.
    @Test func generatedKeysAreFoundationsKeys() throws {
        let computed = ScalarFoldTable.computedTable()
        #expect(computed.mayCompose.count == 0x1F80 + 0x100 + 0x50 + 0xF0)
        if ProcessInfo.processInfo.environment["OPENSPOTLIGHT_REGENERATE_FOLD_TABLE"] != nil {
            let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Sources/SpotlightText/ScalarFoldTable+Keys.swift")
            try ScalarFoldTable.keysSource(computed).write(to: sources, atomically: true, encoding: .utf8)
        }
        #expect(ScalarFoldTable.currentTable == computed,
                "the generated keys differ from Foundation's: run the tests with OPENSPOTLIGHT_REGENERATE_FOLD_TABLE=1")
    }

    @Test func coverage() {
        #expect(ScalarFoldTable.searchKey("Crème Brûlée") == "creme brulee")
        #expect(ScalarFoldTable.searchKey("東京 한국어 ＡＢＣ ﬁ") == "東京 한국어 abc fi")
        #expect(ScalarFoldTable.searchKey("🎉") == nil)
        #expect(TextFolding.searchKey("🎉 Café") == "🎉 cafe")
    }
}

@Suite("Hangul composition")
struct HangulTests {
    /// `곹` as one syllable, as LV syllable + trailing jamo, and as three jamo.
    static let forms = ["\u{ACF9}", "\u{ACE0}\u{11C0}", "\u{1100}\u{1169}\u{11C0}"]

    @Test func allFormsFoldAlike() {
        // Compare scalars: String's == already treats the three forms as equal.
        let expected: [Unicode.Scalar] = ["\u{ACF9}"]
        for form in Self.forms {
            #expect(Array(TextFolding.searchKey(form).unicodeScalars) == expected)
            for c in [false, true] {
                for d in [false, true] {
                    let folded = TextFolding.fold(form, caseInsensitive: c, diacriticInsensitive: d)
                    #expect(Array(folded.unicodeScalars) == expected, "c=\(c) d=\(d)")
                }
            }
        }
    }
}
