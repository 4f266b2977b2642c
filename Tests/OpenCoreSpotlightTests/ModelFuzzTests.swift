import Foundation
import XCTest
@testable import OpenCoreSpotlight
@testable import SpotlightEngine
import SpotlightTestSupport

typealias SeededGenerator = SplitMix64

/// Model-based fuzzing of index operations (issue 17, fuzz a): random index, update (`isUpdate`), delete by
/// identifier, by domain and of everything, in single calls and in batches with client state (matching and
/// mismatching `expectedClientState`), with expiration dates in the past, the far future and a few seconds ahead —
/// applied to a `CSSearchableIndex` and to an in-memory model of Apple's semantics, and every query result compared:
/// an item by identifier, counts and listings by domain (sub-domains included), `CSSearchQuery` keyword queries and
/// ranges of a number (`rankingHint`: the number and date index's rows and groups), the client state, and the whole
/// index every 50 steps.
///
/// The model's domain rule is the intended one: deleting, counting or listing domain `a.b` takes `a.b` and `a.b.…`,
/// case-sensitively, never `a.bc` (issue 17, item 4). Identifiers and domains mix cases, dots, slashes, spaces and
/// non-ASCII letters, as apps' do.
///
/// `OPENSPOTLIGHT_FUZZ_OPERATIONS` sets the number of operations (default 3,000) and `OPENSPOTLIGHT_FUZZ_SEED` the
/// seed (default 17); `scripts/fuzz-model.sh` runs a million.
final class ModelFuzzTests: IndexTestCase {
    struct Entry: Equatable {
        var domain: String?
        var title: String?
        var keywords: [String]?
        var contentDescription: String?
        var rankingHint: Int? = nil
        /// nil: the default expiration (30 days ahead), never reached in a run.
        var expires: Date?
    }

    struct Model {
        var items: [String: Entry] = [:]
        var clientState: Data?

        func live(at now: Date) -> [String: Entry] {
            items.filter { ($0.value.expires ?? .distantFuture) > now }
        }
    }

    /// A generated item: what was set on the attribute set (`.some(nil)`: explicitly set to nil).
    struct Written {
        var id: String
        var domain: String?
        var title: String??
        var keywords: [String]??
        var contentDescription: String??
        var rankingHint: Int?? = nil
        var expires: Date?
        var isUpdate: Bool
    }

    enum Operation {
        case index([Written])
        case deleteIdentifiers([String])
        case deleteDomains([String])
        case deleteAll
    }

    static let identifiers = [
        "note-1", "Note-1", "NOTE-1", "note-2", "note-10", "mail/inbox/3", "mail/inbox/30", "a.b", "A.b", "a.b.c",
        "ä-ü 7", "Ä-Ü 7", "x y z", "emoji-😀", "com.example.item.42", "Com.Example.Item.42", "42", "042", "id_1",
        "id%1", "id-1", "straße", "STRASSE", "naïve", "naive", "日本語", "a", "A", "b", "c",
    ]
    static let domains: [String?] = [
        nil, "Mail", "mail", "mail.inbox", "Mail.Inbox", "mail.inbox.archive", "mail.Inbox", "mailbox", "mail_box",
        "mail-inbox", "notes", "notes.work", "Notes", "a.b", "a.bc", "a.b.c", "a", "Boîte", "Boîte.reçue", "boîte",
        "Boîte.reçue.2026",
    ]
    static let deletedDomains = domains.compactMap { $0 } + ["mail.", "a.b.", "Mai", "zzz"]
    static let words = ["alpha", "Alpha", "beta", "gamma", "Gamma", "delta", "épée", "Epee", "zeta"]

    struct Figures {
        var operations = 0
        var itemsWritten = 0
        var batches = 0
        var mismatchedBatches = 0
        var queries = 0
        var fullChecks = 0
        var divergences = 0
    }

    var random = SeededGenerator(state: 17)
    var figures = Figures()
    var model = Model()
    var failureLimitReached = false

    func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }
    func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }
    func someWords(_ range: ClosedRange<Int>) -> [String] { (0..<Int.random(in: range, using: &random)).map { _ in pick(Self.words) } }

    /// An expiration: mostly the default, sometimes in the past, sometimes 1–6 s ahead (it expires during the run).
    func expiration(_ now: Date) -> Date? {
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<10: return now.addingTimeInterval(-3600)
        case 10..<25: return now.addingTimeInterval(Double.random(in: 1...6, using: &random))
        default: return nil
        }
    }

    /// Whether an expiration is too close to `now` for the outcome to be certain (the engine reads its own clock).
    static func uncertain(_ expires: Date?, _ now: Date) -> Bool {
        guard let expires else { return false }
        return abs(expires.timeIntervalSince(now)) < 0.5
    }

    func generate(_ now: Date) -> Operation {
        switch Int.random(in: 0..<100, using: &random) {
        case 0:
            // A large write (64 items or more): its records go into blocks (`RecordBlocks`), some of them replaced
            // again in the same call.
            return .index((0..<Int.random(in: 64...130, using: &random)).map { _ in
                Written(id: chance(50) ? pick(Self.identifiers) : "bulk-\(Int.random(in: 0..<300, using: &random))",
                        domain: pick(Self.domains),
                        title: chance(85) ? .some(someWords(1...3).joined(separator: " ")) : nil,
                        keywords: chance(60) ? .some(someWords(1...3)) : nil,
                        contentDescription: chance(40) ? .some(someWords(1...5).joined(separator: " ")) : nil,
                        rankingHint: chance(70) ? .some(Int.random(in: 0...5, using: &random)) : nil,
                        expires: expiration(now), isUpdate: false)
            })
        case 1..<45:
            return .index((0..<Int.random(in: 1...4, using: &random)).map { _ in
                Written(id: pick(Self.identifiers), domain: pick(Self.domains),
                        title: chance(85) ? .some(someWords(1...3).joined(separator: " ")) : nil,
                        keywords: chance(60) ? .some(someWords(1...3)) : nil,
                        contentDescription: chance(40) ? .some(someWords(1...5).joined(separator: " ")) : nil,
                        rankingHint: chance(70) ? .some(Int.random(in: 0...5, using: &random)) : nil,
                        expires: expiration(now), isUpdate: false)
            })
        case 45..<70:
            return .index((0..<Int.random(in: 1...3, using: &random)).map { _ in
                var id = pick(Self.identifiers)
                // An update's outcome depends on whether the item has expired: keep away from the boundary.
                while Self.uncertain(model.items[id]?.expires, now) { id = pick(Self.identifiers) }
                func field<T>(_ value: @autoclosure () -> T) -> T?? {
                    switch Int.random(in: 0..<10, using: &random) {
                    case 0..<5: return nil            // not set: kept
                    case 5..<8: return .some(value())  // set: replaced
                    default: return .some(nil)         // set to nil: cleared
                    }
                }
                return Written(id: id, domain: chance(30) ? pick(Self.domains) : nil,
                               title: field(self.someWords(1...3).joined(separator: " ")),
                               keywords: field(self.someWords(1...3)),
                               contentDescription: field(self.someWords(1...4).joined(separator: " ")),
                               rankingHint: field(Int.random(in: 0...5, using: &self.random)),
                               expires: expiration(now), isUpdate: true)
            })
        case 70..<85:
            return .deleteIdentifiers((0..<Int.random(in: 1...4, using: &random)).map { _ in pick(Self.identifiers) })
        case 85..<99:
            return .deleteDomains((0..<Int.random(in: 1...2, using: &random)).map { _ in pick(Self.deletedDomains) })
        default:
            return .deleteAll
        }
    }

    func searchableItem(_ w: Written) -> CSSearchableItem {
        let set = CSSearchableItemAttributeSet()
        if let title = w.title { set.title = title }
        if let keywords = w.keywords { set.keywords = keywords }
        if let description = w.contentDescription { set.contentDescription = description }
        if let hint = w.rankingHint { set.rankingHint = hint.map { NSNumber(value: $0) } }
        let item = CSSearchableItem(uniqueIdentifier: w.id, domainIdentifier: w.domain, attributeSet: set)
        if let expires = w.expires { item.expirationDate = expires }
        item.isUpdate = w.isUpdate
        return item
    }

    static func inDomain(_ domain: String?, _ target: String) -> Bool {
        guard let domain else { return false }
        return domain == target || Array(domain.utf8).starts(with: Array((target + ".").utf8))
    }

    /// Apple's semantics (and the engine's documented deviations) on the model.
    static func apply(_ operation: Operation, to model: inout Model, now: Date) {
        // Every write purges what has expired.
        model.items = model.live(at: now)
        switch operation {
        case .index(let written):
            for w in written {
                if let expires = w.expires, expires <= now {
                    // Deviation: indexing an already expired item removes it.
                    model.items[w.id] = nil
                    continue
                }
                if w.isUpdate {
                    guard var entry = model.items[w.id] else { continue }  // an update of a missing item is dropped
                    if let title = w.title { entry.title = title }
                    if let keywords = w.keywords { entry.keywords = keywords }
                    if let description = w.contentDescription { entry.contentDescription = description }
                    if let hint = w.rankingHint { entry.rankingHint = hint }
                    if let domain = w.domain { entry.domain = domain }
                    entry.expires = w.expires
                    model.items[w.id] = entry
                } else {
                    model.items[w.id] = Entry(domain: w.domain, title: w.title ?? nil, keywords: w.keywords ?? nil,
                                              contentDescription: w.contentDescription ?? nil, rankingHint: w.rankingHint ?? nil,
                                              expires: w.expires)
                }
            }
        case .deleteIdentifiers(let ids):
            for id in ids { model.items[id] = nil }
        case .deleteDomains(let domains):
            model.items = model.items.filter { _, entry in !domains.contains { inDomain(entry.domain, $0) } }
        case .deleteAll:
            model.items = [:]
            model.clientState = nil
        }
    }

    func count(_ operation: Operation) {
        figures.operations += 1
        if case .index(let written) = operation { figures.itemsWritten += written.count }
    }

    func submit(_ operation: Operation, to index: CSSearchableIndex, batched: Bool) async throws {
        switch operation {
        case .index(let written):
            let items = written.map(searchableItem)
            if batched { index.indexSearchableItems(items, completionHandler: nil) } else { try await index.indexSearchableItems(items) }
        case .deleteIdentifiers(let ids):
            if batched { index.deleteSearchableItems(withIdentifiers: ids, completionHandler: nil) } else { try await index.deleteSearchableItems(withIdentifiers: ids) }
        case .deleteDomains(let domains):
            if batched { index.deleteSearchableItems(withDomainIdentifiers: domains, completionHandler: nil) } else { try await index.deleteSearchableItems(withDomainIdentifiers: domains) }
        case .deleteAll:
            if batched { index.deleteAllSearchableItems(completionHandler: nil) } else { try await index.deleteAllSearchableItems() }
        }
    }

    func diverged(_ message: String, step: Int, seed: UInt64) {
        figures.divergences += 1
        if figures.divergences <= 5 { XCTFail("seed \(seed), step \(step): \(message)") }
    }

    func describe(_ item: CSSearchableItem) -> Entry {
        Entry(domain: item.domainIdentifier, title: item.attributeSet.title, keywords: item.attributeSet.keywords,
              contentDescription: item.attributeSet.contentDescription, rankingHint: item.attributeSet.rankingHint?.intValue,
              expires: nil)
    }

    func sameContent(_ a: Entry, _ b: Entry) -> Bool {
        a.domain == b.domain && a.title == b.title && a.keywords == b.keywords && a.contentDescription == b.contentDescription
            && a.rankingHint == b.rankingHint
    }

    /// The ids whose expiration is too close to now to compare.
    func uncertainIDs(_ now: Date) -> Set<String> {
        Set(model.items.filter { Self.uncertain($0.value.expires, now) }.keys)
    }

    func check(_ index: CSSearchableIndex, step: Int, seed: UInt64, full: Bool) async throws {
        let now = Date()
        let skip = uncertainIDs(now)
        let live = model.live(at: now)
        let inspector = IndexInspector(index)
        figures.queries += 1
        if full {
            figures.fullChecks += 1
            let stored = try inspector.items(limit: 10_000).filter { !skip.contains($0.uniqueIdentifier) }
            let expected = live.filter { !skip.contains($0.key) }
            let storedIDs = Set(stored.map(\.uniqueIdentifier))
            if storedIDs != Set(expected.keys) {
                diverged("the index holds \(storedIDs.subtracting(expected.keys).sorted()) beyond the model and lacks \(Set(expected.keys).subtracting(storedIDs).sorted())", step: step, seed: seed)
            }
            for item in stored {
                if let entry = expected[item.uniqueIdentifier], !sameContent(describe(item), entry) {
                    diverged("item \(item.uniqueIdentifier): stored \(describe(item)), model \(entry)", step: step, seed: seed)
                }
            }
            if skip.isEmpty {
                var domainCounts: [String: Int] = [:]
                for entry in live.values { if let d = entry.domain { domainCounts[d, default: 0] += 1 } }
                let domains = try inspector.domains()
                if Dictionary(uniqueKeysWithValues: domains.map { ($0.domain, $0.count) }) != domainCounts {
                    diverged("domains \(domains), model \(domainCounts)", step: step, seed: seed)
                }
            }
            let state = try await index.fetchLastClientState()
            if state != (model.clientState ?? Data()) {
                diverged("client state \(String(decoding: state, as: UTF8.self)), model \(String(decoding: model.clientState ?? Data(), as: UTF8.self))", step: step, seed: seed)
            }
            return
        }
        switch Int.random(in: 0..<5, using: &random) {
        case 4:
            // A range of the number index (rows of single writes, groups of large ones).
            let low = Int.random(in: -1...5, using: &random), high = Int.random(in: low...6, using: &random)
            let query = CSSearchQuery(queryString: "rankingHint >= \(low) && rankingHint <= \(high)", queryContext: nil)
            var found = Set<String>()
            for try await result in query.results { found.insert(result.item.uniqueIdentifier) }
            found.subtract(skip)
            let expected = Set(live.filter { _, entry in entry.rankingHint.map { (low...high).contains($0) } ?? false }.keys)
                .subtracting(skip)
            if found != expected {
                diverged("query \(query.queryString): \(found.sorted()), model \(expected.sorted())", step: step, seed: seed)
            }
        case 0:
            let id = pick(Self.identifiers)
            guard !skip.contains(id) else { return }
            let stored = try index.store().item(withIdentifier: id)
            let expected = live[id]
            switch (stored, expected) {
            case (nil, nil): break
            case (let stored?, let expected?):
                let item = ItemConversion.searchableItem(stored, fetchAttributes: nil)
                if !sameContent(describe(item), expected) {
                    diverged("item \(id): stored \(describe(item)), model \(expected)", step: step, seed: seed)
                }
                if let expires = expected.expires, stored.expirationDate != expires {
                    diverged("item \(id) expires \(stored.expirationDate), model \(expires)", step: step, seed: seed)
                }
            default:
                diverged("item \(id): stored \(stored.map { "\($0)" } ?? "none"), model \(expected.map { "\($0)" } ?? "none")", step: step, seed: seed)
            }
        case 1:
            let domain = pick(Self.deletedDomains)
            let expected = Set(live.filter { Self.inDomain($0.value.domain, domain) }.keys).subtracting(skip)
            let count = try inspector.count(domain: domain)
            let listed = Set(try inspector.items(domain: domain, limit: 10_000).map(\.uniqueIdentifier)).subtracting(skip)
            if listed != expected {
                diverged("items(domain: \(domain)) = \(listed.sorted()), model \(expected.sorted())", step: step, seed: seed)
            }
            if skip.isEmpty, count != expected.count {
                diverged("count(domain: \(domain)) = \(count), model \(expected.count)", step: step, seed: seed)
            }
        case 2:
            let word = pick(Self.words)
            let caseInsensitive = chance(50)
            let query = CSSearchQuery(queryString: "keywords == \"\(word)\"" + (caseInsensitive ? "c" : ""), queryContext: nil)
            var found = Set<String>()
            for try await result in query.results { found.insert(result.item.uniqueIdentifier) }
            found.subtract(skip)
            let expected = Set(live.filter { _, entry in
                (entry.keywords ?? []).contains { caseInsensitive ? $0.lowercased() == word.lowercased() : $0 == word }
            }.keys).subtracting(skip)
            if found != expected {
                diverged("query \(query.queryString): \(found.sorted()), model \(expected.sorted())", step: step, seed: seed)
            }
        default:
            let state = try await index.fetchLastClientState()
            if state != (model.clientState ?? Data()) {
                diverged("client state \(String(decoding: state, as: UTF8.self)), model \(String(decoding: model.clientState ?? Data(), as: UTF8.self))", step: step, seed: seed)
            }
        }
    }

    func testRandomOperationsMatchTheModel() async throws {
        let environment = ProcessInfo.processInfo.environment
        try await run(operations: Int(environment["OPENSPOTLIGHT_FUZZ_OPERATIONS"] ?? "") ?? 3_000,
                      seed: UInt64(environment["OPENSPOTLIGHT_FUZZ_SEED"] ?? "") ?? 17)
    }

    /// The same with every segment of more than 64 postings stored as term blocks (`TermBlocks`), not packed: the
    /// fuzz's writes are small, and would otherwise only ever make packed segments.
    func testRandomOperationsMatchTheModelWithTermBlocks() async throws {
        PackedSegment.limit.store(64, ordering: .relaxed)
        defer { PackedSegment.limit.store(PackedSegment.defaultLimit, ordering: .relaxed) }
        let environment = ProcessInfo.processInfo.environment
        let encoded = TermBlocks.encodings.load(ordering: .relaxed)
        try await run(operations: Int(environment["OPENSPOTLIGHT_FUZZ_OPERATIONS"] ?? "") ?? 1_500,
                      seed: UInt64(environment["OPENSPOTLIGHT_FUZZ_SEED"] ?? "") ?? 29)
        XCTAssertGreaterThan(TermBlocks.encodings.load(ordering: .relaxed) - encoded, 20, "segments written as term blocks")
    }

    private func run(operations: Int, seed: UInt64) async throws {
        random = SeededGenerator(state: seed)
        let index = CSSearchableIndex(name: "fuzz")
        var step = 0
        var stateCounter = 0
        let started = Date()
        while figures.operations < operations, figures.divergences == 0 {
            step += 1
            if chance(35) {
                // A batch: several operations and a client state, in one transaction or not at all.
                let now = Date()
                let batch = (0..<Int.random(in: 1...8, using: &random)).map { _ in generate(now) }
                stateCounter += 1
                let newState = Data("state \(stateCounter)".utf8)
                let mode = Int.random(in: 0..<10, using: &random)
                let expected: Data? = mode < 3 ? model.clientState : (mode < 4 ? Data("stale".utf8) : nil)
                index.beginBatch()
                for operation in batch {
                    count(operation)
                    try await submit(operation, to: index, batched: true)
                }
                figures.batches += 1
                let applyTime = Date()
                do {
                    if mode < 4 {
                        try await index.endIndexBatch(expectedClientState: expected, newClientState: newState)
                    } else {
                        try await index.endBatch(withClientState: newState)
                    }
                    if mode < 4, expected != model.clientState {
                        diverged("a batch expecting \(String(describing: expected)) committed over \(String(describing: model.clientState))", step: step, seed: seed)
                    }
                    for operation in batch { Self.apply(operation, to: &model, now: applyTime) }
                    model.clientState = newState
                } catch let error as CSIndexError where error.code == .mismatchedClientState {
                    figures.mismatchedBatches += 1
                    if expected == model.clientState {
                        diverged("a batch expecting the stored state was refused", step: step, seed: seed)
                    }
                }
            } else {
                let operation = generate(Date())
                count(operation)
                let applyTime = Date()
                try await submit(operation, to: index, batched: false)
                Self.apply(operation, to: &model, now: applyTime)
            }
            try await check(index, step: step, seed: seed, full: step % 50 == 0)
        }
        try await check(index, step: step, seed: seed, full: true)
        let line = String(format: "model fuzz (seed %llu): %d operations (%d items written) in %d steps, %d batches (%d refused for a mismatched state), %d queries checked (%d whole-index checks), %d divergences, %.0f s\n",
                          seed, figures.operations, figures.itemsWritten, step, figures.batches, figures.mismatchedBatches,
                          figures.queries, figures.fullChecks, figures.divergences, Date().timeIntervalSince(started))
        FileHandle.standardError.write(Data(line.utf8))
        XCTAssertEqual(figures.divergences, 0)
        XCTAssertGreaterThan(figures.mismatchedBatches, 0, "the run tried mismatched client states")
    }
}
