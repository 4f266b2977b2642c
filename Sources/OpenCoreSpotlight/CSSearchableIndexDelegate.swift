import Foundation

/// The methods the index calls on the app when it needs the app's help: reindexing everything after the index
/// was lost, reindexing items that failed, and throttling notices.
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableindexdelegate>
public protocol CSSearchableIndexDelegate: NSObjectProtocol {
    /// Reindex all of the app's items, then call `acknowledgementHandler`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableindexdelegate/searchableindex(_:reindexallsearchableitemswithacknowledgementhandler:)>
    func searchableIndex(_ searchableIndex: CSSearchableIndex,
                         reindexAllSearchableItemsWithAcknowledgementHandler acknowledgementHandler: @escaping @Sendable () -> Void)

    /// Reindex the items with these identifiers, then call `acknowledgementHandler`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableindexdelegate/searchableindex(_:reindexsearchableitemswithidentifiers:acknowledgementhandler:)>
    func searchableIndex(_ searchableIndex: CSSearchableIndex,
                         reindexSearchableItemsWithIdentifiers identifiers: [String],
                         acknowledgementHandler: @escaping @Sendable () -> Void)

    /// Indexing is being slowed down; index what matters most first.
    func searchableIndexDidThrottle(_ searchableIndex: CSSearchableIndex)

    /// Indexing is back to full speed.
    func searchableIndexDidFinishThrottle(_ searchableIndex: CSSearchableIndex)

    /// The data of an item in a type listed in `providerDataTypeIdentifiers`.
    func data(for searchableIndex: CSSearchableIndex, itemIdentifier: String, typeIdentifier: String) throws -> Data

    /// A file for an item in a type listed in `providerFileTypeIdentifiers` or `providerInPlaceFileTypeIdentifiers`.
    func fileURL(for searchableIndex: CSSearchableIndex, itemIdentifier: String, typeIdentifier: String,
                 inPlace: Bool) throws -> URL

    /// Full items for the given identifiers.
    func searchableItems(forIdentifiers identifiers: [String],
                         searchableItemsHandler: @escaping @Sendable ([CSSearchableItem]) -> Void)

    /// Full items for the given identifiers (the async form of
    /// `searchableItems(forIdentifiers:searchableItemsHandler:)`; the system calls this one, and by default it
    /// calls the handler form, so a delegate implements whichever it prefers).
    func searchableItems(forIdentifiers identifiers: [String]) async -> [CSSearchableItem]

    /// Items the system enriched as their `updateListenerOptions` asked.
    func searchableItemsDidUpdate(_ items: [CSSearchableItem])
}

/// An error for the optional delegate methods an app did not implement.
public struct CSSearchableIndexDelegateNotImplemented: Error, Sendable {}

extension CSSearchableIndexDelegate {
    public func searchableIndexDidThrottle(_ searchableIndex: CSSearchableIndex) {}
    public func searchableIndexDidFinishThrottle(_ searchableIndex: CSSearchableIndex) {}
    public func data(for searchableIndex: CSSearchableIndex, itemIdentifier: String, typeIdentifier: String) throws -> Data {
        throw CSSearchableIndexDelegateNotImplemented()
    }
    public func fileURL(for searchableIndex: CSSearchableIndex, itemIdentifier: String, typeIdentifier: String,
                        inPlace: Bool) throws -> URL {
        throw CSSearchableIndexDelegateNotImplemented()
    }
    public func searchableItems(forIdentifiers identifiers: [String],
                                searchableItemsHandler: @escaping @Sendable ([CSSearchableItem]) -> Void) {
        searchableItemsHandler([])
    }
    public func searchableItems(forIdentifiers identifiers: [String]) async -> [CSSearchableItem] {
        await withCheckedContinuation { continuation in
            searchableItems(forIdentifiers: identifiers) { continuation.resume(returning: $0) }
        }
    }
    public func searchableItemsDidUpdate(_ items: [CSSearchableItem]) {}
}
