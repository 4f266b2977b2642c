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
package enum QueryPlanner {
    /// The plan for an expression; `now` and `calendar` resolve `$time` as the compiled query does.
    package static func plan(_ expression: QueryExpression, now: Date = Date(), calendar: Calendar = .current) -> QueryPlan {
        Planning(now: now, calendar: calendar).lookup(expression).map { .candidates($0) } ?? .scan
    }

    /// The index lookup that names a superset of the expression's matches, if any.
    package static func lookup(_ expression: QueryExpression, now: Date = Date(), calendar: Calendar = .current) -> TermLookup? {
        Planning(now: now, calendar: calendar).lookup(expression)
    }
}

private struct Planning {
    let now: Date
    let calendar: Calendar

    func lookup(_ expression: QueryExpression) -> TermLookup? {
        switch expression {
        case .and(let parts):
            let lookups = Self.mergingRanges(parts.compactMap(lookup))
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
        case .inRange(let test):
            guard let name = indexedValueAttribute(test.attribute) else { return nil }
            return .range(name, lower: bounds(test.lowerBound).lower, upper: bounds(test.upperBound).upper)
        case .not, .constant:
            return nil
        }
    }

    /// `date >= a && date < b` is one range, not the intersection of two half-open ones (each may name most of
    /// the store): ranges of one attribute under `&&` narrow to their overlap.
    static func mergingRanges(_ lookups: [TermLookup]) -> [TermLookup] {
        var result: [TermLookup] = []
        var ranges: [String: (lower: Double, upper: Double)] = [:]
        var order: [String] = []
        for lookup in lookups {
            guard case .range(let attribute, let lower, let upper) = lookup else {
                result.append(lookup)
                continue
            }
            if let existing = ranges[attribute] {
                ranges[attribute] = (max(existing.lower, lower), min(existing.upper, upper))
            } else {
                ranges[attribute] = (lower, upper)
                order.append(attribute)
            }
        }
        return order.map { .range($0, lower: ranges[$0]!.lower, upper: ranges[$0]!.upper) } + result
    }

    private static let unindexedAttributes: Set<String> = [
        "uniqueIdentifier", "kMDItemIdentifier", "expirationDate",
    ]

    func lookup(_ comparison: Comparison) -> TermLookup? {
        if let name = comparison.attribute.name, Self.unindexedAttributes.contains(name) { return nil }
        let range: (lower: Double, upper: Double)
        switch comparison.value {
        case .string(let pattern):
            guard comparison.operator == .equal, !pattern.isPresenceTest else { return nil }
            // The query language says which index terms every matching value must have, and the attribute which
            // tiers their postings carry.
            let tiers = Self.tiers(of: comparison.attribute)
            return pattern.indexRequirement.map { Self.lookup($0, tiers: tiers) }
        case .number(let n):
            range = (n, n)
        case .bool(let b):
            range = (b ? 1 : 0, b ? 1 : 0)
        case .time(let time):
            range = bounds(.time(time))
        case .null:
            return nil
        }
        guard let name = indexedValueAttribute(comparison.attribute) else { return nil }
        let low = -Double.greatestFiniteMagnitude, high = Double.greatestFiniteMagnitude
        switch comparison.operator {
        case .equal: return .range(name, lower: range.lower, upper: range.upper)
        case .less, .lessOrEqual: return .range(name, lower: low, upper: range.upper)
        case .greater, .greaterOrEqual: return .range(name, lower: range.lower, upper: high)
        case .notEqual: return nil
        }
    }

    /// The name number and date values of an attribute are indexed under, or nil if they are not.
    func indexedValueAttribute(_ attribute: AttributeReference) -> String? {
        guard let name = attribute.name, !Self.unindexedAttributes.contains(name) else { return nil }
        return AttributeCatalog.descriptor(named: name)?.name ?? name
    }

    /// Inclusive bounds that contain every value a bound can stand for (a period's whole span; instants widened by
    /// a second, as dates compare to the second).
    func bounds(_ bound: RangeBound) -> (lower: Double, upper: Double) {
        switch bound {
        case .number(let n):
            return (n, n)
        case .time(let time):
            switch time.resolve(now: now, calendar: calendar) {
            case .instant(let d):
                let t = d.timeIntervalSinceReferenceDate
                return (t - 1, t + 1)
            case .period(let start, let end):
                return (start.timeIntervalSinceReferenceDate - 1, end.timeIntervalSinceReferenceDate + 1)
            }
        }
    }

    static func lookup(_ requirement: IndexRequirement, tiers: UInt8) -> TermLookup {
        switch requirement {
        case .term(let key, let prefix): return .tieredTerm(key, prefix: prefix, tiers: tiers)
        case .all(let parts): return .all(parts.map { lookup($0, tiers: tiers) })
        case .any(let parts): return .any(parts.map { lookup($0, tiers: tiers) })
        }
    }

    /// The tier bits (`TextIndexer`) an attribute's terms are posted with, as `StoredItemQueryView` resolves names:
    /// `*` reads every free-text tier; `domainIdentifier` the domain's own terms (the item's domain, or the
    /// attribute set's `domainIdentifier`, which `StoredItemQueryView` prefers); a catalog attribute (or its `kMDItem…` alias) its
    /// own tier; any other name a custom key, posted in the body tier when searchable by default and as metadata
    /// otherwise.
    static func tiers(of attribute: AttributeReference) -> UInt8 {
        guard let name = attribute.name else { return TextIndexer.freeTextMask }
        // The domain's own terms, or the metadata tier in a store some of whose items were written before format 6
        // (`TermLookup.resolved`).
        if name == "domainIdentifier" { return TextIndexer.domainLookupBit }
        if AttributeCatalog.descriptor(named: name) != nil { return TextIndexer.tierBit(forAttribute: name) ?? 0xFF }
        return TextIndexer.metadataBit | (1 << 3)
    }
}

extension TermLookup {
    /// An upper bound of the number of items the lookup names, from document frequencies; ranges are counted in
    /// the value index up to `cap` (a count at the cap means "at least the cap"), or counted exactly in `values`'
    /// column when it is in memory.
    func estimatedCount(_ db: Database, cap: Int = 200_000, values: ValueColumns? = nil) throws -> Int {
        switch self {
        case .term(let word, let prefix):
            return try IndexStore.documentFrequency(db, word: word, prefix: prefix)
        case .tieredTerm(let word, let prefix, let tiers):
            // A domain's own terms count exactly its items.
            return try IndexStore.documentFrequency(db, word: Self.resolved(word, tiers: tiers, db).text, prefix: prefix)
        case .all(let parts):
            return try parts.map { try $0.estimatedCount(db, cap: cap, values: values) }.min() ?? 0
        case .any(let parts):
            return try parts.reduce(0) { $0 + (try $1.estimatedCount(db, cap: cap, values: values)) }
        case .range(let attribute, let lower, let upper):
            if let column = try values?.column(attribute, db) { return column.count(lower: lower, upper: upper) }
            return try ValueIndex(db).count(code: AttributeValueIndex.code(attribute), lower: lower, upper: upper, cap: cap)
        }
    }
}
