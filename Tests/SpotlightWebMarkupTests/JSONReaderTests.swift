import XCTest

@testable import SpotlightWebMarkup

/// The lenient, bounded JSON reader behind JSON-LD.
final class JSONReaderTests: XCTestCase {
    func testValuesAndLeniencies() throws {
        let table: [(text: String, value: JSONValue)] = [
            (#"{"a": 1.50, "b": [true, false, null], "c": "x"}"#,
             .object([JSONMember(key: "a", value: .number("1.50")),
                      JSONMember(key: "b", value: .array([.bool(true), .bool(false), .null])),
                      JSONMember(key: "c", value: .string("x"))])),
            (#"<!-- {"a": "b"} -->"#, .object([JSONMember(key: "a", value: .string("b"))])),
            ("//<![CDATA[\n[1, 2,]\n//]]>", .array([.number("1"), .number("2")])),
            (#"{"a": 1,};"#, .object([JSONMember(key: "a", value: .number("1"))])),
            ("\"line\nbreak\ttab\"", .string("line\nbreak\ttab")),
            (#""\u00e9\ud83d\ude00 \/ \"q\" \ud800x""#, .string("é😀 / \"q\" \u{FFFD}x")),
            (#""nul\u0000""#, .string("nul\u{FFFD}")),
        ]
        for row in table {
            XCTAssertEqual(try JSONReader.parse(row.text), row.value, row.text)
        }
    }

    func testMalformedAndTooDeepInputIsRefused() {
        let nested = String(repeating: "[", count: JSONReader.maxDepth + 1) + String(repeating: "]", count: JSONReader.maxDepth + 1)
        let allowed = String(repeating: "[", count: JSONReader.maxDepth) + String(repeating: "]", count: JSONReader.maxDepth)
        XCTAssertNoThrow(try JSONReader.parse(allowed))
        for text in ["", "{", #"{"a" 1}"#, #"{"a": tru}"#, #""open"#, "[1 2]", "{} {}", nested, #""\u12""#] {
            XCTAssertThrowsError(try JSONReader.parse(text), text.prefix(40).debugDescription)
        }
    }
}
