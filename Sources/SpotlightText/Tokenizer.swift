/// Turns text into the folded tokens the text index stores and free-text search looks up.
///
/// ```swift
/// Tokenizer.indexTokens("My iPhoneCase, 2 pcs")  // ["my", "iphonecase", "i", "phone", "case", "2", "pcs"]
/// Tokenizer.queryTokens("iPhone  case-2")        // ["iphone", "case", "2"]
/// ```
public enum Tokenizer {
    /// The tokens an index stores for a text.
    ///
    /// For each run of word characters (``WordSplitter/runs(_:)``), in text order, emits:
    /// 1. the whole run folded with ``TextFolding/searchKey(_:)``;
    /// 2. then, only when the run has more than one camelCase part (``WordSplitter/Segment/parts``), each part
    ///    folded, in order.
    ///
    /// 3. after two or three runs joined by single joiners (``isJoiner(_:)``: apostrophes, `&`, `+`, `-`, `.`, `_`),
    ///    their keys joined: `O'Brien` gives `o`, `brien` and `obrien`; `Wi-Fi` gives `wi`, `fi`, `wifi`;
    ///    `rock'n'roll` gives `rocknroll` too. An apostrophe always joins; the other joiners only where one side
    ///    is one or two letters (``isApostrophe(_:)``), so compounds such as `python3-requests` stay split.
    ///    (Longer chains — paths, URLs, dotted names — are not joined.)
    ///
    /// Empty keys (a run of marks only) are skipped; duplicates are kept (`"aA"` gives `aa`, `a`, `a`), so callers
    /// that need a set should deduplicate. A run is found by its whole folded text, and a camelCase identifier
    /// also by each part: `iPhoneCase` by `iphonecase` (or any prefix of it), `phone` and `case`; a joined name
    /// both split (`o brien`) and joined (`obrien`).
    ///
    /// Fast path: ASCII text is tokenized over its bytes.
    ///
    /// - Parameter s: the text of one attribute value.
    public static func indexTokens(_ s: String) -> [String] {
        var s = s
        if let tokens = s.withUTF8({ asciiIndexTokens($0) }) {
            return tokens
        }
        // General path: one pass over the scalars, no intermediate segments.
        var tokens: [String] = []
        let scalars = s.unicodeScalars
        var positions: [String.Index] = []
        positions.reserveCapacity(s.utf8.count + 1)
        var segmenter = WordSegmenter()
        var index = 0
        var chain = JoinedChain()
        func take(_ run: WordSegmenter.Run) {
            let gap = run.range.lowerBound - chain.end
            chain.begin(joiner: gap == 1 && chain.end > 0 ? scalars[positions[chain.end]].value : nil, to: &tokens)
            let whole = appendTokens(of: run, scalars, positions, to: &tokens)
            chain.add(whole, end: run.range.upperBound, to: &tokens)
        }
        for position in scalars.indices {
            positions.append(position)
            if let run = segmenter.feed(WordCharacterClass(of: scalars[position]), at: index) {
                take(run)
            }
            index += 1
        }
        positions.append(scalars.endIndex)
        if let run = segmenter.finish(at: index) {
            take(run)
        }
        chain.finish(to: &tokens)
        return tokens
    }

    /// Whether a scalar joins the words on either side into one name: apostrophes (`'`, `’`, `‘`, `ʼ`, `＇`), `&`,
    /// `+`, hyphens (`-`, `‐`, `‑`), `.` and `_`.
    public static func isJoiner(_ value: UInt32) -> Bool {
        switch value {
        case 0x27, 0x26, 0x2B, 0x2D, 0x2E, 0x5F, 0x2019, 0x2018, 0x02BC, 0xFF07, 0x2010, 0x2011: return true
        default: return false
        }
    }

    /// Whether a joiner is an apostrophe, which always joins (`O'Brien`, `don't`, `Zoë's`); the others join a
    /// name only where one side is one or two letters long (`Wi-Fi`, `AT&T`, `e-mail`, `x-ray`), not compounds
    /// such as `python3-requests` or `paris-france`, whose parts are words of their own.
    static func isApostrophe(_ value: UInt32) -> Bool {
        value == 0x27 || value == 0x2019 || value == 0x2018 || value == 0x02BC || value == 0xFF07
    }

    /// The runs joined so far by single joiners, emitted joined when the chain ends with two or three runs.
    struct JoinedChain {
        static let maximumRuns = 3
        static let shortPart = 2
        var keys: [String] = []
        /// Where the last run ended (a scalar or byte offset; 0 before the first run).
        var end = 0
        /// How the next run is attached: nil if it starts a new chain, else whether by an apostrophe.
        private var joint: Bool? = nil

        /// Before a run's tokens: ends the chain unless the run is joined to it (`joiner`: the scalar between
        /// them, when there is exactly one).
        mutating func begin(joiner: UInt32?, to tokens: inout [String]) {
            if let joiner, end > 0, isJoiner(joiner) {
                joint = isApostrophe(joiner)
            } else {
                finish(to: &tokens)
                joint = nil
            }
        }

        /// After a run's tokens: the run's key joins the chain (or starts a new one when the joint does not join).
        mutating func add(_ key: String, end: Int, to tokens: inout [String]) {
            if let apostrophe = joint, let last = keys.last,
               !(apostrophe || last.count <= Self.shortPart || key.count <= Self.shortPart) {
                finish(to: &tokens)
            }
            keys.append(key)
            self.end = end
        }

        mutating func finish(to tokens: inout [String]) {
            if (2...Self.maximumRuns).contains(keys.count), !keys.contains("") {
                tokens.append(keys.joined())
            }
            keys.removeAll(keepingCapacity: true)
        }
    }

    /// The tokens of text a person typed into a search field.
    ///
    /// Each run of word characters (``WordSplitter/runs(_:)``) folded with ``TextFolding/searchKey(_:)``, in
    /// order; no camelCase parts, empty keys skipped.
    ///
    /// - Parameter s: typed free text.
    public static func queryTokens(_ s: String) -> [String] {
        WordSplitter.runs(s).compactMap { run in
            let key = TextFolding.searchKey(String(run))
            return key.isEmpty ? nil : key
        }
    }

    /// ``indexTokens(_:)`` over ASCII bytes, or `nil` if the text is not ASCII.
    static func asciiIndexTokens(_ bytes: UnsafeBufferPointer<UInt8>) -> [String]? {
        for byte in bytes where byte >= 0x80 { return nil }
        var tokens: [String] = []
        var partStarts: [Int] = []
        let count = bytes.count
        var i = 0
        var chain = JoinedChain()
        while i < count {
            while i < count && !isASCIIAlphanumeric(bytes[i]) { i += 1 }
            guard i < count else { break }
            let runStart = i
            chain.begin(joiner: runStart - chain.end == 1 && chain.end > 0 ? UInt32(bytes[chain.end]) : nil, to: &tokens)
            partStarts.removeAll(keepingCapacity: true)
            partStarts.append(i)
            var previousWasLowercase = false
            while i < count && isASCIIAlphanumeric(bytes[i]) {
                let byte = bytes[i]
                if previousWasLowercase && byte &- 0x41 < 26 { partStarts.append(i) }
                previousWasLowercase = byte &- 0x61 < 26
                i += 1
            }
            let whole = lowercased(bytes, runStart..<i)
            tokens.append(whole)
            if partStarts.count > 1 {
                for (n, start) in partStarts.enumerated() {
                    let end = n + 1 < partStarts.count ? partStarts[n + 1] : i
                    tokens.append(lowercased(bytes, start..<end))
                }
            }
            chain.add(whole, end: i, to: &tokens)
        }
        chain.finish(to: &tokens)
        return tokens
    }

    /// Appends the keys of a run and, when it has several, of its camelCase parts; returns the whole run's key.
    @discardableResult
    private static func appendTokens(of run: WordSegmenter.Run, _ scalars: String.UnicodeScalarView,
                                     _ positions: [String.Index], to tokens: inout [String]) -> String
    {
        func key(_ range: Range<Int>) -> String {
            TextFolding.searchKey(String(Substring(scalars[positions[range.lowerBound]..<positions[range.upperBound]])))
        }
        let whole = key(run.range)
        if !whole.isEmpty { tokens.append(whole) }
        guard run.partStarts.count > 1 else { return whole }
        for part in run.parts {
            let partKey = key(part)
            if !partKey.isEmpty { tokens.append(partKey) }
        }
        return whole
    }

    static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        byte &- 0x30 < 10 || (byte | 0x20) &- 0x61 < 26
    }

    static func lowercased(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(unsafeUninitializedCapacity: range.count) { buffer in
            var j = 0
            for k in range {
                let byte = bytes[k]
                buffer[j] = byte &- 0x41 < 26 ? byte | 0x20 : byte
                j += 1
            }
            return range.count
        }
    }
}
