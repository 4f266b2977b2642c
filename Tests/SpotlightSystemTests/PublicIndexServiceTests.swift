import Foundation
import XCTest

/// `spotlight-public` against a real PostgreSQL: the crowd threshold, what is (never) stored, bad input, rate
/// limits, and surviving a database restart.
final class PublicIndexServiceTests: PublicIndexTestCase {
    func testAnActivityBecomesSearchableAtTheKthDistinctInstallAndAnInstallCountsOnce() async throws {
        let service = try startService(database: try freshDatabase())
        let page = "https://recipes.example.com/pancakes"
        let installs = Self.installs(5)
        for install in installs.prefix(4) {
            let answer = try await service.request("POST", "/v1/reports",
                                                   json: Self.report(install: install, page: page, title: "Fluffy Pancakes"))
            XCTAssertEqual(answer.status, 202, answer.text)
            XCTAssertEqual(answer.json["status"] as? String, "recorded")
        }
        // The same install again, the same day: a duplicate, still four installs.
        let again = try await service.request("POST", "/v1/reports",
                                              json: Self.report(install: installs[0], page: page, title: "Fluffy Pancakes"))
        XCTAssertEqual(again.status, 202)
        XCTAssertEqual(again.json["status"] as? String, "duplicate")
        let belowThreshold = try await service.titles("pancakes")
        XCTAssertEqual(belowThreshold, [], "K−1 installs: nothing of it is searchable")
        let fluffy = try await service.titles("fluffy")
        XCTAssertEqual(fluffy, [])

        // A fifth install with different content (a personal title) does not make anything public either: only a
        // variant that K installs sent is published.
        let personal = try await service.request("POST", "/v1/reports", json: Self.report(
            install: "someone-else-0123456789abcdef", page: page, title: "Pancakes for Anna's birthday"))
        XCTAssertEqual(personal.status, 202)
        let withPersonal = try await service.titles("pancakes")
        XCTAssertEqual(withPersonal, [])

        let fifth = try await service.request("POST", "/v1/reports",
                                              json: Self.report(install: installs[4], page: page, title: "Fluffy Pancakes"))
        XCTAssertEqual(fifth.status, 202)
        let search = try await service.request("GET", "/v1/search?q=pancak")
        let results = try XCTUnwrap(search.json["results"] as? [[String: Any]])
        XCTAssertEqual(results.map { $0["title"] as? String }, ["Fluffy Pancakes"], "K installs: searchable, prefix too")
        let result = try XCTUnwrap(results.first)
        XCTAssertEqual(result["url"] as? String, page)
        XCTAssertEqual(result["source"] as? String, "activity")
        XCTAssertEqual(result["activityType"] as? String, "com.example.recipes.view")
        XCTAssertEqual(result["applicationIdentifier"] as? String, "com.example.recipes")
        XCTAssertEqual(result["engagement"] as? Int, 6, "engagement counts every distinct install of the activity")
        XCTAssertEqual((result["userInfo"] as? [String: Any])?.keys.sorted(), ["recipe"])
        // Case, accents and keywords are folded; a typo still finds it through trigrams.
        let folded = try await service.titles("FLÜFFY")
        XCTAssertEqual(folded, ["Fluffy Pancakes"])
        let keyword = try await service.titles("breakfast")
        XCTAssertEqual(keyword, ["Fluffy Pancakes"])
        let typo = try await service.titles("pancakse")
        XCTAssertEqual(typo, ["Fluffy Pancakes"])
        let personalTitle = try await service.titles("anna")
        XCTAssertEqual(personalTitle, [], "one install's content is never returned")
    }

    func testTheThresholdIsConfigurable() async throws {
        let service = try startService(database: try freshDatabase(), ["--threshold", "2"])
        let page = "https://news.example.org/story"
        for (index, install) in Self.installs(2).enumerated() {
            let answer = try await service.request("POST", "/v1/reports", json: Self.report(
                install: install, type: "org.example.news.read", page: page, title: "Harbour reopens"))
            XCTAssertEqual(answer.status, 202)
            let titles = try await service.titles("harbour")
            XCTAssertEqual(titles, index == 0 ? [] : ["Harbour reopens"])
        }
    }

    func testUserInfoOutsideTheRequiredKeysAndTheRawInstallIdentifierAreNeverStored() async throws {
        let database = try freshDatabase()
        let service = try startService(database: database)
        let install = "raw-install-identifier-that-must-not-be-stored"
        var body = Self.report(install: install, page: "https://recipes.example.com/waffles", title: "Waffles")
        body["userInfo"] = ["recipe": ["string": "waffles"], "email": ["string": "anna@private.example"],
                            "sessionTokenKey": ["string": "secret-session-token-42"]]
        let answer = try await service.request("POST", "/v1/reports", json: body)
        XCTAssertEqual(answer.status, 202, answer.text)
        XCTAssertEqual(answer.json["droppedUserInfoKeys"] as? [String], ["email", "sessionTokenKey"])

        XCTAssertEqual(try Self.psql(database, "select user_info::text from activity_variant"),
                       #"{"recipe": {"string": "waffles"}}"#)
        // Nowhere in the database: a full dump of every table.
        let dump = Process()
        dump.executableURL = URL(fileURLWithPath: "/usr/bin/pg_dump")
        dump.arguments = ["--data-only", database]
        let out = Pipe()
        dump.standardOutput = out
        try dump.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        dump.waitUntilExit()
        XCTAssertTrue(text.contains("waffles"), "the dump holds the report")
        for secret in ["anna@private.example", "secret-session-token-42", "sessionTokenKey", install] {
            XCTAssertFalse(text.contains(secret), "\(secret) was stored")
        }
        XCTAssertEqual(try Self.psql(database, "select length(install_hash) from activity_report"), "32",
                       "installs are stored as HMAC-SHA256 hashes")
    }

    func testBadInputGetsAClearJSONErrorAndNeverA500() async throws {
        let service = try startService(database: try freshDatabase())
        let good = Self.report(install: Self.installs(1)[0], page: "https://a.example/x", title: "A")
        func with(_ key: String, _ value: Any?) -> [String: Any] {
            var body = good
            body[key] = value
            return body
        }
        let cases: [(String, String, [String: Any]?, Data?, String, Int, String)] = [
            ("not JSON", "/v1/reports", nil, Data("{not json".utf8), "application/json", 400, "invalid-json"),
            ("missing title", "/v1/reports", with("title", nil), nil, "application/json", 400, "invalid-json"),
            ("title of the wrong type", "/v1/reports", with("title", 42), nil, "application/json", 400, "invalid-json"),
            ("empty title", "/v1/reports", with("title", "   "), nil, "application/json", 422, "invalid-field"),
            ("ftp page", "/v1/reports", with("webpageURL", "ftp://a.example/x"), nil, "application/json", 422, "invalid-field"),
            ("relative page", "/v1/reports", with("webpageURL", "/x"), nil, "application/json", 422, "invalid-field"),
            ("short install", "/v1/reports", with("installID", "abc"), nil, "application/json", 422, "invalid-field"),
            ("control characters", "/v1/reports", with("title", "a\u{0}b"), nil, "application/json", 422, "invalid-field"),
            ("a day outside the window", "/v1/reports", with("day", "2001-01-01"), nil, "application/json", 422, "invalid-field"),
            ("not a day", "/v1/reports", with("day", "yesterday"), nil, "application/json", 422, "invalid-field"),
            ("NUL in userInfo", "/v1/reports", with("userInfo", ["recipe": ["string": "a\u{0}b"]]), nil, "application/json", 422, "invalid-field"),
            ("userInfo not an object", "/v1/reports", with("userInfo", [1, 2]), nil, "application/json", 400, "invalid-json"),
            ("a long title", "/v1/reports", with("title", String(repeating: "x", count: 301)), nil, "application/json", 422, "invalid-field"),
            ("too many keywords", "/v1/reports", with("keywords", (0..<60).map { "k\($0)" }), nil, "application/json", 422, "invalid-field"),
            ("a huge body", "/v1/reports", nil, Data(repeating: 0x20, count: 200_000), "application/json", 413, "too-large"),
            ("form data", "/v1/reports", nil, Data("a=b".utf8), "application/x-www-form-urlencoded", 415, "unsupported-media-type"),
            ("site without URL", "/v1/sites", ["appName": "x"], nil, "application/json", 400, "invalid-json"),
            ("site with a file URL", "/v1/sites", ["url": "file:///etc/passwd"], nil, "application/json", 422, "invalid-field"),
        ]
        for (name, path, json, body, type, status, code) in cases {
            let answer = try await service.request("POST", path, json: json, body: body, contentType: type)
            XCTAssertEqual(answer.status, status, "\(name): \(answer.text)")
            XCTAssertEqual(answer.errorCode, code, "\(name): \(answer.text)")
            XCTAssertEqual(answer.headers["content-type"], "application/json; charset=utf-8", name)
        }
        for (path, status) in [("/v1/search", 400), ("/v1/search?q=a&limit=0", 400), ("/v1/search?q=a&limit=abc", 400),
                               ("/v1/search?q=a&offset=-1", 400), ("/v1/nothing", 404), ("/v1/sites/abc", 404),
                               ("/v1/sites/999999", 404)] {
            let answer = try await service.request("GET", path)
            XCTAssertEqual(answer.status, status, "\(path): \(answer.text)")
            XCTAssertNotNil(answer.errorCode, "\(path): \(answer.text)")
        }
        let verifyUnknown = try await service.request("POST", "/v1/sites/424242/verify")
        XCTAssertEqual(verifyUnknown.status, 404)
        // Odd queries are just queries.
        for query in ["%00", "%27%3B%20drop%20table%20public_item%3B--", "!!!", "a%3A*%20%26%20b", String(repeating: "z", count: 2_000),
                      "%F0%9F%8D%95", "%E2%80%8B"] {
            let answer = try await service.request("GET", "/v1/search?q=\(query)")
            XCTAssertEqual(answer.status, 200, "\(query.prefix(40)): \(answer.text)")
        }
        let health = try await service.request("GET", "/v1/health")
        XCTAssertEqual(health.json["database"] as? String, "ok")
    }

    func testReportsAreRateLimitedPerInstallAndRequestsPerAddress() async throws {
        let service = try startService(database: try freshDatabase(),
                                       ["--reports-per-install-per-hour", "3", "--requests-per-address-per-minute", "12"])
        let install = Self.installs(1)[0]
        for index in 0..<3 {
            let answer = try await service.request("POST", "/v1/reports", json: Self.report(
                install: install, page: "https://a.example/\(index)", title: "Page \(index)"))
            XCTAssertEqual(answer.status, 202, answer.text)
        }
        let limited = try await service.request("POST", "/v1/reports", json: Self.report(
            install: install, page: "https://a.example/3", title: "Page 3"))
        XCTAssertEqual(limited.status, 429, limited.text)
        XCTAssertEqual(limited.errorCode, "rate-limited")
        XCTAssertNotNil(limited.headers["retry-after"].flatMap(Int.init))
        let other = try await service.request("POST", "/v1/reports", json: Self.report(
            install: Self.installs(2)[1], page: "https://a.example/3", title: "Page 3"))
        XCTAssertEqual(other.status, 202, "another install is not limited")

        // 5 requests so far from this address; the 13th in the minute is refused, whatever it asks.
        var statuses: [Int] = []
        for _ in 0..<8 { statuses.append(try await service.request("GET", "/v1/search?q=page").status) }
        XCTAssertEqual(statuses, [200, 200, 200, 200, 200, 200, 200, 429])
        let health = try await service.request("GET", "/v1/health")
        XCTAssertEqual(health.status, 200, "health checks are not limited")
    }

    /// SIGTERM while a worker's query waits on the server, here for a lock another session holds on the search
    /// refresh's table for a minute: PostgresNIO does not stop a query when its task is cancelled, so the service
    /// cancels its own queries on the server and exits within seconds, not when the lock is let go.
    func testSIGTERMWhileAQueryWaitsOnTheServerExitsWithinSeconds() throws {
        let database = try freshDatabase()
        let service = try startService(database: database, ["--no-crawler", "--search-refresh-interval", "4"])
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        holder.arguments = [database, "-v", "ON_ERROR_STOP=1", "-c",
                            "begin; lock table search_refresh in access exclusive mode; select pg_sleep(120); commit;"]
        holder.standardOutput = FileHandle.nullDevice
        holder.standardError = FileHandle.nullDevice
        try holder.run()
        defer { if holder.isRunning { holder.terminate(); holder.waitUntilExit() } }
        // The refresh (checked every second with this interval) waits for the lock.
        let waiting = """
            select count(*) from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'
            and query ilike '%search_refresh%'
            """
        let deadline = Date().addingTimeInterval(30)
        while try Self.psql(database, waiting) == "0" {
            guard Date() < deadline else { return XCTFail("the refresh never waited for the lock: \(service.lastLogLines())") }
            Thread.sleep(forTimeInterval: 0.1)
        }
        let started = Date()
        service.stop(within: 20)
        let seconds = Date().timeIntervalSince(started)
        XCTAssertLessThan(seconds, 10, "stopped after \(seconds) s: \(service.lastLogLines())")
        XCTAssertEqual(service.process.terminationReason, .exit)
        XCTAssertEqual(service.process.terminationStatus, 0, service.lastLogLines())
        XCTAssertTrue(holder.isRunning, "the other session keeps its lock and its transaction")
    }

    func testTheServiceSurvivesAPostgreSQLRestartWithoutLosingAnAcknowledgedReport() async throws {
        let database = try freshDatabase()
        let service = try startService(database: database, ["--reports-per-install-per-hour", "100000",
                                                            "--requests-per-address-per-minute", "100000"])
        let startedBefore = try Self.psql(database, "select pg_postmaster_start_time()")
        // Restart the cluster while reports are being sent.
        let script = Self.repository.appendingPathComponent("scripts/public-db.sh").path
        // On a Dispatch thread: it blocks until the restart is done.
        let restart = Task { () -> String in
            try await Task.sleep(for: .milliseconds(500))
            return await withCheckedContinuation { continuation in
                DispatchQueue.global().async { continuation.resume(returning: restartCluster(script: script)) }
            }
        }
        var acknowledged: [String] = [], statuses: [Int: Int] = [:]
        let start = Date()
        var index = 0
        while Date().timeIntervalSince(start) < 8 {
            let page = "https://restart.example/\(index)"
            let answer = try await service.request("POST", "/v1/reports", json: Self.report(
                install: Self.installs(1)[0], page: page, title: "Restart \(index)"))
            statuses[answer.status, default: 0] += 1
            XCTAssertTrue([202, 503].contains(answer.status), "\(answer.status): \(answer.text)")
            if answer.status == 503 { XCTAssertEqual(answer.errorCode, "database-unavailable", answer.text) }
            if answer.status == 202 { acknowledged.append(page) }
            index += 1
        }
        let restartProblem = try await restart.value
        XCTAssertEqual(restartProblem, "")
        XCTAssertNotEqual(try Self.psql(database, "select pg_postmaster_start_time()"), startedBefore, "PostgreSQL restarted")
        // After the restart the service answers again without being restarted itself.
        var recovered = false
        for _ in 0..<100 {
            if try await service.request("GET", "/v1/health").status == 200 { recovered = true; break }
            try await Task.sleep(for: .milliseconds(100))
        }
        XCTAssertTrue(recovered, "the service reconnected")
        let after = try await service.request("POST", "/v1/reports", json: Self.report(
            install: Self.installs(1)[0], page: "https://restart.example/after", title: "After"))
        XCTAssertEqual(after.status, 202, after.text)
        acknowledged.append("https://restart.example/after")

        let stored = Set(try Self.psql(database, "select webpage_url from activity").split(separator: "\n").map(String.init))
        XCTAssertEqual(Set(acknowledged).subtracting(stored), [], "every acknowledged report is stored")
        XCTAssertGreaterThan(acknowledged.count, 10, "\(statuses)")
    }
}

/// `scripts/public-db.sh restart`; "" when it worked, else why not. Through system(3): Foundation's Process misses
/// this child's exit here (its postmaster daemonizes), and the test would wait for ever.
private func restartCluster(script: String) -> String {
    let status = system("/bin/bash '\(script)' restart >/dev/null 2>&1")
    return status == 0 ? "" : "restart failed with status \(status)"
}
