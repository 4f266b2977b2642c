import Foundation

/// The principal class of an app's index-maintenance extension: subclass it and override the reindex methods; the
/// system calls them when the app's index was lost, damaged or written in a format this version cannot read, or
/// when items need donating again.
///
/// ```swift
/// final class ColleaguesIndexExtension: CSIndexExtensionRequestHandler {
///     override func searchableIndex(_ searchableIndex: CSSearchableIndex,
///                                   reindexAllSearchableItemsWithAcknowledgementHandler acknowledgementHandler: @escaping @Sendable () -> Void) {
///         searchableIndex.indexSearchableItems(Directory.all.map(\.searchableItem)) { _ in acknowledgementHandler() }
///     }
/// }
///
/// // main.swift (SpotlightSystem runs the request the system passed on the command line)
/// if await IndexExtensionRunner.handleLaunchArguments(CommandLine.arguments, handler: ColleaguesIndexExtension()) {
///     exit(0)
/// }
/// ```
///
/// On Linux an extension is an executable the app registers (`SpotlightApp.register(…, reindexExtension:)` in
/// SpotlightSystem); the system runs it with a request file and waits for the acknowledgement. The base
/// implementations acknowledge without doing anything.
///
/// Apple: <https://developer.apple.com/documentation/corespotlight/csindexextensionrequesthandler>
// Deviation: there is no NSExtension on Linux, so the class does not conform to NSExtensionRequestHandling and has
// no beginRequest(with:); SpotlightSystem's IndexExtensionRunner plays the extension host.
open class CSIndexExtensionRequestHandler: NSObject, CSSearchableIndexDelegate {
    public override init() {
        super.init()
    }

    /// Reindex every item of the app into `searchableIndex`, then call `acknowledgementHandler`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableindexdelegate/searchableindex(_:reindexallsearchableitemswithacknowledgementhandler:)>
    open func searchableIndex(_ searchableIndex: CSSearchableIndex,
                              reindexAllSearchableItemsWithAcknowledgementHandler acknowledgementHandler: @escaping @Sendable () -> Void) {
        acknowledgementHandler()
    }

    /// Reindex the items with these identifiers, then call `acknowledgementHandler`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableindexdelegate/searchableindex(_:reindexsearchableitemswithidentifiers:acknowledgementhandler:)>
    open func searchableIndex(_ searchableIndex: CSSearchableIndex, reindexSearchableItemsWithIdentifiers identifiers: [String],
                              acknowledgementHandler: @escaping @Sendable () -> Void) {
        acknowledgementHandler()
    }

    /// Indexing is being slowed down because the system is shedding load.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableindexdelegate/searchableindexdidthrottle(_:)>
    open func searchableIndexDidThrottle(_ searchableIndex: CSSearchableIndex) {}

    /// Indexing is back to full speed.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableindexdelegate/searchableindexdidfinishthrottle(_:)>
    open func searchableIndexDidFinishThrottle(_ searchableIndex: CSSearchableIndex) {}

    /// The data of an item in a type listed in `providerDataTypeIdentifiers`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableindexdelegate/data(for:itemidentifier:typeidentifier:)>
    open func data(for searchableIndex: CSSearchableIndex, itemIdentifier: String, typeIdentifier: String) throws -> Data {
        throw CSSearchableIndexDelegateNotImplemented()
    }

    /// A file for an item in a type listed in `providerFileTypeIdentifiers` or `providerInPlaceFileTypeIdentifiers`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableindexdelegate/fileurl(for:itemidentifier:typeidentifier:inplace:)>
    open func fileURL(for searchableIndex: CSSearchableIndex, itemIdentifier: String, typeIdentifier: String,
                      inPlace: Bool) throws -> URL {
        throw CSSearchableIndexDelegateNotImplemented()
    }

    /// Full items for the given identifiers.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableindexdelegate/searchableitems(foridentifiers:searchableitemshandler:)>
    open func searchableItems(forIdentifiers identifiers: [String],
                              searchableItemsHandler: @escaping @Sendable ([CSSearchableItem]) -> Void) {
        searchableItemsHandler([])
    }

    /// Full items for the given identifiers, the async form; by default it calls
    /// `searchableItems(forIdentifiers:searchableItemsHandler:)`. Override either.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableindexdelegate/searchableitems(foridentifiers:searchableitemshandler:)>
    open func searchableItems(forIdentifiers identifiers: [String]) async -> [CSSearchableItem] {
        await withCheckedContinuation { continuation in
            searchableItems(forIdentifiers: identifiers) { continuation.resume(returning: $0) }
        }
    }

    /// Items the system enriched as their `updateListenerOptions` asked.
    open func searchableItemsDidUpdate(_ items: [CSSearchableItem]) {}
}
