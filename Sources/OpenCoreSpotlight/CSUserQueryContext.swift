import Foundation

/// How a `CSUserQuery` ranks and what it returns.
///
/// ```swift
/// let context = CSUserQueryContext()
/// context.fetchAttributes = ["title", "contentDescription"]
/// context.enableRankedResults = true
/// context.maxResultCount = 20
/// context.maxSuggestionCount = 5
/// ```
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/csuserquerycontext>
open class CSUserQueryContext: CSSearchQueryContext, @unchecked Sendable {
    /// Whether items get a rank (`compare(byRank:)`). Results are in rank order either way.
    // Deviation: Apple documents `true` but ships `false`; we follow the shipped default, and results are ranked
    // in delivery order even when it is false.
    open var enableRankedResults = false
    /// Whether semantic matches are left out. There is no semantic layer yet, so every query is lexical.
    open var disableSemanticSearch = false
    /// The most items returned; 0 returns every match.
    open var maxResultCount = 0
    /// The most suggestions returned; 0 returns none.
    // Deviation: suggestions appear whenever this is above 0 (Apple also needs a hidden flag that only
    // `init(currentSuggestion:)` sets, which is why Apple's suggestions are so often empty).
    open var maxSuggestionCount = 0
    /// The most items that get a rank.
    open var maxRankedResultCount = 100
    /// The suggestion the user picked, whose text the query continues from.
    internal var currentSuggestion: CSSuggestion?

    public override init() {
        super.init()
    }

    /// A context for a query that continues from a suggestion the user picked (`nil`: none picked yet); it
    /// returns up to 10 suggestions.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/csuserquerycontext/init(currentsuggestion:)>
    public convenience init(currentSuggestion: CSSuggestion?) {
        self.init()
        self.currentSuggestion = currentSuggestion
        self.maxSuggestionCount = 10
    }

    public override func copy(with zone: NSZone? = nil) -> Any {
        let copy = CSUserQueryContext()
        copyFields(to: copy)
        copy.enableRankedResults = enableRankedResults
        copy.disableSemanticSearch = disableSemanticSearch
        copy.maxResultCount = maxResultCount
        copy.maxSuggestionCount = maxSuggestionCount
        copy.maxRankedResultCount = maxRankedResultCount
        copy.currentSuggestion = currentSuggestion
        return copy
    }
}
