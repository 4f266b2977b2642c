import Foundation
import XCTest

@testable import SpotlightWebMarkup

/// sitemap.xml and sitemap index files, including hostile XML.
final class SitemapTests: XCTestCase {
    func testURLSet() throws {
        let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
          <url><loc>https://shop.example/</loc><lastmod>2025-01-01</lastmod><priority>1.0</priority></url>
          <url>
            <loc>
              https://shop.example/p/42?color=red&amp;size=10
            </loc>
            <image:image><image:loc>https://cdn.shop.example/42.jpg</image:loc></image:image>
          </url>
          <url><loc><![CDATA[https://shop.example/p/43]]></loc></url>
          <url><loc>/relative/page</loc></url>
          <url><loc>ftp://shop.example/file</loc></url>
          <url><loc>javascript:alert(1)</loc></url>
          <url><loc/></url>
        </urlset>
        """
        let sitemap = try Sitemap.parse(Data(xml.utf8))
        XCTAssertEqual(sitemap.pages, [url("https://shop.example/"), url("https://shop.example/p/42?color=red&size=10"),
                                       url("https://shop.example/p/43")], "image:loc is no page; non-http(s) dropped")
        XCTAssertEqual(sitemap.sitemaps, [])
    }

    func testSitemapIndex() throws {
        let xml = """
        <sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
          <sitemap><loc>https://shop.example/sitemap-products-1.xml</loc><lastmod>2025-02-01T10:00:00+00:00</lastmod></sitemap>
          <sitemap><loc>https://shop.example/sitemap-products-2.xml.gz</loc></sitemap>
          <sitemap><loc>file:///etc/passwd</loc></sitemap>
        </sitemapindex>
        """
        let sitemap = try Sitemap.parse(Data(xml.utf8))
        XCTAssertEqual(sitemap.sitemaps, [url("https://shop.example/sitemap-products-1.xml"),
                                          url("https://shop.example/sitemap-products-2.xml.gz")])
        XCTAssertEqual(sitemap.pages, [])
    }

    func testExternalEntitiesAreNeverRead() throws {
        // A real local file: if libxml2 substituted the entity, its content would show up in a URL.
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("sitemap-secret-\(UUID().uuidString).txt")
        try Data("leaked-secret".utf8).write(to: secret)
        defer { try? FileManager.default.removeItem(at: secret) }
        let xml = """
        <?xml version="1.0"?>
        <!DOCTYPE urlset [
          <!ENTITY xxe SYSTEM "\(secret.absoluteString)">
          <!ENTITY internal "evil.example">
        ]>
        <urlset>
          <url><loc>https://shop.example/&xxe;</loc></url>
          <url><loc>https://&internal;/page</loc></url>
          <url><loc>https://shop.example/ok</loc></url>
        </urlset>
        """
        let sitemap = try Sitemap.parse(Data(xml.utf8))
        XCTAssertFalse(sitemap.pages.contains { $0.absoluteString.contains("leaked-secret") })
        XCTAssertFalse(sitemap.pages.contains { $0.absoluteString.contains("evil.example") })
        XCTAssertEqual(sitemap.pages.last, url("https://shop.example/ok"))
        XCTAssertTrue(sitemap.pages.contains(url("https://shop.example/")), "the entity reference is dropped, not expanded")
    }

    func testBillionLaughsStaysSmall() throws {
        var entities = #"<!ENTITY lol0 "lollollollollollollollollollol">"#
        for level in 1...9 {
            entities += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">"
        }
        let xml = "<?xml version=\"1.0\"?><!DOCTYPE urlset [\(entities)]><urlset><url><loc>https://a.example/&lol9;</loc></url></urlset>"
        let start = Date()
        let result = Result { try Sitemap.parse(Data(xml.utf8)) }
        XCTAssertLessThan(Date().timeIntervalSince(start), 10)
        if case .success(let sitemap) = result {
            XCTAssertLessThan(sitemap.pages.first?.absoluteString.count ?? 0, 100, "nothing was expanded")
        }
    }

    func testMalformedAndForeignDocumentsThrow() {
        let cases: [(xml: String, error: WebMarkupError)] = [
            ("<urlset><url><loc>https://a.example/</url></urlset>", .unparsable("")),
            ("<urlset><url><loc>https://a.example/</loc></url>", .unparsable("")),
            ("<!DOCTYPE html><html><head><meta charset=utf-8><title>404</title></head></html>", .unparsable("")),
            ("just text", .unparsable("")),
            ("", .unparsable("empty document")),
            (#"<rss version="2.0"><channel><item><link>https://a.example/</link></item></channel></rss>"#, .notSitemap("rss")),
        ]
        for row in cases {
            XCTAssertThrowsError(try Sitemap.parse(Data(row.xml.utf8)), row.xml) { error in
                switch (error as? WebMarkupError, row.error) {
                case (.unparsable(let message)?, .unparsable(let expected)):
                    XCTAssertFalse(message.isEmpty)
                    if !expected.isEmpty { XCTAssertEqual(message, expected) }
                case (let actual, let expected):
                    XCTAssertEqual(actual, expected, row.xml)
                }
            }
        }
        XCTAssertThrowsError(try Sitemap.parse(Data([0x1F, 0x8B, 0x08, 0x00]))) {
            XCTAssertEqual($0 as? WebMarkupError, .unparsable("gzip-compressed sitemap: decompress it first"))
        }
        XCTAssertThrowsError(try Sitemap.parse(Data(count: Sitemap.maxSize + 1))) {
            XCTAssertEqual($0 as? WebMarkupError, .tooLarge(Sitemap.maxSize + 1))
        }
    }

    func testLimitIsHonoured() throws {
        let entries = (0..<1_000).map { "<url><loc>https://a.example/p/\($0)</loc></url>" }.joined()
        let data = Data("<urlset>\(entries)</urlset>".utf8)
        XCTAssertEqual(try Sitemap.parse(data).pages.count, 1_000)
        let limited = try Sitemap.parse(data, limit: 10)
        XCTAssertEqual(limited.pages, (0..<10).map { url("https://a.example/p/\($0)") })
        XCTAssertEqual(try Sitemap.parse(data, limit: 0).pages, [])
    }
}
