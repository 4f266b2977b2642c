import Foundation
import XCTest

@testable import SpotlightWebMarkup

/// What `WebMarkup.parse` reads from real-world-shaped pages (Fixtures/), one markup kind per page.
final class WebPageTests: XCTestCase {
    func testProductPageHeadBannerJSONLDAndLinks() throws {
        let page = try Fixture.page("product.html", url: "https://www.summit.example/products/trail-runner-2?utm=x")
        XCTAssertEqual(page.title, "Trail Runner 2 – Men's Trail Running Shoe | Summit Outfitters")
        XCTAssertEqual(page.description, "Lightweight trail running shoe with a grippy Vibram outsole.")
        XCTAssertEqual(page.language, "en-US")
        XCTAssertEqual(page.canonicalURL, url("https://www.summit.example/products/trail-runner-2"))
        XCTAssertEqual(page.openGraph["og:image"], ["https://cdn.summit.example/img/tr2-side.jpg",
                                                   "https://cdn.summit.example/img/tr2-top.jpg"])
        XCTAssertEqual(page.openGraph["product:price:amount"], ["129.95"])
        XCTAssertEqual(page.robots, RobotsDirectives(noindex: false, nofollow: false))
        // The comma inside the app argument stays part of it; &amp; is decoded in the affiliate data.
        XCTAssertEqual(page.smartAppBanner, SmartAppBanner(appID: "1234567890",
                                                           appArgument: url("summit://product/TR2-BLK?ref=web,banner"),
                                                           affiliateData: "ct=web&pt=99"))

        XCTAssertEqual(page.structuredData.count, 1)
        let product = try XCTUnwrap(page.structuredData.first)
        XCTAssertEqual(product.types, ["Product"])
        XCTAssertEqual(product.source, .jsonLD)
        XCTAssertEqual(product.properties["name"], [.text("Trail Runner 2")])
        XCTAssertEqual(product.properties["image"], [.text("/img/products/tr2-1x1.jpg"), .text("/img/products/tr2-4x3.jpg")])
        guard case .item(let offer)? = product.properties["offers"]?.first else { return XCTFail("no nested Offer") }
        XCTAssertEqual(offer.types, ["Offer"])
        XCTAssertEqual(offer.properties["price"], [.text("129.95")], "numbers keep the text the page wrote")
        XCTAssertEqual(offer.properties["availability"], [.text("https://schema.org/InStock")])
        guard case .item(let rating)? = product.properties["aggregateRating"]?.first else { return XCTFail("no rating") }
        XCTAssertEqual(rating.properties["reviewCount"], [.text("89")])

        // Fragments removed, duplicates dropped, rel=nofollow, mailto: and javascript: left out, relative resolved.
        XCTAssertEqual(page.links, [url("https://www.summit.example/"), url("https://www.summit.example/collections/running"),
                                    url("https://www.summit.example/products/reviews?page=2")])
    }

    func testRecipeGraphNodesAndResolvedReference() throws {
        let page = try Fixture.page("recipe.html", url: "https://bake.example/recipes/easy-banana-bread/")
        XCTAssertEqual(page.structuredData.map(\.types), [["WebPage"], ["BreadcrumbList"], ["WebSite"], ["Person"], ["Recipe"]])
        let recipe = try XCTUnwrap(page.structuredData.last)
        XCTAssertEqual(recipe.id, "https://bake.example/recipes/easy-banana-bread/#recipe")
        XCTAssertEqual(recipe.properties["recipeYield"], [.text("10"), .text("1 loaf")])
        // "author": {"@id": …} is resolved to the Person node of the same graph.
        guard case .item(let author)? = recipe.properties["author"]?.first else { return XCTFail("author not resolved") }
        XCTAssertEqual(author.types, ["Person"])
        XCTAssertEqual(author.properties["name"], [.text("Jane Baker")])
        // The WebPage's isPartOf reference is resolved too, and the breadcrumb keeps its list.
        guard case .item(let breadcrumb)? = page.structuredData[0].properties["breadcrumb"]?.first else { return XCTFail() }
        XCTAssertEqual(breadcrumb.properties["itemListElement"]?.count, 3)
    }

    func testArticleOpenGraphAppLinksAndTwitter() throws {
        let page = try Fixture.page("article.html", url: "https://news.example/2025/05/12/bike-lanes?src=rss")
        XCTAssertEqual(page.language, "de")
        XCTAssertEqual(page.openGraph["article:tag"], ["Cycling", "City Council", "Transport"])
        XCTAssertEqual(page.openGraph["article:published_time"], ["2025-05-12T08:30:00Z"])
        XCTAssertEqual(page.openGraph["og:type"], ["article"])
        XCTAssertEqual(page.appLinks["al:ios:url"], ["dailyexample://article/2025-05-12-bike-lanes"])
        XCTAssertEqual(page.appLinks["al:ios:app_store_id"], ["987654321"])
        XCTAssertEqual(page.appLinks["al:android:package"], ["com.example.daily"])
        XCTAssertEqual(page.appLinks["al:web:url"], ["https://news.example/2025/05/12/bike-lanes"])
        XCTAssertEqual(page.twitterCard, ["twitter:card": "summary_large_image", "twitter:site": "@dailyexample"])
        XCTAssertNil(page.smartAppBanner)
        XCTAssertEqual(page.structuredData.first?.types, ["NewsArticle"])
        XCTAssertEqual(page.structuredData.first?.properties["author"]?.count, 2)
    }

    func testPersonMicrodata() throws {
        let page = try Fixture.page("person.html", url: "https://northwind.example/team/ada")
        XCTAssertEqual(page.structuredData.count, 1, "nested itemscopes are values, not top-level items")
        let person = try XCTUnwrap(page.structuredData.first)
        XCTAssertEqual(person.source, .microdata)
        XCTAssertEqual(person.types, ["Person"])
        XCTAssertEqual(person.id, "https://northwind.example/team/ada#person")
        XCTAssertEqual(person.properties["name"], [.text("Dr. Ada Moreno")], "text content, whitespace collapsed")
        XCTAssertEqual(person.properties["image"], [.text("https://northwind.example/team/ada.jpg")], "img src, resolved")
        XCTAssertEqual(person.properties["knowsAbout"], [.text("Bayesian inference"), .text("robotics")])
        guard case .item(let address)? = person.properties["address"]?.first else { return XCTFail("no address") }
        XCTAssertEqual(address.types, ["PostalAddress"])
        XCTAssertEqual(address.properties["addressCountry"], [.text("PT")], "meta content")
        guard case .item(let employer)? = person.properties["worksFor"]?.first else { return XCTFail("no worksFor") }
        XCTAssertEqual(employer.properties["name"], [.text("Northwind Labs")])
        XCTAssertEqual(employer.properties["url"], [.text("https://northwind.example/")], "a href, resolved")
        XCTAssertNil(person.properties["url"]?.first(where: { $0 == .text("https://northwind.example/") }),
                     "the employer's url belongs to the employer")
    }

    func testRestaurantMicrodataWithItemref() throws {
        let page = try Fixture.page("restaurant.html", url: "https://www.greatfood.example/sunnyvale")
        let restaurant = try XCTUnwrap(page.structuredData.first)
        XCTAssertEqual(restaurant.types, ["Restaurant"], "http://schema.org/ prefix removed")
        XCTAssertEqual(restaurant.properties["openingHours"], [.text("Mo-Sa 11:00-14:30")], "itemref'd <time datetime>")
        XCTAssertEqual(restaurant.properties["image"], [.text("https://cdn.greatfood.example/front.jpg")], "protocol-relative src")
        XCTAssertEqual(restaurant.properties["servesCuisine"], [.text("Middle Eastern"), .text("Mediterranean")])
        guard case .item(let geo)? = restaurant.properties["geo"]?.first else { return XCTFail("no geo") }
        XCTAssertEqual(geo.properties["latitude"], [.text("37.4225")])
        guard case .item(let rating)? = restaurant.properties["aggregateRating"]?.first else { return XCTFail("no rating") }
        XCTAssertEqual(rating.properties["ratingValue"], [.text("4")])
        XCTAssertEqual(page.smartAppBanner, SmartAppBanner(appID: "555000111"))
    }

    func testEventTopLevelArray() throws {
        let page = try Fixture.page("event.html", url: "https://tickets.example/events/lumineers-brixton")
        let event = try XCTUnwrap(page.structuredData.first)
        XCTAssertEqual(event.types, ["MusicEvent"])
        XCTAssertEqual(event.properties["offers"]?.count, 2)
        guard case .item(let venue)? = event.properties["location"]?.first else { return XCTFail("no location") }
        XCTAssertEqual(venue.types, ["MusicVenue"])
    }

    func testOpenGraphAndTwitterOnly() throws {
        let page = try Fixture.page("opengraph.html", url: "https://movies.example/title/tt0117500/?ref=home")
        XCTAssertEqual(page.title, "Ignored because og:title wins", "whitespace collapsed")
        XCTAssertEqual(page.openGraph["og:title"], ["The Rock (1996)"])
        XCTAssertEqual(page.openGraph["og:locale"], ["en_US"], "name=\"og:…\" is read like property=")
        XCTAssertEqual(page.openGraph["video:release_date"], ["1996-06-07"])
        XCTAssertEqual(page.openGraph["fb:app_id"], ["302184056577324"])
        XCTAssertEqual(page.twitterCard["twitter:title"], "The Rock (1996) on Twitter")
        XCTAssertEqual(page.twitterCard["twitter:description"], "Twitter description", "property=\"twitter:…\" counts")
        XCTAssertTrue(page.structuredData.isEmpty)
    }

    func testMalformedMarkupIsRecovered() throws {
        let page = try Fixture.page("malformed.html", url: "https://boutique.example/fr/")
        XCTAssertEqual(page.title, "Boutique & Café sale")
        XCTAssertEqual(page.language, "fr")
        XCTAssertEqual(page.description, "Unquoted & broken")
        XCTAssertEqual(page.links, [url("https://boutique.example/produits/bol?id=7&color=blue"),
                                    url("https://boutique.example/produits/tasse"),
                                    url("https://boutique.example/after-end")])
        // The invalid block is skipped; the valid one (in an HTML comment, with a raw newline and trailing commas)
        // still counts.
        XCTAssertEqual(page.structuredData.count, 1)
        XCTAssertEqual(page.structuredData.first?.properties["name"], [.text("Café au lait bowl")])
        XCTAssertEqual(page.structuredData.first?.properties["description"],
                       [.text("Handmade stoneware bowl,\nwith a raw newline inside the string")])
    }

    func testBaseHrefResolvesEveryRelativeURL() throws {
        let page = try Fixture.page("base-href.html", url: "https://www.example.com/mirror/page")
        XCTAssertEqual(page.url, url("https://www.example.com/mirror/page"))
        XCTAssertEqual(page.baseURL, url("https://static.example/docs/v2/"))
        XCTAssertEqual(page.canonicalURL, url("https://static.example/docs/v2/index.html"))
        XCTAssertEqual(page.links, [
            url("https://static.example/docs/v2/guide.html"), url("https://static.example/docs/v1/guide.html"),
            url("https://static.example/root.html"), url("https://static.example/docs/v2/?page=2"),
            url("https://static.example/docs/v2/"), url("https://other.example/x"),
        ], "ftp: dropped, fragments removed")
        XCTAssertEqual(page.items().first?.imageURL, url("https://static.example/docs/v2/img/cover.png"))
    }

    func testRobotsMetaTags() throws {
        let noindex = try Fixture.page("noindex.html", url: "https://shop.example/order/123")
        XCTAssertEqual(noindex.robots, RobotsDirectives(noindex: true, nofollow: false), "names and values are case-insensitive")
        XCTAssertEqual(noindex.links, [url("https://shop.example/account")], "follow: links kept")
        XCTAssertEqual(noindex.structuredData.count, 1, "the markup is still read")
        XCTAssertEqual(noindex.items(), [], "but gives no item")

        let nofollow = try Fixture.page("nofollow.html", url: "https://forum.example/t/1")
        XCTAssertEqual(nofollow.robots, RobotsDirectives(noindex: false, nofollow: true), "our own bot's meta tag counts")
        XCTAssertEqual(nofollow.links, [])
        XCTAssertEqual(nofollow.items().map(\.title), ["User comments"])

        let none = try WebMarkup.parse(html: Data(#"<meta name="robots" content="none"><a href="/x">x</a>"#.utf8),
                                       url: url("https://a.example/"))
        XCTAssertEqual(none.robots, RobotsDirectives(noindex: true, nofollow: true))
        XCTAssertEqual(none.links, [])
    }

    func testContentTypesAndBinaryDataAreRefused() throws {
        let page = url("https://a.example/file")
        let html = Data("<title>x</title>".utf8)
        XCTAssertThrowsError(try WebMarkup.parse(html: html, url: page, contentType: "application/pdf")) {
            XCTAssertEqual($0 as? WebMarkupError, .notHTML("Content-Type application/pdf"))
        }
        XCTAssertThrowsError(try WebMarkup.parse(html: html, url: page, contentType: "image/png; charset=binary")) {
            XCTAssertEqual($0 as? WebMarkupError, .notHTML("Content-Type image/png"))
        }
        XCTAssertNoThrow(try WebMarkup.parse(html: html, url: page, contentType: "application/xhtml+xml"))
        XCTAssertThrowsError(try WebMarkup.parse(html: Data("%PDF-1.7\n%âãÏÓ\n1 0 obj".utf8), url: page)) {
            XCTAssertEqual($0 as? WebMarkupError, .notHTML("PDF"))
        }
        XCTAssertThrowsError(try WebMarkup.parse(html: Data([0x1F, 0x8B, 0x08, 0x00, 0x3C]), url: page)) {
            XCTAssertEqual($0 as? WebMarkupError, .notHTML("gzip data"))
        }
        XCTAssertThrowsError(try WebMarkup.parse(html: Data([0x3C, 0x00, 0x01, 0x02]), url: page)) {
            XCTAssertEqual($0 as? WebMarkupError, .notHTML("binary data (NUL bytes)"))
        }
        XCTAssertThrowsError(try WebMarkup.parse(html: Data(" \n\t".utf8), url: page)) {
            XCTAssertEqual($0 as? WebMarkupError, .unparsable("empty document"))
        }
    }
}
