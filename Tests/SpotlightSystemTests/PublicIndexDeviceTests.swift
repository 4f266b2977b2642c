import Foundation
import XCTest
@testable import OpenCoreSpotlight
import SpotlightEngine
@testable import SpotlightPublicClient
@testable import SpotlightSystem

/// The device's side of the public index: opt-in, the durable report queue `becomeCurrent()` writes, `spotlight
/// public send`, and public results merged into `spotlight` below the user's own.
final class PublicIndexDeviceTests: PublicIndexTestCase {
    static let app = "com.example.recipes"

    func publicActivity(_ page: String = "https://recipes.example.com/pancakes", title: String = "Fluffy Pancakes") -> NSUserActivity {
        let activity = NSUserActivity(activityType: "com.example.recipes.view")
        activity.title = title
        activity.webpageURL = URL(string: page)
        activity.userInfo = ["recipe": "pancakes", "shoppingList": ["eggs", "milk"], "account": "anna@private.example"]
        activity.requiredUserInfoKeys = ["recipe"]
        activity.keywords = ["breakfast"]
        activity.isEligibleForSearch = true
        activity.isEligibleForPublicIndexing = true
        return activity
    }

    func queued() throws -> [PublicReportQueue.Report] {
        let url = PublicReportQueue.url(app: Self.app, root: home)
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        return try PublicReportQueue(app: Self.app, root: home).pending()
    }

    func testReportsAreQueuedOnlyWhenTurnedOnAndSentByTheSpotlightCommand() async throws {
        OpenSpotlight.configure(applicationIdentifier: Self.app)
        let database = try freshDatabase()
        let service = try startService(database: database)

        // Off by default: nothing is queued.
        let activity = publicActivity()
        activity.becomeCurrent()
        XCTAssertEqual(try queued(), [])
        XCTAssertTrue(try succeed("spotlight", ["public", "status"]).stdout.contains("is off"))

        try succeed("spotlight", ["public", "set-server", service.base])
        XCTAssertTrue(try succeed("spotlight", ["public", "status"]).stdout.contains("is on: \(service.base)"))
        activity.becomeCurrent()
        activity.becomeCurrent()
        let reports = try queued()
        XCTAssertEqual(reports.count, 1, "one report per activity and day")
        let report = try XCTUnwrap(reports.first)
        XCTAssertEqual(report.webpageURL, "https://recipes.example.com/pancakes")
        XCTAssertEqual(report.requiredUserInfoKeys, ["recipe"])
        XCTAssertEqual(report.userInfoJSON, #"{"recipe":{"string":"pancakes"}}"#, "only the required keys are queued")
        XCTAssertEqual(report.keywords, ["breakfast"])
        XCTAssertEqual(report.installID.count, 32)
        // An activity that is not public, or has no page, is never reported.
        let privateActivity = publicActivity("https://recipes.example.com/mine", title: "Mine")
        privateActivity.isEligibleForPublicIndexing = false
        privateActivity.becomeCurrent()
        let pageless = publicActivity(title: "No page")
        pageless.webpageURL = nil
        pageless.becomeCurrent()
        XCTAssertEqual(try queued().count, 1)

        let sent = try succeed("spotlight", ["public", "send"])
        XCTAssertTrue(sent.stdout.contains("sent 1, refused 0, still queued 0"), sent.stdout + sent.stderr)
        XCTAssertEqual(try queued(), [], "acknowledged reports leave the queue")
        XCTAssertEqual(try Self.psql(database, "select title || ' ' || user_info::text from activity_variant"),
                       #"Fluffy Pancakes {"recipe": {"string": "pancakes"}}"#)

        // The service away: the report stays queued for the next send.
        service.stop()
        publicActivity("https://recipes.example.com/waffles", title: "Waffles").becomeCurrent()
        let unavailable = try run("spotlight", ["public", "send"])
        XCTAssertEqual(unavailable.status, 75, unavailable.stdout + unavailable.stderr)
        XCTAssertTrue(unavailable.stderr.contains("unavailable"), unavailable.stderr)
        XCTAssertEqual(try queued().map(\.title), ["Waffles"])

        // Off: the setting and every unsent report are removed, and nothing more is queued.
        try succeed("spotlight", ["public", "off"])
        XCTAssertEqual(try queued(), [])
        publicActivity("https://recipes.example.com/crepes", title: "Crêpes").becomeCurrent()
        XCTAssertEqual(try queued(), [])
        XCTAssertNil(PublicIndexSettings.load(root: home))
    }

    func testSpotlightShowsPublicResultsBelowTheUsersOwnAndOpensThemInTheAppOrTheBrowser() async throws {
        let service = try startService(database: try freshDatabase(), ["--threshold", "2"])
        // Public: an activity of Colleagues (installed below) and a page of an app that is not installed.
        for install in Self.installs(2) {
            var team = Self.report(install: install, type: "com.example.colleagues.view-team",
                                   page: "https://colleagues.example.com/teams/engineering",
                                   title: "Engineering team directory", userInfo: ["team": ["string": "engineering"]],
                                   required: ["team"], keywords: [], app: "com.example.colleagues")
            team["description"] = "Who works in engineering"
            let first = try await service.request("POST", "/v1/reports", json: team)
            XCTAssertEqual(first.status, 202, first.text)
            let blog = Self.report(install: install, type: "com.example.blog.read", page: "https://blog.example.net/engineering",
                                   title: "Engineering blog", userInfo: [:], required: [], keywords: [], app: "com.example.blog")
            let second = try await service.request("POST", "/v1/reports", json: blog)
            XCTAssertEqual(second.status, 202, second.text)
        }
        try succeed("colleagues", ["setting", "all-records"])

        // Off: only the user's own results.
        let local = try search("engineering")
        XCTAssertNil(local.web)
        XCTAssertEqual(local.results.count, 6)

        try succeed("spotlight", ["public", "set-server", service.base])
        let outcome = try search("engineering")
        XCTAssertEqual(outcome.results.count, 6, "the user's own results are unchanged")
        let web = try XCTUnwrap(outcome.web)
        XCTAssertEqual(Set(web.map(\.title)), ["Engineering team directory", "Engineering blog"])
        XCTAssertEqual(web.map(\.number), [7, 8], "numbered after the user's own")
        let text = try succeed("spotlight", ["engineering"]).stdout
        let fromTheWeb = try XCTUnwrap(text.range(of: "From the web"), text)
        XCTAssertLessThan(try XCTUnwrap(text.range(of: "Brent Reid")).lowerBound, fromTheWeb.lowerBound, text)
        XCTAssertTrue(text.contains("https://blog.example.net/engineering"), text)

        // The installed app continues its own public activity, with the required userInfo.
        let team = try XCTUnwrap(web.first { $0.title == "Engineering team directory" })
        let inApp = try succeed("spotlight", ["open", String(team.number), "--dry-run"]).stdout
        XCTAssertTrue(inApp.contains("colleagues"), inApp)
        let payloadLine = try XCTUnwrap(inApp.split(separator: "\n").last)
        let payload = try JSONDecoder().decode(ContinuationPayload.self, from: Data(payloadLine.utf8))
        XCTAssertEqual(payload.applicationIdentifier, "com.example.colleagues")
        XCTAssertEqual(payload.activityType, "com.example.colleagues.view-team")
        XCTAssertEqual(payload.userInfo, ["team": .string("engineering")])
        XCTAssertEqual(payload.webpageURL, "https://colleagues.example.com/teams/engineering")

        // An app that is not installed: the page opens in the browser.
        let blog = try XCTUnwrap(web.first { $0.title == "Engineering blog" })
        try succeed("spotlight", ["open", String(blog.number)])
        XCTAssertEqual(try String(contentsOf: openerLog, encoding: .utf8), "https://blog.example.net/engineering\n")

        // The public index away: the search still answers with the user's own results, and says why.
        service.stop()
        let offline = try succeed("spotlight", ["engineering"])
        XCTAssertTrue(offline.stdout.contains("Brent Reid"), offline.stdout)
        XCTAssertFalse(offline.stdout.contains("From the web"), offline.stdout)
        XCTAssertTrue(offline.stderr.contains("the public index did not answer"), offline.stderr)
    }

    func testAWebPageOnAnAppsAssociatedDomainOpensInThatApp() throws {
        let app = SpotlightApp(applicationIdentifier: "com.example.shop", displayName: "Shop", exec: "/usr/bin/shop %u",
                               associatedDomains: ["applinks:shop.example.com", "*.shop.example.org"])
        XCTAssertTrue(app.claims(URL(string: "https://shop.example.com/p/1")!))
        XCTAssertTrue(app.claims(URL(string: "https://eu.shop.example.org/p/1")!))
        XCTAssertFalse(app.claims(URL(string: "https://shop.example.org/p/1")!), "*. matches subdomains only")
        XCTAssertFalse(app.claims(URL(string: "https://evilshop.example.com/")!))
        let entry = app.desktopEntry()
        XCTAssertEqual(SpotlightApp(desktopEntry: entry)?.associatedDomains, app.associatedDomains, "round trip")

        let result = WebResult(number: 3, source: "web", kind: "Product", title: "Trail Runner 3",
                               url: "https://shop.example.com/p/1", applicationIdentifier: "com.example.shop")
        guard case .app(let chosen, let payload) = result.opening(apps: [app]) else {
            return XCTFail("a claimed page opens in the app")
        }
        XCTAssertEqual(chosen.applicationIdentifier, "com.example.shop")
        XCTAssertEqual(payload.activityType, NSUserActivityTypeBrowsingWeb)
        XCTAssertEqual(payload.webpageURL, "https://shop.example.com/p/1")
        XCTAssertEqual(result.opening(apps: []), .browser("https://shop.example.com/p/1"))
    }
}
