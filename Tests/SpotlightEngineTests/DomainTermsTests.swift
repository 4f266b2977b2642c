import Foundation
import XCTest
import GRDB
@testable import SpotlightEngine

/// Format 12: a store finds the items of a domain and its sub-domains through their exact domain terms
/// (`TextIndexer.exactDomainTerms`), not an index of items by domain; a store of format 11 keeps its index.
final class DomainTermsTests: XCTestCase {
    var directory: URL!
    var store: IndexStore!
    let now = Date(timeIntervalSinceReferenceDate: 800_000_000)
    var later: Date { now.addingTimeInterval(365 * 86_400) }

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("domains-\(UUID().uuidString)")
        store = try IndexStore(url: directory.appendingPathComponent("test.sqlite"))
    }

    override func tearDownWithError() throws {
        try store.close()
        try? FileManager.default.removeItem(at: directory)
    }

    static let long = "L." + String(repeating: "x", count: 300)
    /// Domains that differ only by case, by a missing dot, by empty parts, by more parts than an item posts terms
    /// for, and by more bytes than a term takes.
    static let domains: [String?] = [
        "Mail", "Mail.inbox", "Mail.inbox.x", "mail", "Mailbox", "Mail..odd", "Mail.", "", ".", "é.ü", "é",
        "a.b.c.d.e.f.g.h.i.j", "a.b.c.d.e.f.g.h", long, long + ".y", nil,
    ]
    /// What is deleted, counted and listed: every stored domain and some that only some of them start with.
    static let queries: [String] = domains.compactMap { $0 } + [
        "Mail.inbox.x.y", "a", "a.b.c.d.e.f.g", "a.b.c.d.e.f.g.h.i", "L", "x", "e", "Mai",
    ]

    func item(_ id: String, domain: String?) -> StoredItem {
        StoredItem(uniqueIdentifier: id, domainIdentifier: domain, expirationDate: later,
                   attributes: ["title": .string("note \(id)")])
    }

    /// Three items per domain, stored in `store`; returns their identifiers by domain.
    @discardableResult
    func fill() throws -> [(id: String, domain: String?)] {
        var items: [(id: String, domain: String?)] = []
        for (n, domain) in Self.domains.enumerated() {
            for k in 0..<3 { items.append(("d\(n)-\(k)", domain)) }
        }
        // In two writes: one large enough to be prepared on every core, one of single items.
        let (large, small) = (items.prefix(30), items.dropFirst(30))
        try store.apply(large.map { .upsert(item($0.id, domain: $0.domain)) }, now: now)
        for entry in small { try store.apply([.upsert(item(entry.id, domain: entry.domain))], now: now) }
        return items
    }

    func expected(_ items: [(id: String, domain: String?)], in domain: String) -> [String] {
        items.filter { DomainMatch.matches($0.domain, domain) }.map(\.id).sorted { UTF8Order.precedes($0, $1) }
    }

    /// `DomainMatch.matches` is the SQL condition: checked against SQLite itself on the same strings.
    func testTheSwiftConditionIsTheSQLOne() throws {
        let queue = try DatabaseQueue()
        for stored in Self.domains {
            for domain in Self.queries {
                let sql = try queue.read { db in
                    // (The sub-query's parameter comes last.)
                    try Bool.fetchOne(db, sql: "SELECT \(DomainMatch.sql) FROM (SELECT ? AS domain)",
                                      arguments: StatementArguments(DomainMatch.arguments(domain) + [stored]))
                } ?? false
                XCTAssertEqual(DomainMatch.matches(stored, domain), sql, "\(String(describing: stored)) in \(domain)")
            }
        }
    }

    func testANewStoreHasNoIndexByDomainAndPostsExactTerms() throws {
        try fill()
        try store.read { db in
            XCTAssertFalse(try db.indexes(on: "item").contains { $0.name == "item_domain" })
            XCTAssertTrue(try DomainMatch.usesTerms(db))
            XCTAssertEqual(try DomainMatch.postedItems(db, "Mail")?.count, 15, "Mail, Mail.inbox, Mail.inbox.x, Mail..odd, Mail.")
            XCTAssertEqual(try DomainMatch.postedItems(db, Self.long)?.count, 9, "the long domains and the one of ten parts")
        }
        XCTAssertEqual(TextIndexer.exactDomainTerms("a.b"), ["\u{3}a", "\u{3}a.b"])
        XCTAssertEqual(TextIndexer.exactDomainTerms("a.b.c.d.e.f.g.h.i.j").count, 9, "eight terms and the long domains' term")
        XCTAssertEqual(TextIndexer.exactDomainTerms(Self.long), ["\u{3}L", TextIndexer.longDomainTerm])
    }

    func testCountsAndListsMatchTheCondition() throws {
        let items = try fill()
        for domain in Self.queries {
            let expected = expected(items, in: domain)
            XCTAssertEqual(try store.count(domain: domain, now: now), expected.count, domain)
            // Read from the postings and sorted, and stepped in identifier order: the same pages.
            for candidateLimit in [IndexStore.domainListingCandidates, 0] {
                XCTAssertEqual(try store.listItems(domain: domain, limit: 100, now: now, candidateLimit: candidateLimit)
                                .map(\.uniqueIdentifier), expected, "\(domain), \(candidateLimit)")
                var paged: [String] = []
                var after: String? = nil
                while true {
                    let page = try store.listItems(domain: domain, after: after, limit: 2, now: now, candidateLimit: candidateLimit)
                    paged += page.map(\.uniqueIdentifier)
                    guard page.count == 2 else { break }
                    after = page.last?.uniqueIdentifier
                }
                XCTAssertEqual(paged, expected, "\(domain) by pages of 2, \(candidateLimit)")
            }
        }
    }

    func testDeletingADomainDeletesExactlyItAndItsSubDomains() throws {
        var items = try fill()
        // Updated and deleted items leave dead postings behind under their domains' terms.
        try store.apply([.upsert(item("d0-0", domain: "Elsewhere")), .delete(identifiers: ["d1-0"])], now: now)
        items = items.map { $0.id == "d0-0" ? ($0.id, "Elsewhere") : $0 }.filter { $0.id != "d1-0" }
        for domain in ["Mail.inbox.x.y", "Mail.inbox", "mail", "a.b.c.d.e.f.g.h.i", Self.long + ".y", "", "Mail", "é", "a"] {
            try store.apply([.deleteDomains([domain])], now: now)
            items.removeAll { DomainMatch.matches($0.domain, domain) }
            XCTAssertEqual(try store.listItems(limit: 1_000, now: now).map(\.uniqueIdentifier).sorted(),
                           items.map(\.id).sorted(), "after deleting \(domain)")
        }
        XCTAssertTrue(items.contains { $0.domain == "Elsewhere" } && items.contains { $0.domain == nil } && items.contains { $0.domain == Self.long })
    }

    /// A batch that adds items and deletes their domain: the items' postings are not in a segment yet.
    func testADeleteFindsTheItemsItsOwnBatchAdded() throws {
        for count in [3, 200] {
            try store.apply([.deleteAll], now: now)
            var operations: [IndexOperation] = (0..<count).map { .upsert(item("n\($0)", domain: $0 % 2 == 0 ? "Notes.a" : "Other")) }
            operations.append(.deleteDomains(["Notes"]))
            operations.append(.upsert(item("kept", domain: "Notes.b")))
            try store.apply(operations, now: now)
            let expected = ((0..<count).filter { $0 % 2 == 1 }.map { "n\($0)" } + ["kept"]).sorted()
            XCTAssertEqual(try store.listItems(limit: 1_000, now: now).map(\.uniqueIdentifier).sorted(), expected, "\(count) items")
            XCTAssertEqual(try store.count(domain: "Notes", now: now), 1)
        }
    }

    /// A store of format 11 keeps finding domains through `item_domain` (its items keep their rows, and its large
    /// writes make rows too), and is of today's format once opened.
    func testAFormat11StoreKeepsItsIndexByDomain() throws {
        var items = try withRowItems { try fill() }
        try store.pool.write { db in
            try db.execute(sql: """
                CREATE INDEX item_domain ON item(domain) WHERE domain IS NOT NULL;
                DELETE FROM meta WHERE key = 'exactDomainTerms';
                UPDATE meta SET value = 11 WHERE key = 'formatVersion';
                """)
        }
        try store.close()
        store = try IndexStore(url: directory.appendingPathComponent("test.sqlite"))
        try store.read { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'formatVersion'"),
                           IndexStore.formatVersion)
            XCTAssertFalse(try DomainMatch.usesTerms(db))
            XCTAssertTrue(try db.indexes(on: "item").contains { $0.name == "item_domain" })
        }
        for domain in Self.queries {
            XCTAssertEqual(try store.count(domain: domain, now: now), expected(items, in: domain).count, domain)
            XCTAssertEqual(try store.listItems(domain: domain, limit: 100, now: now).map(\.uniqueIdentifier),
                           expected(items, in: domain), domain)
        }
        try store.apply([.deleteDomains(["Mail"])], now: now)
        items.removeAll { DomainMatch.matches($0.domain, "Mail") }
        XCTAssertEqual(try store.listItems(limit: 1_000, now: now).map(\.uniqueIdentifier).sorted(), items.map(\.id).sorted())
    }
}
