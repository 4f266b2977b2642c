import Foundation

/// A public search item made from a page: one per supported schema.org entity, or one for the page itself.
///
/// ```swift
/// let items = page.items()
/// items[0].kind                    // "Product"
/// items[0].title                   // "Trail Shoe 2"
/// items[0].attributes["price"]     // "89.00"
/// items[0].deepLink                // shop://product/42
/// ```
///
/// Every string is clamped (``WebItem/maxTitleLength``, ``WebItem/maxDescriptionLength``, …) so that one hostile
/// page cannot bloat the index.
public struct WebItem: Sendable, Equatable, Codable {
    /// The longest title, in characters.
    public static let maxTitleLength = 300
    /// The longest description, in characters.
    public static let maxDescriptionLength = 2_000
    /// The most keywords.
    public static let maxKeywords = 50
    /// The longest keyword, in characters.
    public static let maxKeywordLength = 100
    /// The most attributes.
    public static let maxAttributes = 40
    /// The longest attribute value, in characters.
    public static let maxAttributeLength = 500
    /// The most items one page yields.
    public static let maxItemsPerPage = 50

    /// `Product`, `Recipe`, `Article`, `Person`, `Place`, `Event`, `Offer`, or `WebPage` for the page itself.
    public var kind: String
    /// The entity's `url`, else the page's canonical URL, else the page's URL.
    public var url: URL
    /// `name`, else `headline`, else `og:title`, `twitter:title`, `<title>`; whitespace collapsed.
    public var title: String
    /// `description`, else `og:description`, `twitter:description`, `<meta name="description">`.
    public var description: String?
    /// `image` (a URL, an `ImageObject`'s `url`, the first of several), else `og:image`, `twitter:image`.
    public var imageURL: URL?
    /// `keywords` (split at commas), `recipeCategory`, `recipeCuisine`, `servesCuisine`, `genre`, `article:tag`; each
    /// once, case-insensitively.
    public var keywords: [String]
    /// Flattened details by schema.org name: `price`, `priceCurrency`, `availability`, `ratingValue`, `ratingCount`,
    /// `reviewCount`, `startDate`, `endDate`, `location`, `address`, `author`, `datePublished`, `recipeYield`,
    /// `totalTime`, `jobTitle`, `telephone`, …
    public var attributes: [String: String]
    /// The app deep link: the Smart App Banner's `app-argument`, else `al:ios:url`, `al:android:url`, `al:web:url`.
    public var deepLink: URL?
    /// The Smart App Banner's `app-id`, else `al:ios:app_store_id`.
    public var appStoreID: String?
    /// `al:ios:app_name`, else `al:android:app_name`.
    public var appName: String?

    /// An item.
    ///
    /// - Parameters:
    ///   - kind: the item's kind.
    ///   - url: where the entity lives on the web.
    ///   - title: what search results show.
    ///   - description: a summary.
    ///   - imageURL: a picture.
    ///   - keywords: search terms.
    ///   - attributes: flattened details.
    ///   - deepLink: where the app opens it.
    ///   - appStoreID: the app's App Store ID.
    ///   - appName: the app's name.
    public init(kind: String, url: URL, title: String, description: String? = nil, imageURL: URL? = nil,
                keywords: [String] = [], attributes: [String: String] = [:], deepLink: URL? = nil,
                appStoreID: String? = nil, appName: String? = nil) {
        self.kind = kind
        self.url = url
        self.title = title
        self.description = description
        self.imageURL = imageURL
        self.keywords = keywords
        self.attributes = attributes
        self.deepLink = deepLink
        self.appStoreID = appStoreID
        self.appName = appName
    }
}

extension WebPage {
    /// The page's public search items.
    ///
    /// ```swift
    /// page.items().map(\.kind)  // ["Recipe"]: the Recipe of a @graph; its BreadcrumbList and WebSite are no items
    /// ```
    ///
    /// One item per supported schema.org entity (``WebItem/kind``), looked for in the page's structured data and
    /// inside containers that are no items themselves (a `WebPage`'s `mainEntity`, an `ItemList`'s elements); an
    /// entity's nested `Offer` and `AggregateRating` enrich it instead of becoming items, and a `Person`, `Place` or
    /// `Offer` that another entity refers to by `@id` is a detail of it, not an item. The same entity written
    /// both in JSON-LD and microdata gives one item. A page with no supported entity gives one `WebPage` item from
    /// Open Graph, its Twitter card, `<title>` and `<meta name="description">`, or none when it has no title at all.
    /// A page whose robots say `noindex` gives none. At most ``WebItem/maxItemsPerPage`` items.
    ///
    /// - Returns: the items, in page order.
    public func items() -> [WebItem] {
        guard !robots.noindex else { return [] }
        var entities: [(kind: String, item: StructuredItem)] = []
        var budget = 10_000
        let referenced = ItemBuilder.referencedIDs(structuredData)
        for item in structuredData {
            // A person, place or offer that another entity refers to (an article's author in a `@graph`) is a detail
            // of that entity, not an item of its own; a container's `mainEntity` is still reached through it.
            if let id = item.id, referenced.contains(id), let kind = SchemaKind.kind(of: item.types),
               ["Person", "Place", "Offer"].contains(kind) { continue }
            ItemBuilder.collectEntities(item, into: &entities, depth: 0, budget: &budget)
        }
        let builder = ItemBuilder(page: self)
        var items: [WebItem] = []
        var seen: Set<String> = []
        for entity in entities {
            guard items.count < WebItem.maxItemsPerPage else { break }
            guard let item = builder.item(kind: entity.kind, from: entity.item),
                  seen.insert("\(item.kind)\n\(item.url.absoluteString)\n\(item.title.lowercased())").inserted else { continue }
            items.append(item)
        }
        if items.isEmpty, let item = builder.pageItem() { items.append(item) }
        return items
    }
}
