import Foundation
import SpotlightText

/// A text of a hit with the ranges its typed words matched.
package struct TextHighlight: Sendable, Hashable {
    /// The attribute the text comes from (`title`, `displayName`, `contentDescription`, `textContent`, …).
    package var attribute: String
    /// The text shown: the whole name, or a passage of a longer text (`Highlighter.snippet`).
    package var text: String
    /// The matched ranges of `text`, in order, not overlapping.
    package var ranges: [Range<String.Index>]
    /// Which typed words (positions in the query) matched in `text`.
    package var words: Set<Int> = []
}

/// Why a hit matched, shown: its name with the matched words (`title`, else `displayName`, as `NameSignals`
/// reads it) and a snippet of the description or text passage that matches the most typed words. Computed from the
/// stored item and the hit's explanation when asked for, never stored.
package struct HitHighlights: Sendable, Hashable {
    package var name: TextHighlight?
    package var snippet: TextHighlight?

    /// - Parameters:
    ///   - explanation: the hit's explanation; its words are the typed words, in order, and what they matched;
    ///   - lastWordIsPrefix: whether the last typed word was matched as a prefix (search as you type).
    package init(item: StoredItem, explanation: RankingExplanation, lastWordIsPrefix: Bool = true, snippetLength: Int = 160) {
        let words = Self.queryWords(explanation, lastWordIsPrefix: lastWordIsPrefix)
        for attribute in ["title", "displayName"] {
            guard let text = item.attributes[attribute]?.searchableStrings.first(where: { !Tokenizer.queryTokens($0).isEmpty })
            else { continue }
            let matches = Highlighter.matches(in: text, words: words)
            name = TextHighlight(attribute: attribute, text: text, ranges: Highlighter.merged(matches.map(\.range)),
                                 words: Set(matches.map(\.word)))
            break
        }
        snippet = Self.snippet(item, words: words, length: snippetLength)
    }

    static func queryWords(_ explanation: RankingExplanation, lastWordIsPrefix: Bool) -> [Highlighter.QueryWord] {
        explanation.words.enumerated().map { i, match in
            Highlighter.QueryWord(match.queryWord, isPrefix: lastWordIsPrefix && i == explanation.words.count - 1,
                                  alsoMatches: match.kind.isTypo ? [match.matchedTerm] : [])
        }
    }

    /// The best passage among the item's description and body texts: the most typed words, then the better tier
    /// (descriptions before bodies), then the attribute's name, then the earliest passage.
    static func snippet(_ item: StoredItem, words: [Highlighter.QueryWord], length: Int) -> TextHighlight? {
        guard !words.isEmpty else { return nil }
        var sources: [(tier: Int, attribute: String, order: Int, text: String)] = []
        for (attribute, value) in item.attributes {
            guard let tier = AttributeCatalog.descriptor(named: attribute)?.textTier,
                  tier == .description || tier == .body else { continue }
            for (n, text) in value.searchableStrings.enumerated() { sources.append((tier.rawValue, attribute, n, text)) }
        }
        for (attribute, custom) in item.customAttributes where custom.isSearchableByDefault {
            for (n, text) in custom.value.searchableStrings.enumerated() { sources.append((TextTier.body.rawValue, attribute, n, text)) }
        }
        sources.sort { ($0.tier, $0.attribute, $0.order) < ($1.tier, $1.attribute, $1.order) }
        var best: (snippet: Highlighter.Snippet, attribute: String)? = nil
        for source in sources {
            guard let snippet = Highlighter.snippet(of: source.text, words: words, length: length) else { continue }
            if best == nil || snippet.words.count > best!.snippet.words.count { best = (snippet, source.attribute) }
            if snippet.words.count == words.count { break }
        }
        return best.map { TextHighlight(attribute: $0.attribute, text: $0.snippet.text, ranges: $0.snippet.ranges, words: $0.snippet.words) }
    }
}
