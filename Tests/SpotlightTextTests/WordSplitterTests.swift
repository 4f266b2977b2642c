import Foundation
import Testing
@testable import SpotlightText
import SpotlightTestSupport

/// A text and the words it must split into.
struct SplitCase: Sendable, CustomTestStringConvertible {
    var input: String
    var expected: [String]
    var testDescription: String { "\(input.debugDescription) → \(expected)" }
    init(_ input: String, _ expected: [String]) {
        self.input = input
        self.expected = expected
    }
}

@Suite("WordSplitter")
struct WordSplitterTests {
    static let wordCases: [SplitCase] = [
        // camelCase: a lowercase→uppercase transition starts a word
        SplitCase("MyWindowClass", ["My", "Window", "Class"]),
        SplitCase("iPhoneCase", ["i", "Phone", "Case"]),
        SplitCase("NSWindow", ["NSWindow"]),
        SplitCase("HTMLParser", ["HTMLParser"]),
        SplitCase("getHTTPResponse", ["get", "HTTPResponse"]),
        SplitCase("camelCaseÜber", ["camel", "Case", "Über"]),
        // punctuation and whitespace
        SplitCase("I love Paris", ["I", "love", "Paris"]),
        SplitCase("paris-france.jpg", ["paris", "france", "jpg"]),
        SplitCase("snake_case_name", ["snake", "case", "name"]),
        SplitCase("path/to:file", ["path", "to", "file"]),
        SplitCase("public.swift-source", ["public", "swift", "source"]),
        SplitCase("Re: lunch", ["Re", "lunch"]),
        SplitCase("don't", ["don", "t"]),
        SplitCase("a\tb\nc", ["a", "b", "c"]),
        SplitCase("emoji🎉party", ["emoji", "🎉", "party"]),
        SplitCase("🍓 Strawberry Shake", ["🍓", "Strawberry", "Shake"]),
        SplitCase("👍🏽 ok ❤️", ["👍🏽", "ok", "❤️"]),
        SplitCase("a → b", ["a", "b"]),
        SplitCase("50% off", ["50", "off"]),
        // digits: no split between letters and digits
        SplitCase("Win10Pro", ["Win10Pro"]),
        SplitCase("abc123def", ["abc123def"]),
        SplitCase("version2Beta", ["version2Beta"]),
        SplitCase("3.14", ["3", "14"]),
        // empty and separator-only
        SplitCase("", []),
        SplitCase("   ", []),
        SplitCase("--//..", []),
        // non-ASCII
        SplitCase("Frédéric Chopin", ["Frédéric", "Chopin"]),
        SplitCase("Fre\u{301}de\u{301}ric", ["Fre\u{301}de\u{301}ric"]),
        SplitCase("Ünïcödé Wörds", ["Ünïcödé", "Wörds"]),
        SplitCase("ＡＢＣ１２ ｄｅｆ", ["ＡＢＣ１２", "ｄｅｆ"]),
        SplitCase("東京タワー", ["東", "京", "タワー"]),
        SplitCase("ひらがな", ["ひ", "ら", "が", "な"]),
        SplitCase("Москва-река", ["Москва", "река"]),
        SplitCase("cafe\u{301}Noir", ["cafe\u{301}", "Noir"]),  // a mark keeps the letter lowercase
        SplitCase("か\u{3099}き", ["か\u{3099}", "き"]),  // NFD kana keeps its mark
        SplitCase("\u{301}abc", ["\u{301}abc"]),
        SplitCase("-\u{301}", ["\u{301}"]),
    ]

    @Test(arguments: wordCases)
    func words(_ c: SplitCase) {
        // Compare scalars: String's == would hide NFC/NFD differences.
        #expect(WordSplitter.words(c.input).map { Array($0.unicodeScalars) } == c.expected.map { Array($0.unicodeScalars) })
    }

    /// NFC and NFD spellings split into the same words.
    @Test(arguments: ["Frédéric ChopinÉtudes", "がぎぐ", "ÀlaCarte", "Ñandú-Óscar"])
    func normalisationFormsSplitAlike(_ s: String) {
        let nfc = WordSplitter.words(s.precomposedStringWithCanonicalMapping).map(String.init)
        let nfd = WordSplitter.words(s.decomposedStringWithCanonicalMapping).map(String.init)
        #expect(nfc == nfd)
        #expect(nfc.count == WordSplitter.words(s).count)
    }

    static let runCases: [SplitCase] = [
        SplitCase("iPhoneCase 2", ["iPhoneCase", "2"]),
        SplitCase("MyWindowClass", ["MyWindowClass"]),
        SplitCase("paris-france.jpg", ["paris", "france", "jpg"]),
        SplitCase("camelCaseÜber!", ["camelCaseÜber"]),
        SplitCase("東京", ["東", "京"]),
    ]

    @Test(arguments: runCases)
    func runs(_ c: SplitCase) {
        #expect(WordSplitter.runs(c.input).map(String.init) == c.expected)
    }

    @Test func segmentsPairRunsWithParts() {
        let segments = WordSplitter.segments("an iPhoneCase")
        #expect(segments.map { String($0.run) } == ["an", "iPhoneCase"])
        #expect(segments.map { $0.parts.map(String.init) } == [["an"], ["i", "Phone", "Case"]])
    }

    /// The ASCII byte path and the general character path agree.
    @Test(arguments: ["MyWindowClass", "paris-france.jpg", "a1B2c3D", "x_y z", "iPhoneCase", "ABCdefGHI"])
    func asciiPathMatchesGeneralPath(_ s: String) {
        let general = WordSplitter.words(s + " é").map(String.init)
        #expect(general == WordSplitter.words(s).map(String.init) + ["é"])
    }

    @Test func characterClasses() {
        #expect(WordCharacterClass(of: Character("a")) == .word(isLowercase: true, isUppercase: false))
        #expect(WordCharacterClass(of: Character("Z")) == .word(isLowercase: false, isUppercase: true))
        #expect(WordCharacterClass(of: Character("7")) == .word(isLowercase: false, isUppercase: false))
        #expect(WordCharacterClass(of: Character("-")) == .separator)
        #expect(WordCharacterClass(of: Character("_")) == .separator)
        #expect(WordCharacterClass(of: Character("東")) == .standalone)
        #expect(WordCharacterClass(of: Character("é")) == .word(isLowercase: true, isUppercase: false))
        #expect(WordCharacterClass(of: "\u{301}" as Unicode.Scalar) == .mark)
        #expect(WordCharacterClass(of: Character("🎉")) == .standalone)
        #expect(WordCharacterClass(of: "\u{1F3FD}" as Unicode.Scalar) == .mark, "a skin tone extends its emoji")
        #expect(WordCharacterClass(of: Character("→")) == .separator)
        #expect(WordCharacterClass(of: Character("#")) == .separator)
    }
}

@Suite("WordCharacterClass table")
struct WordCharacterClassTableTests {
    /// The precomputed classes and the fast ranges agree with the Unicode properties.
    @Test func tableAgreesWithProperties() {
        for value in UInt32(0)..<0x1_0000 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            #expect(WordCharacterClass(of: scalar) == WordCharacterClass(computing: scalar), "U+\(String(value, radix: 16))")
        }
    }

    /// The codes generated into `WordCharacterClass+Table.swift` are what the scalars' Unicode properties give
    /// today. Run with OPENSPOTLIGHT_REGENERATE_CLASS_TABLE=1 to write them again.
    @Test func generatedCodesAreThePropertiesCodes() throws {
        let computed = WordCharacterClass.computedTable()
        #expect(computed.count == Int(WordCharacterClass.tableLimit))
        if ProcessInfo.processInfo.environment["OPENSPOTLIGHT_REGENERATE_CLASS_TABLE"] != nil {
            let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Sources/SpotlightText/WordCharacterClass+Table.swift")
            try WordCharacterClass.tableSource(computed).write(to: sources, atomically: true, encoding: .utf8)
        }
        // (Not the table itself, which falls back to the computed codes when the generated ones are missing.)
        #expect(WordCharacterClass.packedCodes.utf8.map { $0 &- UInt8(ascii: "0") } == computed,
                "the generated codes differ from the Unicode properties: run the tests with OPENSPOTLIGHT_REGENERATE_CLASS_TABLE=1")
    }
}

@Suite("WordSplitter.wordsAndRuns")
struct WordsAndRunsTests {
    @Test(arguments: ["MyWindowClass and NSWindow", "paris-france.jpg", "iPhoneCase", "", "  --  ", "Crème BrûléeÜber",
                      "か\u{3099}き東京", "-\u{301}x", "aA bB", "Win10Pro 3.14"])
    func agreesWithWordsAndRuns(_ s: String) {
        let result = WordSplitter.wordsAndRuns(s, transform: { $0.uppercased() })
        #expect(result.words.map { Array($0.unicodeScalars) }
            == WordSplitter.words(s).map { Array(String($0).uppercased().unicodeScalars) })
        #expect(result.runs.map { Array($0.unicodeScalars) }
            == WordSplitter.runs(s).map { Array(String($0).uppercased().unicodeScalars) })
    }
}

@Suite("WordSplitter.asciiContainsWord")
struct AsciiContainsWordTests {
    /// What the `w` comparison of one word does without the fast path: fold every word and run, compare.
    static func reference(_ s: String, _ literal: String, prefix: Bool, lowercase: Bool) -> Bool {
        let fold = { (t: String) in lowercase ? t.lowercased() : t }
        let value = WordSplitter.wordsAndRuns(s, transform: fold)
        return (value.words + value.runs).contains { prefix ? $0.hasPrefix(literal) : $0 == literal }
    }

    @Test(arguments: [("MyWindowClass", "win", true, true), ("MyWindowClass", "window", false, true),
                      ("MyWindowClass", "mywindowclass", false, true), ("MyWindowClass", "mywin", true, true),
                      ("MyWindowClass", "Window", false, false), ("MyWindowClass", "window", false, false),
                      ("role::program", "prog", true, true), ("implemented-in::c", "c", false, true),
                      ("libfoo2", "libfoo2", false, true), ("a", "ab", true, true), ("", "a", true, true),
                      ("HTMLParser", "parser", false, true), ("getHTTPResponse", "http", true, true)])
    func examples(_ s: String, _ literal: String, _ prefix: Bool, _ lowercase: Bool) {
        let fast = WordSplitter.asciiContainsWord(s, literal: Array(literal.utf8), prefix: prefix, lowercase: lowercase)
        #expect(fast == Self.reference(s, literal, prefix: prefix, lowercase: lowercase))
    }

    @Test func nonASCIITextIsLeftToTheGeneralPath() {
        #expect(WordSplitter.asciiContainsWord("Crème", literal: Array("cr".utf8), prefix: true, lowercase: true) == nil)
    }

    /// 20,000 random ASCII texts and words (seeded): the fast path answers as the general one does.
    @Test func agreesWithTheGeneralPathOnRandomText() {
        var generator = SplitMix64(state: 20261125)
        let alphabet = Array("aAbBzZ09 -_.:/Ab".utf8)
        let wordAlphabet = Array("aAbBzZ09".utf8)
        for _ in 0..<20_000 {
            let text = String(decoding: (0..<Int(generator.next() % 14)).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }, as: UTF8.self)
            let word = String(decoding: (0..<(1 + Int(generator.next() % 4))).map { _ in wordAlphabet[Int(generator.next() % UInt64(wordAlphabet.count))] }, as: UTF8.self)
            let lowercase = generator.next() % 2 == 0
            let literal = lowercase ? word.lowercased() : word
            let prefix = generator.next() % 2 == 0
            let fast = WordSplitter.asciiContainsWord(text, literal: Array(literal.utf8), prefix: prefix, lowercase: lowercase)
            #expect(fast == Self.reference(text, literal, prefix: prefix, lowercase: lowercase), "\(text.debugDescription) \(literal) prefix \(prefix)")
        }
    }
}
