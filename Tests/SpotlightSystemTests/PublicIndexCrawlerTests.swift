import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
import XCTest

/// Web markup end to end: a real web site (Hummingbird on loopback) registered, verified and crawled by the real
/// `spotlight-public`, whose items are then searched.
final class PublicIndexCrawlerTests: PublicIndexTestCase {
    /// A small site: what it serves, and every path asked of it, in order.
    final class Site: Sendable {
        let requested = Mutex<[String]>([])
        let token = Mutex<String?>(nil)
        let port = Mutex<Int>(0)

        var origin: String { "http://127.0.0.1:\(port.withLock { $0 })" }

        static let product = """
            <!doctype html><html lang="en"><head><title>Trail Runner 3 | Shop</title>
            <meta name="apple-itunes-app" content="app-id=1234567, app-argument=shopapp://product/trail-runner-3">
            <meta property="og:title" content="Trail Runner 3">
            <script type="application/ld+json">
            {"@context": "https://schema.org", "@type": "Product", "name": "Trail Runner 3",
             "description": "A light trail running shoe with a rock plate.",
             "offers": {"@type": "Offer", "price": "129.00", "priceCurrency": "EUR"},
             "aggregateRating": {"@type": "AggregateRating", "ratingValue": "4.6", "reviewCount": "87"}}
            </script></head>
            <body><h1>Trail Runner 3</h1><a href="/recipes/">Recipes</a> <a href="/private/secret">Secret</a>
            <a href="/hidden">Hidden</a> <a href="/nofollow">No follow</a> <a href="/loop-a">Loop</a>
            <a href="/away">Away</a> <a href="/huge">Huge</a> <a href="/file.pdf">PDF</a> <a href="/missing">Missing</a>
            </body></html>
            """

        func page(_ path: String) -> (HTTPResponse.Status, [String: String], String) {
            let html = ["Content-Type": "text/html; charset=utf-8"]
            switch path {
            case "/.well-known/openspotlight":
                guard let token = token.withLock({ $0 }) else { return (.notFound, [:], "") }
                return (.ok, ["Content-Type": "text/plain"], token + "\n")
            case "/robots.txt":
                return (.ok, ["Content-Type": "text/plain"], """
                    User-agent: *
                    Disallow: /private/
                    Sitemap: \(origin)/sitemap.xml
                    """)
            case "/sitemap.xml":
                return (.ok, ["Content-Type": "application/xml"], """
                    <?xml version="1.0" encoding="UTF-8"?>
                    <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
                      <url><loc>\(origin)/recipes/pancakes</loc></url>
                      <url><loc>\(origin)/articles/harbour</loc></url>
                      <url><loc>https://elsewhere.example/not-ours</loc></url>
                    </urlset>
                    """)
            case "/":
                return (.ok, html, Self.product)
            case "/recipes/pancakes":
                return (.ok, html, """
                    <html><head><title>Pancakes</title><script type="application/ld+json">
                    {"@context": "https://schema.org", "@graph": [
                      {"@type": "Recipe", "name": "Buttermilk Pancakes", "recipeCategory": "Breakfast",
                       "description": "Fluffy pancakes in twenty minutes.", "totalTime": "PT20M"},
                      {"@type": "BreadcrumbList", "itemListElement": []}]}
                    </script></head><body>Pancakes</body></html>
                    """)
            case "/articles/harbour":
                return (.ok, html, """
                    <html><head><title>Harbour | News</title>
                    <meta property="og:type" content="article"><meta property="og:title" content="The harbour reopens">
                    <meta property="og:description" content="Ferries run again from Monday.">
                    <meta property="al:ios:url" content="newsapp://story/harbour">
                    <meta property="al:ios:app_name" content="Harbour News">
                    </head><body>News</body></html>
                    """)
            case "/hidden":
                return (.ok, html, """
                    <html><head><meta name="robots" content="noindex"><title>Hidden Gem Page</title></head>
                    <body><a href="/linked-from-hidden">more</a></body></html>
                    """)
            case "/nofollow":
                return (.ok, html, """
                    <html><head><meta name="robots" content="nofollow"><title>Followless Page</title></head>
                    <body><a href="/never-followed">never</a></body></html>
                    """)
            case "/linked-from-hidden":
                return (.ok, html, "<html><head><title>Linked From Hidden</title></head><body></body></html>")
            case "/loop-a": return (.found, ["Location": "/loop-b"], "")
            case "/loop-b": return (.movedPermanently, ["Location": "/loop-a"], "")
            case "/away": return (.found, ["Location": "https://elsewhere.example/"], "")
            case "/huge":
                return (.ok, html, "<html><head><title>Huge Page</title></head><body>"
                        + String(repeating: "<p>filler text</p>", count: 400_000) + "</body></html>")
            case "/file.pdf": return (.ok, ["Content-Type": "application/pdf"], "%PDF-1.4")
            default: return (.notFound, html, "<html><title>Not found</title></html>")
            }
        }

        func start() async throws {
            let router = Router()
            let serve: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
                self.requested.withLock { $0.append(request.uri.path) }
                let (status, headers, body) = self.page(request.uri.path)
                var fields = HTTPFields()
                for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
                return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: body)))
            }
            router.get("/", use: serve)
            router.get("**", use: serve)
            let ready = AsyncStream<Int>.makeStream()
            let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                                  onServerRunning: { channel in ready.continuation.yield(channel.localAddress?.port ?? 0) })
            Task { try await app.run() }
            for await port in ready.stream {
                self.port.withLock { $0 = port }
                break
            }
        }
    }

    func testASiteIsVerifiedThenCrawledPolitelyAndItsMarkupIsSearchable() async throws {
        let site = Site()
        try await site.start()
        let service = try startService(database: try freshDatabase())

        let registered = try await service.request("POST", "/v1/sites", json: [
            "url": site.origin + "/some/page", "applicationIdentifier": "com.example.shop", "appName": "Shop"])
        XCTAssertEqual(registered.status, 201, registered.text)
        let id = try XCTUnwrap(registered.json["id"] as? Int)
        let token = try XCTUnwrap(registered.json["verificationToken"] as? String)
        XCTAssertEqual(registered.json["verificationURL"] as? String, site.origin + "/.well-known/openspotlight")
        XCTAssertEqual(registered.json["verified"] as? Bool, false)

        // Without the token served, verification fails and nothing is crawled.
        let refused = try await service.request("POST", "/v1/sites/\(id)/verify")
        XCTAssertEqual(refused.status, 422, refused.text)
        XCTAssertEqual(refused.errorCode, "verification-failed")
        site.token.withLock { $0 = "someone-else's token" }
        let wrong = try await service.request("POST", "/v1/sites/\(id)/verify")
        XCTAssertEqual(wrong.status, 422, wrong.text)
        try await Task.sleep(for: .milliseconds(300))
        XCTAssertEqual(site.requested.withLock { $0 }.filter { $0 != "/.well-known/openspotlight" }, [],
                       "an unverified site is not crawled")

        site.token.withLock { $0 = token }
        let verified = try await service.request("POST", "/v1/sites/\(id)/verify")
        XCTAssertEqual(verified.status, 200, verified.text)
        XCTAssertEqual(verified.json["verified"] as? Bool, true)
        let again = try await service.request("POST", "/v1/sites", json: ["url": site.origin])
        XCTAssertEqual(again.status, 409, "a verified site cannot be taken over: \(again.text)")

        // Wait until nothing is queued.
        var status: [String: Any] = [:]
        for _ in 0..<300 {
            status = try await service.request("GET", "/v1/sites/\(id)").json
            let pages = status["pages"] as? [String: Int] ?? [:]
            if pages["queued", default: 0] == 0, pages["done", default: 0] >= 4 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let pages = try XCTUnwrap(status["pages"] as? [String: Int])
        XCTAssertEqual(pages["queued", default: 0], 0, "\(status)")

        let requested = site.requested.withLock { $0 }
        let firstPage = try XCTUnwrap(requested.firstIndex(where: { $0 != "/.well-known/openspotlight" }))
        XCTAssertEqual(requested[firstPage], "/robots.txt", "robots.txt is read before anything else: \(requested)")
        XCTAssertFalse(requested.contains("/private/secret"), "robots.txt's Disallow is honoured")
        XCTAssertFalse(requested.contains("/never-followed"), "nofollow is honoured")
        XCTAssertEqual(requested.filter { $0 == "/loop-a" }.count, 1, "a redirect loop ends: \(requested)")
        XCTAssertEqual(requested.filter { $0 == "/loop-b" }.count, 1)
        for path in ["/", "/sitemap.xml", "/recipes/pancakes", "/articles/harbour", "/hidden", "/nofollow", "/huge"] {
            XCTAssertEqual(requested.filter { $0 == path }.count, 1, "\(path) fetched once: \(requested)")
        }

        // The product, with its offer, rating and the Smart App Banner's deep link.
        let product = try await service.request("GET", "/v1/search?q=trail%20run")
        let item = try XCTUnwrap((product.json["results"] as? [[String: Any]])?.first, product.text)
        XCTAssertEqual(item["title"] as? String, "Trail Runner 3")
        XCTAssertEqual(item["kind"] as? String, "Product")
        XCTAssertEqual(item["source"] as? String, "web")
        XCTAssertEqual(item["deepLink"] as? String, "shopapp://product/trail-runner-3")
        XCTAssertEqual(item["appStoreID"] as? String, "1234567")
        XCTAssertEqual(item["applicationIdentifier"] as? String, "com.example.shop")
        let attributes = try XCTUnwrap(item["attributes"] as? [String: String])
        XCTAssertEqual(attributes["price"], "129.00")
        XCTAssertEqual(attributes["priceCurrency"], "EUR")
        XCTAssertEqual(attributes["ratingValue"], "4.6")

        let recipe = try await service.titles("buttermilk")
        XCTAssertEqual(recipe, ["Buttermilk Pancakes"], "a sitemap's page, JSON-LD @graph")
        let article = try await service.request("GET", "/v1/search?q=harbour")
        let story = try XCTUnwrap((article.json["results"] as? [[String: Any]])?.first, article.text)
        XCTAssertEqual(story["title"] as? String, "The harbour reopens")
        XCTAssertEqual(story["deepLink"] as? String, "newsapp://story/harbour")
        let hidden = try await service.titles("hidden gem")
        XCTAssertEqual(hidden, [], "noindex pages are not indexed")
        let huge = try await service.titles("huge page")
        XCTAssertEqual(huge, [], "pages over the size limit are not read")
        let followless = try await service.titles("followless")
        XCTAssertEqual(followless, ["Followless Page"], "nofollow pages are indexed, their links not followed")
    }
}
