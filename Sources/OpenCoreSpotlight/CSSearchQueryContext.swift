import Foundation

/// What a query fetches and how it is scoped.
///
/// ```swift
/// let context = CSSearchQueryContext()
/// context.fetchAttributes = ["title", "contentDescription"]
/// context.filterQueries = [#"contentTypeTree == "public.image""#]
/// ```
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchquerycontext>
open class CSSearchQueryContext: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: as Apple's, configure a context before handing it to a query; the query copies it.

    /// The attributes loaded into each result's attribute set; nothing else is loaded.
    open var fetchAttributes: [String] = []
    /// Further query-language predicates every result must match.
    open var filterQueries: [String] = []
    /// The language of the typed text (BCP 47).
    open var keyboardLanguage: String?
    /// Extra sources to search.
    open var sourceOptions: SourceOptions = []

    public override init() {
        super.init()
    }

    public func copy(with zone: NSZone? = nil) -> Any {
        let copy = CSSearchQueryContext()
        copyFields(to: copy)
        return copy
    }

    func copyFields(to copy: CSSearchQueryContext) {
        copy.fetchAttributes = fetchAttributes
        copy.filterQueries = filterQueries
        copy.keyboardLanguage = keyboardLanguage
        copy.sourceOptions = sourceOptions
    }

    /// Extra sources a query may search.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchquerycontext/sourceoptions-swift.struct>
    public struct SourceOptions: OptionSet, Sendable, Hashable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Mail items (Apple requires an entitlement; there is no Mail index on Linux, so this changes nothing).
        public static let allowMail = SourceOptions(rawValue: 1 << 0)
    }
}
