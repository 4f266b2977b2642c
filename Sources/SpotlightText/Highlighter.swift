/// Finds where typed words match a text, for showing why a result matched: the matched words of a title, and the
/// passage of a longer text (a description, the body) with the most of the typed words.
///
/// Matching follows the text index (``Tokenizer/indexTokens(_:)``): a typed word matches a run of word characters,
/// one of its camelCase parts, or two or three runs joined by joiners (`O'Brien` for `obrien`), when its folded key
/// is the word, starts with it (the word being typed), or is one of the words the engine matched it to (a typo's
/// correction). A whole-word match covers the word; a prefix match covers only the characters that were typed
/// (`Milk` of `Milkshake` for `milk`).
///
/// ```swift
/// let words = [Highlighter.QueryWord("creme"), Highlighter.QueryWord("bru", isPrefix: true)]
/// Highlighter.ranges(in: "Crème Brûlée", words: words).map { "Crème Brûlée"[$0] }   // ["Crème", "Brû"]
/// ```
///
/// Ranges are `String.Index` ranges on Character boundaries, so NFC and NFD text, emoji and other multi-byte text
/// highlight whole characters.
package enum Highlighter {
    /// One typed word.
    package struct QueryWord: Sendable, Hashable {
        /// The folded word (``Tokenizer/queryTokens(_:)``).
        package var key: String
        /// Whether it is matched as a prefix (the word being typed).
        package var isPrefix: Bool
        /// Other folded words it matched (typo corrections), matched whole.
        package var alsoMatches: Set<String>

        package init(_ key: String, isPrefix: Bool = false, alsoMatches: Set<String> = []) {
            self.key = key
            self.isPrefix = isPrefix
            self.alsoMatches = alsoMatches
        }
    }

    /// A matched range and the typed word (its position in `words`) that matched it.
    package struct Match: Sendable, Hashable {
        package var range: Range<String.Index>
        package var word: Int
    }

    /// A passage of a longer text with its matched ranges.
    package struct Snippet: Sendable, Hashable {
        /// The passage, whitespace collapsed, with `…` where the text goes on before or after it.
        package var text: String
        /// The matched ranges of `text`, in order, not overlapping.
        package var ranges: [Range<String.Index>]
        /// Which typed words (positions in `words`) the passage matches.
        package var words: Set<Int>
    }

    /// How much of a long text is searched for a snippet (Characters): the start of a document is where a person
    /// looks for why it matched, and a megabyte-long body must not slow a result list down.
    package static let snippetScanLimit = 20_000

    /// The matched ranges of `text`, in order, merged where they overlap.
    package static func ranges(in text: String, words: [QueryWord]) -> [Range<String.Index>] {
        merged(matches(in: text, words: words).map(\.range))
    }

    /// Every match of a typed word in `text`, in text order (overlapping ones included).
    package static func matches(in text: String, words: [QueryWord]) -> [Match] {
        guard !words.isEmpty, !text.isEmpty else { return [] }
        let segments = WordSplitter.segments(text)
        var found: [Match] = []
        func consider(_ span: Substring, key: String) {
            for (n, word) in words.enumerated() where !word.key.isEmpty {
                if key == word.key || word.alsoMatches.contains(key) {
                    found.append(Match(range: characterRange(span, in: text), word: n))
                } else if word.isPrefix, key.hasPrefix(word.key), let end = typedEnd(of: span, prefix: word.key) {
                    found.append(Match(range: characterRange(span[..<end], in: text), word: n))
                }
            }
        }
        var keys: [String] = []
        for segment in segments {
            let key = TextFolding.searchKey(String(segment.run))
            keys.append(key)
            consider(segment.run, key: key)
            if segment.parts.count > 1 {
                for part in segment.parts { consider(part, key: TextFolding.searchKey(String(part))) }
            }
        }
        // Runs joined by joiners, as the index joins them (`Tokenizer.JoinedChain`).
        for chain in joinedChains(segments, keys: keys, in: text) {
            let span = text[segments[chain.lowerBound].run.startIndex..<segments[chain.upperBound - 1].run.endIndex]
            consider(span, key: chain.map { keys[$0] }.joined())
        }
        return found.sorted { ($0.range.lowerBound, $0.range.upperBound, $0.word) < ($1.range.lowerBound, $1.range.upperBound, $1.word) }
    }

    /// The passage of `text` of about `length` characters that matches the most different typed words (then the
    /// most matches, then the earliest), starting at a word a little before its first match; nil when no typed
    /// word matches the text.
    package static func snippet(of text: String, words: [QueryWord], length: Int = 160) -> Snippet? {
        // Only the start is walked (counting a long text's Characters would cost as much as scanning it).
        let head = text.prefix(snippetScanLimit)
        let truncated = head.endIndex < text.endIndex
        let scanned = truncated ? String(head) : text
        let found = matches(in: scanned, words: words)
        guard !found.isEmpty else { return nil }
        // Character offsets of every Character boundary, so windows are measured in characters.
        let boundaries = Array(scanned.indices) + [scanned.endIndex]
        func offset(_ index: String.Index) -> Int {
            // The first boundary at or after `index` (ranges are on boundaries already).
            var low = 0, high = boundaries.count - 1
            while low < high {
                let mid = (low + high) / 2
                if boundaries[mid] < index { low = mid + 1 } else { high = mid }
            }
            return low
        }
        let spans = found.map { (lower: offset($0.range.lowerBound), upper: offset($0.range.upperBound), word: $0.word) }
        let wordStarts = WordSplitter.runs(scanned).map { offset($0.startIndex) }
        let total = boundaries.count - 1
        let lead = min(30, length / 4)
        // Each match may open a window; the window starts at the first word at most `lead` characters before it.
        var best: (start: Int, end: Int, words: Set<Int>, count: Int)? = nil
        for anchor in spans {
            let earliest = max(0, anchor.lower - lead)
            let start = wordStarts.first { $0 >= earliest && $0 <= anchor.lower } ?? anchor.lower
            var end = min(total, start + length)
            // End before the word the window would cut (keeping the anchor whole).
            if end < total, let cut = wordStarts.last(where: { $0 <= end }), cut > anchor.upper { end = cut }
            end = max(end, anchor.upper)
            let inside = spans.filter { $0.lower >= start && $0.upper <= end }
            let matched = Set(inside.map(\.word))
            if best == nil || matched.count > best!.words.count || (matched.count == best!.words.count && inside.count > best!.count) {
                best = (start, end, matched, inside.count)
            }
        }
        guard let window = best else { return nil }
        // The passage with whitespace collapsed; `mapped[i]` is where character `window.start + i` lands.
        var out = ""
        var mapped: [Int] = []
        var written = 0
        if window.start > 0 {
            out += "…"
            written += 1
        }
        var lastWasSpace = false
        let characters = scanned[boundaries[window.start]..<boundaries[window.end]]
        for character in characters {
            mapped.append(written)
            if character.isWhitespace || character.isNewline {
                if lastWasSpace { continue }
                out.append(" ")
                lastWasSpace = true
            } else {
                out.append(character)
                lastWasSpace = false
            }
            written += 1
        }
        mapped.append(written)
        // Trailing space before the ellipsis is dropped.
        if lastWasSpace, window.end < total || truncated {
            out.removeLast()
            written -= 1
            for i in mapped.indices where mapped[i] > written { mapped[i] = written }
        }
        if window.end < total || truncated { out += "…" }
        let outBoundaries = Array(out.indices) + [out.endIndex]
        var ranges: [Range<String.Index>] = []
        for span in spans where span.lower >= window.start && span.upper <= window.end {
            let lower = mapped[span.lower - window.start], upper = mapped[span.upper - window.start]
            if lower < upper { ranges.append(outBoundaries[lower]..<outBoundaries[upper]) }
        }
        return Snippet(text: out, ranges: merged(ranges), words: window.words)
    }

    // MARK: - Helpers

    /// `span`'s range widened to Character boundaries of `text`.
    static func characterRange(_ span: Substring, in text: String) -> Range<String.Index> {
        let lower = text.index(roundingDown: span.startIndex)
        var upper = text.index(roundingDown: span.endIndex)
        if upper < span.endIndex { upper = text.index(after: upper) }
        return lower..<upper
    }

    /// The end of the shortest prefix of `span`, on a Character boundary, whose folded key starts with `prefix`.
    static func typedEnd(of span: Substring, prefix: String) -> Substring.Index? {
        var end = span.startIndex
        while end < span.endIndex {
            end = span.index(after: end)
            if Tokenizer.queryTokens(String(span[..<end])).joined().hasPrefix(prefix) { return end }
        }
        return nil
    }

    /// Runs joined by single joiners the way ``Tokenizer/indexTokens(_:)`` joins them: chains of two or three runs,
    /// an apostrophe always joining and the other joiners only where one side is short. As segment index ranges.
    static func joinedChains(_ segments: [WordSplitter.Segment], keys: [String], in text: String) -> [Range<Int>] {
        var chains: [Range<Int>] = []
        var start = 0
        func close(_ end: Int) {
            if (2...Tokenizer.JoinedChain.maximumRuns).contains(end - start), !keys[start..<end].contains("") {
                chains.append(start..<end)
            }
        }
        for i in segments.indices.dropFirst() {
            let gap = text.unicodeScalars[segments[i - 1].run.endIndex..<segments[i].run.startIndex]
            var joins = false
            if gap.count == 1, let joiner = gap.first, Tokenizer.isJoiner(joiner.value) {
                joins = Tokenizer.isApostrophe(joiner.value)
                    || keys[i - 1].count <= Tokenizer.JoinedChain.shortPart || keys[i].count <= Tokenizer.JoinedChain.shortPart
            }
            if !joins {
                close(i)
                start = i
            }
        }
        if !segments.isEmpty { close(segments.count) }
        return chains
    }

    /// Sorted ranges with overlapping or touching ones merged.
    package static func merged(_ ranges: [Range<String.Index>]) -> [Range<String.Index>] {
        var result: [Range<String.Index>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = result.last, range.lowerBound <= last.upperBound {
                result[result.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                result.append(range)
            }
        }
        return result
    }
}

extension String {
    /// The Character boundary at or before `index`.
    fileprivate func index(roundingDown index: String.Index) -> String.Index {
        if index >= endIndex { return endIndex }
        // `String.Index(_:within:)` is nil unless `index` is a Character boundary.
        if String.Index(index, within: self) != nil { return index }
        var i = index
        while i > startIndex {
            i = unicodeScalars.index(before: i)
            if String.Index(i, within: self) != nil { return i }
        }
        return startIndex
    }
}
