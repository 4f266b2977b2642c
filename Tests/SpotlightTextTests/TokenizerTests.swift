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

    /// Every query token of a text is among its index tokens.
    @Test(arguments: ["iPhone case", "Crème Brûlée", "MyWindowClass", "paris-france.jpg"])
    func queryTokensAreIndexTokens(_ s: String) {
        let index = Set(Tokenizer.indexTokens(s))
        #expect(Tokenizer.queryTokens(s).allSatisfy(index.contains))
    }
}
