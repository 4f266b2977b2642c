import Foundation
import OpenCoreSpotlight

/// Colleagues' index-maintenance extension: when the system lost or dropped the index, donate again what the
/// current setting makes searchable.
final class ColleaguesIndexExtension: CSIndexExtensionRequestHandler {
    override func searchableIndex(_ searchableIndex: CSSearchableIndex,
                                  reindexAllSearchableItemsWithAcknowledgementHandler acknowledgementHandler: @escaping @Sendable () -> Void) {
        guard Settings.load().indexing == .allRecords else {
            acknowledgementHandler()  // nothing of ours is in the index in the other settings
            return
        }
        searchableIndex.indexSearchableItems(Directory.all.map(\.searchableItem)) { error in
            if let error { log("reindexing failed: \(error)") } else { log("reindexed \(Directory.all.count) employees") }
            acknowledgementHandler()
        }
    }

    override func searchableIndex(_ searchableIndex: CSSearchableIndex, reindexSearchableItemsWithIdentifiers identifiers: [String],
                                  acknowledgementHandler: @escaping @Sendable () -> Void) {
        guard Settings.load().indexing == .allRecords else {
            acknowledgementHandler()
            return
        }
        let items = identifiers.compactMap(Directory.employee(id:)).map(\.searchableItem)
        searchableIndex.indexSearchableItems(items) { _ in
            log("reindexed \(items.count) employees")
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

func log(_ message: String) {
    FileHandle.standardError.write(Data("colleagues: \(message)\n".utf8))
}
