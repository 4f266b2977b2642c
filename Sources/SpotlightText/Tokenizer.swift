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
        // ASCII text: its runs are its letters and digits, their keys the runs lowercased (every item's name is
        // tokenized so, `NameSignals`, in a bulk load).
        var copy = s
        if let tokens = copy.withUTF8({ asciiQueryTokens($0) }) { return tokens }
        return WordSplitter.runs(s).compactMap { run in
            let key = TextFolding.searchKey(String(run))
            return key.isEmpty ? nil : key
        }
    }

    /// ``queryTokens(_:)`` over ASCII bytes, or `nil` if the text is not ASCII.
    static func asciiQueryTokens(_ bytes: UnsafeBufferPointer<UInt8>) -> [String]? {
        for byte in bytes where byte >= 0x80 { return nil }
        var tokens: [String] = []
        var i = 0
        while i < bytes.count {
            while i < bytes.count && !isASCIIAlphanumeric(bytes[i]) { i += 1 }
            let start = i
            while i < bytes.count && isASCIIAlphanumeric(bytes[i]) { i += 1 }
            guard i > start else { break }
            tokens.append(String(unsafeUninitializedCapacity: i - start) { buffer in
                for k in start..<i {
                    let byte = bytes[k]
                    buffer[k - start] = byte &- 0x41 < 26 ? byte | 0x20 : byte
                }
                return i - start
            })
        }
        return tokens
    }

    /// ``indexTokens(_:)`` over ASCII bytes, or `nil` if the text is not ASCII.
    static func asciiIndexTokens(_ bytes: UnsafeBufferPointer<UInt8>) -> [String]? {
        var tokens: [String] = []
        let ascii = forEachASCIIIndexToken(bytes) { tokens.append(String(decoding: $0, as: UTF8.self)) }
        return ascii ? tokens : nil
    }

    /// Calls `body` with the UTF-8 bytes of each of ``indexTokens(_:)``'s tokens, in the same order, without
    /// making a `String` of each when the text is ASCII (a bulk load tokenizes tens of millions of words: the
    /// strings, and hashing them, were half of preparing its items). The bytes are valid only during the call.
    public static func forEachIndexToken(_ s: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var s = s
        let ascii = s.withUTF8 { forEachASCIIIndexToken($0, body) }
        guard !ascii else { return }
        for token in indexTokens(s) {
            var token = token
            token.withUTF8 { body($0) }
        }
    }

    /// ``forEachIndexToken(_:_:)`` over ASCII bytes; returns false, having called nothing, if the text is not
    /// ASCII. Every token is a slice of the text lowercased, or a chain's keys joined.
    private static func forEachASCIIIndexToken(_ bytes: UnsafeBufferPointer<UInt8>,
                                               _ body: (UnsafeBufferPointer<UInt8>) -> Void) -> Bool {
        for byte in bytes where byte >= 0x80 { return false }
        let count = bytes.count
        guard count > 0 else { return true }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2 * count) { buffer in
            // The text lowercased, then room for a chain's keys joined (at most the text's length).
            let lower = UnsafeMutableBufferPointer(rebasing: buffer[..<count])
            let joined = UnsafeMutableBufferPointer(rebasing: buffer[count...])
            for k in 0..<count {
                let byte = bytes[k]
                lower[k] = byte &- 0x41 < 26 ? byte | 0x20 : byte
            }
            func emit(_ range: Range<Int>) { body(UnsafeBufferPointer(rebasing: lower[range])) }
            // The chain of runs joined by single joiners (`JoinedChain`, over ranges of the text).
            // (Only the first `maximumRuns` runs are kept: a longer chain is never joined, only counted.)
            var chain: (Range<Int>, Range<Int>, Range<Int>) = (0..<0, 0..<0, 0..<0)
            var links = 0
            var lastRun = 0..<0
            var chainEnd = 0
            var joint: Bool? = nil
            func finishChain() {
                if links >= 2 && links <= JoinedChain.maximumRuns {
                    var length = 0
                    for n in 0..<links {
                        for k in n == 0 ? chain.0 : n == 1 ? chain.1 : chain.2 {
                            joined[length] = lower[k]
                            length += 1
                        }
                    }
                    body(UnsafeBufferPointer(rebasing: joined[..<length]))
                }
                links = 0
            }
            var partStarts: [Int] = []
            var i = 0
            while i < count {
                while i < count && !isASCIIAlphanumeric(bytes[i]) { i += 1 }
                guard i < count else { break }
                let runStart = i
                if runStart - chainEnd == 1 && chainEnd > 0, isJoiner(UInt32(bytes[chainEnd])) {
                    joint = isApostrophe(UInt32(bytes[chainEnd]))
                } else {
                    finishChain()
                    joint = nil
                }
                partStarts.removeAll(keepingCapacity: true)
                partStarts.append(i)
                var previousWasLowercase = false
                while i < count && isASCIIAlphanumeric(bytes[i]) {
                    let byte = bytes[i]
                    if previousWasLowercase && byte &- 0x41 < 26 { partStarts.append(i) }
                    previousWasLowercase = byte &- 0x61 < 26
                    i += 1
                }
                let whole = runStart..<i
                emit(whole)
                if partStarts.count > 1 {
                    for (n, start) in partStarts.enumerated() {
                        emit(start..<(n + 1 < partStarts.count ? partStarts[n + 1] : i))
                    }
                }
                // `JoinedChain.add`: a joint that does not join ends the chain before this run.
                if let apostrophe = joint, links > 0,
                   !(apostrophe || lastRun.count <= JoinedChain.shortPart || whole.count <= JoinedChain.shortPart) {
                    finishChain()
                }
                switch links {
                case 0: chain.0 = whole
                case 1: chain.1 = whole
                case 2: chain.2 = whole
                default: break
                }
                links += 1
                lastRun = whole
                chainEnd = i
            }
            finishChain()
            return true
        }
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
}
