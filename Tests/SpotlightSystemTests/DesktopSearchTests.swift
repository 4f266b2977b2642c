import Foundation
import XCTest
@testable import SpotlightDesktop
@testable import SpotlightSystem

/// What the desktop surfaces share, in process: result identifiers, icons, subtitles, the token check.
final class DesktopSearchTests: SystemTestCase {
    private func result(app: String = "com.example.notes", identifier: String, thumbnail: String? = nil) -> SystemSearch.Result {
        var result = SystemSearch.Result(number: 1, applicationIdentifier: app, appDisplayName: "Notes", kind: "item",
                                         identifier: identifier, indexName: "_default", title: "A note", actions: [], score: 1)
        result.thumbnailPath = thumbnail
        return result
    }

    func testIdentifiersRoundTripWhateverTheItemIdentifierHolds() throws {
        for identifier in ["employee-1", "a/b/c", "100%", "activity:123", "naïve café ✓", "tab\there", "?&=#", " "] {
            let id = DesktopSearch.identifier(of: result(identifier: identifier))
            XCTAssertEqual(id.filter { $0 == "/" }.count, 1, id)
            let parsed = try DesktopSearch.parse(id)
            XCTAssertEqual(parsed.app, "com.example.notes")
            XCTAssertEqual(parsed.item, identifier)
        }
        XCTAssertEqual(DesktopSearch.identifier(of: result(identifier: "employee-1")), "com.example.notes/employee-1",
                       "plain identifiers stay readable")
        for bad in ["", "no-slash", "/x", "x/", "a/b/c", "a/%zz"] {
            XCTAssertThrowsError(try DesktopSearch.parse(bad), bad)
        }
    }

    func testTheIconIsTheThumbnailWhenItIsAFileElseTheAppsIcon() throws {
        let search = DesktopSearch(root: home)
        let thumbnail = temporary.appendingPathComponent("thumb.png")
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: thumbnail)
        XCTAssertEqual(search.icon(for: result(identifier: "x", thumbnail: thumbnail.path)), thumbnail.path)
        XCTAssertEqual(search.icon(for: result(identifier: "x", thumbnail: thumbnail.path), thumbnails: false), "system-search")
        XCTAssertEqual(search.icon(for: result(identifier: "x", thumbnail: "/nonexistent.png")), "system-search")
        _ = try SpotlightApp.register(applicationIdentifier: "com.example.notes", displayName: "Notes", icon: "accessories-text-editor")
        XCTAssertEqual(search.icon(for: result(identifier: "x")), "accessories-text-editor")
    }

    func testSubtitleIsTheAppAndTheDescription() {
        var r = result(identifier: "x")
        XCTAssertEqual(DesktopSearch.subtitle(of: r), "Notes")
        r.description = "Groceries for Sunday"
        XCTAssertEqual(DesktopSearch.subtitle(of: r), "Notes · Groceries for Sunday")
    }

    func testTokensAreRandomAndComparedExactly() {
        let a = SearchPage.randomToken(), b = SearchPage.randomToken()
        XCTAssertEqual(a.count, 64)
        XCTAssertNotEqual(a, b)
        XCTAssertTrue(SearchPage.constantTimeEqual(Array(a.utf8), Array(a.utf8)))
        XCTAssertFalse(SearchPage.constantTimeEqual(Array(a.utf8), Array(b.utf8)))
        XCTAssertFalse(SearchPage.constantTimeEqual(Array(a.utf8), Array(a.utf8.dropLast())))
        XCTAssertFalse(SearchPage.constantTimeEqual([], Array(a.utf8)))
    }
}
