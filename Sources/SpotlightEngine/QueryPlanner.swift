import Foundation
import GRDB
import SpotlightQueryLanguage
import SpotlightText

/// Chooses how to find the items a query-language expression may match.
///
/// A string comparison whose pattern has literal words (`title == "brent*"c`, `keywords == "natural*"cwdt`)
/// can only match items that have the index terms its `indexRequirement` names, so the inverted index names the
/// candidates; `&&` intersects candidate sets, `||` unions them when every branch has one. Everything else
/// (`!`, numbers, dates, `InRange`, leading wildcards, identifiers) is checked on the candidates, or on every item
/// when no clause names candidates. Candidates are always a superset: the compiled query decides.
public enum QueryPlanner {
    /// The plan for an expression.
    public static func plan(_ expression: QueryExpression) -> QueryPlan {
        lookup(expression).map { .candidates($0) } ?? .scan
    }

    static func lookup(_ expression: QueryExpression) -> TermLookup? {
        switch expression {
        case .and(let parts):
            let lookups = parts.compactMap(lookup)
            if lookups.isEmpty { return nil }
            return lookups.count == 1 ? lookups[0] : .all(lookups)
        case .or(let parts):
            var lookups: [TermLookup] = []
            for part in parts {
                guard let l = lookup(part) else { return nil }
                lookups.append(l)
            }
            return lookups.count == 1 ? lookups[0] : .any(lookups)
        case .comparison(let comparison):
            return lookup(comparison)
        case .not, .inRange, .constant:
            return nil
        }
    }

    private static let unindexedAttributes: Set<String> = [
        "uniqueIdentifier", "kMDItemIdentifier", "expirationDate",
    ]

    static func lookup(_ comparison: Comparison) -> TermLookup? {
        guard comparison.operator == .equal, case .string(let pattern) = comparison.value,
              !pattern.isPresenceTest else { return nil }
        if let name = comparison.attribute.name, unindexedAttributes.contains(name) { return nil }
        // The query language says which index terms every matching value must have.
        return pattern.indexRequirement.map(lookup)
    }

    static func lookup(_ requirement: IndexRequirement) -> TermLookup {
        switch requirement {
        case .term(let key, let prefix): return .term(key, prefix: prefix)
        case .all(let parts): return .all(parts.map(lookup))
        case .any(let parts): return .any(parts.map(lookup))
        }
    }
}

extension TermLookup {
    /// An upper bound of the number of items the lookup names, from document frequencies.
    func estimatedCount(_ db: Database) throws -> Int {
        switch self {
        case .term(let word, let prefix):
            return try IndexStore.documentFrequency(db, word: word, prefix: prefix)
        case .all(let parts):
            return try parts.map { try $0.estimatedCount(db) }.min() ?? 0
        case .any(let parts):
            return try parts.reduce(0) { $0 + (try $1.estimatedCount(db)) }
        }
    }
}
