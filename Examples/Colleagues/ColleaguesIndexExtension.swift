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

    /// The card, for dragging or sharing a result out of search.
    override func data(for searchableIndex: CSSearchableIndex, itemIdentifier: String, typeIdentifier: String) throws -> Data {
        guard let employee = Directory.employee(id: itemIdentifier) else { throw CocoaError(.fileNoSuchFile) }
        switch typeIdentifier {
        case UTType.vCard.identifier: return Data(employee.vCard.utf8)
        case UTType.plainText.identifier: return Data(employee.card.utf8)
        default: throw CocoaError(.fileReadUnsupportedScheme)
        }
    }

    /// A copy of the card as a file (Colleagues keeps no files of its own, so in place is a copy too).
    override func fileURL(for searchableIndex: CSSearchableIndex, itemIdentifier: String, typeIdentifier: String,
                          inPlace: Bool) throws -> URL {
        let data = try self.data(for: searchableIndex, itemIdentifier: itemIdentifier, typeIdentifier: typeIdentifier)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("colleagues-\(itemIdentifier).vcf")
        try data.write(to: url, options: .atomic)
        return url
    }

    /// The current record of employees, for the system (the async form).
    override func searchableItems(forIdentifiers identifiers: [String]) async -> [CSSearchableItem] {
        identifiers.compactMap(Directory.employee(id:)).map(\.searchableItem)
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
