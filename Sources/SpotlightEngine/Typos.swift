import Foundation
import GRDB

/// Typo tolerance for typed text, with Meilisearch's thresholds.
///
/// - A word of up to 4 letters must be typed exactly; 5 to 8 letters allow 1 typo; 9 or more allow 2.
/// - A typo is an insertion, a deletion, a substitution, or a transposition of two neighbouring letters
///   (optimal string alignment distance).
/// - The word being typed (the last one, a prefix) tolerates typos too: it matches a term when some beginning of
///   the term is within the budget (`"pyhto"` → `python`).
/// - Deviation from Meilisearch: the first letter must be right.
/// - A word that already matches `expansionThreshold` items or more is not expanded with typos. (Meilisearch counts a typo on the first letter as two; we do not look for
///   them at all, which keeps the vocabulary scan to one letter's terms.)
public enum Typos {
    /// A word is looked up with typos only when fewer than this many items match it exactly or as a prefix
    /// (as Typesense's `typo_tokens_threshold`): a word that already finds plenty is taken as typed.
    public static let expansionThreshold = 10

    /// The number of typos a word of this length tolerates.
    public static func budget(for word: String) -> Int {
        let n = word.unicodeScalars.count
        return n <= 4 ? 0 : (n <= 8 ? 1 : 2)
    }

    /// The vocabulary terms within `budget` typos of `word` (of a beginning of the term when `prefix`).
    static func neighbours(_ db: Database, of word: String, prefix: Bool, budget: Int) throws -> [(id: Int64, text: String)] {
        guard let first = word.unicodeScalars.first else { return [] }
        let low = String(first)
        let high = String(first) + "\u{10FFFF}"
        let pattern = Array(word.unicodeScalars)
        var result: [(Int64, String)] = []
        let sql = prefix
            ? "SELECT id, text FROM term WHERE text >= ? AND text < ? AND df > 0 AND length(text) >= ?"
            : "SELECT id, text FROM term WHERE text >= ? AND text < ? AND df > 0 AND length(text) BETWEEN ? AND ?"
        let arguments: StatementArguments = prefix
            ? [low, high, pattern.count - budget]
            : [low, high, pattern.count - budget, pattern.count + budget]
        let cursor = try Row.fetchCursor(db, sql: sql, arguments: arguments)
        while let row = try cursor.next() {
            let text: String = row[1]
            let candidate = Array(text.unicodeScalars)
            let d = prefix
                ? prefixDistance(pattern, candidate, limit: budget)
                : distance(pattern, candidate, limit: budget)
            if d <= budget { result.append((row[0], text)) }
        }
        return result
    }

    /// The optimal string alignment distance between two strings, or `limit + 1` when it exceeds `limit`.
    public static func distance(_ a: String, _ b: String, limit: Int = .max) -> Int {
        distance(Array(a.unicodeScalars), Array(b.unicodeScalars), limit: limit)
    }

    /// The smallest distance between `a` and a beginning of `b`, or `limit + 1` when it exceeds `limit`.
    public static func prefixDistance(_ a: String, _ b: String, limit: Int = .max) -> Int {
        prefixDistance(Array(a.unicodeScalars), Array(b.unicodeScalars), limit: limit)
    }

    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], limit: Int) -> Int {
        if abs(a.count - b.count) > limit { return limit == .max ? abs(a.count - b.count) : limit + 1 }
        let rows = table(a, b, limit: limit)
        return rows.map { min($0.last![a.count], limit == .max ? .max : limit + 1) } ?? limit + 1
    }

    static func prefixDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], limit: Int) -> Int {
        // Rows are prefixes of b; the last column is the distance from all of `a` to that prefix of `b`.
        let capped = limit == .max ? Int.max : limit + 1
        guard let rows = table(a, b, limit: limit, stopEarly: true) else { return capped }
        var best = capped
        for row in rows { best = min(best, row[a.count]) }
        return best
    }

    /// The DP rows of the OSA distance, one per prefix of `b` (row 0 = empty prefix); nil when every cell of a
    /// row exceeds `limit` (no extension can come back under it).
    private static func table(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], limit: Int, stopEarly: Bool = false) -> [[Int]]? {
        let n = a.count
        var rows: [[Int]] = [Array(0...n)]
        rows.reserveCapacity(b.count + 1)
        for i in 1...max(b.count, 1) where i <= b.count {
            var row = [Int](repeating: 0, count: n + 1)
            row[0] = i
            var rowMin = row[0]
            for j in 1...max(n, 1) where j <= n {
                let cost = a[j - 1] == b[i - 1] ? 0 : 1
                var v = min(rows[i - 1][j] + 1, row[j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[j - 1] == b[i - 2], a[j - 2] == b[i - 1] {
                    v = min(v, rows[i - 2][j - 2] + 1)
                }
                row[j] = v
                rowMin = min(rowMin, v)
            }
            rows.append(row)
            if limit != .max, rowMin > limit {
                return stopEarly ? rows : nil
            }
        }
        return rows
    }
}
