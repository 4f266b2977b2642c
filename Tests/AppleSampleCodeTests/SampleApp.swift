// App code as Apple's documentation and sample code write it, in the Swift 6 language mode: `import CoreSpotlight`
// and `import UniformTypeIdentifiers`, batches with `try await`, handlers that set a main-actor view model's
// properties, NSUserActivity with a content attribute set, a delegate and an index extension. Nothing here names
// OpenSpotlight: it must compile unchanged against Apple's SDK too.
import CoreSpotlight
import Foundation
import UniformTypeIdentifiers

struct SearchIndexData: Codable {
    var date: Date
}

struct Smoothie: Sendable {
    var id: String
    var title: String
    var description: String

    var searchableItem: CSSearchableItem {
        let attributes = CSSearchableItemAttributeSet(contentType: UTType.content)
        attributes.title = title
        attributes.displayName = title
        attributes.contentDescription = description
        attributes.keywords = ["smoothie"]
        return CSSearchableItem(uniqueIdentifier: id, domainIdentifier: "smoothies", attributeSet: attributes)
    }

    static let all = [
        Smoothie(id: "berry-blue", title: "Berry Blue", description: "A berry smoothie with blueberries"),
        Smoothie(id: "carrot-chops", title: "Carrot Chops", description: "Carrots, orange and mango"),
        Smoothie(id: "very-berry", title: "Very Berry", description: "Strawberries and raspberries"),
    ]
}

/// The Smoothies sample's indexer: reindex everything in one batch whose client state records when.
enum SmoothieIndexer {
    static let indexName = "SpotlightSearchExample"

    static func reindex(_ smoothies: [Smoothie]) async throws {
        let index = CSSearchableIndex(name: indexName)
        index.beginBatch()
        try await index.indexSearchableItems(smoothies.map(\.searchableItem))
        try await index.deleteSearchableItems(withIdentifiers: ["retired-smoothie"])
        try await index.endBatch(withClientState: try JSONEncoder().encode(SearchIndexData(date: .now)))
    }

    static func lastIndexed() async throws -> Date? {
        let data = try await CSSearchableIndex(name: indexName).fetchLastClientState()
        guard !data.isEmpty else { return nil }
        return try JSONDecoder().decode(SearchIndexData.self, from: data).date
    }
}

/// A search screen's model, as a SwiftUI app keeps it: main-actor state set from Core Spotlight's handlers.
@MainActor
final class SearchModel {
    var foundIdentifiers: [String] = []
    var suggestions: [String] = []
    var isSearching = false
    var status = ""
    var indexedCount = 0

    /// `CSSearchQuery` with Apple's handler properties; they set the model's properties directly.
    func find(_ queryString: String) async {
        isSearching = true
        let context = CSSearchQueryContext()
        context.fetchAttributes = ["title", "displayName"]
        let query = CSSearchQuery(queryString: queryString, queryContext: context)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            query.foundItemsHandler = { items in
                self.foundIdentifiers += items.map(\.uniqueIdentifier)
            }
            query.completionHandler = { error in
                self.isSearching = false
                self.status = error.map { "failed: \($0)" } ?? "found \(query.foundItemCount)"
                continuation.resume()
            }
            query.start()
        }
    }

    /// `CSUserQuery.responses`, the loop of Apple's "Spotlight in your app" sample.
    func search(_ text: String) async throws {
        foundIdentifiers = []
        suggestions = []
        let context = CSUserQueryContext()
        context.fetchAttributes = ["title", "contentDescription"]
        context.maxSuggestionCount = 3
        let query = CSUserQuery(userQueryString: text, userQueryContext: context)
        for try await element in query.responses {
            switch element {
            case .item(let item):
                foundIdentifiers.append(item.item.uniqueIdentifier)
            case .suggestion(let suggestion):
                suggestions.append(String(suggestion.suggestion.localizedAttributedSuggestion.characters))
            }
        }
    }

    /// Completion-handler indexing from main-actor code, hopping back to the main actor for the model.
    func add(_ smoothie: Smoothie, to index: CSSearchableIndex, done: @escaping @Sendable () -> Void) {
        index.indexSearchableItems([smoothie.searchableItem]) { error in
            Task { @MainActor in
                self.status = error == nil ? "indexed \(smoothie.title)" : "failed"
                self.indexedCount += 1
                done()
            }
        }
    }
}

/// Makes a recipe screen searchable as the person visits it.
@MainActor
func makeRecipeActivity(_ smoothie: Smoothie) -> NSUserActivity {
    let activity = NSUserActivity(activityType: "com.example.smoothies.view-recipe")
    activity.title = smoothie.title
    activity.isEligibleForSearch = true
    activity.userInfo = ["id": smoothie.id]
    activity.requiredUserInfoKeys = ["id"]
    let attributes = CSSearchableItemAttributeSet(contentType: UTType.content)
    attributes.contentDescription = smoothie.description
    attributes.relatedUniqueIdentifier = smoothie.id
    activity.contentAttributeSet = attributes
    return activity
}

/// The app's index delegate, as in Apple's documentation.
final class SmoothieIndexDelegate: NSObject, CSSearchableIndexDelegate {
    func searchableIndex(_ searchableIndex: CSSearchableIndex,
                         reindexAllSearchableItemsWithAcknowledgementHandler acknowledgementHandler: @escaping @Sendable () -> Void) {
        Task {
            try? await SmoothieIndexer.reindex(Smoothie.all)
            acknowledgementHandler()
        }
    }

    func searchableIndex(_ searchableIndex: CSSearchableIndex, reindexSearchableItemsWithIdentifiers identifiers: [String],
                         acknowledgementHandler: @escaping @Sendable () -> Void) {
        let items = Smoothie.all.filter { identifiers.contains($0.id) }.map(\.searchableItem)
        searchableIndex.indexSearchableItems(items) { _ in acknowledgementHandler() }
    }

    func data(for searchableIndex: CSSearchableIndex, itemIdentifier: String, typeIdentifier: String) throws -> Data {
        guard let smoothie = Smoothie.all.first(where: { $0.id == itemIdentifier }) else {
            throw CocoaError(.fileNoSuchFile)
        }
        return Data(smoothie.description.utf8)
    }

    func searchableItems(forIdentifiers identifiers: [String]) async -> [CSSearchableItem] {
        Smoothie.all.filter { identifiers.contains($0.id) }.map(\.searchableItem)
    }
}

/// The app's index extension (its principal class), as Xcode's template writes it today.
final class SmoothieIndexRequestHandler: CSIndexExtensionRequestHandler {
    override func searchableIndex(_ searchableIndex: CSSearchableIndex,
                                  reindexAllSearchableItemsWithAcknowledgementHandler acknowledgementHandler: @escaping @Sendable () -> Void) {
        searchableIndex.indexSearchableItems(Smoothie.all.map(\.searchableItem)) { _ in
            acknowledgementHandler()
        }
    }

    override func searchableIndex(_ searchableIndex: CSSearchableIndex, reindexSearchableItemsWithIdentifiers identifiers: [String],
                                  acknowledgementHandler: @escaping @Sendable () -> Void) {
        acknowledgementHandler()
    }
}
