import Foundation
import XCTest

@testable import SpotlightWebMarkup

/// Loads fixture pages and parses them, for the tests.
enum Fixture {
    /// The bytes of a fixture file in `Fixtures/`.
    static func data(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> Data {
        guard let directory = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            XCTFail("the Fixtures resource folder is missing from the test bundle", file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
        return try Data(contentsOf: directory.appendingPathComponent(name))
    }

    /// A fixture parsed as if fetched from `url`.
    static func page(_ name: String, url: String, contentType: String? = "text/html",
                     file: StaticString = #filePath, line: UInt = #line) throws -> WebPage {
        let pageURL = try XCTUnwrap(URL(string: url), file: file, line: line)
        return try WebMarkup.parse(html: data(name, file: file, line: line), url: pageURL, contentType: contentType)
    }
}

/// A URL from a literal in a test.
func url(_ string: String, file: StaticString = #filePath, line: UInt = #line) -> URL {
    guard let url = URL(string: string) else {
        XCTFail("bad URL literal \(string)", file: file, line: line)
        return URL(fileURLWithPath: "/")
    }
    return url
}
