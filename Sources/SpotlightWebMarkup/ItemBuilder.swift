import Foundation

// Turning a page's schema.org entities into search items. Invariants: every walk over nested entities is bounded in
// depth and in the number of values visited, and every string that leaves here is whitespace-collapsed and clamped
// to the `WebItem` limits.

/// The item kinds of schema.org types.
enum SchemaKind {
    /// Types (besides the kind's own name) that give each kind.
    private static let kindsByType: [String: String] = {
        var table: [String: String] = [:]
        let groups: [String: [String]] = [
            "Product": ["Product", "ProductModel", "ProductGroup", "IndividualProduct", "SomeProducts", "Vehicle", "Car",
                        "Motorcycle"],
            "Recipe": ["Recipe"],
            "Article": ["Article", "NewsArticle", "BlogPosting", "TechArticle", "Report", "ScholarlyArticle",
                        "SocialMediaPosting", "LiveBlogPosting", "AnalysisNewsArticle", "OpinionNewsArticle",
                        "ReportageNewsArticle", "ReviewNewsArticle", "BackgroundNewsArticle", "AdvertiserContentArticle",
                        "SatiricalArticle", "APIReference"],
            "Person": ["Person"],
            "Place": ["Place", "LocalBusiness", "Restaurant", "FoodEstablishment", "CafeOrCoffeeShop", "BarOrPub", "Bakery",
                      "Brewery", "FastFoodRestaurant", "IceCreamShop", "Winery", "Store", "ClothingStore", "BookStore",
                      "GroceryStore", "Hotel", "LodgingBusiness", "Motel", "Hostel", "BedAndBreakfast", "Resort",
                      "TouristAttraction", "Museum", "Park", "Zoo", "Aquarium", "Beach", "Landform", "Mountain",
                      "LandmarksOrHistoricalBuildings", "CivicStructure", "MovieTheater", "StadiumOrArena",
                      "Library", "PlaceOfWorship", "Church", "Airport", "TrainStation", "Accommodation", "City", "Country",
                      "AdministrativeArea", "TouristDestination", "ShoppingCenter", "SportsActivityLocation",
                      "ExerciseGym", "HealthAndBeautyBusiness", "DaySpa", "MedicalBusiness", "Dentist", "Pharmacy",
                      "AutomotiveBusiness", "AutoRepair", "EntertainmentBusiness", "NightClub", "ProfessionalService",
                      "FinancialService", "RealEstateAgent", "TravelAgency", "HomeAndConstructionBusiness",
                      "LegalService", "Attorney", "ChildCare", "Campground", "MusicVenue", "EventVenue"],
            "Event": ["Event", "MusicEvent", "SportsEvent", "TheaterEvent", "Festival", "ComedyEvent", "DanceEvent",
                      "BusinessEvent", "EducationEvent", "ExhibitionEvent", "FoodEvent", "LiteraryEvent", "SaleEvent",
                      "ScreeningEvent", "SocialEvent", "ChildrensEvent", "CourseInstance", "Hackathon", "VisualArtsEvent",
                      "PublicationEvent", "BroadcastEvent", "EventSeries", "DeliveryEvent", "OnDemandEvent"],
            "Offer": ["Offer", "AggregateOffer"],
        ]
        for (kind, types) in groups {
            for type in types { table[type.lowercased()] = kind }
        }
        return table
    }()

    /// The kind of the first supported type, by name or by a telling suffix (`…Event`, `…Restaurant`, `…Store`).
    ///
    /// - Parameter types: an entity's types, without prefix.
    /// - Returns: `Product`, `Recipe`, `Article`, `Person`, `Place`, `Event`, `Offer`, or `nil`.
    static func kind(of types: [String]) -> String? {
        for type in types {
            if let kind = kindsByType[type.lowercased()] { return kind }
        }
        for type in types {
            if type.hasSuffix("Event") { return "Event" }
            if type.hasSuffix("NewsArticle") || type.hasSuffix("Posting") { return "Article" }
            if type.hasSuffix("Restaurant") || type.hasSuffix("Store") || type.hasSuffix("Shop") { return "Place" }
        }
        return nil
    }

    /// The properties through which a non-item container (a `WebPage`, an `ItemList`) holds the page's entities.
    static let containerProperties = ["mainEntity", "itemListElement", "item", "hasPart", "about"]
}

/// Builds ``WebItem``s from one page.
struct ItemBuilder {
    private let page: WebPage
    private let deepLink: URL?
    private let appStoreID: String?
    private let appName: String?

    /// A builder for the page's items, with the app fields they share.
    init(page: WebPage) {
        self.page = page
        let appLinks = page.appLinks
        deepLink = page.smartAppBanner?.appArgument
            ?? ["al:ios:url", "al:android:url", "al:web:url"].lazy.compactMap { appLinks[$0]?.lazy.compactMap(WebURL.deepLink).first }.first
        appStoreID = page.smartAppBanner?.appID
            ?? appLinks["al:ios:app_store_id"]?.first(where: { id in !id.isEmpty && id.count <= 20 && id.allSatisfy { $0.isASCII && $0.isNumber } })
        appName = (appLinks["al:ios:app_name"]?.first ?? appLinks["al:android:app_name"]?.first)
            .map { ItemBuilder.clamp($0, to: 100) }.flatMap(nonEmpty)
    }

    /// Finds the entities that become items: supported ones, and those inside containers that are no items.
    ///
    /// - Parameters:
    ///   - item: a top-level entity of the page.
    ///   - entities: where found entities are appended.
    ///   - depth: how deep `item` is in the page's entities.
    ///   - budget: how many more entities may be looked at.
    static func collectEntities(_ item: StructuredItem, into entities: inout [(kind: String, item: StructuredItem)],
                                depth: Int, budget: inout Int) {
        guard depth < 8, budget > 0 else { return }
        budget -= 1
        if let kind = SchemaKind.kind(of: item.types) {
            entities.append((kind, item))
            return
        }
        for property in SchemaKind.containerProperties {
            for case .item(let nested) in item.properties[property] ?? [] {
                collectEntities(nested, into: &entities, depth: depth + 1, budget: &budget)
            }
        }
    }

    /// The `@id`s of entities that appear nested in others (resolved references included), looking at most 10,000
    /// values.
    static func referencedIDs(_ items: [StructuredItem]) -> Set<String> {
        var ids: Set<String> = []
        var pending: [(item: StructuredItem, depth: Int)] = items.map { ($0, 0) }
        var budget = 10_000
        while let (item, depth) = pending.popLast(), budget > 0 {
            if depth > 0, let id = item.id { ids.insert(id) }
            guard depth < Limits.itemDepth else { continue }
            for values in item.properties.values {
                for case .item(let nested) in values {
                    budget -= 1
                    pending.append((nested, depth + 1))
                }
            }
        }
        return ids
    }

    /// The item for one entity, or `nil` when nothing gives it a title.
    func item(kind: String, from entity: StructuredItem) -> WebItem? {
        let offered = entity.item("itemOffered")
        guard let title = firstClamped([entity.text("name"), entity.text("headline"), offered?.text("name"),
                                        openGraph("og:title"), page.twitterCard["twitter:title"], page.title],
                                       to: WebItem.maxTitleLength) else { return nil }
        let description = firstClamped([entity.text("description"), openGraph("og:description"),
                                        page.twitterCard["twitter:description"], page.description],
                                       to: WebItem.maxDescriptionLength)
        let url = WebURL.web(entity.text("url"), against: page.baseURL) ?? page.canonicalURL ?? page.url
        let image = imageURL(entity) ?? offered.flatMap(imageURL) ?? pageImage()

        var keywords: [String] = []
        for property in ["keywords", "recipeCategory", "recipeCuisine", "servesCuisine", "genre"] {
            for text in entity.texts(property) {
                keywords += text.split(separator: ",").map(String.init)
            }
        }
        if kind == "Article" { keywords += page.openGraph["article:tag"] ?? [] }

        var attributes: [String: String] = [:]
        func set(_ key: String, _ value: String?) {
            guard attributes[key] == nil, let value = value.map(collapsingWhitespace).flatMap(nonEmpty) else { return }
            attributes[key] = value
        }
        let properties: [String] = switch kind {
        case "Product": ["brand", "sku", "gtin", "gtin8", "gtin12", "gtin13", "gtin14", "mpn", "color", "material", "model",
                         "manufacturer", "category"]
        case "Recipe": ["author", "datePublished", "recipeYield", "totalTime", "prepTime", "cookTime", "recipeCuisine",
                        "recipeCategory"]
        case "Article": ["author", "datePublished", "dateModified", "publisher", "articleSection", "wordCount"]
        case "Person": ["jobTitle", "telephone", "email", "worksFor", "affiliation", "address", "alumniOf"]
        case "Place": ["telephone", "address", "priceRange", "openingHours", "servesCuisine"]
        case "Event": ["startDate", "endDate", "eventStatus", "eventAttendanceMode", "performer", "organizer", "duration"]
        case "Offer": ["price", "priceCurrency", "availability", "seller", "validFrom", "validThrough", "lowPrice",
                       "highPrice", "offerCount"]
        default: []
        }
        for property in properties {
            set(property, entity.joinedTexts(property))
        }
        if let nutrition = entity.item("nutrition") { set("calories", nutrition.text("calories")) }
        if let geo = entity.item("geo") {
            set("latitude", geo.text("latitude"))
            set("longitude", geo.text("longitude"))
        }
        if let location = entity.item("location") {
            set("location", location.text("name") ?? location.text("url"))
            set("address", location.item("address").map(ItemBuilder.address) ?? location.text("address"))
        } else {
            set("location", entity.text("location"))
        }
        if let offer = entity.item("offers") ?? (kind == "Offer" ? entity : nil) {
            set("price", offer.text("price") ?? offer.item("priceSpecification")?.text("price") ?? offer.text("lowPrice"))
            set("priceCurrency", offer.text("priceCurrency") ?? offer.item("priceSpecification")?.text("priceCurrency"))
            set("availability", offer.text("availability").map(schemaName))
            set("lowPrice", offer.text("lowPrice"))
            set("highPrice", offer.text("highPrice"))
        }
        if let rating = entity.item("aggregateRating") {
            set("ratingValue", rating.text("ratingValue"))
            set("ratingCount", rating.text("ratingCount"))
            set("reviewCount", rating.text("reviewCount"))
            set("bestRating", rating.text("bestRating"))
        }
        for key in ["eventStatus", "eventAttendanceMode"] {
            if let value = attributes[key] { attributes[key] = schemaName(value) }
        }
        // Microdata gives `<a itemprop="email" href="mailto:…">` its href: keep the address, not the link.
        for (key, scheme) in [("email", "mailto:"), ("telephone", "tel:")] {
            if let value = attributes[key], value.lowercased().hasPrefix(scheme) {
                attributes[key] = String(value.dropFirst(scheme.count)).removingPercentEncoding ?? value
            }
        }
        if kind == "Article" {
            set("datePublished", openGraph("article:published_time"))
            set("articleSection", openGraph("article:section"))
        }
        return WebItem(kind: kind, url: url, title: title, description: description, imageURL: image,
                       keywords: ItemBuilder.keywords(keywords), attributes: ItemBuilder.clamp(attributes),
                       deepLink: deepLink, appStoreID: appStoreID, appName: appName)
    }

    /// The item for the page itself, from Open Graph, its Twitter card, `<title>` and its description.
    func pageItem() -> WebItem? {
        guard let title = firstClamped([openGraph("og:title"), page.twitterCard["twitter:title"], page.title],
                                       to: WebItem.maxTitleLength) else { return nil }
        let description = firstClamped([openGraph("og:description"), page.twitterCard["twitter:description"],
                                        page.description], to: WebItem.maxDescriptionLength)
        let url = page.canonicalURL ?? WebURL.web(openGraph("og:url"), against: page.baseURL) ?? page.url
        var attributes: [String: String] = [:]
        let fromOpenGraph = [("siteName", "og:site_name"), ("type", "og:type"), ("datePublished", "article:published_time"),
                             ("author", "article:author"), ("articleSection", "article:section"),
                             ("price", "product:price:amount"), ("priceCurrency", "product:price:currency")]
        for (key, property) in fromOpenGraph {
            if let value = openGraph(property).map(collapsingWhitespace).flatMap(nonEmpty) { attributes[key] = value }
        }
        return WebItem(kind: "WebPage", url: url, title: title, description: description, imageURL: pageImage(),
                       keywords: ItemBuilder.keywords(page.openGraph["article:tag"] ?? []),
                       attributes: ItemBuilder.clamp(attributes), deepLink: deepLink, appStoreID: appStoreID, appName: appName)
    }

    /// The first value of an Open Graph property.
    private func openGraph(_ property: String) -> String? {
        page.openGraph[property]?.first
    }

    /// The page's picture: `og:image` (or `og:image:url`/`og:image:secure_url`), else `twitter:image`.
    private func pageImage() -> URL? {
        let candidates = [openGraph("og:image"), openGraph("og:image:secure_url"), openGraph("og:image:url"),
                          page.twitterCard["twitter:image"], page.twitterCard["twitter:image:src"]]
        return candidates.lazy.compactMap { WebURL.web($0, against: self.page.baseURL) }.first
    }

    /// An entity's `image`: a URL, an `ImageObject`'s `url` or `contentUrl`, the first usable of several.
    private func imageURL(_ entity: StructuredItem) -> URL? {
        for value in entity.properties["image"] ?? [] {
            let reference: String? = switch value {
            case .text(let text): text
            case .item(let image): image.text("url") ?? image.text("contentUrl")
            }
            if let url = WebURL.web(reference, against: page.baseURL) { return url }
        }
        return nil
    }

    /// The first candidate with text, collapsed and clamped.
    private func firstClamped(_ candidates: [String?], to length: Int) -> String? {
        for candidate in candidates {
            if let text = candidate.map(collapsingWhitespace).flatMap(nonEmpty) { return ItemBuilder.clamp(text, to: length) }
        }
        return nil
    }

    /// Text cut to at most `length` characters.
    static func clamp(_ text: String, to length: Int) -> String {
        text.count > length ? String(text.prefix(length)) : text
    }

    /// Attributes within the ``WebItem`` limits: the first ``WebItem/maxAttributes`` keys in name order.
    private static func clamp(_ attributes: [String: String]) -> [String: String] {
        var clamped: [String: String] = [:]
        for key in attributes.keys.sorted().prefix(WebItem.maxAttributes) {
            clamped[key] = clamp(attributes[key] ?? "", to: WebItem.maxAttributeLength)
        }
        return clamped
    }

    /// Keywords trimmed, collapsed, each once (case-insensitively), within the ``WebItem`` limits.
    private static func keywords(_ candidates: [String]) -> [String] {
        var keywords: [String] = []
        var seen: Set<String> = []
        for candidate in candidates {
            guard keywords.count < WebItem.maxKeywords,
                  let keyword = nonEmpty(collapsingWhitespace(candidate)).map({ clamp($0, to: WebItem.maxKeywordLength) }),
                  seen.insert(keyword.lowercased()).inserted else { continue }
            keywords.append(keyword)
        }
        return keywords
    }

    /// A `PostalAddress` as one line: street, locality, region, postal code, country.
    static func address(_ address: StructuredItem) -> String? {
        let parts = ["streetAddress", "addressLocality", "addressRegion", "postalCode", "addressCountry"]
            .compactMap { address.text($0).map(collapsingWhitespace).flatMap(nonEmpty) }
        return parts.isEmpty ? address.text("name") : parts.joined(separator: ", ")
    }
}

extension StructuredItem {
    /// The first value of a property that is an entity.
    func item(_ property: String) -> StructuredItem? {
        for case .item(let item) in properties[property] ?? [] { return item }
        return nil
    }

    /// The first value of a property as text: text as written, an entity by its name (an address as one line).
    func text(_ property: String) -> String? {
        texts(property).first
    }

    /// Every value of a property as text, blank ones left out.
    func texts(_ property: String) -> [String] {
        (properties[property] ?? []).compactMap { value in
            switch value {
            case .text(let text):
                nonEmpty(text)
            case .item(let item):
                item.types.contains("PostalAddress") ? ItemBuilder.address(item) : item.text("name").flatMap(nonEmpty)
            }
        }
    }

    /// The first five values of a property as text, joined with `, ` (several authors, several performers).
    func joinedTexts(_ property: String) -> String? {
        let values = texts(property).prefix(5)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }
}
