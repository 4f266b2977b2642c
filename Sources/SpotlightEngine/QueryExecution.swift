import Foundation
import GRDB
import Synchronization
import GRDBSQLite
import SpotlightQueryLanguage

/// Lets the query language evaluate a predicate over a stored item.
///
/// Attribute names resolve, in order, to: the item's identity (`uniqueIdentifier`, `domainIdentifier`,
/// `expirationDate`), an attribute-set property or its `kMDItem…` alias, a searchable custom key. Unknown names
/// are absent.
package struct StoredItemQueryView: QueryItem {
    package let item: StoredItem

    package init(item: StoredItem) {
        self.item = item
    }

    package func queryValues(forAttribute name: String) -> [QueryValue]? {
        Self.queryValues(forAttribute: name, uniqueIdentifier: item.uniqueIdentifier, domainIdentifier: item.domainIdentifier,
                         expirationDate: item.expirationDate, attribute: { item.attributes[$0] },
                         customAttribute: { item.customAttributes[$0] })
    }

    package func defaultSearchableText() -> [String] {
        Self.defaultSearchableText(attributes: item.attributes, custom: item.customAttributes)
    }

    /// How a stored item answers for an attribute name, whatever holds its attributes (a decoded item, or a record
    /// read one attribute at a time: `RecordQueryView`): `attribute` by an attribute set's own property name,
    /// `customAttribute` by a custom key's.
    static func queryValues(forAttribute name: String, uniqueIdentifier: String, domainIdentifier: String?,
                            expirationDate: @autoclosure () -> Date, attribute: (String) -> AttributeValue?,
                            customAttribute: (String) -> CustomAttribute?) -> [QueryValue]? {
        switch name {
        case "uniqueIdentifier", "kMDItemIdentifier":
            return [.string(uniqueIdentifier)]
        case "domainIdentifier":
            if let value = attribute("domainIdentifier") { return queryValues(value) }
            return domainIdentifier.map { [.string($0)] }
        case "expirationDate":
            return [.date(expirationDate())]
        default:
            break
        }
        if let descriptor = AttributeCatalog.descriptor(named: name) {
            return attribute(descriptor.name).map(queryValues)
        }
        if let custom = customAttribute(name), custom.isSearchable {
            return queryValues(custom.value)
        }
        return nil
    }

    /// The text `*` searches in a stored item's attributes.
    static func defaultSearchableText(attributes: [String: AttributeValue], custom: [String: CustomAttribute]) -> [String] {
        var strings: [String] = []
        for (name, value) in attributes where AttributeCatalog.descriptor(named: name)?.textTier != nil {
            strings += value.searchableStrings
        }
        for (_, custom) in custom where custom.isSearchable && custom.isSearchableByDefault {
            strings += custom.value.searchableStrings
        }
        return strings
    }

    static func queryValues(_ value: AttributeValue) -> [QueryValue] {
        switch value {
        case .string(let s): return [.string(s)]
        case .int, .double, .bool: return value.numericValue.map { [.number($0)] } ?? []
        case .date(let d): return [.date(d)]
        case .url(let u): return [.string(u.absoluteString)]
        case .person, .localized: return value.searchableStrings.map { .string($0) }
        case .array(let a): return a.flatMap(queryValues)
        case .data, .null: return []
        }
    }
}

/// How a query's matches are wanted.
package struct QueryOptions: Sendable {
    /// At most this many matches (0 = all).
    package var limit: Int = 0
    package var now = Date()
    /// Checked between rows; returning true stops the scan with `EngineError.cancelled`.
    package var isCancelled: (@Sendable () -> Bool)? = nil
    /// The attributes and custom attributes the delivered items carry, by their stored names (every one when nil):
    /// a caller that reads a few (`CSSearchQueryContext.fetchAttributes`) is spared decoding the rest.
    package var fetchAttributes: Set<String>? = nil

    package init(limit: Int = 0, now: Date = Date()) {
        self.limit = limit
        self.now = now
    }
}

extension IndexStore {
    /// Every non-expired item matching a compiled query: in index order, except that a query on one attribute's
    /// word or prefix lists its items as its terms' lists are read (terms in text order).
    package func items(matching query: CompiledQuery, plan: QueryPlan = .scan, options: QueryOptions = QueryOptions()) throws
        -> [StoredItem]
    {
        var results: [StoredItem] = []
        try forEachMatch(query, plan: plan, options: options) { batch in
            results += batch
            return true
        }
        return results
    }

    /// An AND whose narrowest streamable part has at least this many postings streams that part (below: read all).
    static let streamedIntersectionMinimum = 1_000
    /// How many items a streamed AND checks before it falls back to intersecting its parts.
    static let streamedIntersectionBudget = 200
    /// An AND whose parts have at most this many postings in all is intersected first, never streamed: reading
    /// them costs about a millisecond, less than checking the items a streamed part brings that the others do not
    /// have (a few microseconds each to read, decode and match). The keyword tier's own terms (format 8) made the
    /// parts of keyword queries this small (`keywords == "de*" && keywords == "lib*"` on Debian: 38,000 postings,
    /// against 600,000 in every tier). (Tests lower it to exercise streaming.)
    static let intersectedFirstMaximum = Atomic<Int>(100_000)

    /// Calls `deliver` with batches of matching items (at most `batchSize` each; the first at most
    /// `firstBatchSize`, so the first results arrive as soon as a screenful is found) until it returns false, the
    /// limit is reached or the items run out.
    ///
    /// Candidates come from the inverted index when the plan names them and they are a small part of the store;
    /// otherwise every item is checked in one sequential pass.
    ///
    /// Returns whether every match was delivered (or `options.limit` of them): false when `deliver` stopped it
    /// before the end. A caller that wanted only a first batch learns so whether there is more to come: the last
    /// batch of a store read to its end is not followed by a second run over it.
    @discardableResult
    package func forEachMatch(_ query: CompiledQuery, plan: QueryPlan, options: QueryOptions = QueryOptions(),
                             batchSize: Int = 100, firstBatchSize: Int = 20,
                             deliver: ([StoredItem]) throws -> Bool) throws -> Bool {
        let now = options.now.timeIntervalSinceReferenceDate
        // Cancellation reaches SQLite too: a candidate lookup or scan stops mid-statement.
        return try read(cancelledWhen: options.isCancelled) { db -> Bool in
            var batch: [StoredItem] = []
            var delivered = 0
            var checked = 0
            var stopped = false
            func consider(_ entry: ItemCatalog.Entry) throws -> Bool {
                checked += 1
                // Once a batch is out, every item: a consumer that has what it needs cancels, and the rest of the
                // next batch (up to 100 decoded items, ~1.5 ms) would hold this reader — and its warm page cache —
                // from the next query. Before that, every 256 candidates (the check takes a lock).
                if delivered > 0 || checked % 256 == 0, options.isCancelled?() == true {
                    throw EngineError(.cancelled, "the query was cancelled")
                }
                // The record is read for the attributes the query names, and decoded for those the caller fetches.
                let record = try RecordEntries(try entry.plainRecord(in: db))
                let view = RecordQueryView(uniqueIdentifier: entry.uid, domainIdentifier: entry.domain,
                                           expires: entry.expires, record: record)
                guard query.matches(view) else { return true }
                batch.append(entry.storedItem(record, only: options.fetchAttributes))
                delivered += 1
                if batch.count >= (delivered == batch.count ? min(firstBatchSize, batchSize) : batchSize) {
                    let more = try deliver(batch)
                    batch.removeAll(keepingCapacity: true)
                    if !more { stopped = true; return false }
                }
                if options.limit > 0, delivered >= options.limit { return false }
                return true
            }
            let catalog = ItemCatalog(db)
            /// `consider` for an item by id; one that is gone or expired is passed over.
            func consider(id: Int64) throws -> Bool {
                // (Read before it is considered: a delivery never runs while the statement is stepping.)
                guard let entry = try catalog.entry(id: id, liveAt: now) else { return true }
                return try consider(entry)
            }
            // Items already checked while streaming (below): the fallback skips them.
            var streamed = Set<Int64>()
            // An AND whose parts are read and intersected before any item is (below): its candidates are exactly
            // the items in every part, so no item outside them is read, whatever their number.
            var intersected = false
            if case .candidates(.all(let parts)) = plan {
                // Broad parts ANDed (`keywords == "de*"cwdt && keywords == "lib*"cwdt`): materialising each part reads
                // tens of thousands of postings, while the first batch is usually among the first items of the
                // narrowest part. Stream that part and check each item against the whole query; only when a budget
                // of items brings too few matches (a sparse intersection), fall back to intersecting the parts.
                var narrowest: (word: String, prefix: Bool, tiers: UInt8, estimate: Int)?
                var widest: (index: Int, word: String, prefix: Bool, tiers: UInt8, estimate: Int)?
                var total = 0
                for (index, part) in parts.enumerated() {
                    let estimate = try part.estimatedCount(db, values: valueColumns)
                    total += estimate
                    guard case .tieredTerm(let word, let prefix, let tiers) = part else { continue }
                    if estimate < narrowest?.estimate ?? .max { narrowest = (word, prefix, tiers, estimate) }
                    if estimate > widest?.estimate ?? -1 { widest = (index, word, prefix, tiers, estimate) }
                }
                let maximum = Self.intersectedFirstMaximum.load(ordering: .relaxed)
                if let narrowest, narrowest.estimate >= Self.streamedIntersectionMinimum, total > maximum {
                    var exhausted = false, finished = false
                    try TermLookup.forEachPosting(db, word: narrowest.word, prefix: narrowest.prefix, tiers: narrowest.tiers) { id in
                        guard streamed.count < Self.streamedIntersectionBudget else { exhausted = true; return false }
                        streamed.insert(id)
                        if try !consider(id: id) { finished = true; return false }
                        return true
                    }
                    if !exhausted || finished {
                        if !stopped, !batch.isEmpty { _ = try deliver(batch) }
                        return !stopped
                    }
                }
                if let widest, parts.count >= 2, total - widest.estimate <= maximum {
                    // Small parts (at most `intersectedFirstMaximum` postings in all), or a streamed part that brought
                    // too few matches and other parts that are small: read all but the widest into one set, and
                    // stream the widest through it. Only the intersection's items are read, and the first batch
                    // comes once enough of the widest part is read, not all of it (`keywords == "role*" &&
                    // keywords == "li*"` on Debian: 52,000 postings, the first 20 of 160 matches in 0.7 ms).
                    var others: ItemIDSet? = nil
                    for (index, part) in parts.enumerated() where index != widest.index {
                        let ids = try part.candidateIDs(db, values: valueColumns)
                        others = others.map { $0.intersection(ids) } ?? ids
                        if others?.isEmpty == true { break }
                    }
                    if let others, others.count * 256 <= widest.estimate {
                        // The others name few items beside the widest part's postings (`keywords == "grokcore*" &&
                        // keywords == "ca*"` on PyPI: 11 items, and thousands of `ca…` lists to read): check those
                        // items whole, a few microseconds each, instead of reading the widest part.
                        for id in others where !streamed.contains(id) {
                            if try !consider(id: id) { break }
                        }
                    } else if let others {
                        // Most postings of the widest part are not in the others: test the bitset first, and keep
                        // only the matches in a hashed set (a prefix's terms can name an item more than once).
                        var seen = streamed
                        // When the others are few beside the widest part (16 times fewer), only the widest's blocks
                        // whose range holds one of them are decoded.
                        let near = others.count * 16 <= widest.estimate ? Array(others) : nil
                        try TermLookup.forEachPosting(db, word: widest.word, prefix: widest.prefix, tiers: widest.tiers,
                                                      deduplicated: false, near: near) { id in
                            guard others.contains(id), seen.insert(id).inserted else { return true }
                            return try consider(id: id)
                        }
                    }
                    if !stopped, !batch.isEmpty { _ = try deliver(batch) }
                    return !stopped
                }
                // Parts none of which is a term, or large ones after a streamed part brought too few matches:
                // intersect them. The estimate of an AND is its narrowest part's, often far more than the
                // intersection (`keywords == "role*" && keywords == "li*"` on Debian: 26,000 for 160 items), and
                // judged by it the AND used to check every item of the store in order, 7 µs each, to find 20.
                intersected = true
            }
            var lookup: TermLookup? = nil
            if case .candidates(let l) = plan {
                if case .tieredTerm = l {
                    // Postings of one attribute's tiers name few items even when the word is everywhere else
                    // (`keywords == "tex*"` against every item's `public.text` content type): stream them.
                    lookup = l
                } else if intersected {
                    lookup = l
                } else {
                    let total = try Self.approximateItemCount(db)
                    // Fetching items one by one only pays when they are a small part of the store.
                    let threshold = max(total / 4, 64)
                    if try l.estimatedCount(db, cap: threshold + 1, values: valueColumns) <= threshold { lookup = l }
                }
            }
            if case .tieredTerm(let word, let prefix, let tiers)? = lookup {
                // One attribute's word or prefix (the common `keywords == "natural*"cwdt`): items are delivered as
                // the lists are read, so the first batch comes before most of a common prefix's lists are read.
                try TermLookup.forEachPosting(db, word: word, prefix: prefix, tiers: tiers) { try consider(id: $0) }
            } else if let lookup {
                let ids = try lookup.candidateIDs(db, values: valueColumns)
                for id in ids where !streamed.contains(id) {
                    if try !consider(id: id) { break }
                }
            } else {
                try catalog.forEachEntry(liveAt: now) { entry in
                    if !streamed.isEmpty, streamed.contains(entry.id) { return true }
                    return try consider(entry)
                }
            }
            if !stopped, !batch.isEmpty { _ = try deliver(batch) }
            return !stopped
        }
    }

    // MARK: - Inspection (beyond Apple: the index is not a black box)

    /// How many non-expired items the store holds, optionally only in a domain and its subdomains.
    package func count(domain: String? = nil, now: Date = Date()) throws -> Int {
        try read { db in
            if let domain {
                guard domain.isStorableKey else { return 0 }
                guard try DomainMatch.usesTerms(db) else {
                    return try ItemCatalog(db).countThroughDomainIndex(domain, liveAt: now.timeIntervalSinceReferenceDate)
                }
                return try ItemCatalog(db).entries(ofDomain: domain, liveAt: now.timeIntervalSinceReferenceDate)?.count ?? 0
            }
            return try ItemCatalog(db).count(liveAt: now.timeIntervalSinceReferenceDate)
        }
    }

    /// Non-expired items in identifier order, a page at a time, optionally only in a domain and its subdomains.
    /// `candidateLimit`: how many items posted under the domain's exact term are read and sorted (more are stepped
    /// in identifier order instead, `domainListingCandidates`).
    package func listItems(domain: String? = nil, after identifier: String? = nil, limit: Int = 100, now: Date = Date(),
                           candidateLimit: Int = IndexStore.domainListingCandidates) throws
        -> [StoredItem]
    {
        try read { db in
            let catalog = ItemCatalog(db)
            let seconds = now.timeIntervalSinceReferenceDate
            if let domain {
                guard domain.isStorableKey else { return [] }
                // A domain's items by their postings, when they are few: they are read by id and sorted here (a
                // larger domain is listed in identifier order below, checking each item).
                if try DomainMatch.usesTerms(db),
                   let entries = try catalog.entries(ofDomain: domain, liveAt: seconds, limit: candidateLimit) {
                    let page = entries
                        .filter { identifier == nil || UTF8Order.precedes(identifier!, $0.uid) }
                        .sorted { UTF8Order.precedes($0.uid, $1.uid) }.prefix(max(0, limit))
                    return try page.map { try $0.storedItem(in: db) }
                }
            }
            return try catalog.page(after: identifier, domain: domain, limit: limit, liveAt: seconds).map { try $0.storedItem(in: db) }
        }
    }

    /// Above this many items posted under a domain's exact term, `listItems` steps the items in identifier order
    /// and checks each row's domain, rather than reading and sorting them all for each page.
    static let domainListingCandidates = 20_000

    /// Every domain identifier in use, with its number of non-expired items.
    package func domains(now: Date = Date()) throws -> [(domain: String, count: Int)] {
        try read { db in
            try ItemCatalog(db).domains(liveAt: now.timeIntervalSinceReferenceDate)
        }
    }

    /// About how many items the store has, without counting rows (a million rows take 10–100 ms to count): the
    /// segments' live items (items without any text are not in a segment), else the largest row id. Ids grow
    /// with every update, so the largest id alone overstates a store that was updated often, which would make the
    /// planners' "small part of the store" thresholds far too generous.
    static func approximateItemCount(_ db: Database) throws -> Int {
        let live = try Int.fetchOne(db, sql: "SELECT coalesce(sum(items - \(SegmentMerger.deadItemsSQL(db))), 0) FROM segment") ?? 0
        if live > 0 { return live }
        return Int(try ItemCatalog(db).nextID() - 1)
    }

    /// The number of item rows in the file, expired ones not yet purged included.
    package func rowCount() throws -> Int {
        try read { try ItemCatalog($0).count() }
    }

    /// The size of the store's files (database, WAL, shared memory) in bytes.
    package func diskSize() -> Int {
        [url.path, url.path + "-wal", url.path + "-shm"].reduce(0) { total, path in
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
            return total + (size ?? 0)
        }
    }
}

/// How the engine finds the items a query may match.
package enum QueryPlan: Sendable {
    /// Check every item.
    case scan
    /// Check only the items the inverted index names.
    case candidates(TermLookup)
}

/// A set of items named by the inverted index: those with a term equal to, or starting with, a folded word.
/// Intersections (`all`) and unions (`any`) combine lookups.
package indirect enum TermLookup: Sendable, Hashable {
    case term(String, prefix: Bool)
    /// Like `term`, but only postings whose tier mask meets `tiers` (`TextIndexer`'s bits): the term occurs in an
    /// attribute of those tiers. `keywords == "dja*"` needs a keyword-tier posting, not any posting of `django`.
    case tieredTerm(String, prefix: Bool, tiers: UInt8)
    /// Items with a number or date value of the attribute in `lower...upper`.
    case range(String, lower: Double, upper: Double)
    case all([TermLookup])
    case any([TermLookup])

    /// Whether `estimatedCount` is the number of items (a value range), not an upper bound (terms count their
    /// postings in every attribute; unions add up).
    var countsExactly: Bool {
        if case .range = self { return true }
        return false
    }

    /// The items the lookup names in `db`'s snapshot (a superset: deleted items' postings and values may be in).
    /// Ranges are read from `values`' columns when they are in memory.
    func candidateIDs(_ db: Database, values: ValueColumns? = nil) throws -> ItemIDSet {
        switch self {
        case .term(let word, let prefix):
            return try Self.postings(db, word: word, prefix: prefix, tiers: nil)
        case .tieredTerm(let word, let prefix, let tiers):
            return try Self.postings(db, word: word, prefix: prefix, tiers: tiers)
        case .all(let parts):
            // Intersect the selective parts. Reading a posting costs about a thousandth of reading and checking an
            // item, so a part is read while it may spare the caller items: up to 256 times the smallest part.
            let estimates = try parts.map { try $0.estimatedCount(db, values: values) }
            let smallest = estimates.min() ?? 0
            var result: ItemIDSet? = nil
            for (part, estimate) in zip(parts, estimates).sorted(by: { $0.1 < $1.1 }) where estimate <= max(smallest * 256, 1_000) {
                let ids = try part.candidateIDs(db, values: values)
                result = result.map { $0.intersection(ids) } ?? ids
                if result?.isEmpty == true { break }
            }
            return result ?? ItemIDSet()
        case .any(let parts):
            return try parts.reduce(into: ItemIDSet()) { $0.formUnion(try $1.candidateIDs(db, values: values)) }
        case .range(let attribute, let lower, let upper):
            var ids = ItemIDSet()
            if let column = try values?.column(attribute, db) {
                column.forEach(lower: lower, upper: upper) { ids.insert($0) }
                return ids
            }
            try ValueIndex(db).forEachItem(code: AttributeValueIndex.code(attribute), lower: lower, upper: upper) { ids.insert($0) }
            return ids
        }

    }

    /// Calls `body` once with each item that has a posting of the word (or of a term it starts) in `tiers`, until
    /// `body` returns false, as the lists are read: segment by segment (each row segment's terms one contiguous
    /// range of the postings table, in text order; then the packed segments), each list in item order. A limited
    /// query stops reading as soon as it has its items. Items
    /// deleted since their segment was written are included: the caller reads the item row and skips those it does
    /// not find.
    static func forEachPosting(_ db: Database, word: String, prefix: Bool, tiers: UInt8, deduplicated: Bool = true,
                               near candidates: [Int64]? = nil, _ body: (Int64) throws -> Bool) throws {
        let (word, tiers) = try resolved(word, tiers: tiers, db)
        struct Stop: Error {}
        // A prefix's terms can name an item more than once. Without `deduplicated`, the caller sees it as often.
        var seen = Set<Int64>()
        func visit(_ list: PostingCodec.Reader) throws {
            // A local function, not a closure kept in a constant: that made every insertion into `seen` a dynamic
            // exclusivity check.
            func each(_ item: Int64, _ mask: UInt8) throws {
                if mask & tiers != 0, !deduplicated || seen.insert(item).inserted, try !body(item) { throw Stop() }
            }
            // Blocks with no posting in the attribute's tiers, or (given candidates, sorted) none of the candidates
            // in their range, are skipped undecoded.
            if let candidates { try list.forEach(near: candidates, tiers: tiers, each) } else { try list.forEach(tiers: tiers, each) }
        }
        do {
            if prefix {
                try PostingStore.forEachList(db, termsFrom: word, below: word + "\u{10FFFF}") { _, list in try visit(list) }
            } else {
                try PostingStore.forEachList(db, text: word) { try visit($0) }
            }
        } catch is Stop {
            return
        }
    }

    /// The term text and tiers to read for a lookup's word in this store: a domain's word (`domainLookupBit`)
    /// from the domain's own terms when every item of the store has them (`meta.domainTerms`, set when a format 6
    /// store is created), else from the metadata tier (a store upgraded from format 5 has items without them).
    /// A word of the keyword tier alone is read from that tier's own terms where every item has them
    /// (`meta.keywordTerms`, set when a format 8 store is created).
    static func resolved(_ word: String, tiers: UInt8, _ db: Database) throws -> (text: String, tiers: UInt8) {
        if tiers == TextIndexer.keywordBit {
            let own = try Int.fetchOne(db.cachedStatement(sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'keywordTerms'")) == 1
            return own ? (TextIndexer.keywordTermPrefix + word, tiers) : (word, tiers)
        }
        guard tiers & TextIndexer.domainLookupBit != 0 else { return (word, tiers) }
        let own = try Int.fetchOne(db.cachedStatement(sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'domainTerms'")) == 1
        return own ? (TextIndexer.domainTermPrefix + word, TextIndexer.metadataBit) : (word, TextIndexer.metadataBit)
    }

    private static func postings(_ db: Database, word: String, prefix: Bool, tiers: UInt8?) throws -> ItemIDSet {
        var ids = ItemIDSet()
        var word = word
        var mask: UInt8 = 0xFF
        if let tiers { (word, mask) = try resolved(word, tiers: tiers, db) }
        // The closures are written out where they are passed, not kept in a constant: a stored closure that
        // changes `ids` made every insertion a dynamic exclusivity check (a third of reading 50,000 postings).
        if prefix {
            try PostingStore.forEachList(db, termsFrom: word, below: word + "\u{10FFFF}") { _, list in
                try list.forEach(tiers: mask) { item, itemTiers in if itemTiers & mask != 0 { ids.insert(item) } }
            }
        } else {
            try PostingStore.forEachList(db, text: word) { list in
                try list.forEach(tiers: mask) { item, itemTiers in if itemTiers & mask != 0 { ids.insert(item) } }
            }
        }
        return ids
    }
}
