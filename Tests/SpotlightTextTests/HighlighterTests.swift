import Foundation
import Testing
@testable import SpotlightText

/// `Highlighter`: which characters a typed word lights up in a title, and which passage of a long text is shown.
@Suite("Highlighter")
struct HighlighterTests {
    typealias Word = Highlighter.QueryWord

    /// The highlighted pieces of `text`.
    func pieces(_ text: String, _ words: [Word]) -> [String] {
        Highlighter.ranges(in: text, words: words).map { String(text[$0]) }
    }

    /// `text` with its ranges in brackets.
    func bracketed(_ text: String, _ ranges: [Range<String.Index>]) -> String {
        var out = ""
        var last = text.startIndex
        for range in ranges {
            out += text[last..<range.lowerBound] + "[" + text[range] + "]"
            last = range.upperBound
        }
        return out + text[last...]
    }

    @Test func wholeWordsAndTheTypedPartOfAPrefix() {
        let words = [Word("milk"), Word("sha", isPrefix: true)]
        #expect(pieces("Milk Shake", words) == ["Milk", "Sha"])
        #expect(pieces("Chocolate milk, shaken", words) == ["milk", "sha"])
        // A non-final word matches whole words only.
        #expect(pieces("Milkshake", [Word("milk")]) == [])
        #expect(pieces("Milkshake", [Word("milk", isPrefix: true)]) == ["Milk"])
        #expect(pieces("Nothing here", words) == [])
        #expect(pieces("", words) == [])
        #expect(pieces("Milk", []) == [])
    }

    @Test func foldedTextInNFCAndNFDHighlightsWholeCharacters() {
        let nfc = "Crème Brûlée"
        let nfd = nfc.decomposedStringWithCanonicalMapping
        #expect(nfd.unicodeScalars.count > nfc.unicodeScalars.count)
        for text in [nfc, nfd] {
            let words = [Word("creme"), Word("bru", isPrefix: true)]
            let found = Highlighter.ranges(in: text, words: words)
            #expect(found.map { String(text[$0]) } == ["Crème", "Brû"].map { text == nfd ? $0.decomposedStringWithCanonicalMapping : $0 })
            // The ranges end on Character boundaries: the accent stays with its letter.
            for range in found {
                #expect(String.Index(range.lowerBound, within: text) != nil)
                #expect(String.Index(range.upperBound, within: text) != nil)
            }
        }
        #expect(pieces("STRASSE straße", [Word("strasse")]) == ["STRASSE", "straße"])
    }

    @Test func multiByteTextEmojiAndIdeographs() {
        #expect(pieces("🍓 Strawberry Shake", [Word("🍓")]) == ["🍓"])
        #expect(pieces("👍🏽 thumbs", [Word("👍🏽")]) == ["👍🏽"])
        #expect(pieces("東京タワー 東京", [Word("東"), Word("京")]) == ["東京", "東京"])
        #expect(pieces("Ελληνικά κείμενα", [Word("ελλ", isPrefix: true)]) == ["Ελλ"])
    }

    @Test func joinedNamesCamelCaseAndTypos() {
        #expect(pieces("Ask O’Brien today", [Word("obrien")]) == ["O’Brien"])
        #expect(pieces("Ask O'Brien today", [Word("obr", isPrefix: true)]) == ["O'Br"])
        #expect(pieces("Ask O'Brien today", [Word("brien")]) == ["Brien"])
        #expect(pieces("Free Wi-Fi here", [Word("wifi")]) == ["Wi-Fi"])
        #expect(pieces("my iPhoneCase", [Word("phone")]) == ["Phone"])
        #expect(pieces("python3-requests", [Word("python3requests")]) == [], "compounds of longer words are not joined")
        #expect(pieces("Best requests library", [Word("reqeusts", alsoMatches: ["requests"])]) == ["requests"])
    }

    @Test func aShortTextIsItsOwnSnippet() throws {
        let snippet = try #require(Highlighter.snippet(of: "A berry smoothie\nwith  blueberries", words: [Word("berry")]))
        #expect(snippet.text == "A berry smoothie with blueberries")
        #expect(bracketed(snippet.text, snippet.ranges) == "A [berry] smoothie with blueberries")
        #expect(snippet.words == [0])
        #expect(Highlighter.snippet(of: "Nothing matches", words: [Word("berry")]) == nil)
    }

    @Test func theSnippetIsThePassageWithTheMostTypedWords() throws {
        let filler = Array(repeating: "lorem ipsum dolor sit amet", count: 20).joined(separator: " ")
        let text = "Intro about tea. \(filler) Here green tea meets oat milk in one cup. \(filler) The end with milk."
        let words = [Word("tea"), Word("milk", isPrefix: true)]
        let snippet = try #require(Highlighter.snippet(of: text, words: words, length: 80))
        #expect(snippet.words == [0, 1])
        #expect(snippet.text.hasPrefix("…"))
        #expect(snippet.text.hasSuffix("…"))
        #expect(snippet.text.count <= 80 + 2)
        #expect(snippet.ranges.map { String(snippet.text[$0]) } == ["tea", "milk"])
        #expect(snippet.text.contains("green tea meets oat milk in one cup"))
        // Words are never cut at the ends.
        let inner = snippet.text.dropFirst().dropLast()
        #expect(text.contains(inner))
        #expect(inner.first?.isLetter == true)
    }

    @Test func snippetRangesInMultiByteAndDecomposedText() throws {
        let filler = Array(repeating: "日本語のテキスト", count: 30).joined(separator: " ")
        let text = "\(filler) la crème brûlée est délicieuse \(filler)".decomposedStringWithCanonicalMapping
        let snippet = try #require(Highlighter.snippet(of: text, words: [Word("creme"), Word("brulee")], length: 60))
        #expect(snippet.ranges.map { String(snippet.text[$0]) } == ["crème", "brûlée"].map { $0.decomposedStringWithCanonicalMapping })
        #expect(snippet.words == [0, 1])
        for range in snippet.ranges {
            #expect(String.Index(range.lowerBound, within: snippet.text) != nil)
            #expect(String.Index(range.upperBound, within: snippet.text) != nil)
        }
    }

    @Test func aVeryLongTextIsScannedOnlyAtItsStart() throws {
        let long = String(repeating: "word ", count: Highlighter.snippetScanLimit) + "needle"
        #expect(Highlighter.snippet(of: long, words: [Word("needle")]) == nil)
        let early = "needle " + long
        let snippet = try #require(Highlighter.snippet(of: early, words: [Word("needle")]))
        #expect(snippet.text.hasPrefix("needle"))
        #expect(snippet.text.hasSuffix("…"))
    }
}
