import Foundation
import OpenCoreSpotlight

/// Smoothies' index-maintenance extension.
final class SmoothiesIndexExtension: CSIndexExtensionRequestHandler {
    override func searchableIndex(_ searchableIndex: CSSearchableIndex,
                                  reindexAllSearchableItemsWithAcknowledgementHandler acknowledgementHandler: @escaping @Sendable () -> Void) {
        // The index was lost with its client state: index the whole menu in a batch that stores the new state.
        // Smoothies keeps everything in its named index, so that is what it rebuilds whichever index the system
        // names (Apple: an extension may use its own index rather than the one passed).
        Task {
            do {
                try await MenuIndexer.indexMenu(into: CSSearchableIndex(name: MenuIndexer.indexName))
                log("reindexed the menu")
                acknowledgementHandler()
            } catch {
                // Not acknowledged: the request stays pending and is issued again.
                log("reindexing failed: \(error)")
                exit(1)
            }
        }
    }

    override func searchableIndex(_ searchableIndex: CSSearchableIndex, reindexSearchableItemsWithIdentifiers identifiers: [String],
                                  acknowledgementHandler: @escaping @Sendable () -> Void) {
        let items = identifiers.compactMap(Menu.smoothie(id:)).map(\.searchableItem)
        CSSearchableIndex(name: MenuIndexer.indexName).indexSearchableItems(items) { error in
            if let error {
                log("reindexing \(identifiers.count) smoothies failed: \(error)")
                exit(1)
            }
            acknowledgementHandler()
        }
    }

    override func searchableIndexDidThrottle(_ searchableIndex: CSSearchableIndex) {
        log("searchableIndexDidThrottle")
    }

    override func searchableIndexDidFinishThrottle(_ searchableIndex: CSSearchableIndex) {
        log("searchableIndexDidFinishThrottle")
    }
}

enum MenuIndexer {
    /// The app's named index.
    static let indexName = "smoothies"

    /// Indexes the menu unless the index's client state says it already holds this menu.
    /// Returns whether it indexed.
    static func syncMenu(into index: CSSearchableIndex = CSSearchableIndex(name: indexName)) async throws -> Bool {
        let stored = try await index.fetchLastClientState()
        if let state = try? JSONDecoder().decode(IndexState.self, from: stored),
           state == IndexState(menuVersion: Menu.version, count: Menu.all.count) {
            return false
        }
        try await indexMenu(into: index)
        return true
    }

    /// Indexes the whole menu in one batch, with the client state saying which menu it is.
    static func indexMenu(into index: CSSearchableIndex) async throws {
        let state = try JSONEncoder().encode(IndexState(menuVersion: Menu.version, count: Menu.all.count))
        index.beginBatch()
        index.indexSearchableItems(Menu.all.map(\.searchableItem), completionHandler: nil)
        try await index.endBatch(withClientState: state)
    }
}

func log(_ message: String) {
    FileHandle.standardError.write(Data("smoothies: \(message)\n".utf8))
}
