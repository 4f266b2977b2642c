import Dispatch
import Foundation
import XCTest

@testable import SpotlightWebMarkup

/// Pages built to break a parser: deep, huge, hostile JSON-LD, random bytes, and many threads at once. Each must
/// come back quickly with a result or a clear error, never a crash or a hang.
final class HostileInputTests: XCTestCase {
    private let site = URL(string: "https://hostile.example/")

    func testHundredThousandNestedDivs() throws {
        var html = "<html><head><title>Deep</title>"
        html += #"<script type="application/ld+json">{"@type": "Product", "name": "Before the depth"}</script></head><body>"#
        html += String(repeating: "<div>", count: 100_000)
        html += "<p>leaf</p>" + String(repeating: "</div>", count: 100_000) + "</body></html>"
        let start = Date()
        let page = try WebMarkup.parse(html: Data(html.utf8), url: XCTUnwrap(site))
        // libxml2 (without HTML_PARSE_HUGE) stops at 256 levels: what came before is kept.
        XCTAssertEqual(page.title, "Deep")
        XCTAssertEqual(page.items().map(\.title), ["Before the depth"])
        XCTAssertLessThan(Date().timeIntervalSince(start), 10)
    }

    func testDeeplyNestedMicrodataAndItemrefCycles() throws {
        var html = #"<div itemscope itemtype="https://schema.org/Product"><span itemprop="name">Outer</span>"#
        html += String(repeating: #"<div itemprop="isRelatedTo" itemscope itemtype="https://schema.org/Product">"#, count: 200)
        html += "</div>"
        // Two items that itemref each other, and one that itemrefs itself.
        html += #"<div id="a" itemscope itemtype="https://schema.org/Thing" itemref="b"><span itemprop="name">A</span></div>"#
        html += #"<div id="b" itemscope itemtype="https://schema.org/Thing" itemref="a b"><span itemprop="name">B</span></div>"#
        let page = try WebMarkup.parse(html: Data(html.utf8), url: XCTUnwrap(site))
        XCTAssertEqual(page.structuredData.first?.properties["name"], [.text("Outer")])
        var depth = 0
        var item = page.structuredData.first
        while case .item(let nested)? = item?.properties["isRelatedTo"]?.first {
            depth += 1
            item = nested
        }
        XCTAssertEqual(depth, Limits.itemDepth - 1, "nesting is cut at the item depth limit")
        XCTAssertEqual(page.structuredData.count, 3)
    }

    func testPagesOverTheLimitAreRefused() throws {
        let limit = WebMarkup.defaultLimit
        let huge = Data("<html><body>".utf8) + Data(repeating: UInt8(ascii: "x"), count: limit)
        XCTAssertThrowsError(try WebMarkup.parse(html: huge, url: XCTUnwrap(site))) {
            XCTAssertEqual($0 as? WebMarkupError, .tooLarge(huge.count))
        }
        XCTAssertThrowsError(try WebMarkup.parse(html: Data("<title>small</title>".utf8), url: XCTUnwrap(site), limit: 10)) {
            XCTAssertEqual($0 as? WebMarkupError, .tooLarge(20))
        }
    }

    func testFourMebibytePageWithThousandsOfItems() throws {
        var html = "<html><head><title>Catalogue</title></head><body>"
        var count = 0
        while html.utf8.count < 4 << 20 {
            html += """
            <div class="card" itemscope itemtype="https://schema.org/Product"><h2 itemprop="name">Product \(count)</h2>\
            <img itemprop="image" src="/img/\(count).jpg"><p itemprop="description">\(String(repeating: "Lorem ipsum dolor sit amet. ", count: 20))</p>\
            <div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><meta itemprop="price" content="\(count).99">\
            <meta itemprop="priceCurrency" content="EUR"></div><a href="/p/\(count)">details</a></div>

            """
            count += 1
        }
        html += "</body></html>"
        let data = Data(html.utf8)
        XCTAssertGreaterThan(data.count, 4 << 20)
        let start = Date()
        let page = try WebMarkup.parse(html: data, url: XCTUnwrap(site))
        XCTAssertEqual(page.structuredData.count, Limits.entitiesPerPage)
        XCTAssertEqual(page.links.count, min(count, WebMarkup.linksPerPage))
        let items = page.items()
        XCTAssertEqual(items.count, WebItem.maxItemsPerPage)
        XCTAssertEqual(items.last?.attributes["price"], "49.99")
        XCTAssertLessThan(Date().timeIntervalSince(start), 60)
    }

    func testJSONLDNestedTenThousandLevels() throws {
        let deep = String(repeating: #"{"@type": "Thing", "x": ["#, count: 10_000) + String(repeating: "]}", count: 10_000)
        let html = """
        <script type="application/ld+json">\(deep)</script>
        <script type="application/ld+json">{"@type": "Product", "name": "Shallow"}</script>
        """
        let page = try WebMarkup.parse(html: Data(html.utf8), url: XCTUnwrap(site))
        XCTAssertEqual(page.structuredData.map(\.types), [["Product"]], "the deep block is refused, the other one kept")
        XCTAssertThrowsError(try JSONReader.parse(deep))
    }

    func testJSONLDReferencesCannotExplode() throws {
        // Each node refers to the next one 50 times: followed naively, 50^20 values.
        let nodes = (0..<20).map { index in
            let references = Array(repeating: ##"{"@id": "#n\##(index + 1)"}"##, count: 50).joined(separator: ",")
            return ##"{"@id": "#n\##(index)", "@type": "Thing", "name": "n\##(index)", "related": [\##(references)]}"##
        }
        let html = #"<script type="application/ld+json">{"@graph": [\#(nodes.joined(separator: ","))]}</script>"#
        let start = Date()
        let page = try WebMarkup.parse(html: Data(html.utf8), url: XCTUnwrap(site))
        XCTAssertEqual(page.structuredData.count, 20)
        XCTAssertLessThan(Date().timeIntervalSince(start), 30)
        // A reference cycle ends in the id as text.
        let cycle = ##"<script type="application/ld+json">[{"@id": "#a", "@type": "Person", "name": "A", "knows": {"@id": "#a"}}]</script>"##
        let person = try XCTUnwrap(WebMarkup.parse(html: Data(cycle.utf8), url: XCTUnwrap(site)).structuredData.first)
        XCTAssertEqual(person.properties["knows"], [.text("#a")])
    }

    func testRandomBytesAndMutatedPagesNeverCrash() throws {
        var generator = SeededGenerator(seed: 0x5EED)
        let fixtures = try ["product.html", "recipe.html", "person.html", "malformed.html"].map { try Fixture.data($0) }
        let pieces = ["<", ">", "</", "<div", "<a href=", "<script type=application/ld+json>", "</script>", "{", "}", "[",
                      "\"@type\":", "\"@id\":", "itemscope ", "itemprop=name ", "itemref=x ", "id=x ", "<meta charset=",
                      "&", "&#", "&#x110000;", "<!--", "-->", "<![CDATA[", "\u{0}", "\u{FFFD}", "é", "\\u", "\"", "'", " "]
        for round in 0..<400 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = Array(fixtures[round / 2 % fixtures.count])
                for _ in 0..<Int.random(in: 1...40, using: &generator) {
                    let index = Int.random(in: 0..<bytes.count, using: &generator)
                    bytes[index] = UInt8.random(in: 0...255, using: &generator)
                }
            } else {
                bytes = []
                for _ in 0..<Int.random(in: 1...300, using: &generator) {
                    if Bool.random(using: &generator) {
                        bytes += Array(pieces[Int.random(in: 0..<pieces.count, using: &generator)].utf8)
                    } else {
                        bytes.append(UInt8.random(in: 0...255, using: &generator))
                    }
                }
            }
            do {
                let page = try WebMarkup.parse(html: Data(bytes), url: XCTUnwrap(site))
                _ = page.items()
            } catch let error as WebMarkupError {
                switch error {
                case .notHTML, .unparsable: break
                default: XCTFail("round \(round): unexpected \(error)")
                }
            }
        }
    }

    func testParsingFromManyThreadsGivesTheSameResults() throws {
        let names = ["product.html", "recipe.html", "article.html", "person.html", "restaurant.html", "event.html",
                     "opengraph.html", "malformed.html", "latin1.html", "shift-jis.html"]
        let inputs = try names.map { try Fixture.data($0) }
        let pageURL = try XCTUnwrap(site)
        let expected = try inputs.map { try WebMarkup.parse(html: $0, url: pageURL).items() }
        let results = Results(count: 80)
        DispatchQueue.concurrentPerform(iterations: 80) { index in
            let items = try? WebMarkup.parse(html: inputs[index % inputs.count], url: pageURL).items()
            results.set(index, items)
        }
        for index in 0..<80 {
            XCTAssertEqual(results.get(index), expected[index % inputs.count], names[index % names.count])
        }
    }
}

/// Results written from several threads.
private final class Results: @unchecked Sendable {
    // @unchecked Sendable: every access holds `lock`.
    private let lock = NSLock()
    private var values: [[WebItem]?]

    init(count: Int) {
        values = Array(repeating: nil, count: count)
    }

    func set(_ index: Int, _ value: [WebItem]?) {
        lock.withLock { values[index] = value }
    }

    func get(_ index: Int) -> [WebItem]? {
        lock.withLock { values[index] }
    }
}

/// A deterministic generator (SplitMix64), so that a failing round can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
