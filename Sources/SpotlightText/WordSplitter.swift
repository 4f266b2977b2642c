/// Splits text into words the way the `w` modifier and the text index see them.
///
/// Words end at whitespace, punctuation and symbols (see ``WordCharacterClass``) **and** at every
/// lowercase→uppercase transition; there is no split between letters and digits, nor inside a run of capitals.
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
        let indices = Array(s.indices) + [s.endIndex]
        let classes = s.lazy.map(WordCharacterClass.init(of:))
        return WordSegmentation.segments(classes).map { segment in
            Segment(
                run: s[indices[segment.run.lowerBound]..<indices[segment.run.upperBound]],
                parts: segment.parts.map { s[indices[$0.lowerBound]..<indices[$0.upperBound]] }
            )
        }
    }

    /// ``segments(_:)`` for ASCII text, over bytes.
    static func asciiSegments(_ s: String) -> [Segment] {
        let utf8 = s.utf8
        let classes = utf8.lazy.map { WordCharacterClass.asciiClasses[Int($0 & 0x7F)] }
        return WordSegmentation.segments(classes).map { segment in
            func slice(_ range: Range<Int>) -> Substring {
                let lower = utf8.index(utf8.startIndex, offsetBy: range.lowerBound)
                let upper = utf8.index(lower, offsetBy: range.count)
                return s[lower..<upper]
            }
            return Segment(run: slice(segment.run), parts: segment.parts.map(slice))
        }
    }
}
