import Foundation
import GRDB
import Synchronization

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
            let letter = try vocabularyLetters.terms(startingAs: word, db, store: self)
            let neighbours = try Typos.neighbours(db, of: word, prefix: prefix, budget: budget,
                                                  deltas: try frequencyDeltasCache.deltas(db), letter: letter)
            var result: [(term: String, count: Int)] = []
            for n in neighbours where n.text != word {
                result.append((n.text, n.df))
            }
            return result.sorted { $0.count != $1.count ? $0.count > $1.count : $0.term < $1.term }
                .prefix(limit).map { $0 }
        }
    }
}

/// The ids of terms this process wrote or looked up, so that a write finds a term's id without reading the
/// vocabulary (a bulk load's window resolves tens of thousands). A term's id never changes: the vocabulary's rows
/// are never deleted. Two generations bound it: a lookup moves an entry of the older one into the newer, and a
/// newer one holding `entriesPerGeneration` terms becomes the older, dropping the older's. (Unbounded, it held
/// every term a process had written: 1.19 million after PyPI's bulk load, tens of megabytes that stayed resident
/// while the process only searched; most were terms of one item, seen once.)
final class TermIDCache: Sendable {
    private struct Generations {
        var current: [String: Int64] = [:]
        var previous: [String: Int64] = [:]

        let limit: Int

        mutating func keep(_ text: String, _ id: Int64) {
            if current.count >= limit {
                previous = current
                current = [:]
                current.reserveCapacity(limit)
            }
            current[text] = id
        }

        mutating func id(of text: String) -> Int64? {
            if let id = current[text] { return id }
            guard let id = previous.removeValue(forKey: text) else { return nil }
            keep(text, id)
            return id
        }
    }

    private let generations: Mutex<Generations>
    /// Terms per generation: 2 × 131,072 entries, at most ~12 MB for both.
    static let entriesPerGeneration = 131_072

    init(entriesPerGeneration: Int = TermIDCache.entriesPerGeneration) {
        generations = Mutex(Generations(limit: max(1, entriesPerGeneration)))
    }

    /// The id of `text`, when this process knows it.
    func id(of text: String) -> Int64? {
        generations.withLock { $0.id(of: text) }
    }

    /// Runs `body` with a lookup of the ids this process knows, under one lock (a window of a bulk load looks up
    /// tens of thousands).
    func withLookup<R>(_ body: (_ id: (String) -> Int64?) throws -> R) rethrows -> R {
        try generations.withLock { cache in
            try body { cache.id(of: $0) }
        }
    }

    /// Keeps the ids a transaction wrote or read.
    func keep(_ ids: [String: Int64]) {
        guard !ids.isEmpty else { return }
        generations.withLock { cache in
            for (text, id) in ids where cache.current[text] == nil { cache.keep(text, id) }
        }
    }

    /// The terms kept, in both generations (tests).
    var count: Int { generations.withLock { $0.current.count + $0.previous.count } }

    /// Forgets every id (the vocabulary has them all).
    func removeAll() {
        // Swapped out under the lock and freed after it (a quarter of a million entries), not while writers wait.
        let dropped = generations.withLock { generations in
            defer { generations = Generations(limit: generations.limit) }
            return generations
        }
        _ = dropped
    }
}
