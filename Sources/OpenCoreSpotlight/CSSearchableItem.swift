import Foundation
import SpotlightEngine

/// An item of the app's content that the user can find through search.
///
/// ```swift
/// let attributes = CSSearchableItemAttributeSet(contentType: .text)
/// attributes.title = "Brent Reid"
/// let item = CSSearchableItem(uniqueIdentifier: "employee-42", domainIdentifier: "com.example.employees",
///                             attributeSet: attributes)
/// try await CSSearchableIndex.default().indexSearchableItems([item])
/// ```
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitem>
open class CSSearchableItem: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: like Apple's class, mutate an item from one thread at a time; the index snapshots it.

    /// The item's identity within the app. A new UUID string when the initializer was given `nil`.
    open var uniqueIdentifier: String
    /// The item's domain, for deleting items in bulk. Domains are hierarchical with `.` (`a.b` is inside `a`).
    open var domainIdentifier: String?
    private var _expirationDate: Date?
    /// The attributes describing the item.
    open var attributeSet: CSSearchableItemAttributeSet
    /// When `true`, indexing merges `attributeSet` into the stored item (only attributes set on it change;
    /// attributes explicitly set to `nil` are removed) instead of replacing it. An update of an item that does not
    /// exist is dropped, as Apple's header says.
    open var isUpdate: Bool = false

    /// Options for system enrichment callbacks (summaries, priority). Stored; no enrichment runs on Linux.
    open var updateListenerOptions: UpdateListenerOptions = []

    /// The rank of the item within the ranked query that returned it (lower is better), if any.
    internal var _rank: Int?

    /// Creates an item. A `nil` identifier is replaced with a new UUID string.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitem/init(uniqueidentifier:domainidentifier:attributeset:)>
    public init(uniqueIdentifier: String?, domainIdentifier: String?, attributeSet: CSSearchableItemAttributeSet) {
        self.uniqueIdentifier = uniqueIdentifier ?? UUID().uuidString
        self.domainIdentifier = domainIdentifier
        self.attributeSet = attributeSet
        super.init()
    }

    /// When the item stops existing. Defaults to one month after it is indexed; assigning `nil` restores that
    /// default. Items past it are never returned and are purged.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitem/expirationdate>
    open var expirationDate: Date! {
        get { _expirationDate ?? Self.defaultExpiration(from: Date()) }
        set { _expirationDate = newValue }
    }

    /// Whether an expiration date was set explicitly.
    internal var hasExplicitExpirationDate: Bool { _expirationDate != nil }

    static func defaultExpiration(from date: Date) -> Date {
        Calendar(identifier: .gregorian).date(byAdding: .month, value: 1, to: date) ?? date.addingTimeInterval(30 * 86_400)
    }

    /// Orders two items returned by a ranked query: `.orderedAscending` when `self` ranks before `other`.
    /// Items without a rank come after ranked ones; two unranked items compare equal.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitem/compare(byrank:)>
    open func compare(byRank other: CSSearchableItem) -> ComparisonResult {
        switch (_rank, other._rank) {
        case let (a?, b?): return a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
        case (.some, nil): return .orderedAscending
        case (nil, .some): return .orderedDescending
        case (nil, nil): return .orderedSame
        }
    }

    public func copy(with zone: NSZone? = nil) -> Any {
        let copy = CSSearchableItem(uniqueIdentifier: uniqueIdentifier, domainIdentifier: domainIdentifier,
                                    attributeSet: attributeSet.copy() as! CSSearchableItemAttributeSet)
        copy._expirationDate = _expirationDate
        copy.isUpdate = isUpdate
        copy.updateListenerOptions = updateListenerOptions
        copy._rank = _rank
        return copy
    }

    open override var description: String {
        "<CSSearchableItem: \(uniqueIdentifier)\(domainIdentifier.map { " domain: \($0)" } ?? "")>"
    }

    /// System enrichment requested for an item.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitem/updatelisteneroptions-swift.struct>
    public struct UpdateListenerOptions: OptionSet, Sendable, Hashable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let summarization = UpdateListenerOptions(rawValue: 1 << 1)
        public static let priority = UpdateListenerOptions(rawValue: 1 << 2)
    }
}
