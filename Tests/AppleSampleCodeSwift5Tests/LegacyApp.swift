// App code in the Swift 5 language mode and the older style of Apple's documentation and of apps written before
// Swift concurrency: completion handlers, `kUTType…` from MobileCoreServices, `init(itemContentType:)`, handlers
// that hop to the main queue, an index extension whose overrides omit `@Sendable`. It must compile unchanged
// against Apple's SDK too.
import CoreSpotlight
import Foundation
import MobileCoreServices
import UniformTypeIdentifiers

struct Colleague {
    var id: String
    var name: String
    var department: String

    var searchableItem: CSSearchableItem {
        let attributes = CSSearchableItemAttributeSet(itemContentType: kUTTypeContact as String)
        attributes.title = name
        attributes.contentDescription = department
        attributes.keywords = [department]
        return CSSearchableItem(uniqueIdentifier: id, domainIdentifier: "colleagues", attributeSet: attributes)
    }

    static let all = [
        Colleague(id: "brent", name: "Brent Reid", department: "Engineering"),
        Colleague(id: "ava", name: "Ava Thompson", department: "Design"),
        Colleague(id: "emily", name: "Emily Stone", department: "Engineering"),
    ]
}

/// A view controller's search, as iOS 9-era apps wrote it: handlers dispatch to the main queue.
final class SearchController {
    private(set) var names: [String] = []
    private(set) var finished = false
    private var query: CSSearchQuery?

    func search(_ text: String, completion: @escaping () -> Void) {
        let query = CSSearchQuery(queryString: "title == \"\(text)*\"cd", attributes: ["title"])
        query.foundItemsHandler = { items in
            let titles = items.compactMap { $0.attributeSet.title }
            DispatchQueue.main.async { self.names += titles }
        }
        query.completionHandler = { error in
            DispatchQueue.main.async {
                self.finished = error == nil
                completion()
            }
        }
        self.query = query
        query.start()
    }
}

/// Batched indexing with completion handlers inside the batch, the shape of `indexSearchableItems` calls made by
/// a sync loop.
func indexInBatch(_ colleagues: [Colleague], index: CSSearchableIndex, completion: @escaping (Error?, Int) -> Void) {
    var accepted = 0
    let lock = NSLock()
    index.beginBatch()
    for colleague in colleagues {
        index.indexSearchableItems([colleague.searchableItem]) { error in
            if error == nil { lock.lock(); accepted += 1; lock.unlock() }
        }
    }
    index.endBatch(withClientState: Data("sync-1".utf8)) { error in
        lock.lock(); let count = accepted; lock.unlock()
        completion(error, count)
    }
}

final class ColleaguesIndexRequestHandler: CSIndexExtensionRequestHandler {
    override func searchableIndex(_ searchableIndex: CSSearchableIndex,
                                  reindexAllSearchableItemsWithAcknowledgementHandler acknowledgementHandler: @escaping () -> Void) {
        searchableIndex.indexSearchableItems(Colleague.all.map { $0.searchableItem }) { _ in
            acknowledgementHandler()
        }
    }

    override func searchableIndex(_ searchableIndex: CSSearchableIndex, reindexSearchableItemsWithIdentifiers identifiers: [String],
                                  acknowledgementHandler: @escaping () -> Void) {
        acknowledgementHandler()
    }
}
