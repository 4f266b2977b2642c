/// How a character takes part in words, the single rule behind ``WordSplitter``, ``Tokenizer`` and the word
/// splitting of ``WildcardPattern``.
///
/// Splitting works on Unicode scalars:
/// - Letters and numbers (Unicode general categories L*, N*) are word characters.
/// - Marks (M*) extend whatever precedes them — a word, or a standalone character — without changing its case
///   for camelCase detection (`e` + U+0301 is a lowercase letter); after a separator they start a word.
/// - Han ideographs and Hiragana are words by themselves: CJK text has no spaces, so each such character (with
///   its marks) is one word, as in Unicode's default word boundaries (UAX #29). So is each emoji (a pictographic
///   symbol, with its variation selector and skin tone): `🍓` finds "🍓 Strawberry Shake".
/// - Everything else — whitespace, punctuation (`-`, `.`, `_`, `/`, `:`, `'`, …), other symbols — separates words.
///
/// ```swift
/// WordCharacterClass(of: "a" as Unicode.Scalar)   // .word(isLowercase: true, isUppercase: false)
/// WordCharacterClass(of: "-" as Unicode.Scalar)   // .separator
/// WordCharacterClass(of: "東" as Unicode.Scalar)  // .standalone
/// ```
public enum WordCharacterClass: Sendable, Hashable {
    /// Separates words and belongs to none.
    case separator
    /// A word of its own (Han ideographs, Hiragana).
    case standalone
    /// Part of a word. A lowercase character followed by an uppercase one starts a new word (camelCase).
    case word(isLowercase: Bool, isUppercase: Bool)
    /// A combining mark: part of the preceding word or standalone character.
    case mark

    /// The class of a character, decided by its first Unicode scalar.
    ///
    /// - Parameter character: any character.
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
            self = Self.ascii(UInt8(truncatingIfNeeded: value))
        } else if value < Self.tableLimit {
            self = Self.decode(Self.table[Int(value)])
        } else if (0x4E00..<0xA000).contains(value) {
            self = .standalone
        } else if (0xAC00..<0xD7A4).contains(value) {
            self = .word(isLowercase: false, isUppercase: false)
        } else {
            self.init(computing: scalar)
        }
    }

    /// Scalars below this have their class in ``table`` (Unicode property lookups are slow).
    static let tableLimit: UInt32 = 0x3100

    /// The classes of the scalars below ``tableLimit``, encoded.
    static let table: [UInt8] = (0..<tableLimit).map { value in
        Unicode.Scalar(value).map { encode(WordCharacterClass(computing: $0)) } ?? 0
    }

    static func encode(_ characterClass: WordCharacterClass) -> UInt8 {
        switch characterClass {
        case .separator: 0
        case .standalone: 1
        case .mark: 2
        case .word(let isLowercase, let isUppercase): 4 | (isLowercase ? 1 : 0) | (isUppercase ? 2 : 0)
        }
    }

    static func decode(_ code: UInt8) -> WordCharacterClass {
        switch code {
        case 0: .separator
        case 1: .standalone
        case 2: .mark
        default: .word(isLowercase: code & 1 != 0, isUppercase: code & 2 != 0)
        }
    }

    /// The class from the scalar's Unicode properties.
    init(computing scalar: Unicode.Scalar) {
        let value = scalar.value
        if value < 0x80 {
            self = Self.ascii(UInt8(truncatingIfNeeded: value))
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
        case .nonspacingMark, .spacingMark, .enclosingMark:
            self = .mark
        case .decimalNumber, .letterNumber, .otherNumber:
            self = .word(isLowercase: properties.isLowercase, isUppercase: properties.isUppercase)
        case .otherSymbol where properties.isEmoji || properties.isEmojiPresentation:
            // An emoji is a word of its own (`🍓` finds "🍓 Strawberry Shake"), like a Han ideograph.
            self = .standalone
        case .modifierSymbol where properties.isEmojiModifier:
            // A skin tone extends the emoji before it.
            self = .mark
        default:
            self = .separator
        }
    }

    /// Whether the character belongs to a word (a word character or a standalone one).
    public var isWordCharacter: Bool {
        if case .separator = self { return false }
        return true
    }

    /// The class of an ASCII byte: letters and digits are word characters, everything else separates.
    @inline(__always)
    static func ascii(_ byte: UInt8) -> WordCharacterClass {
        if byte &- 0x61 < 26 { return .word(isLowercase: true, isUppercase: false) }
        if byte &- 0x41 < 26 { return .word(isLowercase: false, isUppercase: true) }
        if byte &- 0x30 < 10 { return .word(isLowercase: false, isUppercase: false) }
        return .separator
    }
}

/// Finds runs of word characters and their camelCase parts in a stream of character classes.
///
/// A *run* is a maximal sequence of word characters (with their marks); its *parts* are the run cut at every
/// lowercase→uppercase transition. A standalone character (with its marks) is a run of one part. Positions are
/// offsets in the stream. Feed classes in order, then call ``finish(at:)``; each returns the run it completed,
/// if any, with the start offsets of its parts (the first is the run's start).
struct WordSegmenter {
    /// A completed run.
    struct Run {
        var range: Range<Int>
        var partStarts: [Int]

        /// The part ranges.
        var parts: [Range<Int>] {
            partStarts.indices.map { i in
                partStarts[i]..<(i + 1 < partStarts.count ? partStarts[i + 1] : range.upperBound)
            }
        }
    }

    private var runStart: Int? = nil
    private var partStarts: [Int] = []
    private var previousWasLowercase = false
    private var runIsStandalone = false

    /// Feeds the class of the unit at `index`; returns the run this ends, if any.
    mutating func feed(_ characterClass: WordCharacterClass, at index: Int) -> Run? {
        switch characterClass {
        case .separator:
            return finish(at: index)
        case .standalone:
            let completed = finish(at: index)
            start(at: index)
            runIsStandalone = true
            return completed
        case .mark:
            if runStart == nil { start(at: index) }
            return nil
        case .word(let isLowercase, let isUppercase):
            var completed: Run? = nil
            if runIsStandalone { completed = finish(at: index) }
            if runStart == nil {
                start(at: index)
            } else if previousWasLowercase && isUppercase {
                partStarts.append(index)
            }
            previousWasLowercase = isLowercase
            return completed
        }
    }

    /// Ends the current run, if any, at `end`, and returns it.
    mutating func finish(at end: Int) -> Run? {
        guard let start = runStart else { return nil }
        runStart = nil
        runIsStandalone = false
        return Run(range: start..<end, partStarts: partStarts)
    }

    private mutating func start(at index: Int) {
        runStart = index
        partStarts.removeAll(keepingCapacity: true)
        partStarts.append(index)
        previousWasLowercase = false
    }
}

/// Runs and camelCase parts of a whole sequence of character classes.
enum WordSegmentation {
    /// One run and its parts (a single part equal to the run when it has no camelCase transition).
    struct Segment: Equatable {
        var run: Range<Int>
        var parts: [Range<Int>]
    }

    /// Segments a sequence of classes.
    static func segments(_ classes: some Sequence<WordCharacterClass>) -> [Segment] {
        var segments: [Segment] = []
        var segmenter = WordSegmenter()
        var index = 0
        for characterClass in classes {
            if let run = segmenter.feed(characterClass, at: index) {
                segments.append(Segment(run: run.range, parts: run.parts))
            }
            index += 1
        }
        if let run = segmenter.finish(at: index) {
            segments.append(Segment(run: run.range, parts: run.parts))
        }
        return segments
    }
}
