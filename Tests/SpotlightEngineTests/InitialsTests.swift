import Foundation
import GRDB
import SpotlightTestSupport
import XCTest
@testable import SpotlightEngine

/// The `Initials` column: a one-letter last word matched item by item from the column gives what reading every
/// posting list of the letter's terms gives, whichever way the column is read (segment columns, item rows while a
/// large segment's columns are read in the background, merged segments), and format 3 stores get it on opening.
/// (`RankingOracleTests` checks the same against scoring every item by brute force.)
final class InitialsTests: XCTestCase {
    var directory: URL!
    var store: IndexStore!
    let now = Date(timeIntervalSinceReferenceDate: 800_000_000)

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("initials-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try IndexStore(url: directory.appendingPathComponent("index.sqlite"))
    }

    override func tearDownWithError() throws {
        try? store?.close()
        try? FileManager.default.removeItem(at: directory)
    }

    func item(_ id: String, title: String, keywords: String? = nil, text: String? = nil, hint: Double? = nil) -> StoredItem {
        var attributes: [String: AttributeValue] = ["title": .string(title)]
        if let keywords { attributes["keywords"] = .array([.string(keywords)]) }
        if let text { attributes["textContent"] = .string(text) }
        if let hint { attributes["rankingHint"] = .double(hint) }
        return StoredItem(uniqueIdentifier: id, domainIdentifier: nil, expirationDate: .distantFuture, attributes: attributes)
    }

    /// The hits of both ways, which must agree in order, scores and explanations (matched terms included).
    func searchBothWays(_ text: String, limit: Int = 20, file: StaticString = #filePath, line: UInt = #line) throws -> [SearchHit] {
        var options = TextSearchOptions(limit: limit)
        options.now = now
        options.usePrefixLists = false
        let fromColumn = try store.search(text, options: options)
        options.useInitials = false
        let fromPostings = try store.search(text, options: options)
        XCTAssertEqual(fromColumn.map(\.item.uniqueIdentifier), fromPostings.map(\.item.uniqueIdentifier), text, file: file, line: line)
        XCTAssertEqual(fromColumn.map(\.score), fromPostings.map(\.score), text, file: file, line: line)
        XCTAssertEqual(fromColumn.map(\.explanation), fromPostings.map(\.explanation), text, file: file, line: line)
        return fromColumn
    }

    func testCodesHoldTheBestMatchOfEachLetter() {
        let terms: [String: UInt8] = [
            "tool": 0b0100, "t": 0b1000,   // description prefix 1.8 beats the body's exact 1
            "tea": 0b0010,                  // keywords prefix 3.6 beats both
            "a": 0b0001, "apple": 0b0001,   // the name's exact 8
            "9lives": 0b1000,               // a digit
            "über": 0b0001,                 // not an ASCII first letter: no code
            "zone": TextIndexer.metadataBit, // metadata only: not free text
        ]
        let bytes = Initials.encode(terms)
        XCTAssertEqual(bytes.count, Initials.byteCount, "a digit's code is in the last byte")
        // Without words starting with the last letters, the zero bytes at the end are not stored; they read as no
        // match, as do the bytes past 18 of a damaged row.
        let short = Initials.encode(["apple": 0b0001, "tea": 0b0010])
        XCTAssertEqual(short.count, 10, "t is letter 19: its code is in byte 9")
        XCTAssertEqual(Initials.code(short, letter: Initials.index(ofWord: "t")!), MatchCode.make(tier: 1, kind: .prefix))
        XCTAssertEqual(Initials.code(short, letter: Initials.index(ofWord: "z")!), 0)
        XCTAssertEqual(Initials.code(short, letter: Initials.index(ofWord: "9")!), 0)
        XCTAssertEqual(Initials.encode([:]), [])
        XCTAssertEqual(Initials.code(bytes + [0], letter: 0), 0, "too long: damage, no match")
        func code(_ letter: Character) -> UInt8 {
            Initials.code(bytes, letter: Initials.index(ofWord: String(letter))!)
        }
        XCTAssertEqual(code("t"), MatchCode.make(tier: 1, kind: .prefix))
        XCTAssertEqual(MatchCode.points[Int(code("t"))], 3.6, accuracy: 1e-12)
        XCTAssertEqual(code("a"), MatchCode.make(tier: 0, kind: .exact))
        XCTAssertEqual(MatchCode.points[Int(code("a"))], 8)
        XCTAssertEqual(code("9"), MatchCode.make(tier: 3, kind: .prefix))
        XCTAssertEqual(code("u"), 0)
        XCTAssertEqual(code("z"), 0)
        XCTAssertEqual(code("b"), 0)
        // Lower codes are more points, as `encode` and the search's scratch assume; codes past 16 are no match.
        let points = (1...16).map { MatchCode.points[$0] }
        XCTAssertEqual(points, points.sorted(by: >))
        XCTAssertEqual(Set(points).count, 16)
        for (got, want) in zip(points, [8, 7.2, 4.8, 4.4, 4, 3.6, 2.4, 2.2, 2, 1.8, 1.2, 1.1, 1, 0.9, 0.6, 0.55]) {
            XCTAssertEqual(got, want, accuracy: 1e-12)
        }
        XCTAssertEqual(MatchCode.points[17...].filter { $0 != 0 }, [])
        XCTAssertEqual(MatchCode.units[1...16].map { $0 }, [160, 144, 96, 88, 80, 72, 48, 44, 40, 36, 24, 22, 20, 18, 12, 11])
        XCTAssertFalse(MatchCode.isMatch(MatchCode.unmatched))
        // The stored codes are format 3's, exact and prefix by tier (`1 + 3 × tier + kind`): stores written before
        // the weak typo read the same matches.
        XCTAssertEqual(bytes[19 >> 1] >> 4, 5, "t: a prefix in the keywords, stored as 1 + 3 × 1 + 1")
        XCTAssertEqual((1...12).map { Int(Initials.matchCodes[$0]) },
                       [1, 2, 0, 5, 6, 0, 9, 10, 0, 13, 14, 0].map { $0 })
        XCTAssertEqual(Initials.matchCodes[13...].filter { $0 != 0 }, [])
        // Only one ASCII letter or digit has a column; damaged bytes read as no match.
        XCTAssertNil(Initials.index(ofWord: "ü"))
        XCTAssertNil(Initials.index(ofWord: "ab"))
        XCTAssertNil(Initials.index(ofWord: "-"))
        XCTAssertEqual(Initials.code(Array(bytes.prefix(17)), letter: Initials.index(ofWord: "9")!), 0, "a byte not stored")
    }

    func testOneLetterAfterOtherWordsEqualsReadingThePostings() throws {
        let titles = ["tool time", "the tea", "python tools", "t", "data"]
        var items: [StoredItem] = []
        for i in 0..<800 {
            let text = i % 4 == 0 ? "a body of text t" : "nothing here"
            items.append(item(String(format: "i%03d", i), title: titles[i % 5], keywords: i % 3 == 0 ? "tab" : nil, text: text,
                              hint: Double(i % 97)))
        }
        try store.apply(items.map { .upsert($0) }, now: now)
        for text in ["python t", "the t", "data t", "tool t", "body t", "here t", "the a", "tool b", "python 9", "python z",
                     "body o", "t t"] {
            _ = try searchBothWays(text)
            _ = try searchBothWays(text, limit: 0)
        }
        // The typed letter as a whole word is an exact match (1 point in the body), above a longer word (0.9).
        let hit = try XCTUnwrap(try searchBothWays("data t", limit: 0).first { $0.item.uniqueIdentifier == "i004" })
        XCTAssertEqual(hit.explanation.words.last?.matchedTerm, "t")
        XCTAssertEqual(hit.explanation.words.last?.kind, .exact)
        XCTAssertEqual(try searchBothWays("the t").first?.explanation.words.last?.matchedTerm, "tea")
    }

    func testItemRowsAnswerWhileALargeSegmentsColumnsAreRead() throws {
        // One segment spanning more ids than a search reads inline: its columns are read in the background, and a
        // search meanwhile takes the initials from the item rows (few candidates) or the posting lists (many).
        var items: [StoredItem] = []
        for i in 0..<6_000 {
            let title = i % 50 == 0 ? "rare thing \(i)" : "common thing \(i)"
            items.append(item("c\(i)", title: title, text: "tail \(i % 13)", hint: Double(i % 101)))
        }
        try store.apply(items.map { .upsert($0) }, now: now)
        try store.close()
        store = try IndexStore(url: directory.appendingPathComponent("index.sqlite"))
        let rare = try searchBothWays("rare t", limit: 30)
        let common = try searchBothWays("common t", limit: 30)
        store.columnCache.waitForBuilds()
        XCTAssertTrue(try store.read { try store.columnCache.columns($0, store: store) }.complete)
        XCTAssertEqual(try searchBothWays("rare t", limit: 30).map(\.item.uniqueIdentifier), rare.map(\.item.uniqueIdentifier))
        XCTAssertEqual(try searchBothWays("common t", limit: 30).map(\.item.uniqueIdentifier), common.map(\.item.uniqueIdentifier))
        XCTAssertEqual(rare.count, 30)
        // Deleted and replaced items are never found through their old initials.
        try store.apply([.delete(identifiers: ["c0", "c50"]), .upsert(item("c100", title: "rare zebra"))], now: now)
        let after = try searchBothWays("rare t", limit: 0).map(\.item.uniqueIdentifier)
        XCTAssertFalse(after.contains("c0") || after.contains("c50") || after.contains("c100"))
        XCTAssertEqual(after.count, 117)
        XCTAssertEqual(try searchBothWays("rare z").map(\.item.uniqueIdentifier), ["c100"])
    }

    func testMergedSegmentsKeepTheirInitials() throws {
        let words = ["tango", "toast", "alpha"]
        for i in 0..<120 {
            try store.apply([.upsert(item("m\(i)", title: "merge " + words[i % 3], hint: Double(i)))], now: now)
        }
        let before = try searchBothWays("merge t", limit: 0).map(\.item.uniqueIdentifier)
        XCTAssertEqual(before.count, 80)
        try store.performMaintenance()
        XCTAssertLessThan(try store.segmentSummary().count, 120, "merged")
        XCTAssertEqual(try searchBothWays("merge t", limit: 0).map(\.item.uniqueIdentifier), before)
        XCTAssertEqual(try searchBothWays("merge a", limit: 0).count, 40)
    }

    func testFormat3StoresGetTheirInitialsAndTextKeyedPostingsOnOpening() throws {
        // A large segment stored as rows and small packed ones, taken back to format 3: no initials, posting rows
        // keyed by term id.
        PackedSegment.limit.store(4_096, ordering: .relaxed)
        defer { PackedSegment.limit.store(PackedSegment.defaultLimit, ordering: .relaxed) }
        TermBlocks.writesRows.store(true, ordering: .relaxed)
        defer { TermBlocks.writesRows.store(false, ordering: .relaxed) }
        let words = ["three", "four", "five"]
        // (Items in rows, as format 3 kept them.)
        try withRowItems {
            try store.apply((0..<2_000).map { i in
                .upsert(item("f\(i)", title: "format " + words[i % 3], text: "number \(i)"))
            }, now: now)
        }
        for i in 2_000..<2_010 { try store.apply([.upsert(item("f\(i)", title: "format late " + words[i % 3]))], now: now) }
        let queries = ["format f", "three f", "format t", "numb", "number 17", "late", "format l", "fiv"]
        let before = try queries.map { try searchBothWays($0, limit: 0).map(\.item.uniqueIdentifier) }
        try store.close()
        let url = directory.appendingPathComponent("index.sqlite")
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            try db.execute(sql: """
                ALTER TABLE item DROP COLUMN initials;
                ALTER TABLE postings RENAME TO postingsByText;
                DROP INDEX IF EXISTS postings_segment;
                CREATE TABLE postings(
                    term INTEGER NOT NULL, segment INTEGER NOT NULL, count INTEGER NOT NULL, data BLOB NOT NULL,
                    PRIMARY KEY(term, segment)) WITHOUT ROWID;
                CREATE INDEX postings_segment ON postings(segment);
                CREATE TABLE term(text TEXT PRIMARY KEY, id INTEGER NOT NULL, df INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
                INSERT INTO term(text, id, df)
                    SELECT text, row_number() OVER (ORDER BY text), sum(count) FROM postingsByText GROUP BY text;
                INSERT INTO postings SELECT t.id, p.segment, p.count, p.data FROM postingsByText p JOIN term t ON t.text = p.text;
                DROP TABLE postingsByText;
                DROP TABLE termBlock;
                UPDATE meta SET value = 3 WHERE key = 'formatVersion';
                """)
            XCTAssertGreaterThan(try Int.fetchOne(db, sql: "SELECT count(*) FROM postings") ?? 0, 2_000, "a segment stored as rows")
        }
        try queue.close()
        store = try IndexStore(url: url)
        XCTAssertEqual(try store.read { try Int.fetchOne($0, sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'formatVersion'") },
                       IndexStore.formatVersion)
        XCTAssertTrue(try store.read { try $0.columns(in: "postings").contains { $0.name == "text" } })
        let bytes = try XCTUnwrap(try store.read { try Data.fetchOne($0, sql: "SELECT initials FROM item WHERE uid = 'f1'") })
        XCTAssertEqual([UInt8](bytes), Initials.encode(TextIndexer.terms(attributes: item("f1", title: "format four", text: "number 1").attributes,
                                                                         custom: [:])))
        XCTAssertEqual(try queries.map { try searchBothWays($0, limit: 0).map(\.item.uniqueIdentifier) }, before)
        XCTAssertEqual(before[0].count, 2_010, "format starts with f itself")
        XCTAssertEqual(before[1].count, 670)
        try store.checkIntegrity()
        // Merges read and write the text-keyed rows.
        for i in 0..<40 { try store.apply([.upsert(item("g\(i)", title: "format again " + words[i % 3]))], now: now) }
        try store.performMaintenance()
        XCTAssertEqual(try searchBothWays("format a", limit: 0).count, 40)
        XCTAssertEqual(try searchBothWays("numb", limit: 0).count, 2_000)
        try store.checkIntegrity()
    }
}
