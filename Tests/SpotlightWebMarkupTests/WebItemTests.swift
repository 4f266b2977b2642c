import Foundation
import XCTest

@testable import SpotlightWebMarkup

/// The search items `WebPage.items()` makes from pages.
final class WebItemTests: XCTestCase {
    func testProductItemIsEnrichedByOfferAndRating() throws {
        let items = try Fixture.page("product.html", url: "https://www.summit.example/products/trail-runner-2?utm=x").items()
        XCTAssertEqual(items, [WebItem(
            kind: "Product",
            url: url("https://www.summit.example/products/trail-runner-2"),  // canonical: the JSON-LD has no url
            title: "Trail Runner 2",
            description: "The Trail Runner 2 is our lightest trail shoe yet: a rock plate, 6 mm drop and a Vibram® Megagrip outsole.",
            imageURL: url("https://www.summit.example/img/products/tr2-1x1.jpg"),
            keywords: ["running", "trail", "shoes"],
            attributes: ["availability": "InStock", "brand": "Summit", "gtin13": "0123456789012", "mpn": "925872",
                         "price": "129.95", "priceCurrency": "USD", "ratingValue": "4.4", "reviewCount": "89",
                         "sku": "TR2-BLK-10"],
            deepLink: url("summit://product/TR2-BLK?ref=web,banner"),
            appStoreID: "1234567890"
        )])
    }

    func testRecipeGraphGivesOneRecipe() throws {
        let items = try Fixture.page("recipe.html", url: "https://bake.example/recipes/easy-banana-bread/").items()
        XCTAssertEqual(items.map(\.kind), ["Recipe"], "WebPage, BreadcrumbList, WebSite: no items; the author Person is a detail")
        let recipe = try XCTUnwrap(items.first)
        XCTAssertEqual(recipe.title, "Easy Banana Bread")
        XCTAssertEqual(recipe.url, url("https://bake.example/recipes/easy-banana-bread/"))
        XCTAssertEqual(recipe.imageURL, url("https://bake.example/wp-content/uploads/banana-bread.jpg"), "ImageObject.url")
        XCTAssertEqual(recipe.keywords, ["banana bread", "quick bread", "easy", "Bread", "American"])
        XCTAssertEqual(recipe.attributes["author"], "Jane Baker")
        XCTAssertEqual(recipe.attributes["recipeYield"], "10, 1 loaf")
        XCTAssertEqual(recipe.attributes["totalTime"], "PT70M")
        XCTAssertEqual(recipe.attributes["calories"], "196 kcal")
        XCTAssertEqual(recipe.attributes["ratingValue"], "4.8")
        XCTAssertEqual(recipe.attributes["ratingCount"], "1312")
    }

    func testArticleUsesHeadlineOpenGraphAndAppLinks() throws {
        let items = try Fixture.page("article.html", url: "https://news.example/2025/05/12/bike-lanes").items()
        XCTAssertEqual(items.count, 1)
        let article = try XCTUnwrap(items.first)
        XCTAssertEqual(article.kind, "Article", "NewsArticle is an Article")
        XCTAssertEqual(article.title, "City council approves 40 km of protected bike lanes", "headline")
        XCTAssertEqual(article.description, "The vote ends a two-year debate.", "og:description, the JSON-LD has none")
        XCTAssertEqual(article.imageURL, url("https://news.example/images/bike-lanes-16x9.jpg"))
        XCTAssertEqual(article.keywords, ["Cycling", "City Council", "Transport"], "article:tag")
        XCTAssertEqual(article.attributes["author"], "Maria Lopez, Tom Weber")
        XCTAssertEqual(article.attributes["publisher"], "The Daily Example")
        XCTAssertEqual(article.attributes["datePublished"], "2025-05-12T08:30:00Z")
        XCTAssertEqual(article.attributes["articleSection"], "Local", "article:section")
        XCTAssertEqual(article.deepLink, url("dailyexample://article/2025-05-12-bike-lanes"), "al:ios:url")
        XCTAssertEqual(article.appStoreID, "987654321")
        XCTAssertEqual(article.appName, "The Daily Example")
    }

    func testPersonAndPlaceFromMicrodata() throws {
        let person = try XCTUnwrap(Fixture.page("person.html", url: "https://northwind.example/team/ada").items().first)
        XCTAssertEqual(person.kind, "Person")
        XCTAssertEqual(person.title, "Dr. Ada Moreno")
        XCTAssertEqual(person.url, url("https://northwind.example/team/ada"))
        XCTAssertEqual(person.attributes, ["jobTitle": "Head of Research", "worksFor": "Northwind Labs",
                                           "address": "20 Harbour Street, Lisbon, 1100-001, PT",
                                           "telephone": "+351 21 000 0000", "email": "ada@northwind.example"])

        let place = try XCTUnwrap(Fixture.page("restaurant.html", url: "https://www.greatfood.example/").items().first)
        XCTAssertEqual(place.kind, "Place", "Restaurant is a Place")
        XCTAssertEqual(place.title, "GreatFood")
        XCTAssertEqual(place.url, url("http://www.greatfood.example/sunnyvale"), "the entity's url")
        XCTAssertEqual(place.keywords, ["Middle Eastern", "Mediterranean"])
        XCTAssertEqual(place.attributes["address"], "1901 Lemur Ave, Sunnyvale, CA, 94086")
        XCTAssertEqual(place.attributes["ratingValue"], "4")
        XCTAssertEqual(place.attributes["reviewCount"], "250")
        XCTAssertEqual(place.attributes["latitude"], "37.4225")
        XCTAssertEqual(place.attributes["openingHours"], "Mo-Sa 11:00-14:30")
        XCTAssertEqual(place.attributes["priceRange"], "$$")
        XCTAssertEqual(place.deepLink, url("greatfood://restaurant/sunnyvale"), "the banner has no argument: al:ios:url")
        XCTAssertEqual(place.appStoreID, "555000111", "the banner's app-id")
    }

    func testEventWithVenueAndOffers() throws {
        let event = try XCTUnwrap(Fixture.page("event.html", url: "https://tickets.example/e/1").items().first)
        XCTAssertEqual(event.kind, "Event")
        XCTAssertEqual(event.url, url("https://tickets.example/events/lumineers-brixton"))
        XCTAssertEqual(event.attributes, [
            "startDate": "2025-10-21T19:30:00+01:00", "endDate": "2025-10-21T23:00:00+01:00",
            "eventStatus": "EventScheduled", "eventAttendanceMode": "OfflineEventAttendanceMode",
            "location": "O2 Academy Brixton", "address": "211 Stockwell Rd, London, SW9 9SL, GB",
            "performer": "The Lumineers", "organizer": "Live Nation",
            "price": "55.50", "priceCurrency": "GBP", "availability": "LimitedAvailability",
        ])
    }

    func testPageWithoutStructuredDataGivesOneWebPageItem() throws {
        let items = try Fixture.page("opengraph.html", url: "https://movies.example/title/tt0117500/?ref=home").items()
        XCTAssertEqual(items, [WebItem(
            kind: "WebPage", url: url("https://movies.example/title/tt0117500/"),  // og:url (no canonical)
            title: "The Rock (1996)",
            description: "A mild-mannered chemist and an ex-con must lead the counterstrike.",
            imageURL: url("https://movies.example/posters/tt0117500.jpg"),
            attributes: ["siteName": "Movies Example", "type": "video.movie"]
        )])
        let bare = try WebMarkup.parse(html: Data("<p>no title anywhere</p>".utf8), url: url("https://a.example/"))
        XCTAssertEqual(bare.items(), [], "nothing to show: no item")
    }

    func testStandaloneOfferItemListAndReferencedPeople() throws {
        let html = """
        <title>Deals</title>
        <script type="application/ld+json">
        {"@context": "https://schema.org", "@graph": [
          {"@type": "Person", "@id": "#ed", "name": "Ed Itor"},
          {"@type": "BlogPosting", "headline": "Our deals", "author": {"@id": "#ed"}},
          {"@type": "ItemList", "itemListElement": [
            {"@type": "ListItem", "position": 1, "item": {"@type": "Product", "name": "Kettle", "url": "/p/kettle"}},
            {"@type": "ListItem", "position": 2, "item": {"@type": "Product", "name": "Toaster", "url": "/p/toaster"}}]},
          {"@type": "Offer", "itemOffered": {"@type": "Service", "name": "Free delivery"}, "price": "0", "priceCurrency": "EUR"}
        ]}
        </script>
        """
        let items = try WebMarkup.parse(html: Data(html.utf8), url: url("https://shop.example/deals")).items()
        XCTAssertEqual(items.map(\.kind), ["Article", "Product", "Product", "Offer"], "Ed is the article's author, not an item")
        XCTAssertEqual(items.map(\.title), ["Our deals", "Kettle", "Toaster", "Free delivery"])
        XCTAssertEqual(items[1].url, url("https://shop.example/p/kettle"))
        XCTAssertEqual(items[0].attributes["author"], "Ed Itor")
        XCTAssertEqual(items[3].attributes["price"], "0")
    }

    func testSameEntityInJSONLDAndMicrodataGivesOneItem() throws {
        let html = """
        <script type="application/ld+json">{"@type": "Product", "name": "Lamp", "url": "https://a.example/lamp"}</script>
        <div itemscope itemtype="https://schema.org/Product">
          <span itemprop="name">Lamp</span><a itemprop="url" href="/lamp">link</a>
        </div>
        """
        let page = try WebMarkup.parse(html: Data(html.utf8), url: url("https://a.example/lamp"))
        XCTAssertEqual(page.structuredData.map(\.source), [.jsonLD, .microdata])
        XCTAssertEqual(page.items().count, 1)
    }

    func testLengthsAndCountsAreClamped() throws {
        let keywords = (0..<500).map { "kw\($0)" }.joined(separator: ",")
        let products = (0..<80).map { #"{"@type": "Product", "name": "P\#($0)"}"# }.joined(separator: ",")
        let html = """
        <script type="application/ld+json">
        {"@type": "Recipe", "name": "\(String(repeating: "long title ", count: 200))",
         "description": "\(String(repeating: "d", count: 10_000))", "keywords": "\(keywords)",
         "recipeYield": "\(String(repeating: "y", count: 5_000))"}
        </script>
        <script type="application/ld+json">[\(products)]</script>
        """
        let items = try WebMarkup.parse(html: Data(html.utf8), url: url("https://a.example/")).items()
        XCTAssertEqual(items.count, WebItem.maxItemsPerPage)
        let recipe = try XCTUnwrap(items.first)
        XCTAssertEqual(recipe.title.count, WebItem.maxTitleLength)
        XCTAssertEqual(recipe.description?.count, WebItem.maxDescriptionLength)
        XCTAssertEqual(recipe.keywords.count, WebItem.maxKeywords)
        XCTAssertEqual(recipe.keywords.first, "kw0")
        XCTAssertEqual(recipe.attributes["recipeYield"]?.count, WebItem.maxAttributeLength)
    }

    func testDeepLinksNeverRunCode() throws {
        let html = """
        <meta name="apple-itunes-app" content="app-id=12ab, app-argument=myapp://x">
        <meta property="al:ios:url" content="javascript:alert(1)">
        <meta property="al:android:url" content="data:text/html,hi">
        <meta property="al:web:url" content="https://a.example/web">
        <title>T</title>
        """
        let page = try WebMarkup.parse(html: Data(html.utf8), url: url("https://a.example/"))
        XCTAssertNil(page.smartAppBanner, "an app-id that is not digits is no banner")
        XCTAssertEqual(page.items().first?.deepLink, url("https://a.example/web"))
    }

    func testItemsRoundTripThroughJSON() throws {
        let items = try Fixture.page("event.html", url: "https://tickets.example/e/1").items()
        let decoded = try JSONDecoder().decode([WebItem].self, from: JSONEncoder().encode(items))
        XCTAssertEqual(decoded, items)
    }
}
