import Foundation
import GRDB
import Synchronization

extension IndexStore {
    /// Indexed terms that start with `prefix`, most frequent first, with the number of items holding them (a
    /// frequency counts deleted items until their segment is merged: `SegmentVocabulary`). Only terms some live
    /// item holds are returned, and never the domains' own terms (`TextIndexer.domainTermPrefix`) and the keyword
    /// tier's (`keywordTermPrefix`), which are no words.
    package func completions(of prefix: String, limit: Int = 10) throws -> [(term: String, count: Int)] {
        guard !prefix.isEmpty, !TextIndexer.isOwnTerm(prefix), limit > 0 else { return [] }
        return try read { db in
            let low = Array(prefix.utf8)
            var terms = try SegmentVocabulary.terms(db, from: low, below: low + Typos.SpanWalk.beyond)
            terms.sort { $0.count != $1.count ? $0.count > $1.count : UTF8Order.precedes($0.text, $1.text) }
            var result: [(term: String, count: Int)] = []
            for (term, count) in terms where result.count < limit {
                if try SegmentVocabulary.hasLiveItem(db, text: term) { result.append((term, count)) }
            }
            return result
        }
    }

    /// The number of items holding exactly this term (deleted ones counted until their segment is merged), or 0
    /// when no live item holds it.
    package func documentFrequency(of term: String) throws -> Int {
        try read { db in
            let count = try Self.documentFrequency(db, word: term, prefix: false)
            guard count > 0 else { return 0 }
            return try SegmentVocabulary.hasLiveItem(db, text: term) ? count : 0
        }
    }

    /// Indexed terms within the typo budget of `word` (of a beginning of the term when `prefix`), most frequent
    /// first: those some live item holds.
    package func corrections(of word: String, prefix: Bool, limit: Int = 5) throws -> [(term: String, count: Int)] {
        let budget = Typos.budget(for: word)
        guard budget > 0, limit > 0 else { return [] }
        return try read { db in
            let letter = try vocabularyLetters.terms(startingAs: word, db, store: self)
            let neighbours = try Typos.neighbours(db, of: word, prefix: prefix, budget: budget, letter: letter,
                                                  letters: vocabularyLetters)
            var result: [(term: String, count: Int)] = []
            for n in neighbours.sorted(by: { $0.df != $1.df ? $0.df > $1.df : $0.text < $1.text })
            where n.text != word && result.count < limit {
                if try SegmentVocabulary.hasLiveItem(db, text: n.text) { result.append((n.text, n.df)) }
            }
            return result
        }
    }
}
