import Foundation
import SpotlightQueryLanguage
import SpotlightText

/// The longest inputs a query accepts (issue 17, item 10): beyond them, a query fails at once with
/// `CSSearchQueryError.invalidQuery` and a message naming the limit, instead of searching for seconds.
///
/// ```swift
/// let words = Array(repeating: "berry", count: 400).joined(separator: " ")
/// for try await _ in CSUserQuery(userQueryString: words, userQueryContext: nil).responses {}
/// // throws CSSearchQueryError.invalidQuery: "the text has 400 words; a user query searches at most 64"
/// ```
///
/// Each word of a user query is one more intersection (and, when rare, a typo expansion), so time grows with the
/// number of words: 400 repeated words took seconds. A query string's comparisons are each looked up and
/// intersected: 50,000 `&&` clauses took 31 s. Typed text and written queries stay far below these limits.
public enum QueryLimits {
    // Deviation: Apple publishes no limits on query length; these are ours (Documentation/Deviations.md).
    /// The most words (as the search splits them) in a `CSUserQuery` text.
    public static let maximumUserQueryWords = 64
    /// The longest `CSUserQuery` text, in UTF-8 bytes.
    public static let maximumUserQueryBytes = 4_096
    /// The longest query string or filter query of a `CSSearchQuery`, in UTF-8 bytes.
    public static let maximumQueryBytes = 65_536
    /// The most comparisons (`attribute op value`, `InRange`, `true`/`false`) in a query string or filter query.
    public static let maximumComparisons = 1_024

    /// Refuses a user query's text that is too long.
    static func check(userQueryText text: String) throws {
        let bytes = text.utf8.count
        if bytes > maximumUserQueryBytes {
            throw CSSearchQueryError(.invalidQuery,
                message: "the text is \(bytes) bytes long; a user query searches at most \(maximumUserQueryBytes) bytes")
        }
        let words = Tokenizer.queryTokens(text).count
        if words > maximumUserQueryWords {
            throw CSSearchQueryError(.invalidQuery,
                message: "the text has \(words) words; a user query searches at most \(maximumUserQueryWords)")
        }
    }

    /// Refuses a query string that is too long to parse.
    static func check(queryString string: String, role: String) throws {
        let bytes = string.utf8.count
        if bytes > maximumQueryBytes {
            throw CSSearchQueryError(.invalidQuery,
                message: "\(role) is \(bytes) bytes long; at most \(maximumQueryBytes) are accepted")
        }
    }

    /// Refuses a parsed query with too many comparisons.
    static func check(_ expression: QueryExpression, role: String) throws {
        // Counted without recursion: a deeply nested expression must not exhaust the stack here.
        var pending = [expression]
        var comparisons = 0
        while let next = pending.popLast() {
            switch next {
            case .constant, .comparison, .inRange: comparisons += 1
            case .not(let operand): pending.append(operand)
            case .and(let operands), .or(let operands): pending += operands
            }
            if comparisons > maximumComparisons {
                throw CSSearchQueryError(.invalidQuery,
                    message: "\(role) has more than \(maximumComparisons) comparisons; at most \(maximumComparisons) are accepted")
            }
        }
    }
}
