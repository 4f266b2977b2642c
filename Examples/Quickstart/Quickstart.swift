import Foundation
import CoreSpotlight  // Apple's framework on Apple platforms, OpenSpotlight on Linux

@main
struct Quickstart {
    static func main() async throws {
        let index = CSSearchableIndex(name: "smoothies")
        let items = [("berry-blue", "Berry Blue", "A berry smoothie"), ("very-berry", "Very Berry", "Strawberries, raspberries"),
                     ("choc-milk", "Chocolate Almond Milk", "Cocoa and almond milk")].map { id, title, text in
            let attributes = CSSearchableItemAttributeSet(contentType: .content)
            attributes.title = title
            attributes.contentDescription = text
            return CSSearchableItem(uniqueIdentifier: id, domainIdentifier: "recipes", attributeSet: attributes)
        }
        try await index.indexSearchableItems(items)

        let context = CSUserQueryContext()
        context.fetchAttributes = ["title"]
        context.maxSuggestionCount = 2
        for typed in ["berry smo", "choclate"] {  // the last word is a prefix; typos are forgiven
            for try await response in CSUserQuery(userQueryString: typed, userQueryContext: context).responses {
                switch response {
                case .item(let result): print(typed, "→ item:", result.item.attributeSet.title ?? "")
                case .suggestion(let s): print(typed, "→ suggestion:", String(s.suggestion.localizedAttributedSuggestion.characters))
                }
            }
        }
    }
}
