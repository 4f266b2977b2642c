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
    /// Empty keys (a run of marks only) are skipped; duplicates are kept (`"aA"` gives `aa`, `a`, `a`), so callers
    /// that need a set should deduplicate. A run is found by its whole folded text, and a camelCase identifier
    /// also by each part: `iPhoneCase` by `iphonecase` (or any prefix of it), `phone` and `case`.
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
        for position in scalars.indices {
            positions.append(position)
            if let run = segmenter.feed(WordCharacterClass(of: scalars[position]), at: index) {
                appendTokens(of: run, scalars, positions, to: &tokens)
            }
            index += 1
        }
        positions.append(scalars.endIndex)
        if let run = segmenter.finish(at: index) {
            appendTokens(of: run, scalars, positions, to: &tokens)
        }
        return tokens
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
        while i < count {
            while i < count && !isASCIIAlphanumeric(bytes[i]) { i += 1 }
            guard i < count else { break }
            let runStart = i
            partStarts.removeAll(keepingCapacity: true)
            partStarts.append(i)
            var previousWasLowercase = false
            while i < count && isASCIIAlphanumeric(bytes[i]) {
                let byte = bytes[i]
                if previousWasLowercase && byte &- 0x41 < 26 { partStarts.append(i) }
                previousWasLowercase = byte &- 0x61 < 26
                i += 1
            }
            tokens.append(lowercased(bytes, runStart..<i))
            if partStarts.count > 1 {
                for (n, start) in partStarts.enumerated() {
                    let end = n + 1 < partStarts.count ? partStarts[n + 1] : i
                    tokens.append(lowercased(bytes, start..<end))
                }
            }
        }
        return tokens
    }

    /// Appends the keys of a run and, when it has several, of its camelCase parts.
    private static func appendTokens(of run: WordSegmenter.Run, _ scalars: String.UnicodeScalarView,
                                     _ positions: [String.Index], to tokens: inout [String])
    {
        func key(_ range: Range<Int>) -> String {
            TextFolding.searchKey(String(Substring(scalars[positions[range.lowerBound]..<positions[range.upperBound]])))
        }
        let whole = key(run.range)
        if !whole.isEmpty { tokens.append(whole) }
        guard run.partStarts.count > 1 else { return }
        for part in run.parts {
            let partKey = key(part)
            if !partKey.isEmpty { tokens.append(partKey) }
        }
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
