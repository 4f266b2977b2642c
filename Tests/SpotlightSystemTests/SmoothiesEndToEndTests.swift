import Foundation
import XCTest
import OpenCoreSpotlight
@testable import SpotlightSystem

/// The Smoothies app as real processes: a named index with client state, lastUsedDate updates, CSUserQuery with
/// engagement, deep links.
final class SmoothiesEndToEndTests: SystemTestCase {
    func testClientStateSkipsReindexingOnTheNextLaunch() throws {
        let first = try succeed("smoothies", ["list"])
        XCTAssertTrue(first.stderr.contains("indexed 16 smoothies"), first.stderr)
        let second = try succeed("smoothies", ["list"])
        XCTAssertEqual(second.stderr, "", "an index that is up to date is not worth a word")
        let help = try succeed("smoothies", ["--help"])
        XCTAssertTrue(help.stdout.contains("usage: smoothies"), help.stdout)
        XCTAssertEqual(help.stderr, "")
        let wrong = try run("smoothies", ["frobnicate"])
        XCTAssertEqual(wrong.status, 2)
        XCTAssertEqual(wrong.stdout, "", "usage of a wrong command goes to standard error")
        XCTAssertTrue(wrong.stderr.contains("unknown command \"frobnicate\""), wrong.stderr)
        XCTAssertEqual(AppInventory.apps(root: home).first { $0.applicationIdentifier == "com.example.smoothies" }?
            .indexes.map(\.name), ["smoothies"], "a named index")
    }

    func testEngagementMovesAResultUp() throws {
        func order() throws -> [String] {
            try succeed("smoothies", ["search", "berry"]).stdout.split(separator: "\n")
                .filter { $0.first?.isNumber == true }.map { String($0.split(separator: "(")[1].split(separator: ")")[0]) }
        }
        XCTAssertEqual(try order().prefix(2), ["berry-bliss", "berry-blue"])
        try succeed("smoothies", ["search", "berry", "--engage", "berry-blue"])
        XCTAssertEqual(try order().prefix(2), ["berry-blue", "berry-bliss"])
        // The system search ranks with the app's engagement too.
        XCTAssertEqual(try search("berry").results.first?.identifier, "berry-blue")
    }

    func testOrderingUpdatesLastUsedDate() throws {
        try succeed("smoothies", ["order", "Kiwi Cutie"])
        let recent = try succeed("smoothies", ["search"]).stdout.split(separator: "\n").first
        XCTAssertEqual(recent.map(String.init), "1. Kiwi Cutie (kiwi-cutie) — Kiwi, apple and spinach.")
        struct Match: Decodable { var identifier: String; var title: String? }
        let matches = try spotlightJSON([Match].self, ["query", "lastUsedDate > $time.today(-1)", "--app", "smoothies"])
        XCTAssertEqual(matches.map(\.identifier), ["kiwi-cutie"])
        XCTAssertEqual(matches.first?.title, "Kiwi Cutie", "isUpdate kept the other attributes")
    }

    func testDeepLinkByIdentifier() throws {
        try succeed("smoothies", ["list"])
        let opened = try succeed("spotlight", ["open", "smoothies", "berry-blue"])
        XCTAssertTrue(opened.stdout.contains("Ingredients: blueberry, banana, almond milk"), opened.stdout)
        let searched = try succeed("spotlight", ["open", "smoothies", "--search", "kiwi"])
        XCTAssertTrue(searched.stdout.contains("Kiwi Cutie"), searched.stdout)
    }
}
