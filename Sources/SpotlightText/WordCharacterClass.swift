/// How a character takes part in words, the single rule behind ``WordSplitter``, ``Tokenizer`` and the word
/// splitting of ``WildcardPattern``.
///
/// - Letters, marks and numbers (Unicode general categories L*, M*, N*) are word characters.
/// - Han ideographs and Hiragana are words by themselves: CJK text has no spaces, so each such character is
///   one word (as in Unicode's default word boundaries, UAX #29).
/// - Everything else — whitespace, punctuation (`-`, `.`, `_`, `/`, `:`, `'`, …), symbols, emoji — separates words.
///
/// ```swift
/// WordCharacterClass(of: "a")   // .word(isLowercase: true, isUppercase: false)
/// WordCharacterClass(of: "-")   // .separator
/// WordCharacterClass(of: "東")  // .standalone
/// ```
public enum WordCharacterClass: Sendable, Hashable {
    /// Separates words and belongs to none.
    case separator
    /// A word of its own (Han ideographs, Hiragana).
    case standalone
    /// Part of a word. A lowercase character followed by an uppercase one starts a new word (camelCase).
    case word(isLowercase: Bool, isUppercase: Bool)

    /// The class of a character, decided by its first Unicode scalar.
    ///
    /// - Parameter character: any character; a lone combining mark counts as a word character.
    public init(of character: Character) {
        guard let scalar = character.unicodeScalars.first else {
            self = .separator
            return
        }
        self.init(of: scalar)
    }

    /// The class of a Unicode scalar.
    public init(of scalar: Unicode.Scalar) {
        let value = scalar.value
        if value < 0x80 {
            self = Self.asciiClasses[Int(value)]
            return
        }
        let properties = scalar.properties
        switch properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter:
            if properties.isIdeographic || (0x3040...0x309F).contains(value) {
                self = .standalone
            } else {
                self = .word(isLowercase: properties.isLowercase, isUppercase: properties.isUppercase)
            }
        case .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .letterNumber, .otherNumber:
            self = .word(isLowercase: properties.isLowercase, isUppercase: properties.isUppercase)
        default:
            self = .separator
        }
    }

    /// Whether the character belongs to a word (a word character or a standalone one).
    public var isWordCharacter: Bool {
        if case .separator = self { return false }
        return true
    }

    /// The classes of the 128 ASCII characters.
    static let asciiClasses: [WordCharacterClass] = (0..<128).map { value -> WordCharacterClass in
        switch UInt8(value) {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return .word(isLowercase: true, isUppercase: false)
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return .word(isLowercase: false, isUppercase: true)
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return .word(isLowercase: false, isUppercase: false)
        default: return .separator
        }
    }
}

/// Where words and camelCase parts start and end in a sequence of character classes.
///
/// A *run* is a maximal sequence of word characters; its *parts* are the run cut at every lowercase→uppercase
/// transition. A standalone character is a run of one part. Ranges are offsets into the class sequence.
struct WordSegmentation {
    /// One run and its parts (a single part equal to the run when it has no camelCase transition).
    struct Segment: Equatable {
        var run: Range<Int>
        var parts: [Range<Int>]
    }

    /// Segments a sequence of classes.
    static func segments(_ classes: some Sequence<WordCharacterClass>) -> [Segment] {
        var segments: [Segment] = []
        var runStart: Int? = nil
        var partStart = 0
        var parts: [Range<Int>] = []
        var previousWasLowercase = false
        var index = 0

        func closeRun(at end: Int) {
            guard let start = runStart else { return }
            parts.append(partStart..<end)
            segments.append(Segment(run: start..<end, parts: parts))
            parts.removeAll(keepingCapacity: true)
            runStart = nil
        }

        for characterClass in classes {
            switch characterClass {
            case .separator:
                closeRun(at: index)
            case .standalone:
                closeRun(at: index)
                segments.append(Segment(run: index..<index + 1, parts: [index..<index + 1]))
            case .word(let isLowercase, let isUppercase):
                if runStart == nil {
                    runStart = index
                    partStart = index
                } else if previousWasLowercase && isUppercase {
                    parts.append(partStart..<index)
                    partStart = index
                }
                previousWasLowercase = isLowercase
            }
            index += 1
        }
        closeRun(at: index)
        return segments
    }
}
