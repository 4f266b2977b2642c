import Foundation
import SpotlightEngine
import SpotlightQueryLanguage
import SpotlightText

/// Builds the suggestions of a `CSUserQuery` (see `CSSuggestion` for what is suggested and in which order).
struct SuggestionBuilder {
    let typed: String
    let stores: [IndexStore]
    let engagement: EngagementStore?
    let filter: CompiledQuery?
    let limit: Int
    let ranked: Bool

    func build() throws -> [CSSuggestion] {
        let words = Tokenizer.queryTokens(typed)
        guard !words.isEmpty, limit > 0 else { return [] }
        let typedText = words.joined(separator: " ")
        var candidates: [(text: String, score: Double)] = []

        // 1. Past engaged queries that start with the typed text.
        for past in (try? engagement?.pastQueries(startingWith: typedText, limit: limit)) ?? [] where past.query != typedText {
            candidates.append((past.query, 1_000 + past.weight))
        }

        // 2. The typed words, misspelled complete words corrected, the last word completed.
        var head: [String] = []
        for word in words.dropLast() {
            let known = try stores.reduce(0) { $0 + (try $1.documentFrequency(of: word)) }
            if known > 0 {
                head.append(word)
            } else {
                let best = try mergedCorrections(of: word, prefix: false).first?.term
                head.append(best ?? word)
            }
        }
        let last = words[words.count - 1]
        var completions = try mergedCompletions(of: last)
        if completions.isEmpty {
            // The word being typed has a typo: complete its corrections.
            for correction in try mergedCorrections(of: last, prefix: true).prefix(3) {
                completions += try mergedCompletions(of: correction.term).prefix(3)
            }
        }
        for completion in completions {
            let text = (head + [completion.term]).joined(separator: " ")
            if text != typedText { candidates.append((text, log(Double(completion.count) + 1))) }
        }

        // Keep those that find a live item, best first.
        var seen = Set<String>()
        var suggestions: [CSSuggestion] = []
        for candidate in candidates.sorted(by: { $0.score != $1.score ? $0.score > $1.score : $0.text < $1.text }) {
            guard suggestions.count < limit, seen.insert(candidate.text).inserted else { continue }
            guard try findsSomething(candidate.text) else { continue }
            suggestions.append(CSSuggestion(text: candidate.text, typed: typed, rank: ranked ? suggestions.count : nil,
                                            score: candidate.score))
        }
        return suggestions
    }

    private func mergedCompletions(of prefix: String) throws -> [(term: String, count: Int)] {
        var counts: [String: Int] = [:]
        for store in stores {
            for c in try store.completions(of: prefix, limit: limit * 3) { counts[c.term, default: 0] += c.count }
        }
        return counts.map { ($0.key, $0.value) }.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
    }

    private func mergedCorrections(of word: String, prefix: Bool) throws -> [(term: String, count: Int)] {
        var counts: [String: Int] = [:]
        for store in stores {
            for c in try store.corrections(of: word, prefix: prefix) { counts[c.term, default: 0] += c.count }
        }
        return counts.map { ($0.key, $0.value) }.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
    }

    private func findsSomething(_ text: String) throws -> Bool {
        var options = TextSearchOptions(limit: 1, lastWordIsPrefix: false)
        options.typoTolerance = false
        if let filter { options.filter = { StoredItemMatcher.matches(filter, $0) } }
        for store in stores where try !store.search(text, options: options).isEmpty {
            return true
        }
        return false
    }
}
