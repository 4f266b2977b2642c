import Foundation
import SpotlightEngine

/// Looks inside an index: counts, lists and domains. Beyond Apple, whose index is a black box.
///
/// ```swift
/// let inspector = IndexInspector(CSSearchableIndex(name: "smoothies"))
/// print(try inspector.count())                  // 12
/// for item in try inspector.items(limit: 5) { print(item.uniqueIdentifier) }
/// print(try inspector.domains())                // [("recipes", 12)]
/// ```
public struct IndexInspector: Sendable {
    private let index: CSSearchableIndex

    /// An inspector of one index. Changes still in flight on that index instance are applied first.
    public init(_ index: CSSearchableIndex) {
        self.index = index
    }

    /// The number of live (not expired) items, optionally only in a domain and its subdomains.
    public func count(domain: String? = nil) throws -> Int {
        index.waitUntilIdle()
        do { return try index.store().count(domain: domain) } catch { throw CSIndexError.from(error) }
    }

    /// Live items in identifier order, a page at a time: pass the last identifier of a page as `after`.
    /// Every stored attribute is returned, `textContent` included.
    public func items(domain: String? = nil, after identifier: String? = nil, limit: Int = 100) throws -> [CSSearchableItem] {
        index.waitUntilIdle()
        do {
            return try index.store().listItems(domain: domain, after: identifier, limit: limit).map { stored in
                let item = ItemConversion.searchableItem(stored, fetchAttributes: nil)
                item.attributeSet.attributes["textContent"] = stored.attributes["textContent"]
                return item
            }
        } catch { throw CSIndexError.from(error) }
    }

    /// Every domain in use, with its number of live items.
    public func domains() throws -> [(domain: String, count: Int)] {
        index.waitUntilIdle()
        do { return try index.store().domains() } catch { throw CSIndexError.from(error) }
    }

    /// The size of the index's files on disk, in bytes.
    public func diskSize() throws -> Int {
        index.waitUntilIdle()
        do { return try index.store().diskSize() } catch { throw CSIndexError.from(error) }
    }

    /// The path of the index's store file.
    public var storeURL: URL {
        StoreLocation.storeURL(app: index.applicationIdentifier,
                               indexName: index.indexName ?? StoreLocation.defaultIndexName, root: index.root)
    }
}
