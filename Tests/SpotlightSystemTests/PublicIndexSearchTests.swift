import Foundation
import XCTest

/// Public search's bounded paths against a real PostgreSQL: candidate lists for broad words give the same pages as
/// ranking every match, stay complete for items changed after the refresh, and typos are corrected through the
/// vocabulary.
final class PublicIndexSearchTests: PublicIndexTestCase {
    /// 1,500 items hold "alpha" and 1,200 "zeta" (more than a candidate list keeps), with engagement and lengths
    /// spread so that scores differ; 300 alpha items and every zeta item hold "gamma"; three long, unpopular items
    /// hold both alpha and zeta. All of them changed an hour ago, before any refresh.
    func loadItems(_ database: String) throws {
        try Self.psql(database, """
            insert into public_item (source, kind, url, title, description, keywords, engagement, updated_at)
            select 'web', 'Product', 'https://shop.example/' || n,
                   'alpha ' || (array['widget', 'gadget', 'gizmo', 'doohickey thing'])[1 + n % 4] || ' ' || n,
                   case when n % 5 = 0 then 'gamma edition with alphabet soup' else 'plain description number ' || n end,
                   case when n % 7 = 0 then array['alphanumeric'] else array[]::text[] end,
                   (n * 7919) % 600, now() - interval '1 hour'
            from generate_series(1, 1500) n;
            insert into public_item (source, kind, url, title, description, keywords, engagement, updated_at)
            select 'web', 'Article', 'https://news.example/' || n, 'zeta report ' || n, 'gamma ray notes', '{}', n % 3,
                   now() - interval '1 hour'
            from generate_series(1, 1200) n;
            insert into public_item (source, kind, url, title, description, keywords, engagement, updated_at)
            select 'web', 'Article', 'https://cross.example/' || n, 'alpha zeta crossover ' || n,
                   repeat('a long and winding description that goes on ', 20), '{}', 0, now() - interval '1 hour'
            from generate_series(1, 3) n;
            """)
    }

    func page(_ service: PublicServiceProcess, _ query: String, offset: Int = 0, limit: Int = 20) async throws
        -> (urls: [String], next: Int?, correction: String?) {
        let escaped = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? query
        let answer = try await service.request("GET", "/v1/search?q=\(escaped)&offset=\(offset)&limit=\(limit)")
        XCTAssertEqual(answer.status, 200, answer.text)
        let urls = (answer.json["results"] as? [[String: Any]] ?? []).compactMap { $0["url"] as? String }
        return (urls, answer.json["next"] as? Int, answer.json["correction"] as? String)
    }

    func refresh(_ database: String, broadPrefixItems: Int) throws -> String {
        try Self.capture(Self.productsDirectory.appendingPathComponent("spotlight-public").path,
                         ["refresh-search", "--database", database, "--broad-prefix-items", String(broadPrefixItems)])
    }

    func testBroadWordsRankTheirCandidateListsAndGiveTheSamePagesAsRankingEveryMatch() async throws {
        let database = try freshDatabase()
        let service = try startService(database: database, ["--no-crawler", "--no-search-refresh",
                                                            "--requests-per-address-per-minute", "100000"])
        try loadItems(database)
        // Exact through the lists: one broad word; a narrow word ("77": the items numbered 77 and 770…779) with a
        // broad one (a page of 10, as its 11 matches leave no room for typo results); broad words of which one has a
        // complete list ("gadget", "thing": 375 items each).
        let queries: [(String, Int, Int)] = [
            ("alpha", 0, 20), ("alpha", 20, 20), ("alpha", 1_000, 50), ("al", 0, 20), ("a", 40, 20), ("gamma", 0, 20),
            ("zeta", 100, 20), ("doohickey", 0, 20), ("alpha 77", 0, 10), ("alpha gadget", 0, 20),
            ("alpha gadget", 60, 20), ("doohickey thing", 20, 20)]
        // Before any refresh every search ranks every match.
        var exact: [String: ([String], Int?)] = [:]
        for (query, offset, limit) in queries {
            let answer = try await page(service, query, offset: offset, limit: limit)
            exact["\(query)@\(offset)"] = (answer.urls, answer.next)
        }
        XCTAssertEqual(exact["alpha@0"]?.0.count, 20)
        XCTAssertEqual(exact["alpha@1000"]?.0.count, 50, "the deepest, longest page the API serves")
        XCTAssertEqual(exact["alpha 77@0"]?.0.count, 10)

        let printed = try refresh(database, broadPrefixItems: 100)
        XCTAssertTrue(printed.contains("candidate lists ranked"), printed)
        let lists = try Self.psql(database, """
            select string_agg(prefix || ':' || cardinality(ids) || '/' || matches, ' ' order by prefix)
            from search_candidates where prefix in ('a', 'al', 'alpha', 'gamma', 'zeta')
            """)
        XCTAssertEqual(lists, "a:1051/1503 al:1051/1503 alpha:1051/1503 gamma:1051/1500 zeta:1051/1203",
                       "broad prefixes get lists cut at the deepest page the API serves")
        XCTAssertEqual(try Self.psql(database, "select count(*) from search_candidates where prefix = '77'"), "0",
                       "a narrow prefix has no list")

        for (query, offset, limit) in queries {
            let answer = try await page(service, query, offset: offset, limit: limit)
            XCTAssertEqual(answer.urls, exact["\(query)@\(offset)"]?.0, "\(query) at \(offset)")
            XCTAssertEqual(answer.next, exact["\(query)@\(offset)"]?.1, "\(query) at \(offset): next page")
        }

        // Two broad words with cut lists: the best matches among both words' best items, each a real match.
        let bounded = try await page(service, "zeta gamma")
        XCTAssertEqual(bounded.urls.count, 20)
        XCTAssertTrue(bounded.urls.allSatisfy { $0.hasPrefix("https://news.example/") })
        // Two broad words whose only common items are outside both lists: the lists bring too few, so every match
        // is ranked.
        let sparse = try await page(service, "alpha zeta")
        XCTAssertEqual(Set(sparse.urls), Set((1...3).map { "https://cross.example/\($0)" }))

        // Changed since the refresh: a new item that outranks every listed one comes first, a deleted listed one is
        // gone, an item whose title changed is found by its new words and not its old ones.
        try Self.psql(database, """
            insert into public_item (source, kind, url, title, engagement)
            values ('web', 'Product', 'https://shop.example/new', 'alpha', 100000);
            delete from public_item where url = \(Self.quote(exact["alpha@0"]!.0[0]));
            update public_item set title = 'omega', description = 'nothing here', keywords = '{}', updated_at = now()
            where url = \(Self.quote(exact["alpha@0"]!.0[1]));
            """)
        let fresh = try await page(service, "alpha")
        XCTAssertEqual(fresh.urls.first, "https://shop.example/new")
        XCTAssertFalse(fresh.urls.contains(exact["alpha@0"]!.0[0]), "deleted")
        XCTAssertFalse(fresh.urls.contains(exact["alpha@0"]!.0[1]), "retitled: no longer an alpha title")
        XCTAssertEqual(Array(fresh.urls.dropFirst().prefix(18)), Array(exact["alpha@0"]!.0.dropFirst(2)),
                       "the rest keeps its order")
        let retitled = try await page(service, "omega")
        XCTAssertEqual(retitled.urls, [exact["alpha@0"]!.0[1]])

        // A refresh that finds the words no longer broad removes their lists; searches stay exact without them.
        _ = try refresh(database, broadPrefixItems: 1_000_000)
        XCTAssertEqual(try Self.psql(database, "select count(*) from search_candidates"), "0")
        let unlisted = try await page(service, "alpha")
        XCTAssertEqual(unlisted.urls, fresh.urls)
    }

    func testMisspeltWordsAreCorrectedThroughTheVocabularyAndNewItemsThroughTrigrams() async throws {
        let database = try freshDatabase()
        let service = try startService(database: database, ["--no-crawler", "--no-search-refresh",
                                                            "--requests-per-address-per-minute", "100000"])
        try loadItems(database)
        _ = try refresh(database, broadPrefixItems: 100)

        // A swapped pair, a missing letter, an extra letter, a wrong letter: each one edit from "gadget" or "gizmo".
        for typo in ["gadgte", "gadgt", "gaddget", "gidmo"] {
            let answer = try await page(service, typo)
            XCTAssertEqual(answer.urls.count, 20, typo)
            XCTAssertNotNil(answer.correction, typo)
            let titles = try Self.psql(database, """
                select string_agg(distinct split_part(title, ' ', 2), ',') from public_item
                where url = any(array[\(answer.urls.map(Self.quote).joined(separator: ","))])
                """)
            XCTAssertTrue(["gadget", "gizmo"].contains(titles), "\(typo) → \(answer.correction ?? "") → \(titles)")
        }
        let corrected = try await page(service, "alpah gadgte")
        XCTAssertEqual(corrected.correction, "alpha gadget")
        // A correct word is left alone; two edits away is not a correction.
        let none = try await page(service, "doohickey")
        XCTAssertNil(none.correction)
        // A word being typed is a prefix, not a typo: "crossove" finds the three crossovers and is left alone,
        // although "crossover" is one letter away.
        let typing = try await page(service, "crossove")
        XCTAssertNil(typing.correction)
        XCTAssertEqual(typing.urls.count, 3)
        let far = try await page(service, "gdagte")
        XCTAssertNil(far.correction)
        XCTAssertEqual(far.urls, [])

        // A word that only an item added after the refresh holds is not in the vocabulary yet: trigrams over the
        // changed items find it.
        try Self.psql(database, """
            insert into public_item (source, kind, url, title, engagement)
            values ('web', 'Recipe', 'https://food.example/pancakes', 'Fluffy Pancakes', 3)
            """)
        let recent = try await page(service, "pancakse")
        XCTAssertEqual(recent.urls, ["https://food.example/pancakes"])
    }

    func testAServingInstanceRefreshesWhenDueAndOnlyOneAtATime() async throws {
        let database = try migratedDatabaseWithItems()
        let a = try startService(database: database, ["--no-crawler", "--broad-prefix-items", "100",
                                                      "--search-refresh-interval", "3600"])
        let b = try startService(database: database, ["--no-crawler", "--broad-prefix-items", "100",
                                                      "--search-refresh-interval", "3600"])
        let finished = try await refreshFinished(database, after: "")
        XCTAssertFalse(finished.isEmpty, "an instance refreshed at start")
        XCTAssertEqual(try Self.psql(database, "select count(*) > 0 from search_candidates where prefix = 'alpha'"), "t")
        // Within the interval neither refreshes again.
        try await Task.sleep(for: .seconds(2))
        XCTAssertEqual(try Self.psql(database, "select coalesce(finished_at::text, '') from search_refresh"), finished)
        XCTAssertEqual(try Self.psql(database, "select lease_until is null from search_refresh"), "t")
        _ = (a, b)
    }

    func testARefreshCountsItemsOfTransactionsStillOpenAsChanged() async throws {
        let database = try freshDatabase()
        let service = try startService(database: database, ["--no-crawler", "--no-search-refresh",
                                                            "--requests-per-address-per-minute", "100000"])
        try loadItems(database)
        // A writer's transaction began before the refresh and commits after it ranked "alpha": its item, which
        // outranks every listed one, must still be found.
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        writer.arguments = [database, "-v", "ON_ERROR_STOP=1", "-qc", """
            begin;
            insert into public_item (source, kind, url, title, engagement)
            values ('web', 'Product', 'https://shop.example/late', 'alpha', 100000);
            select pg_sleep(6);
            commit;
            """]
        try writer.run()
        var open = false
        for _ in 0..<100 where !open {
            open = try Self.psql(database, "select count(*) from pg_stat_activity where query like '%pg_sleep(6)%' and pid <> pg_backend_pid()") == "1"
            if !open { try await Task.sleep(for: .milliseconds(50)) }
        }
        XCTAssertTrue(open, "the writer's transaction is open")
        _ = try refresh(database, broadPrefixItems: 100)
        XCTAssertEqual(try Self.psql(database, "select count(*) from public_item where url = 'https://shop.example/late'"), "0",
                       "the refresh ended before the writer committed")
        writer.waitUntilExit()
        XCTAssertEqual(writer.terminationStatus, 0)
        let answer = try await page(service, "alpha")
        XCTAssertEqual(answer.urls.first, "https://shop.example/late")
    }

    func testManyChangedItemsMakeTheRefreshDueEarly() async throws {
        let database = try migratedDatabaseWithItems()
        // Due by age every 12 s (checked every 3 s); by changes from 1 s after the last refresh.
        let service = try startService(database: database, ["--no-crawler", "--broad-prefix-items", "100",
                                                            "--search-refresh-interval", "12",
                                                            "--search-refresh-changed-items", "5"])
        let before = try await refreshFinished(database, after: "")
        XCTAssertFalse(before.isEmpty, "the instance refreshed at start")
        try Self.psql(database, """
            insert into public_item (source, kind, url, title, engagement)
            select 'web', 'Product', 'https://shop.example/burst-' || n, 'alpha burst', 100000 + n
            from generate_series(1, 5) n
            """)
        let after = try await refreshFinished(database, after: before)
        XCTAssertNotEqual(after, before, "a second refresh ran")
        XCTAssertEqual(try Self.psql(database, "select extract(epoch from \(Self.quote(after))::timestamptz - \(Self.quote(before))::timestamptz) < 11"),
                       "t", "it ran for the changed items, before the interval was up")
        XCTAssertEqual(try Self.psql(database, """
            select count(*) from search_candidates, unnest(ids) listed(item) join public_item p on p.id = listed.item
            where prefix = 'alpha' and p.url like 'https://shop.example/burst-%'
            """), "5", "the changed items are in the new list")
        _ = service
    }

    /// A fresh database with its tables (migrated by an instance that does not refresh) and `loadItems`.
    func migratedDatabaseWithItems() throws -> String {
        let database = try freshDatabase()
        let first = try startService(database: database, ["--no-crawler", "--no-search-refresh"])
        try loadItems(database)
        first.stop()
        return database
    }

    /// When the last refresh finished ("" before any), waiting up to 20 s for it to differ from `previous`.
    func refreshFinished(_ database: String, after previous: String) async throws -> String {
        var finished = previous
        for _ in 0..<200 where finished == previous {
            finished = try Self.psql(database, "select coalesce(finished_at::text, '') from search_refresh")
            if finished == previous { try await Task.sleep(for: .milliseconds(100)) }
        }
        return finished
    }

    static func quote(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
}
