import SpotlightTestSupport
import Testing
@testable import SpotlightText

@Suite("Tokenizer")
struct TokenizerTests {
    static let indexCases: [SplitCase] = [
        SplitCase("iPhoneCase", ["iphonecase", "i", "phone", "case"]),
        SplitCase("My iPhoneCase, 2 pcs", ["my", "iphonecase", "i", "phone", "case", "2", "pcs"]),
        SplitCase("MyWindowClass", ["mywindowclass", "my", "window", "class"]),
        SplitCase("NSWindow", ["nswindow"]),
        SplitCase("paris-france.jpg", ["paris", "france", "jpg"]),
        SplitCase("python3-requests x-ray", ["python3", "requests", "x", "ray", "xray"]),
        SplitCase("don't", ["don", "t", "dont"]),
        SplitCase("O'Brien", ["o", "brien", "obrien"]),
        SplitCase("Miles O’Brien", ["miles", "o", "brien", "obrien"]),
        SplitCase("rock'n'roll", ["rock", "n", "roll", "rocknroll"]),
        SplitCase("AT&T and Wi-Fi", ["at", "t", "att", "and", "wi", "fi", "wifi"]),
        SplitCase("e-mail, C++", ["e", "mail", "email", "c"]),
        SplitCase("Zoë's café-bar", ["zoe", "s", "zoes", "cafe", "bar"]),
        SplitCase("a-b-c-d", ["a", "b", "c", "d"]),
        SplitCase("x - y", ["x", "y"]),
        SplitCase("tab\t-\tsep", ["tab", "sep"]),
        SplitCase("Café Crème", ["cafe", "creme"]),
        SplitCase("Łódź Übersicht", ["lodz", "ubersicht"]),
        SplitCase("camelCaseÜber", ["camelcaseuber", "camel", "case", "uber"]),
        SplitCase("ﬁnancial Ｒｅｐｏｒｔ", ["financial", "report"]),
        SplitCase("Straße", ["strasse"]),
        SplitCase("aA", ["aa", "a", "a"]),
        SplitCase("東京", ["東", "京"]),
        SplitCase("", []),
        SplitCase("...", []),
        SplitCase("Win10Pro", ["win10pro"]),
    ]

    @Test(arguments: indexCases)
    func indexTokens(_ c: SplitCase) {
        #expect(Tokenizer.indexTokens(c.input) == c.expected)
    }

    static let queryCases: [SplitCase] = [
        SplitCase("iPhone  case-2", ["iphone", "case", "2"]),
        SplitCase("MyWindowClass", ["mywindowclass"]),
        SplitCase("Crème brûlée", ["creme", "brulee"]),
        SplitCase("STRASSE", ["strasse"]),
        SplitCase("", []),
        SplitCase("  --  ", []),
    ]

    @Test(arguments: queryCases)
    func queryTokens(_ c: SplitCase) {
        #expect(Tokenizer.queryTokens(c.input) == c.expected)
    }

    /// The ASCII byte path gives what the general path gives.
    @Test(arguments: ["MyWindowClass x", "paris-france.jpg", "a1B2c3D", "x_y zZ", "iPhoneCase", "ABCdefGHI", "aA",
                      "O'Brien", "rock'n'roll", "AT&T", "a-b-c-d", "x - y", "python3-requests x-ray"])
    func asciiPathMatchesGeneralPath(_ s: String) {
        #expect(Tokenizer.indexTokens(s + " é") == Tokenizer.indexTokens(s) + ["e"])
    }

    /// Random texts of words, camelCase runs, digits and joiners: the ASCII byte path gives the general path's
    /// tokens (forced by a trailing non-ASCII word), and `forEachIndexToken` gives `indexTokens`' bytes, in order,
    /// on both paths. (The byte path keeps a chain's first three runs only: chains of four and more, and a joint
    /// that breaks after them, are what it could get wrong.)
    @Test func byteTokensMatchTheGeneralPathOnRandomTexts() {
        var random = SplitMix64(state: 1128)
        let pieces = ["a", "ab", "abc", "Abc", "iPhone", "XML", "x", "Q", "7", "42", "py3", "-", "'", ".", "_", "&", "+",
                      " ", "  ", ",", "rock", "N", "wiFi", "aBcDeF", "\t"]
        for _ in 0..<20_000 {
            var s = ""
            for _ in 0..<Int.random(in: 0...14, using: &random) { s += pieces.randomElement(using: &random)! }
            let tokens = Tokenizer.indexTokens(s)
            var general = Tokenizer.indexTokens(s + " é")
            #expect(general.removeLast() == "e")
            #expect(tokens == general, "\(s)")
            for text in [s, s + " é"] {
                var emitted: [String] = []
                Tokenizer.forEachIndexToken(text) { emitted.append(String(decoding: $0, as: UTF8.self)) }
                #expect(emitted == Tokenizer.indexTokens(text), "\(text)")
            }
        }
    }

    /// The ASCII path of `queryTokens` gives the words' runs folded, as the general path does.
    @Test func asciiQueryTokensMatchTheRunsFolded() {
        var random = SplitMix64(state: 2811)
        let pieces = ["a", "Ab", "XML", "7", "py3", "-", "'", ".", "_", "&", " ", ",", "iPhone", "\t", "@", "~", "Z9"]
        for _ in 0..<20_000 {
            var s = ""
            for _ in 0..<Int.random(in: 0...12, using: &random) { s += pieces.randomElement(using: &random)! }
            let general = WordSplitter.runs(s).compactMap { run -> String? in
                let key = TextFolding.searchKey(String(run))
                return key.isEmpty ? nil : key
            }
            #expect(Tokenizer.queryTokens(s) == general, "\(s)")
        }
    }

    /// Every query token of a text is among its index tokens.
    @Test(arguments: ["iPhone case", "Crème Brûlée", "MyWindowClass", "paris-france.jpg"])
    func queryTokensAreIndexTokens(_ s: String) {
        let index = Set(Tokenizer.indexTokens(s))
        #expect(Tokenizer.queryTokens(s).allSatisfy(index.contains))
    }
}
