import Foundation
import GRDB
import SpotlightQueryLanguage
import SpotlightTestSupport
import XCTest
@testable import SpotlightEngine

/// The segment text index (format 2): the posting codec, dead postings of updated and deleted items, the merge
/// policy, and the upgrade of format 1 stores.
final class SegmentTests: XCTestCase {
    var directory: URL!
    var store: IndexStore!
    let now = Date(timeIntervalSinceReferenceDate: 800_000_000)

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("segments-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try IndexStore(url: directory.appendingPathComponent("index.sqlite"))
    }

    override func tearDownWithError() throws {
        try? store?.close()
        try? FileManager.default.removeItem(at: directory)
    }

    func item(_ id: String, title: String, text: String? = nil, hint: Double? = nil) -> StoredItem {
        var attributes: [String: AttributeValue] = ["title": .string(title)]
        if let text { attributes["textContent"] = .string(text) }
        if let hint { attributes["rankingHint"] = .double(hint) }
        return StoredItem(uniqueIdentifier: id, domainIdentifier: nil, expirationDate: .distantFuture, attributes: attributes)
    }

    func search(_ text: String, limit: Int = 0, lists: Bool = true) throws -> [String] {
        var options = TextSearchOptions(limit: limit)
        options.now = now
        options.usePrefixLists = lists
        return try store.search(text, options: options).map(\.item.uniqueIdentifier)
    }

    /// Items matching a query-language string through the planner's index lookups.
    func planned(_ query: String) throws -> [String] {
        let expression = try QueryParser.parse(query)
        let calendar = Calendar(identifier: .gregorian)
        let compiled = CompiledQuery(expression, now: now, calendar: calendar)
        return try store.items(matching: compiled, plan: QueryPlanner.plan(expression, now: now, calendar: calendar),
                               options: QueryOptions(limit: 0, now: now)).map(\.uniqueIdentifier)
    }

    // MARK: - The codec

    /// The order segments' lists and a batch's frequency updates are sorted in is SQLite's (`BINARY`: UTF-8 bytes),
    /// for every script, prefixes and empty texts, and for texts Foundation made (which need not be native).
    func testTextsSortInSQLitesOrder() throws {
        var texts = ["", "a", "ab", "abc", "b", "Z", "é", "e\u{301}", "日本", "日", "ß", "ss", "\u{10FFFF}", "zz", "ä",
                     NSString(string: "naïve").description, String(decoding: [0xE2, 0x82, 0xAC], as: UTF8.self)]
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let scalars = (0..<Int.random(in: 0...6, using: &random)).map { _ in
                Unicode.Scalar([0x61, 0xE9, 0x3B1, 0x65E5, 0x1F600].randomElement(using: &random)! + UInt32.random(in: 0...2, using: &random))!
            }
            texts.append(String(String.UnicodeScalarView(scalars)))
        }
        let sorted = texts.sorted(by: UTF8Order.precedes)
        let queue = try DatabaseQueue()
        let bySQLite = try queue.write { db -> [String] in
            try db.execute(sql: "CREATE TABLE t(text TEXT)")
            for text in texts { try db.execute(sql: "INSERT INTO t(text) VALUES(?)", arguments: [text]) }
            return try String.fetchAll(db, sql: "SELECT text FROM t ORDER BY text")
        }
        XCTAssertEqual(sorted.map { Array($0.utf8) }, bySQLite.map { Array($0.utf8) })
        XCTAssertFalse(UTF8Order.precedes("a", "a"))
        XCTAssertTrue(UTF8Order.precedes("a", "ab"))
        XCTAssertFalse(UTF8Order.precedes("ab", "a"))
    }

    func testCodecRoundTripsAcrossBlockBoundariesAndLargeGaps() throws {
        var random = SplitMix64(state: 7)
        for count in [1, 2, 127, 128, 129, 255, 256, 257, 1_000, 5_000] {
            var item: Int64 = Int64(random.next() % 10) + 1
            var postings: [(item: Int64, tiers: UInt8)] = []
            for _ in 0..<count {
                postings.append((item, UInt8(random.next() % 31) + 1))
                // Small gaps mostly, some huge ones (ids far apart after churn).
                item += random.next() % 20 == 0 ? Int64(random.next() % 1_000_000_000) + 1 : Int64(random.next() % 4) + 1
            }
            let bytes = PostingCodec.encode(postings)
            let decoded = try PostingCodec.decode(bytes)
            XCTAssertEqual(decoded.map(\.item), postings.map(\.item), "count \(count)")
            XCTAssertEqual(decoded.map(\.tiers), postings.map(\.tiers), "count \(count)")
            // Dense lists cost about one byte per posting.
            if count >= 1_000 { XCTAssertLessThan(bytes.count, count * 3) }
        }
    }

    func testOnePostingListsTakeTheirItemAndTiersAlone() throws {
        // Every tier mask and items of every varint length: the list is the tag byte with the tiers, then the item.
        for tiers in UInt8(1)...UInt8(31) {
            for item: Int64 in [1, 127, 128, 2_097_151, 2_097_152, 1 << 40, Int64.max] {
                let bytes = PostingCodec.encode([(item: item, tiers: tiers)])
                XCTAssertEqual(bytes[0], PostingCodec.singleTag | tiers)
                var expected: [UInt8] = []
                PostingCodec.appendVarint(UInt64(item), to: &expected)
                XCTAssertEqual(Array(bytes.dropFirst()), expected)
                let decoded = try PostingCodec.decode(bytes)
                XCTAssertEqual(decoded.map(\.item), [item])
                XCTAssertEqual(decoded.map(\.tiers), [tiers])
                try bytes.withUnsafeBytes { raw in
                    let reader = try PostingCodec.Reader(raw)
                    XCTAssertEqual(reader.count, 1)
                    XCTAssertEqual(reader.blockCount, 1)
                    var blocks: [PostingCodec.Block] = []
                    try reader.forEachBlock { _, _, block in blocks.append(block); return true }
                    XCTAssertEqual(blocks.map(\.lastItem), [item], "its block's last item is the item")
                    XCTAssertEqual(blocks.map(\.tierUnion), [tiers], "and its union the posting's tiers")
                    // Block skipping: read only for a candidate at the item, and only when the tiers asked for meet.
                    var seen: [Int64] = []
                    try reader.forEach(near: [item]) { i, _ in seen.append(i) }
                    XCTAssertEqual(seen, [item])
                    seen = []
                    if item < Int64.max { try reader.forEach(near: [item + 1]) { i, _ in seen.append(i) } }
                    XCTAssertEqual(seen, [], "a candidate past the item reads nothing")
                    try reader.forEach(tiers: ~tiers) { i, _ in seen.append(i) }
                    XCTAssertEqual(seen, [], "no tier in common")
                }
            }
        }
        // Format 14 wrote a one-posting list as a list of blocks (version, count, block count, the block's skip data,
        // the posting): stores keep such lists, and they read as before.
        for (item, tiers) in [(Int64(1), UInt8(1)), (886_000, 0b1_0011)] {
            var old: [UInt8] = [PostingCodec.version, 1, 1]
            var posting: [UInt8] = []
            PostingCodec.appendVarint(UInt64(item) << 5 | UInt64(tiers), to: &posting)
            PostingCodec.appendVarint(UInt64(item), to: &old)
            PostingCodec.appendVarint(UInt64(posting.count), to: &old)
            old.append(tiers)
            old += posting
            let decoded = try PostingCodec.decode(old)
            XCTAssertEqual(decoded.map(\.item), [item])
            XCTAssertEqual(decoded.map(\.tiers), [tiers])
        }
        // Twelve bytes as a list of blocks, four (for an item below 2²¹) alone.
        XCTAssertEqual(PostingCodec.encode([(item: Int64(886_000), tiers: UInt8(3))]).count, 4)
        // Damage: a cut or overlong varint, bytes after the item.
        for bad: [UInt8] in [[0x41], [0x41, 0x80], [0x41, 0x05, 0x00], [0x41] + [UInt8](repeating: 0xFF, count: 10) + [1]] {
            XCTAssertThrowsError(try PostingCodec.decode(bad), "\(bad)") { error in
                XCTAssertEqual((error as? EngineError)?.code, .corruptIndex)
            }
        }
    }

    func testSegmentsOfOnePostingTermsAreFoundThroughEveryKindOfSegment() throws {
        // Words of one item each ("solo" then letters for the number), in a large write (term blocks), small writes
        // (packed segments), and their merge.
        func word(_ n: Int) -> String {
            "solo" + String(String(n, radix: 26).map { Character(UnicodeScalar(UInt8(97 + Int(String($0), radix: 26)!))) })
        }
        try store.apply((0..<300).map { .upsert(item("u\($0)", title: "\(word($0)) shared")) }, now: now)
        for n in 300..<310 { try store.apply([.upsert(item("u\(n)", title: "\(word(n)) shared"))], now: now) }
        func check() throws {
            // (The last word of a search is also a prefix, and may have a typo: the item of the word itself
            // ranks first.)
            for n in [0, 1, 150, 299, 300, 309] {
                XCTAssertEqual(try search(word(n) + " shared").first, "u\(n)", word(n))
            }
            // A prefix of one-item terms: "solol" is word 11 and starts those of 286 … 309 ("sololaa" …).
            let prefixed = (0..<310).filter { word($0).hasPrefix("solol") }.map { "u\($0)" }
            XCTAssertEqual(prefixed.count, 25)
            XCTAssertTrue(Set(try search("solol")).isSuperset(of: prefixed))
            XCTAssertEqual(Set(try search("shared solol")).intersection(prefixed).count, 25)
            XCTAssertEqual(try search("shared").count, 310)
        }
        try check()
        store.waitForMaintenance()
        try check()
    }

    func testBlockSkippingVisitsEveryCandidate() throws {
        var random = SplitMix64(state: 11)
        let postings = (1...3_000).map { (item: Int64($0 * 3), tiers: UInt8(1 << ($0 % 4))) }
        let bytes = PostingCodec.encode(postings)
        for _ in 0..<50 {
            let candidates = (0..<Int(random.next() % 40 + 1)).map { _ in Int64(random.next() % 9_100) }
            let wanted = Set(candidates)
            var seen: [Int64: UInt8] = [:]
            var decodedBlocks = 0
            try bytes.withUnsafeBytes { raw in
                let reader = try PostingCodec.Reader(raw)
                var last: Int64 = -1
                try reader.forEach(near: Array(wanted).sorted()) { item, tiers in
                    if item <= last { decodedBlocks += 1 }
                    last = item
                    seen[item] = tiers
                }
            }
            for posting in postings where wanted.contains(posting.item) {
                XCTAssertEqual(seen[posting.item], posting.tiers, "candidate \(posting.item) was skipped")
            }
            XCTAssertLessThanOrEqual(seen.count, wanted.count * PostingCodec.blockSize, "only blocks near candidates are decoded")
        }
    }

    func testBlocksWithoutATierAreSkippedAndTheOthersReadWhole() throws {
        // Keywords (bit 1) only in items 1,000–1,300: of 24 blocks, three hold one; the metadata bit everywhere.
        let postings = (1...3_000).map { i in
            (item: Int64(i), tiers: UInt8((1_000...1_300).contains(i) && i % 7 == 0 ? 0b1_0010 : 0b1_0000))
        }
        let bytes = PostingCodec.encode(postings)
        try bytes.withUnsafeBytes { raw in
            let reader = try PostingCodec.Reader(raw)
            var seen: [Int64] = []
            try reader.forEach(tiers: 0b0010) { item, tiers in if tiers & 0b0010 != 0 { seen.append(item) } }
            XCTAssertEqual(seen, postings.filter { $0.tiers & 0b0010 != 0 }.map(\.item), "every keyword posting, in order")
            var decoded = 0
            try reader.forEach(tiers: 0b0010) { _, _ in decoded += 1 }
            XCTAssertLessThanOrEqual(decoded, 4 * PostingCodec.blockSize, "the blocks without one are not decoded")
            decoded = 0
            try reader.forEach(tiers: 0b1_0000) { _, _ in decoded += 1 }
            XCTAssertEqual(decoded, postings.count)
        }
    }

    func testImpossibleSegmentRangesAreReportedAsDamageNeverAllocated() throws {
        try store.apply((0..<50).map { .upsert(item("r\($0)", title: "range \($0)")) }, now: now)
        try store.apply([.upsert(item("late", title: "range late"))], now: now)
        XCTAssertEqual(try search("range").count, 51)
        let url = store.url
        // A range past what 32-bit item numbers hold, a reversed one, ranges that overlap: each is damage.
        for damage in ["UPDATE segment SET lastItem = 9223372036854775000 WHERE id = (SELECT min(id) FROM segment)",
                       "UPDATE segment SET lastItem = firstItem - 5 WHERE id = (SELECT min(id) FROM segment)",
                       "UPDATE segment SET firstItem = 1 WHERE id = (SELECT max(id) FROM segment)"] {
            try store.close()
            let queue = try DatabaseQueue(path: url.path)
            let saved = try queue.read { try Row.fetchAll($0, sql: "SELECT id, firstItem, lastItem FROM segment") }
            try queue.write { try $0.execute(sql: damage) }
            try queue.close()
            store = try IndexStore(url: url)
            XCTAssertThrowsError(try search("range"), damage) { error in
                XCTAssertEqual((error as? EngineError)?.code, .corruptIndex, damage)
            }
            try store.close()
            let repair = try DatabaseQueue(path: url.path)
            try repair.write { db in
                for row in saved {
                    try db.execute(sql: "UPDATE segment SET firstItem = ?, lastItem = ? WHERE id = ?",
                                   arguments: [row["firstItem"], row["lastItem"], row["id"]])
                }
            }
            try repair.close()
            store = try IndexStore(url: url)
            XCTAssertEqual(try search("range").count, 51, "repaired")
        }
    }

    func testDamagedPostingBytesThrowAndNeverTrap() throws {
        var random = SplitMix64(state: 3)
        let postings = (1...700).map { (item: Int64($0 * 5), tiers: UInt8($0 % 15 + 1)) }
        let good = PostingCodec.encode(postings)
        var thrown = 0
        for round in 0..<3_000 {
            var bytes = good
            switch round % 3 {
            case 0:
                for _ in 0..<Int(random.next() % 4 + 1) {
                    bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
                }
            case 1:
                bytes.removeLast(Int(random.next() % UInt64(bytes.count)))
            default:
                bytes = (0..<Int(random.next() % 64)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            }
            do {
                let decoded = try PostingCodec.decode(bytes)
                // What decodes is still a strictly increasing list.
                XCTAssertEqual(decoded.map(\.item), decoded.map(\.item).sorted())
            } catch let error as EngineError {
                XCTAssertEqual(error.code, .corruptIndex)
                thrown += 1
            }
        }
        XCTAssertGreaterThan(thrown, 1_000)
    }

    // MARK: - Dead postings and merges

    func testUpdatedAndDeletedItemsNeverMatchTheirOldWords() throws {
        try store.apply((0..<50).map { .upsert(item("i\($0)", title: "apple \($0)")) }, now: now)
        try store.apply((0..<25).map { .upsert(item("i\($0)", title: "banana \($0)")) }, now: now)
        try store.apply([.delete(identifiers: ["i30", "i31"])], now: now)
        XCTAssertEqual(Set(try search("apple")), Set((25..<50).filter { $0 != 30 && $0 != 31 }.map { "i\($0)" }))
        XCTAssertEqual(Set(try search("banana")), Set((0..<25).map { "i\($0)" }))
        XCTAssertEqual(Set(try search("appl", lists: false)), Set(try search("appl")))
        // The query language and the planners see the same.
        XCTAssertEqual(try planned(#"title == "apple*"cd"#).count, 23)
        XCTAssertEqual(try planned(#"title == "banana*"cd"#).count, 25)
        XCTAssertEqual(try store.count(now: now), 48)
        try store.checkIntegrity()
    }

    func testManySmallCommitsAreMergedAndResultsStayTheSame() throws {
        for i in 0..<200 {
            try store.apply([.upsert(item("i\(i)", title: "word\(i % 7) common", text: "body \(i)", hint: Double(i % 100)))], now: now)
        }
        let before = try search("comm", limit: 20, lists: false)
        try store.performMaintenance()
        let segments = try store.segmentSummary()
        XCTAssertLessThan(segments.count, SegmentMerger.mergeFactor * 3, "200 commits leave few segments: \(segments.count)")
        XCTAssertEqual(segments.reduce(0) { $0 + $1.items }, 200)
        XCTAssertEqual(try search("comm", limit: 20, lists: false), before)
        XCTAssertEqual(try search("comm", limit: 20), before)
        XCTAssertEqual(try search("word3").count, 29)
        try store.checkIntegrity()
    }

    func testCommitsScheduleMergesInTheBackground() throws {
        PackedSegment.limit.store(4_096, ordering: .relaxed)
        defer { PackedSegment.limit.store(PackedSegment.defaultLimit, ordering: .relaxed) }
        try store.apply((0..<2_000).map { .upsert(item("big\($0)", title: "bulk item \($0)", text: "some body text \($0)")) }, now: now)
        for i in 0..<30 {
            try store.apply([.upsert(item("big\(i)", title: "single \(i)"))], now: now)
            store.waitForMaintenance()
        }
        let segments = try store.segmentSummary()
        XCTAssertLessThan(segments.count, 10, "the writes' own maintenance merged the small segments: \(segments)")
        XCTAssertEqual(try store.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM segment WHERE packed IS NULL") }, 1,
                       "the bulk segment is stored as term blocks, the small ones packed")
        XCTAssertEqual(Set(try search("single")).count, 30)
        XCTAssertEqual(Set(try search("bulk")).count, 1_970)
    }

    /// Merges of up to `PackedSegment.defaultLimit` postings stay packed (written as one blob, encoded before the
    /// write lock), and a packed segment answers terms and prefixes as posting rows do.
    func testMergesOfMidSizedSegmentsStayPackedWithTheSameResults() throws {
        // Eight commits of ~6,000 postings each (level 1), merged into one of ~48,000: above the old limit of 32,768.
        for batch in 0..<8 {
            try store.apply((0..<400).map { n in
                let i = batch * 400 + n
                return .upsert(item("m\(i)", title: "merge\(i % 13) packed item", text: "alpha beta gamma delta epsilon w\(i) v\(i % 97) u\(i % 31)"))
            }, now: now)
        }
        let before = try ["merge3", "mer", "v4", "w1234", "packed", "u"].map { try search($0, limit: 50, lists: false) }
        try store.performMaintenance()
        let segments = try store.read { try SegmentMerger.segments($0) }
        XCTAssertEqual(segments.count, 1, "the eight commits were merged: \(segments)")
        XCTAssertGreaterThan(segments.first?.postings ?? 0, 32_768)
        XCTAssertEqual(try store.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM segment WHERE packed IS NULL") }, 0,
                       "the merged segment is packed")
        XCTAssertEqual(try store.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM postings") }, 0)
        let after = try ["merge3", "mer", "v4", "w1234", "packed", "u"].map { try search($0, limit: 50, lists: false) }
        XCTAssertEqual(after, before)
        XCTAssertEqual(try search("w1234").first, "m1234")
        XCTAssertEqual(Set(try search("merge3")).count, (0..<3_200).filter { $0 % 13 == 3 }.count)
        try store.checkIntegrity()
    }

    /// A packed segment finds a term and a prefix's terms by binary search over its sorted texts, and reads a blob
    /// whose lists are in any other order as well (through a sorted permutation).
    func testPackedSegmentsFindTermsAndPrefixesAsAScanWould() throws {
        var random = SplitMix64(state: 42)
        let alphabet = Array("abcé".unicodeScalars)
        var texts = Set<String>()
        while texts.count < 400 {
            texts.insert(String(String.UnicodeScalarView((0..<Int(random.next() % 5 + 1)).map { _ in alphabet[Int(random.next() % 4)] })))
        }
        let sorted = texts.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for lists in [sorted, sorted.shuffled(using: &random)] {
            let blob = PackedSegment.encode(lists.enumerated().map { n, text in
                (text, PostingCodec.encode((0...(n % 3)).map { (item: Int64(n * 3 + $0), tiers: UInt8(1)) }))
            })
            let counts = Dictionary(uniqueKeysWithValues: lists.enumerated().map { (Array($1.utf8), $0 % 3 + 1) })
            let segment = try blob.withUnsafeBytes { try PackedSegment($0) }
            for probe in Set(texts.map { String($0.prefix(3)) } + ["", "z", "ab", "éé", "abcéa"]) {
                let bytes = Array(probe.utf8)
                let expected = segment.texts.indices.filter { segment.texts[$0].starts(with: bytes) }
                    .sorted { segment.texts[$0].lexicographicallyPrecedes(segment.texts[$1]) }
                XCTAssertEqual(segment.positions(startingWith: bytes), expected, probe)
                XCTAssertEqual(segment.position(of: bytes), segment.texts.firstIndex(of: bytes), probe)
                // Its dictionary's range of the probe, with each list's postings (`SegmentVocabulary`).
                var walked: [([UInt8], Int)] = []
                try segment.forEachTerm(from: bytes, below: bytes + Typos.SpanWalk.beyond) { walked.append((Array($0), $1)) }
                XCTAssertEqual(walked.map(\.0), expected.map { segment.texts[$0] }, probe)
                XCTAssertEqual(walked.map(\.1), walked.map { counts[$0.0] }, probe)
                XCTAssertEqual(try segment.count(of: bytes), counts[bytes] ?? 0, probe)
            }
        }
    }

    /// `PrefixLists.unchanged`, which reads a list's items and keys and steps over its identifiers, agrees with
    /// deciding on the decoded list: random lists, removals and additions, many of them tying the last key.
    func testAListIsLeftAsItIsExactlyWhenNoChangeCouldEnterIt() {
        var random = SplitMix64(state: 9)
        for round in 0..<2_000 {
            let count = Int(random.next() % 6)
            var entries = (0..<count).map { n in
                PrefixLists.Entry(item: Int64(n + 1), key: Double(random.next() % 4), uid: "app:\(random.next() % 50)")
            }
            entries.sort(by: PrefixLists.Entry.precedes)
            let data = PrefixLists.encode(entries)
            let removed: Set<Int64>? = random.next() % 3 == 0 ? [Int64(random.next() % 8)] : nil
            var added: PrefixLists.Changes.Added? = nil
            if random.next() % 4 != 0 {
                var a = PrefixLists.Changes.Added()
                for n in 0..<Int(random.next() % 3 + 1) {
                    a.insert(PrefixLists.Entry(item: Int64(100 + n), key: Double(random.next() % 4), uid: "app:\(random.next() % 50)"))
                }
                added = a
            }
            var expected = true
            if let removed, entries.contains(where: { removed.contains($0.item) }) { expected = false }
            if let added, !added.entries.isEmpty {
                if let last = entries.last {
                    if added.entries.contains(where: { PrefixLists.Entry.precedes($0, last) }) { expected = false }
                } else {
                    expected = false
                }
            }
            XCTAssertEqual(PrefixLists.unchanged(data, removing: removed, adding: added), expected, "round \(round)")
        }
    }

    /// A large segment's columns are read in the background: the first search ranks from the item rows, later ones
    /// from the columns, with the same result.
    func testColumnsOfLargeSegmentsAreReadInTheBackgroundWithTheSameRanking() throws {
        try store.apply((0..<6_000).map { .upsert(item("c\($0)", title: "column \($0 % 50)", text: "row \($0)", hint: Double($0 % 101))) },
                        now: now)
        let cold = try search("colu", limit: 30, lists: false)
        store.columnCache.waitForBuilds()
        let columns = try store.read { try store.columnCache.columns($0, store: store) }
        XCTAssertEqual(columns.entries.count, try store.segmentSummary().count)
        XCTAssertTrue(columns.complete, "every segment has its columns now")
        XCTAssertEqual(try search("colu", limit: 30, lists: false), cold)
        XCTAssertEqual(try search("column 7", limit: 30, lists: false).count, 30)
    }

    /// A large segment's columns are read in the background a part at a time, each part a read transaction of its
    /// own (one over PyPI's 640,000-item segment kept every checkpoint from copying the writes committed meanwhile
    /// for most of a second), and come out as one read in a single snapshot gives them (deleted items absent).
    func testColumnsOfALargeSegmentAreReadInPartsAndEqualOneRead() throws {
        try store.apply((0..<6_000).map { .upsert(item("p\($0)", title: "part \($0 % 50)", text: "row \($0)", hint: Double($0 % 101))) },
                        now: now)
        store.columnCache.partSpan.store(500, ordering: .relaxed)
        try store.apply([.delete(identifiers: ["p17", "p4321"])], now: now)
        _ = try search("part", limit: 10, lists: false)
        store.columnCache.waitForBuilds()
        XCTAssertGreaterThanOrEqual(store.columnCache.partsRead.load(ordering: .relaxed), 12, "6,000 ids in parts of 500")
        let (cached, whole) = try store.read { db -> (StaticColumns, [SegmentColumns]) in
            let cached = try store.columnCache.columns(db, store: store)
            let whole = try Row.fetchAll(db, sql: "SELECT firstItem, lastItem FROM segment ORDER BY firstItem").map {
                try SegmentColumns(db, firstItem: $0[0], lastItem: $0[1])
            }
            return (cached, whole)
        }
        XCTAssertTrue(cached.complete)
        var compared = 0
        for column in whole {
            for id in column.firstItem...column.lastItem {
                let i = Int(id - column.firstItem)
                guard let (hint, lastUsed, e, j) = cached.signals(id), let other = cached.entries[e].columns else {
                    XCTAssertFalse(column.present[i], "item \(id) is in the rows but not in the columns")
                    continue
                }
                XCTAssertTrue(column.present[i], "item \(id) is in the columns but not in the rows")
                XCTAssertEqual(hint, column.hint[i].isNaN ? nil : column.hint[i], "item \(id)")
                XCTAssertEqual(lastUsed, column.lastUsed[i].isNaN ? nil : column.lastUsed[i], "item \(id)")
                XCTAssertEqual(other.uid(at: j), column.uid(at: i))
                XCTAssertEqual(other.nameKey[j], column.nameKey[i])
                compared += 1
            }
        }
        XCTAssertGreaterThan(compared, 5_990)
    }

    func testChurnDropsDeadPostingsAndKeepsDiskBounded() throws {
        let batch = (0..<500).map { item("i\($0)", title: "title \($0) words", text: String(repeating: "lorem ipsum dolor \($0) ", count: 5)) }
        try store.apply(batch.map { .upsert($0) }, now: now)
        try store.performMaintenance()
        func textIndexBytes() throws -> Int {
            try store.read {
                try Int.fetchOne($0, sql: """
                    SELECT coalesce((SELECT sum(length(data)) FROM postings), 0)
                         + coalesce((SELECT sum(length(data)) FROM termBlock), 0)
                         + coalesce((SELECT sum(length(data)) FROM postingData), 0)
                         + coalesce((SELECT sum(length(packed)) FROM segment), 0)
                    """) ?? 0
            }
        }
        let fresh = try textIndexBytes()
        for _ in 0..<5 {
            try store.apply(batch.map { .upsert($0) }, now: now)
            try store.performMaintenance()
        }
        let after = try textIndexBytes()
        XCTAssertGreaterThan(fresh, 0)
        XCTAssertLessThan(Double(after), Double(fresh) * 1.3, "dead postings are merged away: \(after) bytes against \(fresh)")
        let segments = try store.segmentSummary()
        XCTAssertEqual(segments.reduce(0) { $0 + $1.items - $1.deadItems }, 500)
        XCTAssertEqual(Set(try search("lorem")).count, 500)
        try store.checkIntegrity()
    }

    /// Deleting an item of a packed segment counts it in `segmentDead`, never by rewriting the segment's row (which
    /// holds the whole segment: up to a megabyte, every overflow page of it rewritten by a single delete). The
    /// counts add up with what an older version counted in `segment.deadItems`, and go with their segment.
    func testDeletesAreCountedWithoutRewritingPackedSegments() throws {
        try store.apply((0..<40).map { .upsert(item("p\($0)", title: "packed \($0)", text: "shared words \($0)")) }, now: now)
        func rows() throws -> [(id: Int64, dead: Int, packed: Data?)] {
            try store.read { db in
                try Row.fetchAll(db, sql: "SELECT id, deadItems, packed FROM segment ORDER BY id").map {
                    (try $0.stored(0), try $0.stored(1), try $0.stored(2))
                }
            }
        }
        let before = try rows()
        let packed = try XCTUnwrap(before.first { $0.packed != nil }, "a small batch is one packed segment")
        try store.apply([.delete(identifiers: ["p3"])], now: now)
        try store.apply([.upsert(item("p4", title: "changed"))], now: now)
        let after = try rows()
        let same = try XCTUnwrap(after.first { $0.id == packed.id })
        XCTAssertEqual(same.dead, packed.dead, "the segment's row is left as it was")
        XCTAssertEqual(same.packed, packed.packed)
        XCTAssertEqual(try store.read { try Int.fetchOne($0, sql: "SELECT dead FROM segmentDead WHERE segment = ?", arguments: [packed.id]) }, 2)
        XCTAssertEqual(try store.segmentSummary().first?.deadItems, 2)
        // What a version that counted in the row wrote adds up with the table.
        try store.writeTransaction { try $0.execute(sql: "UPDATE segment SET deadItems = deadItems + 1 WHERE id = ?", arguments: [packed.id]) }
        XCTAssertEqual(try store.segmentSummary().first?.deadItems, 3)
        XCTAssertEqual(try store.read { try IndexStore.approximateItemCount($0) }, 40 - 3 + 1)
        // A rewrite or merge takes its segments' counts with them.
        try store.apply((0..<30).map { .delete(identifiers: ["p\($0 + 5)"]) }, now: now)
        try store.performMaintenance()
        XCTAssertEqual(try store.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM segmentDead WHERE segment = ?", arguments: [packed.id]) }, 0)
        XCTAssertEqual(try store.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM segment WHERE id = ?", arguments: [packed.id]) }, 0,
                       "a segment with most of its items dead is rewritten")
        XCTAssertEqual(Set(try search("shared")), Set(["p0", "p1", "p2"] + (35..<40).map { "p\($0)" }))
        try store.apply([.deleteAll], now: now)
        XCTAssertEqual(try store.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM segmentDead") }, 0)
        try store.checkIntegrity()
    }

    /// The same churn with every segment stored as rows (none packed): merges read the segments' ranges of the
    /// postings table side by side, term by term.
    func testChurnThroughMergesOfRowSegments() throws {
        PackedSegment.limit.store(0, ordering: .relaxed)
        defer { PackedSegment.limit.store(PackedSegment.defaultLimit, ordering: .relaxed) }
        try testChurnDropsDeadPostingsAndKeepsDiskBounded()
        try store.apply((0..<300).map { .upsert(item("x\($0)", title: "extra \($0)")) }, now: now)
        for i in 0..<20 { try store.apply([.upsert(item("i\(i)", title: "changed \(i)"))], now: now) }
        try store.performMaintenance()
        XCTAssertEqual(Set(try search("changed")).count, 20)
        XCTAssertEqual(Set(try search("lorem")).count, 480, "the 20 changed items lost their text")
        XCTAssertEqual(Set(try search("extra")).count, 300)
        try store.checkIntegrity()
    }

    /// A merge prepared before every item was removed must not be written over the segments written since, even
    /// where they got the same ids (found by the model fuzz: an item's postings vanished).
    func testAMergePreparedBeforeRemovingEverythingIsNotWritten() throws {
        for i in 0..<9 { try store.apply([.upsert(item("old\(i)", title: "old \(i)"))], now: now) }
        store.waitForMaintenance()
        try store.apply((0..<9).map { .upsert(item("old\($0)", title: "old \($0)")) }, now: now)
        let segmentsBefore = try store.read { try SegmentMerger.segments($0) }
        let run = Array(segmentsBefore.suffix(1))
        let prepared = try store.read { try SegmentMerger.prepare($0, run) }
        try store.apply([.deleteAll], now: now)
        for i in 0..<(segmentsBefore.count + 12) { try store.apply([.upsert(item("new\(i)", title: "fresh \(i)"))], now: now) }
        XCTAssertFalse(try store.writeTransaction { try SegmentMerger.commit($0, prepared) }, "the segments it read are gone")
        XCTAssertEqual(Set(try search("fresh")).count, segmentsBefore.count + 12)
        XCTAssertEqual(try search("old"), [])
        try store.checkIntegrity()
    }

    func testMergePolicyMergesTheOldestOfTheNewestRunOfOneLevel() {
        func info(_ id: Int64, postings: Int, dead: Int = 0, items: Int = 10) -> SegmentMerger.SegmentInfo {
            .init(id: id, firstItem: id * 100, lastItem: id * 100 + 99, items: items, postings: postings, deadItems: dead)
        }
        XCTAssertNil(SegmentMerger.nextMerge((1...7).map { info($0, postings: 10) }))
        // Nine of one level: the oldest eight, so that the one left is next to the segments written after it (the
        // newest eight left the oldest between two higher levels, never merged again).
        XCTAssertEqual(SegmentMerger.nextMerge((1...9).map { info($0, postings: 10) })?.map(\.id), Array(1...8))
        // Of two runs of one level each long enough, the newest run.
        let twoRuns = (1...8).map { info($0, postings: 10) } + [info(9, postings: 1_000_000)] + (10...18).map { info($0, postings: 10) }
        XCTAssertEqual(SegmentMerger.nextMerge(twoRuns)?.map(\.id), Array(10...17))
        // A big segment between small ones splits the run: the newest four wait for more (later writes join them),
        // the oldest four are stranded before it and merge into it (`testMergePolicyMergesAStrandedRunIntoItsSmallerNeighbour`).
        let mixed = (1...4).map { info($0, postings: 10) } + [info(5, postings: 1_000_000)] + (6...9).map { info($0, postings: 10) }
        XCTAssertEqual(SegmentMerger.nextMerge(mixed)?.map(\.id), Array(1...5))
        XCTAssertNil(SegmentMerger.nextMerge(Array(mixed[4...])))
        // Too many dead items: rewritten alone.
        XCTAssertEqual(SegmentMerger.nextMerge([info(1, postings: 10), info(2, postings: 10, dead: 5)])?.map(\.id), [2])
    }

    /// A run of one level between higher levels (as a batch written after a few single writes leaves them) never
    /// reaches `mergeFactor`: it is merged with its smaller neighbour, and a store converges to descending levels.
    func testMergePolicyMergesAStrandedRunIntoItsSmallerNeighbour() {
        func info(_ id: Int64, postings: Int) -> SegmentMerger.SegmentInfo {
            .init(id: id, firstItem: id * 100, lastItem: id * 100 + 99, items: 10, postings: postings, deadItems: 0)
        }
        let big = 1_000_000, medium = 200_000, small = 10
        XCTAssertGreaterThan(info(0, postings: big).level, info(0, postings: medium).level)
        XCTAssertGreaterThan(info(0, postings: medium).level, info(0, postings: small).level)
        // Descending levels, the newest last: nothing to do.
        XCTAssertNil(SegmentMerger.nextMerge([info(1, postings: big), info(2, postings: medium), info(3, postings: small)]))
        // Two single writes between a bulk load's segment and a later batch's: with the batch, the smaller side.
        XCTAssertEqual(SegmentMerger.nextMerge([info(1, postings: big), info(2, postings: small), info(3, postings: small),
                                                info(4, postings: medium)])?.map(\.id), [2, 3, 4])
        // With the older neighbour when it is the smaller.
        XCTAssertEqual(SegmentMerger.nextMerge([info(1, postings: medium), info(2, postings: small), info(3, postings: big)])?.map(\.id),
                       [1, 2])
        // The oldest run, below the one after it, merges with that one.
        XCTAssertEqual(SegmentMerger.nextMerge([info(1, postings: small), info(2, postings: big)])?.map(\.id), [1, 2])
        // A level's merge goes first.
        let run = (10...17).map { info($0, postings: small) }
        XCTAssertEqual(SegmentMerger.nextMerge([info(1, postings: big), info(2, postings: small), info(3, postings: medium)] + run)?
            .map(\.id), Array(10...17))
        // Both corpora's bulk load as the old policy left it (2026-12-07: 18 segments at rest, levels 4 2 2 3 3
        // 2×6 3×7): the policy alone, each merge applied, ends with descending levels and no run of eight.
        var segments: [SegmentMerger.SegmentInfo] = []
        var id: Int64 = 1
        func add(_ postings: Int, _ n: Int = 1) {
            for _ in 0..<n {
                segments.append(info(id, postings: postings))
                id += 1
            }
        }
        add(12_651_515); add(192_000, 2); add(1_555_000, 2); add(195_000, 6); add(600_000, 7)
        var merges = 0
        while let merge = SegmentMerger.nextMerge(segments), merges < 100 {
            let start = segments.firstIndex { $0.id == merge[0].id }!
            XCTAssertEqual(segments[start..<(start + merge.count)].map(\.id), merge.map(\.id), "merges adjacent segments")
            let merged = SegmentMerger.SegmentInfo(id: 1_000 + Int64(merges), firstItem: merge[0].firstItem,
                                                   lastItem: merge.last!.lastItem, items: merge.reduce(0) { $0 + $1.items },
                                                   postings: merge.reduce(0) { $0 + $1.postings }, deadItems: 0)
            segments.replaceSubrange(start..<(start + merge.count), with: [merged])
            merges += 1
        }
        XCTAssertLessThan(merges, 100)
        XCTAssertLessThanOrEqual(segments.count, 4)
        XCTAssertEqual(segments.map(\.level), segments.map(\.level).sorted(by: >), "levels descend from the oldest")
    }

    func testReadsNeverWriteEvenWhenMaintenanceIsDue() throws {
        for i in 0..<40 {
            try store.apply([.upsert(item("i\(i)", title: "entry \(i)"))], now: now)
        }
        store.waitForMaintenance()
        let writes = store.writeTransactions.load(ordering: .relaxed)
        for text in ["e", "en", "ent", "entry", "entry 1", "zz", ""] { _ = try search(text) }
        _ = try planned(#"title == "entry*""#)
        Thread.sleep(forTimeInterval: 0.1)
        XCTAssertEqual(store.writeTransactions.load(ordering: .relaxed), writes)
    }

    /// Prefix lists kept by writers under random batches of inserts, replacements and deletes give exactly what
    /// ranking every match gives (the lists' invariant: whatever is not in a list ranks below its last entry).
    func testPrefixListsStayExactUnderRandomBatches() throws {
        var random = SplitMix64(state: 99)
        let words = ["apple", "apricot", "april", "ample", "amber", "banana", "band", "bandit", "ab", "abc"]
        var live = Set<String>()
        for round in 0..<40 {
            var operations: [IndexOperation] = []
            for _ in 0..<Int(random.next() % (round % 2 == 0 ? 120 : 500) + 1) {
                let id = "i\(random.next() % 400)"
                if random.next() % 4 == 0 {
                    operations.append(.delete(identifiers: [id]))
                    live.remove(id)
                } else {
                    let title = (0..<Int(random.next() % 3 + 1)).map { _ in words[Int(random.next() % UInt64(words.count))] }.joined(separator: " ")
                    operations.append(.upsert(item(id, title: title, hint: Double(random.next() % 101))))
                    live.insert(id)
                }
            }
            try store.apply(operations, now: now)
            if round % 5 == 4 { try store.performMaintenance() }
            for prefix in ["a", "ab", "ap", "apr", "b", "ban", "am"] {
                for limit in [5, 20, 50, 63] {
                    XCTAssertEqual(try search(prefix, limit: limit), try search(prefix, limit: limit, lists: false), "round \(round), \(prefix), limit \(limit)")
                }
            }
        }
        XCTAssertEqual(try store.count(now: now), live.count)
    }

    /// Batches larger than a prepared window (`PreparedUpsert.Window`): each window's prefix offers (made on
    /// another core under the items' positions) and its terms' counts are taken in at the window's end. Items
    /// replaced or deleted within their own window, in a later window of the batch, and in a later batch leave
    /// the lists exact and the document frequencies right.
    /// A large write whose last window has too few new items to be prepared (they take the single-item way)
    /// replaces and deletes items that earlier windows of the same write added, and items it wrote in that window:
    /// records compressed with the dictionary the write trained, which the store has only once the write ends,
    /// are read back all the same.
    func testAnUnpreparedLastWindowReplacesItemsOfTheSameWrite() throws {
        var replaced = 0
        for tail in [10, 1, PreparedUpsert.parallelThreshold - 1] {
            replaced += tail > 2 ? tail - 1 : tail
            let count = PreparedUpsert.window + PreparedUpsert.firstWindow
            let prefix = "t\(tail)-"
            var operations: [IndexOperation] = (0..<count).map {
                .upsert(item(prefix + "\($0)", title: "first version \($0) of many records", text: "words to train a dictionary on \($0 % 97)"))
            }
            operations += (0..<(tail > 2 ? tail - 2 : tail)).map { .upsert(item(prefix + "\($0)", title: "second version \($0)")) }
            if tail > 2 {
                // Written in a row by the last window and replaced in it: in the first write, its record is
                // compressed with the dictionary the write trained.
                operations += [.upsert(item(prefix + "late", title: "late first words", text: "words to train a dictionary on 1")),
                               .upsert(item(prefix + "late", title: "second version late"))]
            }
            operations.append(.delete(identifiers: [prefix + "\(count - 1)"]))
            operations += (0..<PreparedUpsert.window / 4).map { .delete(identifiers: ["absent-\($0)"]) }
            let last = try XCTUnwrap(PreparedUpsert.windows(operations.count).last)
            XCTAssertEqual(last.lowerBound, count)
            XCTAssertLessThan(operations[last].filter { if case .upsert = $0 { return true } else { return false } }.count,
                              PreparedUpsert.parallelThreshold, "the last window is not prepared")
            try store.apply(operations, now: now)
            XCTAssertEqual(try store.item(withIdentifier: prefix + "0")?.attributes["title"], .string("second version 0"))
            XCTAssertEqual(try store.item(withIdentifier: prefix + "\(tail)")?.attributes["title"],
                           .string("first version \(tail) of many records"))
            XCTAssertNil(try store.item(withIdentifier: prefix + "\(count - 1)"))
            if tail > 2 { XCTAssertEqual(try store.item(withIdentifier: prefix + "late")?.attributes["title"], .string("second version late")) }
            XCTAssertEqual(try search("second", lists: false).count, replaced)
            try store.checkIntegrity()
        }
    }

    func testPrefixListsAndFrequenciesStayExactAcrossPreparedWindows() throws {
        var random = SplitMix64(state: 2026)
        let words = ["apple", "apricot", "april", "ample", "amber", "banana", "band", "bandit", "ab", "abc", "cherry"]
        var live: [String: String] = [:]
        for round in 0..<3 {
            var operations: [IndexOperation] = []
            for _ in 0..<(PreparedUpsert.window * 2 + 300) {
                let id = "i\(random.next() % 3_000)"
                if random.next() % 8 == 0 {
                    operations.append(.delete(identifiers: [id]))
                    live[id] = nil
                } else {
                    let title = (0..<Int(random.next() % 3 + 1)).map { _ in words[Int(random.next() % UInt64(words.count))] }
                        .joined(separator: " ")
                    operations.append(.upsert(item(id, title: title, hint: Double(random.next() % 101))))
                    live[id] = title
                }
            }
            try store.apply(operations, now: now)
            for prefix in ["a", "ab", "ap", "apr", "b", "ban", "am", "c"] {
                for limit in [5, 20, 63, 300] {
                    XCTAssertEqual(try search(prefix, limit: limit), try search(prefix, limit: limit, lists: false),
                                   "round \(round), \(prefix), limit \(limit)")
                }
            }
            for word in words {
                // A frequency counts deleted items until their segment is merged (`SegmentVocabulary`): never
                // below the live items, and 0 exactly when none holds the word.
                let holding = live.values.filter { $0.split(separator: " ").contains(Substring(word)) }.count
                let frequency = try store.documentFrequency(of: word)
                XCTAssertGreaterThanOrEqual(frequency, holding, "round \(round), \(word)")
                XCTAssertEqual(frequency == 0, holding == 0, "round \(round), \(word)")
            }
            XCTAssertEqual(try store.count(now: now), live.count)
            try store.checkIntegrity()
        }
        XCTAssertEqual(Set(try search("a b c", lists: false)).isSubset(of: Set(live.keys)), true)
    }

    /// Writes that change more lists than `PrefixLists.parallelMerges` merge them on every core: the lists stay
    /// what ranking every match gives, through additions, replacements, deletes and refills.
    func testListsMergedOnEveryCoreStayExact() throws {
        var random = SplitMix64(state: 20261127)
        let letters = Array("abcdefghij")
        let words = (0..<1_500).map { _ in String((0..<5).map { _ in letters[Int(random.next() % 10)] }) }
        var live = Set<String>()
        let runs = PrefixLists.parallelApplies.load(ordering: .relaxed)
        for round in 0..<4 {
            var operations: [IndexOperation] = []
            for _ in 0..<1_500 {
                let id = "i\(random.next() % 2_500)"
                if round > 0, random.next() % 3 == 0 {
                    operations.append(.delete(identifiers: [id]))
                    live.remove(id)
                } else {
                    let title = (0..<Int(random.next() % 3 + 1)).map { _ in words[Int(random.next() % 1_500)] }
                        .joined(separator: " ")
                    operations.append(.upsert(item(id, title: title, hint: Double(random.next() % 50))))
                    live.insert(id)
                }
            }
            try store.apply(operations, now: now)
            for prefix in ["a", "b", "j", "ab", "ba", "jj", "abc", "cab", "jig", "dea", "fff"] {
                for limit in [5, 40, 0] {
                    XCTAssertEqual(try search(prefix, limit: limit), try search(prefix, limit: limit, lists: false),
                                   "round \(round), \(prefix), limit \(limit)")
                }
            }
            XCTAssertEqual(try store.count(now: now), live.count)
            // The items a round replaced or deleted left every list (searches skip what a list still names, so
            // only the lists themselves show it).
            let stale = try store.read { db -> [String] in
                var existing = Set<Int64>()
                try ItemCatalog(db).forEachID(in: Int64.min...Int64.max) { existing.insert($0) }
                return try Row.fetchAll(db, sql: "SELECT prefix, entries FROM prefixTop").compactMap { row in
                    let entries = PrefixLists.decode(try row.stored(1) as Data)
                    return entries.contains { !existing.contains($0.item) } ? try row.stored(0) as String : nil
                }
            }
            XCTAssertEqual(stale, [], "round \(round): lists naming items that are gone")
        }
        XCTAssertGreaterThanOrEqual(PrefixLists.parallelApplies.load(ordering: .relaxed) - runs, 4,
                                    "every round changed more than \(PrefixLists.parallelMerges) lists")
        try store.checkIntegrity()
    }

    /// A large write that deletes most of an incomplete list's items refills the list from the postings, in the
    /// same transaction: the postings of the items that write added must be there by then (its segment is encoded
    /// on another core while the write goes on, and inserted before the lists are updated).
    func testAListRefilledByALargeWriteHoldsTheItemsThatWriteAdded() throws {
        // (Lists with their entries, to read the refilled one's: `CountedListTests` covers counted ones.)
        try withWholeLists {
        try store.apply((0..<200).map { .upsert(item("old\($0)", title: "zebra \($0)", hint: Double(200 - $0))) }, now: now)
        let before = try search("zeb", limit: 10)
        XCTAssertEqual(before, try search("zeb", limit: 10, lists: false))
        // 180 of the 200 deleted (the 64 the list kept among them), ten new ones, and enough other upserts for
        // the write to be a large, prepared one.
        var operations: [IndexOperation] = (0..<180).map { .delete(identifiers: ["old\($0)"]) }
        operations += (0..<10).map { .upsert(item("new\($0)", title: "zebra fresh \($0)", hint: 1)) }
        operations += (0..<100).map { .upsert(item("yak\($0)", title: "yak \($0)")) }
        try store.apply(operations, now: now)
        let withLists = try search("zeb", limit: 0)
        XCTAssertEqual(withLists.count, 30)
        XCTAssertEqual(Set(withLists), Set(try search("zeb", limit: 0, lists: false)))
        XCTAssertEqual(try search("zeb", limit: 25), try search("zeb", limit: 25, lists: false))
        let list = try XCTUnwrap(try store.read { try PrefixLists.list("zeb", db: $0) })
        XCTAssertTrue(list.complete, "refilled from the postings: all 30 fit")
        XCTAssertEqual(Set(list.entries.map(\.uid)), Set(withLists))
        }
    }

    /// Single-item commits into full, incomplete lists, which a commit checks on their bytes and leaves alone when
    /// the item is neither in them nor good enough for them (`PrefixLists.unchanged`).
    func testPrefixListsStayExactUnderSingleItemCommits() throws {
        var random = SplitMix64(state: 7)
        let words = ["apple", "apricot", "april", "ample", "amber", "banana", "band", "bandit"]
        func title() -> String {
            (0..<Int(random.next() % 2 + 1)).map { _ in words[Int(random.next() % UInt64(words.count))] }.joined(separator: " ")
        }
        // More items than a list keeps, so the lists of "a", "ap", "ban" … are incomplete.
        try store.apply((0..<600).map { .upsert(item("i\($0)", title: title(), hint: Double(random.next() % 101))) }, now: now)
        for step in 0..<300 {
            let id = "i\(random.next() % 700)"
            switch random.next() % 3 {
            case 0: try store.apply([.delete(identifiers: [id])], now: now)
            default: try store.apply([.upsert(item(id, title: title(), hint: Double(random.next() % 101)))], now: now)
            }
            if step % 50 == 49 { try store.performMaintenance() }
            for prefix in ["a", "ap", "apr", "b", "ban", "am"] where step % 10 == 0 || prefix == "a" {
                XCTAssertEqual(try search(prefix, limit: 20), try search(prefix, limit: 20, lists: false), "step \(step), \(prefix)")
            }
        }
    }

    // MARK: - Upgrading format 1

    /// Writes a store the way format 1 did: one `posting` row per (term, item), ids reused in place by updates.
    func makeFormat1Store(at url: URL, items: [StoredItem], clientState: Data?) throws {
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            try db.execute(sql: """
                PRAGMA journal_mode = WAL;
                CREATE TABLE meta(key TEXT PRIMARY KEY, value BLOB);
                CREATE TABLE item(id INTEGER PRIMARY KEY, uid TEXT NOT NULL UNIQUE, domain TEXT, expires REAL NOT NULL,
                    hint REAL, lastUsed REAL, attrs BLOB NOT NULL);
                CREATE INDEX item_domain ON item(domain) WHERE domain IS NOT NULL;
                CREATE INDEX item_expires ON item(expires);
                CREATE TABLE term(id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE, df INTEGER NOT NULL DEFAULT 0);
                CREATE TABLE posting(term INTEGER NOT NULL, item INTEGER NOT NULL, tiers INTEGER NOT NULL,
                    PRIMARY KEY(term, item)) WITHOUT ROWID;
                CREATE TABLE attrValue(attr TEXT NOT NULL, value REAL NOT NULL, item INTEGER NOT NULL,
                    PRIMARY KEY(attr, value, item)) WITHOUT ROWID;
                CREATE TABLE prefixTop(prefix TEXT PRIMARY KEY, complete INTEGER NOT NULL, entries BLOB NOT NULL) WITHOUT ROWID;
                INSERT INTO meta(key, value) VALUES('formatVersion', 1);
                """)
            if let clientState {
                try db.execute(sql: "INSERT INTO meta(key, value) VALUES('clientState', ?)", arguments: [clientState])
            }
            for (n, item) in items.enumerated() {
                let id = Int64(n + 1)
                try db.execute(sql: "INSERT INTO item(id, uid, domain, expires, hint, lastUsed, attrs) VALUES(?, ?, ?, ?, ?, NULL, ?)",
                               arguments: [id, item.uniqueIdentifier, item.domainIdentifier,
                                           item.expirationDate.timeIntervalSinceReferenceDate, item.rankingHint,
                                           Data(ValueCodec.encode(attributes: item.attributes, custom: item.customAttributes))])
                for (text, tiers) in TextIndexer.terms(attributes: item.attributes, custom: item.customAttributes, domain: item.domainIdentifier) {
                    try db.execute(sql: "INSERT OR IGNORE INTO term(text) VALUES(?)", arguments: [text])
                    try db.execute(sql: "UPDATE term SET df = df + 1 WHERE text = ?", arguments: [text])
                    try db.execute(sql: "INSERT INTO posting(term, item, tiers) SELECT id, ?, ? FROM term WHERE text = ?",
                                   arguments: [id, Int(tiers), text])
                }
            }
            // A posting left behind by damage in format 1: dropped by the upgrade, not carried over.
            try db.execute(sql: "INSERT INTO posting(term, item, tiers) SELECT id, 9999, 1 FROM term LIMIT 1")
        }
        try queue.close()
    }

    func testFormat1StoresAreUpgradedInPlaceWithNothingLost() throws {
        try store.close()
        let url = directory.appendingPathComponent("old.sqlite")
        let items = (0..<300).map { item("old\($0)", title: "legacy record \($0)", text: "kept text \($0 % 10)", hint: Double($0 % 50)) }
        try makeFormat1Store(at: url, items: items, clientState: Data("token-41".utf8))
        store = try IndexStore(url: url)
        XCTAssertEqual(try store.read { try Int.fetchOne($0, sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'formatVersion'") },
                       IndexStore.formatVersion, "upgraded through format 2 to today's")
        XCTAssertFalse(try store.read { try $0.tableExists("posting") })
        XCTAssertEqual(try search("legacy record 7", limit: 1), ["old7"], "the exact name first: names were read from the old rows")
        XCTAssertEqual(try store.clientState(), Data("token-41".utf8))
        XCTAssertEqual(try store.count(now: now), 300)
        XCTAssertEqual(try search("legacy").count, 300)
        XCTAssertEqual(try search("7 kept").count, 30)
        try store.checkIntegrity()
        // Writes after the upgrade get new ids above the old ones, so old segments never see them.
        try store.apply([.upsert(item("old5", title: "renamed")), .upsert(item("new", title: "legacy newcomer"))], now: now)
        XCTAssertEqual(try search("legacy").count, 300)
        XCTAssertEqual(try search("renamed"), ["old5"])
        try store.checkIntegrity()
        // Opening it again changes nothing.
        try store.close()
        store = try IndexStore(url: url)
        XCTAssertEqual(try search("legacy").count, 300)
    }

    func testFormat2StoresGetNameSignalsAndListsWithTodaysKeys() throws {
        try store.close()
        let url = directory.appendingPathComponent("v2.sqlite")
        // "air" is an obscure item whose whole name is the typed text; forty popular items have "air" as their
        // first name word.
        let items = [item("air", title: "Air", hint: 0)]
            + (0..<40).map { item(String(format: "air-%02d", $0), title: "air pump \($0)", hint: 90) }
        store = try IndexStore(url: url)
        try store.apply(items.map { .upsert($0) }, now: now)
        // (A write this small leaves its list changes pending: applied now, as format 2 kept them.)
        try store.performMaintenance()
        try store.close()
        // Taken back to format 2: no name columns, and the list of "air" with format 2's key for the item (8 for the
        // word, nothing for the name), which puts it last.
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            for column in ["nameWords", "nameFirst", "nameKey"] { try db.execute(sql: "ALTER TABLE item DROP COLUMN \(column)") }
            try db.execute(sql: "UPDATE meta SET value = 2 WHERE key = 'formatVersion'")
            let air = try XCTUnwrap(Int64.fetchOne(db, sql: "SELECT id FROM item WHERE uid = 'air'"))
            var entries = PrefixLists.decode(try XCTUnwrap(Data.fetchOne(db, sql: "SELECT entries FROM prefixTop WHERE prefix = 'air'")))
            for i in entries.indices where entries[i].item == air { entries[i].key = 8 }
            entries.sort(by: PrefixLists.Entry.precedes)
            try db.execute(sql: "UPDATE prefixTop SET entries = ? WHERE prefix = 'air'", arguments: [PrefixLists.encode(entries)])
        }
        try queue.close()
        store = try IndexStore(url: url)
        XCTAssertEqual(try store.read { try Int.fetchOne($0, sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'formatVersion'") },
                       IndexStore.formatVersion)
        let row = try XCTUnwrap(try store.read { try Row.fetchOne($0, sql: "SELECT nameWords, nameFirst FROM item WHERE uid = 'air-07'") })
        XCTAssertEqual(row[0] as Int, 3)
        XCTAssertEqual(row[1] as String, "air")
        // The list was built again with today's keys: the exact name comes first from the list as from every match.
        XCTAssertEqual(try search("air", limit: 3), ["air", "air-00", "air-01"])
        XCTAssertEqual(try search("air", limit: 3, lists: false), ["air", "air-00", "air-01"])
        XCTAssertEqual(try search("air pump 7"), ["air-07"])
        try store.checkIntegrity()
        // Opening it again changes nothing.
        try store.close()
        store = try IndexStore(url: url)
        XCTAssertEqual(try search("air", limit: 3), ["air", "air-00", "air-01"])
    }

    // MARK: - Term blocks (format 11)

    /// A word of letters only (the tokenizer keeps it whole), different for every `n`.
    private func word(_ n: Int, _ head: String) -> String {
        var n = n, letters = ""
        repeat {
            letters.append(Character(Unicode.Scalar(UInt8(97 + n % 26))))
            n /= 26
        } while n > 0
        return head + letters
    }

    /// Items whose terms fill many term blocks: two words of their own each (some with a non-ASCII letter), a
    /// word every item has (a long list, in `postingData`), and one a tenth of them share.
    private func blockItems(_ count: Int, tag: String) -> [StoredItem] {
        (0..<count).map { i in
            item("\(tag)\(i)", title: "\(word(i, "q")) \(word(i * 7 + 3, i % 5 == 0 ? "ré" : "r")) common \(word(i % 10, "tenth"))")
        }
    }

    /// The items (by identifier) that hold each term, from the indexer itself.
    private func expectedPostings(_ items: [StoredItem]) -> [String: Set<String>] {
        var expected: [String: Set<String>] = [:]
        for item in items {
            for term in TextIndexer.terms(attributes: item.attributes, custom: item.customAttributes).keys {
                expected[term, default: []].insert(item.uniqueIdentifier)
            }
        }
        return expected
    }

    /// A block's point lookup and the start of a range, which skip entries by the bytes they share instead of
    /// rebuilding them, find exactly what comparing every term would: random terms over a small alphabet (long shared prefixes, terms
    /// that are prefixes of others), probed with every term and with random texts.
    func testFindInATermBlockEqualsComparingEveryTerm() throws {
        var random = SplitMix64(state: 11)
        // Whole scalars (one or two bytes), so every text is valid UTF-8; probes also use one no term has.
        let pieces: [[UInt8]] = [[0x61], [0x62], [0x63], [0xC3, 0xA9], [0x64]]
        for round in 0..<200 {
            var texts = Set<[UInt8]>()
            let count = 1 + Int(random.next() % 60)
            while texts.count < count {
                texts.insert((0..<(1 + Int(random.next() % 6))).flatMap { _ in pieces[Int(random.next() % 4)] })
            }
            let sorted = texts.sorted { $0.lexicographicallyPrecedes($1) }
            let lists = sorted.enumerated().map { n, text in
                SegmentMerger.EncodedList(text: String(decoding: text, as: UTF8.self), count: 1,
                                          data: PostingCodec.encode([(item: Int64(n + 1), tiers: UInt8(1))]))
            }
            let encoded = TermBlocks.encode(lists)
            XCTAssertEqual(encoded.blocks.count, 1)
            var probes = sorted
            for _ in 0..<40 {
                probes.append((0..<Int(random.next() % 7)).flatMap { _ in pieces[Int(random.next() % 5)] })
            }
            for probe in probes {
                let expected = sorted.firstIndex(of: probe).map { Int64($0 + 1) }
                let found = try encoded.blocks[0].withUnsafeBytes { bytes -> Int64? in
                    guard let data = try TermBlocks.find(probe, in: bytes, first: sorted[0]) else { return nil }
                    var first: Int64? = nil
                    try PostingCodec.Reader(data).forEach { item, _ in first = first ?? item }
                    return first
                }
                XCTAssertEqual(found, expected, "round \(round), probe \(probe)")
                // Where a range from the probe starts: the first term not before it, rebuilt from the probe's bytes.
                let next = sorted.first { !$0.lexicographicallyPrecedes(probe) }
                let sought = try encoded.blocks[0].withUnsafeBytes { bytes -> [UInt8]? in
                    guard let start = try TermBlocks.seek(probe, in: bytes, first: sorted[0]) else { return nil }
                    var entries = try TermBlocks.Entries(bytes)
                    try entries.resume(at: start.start, term: Array(probe[0..<start.previous]))
                    XCTAssertTrue(try entries.next())
                    XCTAssertEqual(start.isTarget, entries.term == probe)
                    return entries.term
                }
                XCTAssertEqual(sought, next, "round \(round), probe \(probe)")
            }
        }
    }

    /// A large segment's terms are stored in blocks of about 4 KB: every term, and every prefix (inside one block,
    /// across many, before the first and past the last), reads exactly the postings the indexer gave, long lists
    /// included, and `exact` marks the prefix's own term only.
    func testTermBlocksFindEveryTermAndPrefixExactly() throws {
        PackedSegment.limit.store(0, ordering: .relaxed)
        defer { PackedSegment.limit.store(PackedSegment.defaultLimit, ordering: .relaxed) }
        let items = blockItems(3_000, tag: "b")
        try store.apply(items.map { .upsert($0) }, now: now)
        let blocked = try store.read { try BlockedSegment.current($0).blocked }
        XCTAssertEqual(blocked.count, 1)
        XCTAssertGreaterThan(blocked.first?.firsts.count ?? 0, 10, "many blocks")
        XCTAssertEqual(try store.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM postings") }, 0)
        XCTAssertFalse(try store.read { try Int64.fetchAll($0, sql: "SELECT id FROM postingData") }.isEmpty, "a long list")
        XCTAssertTrue(try store.read { try Int.fetchAll($0, sql: "SELECT length(data) FROM termBlock") }.allSatisfy { $0 <= TermBlocks.targetBytes },
                      "each block fits its page")
        let uids = Dictionary(uniqueKeysWithValues: try store.read { db in
            var pairs: [(Int64, String)] = []
            try ItemCatalog(db).forEachEntry { pairs.append(($0.id, $0.uid)); return true }
            return pairs
        })
        func read(_ body: (Database, inout Set<String>) throws -> Void) throws -> Set<String> {
            try store.read { db in
                var found = Set<String>()
                try body(db, &found)
                return found
            }
        }
        let expected = expectedPostings(items)
        for (term, holders) in expected {
            let found = try read { db, found in
                try PostingStore.forEachList(db, text: term) { list in try list.forEach { item, _ in found.insert(uids[item] ?? "?") } }
            }
            XCTAssertEqual(found, holders, term)
        }
        // Terms the segment lacks, next to ones it has: before, between and after them in byte order.
        var absent = ["", "a", "zzzz", "\u{10FFFF}", "commo", "commonz", "q", "tenth"]
        for term in expected.keys.sorted().enumerated().filter({ $0.offset % 7 == 0 }).map(\.element) {
            var next = Array(term.utf8)
            next[next.count - 1] &+= 1
            absent += [term + "a", String(term.dropLast()), String(decoding: next, as: UTF8.self), "0" + term]
        }
        for term in absent {
            let found = try read { db, found in
                try PostingStore.forEachList(db, text: term) { list in try list.forEach { item, _ in found.insert(uids[item] ?? "?") } }
            }
            XCTAssertEqual(found, expected[term] ?? [], term.debugDescription)
        }
        var prefixes = ["", "q", "qa", "qb", "r", "ré", "rz", "tenth", "tenthb", "common", "commonx", "a", "zzz", "\u{10FFFF}"]
        for first in blocked.first?.firsts ?? [] {
            let text = String(decoding: first, as: UTF8.self)
            prefixes += [text, String(text.dropLast()), text + "a"]
        }
        for prefix in prefixes {
            let terms = expected.keys.filter { $0.utf8.starts(with: prefix.utf8) }
            var exact = Set<String>()
            let found = try read { db, found in
                try PostingStore.forEachList(db, termsFrom: prefix, below: prefix + "\u{10FFFF}") { isExact, list in
                    try list.forEach { item, _ in
                        found.insert(uids[item] ?? "?")
                        if isExact { exact.insert(uids[item] ?? "?") }
                    }
                }
            }
            XCTAssertEqual(found, terms.reduce(into: Set<String>()) { $0.formUnion(expected[$1] ?? []) }, prefix.debugDescription)
            XCTAssertEqual(exact, expected[prefix] ?? [], prefix.debugDescription)
        }
        XCTAssertEqual(Set(try search("common")).count, 3_000)
        XCTAssertEqual(try search(word(1_234, "q")).first, "b1234")
        try store.checkIntegrity()
    }

    /// Format 10 stored large segments as posting rows. Opened read-only it is searched as it is; opened for
    /// writing it becomes format 11 with the same results, and the maintenance writes each row segment again, alone,
    /// as term blocks: the same results in less space.
    func testFormat10RowSegmentsAreSearchedAndWrittenAgainAsTermBlocks() throws {
        PackedSegment.limit.store(0, ordering: .relaxed)
        defer { PackedSegment.limit.store(PackedSegment.defaultLimit, ordering: .relaxed) }
        TermBlocks.writesRows.store(true, ordering: .relaxed)
        defer { TermBlocks.writesRows.store(false, ordering: .relaxed) }
        let url = directory.appendingPathComponent("index.sqlite")
        let items = blockItems(1_500, tag: "f")
        for batch in 0..<3 {
            try store.apply(items[(batch * 500)..<(batch * 500 + 500)].map { .upsert($0) }, now: now)
        }
        try store.apply([.delete(identifiers: ["f7"])], now: now)
        XCTAssertEqual(try store.read { try PostingStore.rowSegments($0) }.count, 3, "segments stored as rows")
        let queries = ["common", "q", "re", "tenthb", word(1_234, "q"), word(77 * 7 + 3, "r"), "f7"]
        let before = try queries.map { try search($0) }
        let unlisted = try queries.map { try search($0, lists: false) }
        func textIndexBytes() throws -> Int {
            try store.read {
                try Int.fetchOne($0, sql: """
                    SELECT (SELECT count(*) FROM dbstat WHERE name IN ('postings', 'termBlock', 'postingData')) * 4096
                    """) ?? 0
            }
        }
        let rowBytes = try textIndexBytes()
        try store.close()
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            try db.execute(sql: "DROP TABLE termBlock; UPDATE meta SET value = 10 WHERE key = 'formatVersion'")
        }
        try queue.close()
        TermBlocks.writesRows.store(false, ordering: .relaxed)
        func version() throws -> Int? {
            try store.read { try Int.fetchOne($0, sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'formatVersion'") }
        }
        store = try IndexStore(url: url, readOnly: true)
        XCTAssertEqual(try queries.map { try search($0) }, before, "format 10 searched as it is")
        XCTAssertEqual(try queries.map { try search($0, lists: false) }, unlisted)
        XCTAssertEqual(try version(), 10)
        try store.checkIntegrity()
        try store.close()

        store = try IndexStore(url: url)
        XCTAssertEqual(try version(), IndexStore.formatVersion)
        XCTAssertEqual(try queries.map { try search($0) }, before, "the same results after the upgrade")
        try store.performMaintenance()
        XCTAssertEqual(try store.read { try PostingStore.rowSegments($0) }, [], "every row segment written again")
        XCTAssertEqual(try store.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM postings") }, 0)
        XCTAssertEqual(try store.read { try BlockedSegment.current($0).blocked.count }, 3, "one by one, not merged")
        XCTAssertEqual(try queries.map { try search($0) }, before)
        XCTAssertEqual(try queries.map { try search($0, lists: false) }, unlisted)
        try store.checkIntegrity()
        XCTAssertLessThan(try textIndexBytes(), rowBytes)
        // New writes go to blocks; merges read both.
        try store.apply(items[0..<500].map { .upsert($0) }, now: now)
        try store.performMaintenance()
        XCTAssertEqual(Set(try search("common")).count, 1_500)
        XCTAssertEqual(try search(word(1_234, "q")).first, "f1234")
        try store.checkIntegrity()
    }

    /// Damaged term blocks fail a search with `.corruptIndex` and are reported by the integrity check, never
    /// trap: a block cut short, one replaced by a byte, one missing, a directory missing.
    func testDamagedTermBlocksAreReportedNotTrapped() throws {
        PackedSegment.limit.store(0, ordering: .relaxed)
        defer { PackedSegment.limit.store(PackedSegment.defaultLimit, ordering: .relaxed) }
        let damages = [
            "UPDATE termBlock SET data = substr(data, 1, length(data) / 2) WHERE id = ?1",
            "UPDATE termBlock SET data = x'07' WHERE id = ?1",
            "DELETE FROM termBlock WHERE id = ?1",
            "DELETE FROM termBlock WHERE id = ?2",
        ]
        for (n, damage) in damages.enumerated() {
            try store.apply([.deleteAll], now: now)
            let items = blockItems(2_000, tag: "d\(n)-")
            try store.apply(items.map { .upsert($0) }, now: now)
            let segment = try XCTUnwrap(try store.read { try BlockedSegment.current($0).blocked.first })
            XCTAssertGreaterThan(segment.firsts.count, 3)
            let term = String(decoding: segment.firsts[1], as: UTF8.self)
            try store.pool.write {
                try $0.execute(sql: damage, arguments: damage.contains("?2")
                    ? [segment.id << 24 | 1, segment.id << 24 | TermBlocks.directoryNumber] : [segment.id << 24 | 1])
            }
            XCTAssertThrowsError(try store.checkIntegrity(), damage)
            if n < 3 {
                XCTAssertThrowsError(try search(term, lists: false), damage) { error in
                    XCTAssertEqual((error as? EngineError)?.code, .corruptIndex, damage)
                }
                // (A prefix whose range ends before the damage reads no damaged bytes: every term's.)
                XCTAssertThrowsError(try store.read { db in
                    try PostingStore.forEachList(db, termsFrom: "", below: "\u{10FFFF}") { _, list in try list.forEach { _, _ in } }
                }, damage) { error in
                    XCTAssertEqual((error as? EngineError)?.code, .corruptIndex, damage)
                }
            }
        }
    }

    /// Lists longer than `LongLists.threshold` bytes live in `postingData`, their row a reference: searched,
    /// merged and deleted with their segment like the others; a reference naming no list is damage.
    func testLongPostingListsLiveInTheirOwnTableAndGoWithTheirSegment() throws {
        PackedSegment.limit.store(0, ordering: .relaxed)
        defer { PackedSegment.limit.store(PackedSegment.defaultLimit, ordering: .relaxed) }
        func long() throws -> [Int64] {
            try store.read { try Int64.fetchAll($0, sql: "SELECT id FROM postingData ORDER BY id") }
        }
        func write(_ batch: Int) throws {
            try store.apply((0..<1_500).map { i in
                .upsert(item("b\(batch)-\(i)", title: "common \(i % 3 == 0 ? "tripled" : "plain") \(batch)"))
            }, now: now)
        }
        // Seven segments of one level (a merge takes eight).
        for batch in 0..<7 { try write(batch) }
        store.waitForMaintenance()
        let before = try long()
        XCTAssertFalse(before.isEmpty, "long lists are in postingData")
        func largeSegments() throws -> [Int64] {
            try store.read { try Int64.fetchAll($0, sql: "SELECT id FROM segment WHERE packed IS NULL ORDER BY id") }
        }
        let segments = try largeSegments()
        XCTAssertEqual(try store.read { try BlockedSegment.current($0).blocked.map(\.id) }, segments, "stored as term blocks")
        XCTAssertTrue(before.allSatisfy { segments.contains($0 >> 24) }, "each names its segment")
        XCTAssertEqual(segments.count, 7)
        XCTAssertEqual(try search("common").count, 10_500)
        XCTAssertEqual(try search("tripled").count, 7 * 500)
        XCTAssertEqual(try search("tripled", lists: false).count, 7 * 500)
        XCTAssertEqual(Set(try search("common 6")).count, 1_500)
        XCTAssertEqual(try planned(#"title == "trip*"cwd"#).count, 7 * 500)
        try store.checkIntegrity()
        // An eighth: the eight segments merge into one, and their long lists go with them.
        try write(7)
        try store.performMaintenance()
        XCTAssertLessThan(try largeSegments().count, 8)
        let after = try long()
        let merged = try largeSegments()
        XCTAssertTrue(after.allSatisfy { merged.contains($0 >> 24) }, "no long list of a merged segment is left")
        XCTAssertTrue(Set(after).isDisjoint(with: before))
        XCTAssertEqual(try search("tripled", lists: false).count, 8 * 500)
        try store.checkIntegrity()
        // Everything removed: nothing left.
        try store.apply([.deleteAll], now: now)
        XCTAssertEqual(try long(), [])
        XCTAssertEqual(try store.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM termBlock") }, 0)
        // A reference to a list that is not there is damage, not a trap.
        try store.apply((0..<1_500).map { .upsert(item("c\($0)", title: "common")) }, now: now)
        try store.pool.write { try $0.execute(sql: "DELETE FROM postingData") }
        XCTAssertThrowsError(try search("common", lists: false)) { error in
            XCTAssertEqual((error as? EngineError)?.code, .corruptIndex)
        }
        XCTAssertThrowsError(try store.checkIntegrity())
    }

    /// A format 15 store (a global vocabulary `term` with frequencies, pending decrements, `meta.nextTerm`) is
    /// upgraded in place to 16 when opened for writing: the vocabulary dropped (logged), every search, frequency and
    /// completion the same, read from the segments' dictionaries; opened read-only, it is searched as it is.
    func testAFormat15StoreDropsItsVocabularyAndKeepsEveryResult() throws {
        let packedLimit = PackedSegment.limit.load(ordering: .relaxed)
        PackedSegment.limit.store(1_000, ordering: .relaxed)
        try store.apply((0..<1_500).map { .upsert(item("b\($0)", title: "common word\($0 % 7) unique\($0)")) }, now: now)
        PackedSegment.limit.store(packedLimit, ordering: .relaxed)
        for n in 0..<5 { try store.apply([.upsert(item("s\(n)", title: "single common \(n)"))], now: now) }
        try store.apply([.delete(identifiers: ["b3"])], now: now)
        XCTAssertEqual(try store.read { try BlockedSegment.current($0).blocked.count }, 1, "term blocks, with long lists")
        let queries = ["common", "comm", "word3", "uniqe17", "single", "commn", "word c"]
        let before = try queries.map { try search($0) }
        let unlisted = try queries.map { try search($0, lists: false) }
        let words = ["common", "word3", "unique17", "single", "unique3"]
        let frequencies = try words.map { try store.documentFrequency(of: $0) }
        XCTAssertEqual(frequencies, [1_505, 214, 1, 5, 0])
        let completions = try store.completions(of: "uni", limit: 5).map(\.term)
        try store.close()
        let url = directory.appendingPathComponent("index.sqlite")
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            let terms = try SegmentVocabulary.terms(db, from: [], below: [0xF4, 0x90])
            try db.execute(sql: """
                CREATE TABLE term(text TEXT PRIMARY KEY, id INTEGER NOT NULL, df INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
                CREATE TABLE dfPending(seq INTEGER PRIMARY KEY AUTOINCREMENT, terms BLOB NOT NULL);
                INSERT INTO dfPending(terms) VALUES(x'00');
                INSERT INTO meta(key, value) VALUES('nextTerm', \(terms.count + 1));
                UPDATE meta SET value = 15 WHERE key = 'formatVersion';
                """)
            for (n, term) in terms.enumerated() {
                try db.execute(sql: "INSERT INTO term(text, id, df) VALUES(?, ?, ?)", arguments: [term.text, n + 1, term.count])
            }
        }
        try queue.close()
        func version() throws -> Int? {
            try store.read { try Int.fetchOne($0, sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'formatVersion'") }
        }
        store = try IndexStore(url: url, readOnly: true)
        XCTAssertEqual(try version(), 15, "read-only: not upgraded")
        XCTAssertEqual(try queries.map { try search($0) }, before, "format 15 searched as it is")
        XCTAssertEqual(try words.map { try store.documentFrequency(of: $0) }, frequencies)
        try store.close()
        store = try IndexStore(url: url)
        XCTAssertEqual(try version(), IndexStore.formatVersion)
        XCTAssertFalse(try store.read { try $0.tableExists("term") || $0.tableExists("dfPending") })
        XCTAssertNil(try store.read { try Int64.fetchOne($0, sql: "SELECT value FROM meta WHERE key = 'nextTerm'") })
        XCTAssertEqual(try queries.map { try search($0) }, before, "the same results after the upgrade")
        XCTAssertEqual(try queries.map { try search($0, lists: false) }, unlisted)
        XCTAssertEqual(try words.map { try store.documentFrequency(of: $0) }, frequencies)
        XCTAssertEqual(try store.completions(of: "uni", limit: 5).map(\.term), completions)
        try store.checkIntegrity()
        // Writes go on: new terms, deletes and merges.
        try store.apply([.upsert(item("n1", title: "novel common"))], now: now)
        XCTAssertEqual(try search("novel"), ["n1"])
        XCTAssertEqual(try store.documentFrequency(of: "common"), 1_506)
        try store.performMaintenance()
        try store.checkIntegrity()
    }

    /// A long list's reference in a term block carries its postings' count since format 16, so the vocabulary
    /// counts it without reading the list; a reference written before (without it) is counted from the list.
    func testLongListsAreCountedWithAndWithoutTheirCountInTheReference() throws {
        let packedLimit = PackedSegment.limit.load(ordering: .relaxed)
        PackedSegment.limit.store(100, ordering: .relaxed)
        defer { PackedSegment.limit.store(packedLimit, ordering: .relaxed) }
        try store.apply((0..<2_000).map { .upsert(item("i\($0)", title: "everywhere item\($0)")) }, now: now)
        try store.read { db in
            let segment = try XCTUnwrap(try BlockedSegment.current(db).blocked.first)
            var counted: [Int] = []
            try segment.forEachTerm(db, from: Array("everywhere".utf8), below: Array("everywherf".utf8)) { _, count in
                counted.append(count)
            }
            XCTAssertEqual(counted, [2_000])
            XCTAssertEqual(try segment.count(db, text: Array("everywhere".utf8)), 2_000)
            XCTAssertEqual(try segment.count(db, text: Array("item7".utf8)), 1)
            XCTAssertEqual(try segment.count(db, text: Array("nowhere".utf8)), 0)
            // The reference as format 11 to 15 wrote it: the marker and the list's number alone.
            let withCount: [UInt8] = [LongLists.marker, 0, 0xD0, 0x0F]
            let without: [UInt8] = [LongLists.marker, 0]
            XCTAssertEqual(try withCount.withUnsafeBytes { try TermBlocks.count(db, segment: segment.id, $0) }, 2_000)
            XCTAssertEqual(try without.withUnsafeBytes { try TermBlocks.count(db, segment: segment.id, $0) }, 2_000)
            try without.withUnsafeBytes { bytes in
                try TermBlocks.withList(db, segment: segment.id, bytes) { XCTAssertEqual($0.count, 2_000) }
            }
            for damaged: [UInt8] in [[LongLists.marker, 0, 0], [LongLists.marker, 0, 0x80], [LongLists.marker, 0, 5, 1]] {
                XCTAssertThrowsError(try damaged.withUnsafeBytes { try TermBlocks.count(db, segment: segment.id, $0) })
            }
        }
        XCTAssertEqual(try store.documentFrequency(of: "everywhere"), 2_000)
    }

    /// Format 6 kept posting rows by (text, segment) with an index by segment, the vocabulary with an index by id,
    /// and every item in `item_expires`. Opened read-only it is searched as it is; opened for writing it is upgraded
    /// in place to format 7 with the same results, and new terms get ids that no term has.
    func testFormat6StoresAreSearchedReadOnlyAndUpgradedToSegmentKeyedPostings() throws {
        PackedSegment.limit.store(0, ordering: .relaxed)
        defer { PackedSegment.limit.store(PackedSegment.defaultLimit, ordering: .relaxed) }
        // Posting rows, as format 10 and before wrote them.
        TermBlocks.writesRows.store(true, ordering: .relaxed)
        defer { TermBlocks.writesRows.store(false, ordering: .relaxed) }
        let url = directory.appendingPathComponent("index.sqlite")
        let items = (0..<300).map { item("f\($0)", title: "format six \($0)", text: "row \($0 % 7) words") }
        try store.apply(items[0..<150].map { .upsert($0) }, now: now)
        try store.apply(items[150...].map { .upsert($0) }, now: now)
        try store.apply([.upsert(item("g7", title: "format seven"))], now: now)
        var expiring = item("soon", title: "format soon")
        expiring.expirationDate = now.addingTimeInterval(3_600)
        try store.apply([.upsert(expiring)], now: now)
        XCTAssertGreaterThanOrEqual(try store.read { try PostingStore.rowSegments($0) }.count, 3, "segments stored as rows")
        let queries = ["format", "six 1", "row 3", "fo", "words", "seven", "s"]
        let before = try queries.map { try search($0) }
        let unlisted = try queries.map { try search($0, lists: false) }
        try store.close()
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            try db.execute(sql: """
                ALTER TABLE postings RENAME TO postingsFormat7;
                CREATE TABLE postings(
                    text TEXT NOT NULL, segment INTEGER NOT NULL, count INTEGER NOT NULL, data BLOB NOT NULL,
                    PRIMARY KEY(text, segment)) WITHOUT ROWID;
                CREATE INDEX postings_segment ON postings(segment);
                INSERT INTO postings SELECT text, segment, count, data FROM postingsFormat7 ORDER BY text, segment;
                DROP TABLE postingsFormat7;
                CREATE TABLE term(text TEXT PRIMARY KEY, id INTEGER NOT NULL, df INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
                INSERT INTO term(text, id, df) VALUES('legacy', 1, 300);
                CREATE UNIQUE INDEX term_id ON term(id);
                DROP INDEX item_expires;
                CREATE INDEX item_expires ON item(expires);
                DELETE FROM meta WHERE key IN ('nextTerm', 'keywordTerms');
                DROP TABLE termBlock;
                UPDATE meta SET value = 6 WHERE key = 'formatVersion';
                """)
        }
        try queue.close()
        func version() throws -> Int? {
            try store.read { try Int.fetchOne($0, sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'formatVersion'") }
        }
        store = try IndexStore(url: url, readOnly: true)
        XCTAssertTrue(store.isReadOnly)
        XCTAssertEqual(try queries.map { try search($0) }, before, "format 6 searched as it is")
        XCTAssertEqual(try queries.map { try search($0, lists: false) }, unlisted)
        XCTAssertEqual(try version(), 6, "read-only: not upgraded")
        try store.close()

        store = try IndexStore(url: url)
        XCTAssertEqual(try version(), IndexStore.formatVersion)
        let schema = try store.read { try String.fetchAll($0, sql: "SELECT coalesce(sql, '') FROM sqlite_master") }.joined(separator: "\n")
        XCTAssertTrue(schema.contains("PRIMARY KEY(segment, text)"), schema)
        XCTAssertFalse(schema.contains("postings_segment"))
        XCTAssertFalse(schema.contains("term_id"))
        XCTAssertTrue(schema.contains("ON item(expires) WHERE expires < 63113904000.0"), schema)
        XCTAssertFalse(schema.contains("CREATE TABLE term("), "the global vocabulary dropped (format 16)")
        XCTAssertNil(try store.read { try Int64.fetchOne($0, sql: "SELECT value FROM meta WHERE key = 'nextTerm'") })
        XCTAssertEqual(try queries.map { try search($0) }, before, "the same results after the upgrade")
        XCTAssertEqual(try queries.map { try search($0, lists: false) }, unlisted)
        XCTAssertEqual(try store.count(now: now), 302)
        try store.checkIntegrity()

        // New terms in two transactions; the expiring item is purged.
        try store.apply([.upsert(item("n1", title: "novel zebra"))], now: now)
        try store.apply([.upsert(item("n2", title: "quokka"))], now: now)
        XCTAssertEqual(try search("quokka"), ["n2"])
        XCTAssertEqual(try search("zebra"), ["n1"])
        XCTAssertEqual(try store.count(now: now.addingTimeInterval(7_200)), 303, "the expiring item has expired")
        XCTAssertEqual(try store.purgeExpired(now: now.addingTimeInterval(7_200)), 1)
        XCTAssertEqual(try store.count(now: now), 303)
        // Merges of the row segments (term by term across their ranges) keep every match.
        try store.apply(items.map { .upsert($0) }, now: now)
        try store.performMaintenance()
        XCTAssertEqual(Set(try search("format")).count, 301)
        XCTAssertEqual(Set(try search("words", lists: false)).count, 300)
        XCTAssertEqual(try search("seven"), ["g7"])
        try store.checkIntegrity()
        // Opening it again changes nothing.
        try store.close()
        store = try IndexStore(url: url)
        XCTAssertEqual(try version(), IndexStore.formatVersion)
        XCTAssertEqual(Set(try search("format")).count, 301)
    }

    func testAFormat1StoreThatCannotBeUpgradedIsUnavailableNotRecovered() throws {
        try store.close()
        store = nil
        let folder = directory.appendingPathComponent("readonly")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("old.sqlite")
        try makeFormat1Store(at: url, items: [item("a", title: "alpha")], clientState: nil)
        // Checkpoint so the file alone holds it, then take write permission away from everyone but root… and root:
        // open it read-only the way the engine would for another user.
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: url.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path) }
        if access(url.path, W_OK) == 0 {
            // Running as root, which may write anyway: the read-only path is then checked through its own function.
            let pool = try DatabasePool(path: url.path)
            XCTAssertThrowsError(try IndexStore.checkFormat(pool, url: url)) { error in
                XCTAssertEqual((error as? EngineError)?.code, .indexUnavailable)
            }
            try pool.close()
        } else {
            XCTAssertThrowsError(try IndexStore(url: url)) { error in
                XCTAssertEqual((error as? EngineError)?.code, .indexUnavailable)
            }
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: url.path), "never moved aside")
    }
}
