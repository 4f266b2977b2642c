/// Splits text into words the way the `w` modifier and the text index see them.
///
/// Words end at whitespace, punctuation and symbols (see ``WordCharacterClass``) **and** at every
/// lowercase→uppercase transition; there is no split between letters and digits, nor inside a run of capitals.
/// Splitting works on Unicode scalars, so NFC and NFD text split alike.
///
/// ```swift
/// WordSplitter.words("MyWindowClass")      // ["My", "Window", "Class"]
/// WordSplitter.words("NSWindow")           // ["NSWindow"]
/// WordSplitter.words("paris-france.jpg")   // ["paris", "france", "jpg"]
/// WordSplitter.runs("iPhoneCase 2")        // ["iPhoneCase", "2"]
/// ```
public enum WordSplitter {
    /// One alphanumeric run of a text and its camelCase parts.
    public struct Segment: Sendable, Hashable {
        /// The whole run of word characters, e.g. `iPhoneCase`.
        public var run: Substring
        /// The run cut at lowercase→uppercase transitions, e.g. `i`, `Phone`, `Case`; a single element equal to
        /// ``run`` when there is no transition.
        public var parts: [Substring]
    }

    /// The words of a text: runs of word characters, cut at lowercase→uppercase transitions.
    ///
    /// - Parameter s: any text.
    /// - Returns: the words in order, as slices of `s`.
    public static func words(_ s: String) -> [Substring] {
        segments(s).flatMap(\.parts)
    }

    /// The runs of word characters of a text, without camelCase cuts.
    ///
    /// - Parameter s: any text.
    /// - Returns: the runs in order, as slices of `s`.
    public static func runs(_ s: String) -> [Substring] {
        segments(s).map(\.run)
    }

    /// The runs of a text with their camelCase parts.
    ///
    /// - Parameter s: any text.
    public static func segments(_ s: String) -> [Segment] {
        if TextFolding.isASCII(s) {
            return asciiSegments(s)
        }
        let scalars = s.unicodeScalars
        let indices = Array(scalars.indices) + [scalars.endIndex]
        let classes = scalars.lazy.map(WordCharacterClass.init(of:))
        func slice(_ range: Range<Int>) -> Substring {
            Substring(scalars[indices[range.lowerBound]..<indices[range.upperBound]])
        }
        return WordSegmentation.segments(classes).map { segment in
            Segment(run: slice(segment.run), parts: segment.parts.map(slice))
        }
    }

    /// The words and the runs of a text as new strings, each passed through `transform` (a fold, say).
    ///
    /// Equivalent to `(words(s).map { transform(String($0)) }, runs(s).map { transform(String($0)) })` but
    /// without intermediate slices: this is what a `w` comparison does for every value it checks.
    ///
    /// - Parameters:
    ///   - s: any text.
    ///   - transform: applied to each word and run.
    public static func wordsAndRuns(_ s: String, transform: (String) -> String = { $0 })
        -> (words: [String], runs: [String])
    {
        var words: [String] = []
        var runs: [String] = []
        func add(_ run: WordSegmenter.Run, _ text: (Range<Int>) -> String) {
            let whole = transform(text(run.range))
            runs.append(whole)
            if run.partStarts.count == 1 {
                words.append(whole)
            } else {
                for part in run.parts { words.append(transform(text(part))) }
            }
        }
        var segmenter = WordSegmenter()
        var copy = s
        let handled = copy.withUTF8 { bytes -> Bool in
            for byte in bytes where byte >= 0x80 { return false }
            let text = { (range: Range<Int>) in String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
            for (index, byte) in bytes.enumerated() {
                if let run = segmenter.feed(WordCharacterClass.ascii(byte), at: index) { add(run, text) }
            }
            if let run = segmenter.finish(at: bytes.count) { add(run, text) }
            return true
        }
        if handled { return (words, runs) }
        let scalars = s.unicodeScalars
        var positions: [String.Index] = []
        positions.reserveCapacity(s.utf8.count + 1)
        let text = { (range: Range<Int>) in
            String(Substring(scalars[positions[range.lowerBound]..<positions[range.upperBound]]))
        }
        var index = 0
        for position in scalars.indices {
            positions.append(position)
            if let run = segmenter.feed(WordCharacterClass(of: scalars[position]), at: index) { add(run, text) }
            index += 1
        }
        positions.append(scalars.endIndex)
        if let run = segmenter.finish(at: index) { add(run, text) }
        return (words, runs)
    }

    /// ``segments(_:)`` for ASCII text, over bytes.
    static func asciiSegments(_ s: String) -> [Segment] {
        var s = s
        let segments = s.withUTF8 { bytes in
            WordSegmentation.segments(bytes.lazy.map(WordCharacterClass.ascii))
        }
        let utf8 = s.utf8
        func slice(_ range: Range<Int>) -> Substring {
            let lower = utf8.index(utf8.startIndex, offsetBy: range.lowerBound)
            let upper = utf8.index(lower, offsetBy: range.count)
            return s[lower..<upper]
        }
        return segments.map { segment in
            Segment(run: slice(segment.run), parts: segment.parts.count == 1 ? [slice(segment.run)] : segment.parts.map(slice))
        }
    }
}

extension WordSplitter {
    /// Whether an ASCII text has a word or a run (as ``wordsAndRuns(_:transform:)`` finds them) equal to `literal`,
    /// or starting with it when `prefix`, after ASCII lowercasing when `lowercase`; `nil` when the text is not ASCII.
    ///
    /// This is the `w` comparison of a one-word pattern (`keywords == "lib*"cwdt`) without building a string per
    /// word: the query language checks every candidate item this way.
    ///
    /// - Parameters:
    ///   - s: any text.
    ///   - literal: the pattern's word, already folded as the text's words will be.
    ///   - prefix: `literal` is a prefix (`lib*`) rather than a whole word.
    ///   - lowercase: fold the text's capitals (modifier `c`; for ASCII, the only fold that changes anything).
    public static func asciiContainsWord(_ s: String, literal: [UInt8], prefix: Bool, lowercase: Bool) -> Bool? {
        var copy = s
        return copy.withUTF8 { bytes -> Bool? in
            var i = 0
            // Most values are ASCII: check while scanning, and give up at the first other byte (a run it is in
            // may split otherwise). A word or run that matched before it is one of the general splitting too, so a
            // match is final.
            func equals(_ range: Range<Int>) -> Bool {
                guard prefix ? range.count >= literal.count : range.count == literal.count else { return false }
                var k = 0
                for b in bytes[range.lowerBound..<(range.lowerBound + literal.count)] {
                    let folded = lowercase && b &- 0x41 < 26 ? b | 0x20 : b
                    if folded != literal[k] { return false }
                    k += 1
                }
                return true
            }
            while i < bytes.count {
                let b = bytes[i]
                if b >= 0x80 { return nil }
                guard b &- 0x61 < 26 || b &- 0x41 < 26 || b &- 0x30 < 10 else { i += 1; continue }
                // A run of word characters; its parts end at lowercase→uppercase transitions.
                let runStart = i
                var partStart = i
                var previousWasLowercase = false
                var parts = 0
                while i < bytes.count {
                    let c = bytes[i]
                    if c >= 0x80 { return nil }
                    let lower = c &- 0x61 < 26, upper = c &- 0x41 < 26
                    guard lower || upper || c &- 0x30 < 10 else { break }
                    if previousWasLowercase && upper {
                        if equals(partStart..<i) { return true }
                        partStart = i
                        parts += 1
                    }
                    previousWasLowercase = lower
                    i += 1
                }
                if equals(partStart..<i) || (parts > 0 && equals(runStart..<i)) { return true }
            }
            return false
        }
    }
}
