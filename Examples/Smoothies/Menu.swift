import Foundation
import OpenCoreSpotlight

/// One smoothie on the menu.
struct Smoothie: Sendable {
    var id: String
    var title: String
    var description: String
    var ingredients: [String]
    var calories: Int

    /// The Core Spotlight item.
    var searchableItem: CSSearchableItem {
        let attributes = CSSearchableItemAttributeSet(contentType: .content)
        attributes.title = title
        attributes.displayName = title
        attributes.contentDescription = description
        attributes.keywords = ingredients
        attributes.textContent = "\(description) Made with \(ingredients.joined(separator: ", ")). \(calories) calories."
        return CSSearchableItem(uniqueIdentifier: id, domainIdentifier: "menu", attributeSet: attributes)
    }

    var recipe: String {
        """
        \(title) (\(id))
          \(description)
          Ingredients: \(ingredients.joined(separator: ", "))
          \(calories) calories
        """
    }
}

enum Menu {
    /// Bump when the menu changes: the client state stored with the index then differs, and the next launch
    /// indexes the menu again.
    static let version = 3

    static let all: [Smoothie] = [
        Smoothie(id: "berry-blue", title: "Berry Blue", description: "Blueberries and banana, thick and cold.",
                 ingredients: ["blueberry", "banana", "almond milk"], calories: 260),
        Smoothie(id: "berry-bliss", title: "Berry Bliss", description: "Strawberries and raspberries with yogurt.",
                 ingredients: ["strawberry", "raspberry", "yogurt"], calories: 240),
        Smoothie(id: "carrot-chops", title: "Carrot Chops", description: "Carrot, orange and ginger.",
                 ingredients: ["carrot", "orange", "ginger"], calories: 180),
        Smoothie(id: "crazy-colada", title: "Crazy Colada", description: "Pineapple and coconut, no rum.",
                 ingredients: ["pineapple", "coconut milk", "lime"], calories: 310),
        Smoothie(id: "hulking-lemonade", title: "Hulking Lemonade", description: "Lemonade with kale and mint.",
                 ingredients: ["lemon", "kale", "mint", "agave"], calories: 150),
        Smoothie(id: "kiwi-cutie", title: "Kiwi Cutie", description: "Kiwi, apple and spinach.",
                 ingredients: ["kiwi", "apple", "spinach"], calories: 170),
        Smoothie(id: "lemonberry", title: "Lemonberry", description: "Lemon and raspberries, tart and bright.",
                 ingredients: ["lemon", "raspberry", "honey"], calories: 190),
        Smoothie(id: "love-you-berry-much", title: "Love You Berry Much", description: "Every berry we have.",
                 ingredients: ["strawberry", "blueberry", "raspberry", "oat milk"], calories: 280),
        Smoothie(id: "mango-jambo", title: "Mango Jambo", description: "Mango, passion fruit and orange.",
                 ingredients: ["mango", "passion fruit", "orange"], calories: 230),
        Smoothie(id: "one-in-a-melon", title: "One in a Melon", description: "Watermelon and mint.",
                 ingredients: ["watermelon", "mint", "lime"], calories: 140),
        Smoothie(id: "papas-papaya", title: "Papa's Papaya", description: "Papaya, banana and coconut.",
                 ingredients: ["papaya", "banana", "coconut milk"], calories: 250),
        Smoothie(id: "pina-y-coco", title: "Piña y Coco", description: "Pineapple, coconut and a little cinnamon.",
                 ingredients: ["pineapple", "coconut", "cinnamon"], calories: 290),
        Smoothie(id: "sailor-man", title: "Sailor Man", description: "Spinach, banana and peanut butter.",
                 ingredients: ["spinach", "banana", "peanut butter"], calories: 320),
        Smoothie(id: "thats-a-smore", title: "That's a Smore", description: "Chocolate, banana and graham crumbs.",
                 ingredients: ["chocolate", "banana", "graham cracker"], calories: 410),
        Smoothie(id: "thats-berry-bananas", title: "That's Berry Bananas", description: "Strawberry and banana.",
                 ingredients: ["strawberry", "banana", "milk"], calories: 250),
        Smoothie(id: "tropical-blue", title: "Tropical Blue", description: "Blue spirulina, pineapple and coconut.",
                 ingredients: ["spirulina", "pineapple", "coconut"], calories: 220),
    ]

    static func smoothie(id: String) -> Smoothie? { all.first { $0.id == id } }

    static func find(_ text: String) -> Smoothie? {
        if let s = smoothie(id: text) { return s }
        let folded = text.lowercased()
        return all.first { $0.title.lowercased() == folded }
    }
}

/// What Smoothies stores as the index's client state: which menu the index holds.
struct IndexState: Codable, Equatable {
    var menuVersion: Int
    var count: Int
}
