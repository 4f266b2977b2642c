import Foundation
import XCTest

@testable import SpotlightWebMarkup

/// Which encoding a page is decoded from, and that what comes out is valid Unicode whatever came in.
final class CharsetTests: XCTestCase {
    private func title(_ data: Data, contentType: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> String? {
        try WebMarkup.parse(html: data, url: url("https://a.example/"), contentType: contentType).title
    }

    func testMetaCharsetLatin1IsReadAsWindows1252() throws {
        let page = try Fixture.page("latin1.html", url: "https://cafe.example/")
        // 0x80 is € in windows-1252, which WHATWG says ISO-8859-1 labels mean.
        XCTAssertEqual(page.title, "Café Müller € Speisekarte")
        XCTAssertEqual(page.description, "Gemütliches Café ’s Angebot")
    }

    func testContentTypeCharsetAloneAndItsPrecedence() throws {
        let bytes = try Fixture.data("latin1-no-meta.html")
        XCTAssertEqual(try title(bytes, contentType: "text/html; charset=ISO-8859-1"), "Café Müller € Speisekarte")
        XCTAssertEqual(try title(bytes, contentType: #"text/html;charset="windows-1252""#), "Café Müller € Speisekarte")
        // No label anywhere and not valid UTF-8: windows-1252.
        XCTAssertEqual(try title(bytes), "Café Müller € Speisekarte")
        // The header wins over <meta charset>: the Latin-1 bytes read as UTF-8 become U+FFFD.
        let declared = try Fixture.data("latin1.html")
        XCTAssertEqual(try title(declared, contentType: "text/html; charset=utf-8"), "Caf\u{FFFD} M\u{FFFD}ller \u{FFFD} Speisekarte")
        // An unknown label in the header is skipped: the page's own <meta> decides.
        XCTAssertEqual(try title(declared, contentType: "text/html; charset=x-unknown"), "Café Müller € Speisekarte")
    }

    func testInvalidUTF8IsReplaced() throws {
        let bytes = try Fixture.data("invalid-utf8.html")
        // A lone é byte, a truncated sequence and an overlong encoding each become U+FFFD; valid text around survives.
        XCTAssertEqual(try title(bytes), "Caf\u{FFFD} na\u{FFFD} \u{FFFD}\u{FFFD}ve € ok")
        XCTAssertEqual(try title(bytes, contentType: "text/html; charset=utf-8"), "Caf\u{FFFD} na\u{FFFD} \u{FFFD}\u{FFFD}ve € ok")
    }

    func testUnknownCharsetFallsBackToDetection() throws {
        XCTAssertEqual(try title(Fixture.data("unknown-charset.html")), "Café 中文 😀", "valid UTF-8 stays UTF-8")
        var latin = Data(#"<meta charset="x-klingon"><title>"#.utf8)
        latin += Data([0x4D, 0xFC, 0x6E, 0x63, 0x68, 0x65, 0x6E])  // München in Latin-1
        latin += Data("</title>".utf8)
        XCTAssertEqual(try title(latin), "München", "not UTF-8: windows-1252")
        // Names iconv would read as options are not passed to it.
        XCTAssertEqual(try title(latin, contentType: "text/html; charset=utf-8//IGNORE"), "München")
    }

    func testOtherEncodingsThroughIconv() throws {
        XCTAssertEqual(try title(Fixture.data("shift-jis.html")), "東京の天気", "Shift_JIS from <meta http-equiv>")
        let koi8: [UInt8] = [0xF0, 0xD2, 0xC9, 0xD7, 0xC5, 0xD4]  // Привет
        XCTAssertEqual(try title(Data("<title>".utf8) + Data(koi8) + Data("</title>".utf8), contentType: "text/html; charset=KOI8-R"),
                       "Привет")
        // Bytes invalid in the charset are replaced, and decoding goes on.
        let badSJIS = Data("<title>".utf8) + Data([0x93, 0x8C, 0x82, 0x20]) + Data("ok</title>".utf8)
        XCTAssertEqual(try title(badSJIS, contentType: "text/html; charset=shift_jis"), "東\u{FFFD} ok")
    }

    func testByteOrderMarksWin() throws {
        var utf16 = Data([0xFF, 0xFE])
        for unit in "<meta charset=\"iso-8859-1\"><title>Ünïcødé ✓</title>".utf16 {
            utf16.append(UInt8(unit & 0xFF))
            utf16.append(UInt8(unit >> 8))
        }
        XCTAssertEqual(try title(utf16, contentType: "text/html; charset=iso-8859-1"), "Ünïcødé ✓")
        let utf8 = Data([0xEF, 0xBB, 0xBF]) + Data("<title>Crème brûlée</title>".utf8)
        XCTAssertEqual(try title(utf8, contentType: "text/html; charset=windows-1252"), "Crème brûlée")
    }

    func testNULAndControlBytesDoNotCutThePage() throws {
        var bytes = Data("<html><head><title>Before</title></head><body>".utf8)
        bytes += Data(repeating: 0x20, count: 2_000)
        bytes += Data([0x00, 0x01, 0x1B, 0x7F])
        bytes += Data(#"<a href="/after">after</a></body></html>"#.utf8)
        let page = try WebMarkup.parse(html: bytes, url: url("https://a.example/"))
        XCTAssertEqual(page.title, "Before")
        XCTAssertEqual(page.links, [url("https://a.example/after")])
    }

    func testLabelsFollowWHATWG() {
        XCTAssertEqual(Charset(label: " ISO-8859-1 "), .windows1252)
        XCTAssertEqual(Charset(label: "US-ASCII"), .windows1252)
        XCTAssertEqual(Charset(label: "\"utf8\""), .utf8)
        XCTAssertEqual(Charset(label: "utf-16"), .utf16LittleEndian)
        XCTAssertEqual(Charset(label: "utf-16", fromMeta: true), .utf8, "a <meta> that says UTF-16 means UTF-8")
        XCTAssertEqual(Charset(label: "Shift_JIS"), .iconv("CP932"))
        XCTAssertNil(Charset(label: "x-klingon"))
        XCTAssertNil(Charset(label: ""))
    }
}
