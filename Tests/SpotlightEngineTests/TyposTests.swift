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
    /// near the word), dead terms among them, every budget, whole words and prefixes.
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
            try store.apply(items, now: now)
            // Some terms left with no live item (df 0 once the decrements are written).
            try store.apply((0..<300).filter { $0 % 7 == 0 }.map { .delete(identifiers: ["i\($0)"]) }, now: now)
            try store.performMaintenance()
            for _ in 0..<80 {
                let typed = word(1...12)
                for budget in 0...2 {
                    for prefix in [false, true] {
                        let scanned = try store.read { try Self.neighboursByScan($0, of: typed, prefix: prefix, budget: budget) }
                        // Seeking past every term too far, stepping over a few first, or stepping over all of them.
                        for steps in [0, 1, Typos.stepsBeforeSeeking, 100_000] {
                            let stepped = try store.read {
                                try Typos.vocabularyNeighbours($0, of: typed, prefix: prefix, budget: budget, stepsBeforeSeeking: steps)
                            }
                            XCTAssertEqual(stepped.map(\.text), scanned.map(\.text), "\(typed), budget \(budget), prefix \(prefix), \(steps)")
                            XCTAssertEqual(stepped.map(\.df), scanned.map(\.df))
                            XCTAssertEqual(stepped.map(\.id), scanned.map(\.id))
                        }
                        // As a search folds them: ranges of beginnings stand for all their terms.
                        let spans = try store.read { db in
                            let spans = try Typos.vocabularySpans(db, of: typed, prefix: prefix, budget: budget, collapsing: true)
                            let expanded = try spans.ranges.flatMap { range in
                                try String.fetchAll(db, sql: "SELECT text FROM term WHERE text >= ? AND text < ? AND df > 0",
                                                    arguments: [range, range + "\u{10FFFF}"])
                            }
                            return (terms: spans.terms.map(\.text), ranges: spans.ranges, expanded: expanded)
                        }
                        // The same walks over the letter's terms in memory (`VocabularyLetters`): the same terms,
                        // ids, frequencies and ranges.
                        let inMemory = try store.read { db in
                            let letter = try XCTUnwrap(VocabularyLetters.read(String(typed.unicodeScalars.first!), db))
                            return (neighbours: try Typos.vocabularyNeighbours(db, of: typed, prefix: prefix, budget: budget, letter: letter),
                                    spans: try Typos.vocabularySpans(db, of: typed, prefix: prefix, budget: budget, collapsing: true,
                                                                     letter: letter))
                        }
                        XCTAssertEqual(inMemory.neighbours.map(\.text), scanned.map(\.text), "\(typed), budget \(budget), prefix \(prefix): in memory")
                        XCTAssertEqual(inMemory.neighbours.map(\.df), scanned.map(\.df))
                        XCTAssertEqual(inMemory.neighbours.map(\.id), scanned.map(\.id))
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
    /// (as `Typos.neighbours` did before it skipped), in text order.
    static func neighboursByScan(_ db: Database, of word: String, prefix: Bool, budget: Int) throws
        -> [(id: Int64, text: String, df: Int)]
    {
        guard let first = word.unicodeScalars.first else { return [] }
        let n = word.unicodeScalars.count
        return try Row.fetchAll(db, sql: "SELECT id, text, df FROM term WHERE text >= ? AND text < ? AND df > 0 ORDER BY text",
                                arguments: [String(first), String(first) + "\u{10FFFF}"])
            .map { (id: $0[0] as Int64, text: $0[1] as String, df: $0[2] as Int) }
            .filter { term in
                let m = term.text.unicodeScalars.count
                guard prefix ? m >= n - budget : abs(m - n) <= budget else { return false }
                return (prefix ? Typos.prefixDistance(word, term.text, limit: budget)
                               : Typos.distance(word, term.text, limit: budget)) <= budget
            }
    }

    func testNeighboursAreLiveTermsOnly() throws {
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
        try store.apply([.delete(identifiers: ["a"])], now: now)
        let after = try store.read { db in
            try Typos.neighbours(db, of: "seriaaize", prefix: false, budget: 1, deltas: try store.frequencyDeltasCache.deltas(db))
        }
        XCTAssertEqual(after.map(\.text), [], "the term is still in the vocabulary, but no item has it")
        // Once the delete's pending decrement is written (`PendingFrequencies`), without the deltas too.
        try store.performMaintenance()
        let applied = try store.read { try Typos.neighbours($0, of: "seriaaize", prefix: false, budget: 1) }
        XCTAssertEqual(applied.map(\.text), [], "the term is still in the vocabulary, but no item has it")
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
        let store = try IndexStore(url: directory.appendingPathComponent("l.sqlite"))
        store.vocabularyLetters.rereadInterval.store(0, ordering: .relaxed)
        return store
    }

    /// The letters of every store in the process hold at most `processByteLimit` together: reading one past it drops
    /// the least recently used letter of any store (here another store's), a letter used since is kept, a closed
    /// store's letters count no more, and a search whose letter was dropped walks SQLite and finds the same items.
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
            let ids = try store.search(text, options: options).map(\.item.uniqueIdentifier)
            store.vocabularyLetters.waitForReads()
            return ids
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
        // Without its letter the search walks SQLite, and finds the same (it schedules the letter's read again,
        // which drops the next oldest).
        XCTAssertEqual(try search(stores[0], "alpha1bta"), first)
        XCTAssertFalse(first.isEmpty)
        // A closed store's letters are released.
        try stores[1].close()
        XCTAssertEqual(stores[1].vocabularyLetters.heldBytes, 0)
    }

    /// A letter of the vocabulary is read in the background after the first search that looks for typos in it, used
    /// while no write has added a term, and read again after one has: searches find the same items with it as
    /// without it, and a term added since it was read is found at once.
    func testTheVocabularyLettersInMemoryFollowTheVocabulary() throws {
        let store = try lettersStore()
        defer { try? store.close() }
        let now = Date()
        func upsert(_ id: String, _ title: String) -> IndexOperation {
            .upsert(StoredItem(uniqueIdentifier: id, expirationDate: .distantFuture, attributes: ["title": .string(title)]))
        }
        try store.apply([upsert("a", "transformer models"), upsert("b", "transfer learning"), upsert("c", "translate text")],
                        now: now)
        var options = TextSearchOptions(limit: 10)
        options.now = now
        func ids(_ text: String) throws -> [String] { try store.search(text, options: options).map(\.item.uniqueIdentifier) }
        let read = store.vocabularyLetters.lettersRead.load(ordering: .relaxed)
        let cold = try ids("trasnformer")
        XCTAssertEqual(cold.first, "a", "a transposition")
        store.vocabularyLetters.waitForReads()
        XCTAssertEqual(store.vocabularyLetters.lettersRead.load(ordering: .relaxed), read + 1, "the letter was read once")
        let letter = try store.read { try store.vocabularyLetters.terms(of: "t", $0, store: store) }
        XCTAssertEqual(letter?.count, try store.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM term WHERE text >= 't' AND text < 'u'") })
        XCTAssertEqual(try ids("trasnformer"), cold, "the walk in memory finds what SQLite's found")
        XCTAssertEqual(try store.corrections(of: "transfr", prefix: false).map(\.term), ["transfer"])
        // A delete adds no term: the letter stays current.
        try store.apply([.delete(identifiers: ["c"])], now: now)
        XCTAssertNotNil(try store.read { try store.vocabularyLetters.terms(of: "t", $0, store: store) })
        // A new term makes it stale: the next searches walk SQLite (and find the new term) until it is read again.
        try store.apply([upsert("d", "transmogrify")], now: now)
        XCTAssertNil(try store.read { try store.vocabularyLetters.terms(of: "t", $0, store: store) })
        XCTAssertEqual(try ids("transmogrfy"), ["d"])
        store.vocabularyLetters.waitForReads()
        XCTAssertEqual(try ids("transmogrfy"), ["d"], "and in memory once read again")
        let reread = try XCTUnwrap(try store.read { try store.vocabularyLetters.terms(of: "t", $0, store: store) })
        XCTAssertEqual(reread.lowerBound(Array("transmogrify".utf8)), reread.lowerBound(Array("transmogrifz".utf8)) - 1)
        // A letter read less than `rereadInterval` ago is not read again when a write makes it stale: the searches
        // meanwhile walk SQLite, and find the new term.
        store.vocabularyLetters.rereadInterval.store(60_000_000_000, ordering: .relaxed)
        let reads = store.vocabularyLetters.lettersRead.load(ordering: .relaxed)
        try store.apply([upsert("e", "transylvania")], now: now)
        XCTAssertEqual(try ids("transylvnia"), ["e"])
        store.vocabularyLetters.waitForReads()
        XCTAssertEqual(store.vocabularyLetters.lettersRead.load(ordering: .relaxed), reads, "not read again so soon")
        XCTAssertNil(try store.read { try store.vocabularyLetters.terms(of: "t", $0, store: store) })
        XCTAssertEqual(try ids("transylvnia"), ["e"])
    }

    /// Writes that add terms between searches, with the letters read in the background or not yet: every typo search
    /// finds what the walk through SQLite finds in the same snapshot, and the hits are the same as without the letters.
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
            if round % 2 == 0 { store.vocabularyLetters.waitForReads() }
            for _ in 0..<6 {
                let typed = word(4...11)
                let budget = Typos.budget(for: typed)
                for prefix in [false, true] {
                    try store.read { db in
                        let letter = try store.vocabularyLetters.terms(of: String(typed.unicodeScalars.first!), db, store: store)
                        let walked = try Typos.vocabularySpans(db, of: typed, prefix: prefix, budget: budget, collapsing: prefix)
                        let inMemory = try Typos.vocabularySpans(db, of: typed, prefix: prefix, budget: budget, collapsing: prefix,
                                                                 letter: letter ?? VocabularyLetters.read(String(typed.unicodeScalars.first!), db))
                        XCTAssertEqual(inMemory.terms.map(\.text), walked.terms.map(\.text), "\(typed), round \(round)")
                        XCTAssertEqual(inMemory.terms.map(\.df), walked.terms.map(\.df))
                        XCTAssertEqual(inMemory.ranges, walked.ranges, "\(typed), round \(round)")
                    }
                }
                let hits = try store.search(typed, options: options).map(\.item.uniqueIdentifier)
                store.vocabularyLetters.waitForReads()
                XCTAssertEqual(try store.search(typed, options: options).map(\.item.uniqueIdentifier), hits, "\(typed), round \(round)")
            }
        }
        XCTAssertGreaterThan(store.vocabularyLetters.lettersRead.load(ordering: .relaxed), 5, "letters were read again after writes")
    }
}
