import Foundation
import XCTest
import GRDB
@testable import SpotlightEngine

/// The bounded distance (rolling rows, early exit) against the textbook full-table optimal string alignment.
final class TyposTests: XCTestCase {
    static func reference(_ a: [Character], _ b: [Character]) -> Int {
        let n = a.count, m = b.count
        var d = [[Int]](repeating: [Int](repeating: 0, count: n + 1), count: m + 1)
        for j in 0...n { d[0][j] = j }
        for i in 0...m { d[i][0] = i }
        for i in stride(from: 1, through: m, by: 1) {
            for j in stride(from: 1, through: n, by: 1) {
                let cost = a[j - 1] == b[i - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[j - 1] == b[i - 2], a[j - 2] == b[i - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[m][n]
    }

    func testBoundedDistanceEqualsTheFullTable() {
        var random = RankingOracleTests.Generator(state: 7)
        let alphabet = Array("abcé")
        func word() -> String { String((0..<Int.random(in: 0...7, using: &random)).map { _ in alphabet.randomElement(using: &random)! }) }
        for _ in 0..<3_000 {
            let a = word(), b = word()
            let full = Self.reference(Array(a), Array(b))
            let prefix = (0...b.count).map { Self.reference(Array(a), Array(b.prefix($0))) }.min()!
            for limit in [0, 1, 2, 3, Int.max] {
                let want = limit == .max ? full : (full <= limit ? full : limit + 1)
                XCTAssertEqual(Typos.distance(a, b, limit: limit), want, "\(a) \(b) \(limit)")
                let wantPrefix = limit == .max ? prefix : (prefix <= limit ? prefix : limit + 1)
                XCTAssertEqual(Typos.prefixDistance(a, b, limit: limit), wantPrefix, "prefix \(a) \(b) \(limit)")
            }
        }
        XCTAssertEqual(Typos.distance("python", "pyhton", limit: 1), 1, "a transposition is one typo")
        XCTAssertEqual(Typos.prefixDistance("pyhto", "python", limit: 1), 1)
        XCTAssertEqual(Typos.prefixDistance("controz", "controller", limit: 1), 1)
    }

    func testFirstLetterTyposAreOneEditWithTheRestTypedRight() {
        func typo(_ typed: String, _ term: String, prefix: Bool = false) -> Bool {
            Typos.firstLetterTypo(typed.unicodeScalars.map(\.value), term.unicodeScalars.map(\.value), prefix: prefix)
        }
        XCTAssertTrue(typo("bumpy", "numpy"), "replaced")
        XCTAssertTrue(typo("umpy", "numpy"), "left out")
        XCTAssertTrue(typo("xnumpy", "numpy"), "a letter typed before it")
        XCTAssertTrue(typo("unmpy", "numpy"), "swapped with the second")
        XCTAssertTrue(typo("bum", "numpy", prefix: true), "while typing")
        XCTAssertFalse(typo("bum", "numpy"))
        XCTAssertFalse(typo("numpy", "numpy"), "the same first letter is the ordinary typo path")
        XCTAssertFalse(typo("bumpx", "numpy"), "only the first letter may be wrong")
        XCTAssertFalse(typo("émpy", "numpy"), "ASCII letters and digits only")
        // The spellings looked up cover every term the definition accepts (checked over a small vocabulary).
        let vocabulary = ["numpy", "numpyro", "bumpy", "umpy", "unmpy", "mnumpy", "jumpy", "nump", "xyz", "numba"]
        for typed in ["bumpy", "umpy", "xnumpy", "unmpy", "jump", "numb"] {
            let spellings = Typos.firstLetterSpellings(of: typed) ?? []
            for term in vocabulary where typo(typed, term, prefix: true) {
                XCTAssertTrue(spellings.contains { term.hasPrefix($0) }, "\(typed) → \(term)")
            }
            for term in vocabulary where typo(typed, term) {
                XCTAssertTrue(spellings.contains(term), "\(typed) → \(term)")
            }
        }
    }

    /// The vocabulary stepped in order with shared rows and skips finds exactly what computing every term's
    /// distance finds: random vocabularies over small alphabets (so that many terms share beginnings and many are
    /// near the word), dead terms among them, every budget, whole words and prefixes, over several segments (one of
    /// term blocks, packed ones) whose terms the walk unites.
    func testSteppingTheVocabularyFindsWhatTheScanFinds() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("typos-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try IndexStore(url: directory.appendingPathComponent("t.sqlite"))
        defer { try? store.close() }
        let now = Date()
        var random = RankingOracleTests.Generator(state: 20261127)
        for alphabet in [Array("ab"), Array("abc"), Array("abcé"), Array("pyth0ön")] {
            func word(_ lengths: ClosedRange<Int>) -> String {
                String((0..<Int.random(in: lengths, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            }
            try store.apply([.deleteAll], now: now)
            let items: [IndexOperation] = (0..<300).map { n in
                .upsert(StoredItem(uniqueIdentifier: "i\(n)", expirationDate: now.addingTimeInterval(3_600),
                                   attributes: ["title": .string((0..<3).map { _ in word(1...11) }.joined(separator: " "))]))
            }
            // Two thirds as term blocks (whose letters the store merges into one), the rest packed, in segments of
            // their own.
            let packedLimit = PackedSegment.limit.load(ordering: .relaxed)
            PackedSegment.limit.store(50, ordering: .relaxed)
            try store.apply(Array(items[0..<100]), now: now)
            try store.apply(Array(items[100..<200]), now: now)
            PackedSegment.limit.store(packedLimit, ordering: .relaxed)
            try store.apply(Array(items[200..<250]), now: now)
            try store.apply(Array(items[250..<300]), now: now)
            XCTAssertEqual(try store.read { try BlockedSegment.current($0).blocked.count }, 2)
            // Some terms left with no live item (their postings dead until a merge).
            try store.apply((0..<300).filter { $0 % 7 == 0 }.map { .delete(identifiers: ["i\($0)"]) }, now: now)
            for _ in 0..<80 {
                let typed = word(1...12)
                for budget in 0...2 {
                    for prefix in [false, true] {
                        let scanned = try store.read { try Self.neighboursByScan($0, of: typed, prefix: prefix, budget: budget) }
                        let stepped = try store.read { try Typos.vocabularyNeighbours($0, of: typed, prefix: prefix, budget: budget) }
                        XCTAssertEqual(stepped.map(\.text), scanned.map(\.text), "\(typed), budget \(budget), prefix \(prefix)")
                        XCTAssertEqual(stepped.map(\.df), scanned.map(\.df))
                        // The terms with the first letter wrong and the rest right, looked up spelling by spelling
                        // (a large segment's in one read of each block), are every such term of every segment.
                        if budget > 0 {
                            let typedScalars = typed.unicodeScalars.map(\.value)
                            let firstWrong = try store.read { db in
                                try SegmentVocabulary.terms(db, from: [], below: [0xF4, 0x90]).filter {
                                    Typos.firstLetterTypo(typedScalars, $0.text.unicodeScalars.map(\.value), prefix: prefix)
                                }
                            }
                            // In the blocks, and in the large segments' letters the store keeps (some of them).
                            for letters in [nil, store.vocabularyLetters] {
                                if letters != nil {
                                    try store.read { db in
                                        for letter in alphabet.prefix(2) { _ = try store.vocabularyLetters.terms(of: String(letter), db, store: store) }
                                    }
                                }
                                let all = try store.read { try Typos.neighbours($0, of: typed, prefix: prefix, budget: budget, letters: letters) }
                                let others = all.filter { !scanned.map(\.text).contains($0.text) }
                                XCTAssertEqual(Dictionary(uniqueKeysWithValues: others.map { ($0.text, $0.df) }),
                                               Dictionary(uniqueKeysWithValues: firstWrong.map { ($0.text, $0.count) }),
                                               "\(typed), prefix \(prefix): first-letter typos, letters kept \(letters != nil)")
                            }
                        }
                        // As a search folds them: ranges of beginnings stand for all their terms.
                        let spans = try store.read { db in
                            let spans = try Typos.vocabularySpans(db, of: typed, prefix: prefix, budget: budget, collapsing: true)
                            let expanded = try spans.ranges.flatMap { range in
                                try SegmentVocabulary.terms(db, from: Array(range.utf8), below: Array(range.utf8) + Typos.SpanWalk.beyond)
                                    .map(\.text)
                            }
                            return (terms: spans.terms.map(\.text), ranges: spans.ranges, expanded: expanded)
                        }
                        // The same walks over the letters the store keeps (`VocabularyLetters`): the same terms,
                        // frequencies and ranges.
                        let inMemory = try store.read { db in
                            let letter = try XCTUnwrap(store.vocabularyLetters.terms(startingAs: typed, db, store: store))
                            return (neighbours: try Typos.vocabularyNeighbours(db, of: typed, prefix: prefix, budget: budget, letter: letter),
                                    spans: try Typos.vocabularySpans(db, of: typed, prefix: prefix, budget: budget, collapsing: true,
                                                                     letter: letter))
                        }
                        XCTAssertEqual(inMemory.neighbours.map(\.text), scanned.map(\.text), "\(typed), budget \(budget), prefix \(prefix): in memory")
                        XCTAssertEqual(inMemory.neighbours.map(\.df), scanned.map(\.df))
                        XCTAssertEqual(inMemory.spans.terms.map(\.text), spans.terms, "\(typed): spans in memory")
                        XCTAssertEqual(inMemory.spans.ranges, spans.ranges, "\(typed): ranges in memory")
                        if !prefix { XCTAssertEqual(spans.ranges, [], "only a prefix's matches make ranges") }
                        XCTAssertEqual(Set(spans.terms).intersection(spans.expanded), [], "\(typed): a term is in one place")
                        XCTAssertEqual(Set(spans.terms + spans.expanded), Set(scanned.map(\.text)), "\(typed), budget \(budget), prefix \(prefix): spans")
                        // A prefix's typo matches hold the whole word's (`NameKeys`' corrections), first-letter
                        // typos included, with the letter in memory and without.
                        if prefix, budget > 0 {
                            try store.read { db in
                                let whole = Set(try Typos.neighbours(db, of: typed, prefix: false, budget: budget).map(\.text)).subtracting([typed])
                                let matches = try Typos.neighbourSpans(db, of: typed, prefix: true, budget: budget)
                                let letter = try XCTUnwrap(VocabularyLetters.read(String(typed.unicodeScalars.first!), db))
                                for letter in [nil, letter] {
                                    let found = try Typos.wholeWordTypos(of: typed, budget: budget, terms: matches.terms.map(\.text),
                                                                         ranges: matches.ranges, db, letter: letter)
                                    XCTAssertEqual(found.count, Set(found).count, "\(typed): each once")
                                    XCTAssertEqual(Set(found), whole, "\(typed), budget \(budget): the whole word's typos, letter \(letter != nil)")
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The terms with the word's first letter within `budget` typos of it, found by computing every term's distance
    /// (as `Typos.neighbours` did before it skipped), in text order, with their postings in every segment.
    static func neighboursByScan(_ db: Database, of word: String, prefix: Bool, budget: Int) throws
        -> [(text: String, df: Int)]
    {
        guard let first = word.unicodeScalars.first else { return [] }
        let n = word.unicodeScalars.count
        let low = Array(String(first).utf8)
        return try SegmentVocabulary.terms(db, from: low, below: low + Typos.SpanWalk.beyond)
            .map { (text: $0.text, df: $0.count) }
            .filter { term in
                let m = term.text.unicodeScalars.count
                guard prefix ? m >= n - budget : abs(m - n) <= budget else { return false }
                return (prefix ? Typos.prefixDistance(word, term.text, limit: budget)
                               : Typos.distance(word, term.text, limit: budget)) <= budget
            }
    }

    /// A deleted item's terms stay in its segment's dictionary until a merge drops its postings: the walk still
    /// finds them (their lists then name no live item: a search finds nothing through them), corrections, which a
    /// person sees, leave them out, and after the merge they are gone.
    func testCorrectionsAreLiveTermsOnlyAndMergesDropDeadOnes() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("typos-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try IndexStore(url: directory.appendingPathComponent("t.sqlite"))
        defer { try? store.close() }
        let now = Date()
        func item(_ id: String, _ title: String) -> IndexOperation {
            .upsert(StoredItem(uniqueIdentifier: id, expirationDate: now.addingTimeInterval(3_600), attributes: ["title": .string(title)]))
        }
        try store.apply([item("a", "serialize"), item("b", "serial port")], now: now)
        let before = try store.read { try Typos.neighbours($0, of: "seriaaize", prefix: false, budget: 1) }
        XCTAssertEqual(before.map(\.text), ["serialize"])
        let prefixed = try store.read { try Typos.neighbours($0, of: "seraal", prefix: true, budget: 1) }
        XCTAssertEqual(Set(prefixed.map(\.text)), ["serial", "serialize"])
        XCTAssertEqual(try store.corrections(of: "seriaaize", prefix: false).map(\.term), ["serialize"])
        try store.apply([.delete(identifiers: ["a"])], now: now)
        let after = try store.read { try Typos.neighbours($0, of: "seriaaize", prefix: false, budget: 1) }
        XCTAssertEqual(after.map(\.text), ["serialize"], "in its segment until a merge, dead")
        XCTAssertEqual(try store.corrections(of: "seriaaize", prefix: false).map(\.term), [], "no item has it")
        var options = TextSearchOptions(limit: 5)
        options.now = now
        XCTAssertEqual(try store.search("seriaaize", options: options).map(\.item.uniqueIdentifier), [])
        try store.writeTransaction { db in
            XCTAssertTrue(try SegmentMerger.commit(db, try SegmentMerger.prepare(db, try SegmentMerger.segments(db))))
        }
        let merged = try store.read { try Typos.neighbours($0, of: "seriaaize", prefix: false, budget: 1) }
        XCTAssertEqual(merged.map(\.text), [], "the merge dropped the dead postings, and the term with them")
        XCTAssertEqual(try store.corrections(of: "seraal", prefix: true).map(\.term), ["serial"])
    }

    /// A search that does not resolve matched terms (`CSUserQuery`'s) returns the same hits in the same order with
    /// the same scores and explanation points; only `matchedTerm` of prefix and typo matches is the typed word.
    func testUnresolvedMatchedTermsChangeNothingButTheTerm() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("typos-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try IndexStore(url: directory.appendingPathComponent("t.sqlite"))
        defer { try? store.close() }
        let now = Date()
        var operations: [IndexOperation] = []
        for n in 0..<300 {
            let description = n % 3 == 0 ? "a serializer for ports number \(n)" : "tools for seriel ports and serialize data \(n)"
            operations.append(.upsert(StoredItem(uniqueIdentifier: "item\(n)", expirationDate: now.addingTimeInterval(3_600),
                                                 attributes: ["title": .string(n % 7 == 0 ? "Serial \(n)" : "Package \(n)"),
                                                              "contentDescription": .string(description)])))
        }
        try store.apply(operations, now: now)
        for query in ["serial", "seria", "serail", "serial po", "ports serialise"] {
            var resolved = TextSearchOptions(limit: 40)
            resolved.now = now
            var unresolved = resolved
            unresolved.resolvesMatchedTerms = false
            let a = try store.search(query, options: resolved), b = try store.search(query, options: unresolved)
            XCTAssertFalse(a.isEmpty, query)
            XCTAssertEqual(a.map(\.item.uniqueIdentifier), b.map(\.item.uniqueIdentifier), query)
            XCTAssertEqual(a.map(\.score), b.map(\.score), query)
            XCTAssertEqual(a.map { $0.explanation.words.map(\.points) }, b.map { $0.explanation.words.map(\.points) }, query)
            for hit in b {
                XCTAssertEqual(hit.explanation.words.map(\.matchedTerm), hit.explanation.words.map(\.queryWord), query)
            }
        }
        // Resolved, a typo match names the term it matched.
        let typo = try store.search("serail", options: TextSearchOptions(limit: 5))
        XCTAssertTrue(typo.contains { $0.explanation.words.contains { $0.kind == .typo && $0.matchedTerm != "serail" } })
    }

    /// A store in a directory of its own (removed when the test ends) whose letters are read again at once.
    func lettersStore() throws -> IndexStore {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("letters-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return try IndexStore(url: directory.appendingPathComponent("l.sqlite"))
    }

    /// The letters of every store in the process hold at most `processByteLimit` together: reading one past it drops
    /// the least recently used letter of any store (here another store's), a letter used since is kept, a closed
    /// store's letters count no more, and a search whose letter was dropped reads it again and finds the same items.
    func testTheLettersOfEveryStoreShareOneLimit() throws {
        let saved = VocabularyLetters.processByteLimit.load(ordering: .relaxed)
        defer { VocabularyLetters.processByteLimit.store(saved, ordering: .relaxed) }
        let stores = [try lettersStore(), try lettersStore()]
        defer { for store in stores { try? store.close() } }
        let now = Date()
        var options = TextSearchOptions(limit: 10)
        options.now = now
        for (n, store) in stores.enumerated() {
            try store.apply((0..<200).map { i in
                .upsert(StoredItem(uniqueIdentifier: "\(n)-\(i)", expirationDate: .distantFuture,
                                   attributes: ["title": .string("alpha\(i)beta berlin\(i)x")]))
            }, now: now)
        }
        // Typo searches read their first letter of each store (a word with a typo of nine letters or more).
        func search(_ store: IndexStore, _ text: String) throws -> [String] {
            try store.search(text, options: options).map(\.item.uniqueIdentifier)
        }
        let first = try search(stores[0], "alpha1bta")
        XCTAssertTrue(stores[0].vocabularyLetters.holds("a"))
        let letterBytes = stores[0].vocabularyLetters.heldBytes
        XCTAssertGreaterThan(letterBytes, 0)
        _ = try search(stores[0], "berlin1xx")
        XCTAssertTrue(stores[0].vocabularyLetters.holds("b"))
        // Room for about three letters: a third one in the other store fits, a fourth drops the oldest, store 0's `a`
        // (store 0's `b` is used again first, so it stays).
        VocabularyLetters.processByteLimit.store(letterBytes * 3 + letterBytes / 2, ordering: .relaxed)
        _ = try search(stores[1], "alpha1bta")
        XCTAssertTrue(stores[1].vocabularyLetters.holds("a"))
        XCTAssertTrue(stores[0].vocabularyLetters.holds("a") && stores[0].vocabularyLetters.holds("b"))
        _ = try search(stores[0], "berlin1xx")
        _ = try search(stores[1], "berlin1xx")
        XCTAssertFalse(stores[0].vocabularyLetters.holds("a"), "the least recently used letter of any store goes")
        XCTAssertTrue(stores[0].vocabularyLetters.holds("b"))
        XCTAssertTrue(stores[1].vocabularyLetters.holds("a") && stores[1].vocabularyLetters.holds("b"))
        XCTAssertLessThanOrEqual(stores[0].vocabularyLetters.heldBytes + stores[1].vocabularyLetters.heldBytes,
                                 VocabularyLetters.processByteLimit.load(ordering: .relaxed))
        // Without its letter the search reads it again (which drops the next oldest), and finds the same.
        XCTAssertEqual(try search(stores[0], "alpha1bta"), first)
        XCTAssertFalse(first.isEmpty)
        // A closed store's letters are released.
        try stores[1].close()
        XCTAssertEqual(stores[1].vocabularyLetters.heldBytes, 0)
    }

    /// The large segments' letters merged into one (`VocabularyLetters.merge`): every term once, in byte order,
    /// with its counts added; empty sources and a single one pass through.
    func testLettersOfLargeSegmentsMergeInByteOrderWithTheirCountsAdded() {
        var random = RankingOracleTests.Generator(state: 20261206)
        let alphabet = Array("abé日")
        func source(_ terms: [String: Int]) -> VocabularyLetters.Source {
            var bytes: [UInt8] = [], starts: [UInt32] = [0], counts: [UInt32] = []
            for term in terms.keys.sorted(by: { UTF8Order.precedes($0, $1) }) {
                bytes += Array(term.utf8)
                starts.append(UInt32(bytes.count))
                counts.append(UInt32(terms[term]!))
            }
            return VocabularyLetters.Source(bytes: bytes, starts: starts, counts: counts)
        }
        func terms(_ source: VocabularyLetters.Source) -> [(String, Int)] {
            (0..<source.count).map { i in
                (String(decoding: source.bytes[Int(source.starts[i])..<Int(source.starts[i + 1])], as: UTF8.self), Int(source.counts[i]))
            }
        }
        for round in 0..<50 {
            var parts: [[String: Int]] = []
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                var part: [String: Int] = [:]
                for _ in 0..<Int.random(in: 0...40, using: &random) {
                    let term = String((0..<Int.random(in: 1...5, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
                    part[term] = Int.random(in: 1...9, using: &random)
                }
                parts.append(part)
            }
            let expected = parts.reduce(into: [String: Int]()) { all, part in all.merge(part, uniquingKeysWith: +) }
                .sorted { UTF8Order.precedes($0.key, $1.key) }.map { ($0.key, $0.value) }
            let merged = VocabularyLetters.merge(parts.map(source))
            XCTAssertEqual(terms(merged).map(\.0), expected.map(\.0), "round \(round)")
            XCTAssertEqual(terms(merged).map(\.1), expected.map(\.1), "round \(round)")
            XCTAssertEqual(merged.lowerBound(Array("b".utf8)), expected.firstIndex { !UTF8Order.precedes($0.0, "b") } ?? expected.count)
        }
    }

    /// A segment's letter is read by the first search that looks for typos in it and kept while the segment lives:
    /// a write adds a segment, whose letter alone is read when a search needs it, and a term it added is found at
    /// once; a merge's segment is read once more.
    func testTheLettersInMemoryAreEachSegmentsOwn() throws {
        let store = try lettersStore()
        defer { try? store.close() }
        let now = Date()
        func upsert(_ id: String, _ title: String) -> IndexOperation {
            .upsert(StoredItem(uniqueIdentifier: id, expirationDate: .distantFuture, attributes: ["title": .string(title)]))
        }
        // (Enough items that one delete leaves the segment as it is: a quarter of them deleted has it rewritten.)
        try store.apply([upsert("a", "transformer models"), upsert("b", "transfer learning"), upsert("c", "translate text")]
                        + (0..<6).map { upsert("filler\($0)", "other words \($0)") }, now: now)
        var options = TextSearchOptions(limit: 10)
        options.now = now
        func ids(_ text: String) throws -> [String] { try store.search(text, options: options).map(\.item.uniqueIdentifier) }
        func reads() -> Int { store.vocabularyLetters.lettersRead.load(ordering: .relaxed) }
        let read = reads()
        XCTAssertEqual(try ids("trasnformer").first, "a", "a transposition")
        XCTAssertEqual(reads(), read + 1, "the letter of the one segment was read")
        let letter = try XCTUnwrap(try store.read { try store.vocabularyLetters.terms(of: "t", $0, store: store) })
        XCTAssertEqual(letter.sources.count, 1)
        XCTAssertEqual(letter.sources.first?.count, try store.read { try SegmentVocabulary.terms($0, from: Array("t".utf8), below: Array("u".utf8)).count })
        XCTAssertEqual(try store.corrections(of: "transfr", prefix: false).map(\.term), ["transfer"])
        // A delete adds no segment: nothing is read again.
        try store.apply([.delete(identifiers: ["c"])], now: now)
        XCTAssertEqual(try ids("trasnformer").first, "a")
        XCTAssertEqual(reads(), read + 1)
        // A write adds a segment: its letter alone is read, and its new term found at once.
        try store.apply([upsert("d", "transmogrify")], now: now)
        XCTAssertEqual(try ids("transmogrfy"), ["d"])
        XCTAssertEqual(reads(), read + 2, "the new segment's letter, not the first one's again")
        XCTAssertEqual(try store.read { try store.vocabularyLetters.terms(of: "t", $0, store: store) }?.sources.count, 2)
        // A merge replaces both by one, read once more.
        try store.writeTransaction { db in
            XCTAssertTrue(try SegmentMerger.commit(db, try SegmentMerger.prepare(db, try SegmentMerger.segments(db))))
        }
        XCTAssertEqual(try ids("transmogrfy"), ["d"])
        XCTAssertEqual(try ids("trasnformer").first, "a")
        XCTAssertEqual(reads(), read + 3)
        let merged = try XCTUnwrap(try store.read { try store.vocabularyLetters.terms(of: "t", $0, store: store) })
        XCTAssertEqual(merged.sources.count, 1)
        XCTAssertFalse(merged.sources[0].count == 0)
    }

    /// Writes that add terms between searches, and merges: every typo walk over the letters the store keeps finds
    /// what a walk over letters read afresh from the same snapshot finds, and searches find the same again.
    func testTypoSearchesAgreeWithAndWithoutTheLettersAcrossWrites() throws {
        let store = try lettersStore()
        defer { try? store.close() }
        let now = Date()
        var random = RankingOracleTests.Generator(state: 20261129)
        let alphabet = Array("abcdeé")
        func word(_ lengths: ClosedRange<Int>) -> String {
            String((0..<Int.random(in: lengths, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
        }
        var options = TextSearchOptions(limit: 0)
        options.now = now
        var next = 0
        for round in 0..<30 {
            let items: [IndexOperation] = (0..<20).map { _ in
                next += 1
                return .upsert(StoredItem(uniqueIdentifier: "i\(next)", expirationDate: .distantFuture,
                                          attributes: ["title": .string((0..<3).map { _ in word(4...10) }.joined(separator: " "))]))
            }
            try store.apply(items + (round % 3 == 2 ? [.delete(identifiers: ["i\(next - 25)"])] : []), now: now)
            if round % 5 == 4 { try store.performMaintenance() }
            for _ in 0..<6 {
                let typed = word(4...11)
                let budget = Typos.budget(for: typed)
                for prefix in [false, true] {
                    try store.read { db in
                        let letter = try store.vocabularyLetters.terms(of: String(typed.unicodeScalars.first!), db, store: store)
                        let walked = try Typos.vocabularySpans(db, of: typed, prefix: prefix, budget: budget, collapsing: prefix)
                        let inMemory = try Typos.vocabularySpans(db, of: typed, prefix: prefix, budget: budget, collapsing: prefix,
                                                                 letter: XCTUnwrap(letter))
                        XCTAssertEqual(inMemory.terms.map(\.text), walked.terms.map(\.text), "\(typed), round \(round)")
                        XCTAssertEqual(inMemory.terms.map(\.df), walked.terms.map(\.df))
                        XCTAssertEqual(inMemory.ranges, walked.ranges, "\(typed), round \(round)")
                    }
                }
                let hits = try store.search(typed, options: options).map(\.item.uniqueIdentifier)
                XCTAssertEqual(try store.search(typed, options: options).map(\.item.uniqueIdentifier), hits, "\(typed), round \(round)")
            }
        }
        XCTAssertGreaterThan(store.vocabularyLetters.lettersRead.load(ordering: .relaxed), 5, "letters were read again after writes")
    }
}
