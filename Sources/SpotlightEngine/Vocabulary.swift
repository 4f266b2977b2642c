import Foundation
import GRDB

extension IndexStore {
    /// Indexed terms that start with `prefix`, most frequent first, with the number of items holding them.
    /// Terms no live item holds any more (document frequency 0) are never returned, nor the domains' own terms
    /// (`TextIndexer.domainTermPrefix`) and the keyword tier's (`keywordTermPrefix`), which are no words.
    package func completions(of prefix: String, limit: Int = 10) throws -> [(term: String, count: Int)] {
        guard !prefix.isEmpty, !TextIndexer.isOwnTerm(prefix) else { return [] }
        return try read { db in
            // Pending decrements only lower a stored frequency (`PendingFrequencies`): with as many more terms
            // read as there are terms with decrements under the prefix, the first `limit` by true frequency are
            // among them.
            let deltas = try frequencyDeltasCache.deltas(db)
            let extra = deltas.isEmpty ? 0 : deltas.terms(withPrefix: prefix)
            let stored: [(term: String, count: Int)] = try Row.fetchAll(db, sql: """
                SELECT text, df FROM term WHERE text >= ? AND text < ? AND df > 0 ORDER BY df DESC, text LIMIT ?
                """, arguments: [prefix, prefix + "\u{10FFFF}", limit + extra]).map { (try $0.stored("text"), try $0.stored("df")) }
            guard extra > 0 else { return stored }
            var adjusted: [(term: String, count: Int)] = []
            for (term, count) in stored {
                let count = deltas.adjusted(count, of: term)
                if count > 0 { adjusted.append((term, count)) }
            }
            adjusted.sort { $0.count != $1.count ? $0.count > $1.count : $0.term < $1.term }
            return Array(adjusted.prefix(limit))
        }
    }

    /// The number of live items holding exactly this term.
    package func documentFrequency(of term: String) throws -> Int {
        try read { try Self.documentFrequency($0, word: term, prefix: false, deltas: try frequencyDeltasCache.deltas($0)) }
    }

    /// Indexed terms within the typo budget of `word` (of a beginning of the term when `prefix`), most frequent
    /// first.
    package func corrections(of word: String, prefix: Bool, limit: Int = 5) throws -> [(term: String, count: Int)] {
        let budget = Typos.budget(for: word)
        guard budget > 0 else { return [] }
        return try read { db in
            let neighbours = try Typos.neighbours(db, of: word, prefix: prefix, budget: budget,
                                                  deltas: try frequencyDeltasCache.deltas(db))
            var result: [(term: String, count: Int)] = []
            for n in neighbours where n.text != word {
                result.append((n.text, n.df))
            }
            return result.sorted { $0.count != $1.count ? $0.count > $1.count : $0.term < $1.term }
                .prefix(limit).map { $0 }
        }
    }
}
