import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// Score-ordered candidate lists for prefixes, so search-as-you-type does not rank every match of `r`.
///
/// The table `prefixTop` keeps, for a prefix, the `capacity` best items whose terms start with it, by *list key* =
/// the item's best word points for that prefix (`Ranking.tierWeights[tier]` × exact 1.0 / prefix 0.9) + the most
/// its name can add when that match is in the name (`namePoints`) + its `rankingHint` points + its `lastUsedDate`
/// recency points when the key was computed. Recency only decays, so a key is an upper bound of the item's score
/// for the prefix (engagement aside). A list is *complete* while it holds
/// every matching item; since format 20 a complete list is stored as its count alone (`countsCompleteLists`), and
/// a search for its prefix ranks every match.
///
/// - Prefixes of 1 to `eagerPrefixLength` characters have lists from the first write.
/// - Longer prefixes (up to `maxPrefixLength`) get a list the first time a search for one finds more than
///   `hotThreshold` matches; from then on writers keep it too.
///
/// A one-word search whose prefix has a list scores the engaged items, then the list's items in key order with the
/// full score, and stops once the k-th best so far beats the next key: an item further down, or outside an
/// incomplete list, scores at most its key. When the list runs out first (a filter rejected most of it, or the keys'
/// recency has gone stale) the search ranks every match, and a stale list is rebuilt with today's recency for next
/// time. Either way the result is the same. A word short enough to be expanded with typos (fewer than
/// `Typos.expansionThreshold` postings) is never answered from a list, and typo matches never make one.
enum PrefixLists {
    static let eagerPrefixLength = 3
    static let maxPrefixLength = 8
    static let capacity = 64
    /// One- and two-letter prefixes keep more: they are what a filtered search types first, and a filter that
    /// accepts a quarter of the items needs about 80 entries to find 20 hits in the list (the name parts of the
    /// score spread the keys, so fewer ties let a short list settle). With 64 entries, `py` under a date filter
    /// that keeps 44 % of PyPI's items ran out of its list and ranked every one of its 200,000 matches (70–110 ms,
    /// the wide filter's p99). There are a few thousand such lists (PyPI: 854 two-letter lists have more than
    /// 64 items; 256 entries each cost about 1.1 MB more).
    static let shortPrefixCapacity = 256

    /// How many entries the list of a prefix of `length` scalars keeps.
    static func capacity(length: Int) -> Int { length <= 2 ? shortPrefixCapacity : capacity }

    static func capacity(of prefix: String) -> Int { capacity(length: prefix.unicodeScalars.count) }
    /// A longer prefix whose search finds at least this many matches gets a list.
    static let hotThreshold = 1_000
    /// How many list searches fell back to ranking every match (for tests and diagnostics).
    static let fallbacks = LockedBox(0)

    struct Entry: Hashable, Sendable, Ranked {
        var item: Int64
        var key: Double
        /// The unique identifier: ties of `key` are ordered by it, as the ranking breaks ties on it.
        var uid: String

        /// List order: key descending, then identifier ascending.
        static func precedes(_ a: Entry, _ b: Entry) -> Bool {
            if a.key != b.key { return a.key > b.key }
            return a.uid < b.uid
        }
    }

    /// What a list orders: entries, and a window's offers (`WindowOffers.Offer`).
    protocol Ranked {
        /// Whether `a` comes before `b` in a list.
        static func precedes(_ a: Self, _ b: Self) -> Bool
    }

    /// The `capacity` best of what was offered, and the best of what was left out. Invariant: every kept element
    /// precedes every dropped one (so the kept ones are the best of all offered, and what was dropped ranks below
    /// them all).
    struct BestKept<Element: Ranked> {
        /// A binary heap with the element every other one precedes at the root, so a bulk load's offer to a full
        /// prefix costs a comparison, and a replacement a few (not a scan of hundreds of entries).
        private(set) var entries: [Element] = []
        /// How many entries the prefix's list keeps (`PrefixLists.capacity(length:)`).
        var capacity = PrefixLists.capacity
        /// The best element left out, if any.
        private(set) var bestDropped: Element? = nil

        init(capacity: Int = PrefixLists.capacity) {
            self.capacity = capacity
        }

        /// Elements already in heap order (another `BestKept`'s, `WindowOffers.changes`), with the best one left out.
        init(heap: [Element], capacity: Int, bestDropped: Element?) {
            self.entries = heap
            self.capacity = capacity
            self.bestDropped = bestDropped
        }

        @inline(__always)
        mutating func insert(_ element: Element) {
            if let bestDropped, !Element.precedes(element, bestDropped) { return }
            if entries.count < capacity {
                entries.append(element)
                siftUp(entries.count - 1)
                return
            }
            if Element.precedes(element, entries[0]) {
                drop(entries[0])
                entries[0] = element
                siftDown(0)
            } else {
                drop(element)
            }
        }

        mutating func drop(_ element: Element) {
            if bestDropped == nil || Element.precedes(element, bestDropped!) { bestDropped = element }
        }

        /// Takes out the first element `matches` accepts; returns whether there was one.
        mutating func remove(where matches: (Element) -> Bool) -> Bool {
            guard let i = entries.firstIndex(where: matches) else { return false }
            entries.swapAt(i, entries.count - 1)
            entries.removeLast()
            if i < entries.count {
                siftDown(i)
                siftUp(i)
            }
            return true
        }

        /// Whether `a` belongs nearer the root than `b`: every other element precedes it.
        @inline(__always)
        private static func below(_ a: Element, _ b: Element) -> Bool { Element.precedes(b, a) }

        private mutating func siftUp(_ start: Int) {
            var i = start
            while i > 0 {
                let parent = (i - 1) / 2
                guard Self.below(entries[i], entries[parent]) else { return }
                entries.swapAt(i, parent)
                i = parent
            }
        }

        private mutating func siftDown(_ start: Int) {
            var i = start
            while true {
                let left = 2 * i + 1, right = left + 1
                var lowest = i
                if left < entries.count, Self.below(entries[left], entries[lowest]) { lowest = left }
                if right < entries.count, Self.below(entries[right], entries[lowest]) { lowest = right }
                if lowest == i { return }
                entries.swapAt(i, lowest)
                i = lowest
            }
        }
    }

    /// The changes of one transaction, applied once at its end. A bulk load offers every item to a few dozen
    /// prefixes, so per prefix only the `capacity` best items added are kept (nothing below them could enter the
    /// list), with a note that some were left out (the list is then not complete).
    struct Changes: Sendable {
        /// The best items added to one prefix in the transaction.
        typealias Added = BestKept<Entry>

        var added: [UInt64: Added] = [:]
        var addedLong: [String: Added] = [:]
        /// Items of earlier transactions that leave lists, one set for every list they leave (a list holds only
        /// some of them; removing the others changes nothing), and the prefixes whose lists they leave. A set per
        /// prefix made an insertion per item and prefix (a Debian item leaves ~150 lists): a third of an update's
        /// time on the transaction's thread (Debian's churn, perf).
        var removedItems: Set<Int64> = []
        /// How many of the removed items had each short prefix: a list stored as its count (`counted`) loses them
        /// when the same change adds to it (an update takes its old version out of the count as it puts the new one
        /// in).
        var removed: [UInt64: Int] = [:]
        var removedLong: Set<String> = []
        /// The smallest item id `added` may hold (ids given in this transaction): an item below it is not there.
        private var smallestAdded = Int64.max

        var isEmpty: Bool { added.isEmpty && removed.isEmpty && addedLong.isEmpty && removedLong.isEmpty }

        /// Takes in the offers of `other` (items offered under provisional numbers, renamed by `item`; one it gives
        /// no id is left out): the same as offering each of its items here, when both were made for one `hot`.
        /// A bulk load makes the offers of a window of items on another core (`PreparedUpsert.Window`), so the
        /// transaction takes in each prefix's best few rather than every item's offer to every prefix.
        mutating func merge(offers other: Changes, item: (Int64) -> Int64?) {
            var smallest = smallestAdded
            let named: (Int64) -> Int64? = { position in
                let id = item(position)
                if let id, id < smallest { smallest = id }
                return id
            }
            for (prefix, offered) in other.added {
                let length = prefix & 0x3FF_FFFF_FFFF == 0 ? 1 : prefix & 0x1F_FFFF == 0 ? 2 : 3
                added[prefix, default: Added(capacity: PrefixLists.capacity(length: length))].merge(offered, item: named)
            }
            for (prefix, offered) in other.addedLong {
                addedLong[prefix, default: Added()].merge(offered, item: named)
            }
            smallestAdded = smallest
        }

        /// Long prefixes that have lists (read once per transaction).
        var hot: HotPrefixes = []

        mutating func add(item: Int64, uid: String, terms: [String: UInt8], name: NameSignals, hintPoints: Double) {
            add(item: item, uid: uid, points: PrefixLists.bestPoints(terms, hot: hot, name: name), hintPoints: hintPoints)
        }

        /// `points`: the item's `bestPoints` for this transaction's `hot` set.
        mutating func add(item: Int64, uid: String, points: PrefixPoints, hintPoints: Double) {
            smallestAdded = min(smallestAdded, item)
            points.short.forEach { prefix, points in
                // (A short key's length: its second and third scalars are 0 when absent, `shortKey`.)
                let length = prefix & 0x3FF_FFFF_FFFF == 0 ? 1 : prefix & 0x1F_FFFF == 0 ? 2 : 3
                added[prefix, default: Added(capacity: PrefixLists.capacity(length: length))].insert(Entry(item: item, key: points + hintPoints, uid: uid))
            }
            for (prefix, points) in points.long {
                addedLong[prefix, default: Added()].insert(Entry(item: item, key: points + hintPoints, uid: uid))
            }
        }

        mutating func remove(item: Int64, terms: [String: UInt8]) {
            let points = PrefixLists.bestPoints(terms, hot: hot)
            // An item added in this transaction and removed again is taken out of what was added (ids are never
            // reused, so no stored list holds it); an older one (every item an update replaces) is not looked for
            // there: each look scanned a prefix's best added items.
            let addedHere = item >= smallestAdded
            for (prefix, _) in points.short.entries {
                if addedHere, added[prefix]?.remove(item) == true { continue }
                removed[prefix, default: 0] += 1
            }
            for prefix in points.long.keys {
                if addedHere, addedLong[prefix]?.remove(item) == true { continue }
                removedLong.insert(prefix)
            }
            removedItems.insert(item)
        }

        /// Every change by prefix text.
        func byPrefix() -> [String: Change] {
            var result: [String: Change] = [:]
            for (key, value) in added { result[PrefixLists.shortPrefix(key), default: Change()].added = value }
            for (key, count) in removed {
                result[PrefixLists.shortPrefix(key), default: Change()].removed = removedItems
                result[PrefixLists.shortPrefix(key), default: Change()].removedCount = count
            }
            for (key, value) in addedLong { result[key, default: Change()].added = value }
            for key in removedLong { result[key, default: Change()].removed = removedItems }
            return result
        }

        /// One list's change: the best items added, the items that leave it (a set for every list), and how many
        /// of those had the prefix (short prefixes; 0 for long ones, whose counts then only grow).
        struct Change: Sendable {
            var added: Added? = nil
            var removed: Set<Int64>? = nil
            var removedCount = 0
        }
    }

    /// Changes handed to another thread to take in a window's offers (`Writer`'s `prefixMerge`): held by the handoff
    /// alone while it merges, so that their tables are changed in place, not copied.
    final class ChangesHandoff: Sendable {
        private let changes: Mutex<Changes>

        init(_ changes: Changes) {
            self.changes = Mutex(changes)
        }

        /// The changes with `offers` taken in (`Changes.merge(offers:item:)`); call once.
        func merging(_ offers: Changes, item: (Int64) -> Int64?) -> Changes {
            changes.withLock { changes in
                changes.merge(offers: offers, item: item)
                let merged = changes
                changes = Changes()
                return merged
            }
        }
    }

    /// A window's offers to the short prefixes' lists (`PreparedUpsert.Window`), made on another core than the
    /// transaction's: an offer is a key, the rank of the item's identifier among the window's (ranks order as the
    /// identifiers do, so ties break as in `Entry.precedes`) and the item's position, with no reference to count
    /// and no text to compare (a Debian item offers itself to ~150 prefixes). `changes` turns the kept ones into
    /// entries.
    struct WindowOffers {
        struct Offer: Sendable, Ranked {
            var key: Double
            var rank: Int32
            var position: Int32

            @inline(__always)
            static func precedes(_ a: Offer, _ b: Offer) -> Bool {
                a.key != b.key ? a.key > b.key : a.rank < b.rank
            }
        }

        /// Each prefix's heap, by prefix (`UInt64Map`: a `Dictionary` hashed each of tens of millions of offers
        /// with SipHash).
        private var heaps = UInt64Map<BestKept<Offer>>(capacity: 4_096)

        mutating func offer(prefix: UInt64, key: Double, rank: Int32, position: Int32) {
            let (index, _) = heaps.index(of: prefix) {
                let length = prefix & 0x3FF_FFFF_FFFF == 0 ? 1 : prefix & 0x1F_FFFF == 0 ? 2 : 3
                return BestKept<Offer>(capacity: PrefixLists.capacity(length: length))
            }
            heaps.modifyValue(at: index) { $0.insert(Offer(key: key, rank: rank, position: position)) }
        }

        /// The kept offers as `Changes.added`, items numbered by position; `uid(position)` names them.
        func changes(uid: (Int32) -> String) -> [UInt64: Changes.Added] {
            var result: [UInt64: Changes.Added] = [:]
            result.reserveCapacity(heaps.count)
            func entry(_ offer: Offer) -> Entry { Entry(item: Int64(offer.position), key: offer.key, uid: uid(offer.position)) }
            heaps.forEach { prefix, heap in
                result[prefix] = Changes.Added(heap: heap.entries.map(entry), capacity: heap.capacity,
                                               bestDropped: heap.bestDropped.map(entry))
            }
            return result
        }
    }

    /// The best word points per prefix of an item's free-text terms: prefixes of 1…3 scalars as packed integers
    /// (`shortKey`; a bulk load computes tens of millions of them), longer ones that have lists (`hot`) as text.
    struct PrefixPoints: Sendable {
        var short = ShortPoints()
        var long: [String: Double] = [:]
    }

    /// An item's best points per short prefix (`shortKey`), in the order its terms gave the prefixes: one array,
    /// made from a table the preparing thread reuses (a table per item was a fifth of `bestPoints`).
    struct ShortPoints: Sendable, Equatable {
        var entries: [(prefix: UInt64, points: Double)] = []

        var count: Int { entries.count }

        func forEach(_ body: (UInt64, Double) -> Void) {
            for entry in entries { body(entry.prefix, entry.points) }
        }

        init() {}

        init(_ table: UInt64Map<Double>) {
            entries.reserveCapacity(table.count)
            table.forEach { entries.append(($0, $1)) }
        }

        /// The same prefixes with the same points, in whatever order.
        static func == (a: Self, b: Self) -> Bool {
            a.count == b.count && Dictionary(a.entries, uniquingKeysWith: max) == Dictionary(b.entries, uniquingKeysWith: max)
        }
    }

    /// A prefix of 1…3 scalars as one integer: 21 bits per scalar, first scalar highest (no term contains NUL, so
    /// a shorter prefix never collides with a longer one).
    @inline(__always)
    static func shortKey(_ scalars: (UInt32, UInt32, UInt32)) -> UInt64 {
        UInt64(scalars.0) << 42 | UInt64(scalars.1) << 21 | UInt64(scalars.2)
    }

    static func shortPrefix(_ key: UInt64) -> String {
        var view = String.UnicodeScalarView()
        for shift in [42, 21, 0] as [UInt64] {
            let value = UInt32((key >> shift) & 0x1F_FFFF)
            if value != 0, let scalar = Unicode.Scalar(value) { view.append(scalar) }
        }
        return String(view)
    }

    /// The most the name parts of the score (`NameMatch`) add for a one-word query `prefix` whose best match in
    /// the item has `points`: nothing unless that match is in the name (only name matches reach 7.2); then the
    /// name's length part, the name-start part when the name's first word begins with the prefix (`startsName`;
    /// scalar by scalar, which every prefix match by `String.hasPrefix` also is) and matches it at least as well as
    /// the best match does (`NameMatch.firstWordMatches`: when the prefix is a whole word of the name, an exact
    /// match, the first word must be the prefix itself, `firstIsPrefix`), and the exact-name part when the name's
    /// words joined are the prefix (`isName`).
    ///
    /// (Without the second condition, `golang-go` was keyed 0.25 above its score for `go`, as were 241 of the 256
    /// entries of Debian's `go` list: the list could never settle its top 20, and every search for `go` read the
    /// whole list and then ranked every match, 12–67 ms.)
    @inline(__always)
    static func namePoints(_ points: Double, name: NameSignals, isName: Bool, startsName: Bool, firstIsPrefix: Bool) -> Double {
        guard name.words > 0, points >= Ranking.tierWeights[0] * Ranking.kindFactor(.prefix) - 1e-9 else { return 0 }
        let exact = points >= Ranking.tierWeights[0] * Ranking.kindFactor(.exact) - 1e-9
        let starts = startsName && (firstIsPrefix || !exact)
        return (starts ? Ranking.nameStartPoints : 0) + Ranking.nameLengthPoints(words: name.words)
            + (isName ? Ranking.exactNamePoints : 0)
    }

    /// The list key of an item for `prefix` (whose `NameSignals.hash` is `prefixHash`) when its best word match
    /// there has `points`: the word points, the name parts (`namePoints`), its hint and its recency as of `now`.
    /// `refill` and the pending items a search merges into a list (`PendingPrefixes.PendingItem`) compute it so.
    static func key(points: Double, prefix: String, prefixHash: UInt64, name: NameSignals, hint: Double?,
                    lastUsed: Double?, now: Date) -> Double {
        points + namePoints(points, name: name, isName: name.key == prefixHash,
                            startsName: name.first.unicodeScalars.starts(with: prefix.unicodeScalars),
                            firstIsPrefix: name.first == prefix)
            + Ranking.hintPoints(hint) + Ranking.recencyPoints(lastUsed: lastUsed, now: now)
    }

    /// The short keys of `text`'s prefixes of 1…3 scalars, shortest first.
    static func shortKeys(_ text: String) -> [UInt64] {
        var scalars: (UInt32, UInt32, UInt32) = (0, 0, 0)
        var keys: [UInt64] = []
        for (i, scalar) in text.unicodeScalars.prefix(eagerPrefixLength).enumerated() {
            switch i {
            case 0: scalars.0 = scalar.value
            case 1: scalars.1 = scalar.value
            default: scalars.2 = scalar.value
            }
            keys.append(shortKey(scalars))
        }
        return keys
    }

    /// The best points per prefix (word points, plus the name parts: `namePoints`).
    static func bestPoints(_ terms: [String: UInt8], hot: HotPrefixes = [], name: NameSignals = .none) -> PrefixPoints {
        bestPoints(ItemTerms(terms), hot: hot, name: name)
    }

    /// `bestPoints` of an item's terms as a bulk load prepares them.
    static func bestPoints(_ terms: ItemTerms, hot: HotPrefixes = [], name: NameSignals = .none) -> PrefixPoints {
        var short = UInt64Map<Double>()
        return bestPoints(terms, hot: hot, name: name, short: &short)
    }

    /// `bestPoints`, with `short` (emptied first) as the table of short prefixes: a thread that prepares items one
    /// after the other reuses it.
    static func bestPoints(_ terms: ItemTerms, hot: HotPrefixes, name: NameSignals,
                           short: inout UInt64Map<Double>) -> PrefixPoints {
        var result = PrefixPoints()
        short.removeAll()
        for n in 0..<terms.count {
            let tiers = terms.tiers[n]
            // (A slice, not a pointer in a closure: a closure's captures of `short` and `result` were checked for
            // exclusive access at every step, a quarter of this function.)
            let term = terms.table.bytes[terms.table.range(of: n)]
            do {
                // (The keyword tier's own terms repeat its words: no prefix of them is typed.)
                guard let first = term.first, !TextIndexer.isOwnTerm(firstByte: first),
                      let tier = TextIndexer.bestTier(tiers) else { continue }
                let weight = Ranking.tierWeights[tier]
                var scalars: (UInt32, UInt32, UInt32) = (0, 0, 0)
                var length = 0
                // The term's scalars, one ahead (the last prefix is the whole term when none follows).
                var iterator = term.makeIterator()
                var decoder = Unicode.UTF8()
                func nextScalar() -> UInt32? {
                    if case .scalarValue(let scalar) = decoder.decode(&iterator) { return scalar.value }
                    return nil
                }
                var next = nextScalar()
                while let value = next, length < eagerPrefixLength {
                    length += 1
                    switch length {
                    case 1: scalars.0 = value
                    case 2: scalars.1 = value
                    default: scalars.2 = value
                    }
                    next = nextScalar()
                    let points = weight * Ranking.kindFactor(next == nil ? .exact : .prefix)
                    let (index, inserted) = short.index(of: shortKey(scalars)) { points }
                    if !inserted, points > short.values[index] { short.setValue(points, at: index) }
                }
                guard !hot.isEmpty, next != nil, hot.heads.contains(shortKey(scalars)) else { continue }
                // Longer prefixes, only those with lists: each prefix's hash (`NameSignals.hash`, over its UTF-8 bytes)
                // is looked up first, and only a known one is made text.
                var hash = NameSignals.hashSeed
                var whole = 0
                var bytes = 0
                func check(exact: Bool) {
                    guard whole > eagerPrefixLength, hot.hashes.contains(NameSignals.finished(hash)) else { return }
                    let key = String(decoding: term.prefix(bytes), as: UTF8.self)
                    guard hot.contains(key) else { return }
                    let points = weight * Ranking.kindFactor(exact ? .exact : .prefix)
                    if points > result.long[key] ?? -1 { result.long[key] = points }
                }
                var ended = true
                for byte in term {
                    // A byte that starts a scalar: the bytes before it are `whole` scalars.
                    if byte & 0xC0 != 0x80 {
                        check(exact: false)
                        whole += 1
                        if whole > maxPrefixLength {
                            ended = false
                            break
                        }
                    }
                    hash = NameSignals.hashStep(hash, byte)
                    bytes += 1
                }
                if ended { check(exact: true) }
            }
        }
        guard name.words > 0 else {
            result.short = ShortPoints(short)
            return result
        }
        // The name's key as a short key, when it is short enough to be one; the first word's short prefixes.
        var nameKey: UInt64? = nil
        if let text = name.keyText, text.unicodeScalars.count <= eagerPrefixLength { nameKey = shortKeys(text).last }
        let firstKeys = shortKeys(name.first)
        // The first word's own key, when it is short enough to be one.
        let firstKey = name.first.unicodeScalars.count <= eagerPrefixLength ? firstKeys.last : nil
        // Signals read back from an item's row have no key text, only its hash (`PendingPrefixes`): a prefix is
        // then the name when it hashes to it (a collision only raises a key, which stays an upper bound).
        let nameFloor = Ranking.tierWeights[0] * Ranking.kindFactor(.prefix) - 1e-9
        for index in 0..<short.count {
            let key = short.keys[index], points = short.values[index]
            let isName = name.keyText != nil ? key == nameKey
                : points >= nameFloor && NameSignals.hash(shortPrefix(key)) == name.key
            let extra = namePoints(points, name: name, isName: isName, startsName: firstKeys.contains(key),
                                   firstIsPrefix: key == firstKey)
            if extra > 0 { short.setValue(points + extra, at: index) }
        }
        for (key, points) in result.long {
            let isName = name.keyText.map { key == $0 } ?? (NameSignals.hash(key) == name.key)
            let extra = namePoints(points, name: name, isName: isName,
                                   startsName: name.first.unicodeScalars.starts(with: key.unicodeScalars),
                                   firstIsPrefix: name.first == key)
            if extra > 0 { result.long[key] = points + extra }
        }
        result.short = ShortPoints(short)
        return result
    }

    /// The long prefixes that have lists.
    /// Every write transaction reads them, so they have their own small index (`longPrefixIndexSQL`) instead of a
    /// scan of every list (tens of megabytes at a million items).
    static func hotPrefixes(_ db: Database) throws -> HotPrefixes {
        HotPrefixes(Set(try String.fetchAll(db.cachedStatement(sql: "SELECT prefix FROM prefixTop WHERE length(prefix) > \(eagerPrefixLength)"))))
    }

    /// The long prefixes that have lists, and the short keys of their first three scalars: an item's term is
    /// checked against them only when it starts as one of them does (most terms start as none; building every
    /// term's longer prefixes as text to look them up was 40 % of applying the lists' changes).
    struct HotPrefixes: Sendable, Equatable, ExpressibleByArrayLiteral {
        private(set) var texts: Set<String> = []
        private(set) var heads: Set<UInt64> = []
        /// `NameSignals.hash` of each.
        private(set) var hashes: Set<UInt64> = []

        init(_ texts: Set<String>) {
            self.texts = texts
            heads = Set(texts.compactMap { $0.unicodeScalars.count > eagerPrefixLength ? shortKeys($0).last : nil })
            hashes = Set(texts.map(NameSignals.hash))
        }

        init(arrayLiteral elements: String...) {
            self.init(Set(elements))
        }

        var isEmpty: Bool { texts.isEmpty }

        func contains(_ prefix: String) -> Bool { texts.contains(prefix) }

        static func == (a: Self, b: Self) -> Bool { a.texts == b.texts }
    }

    /// A partial index of the long prefixes' names; the query above must repeat its condition literally for SQLite
    /// to use it. Adding it changes no format: any version's writes keep it up to date.
    static let longPrefixIndexSQL =
        "CREATE INDEX IF NOT EXISTS prefixTop_long ON prefixTop(prefix) WHERE length(prefix) > \(eagerPrefixLength)"

    /// Creates the list of a prefix (in its own write transaction) unless it exists, or rebuilds it (`replacing`)
    /// with today's recency.
    static func create(_ prefix: String, db: Database, replacing: Bool = false) throws {
        let exists = try Int.fetchOne(db, sql: "SELECT 1 FROM prefixTop WHERE prefix = ?", arguments: [prefix]) != nil
        guard replacing || !exists else { return }
        let now = Date()
        let (entries, complete) = try refill(prefix, db: db, now: now)
        try store(prefix, entries: entries, complete: complete, keysAsOf: now, db: db)
    }

    /// Writes a list built by `refill`.
    ///
    /// A list that exists is updated in place (an upsert keeps its rowid): `INSERT OR REPLACE` deleted the row and
    /// appended it again under a new rowid, so every list changed left a hole in the page it was on, which only
    /// rows of that page could fill (a quarter of the bytes of Debian's list pages unused after a bulk load), and it
    /// rewrote the prefix index's entry too.
    static let upsertSQL = """
        INSERT INTO prefixTop(prefix, complete, entries) VALUES(?, ?, ?)
        ON CONFLICT(prefix) DO UPDATE SET complete = excluded.complete, entries = excluded.entries
        """

    /// `keysAsOf`: the time the entries' keys were computed as of (`refill`'s `now`), noted for searches
    /// (`noteKeys`).
    static func store(_ prefix: String, entries: [Entry], complete: Bool, keysAsOf: Date, db: Database) throws {
        let row = encodeRow(entries, complete: complete)
        try db.execute(sql: upsertSQL, arguments: [prefix, row.complete, row.data])
        try noteKeys(asOf: keysAsOf, db: db)
    }

    /// Notes that lists were written with keys computed as of `time` (`meta.listKeysAsOf`, the latest such time).
    ///
    /// A key bounds its item's score from the time it was computed on, since only recency changes with time and it
    /// only decays. A search as of an earlier time (the clock went back after the lists were written, or a caller
    /// searches as of a past date) can find an item scoring above its key, by at most what its recency lost in
    /// between: `keySlack` is that margin, which the search adds to every key it stops at, so it stays exact
    /// (reading further down the list). 0 whenever the clock only goes forward.
    static func noteKeys(asOf time: Date, db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO meta(key, value) VALUES('listKeysAsOf', ?1)
            ON CONFLICT(key) DO UPDATE SET value = max(CAST(value AS REAL), CAST(?1 AS REAL))
            """).execute(arguments: [time.timeIntervalSinceReferenceDate])
    }

    /// How much an item's score as of `now` can exceed its list key (`noteKeys`): the most recency loses between
    /// `now` and the latest time keys were computed as of, when that is later.
    static func keySlack(_ db: Database, now: Date) throws -> Double {
        guard let asOf = try Double.fetchOne(db.cachedStatement(
            sql: "SELECT CAST(value AS REAL) FROM meta WHERE key = 'listKeysAsOf'")) else { return 0 }
        let ahead = asOf - now.timeIntervalSinceReferenceDate
        guard ahead.isFinite else { return Ranking.maxRecencyPoints }
        guard ahead > 0 else { return 0 }
        return Ranking.maxRecencyPoints * (1 - pow(0.5, ahead / Ranking.recencyHalfLife))
    }

    /// A list `apply` changes: its prefix, the change, and the list as stored (nil: none yet).
    fileprivate struct ListChange: Sendable {
        var prefix: String
        var change: Changes.Change
        var stored: [UInt8]?
        var complete: Bool
    }

    /// A list merged with its change (`merged`): whether it is complete, whether it must be refilled from the
    /// postings, and its encoded entries when they are to be written (nil: the stored list stays).
    fileprivate struct MergedList: Sendable {
        var complete: Bool
        var needsRefill: Bool
        var encoded: Data?
    }

    /// Below this many lists to merge, `apply` merges them on the transaction's thread (a single write changes
    /// ~100); above, on every core, when the caller asks for it (`onEveryCore`: a large write's transaction). The
    /// maintenance never does: its thread runs at a lower priority, and libdispatch's workers at the process's, so
    /// its merges took the cores from single writes (PyPI's write-visible p99 went from 3.5–4.1 to 5.4–6.8 ms).
    static let parallelMerges = 512
    /// How many `apply` calls merged their lists on every core (for tests).
    static let parallelApplies = Atomic<Int>(0)

    /// Applies a transaction's changes to the lists: each list is read (in the table's order; one the change
    /// leaves as it is is told on its bytes), merged with the change on every core when there are many (a bulk
    /// load's batch changes tens of thousands: decoding, sorting and encoding them were a fifth of its
    /// transaction's thread), then refilled from the postings where it ran low, and written.
    /// `keysAsOf`: the latest time the changes' keys were computed as of (`noteKeys`), when later than `now`.
    static func apply(_ changes: Changes, db: Database, now: Date = Date(), keysAsOf: Date? = nil,
                      onEveryCore: Bool = false) throws {
        try begin(changes, db: db, now: now, keysAsOf: keysAsOf, onEveryCore: onEveryCore).finish(db: db)
    }

    /// A transaction's change to the lists under way (`begin`): the lists it changes, read, and their merges, on
    /// other cores for a large write while the transaction writes the rest of its changes; `finish` writes them.
    struct Application {
        private let work: [ListChange]
        /// The merges of `work`, in order: parts of `parallelPart` lists each, taken up by the pool's threads (and
        /// by `finish`'s, for the parts none has started).
        private let parts: [Concurrently<[MergedList]>]
        /// The merges when they were made on the transaction's thread.
        private let merged: [MergedList]
        private let now: Date
        /// The latest time the keys written are computed as of (the changes' and the refills'), for `noteKeys`.
        private let keysAsOf: Date
        /// Lists stored as their count that this change takes past their capacity, by their index in `work`, built
        /// from the store's last commit on other threads (`begin`'s `snapshot`).
        private let snapshots: [Int: SnapshotRefill]

        fileprivate init(work: [ListChange], parts: [Concurrently<[MergedList]>] = [], merged: [MergedList] = [], now: Date,
                         keysAsOf: Date? = nil, snapshots: [Int: SnapshotRefill] = [:]) {
            self.work = work
            self.parts = parts
            self.merged = merged
            self.now = now
            self.keysAsOf = max(now, keysAsOf ?? now)
            self.snapshots = snapshots
        }

        /// Waits for the merges, refills the lists that ran low from the postings (which hold the transaction's
        /// items by then), and writes the lists that changed.
        func finish(db: Database) throws {
            // (Last first: the pool takes the parts first first.)
            for part in parts.reversed() { _ = part.value() }
            let merged = parts.isEmpty ? self.merged : parts.flatMap { $0.value() }
            let write = try db.cachedStatement(sql: upsertSQL).sqliteStatement
            var wrote = false
            for (index, (list, var result)) in zip(work, merged).enumerated() {
                if result.needsRefill, let built = snapshots[index]?.value() {
                    snapshotBuilds.add(1, ordering: .relaxed)
                    // The list as of the last commit, merged with this change as a stored list is.
                    result = PrefixLists.merged(built.entries, complete: built.complete, change: list.change,
                                                prefix: list.prefix, rowHoldsThem: false)
                }
                if result.needsRefill {
                    let (entries, complete) = try refill(list.prefix, db: db, now: now)
                    let row = encodeRow(entries, complete: complete)
                    result.complete = row.complete
                    result.encoded = list.stored.map({ Data($0) }) != row.data || complete != list.complete ? row.data : nil
                }
                // During a bulk load most lists of common prefixes are already full of better items: no write.
                guard let encoded = result.encoded else { continue }
                wrote = true
                try SegmentMerger.bindAndStep(db, write) {
                    RawBind.text(write, 1, list.prefix)
                    sqlite3_bind_int64(write, 2, result.complete ? 1 : 0)
                    RawBind.blob(write, 3, encoded)
                }
            }
            if wrote { try noteKeys(asOf: keysAsOf, db: db) }
        }
    }

    /// Lists merged per part of a large write's merges.
    static let parallelPart = 256

    /// Reads the lists a transaction's changes touch and starts merging them: on the pool's threads when there are
    /// many and the caller asks for it (`onEveryCore`), so that the transaction writes its vocabulary and segment
    /// meanwhile (the merges of PyPI's batches of 10,000 took the writer ~0.1 s, its frequencies another 0.07 s,
    /// one after the other with the second core mostly idle); on this thread otherwise. The refills and writes
    /// wait for `Application.finish`.
    ///
    /// `snapshot`: reads the store's last commit on the calling thread (`IndexStore.read`), for a write that holds
    /// the write lock. A list stored as its count that the change takes past its capacity must then be built from
    /// the postings: from the last commit, on the pool's threads, while the transaction goes on (a bulk load takes
    /// thousands of prefixes past it, and building them on the transaction's thread, from a catalogue lookup per
    /// item, held up PyPI's load by 12 %); the change is then merged into it as into a stored list. Without it, or
    /// when the read fails, such a list is refilled by `finish`, with the transaction's own items.
    static func begin(_ changes: Changes, db: Database, now: Date = Date(), keysAsOf: Date? = nil, onEveryCore: Bool = false,
                      snapshot: Snapshot? = nil) throws -> Application {
        guard !changes.isEmpty else { return Application(work: [], now: now) }
        let read = try db.cachedStatement(sql: "SELECT complete, entries FROM prefixTop WHERE prefix = ?")
        // Sorted, so that pages of the prefix table are read and written in order.
        let changed = changes.byPrefix()
        var work: [ListChange] = []
        for prefix in changed.keys.sorted() {
            let change = changed[prefix]!
            var stored: [UInt8]? = nil
            var complete = true
            var stays = false
            // Read in place through SQLite's C API (a single-item write reads ~100 lists: GRDB's `Row` and a copy of
            // each blob were a third of its prefix-list work).
            try IndexStore.forEachRawRow(db, read, text: prefix) { h in
                complete = try RawColumn.integer(h, 0) != 0
                let count = Int(sqlite3_column_bytes(h, 1))
                let bytes = UnsafeRawBufferPointer(start: count > 0 ? sqlite3_column_blob(h, 1) : nil, count: count)
                // A list stored as its count keeps it when items only leave (`merged`).
                if change.added == nil, storedCount(bytes) != nil {
                    stays = true
                    return
                }
                // Most of an item's prefixes have full, incomplete lists it is not good enough for: such a list is
                // left as it is, checked on its bytes without decoding it (a single-item write offers ~100 prefixes).
                if !complete, unchanged(bytes, removing: change.removed, adding: change.added) {
                    stays = true
                    return
                }
                stored = Array(bytes)
            }
            if stays { continue }
            work.append(ListChange(prefix: prefix, change: change, stored: stored, complete: complete))
        }
        var snapshots: [Int: SnapshotRefill] = [:]
        if let snapshot {
            let crossing = work.indices.filter { i in
                guard let stored = work[i].stored, let count = storedCount(stored) else { return false }
                return Self.count(count, after: work[i].change, prefix: work[i].prefix) == nil
            }
            for part in stride(from: 0, to: crossing.count, by: snapshotPart) {
                let indices = Array(crossing[part..<min(crossing.count, part + snapshotPart)])
                let prefixes = indices.map { work[$0].prefix }
                let refill = Concurrently<SnapshotLists?>(mayRunInline: false) {
                    try? snapshot { db in try prefixes.map { prefix -> (entries: [Entry], complete: Bool) in
                        let (entries, complete) = try Self.refill(prefix, db: db, now: now)
                        return (entries, complete)
                    } }
                }
                for (n, i) in indices.enumerated() { snapshots[i] = SnapshotRefill(batch: refill, position: n) }
            }
        }
        if !onEveryCore || work.count < parallelMerges {
            return Application(work: work, merged: work.map(Self.merged), now: now, keysAsOf: keysAsOf, snapshots: snapshots)
        }
        parallelApplies.add(1, ordering: .relaxed)
        let parts = stride(from: 0, to: work.count, by: parallelPart).map { [work] start in
            Concurrently { work[start..<min(work.count, start + parallelPart)].map(Self.merged) }
        }
        return Application(work: work, parts: parts, now: now, keysAsOf: keysAsOf, snapshots: snapshots)
    }

    /// Lists built from the store's last commit (`begin`'s `snapshot`).
    typealias SnapshotLists = [(entries: [Entry], complete: Bool)]
    /// Runs a read of the store's last commit (`begin`'s `snapshot`).
    typealias Snapshot = @Sendable (_ body: (Database) throws -> SnapshotLists) throws -> SnapshotLists

    /// How many lists a write built from the last commit (`begin`'s `snapshot`; for tests).
    static let snapshotBuilds = Atomic<Int>(0)

    /// Lists built from the last commit per read (`begin`'s `snapshot`).
    static let snapshotPart = 16

    /// One list built from the store's last commit on a pool thread (`begin`'s `snapshot`): a position in a batch
    /// of lists built by one read (nil when the read failed), never on the waiting thread, which is the writer's.
    struct SnapshotRefill: Sendable {
        let batch: Concurrently<SnapshotLists?>
        let position: Int

        func value() -> (entries: [Entry], complete: Bool)? {
            guard let lists = batch.value(), position < lists.count else { return nil }
            return lists[position]
        }
    }

    /// A list merged with its change (apart from the database, on any thread): items removed, items added that
    /// the list takes, cut to its capacity; encoded unless it must be refilled from the postings.
    private static func merged(_ list: ListChange) -> MergedList {
        if let stored = list.stored, let count = storedCount(stored) {
            guard let added = list.change.added, !added.entries.isEmpty || added.bestDropped != nil else {
                return MergedList(complete: true, needsRefill: false, encoded: nil)
            }
            guard let count = Self.count(count, after: list.change, prefix: list.prefix) else {
                return MergedList(complete: false, needsRefill: true, encoded: nil)
            }
            return MergedList(complete: true, needsRefill: false, encoded: counted(count))
        }
        return merged(list.stored.map { stored in stored.withUnsafeBytes { decode($0) } } ?? [], complete: list.complete,
                      change: list.change, prefix: list.prefix, rowHoldsThem: list.stored != nil)
    }

    /// What a change makes of a complete list stored as its count: the new count, or nil when the list must be
    /// built from the postings (past its capacity, or with items left out). Removals alone leave the count (an
    /// upper bound); additions add to it, less the removals that came with them (an update's old version leaves
    /// the count as its new one comes in).
    static func count(_ count: Int, after change: Changes.Change, prefix: String) -> Int? {
        guard let added = change.added else { return count }
        guard added.bestDropped == nil else { return nil }
        let total = max(0, count - change.removedCount) + added.entries.count
        return total <= capacity(of: prefix) ? total : nil
    }

    /// A list's `entries` (`complete` or not) merged with `change`. `rowHoldsThem`: whether its row holds these
    /// entries as they are (else the merge is written whatever it gives: a list built from the last commit in
    /// place of a count).
    private static func merged(_ stored: [Entry], complete storedComplete: Bool, change: Changes.Change, prefix: String,
                               rowHoldsThem: Bool) -> MergedList {
        var entries = stored
        var complete = storedComplete
        let before = entries
        // An incomplete list's outsiders all rank below its last entry, and a search relies on it: such a list
        // only takes items that rank with its last entry or above. The last entry as stored, before this change's
        // removals: every outsider ranked below it, so an item that ranks between it and the last entry left is
        // no outsider skipped. An update replaces an item by a new id with the same key and identifier, so the
        // new version of an entry takes its place, tying it if it was the last (taking the last entry left as the
        // bar, churn's updates shrank every list of common prefixes until it had to be refilled from the
        // postings: reading the signals of thousands of items, 43 % of Debian's churn).
        let threshold = complete ? nil : entries.last
        if let removed = change.removed, !entries.isEmpty {
            entries.removeAll { removed.contains($0.item) }
        }
        if let added = change.added {
            // (An item of a pending write can be in a list already: a list built or refilled since it was
            // written read it from the postings.)
            // (Items newer than every entry, as a bulk load's are, cannot be there: the set is made only for
            // an older one.)
            let newest = entries.reduce(Int64.min) { max($0, $1.item) }
            var present: Set<Int64>? = nil
            for entry in added.entries {
                // (A tie with the bar is the same identifier: the new version of the entry that was last.)
                if let threshold, Entry.precedes(threshold, entry) { continue }
                if entry.item <= newest {
                    if present == nil { present = Set(entries.lazy.map(\.item)) }
                    if present!.contains(entry.item) { continue }
                }
                entries.append(entry)
            }
            // Items left out of the transaction's best: only entries above all of them may stay.
            if let dropped = added.bestDropped {
                complete = false
                entries.removeAll { !Entry.precedes($0, dropped) }
            }
        }
        entries.sort(by: Entry.precedes)
        let capacity = capacity(of: prefix)
        if entries.count > capacity {
            entries.removeLast(entries.count - capacity)
            complete = false
        }
        if !complete, entries.count < capacity / 2 {
            return MergedList(complete: false, needsRefill: true, encoded: nil)
        }
        // (A list in format 5's layout is written again only when it changes; one that is to be stored as its
        // count always is, since it holds entries.)
        let differs = !rowHoldsThem || complete != storedComplete || entries != before
            || (complete && countsCompleteLists.load(ordering: .relaxed))
        return MergedList(complete: complete, needsRefill: false, encoded: differs ? encodeRow(entries, complete: complete).data : nil)
    }

    /// Whether an incomplete list stays as it is: it holds none of `removed`, and none of `added` precedes its last
    /// entry (an incomplete list only takes items that beat it). Reads the encoded entries in place.
    ///
    /// A single-item write offers ~100 prefixes, most of them full lists it does not enter: this runs for each, so
    /// it reads only items and keys and steps over the identifiers. The last identifier is rebuilt only when an
    /// added entry ties the last key (identifiers then break the tie), by a second pass.
    static func unchanged(_ data: Data, removing removed: Set<Int64>?, adding added: Changes.Added?) -> Bool {
        data.withUnsafeBytes { unchanged($0, removing: removed, adding: added) }
    }

    static func unchanged(_ raw: UnsafeRawBufferPointer, removing removed: Set<Int64>?, adding added: Changes.Added?) -> Bool {
        if let added, added.bestDropped != nil { return false }
        var reader = EntryReader(raw)
        // (A list stored as its count is complete: never asked.)
        guard reader.isList else { return false }
        var lastKey: Double? = nil
        // A single write removes one item (its old version) from each list: compared directly, not hashed for
        // each of a list's entries.
        let few = (removed?.count ?? 0) <= 8 ? Array(removed ?? []) : nil
        while !reader.atEnd {
            // The same checks as `forEachEncoded`: damage reads as a changed list (which is then decoded as far
            // as it is whole), never a trap.
            guard let (item, key) = reader.skipping() else { return false }
            if let few {
                for r in few where r == item { return false }
            } else if let removed, removed.contains(item) {
                return false
            }
            lastKey = key
        }
        guard let added, !added.entries.isEmpty else { return true }
        // An empty incomplete list takes anything (it is refilled anyway).
        guard let lastKey else { return false }
        var ties = false
        for entry in added.entries {
            if entry.key > lastKey { return false }
            if entry.key == lastKey { ties = true }
        }
        guard ties else { return true }
        var lastItem: Int64? = nil
        var lastUID: [UInt8] = []
        forEachEncoded(raw) { item, _, uid in
            lastItem = item
            lastUID.removeAll(keepingCapacity: true)
            lastUID.append(contentsOf: uid)
            return true
        }
        guard let item = lastItem else { return false }
        let threshold = Entry(item: item, key: lastKey, uid: String(decoding: lastUID, as: UTF8.self))
        return !added.entries.contains { Entry.precedes($0, threshold) }
    }

    /// How many lists `refill` rebuilt (for tests).
    static let refills = Atomic<Int>(0)

    /// Rebuilds one list from the postings (rare: only after many deletes from a truncated list).
    static func refill(_ prefix: String, db: Database, now: Date = Date()) throws -> ([Entry], Bool) {
        refills.add(1, ordering: .relaxed)
        var bestPoints: [Int64: Double] = [:]
        try PostingStore.forEachList(db, termsFrom: prefix, below: prefix + "\u{10FFFF}") { exact, list in
            let kind: RankingExplanation.MatchKind = exact ? .exact : .prefix
            try list.forEach { item, tiers in
                guard let tier = TextIndexer.bestTier(tiers) else { return }
                let points = Ranking.tierWeights[tier] * Ranking.kindFactor(kind)
                if points > bestPoints[item] ?? -1 { bestPoints[item] = points }
            }
        }
        // Items deleted since their segment was written have no row: they are left out. A one- or two-letter
        // prefix names thousands of items (churn refills such lists in most batches): their rows are read through
        // SQLite's C API, and only the best `capacity` are kept (a heap), not all of them sorted.
        let catalog = ItemCatalog(db)
        catalog.decodesThroughCache = false
        let prefixKey = NameSignals.hash(prefix)
        let capacity = capacity(of: prefix)
        var best = Changes.Added(capacity: capacity)
        var found = 0
        // In id order: catalogued items of one block are read together (`ItemCatalog` keeps the last block read).
        for (item, points) in bestPoints.sorted(by: { $0.key < $1.key }) {
            guard let signals = try catalog.signals(of: item) else { continue }
            let key = key(points: points, prefix: prefix, prefixHash: prefixKey, name: signals.name,
                          hint: signals.hint, lastUsed: signals.lastUsed, now: now)
            best.insert(Entry(item: item, key: key, uid: signals.uid))
            found += 1
        }
        return (best.entries.sorted(by: Entry.precedes), found <= capacity)
    }

    /// The list of a prefix: its entries (best first) and whether it holds every matching item; nil if none, or
    /// when it is stored as its count (a complete list, `countsCompleteLists`: the search ranks every match, as
    /// without a list).
    static func list(_ prefix: String, db: Database) throws -> (entries: [Entry], complete: Bool)? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT complete, entries FROM prefixTop WHERE prefix = ?"),
                                         arguments: [prefix]) else { return nil }
        let data: Data = try row.stored(1)
        if data.withUnsafeBytes({ storedCount($0) }) != nil { return nil }
        return (decode(data), try row.stored(0))
    }

    /// Entries as bytes. Since format 20 (`encode`): a 0 byte and `listTag`, then per entry the item id (LEB128
    /// varint), the key (the first entry's as 8 bytes, little-endian; each later one as a varint, how far it lies
    /// below the one before in `orderedBits`' order), then the identifier as the number of leading bytes it shares
    /// with the previous entry's (varint), the number of bytes that follow (varint) and those bytes. Entries go
    /// best first, so a key is a small step below the one before: with PyPI's keys (word and name points, no hint
    /// or recency) most steps are 0 and take a byte, where the key's bits took 8 (6.0 → 1.7 MB of PyPI's lists).
    /// Format 5 to 19 wrote no leading byte and every key as 8 bytes: item ids start at 1, so such a list never
    /// starts with 0, and it is read as it is. Identifiers of one app mostly share a start (`debian:`, `pypi:`,
    /// a scheme and host): a list takes about two-thirds of format 4's bytes (a fixed 18 bytes per entry and the
    /// whole identifier), which paid ~40 % of a million items' index for lists.
    ///
    /// A complete list is stored as its count alone (`encodeRow`): a 0 byte,
    /// `countedTag` and the count (varint).
    static func encode(_ entries: [Entry]) -> Data {
        var bytes: [UInt8] = [0, listTag]
        bytes.reserveCapacity(2 + entries.count * 18)
        // (Identifiers are compared and copied in place: an array of each one's bytes was most of a bulk load's
        // list encoding.)
        var previous = ""
        var previousKey: UInt64? = nil
        for e in entries {
            ValueCodec.writeVarint(UInt64(bitPattern: e.item), to: &bytes)
            let key = orderedBits(e.key)
            if let previousKey {
                // (Wrapping: keys out of order, which a list never has, still come back as they were.)
                ValueCodec.writeVarint(previousKey &- key, to: &bytes)
            } else {
                var bits = key
                for _ in 0..<8 {
                    bytes.append(UInt8(truncatingIfNeeded: bits))
                    bits >>= 8
                }
            }
            previousKey = key
            var uid = e.uid
            uid.withUTF8 { uid in
                previous.withUTF8 { previous in
                    var shared = 0
                    let most = min(uid.count, previous.count)
                    while shared < most, uid[shared] == previous[shared] { shared += 1 }
                    ValueCodec.writeVarint(UInt64(shared), to: &bytes)
                    ValueCodec.writeVarint(UInt64(uid.count - shared), to: &bytes)
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: uid[shared...]))
                }
            }
            previous = uid
        }
        return Data(bytes)
    }

    /// The tag after a list's leading 0 byte: entries follow (format 20).
    static let listTag: UInt8 = 0
    /// The tag after a list's leading 0 byte: only the count of a complete list follows (format 20).
    static let countedTag: UInt8 = 1

    /// Whether a complete list is stored as its count alone (format 20): a search for its prefix ranks every
    /// match (at most the list's capacity of items, found through the segments' dictionaries), as it does for a
    /// prefix with no list, and writes only count what they add. PyPI's 23,548 complete three-letter lists held
    /// 4.9 MB of its 9.1 MB of three-letter lists, and its complete one- and two-letter lists another 3.1 MB. A
    /// write that takes a count past the list's capacity (or that leaves items out) builds the list from the
    /// postings (`refill`). A change that only removes items leaves a count as it is (a write would otherwise
    /// rewrite the count of every prefix of a deleted item's words); one that also adds takes its removed items
    /// with the prefix off (an update takes its old version out as it puts the new one in: without it, each round
    /// of churn took counts past their capacity and built those lists again). A count is an upper bound but for
    /// an item removed twice (a pending delete applied after a list was built without it): either way a search
    /// ranks every match of a counted prefix, so a wrong count costs time, never a result. Tests that read the
    /// entries of small lists turn it off (`withWholeLists`).
    static let countsCompleteLists = Atomic<Bool>(true)

    /// A list as a row: its `complete` column and its bytes; a complete list is stored as its count alone.
    static func encodeRow(_ entries: [Entry], complete: Bool) -> (complete: Bool, data: Data) {
        complete && countsCompleteLists.load(ordering: .relaxed) ? (true, counted(entries.count)) : (complete, encode(entries))
    }

    /// The bytes of a complete list stored as its count.
    static func counted(_ count: Int) -> Data {
        var bytes: [UInt8] = [0, countedTag]
        ValueCodec.writeVarint(UInt64(count), to: &bytes)
        return Data(bytes)
    }

    /// The count of a list stored as its count alone (`counted`); nil for a list of entries.
    static func storedCount(_ raw: UnsafeRawBufferPointer) -> Int? {
        guard raw.count >= 2, raw[0] == 0, raw[1] == countedTag else { return nil }
        var offset = 2
        // (Damage reads as a count past every capacity: the next write that adds to it builds the list.)
        guard let count = try? PostingCodec.Reader.varint(raw, &offset) else { return Int(UInt32.max) }
        return Int(min(count, UInt64(Int.max)))
    }

    static func storedCount(_ data: [UInt8]) -> Int? {
        data.withUnsafeBytes { storedCount($0) }
    }

    /// A key's bits in an order that follows the keys' (`-1 < 0 < 1`): positive numbers with the sign bit set,
    /// negative ones with every bit flipped.
    @inline(__always)
    static func orderedBits(_ key: Double) -> UInt64 {
        let bits = key.bitPattern
        return bits >> 63 == 0 ? bits | (1 << 63) : ~bits
    }

    @inline(__always)
    static func key(orderedBits bits: UInt64) -> Double {
        Double(bitPattern: bits >> 63 == 1 ? bits & ~(1 << 63) : ~bits)
    }

    static func decode(_ data: Data) -> [Entry] {
        data.withUnsafeBytes { decode($0) }
    }

    static func decode(_ raw: UnsafeRawBufferPointer) -> [Entry] {
        var entries: [Entry] = []
        forEachEncoded(raw) { item, key, uid in
            entries.append(Entry(item: item, key: key, uid: String(decoding: uid, as: UTF8.self)))
            return true
        }
        return entries
    }

    /// Calls `body` with each encoded entry (its identifier's bytes as an array: one buffer reused from entry to
    /// entry, so an array kept past the call is copied, never changed under its holder), until it returns false.
    /// A list stored as its count has none. Returns false when `body` stopped it or the bytes are not a whole list
    /// (they end inside an entry, an identifier claims more shared bytes than the previous one has, a varint runs
    /// past 64 bits, an unknown tag): damage reads as a list cut short, never a trap.
    @discardableResult
    static func forEachEncoded(_ raw: UnsafeRawBufferPointer,
                               _ body: (Int64, Double, [UInt8]) -> Bool) -> Bool {
        var reader = EntryReader(raw)
        guard reader.isList else { return reader.isCounted }
        var uid: [UInt8] = []
        while !reader.atEnd {
            guard let (item, key) = reader.next(uid: &uid) else { return false }
            guard body(item, key, uid) else { return false }
        }
        return true
    }

    /// Reads encoded entries in place, in either format (5 or 20); `next` returns nil on damage.
    struct EntryReader {
        let raw: UnsafeRawBufferPointer
        var offset = 0
        /// Whether the list is in format 20's layout (keys as steps).
        let steps: Bool
        /// Whether the bytes are a list of entries (not a count, not an unknown tag).
        let isList: Bool
        let isCounted: Bool
        private var previousKey: UInt64? = nil
        /// The length of the previous entry's identifier.
        private var uidLength: UInt64 = 0

        init(_ raw: UnsafeRawBufferPointer) {
            self.raw = raw
            if raw.count >= 1, raw[0] == 0 {
                steps = true
                isCounted = raw.count >= 2 && raw[1] == PrefixLists.countedTag
                isList = raw.count >= 2 && raw[1] == PrefixLists.listTag
                offset = 2
            } else {
                steps = false
                isCounted = false
                isList = true
            }
        }

        var atEnd: Bool { offset >= raw.count }

        @inline(__always)
        private mutating func varint() -> UInt64? { try? PostingCodec.Reader.varint(raw, &offset) }

        /// The next entry's item and key, stepping over its identifier's bytes.
        @inline(__always)
        mutating func skipping() -> (item: Int64, key: Double)? {
            guard let (item, key, _, length) = head() else { return nil }
            offset += Int(length)
            return (item, key)
        }

        /// The next entry, its identifier rebuilt in `uid` (the previous entry's identifier on entry).
        mutating func next(uid: inout [UInt8]) -> (item: Int64, key: Double)? {
            guard let (item, key, shared, length) = head(), shared <= UInt64(uid.count) else { return nil }
            uid.removeLast(uid.count - Int(shared))
            uid.append(contentsOf: raw[offset..<(offset + Int(length))])
            offset += Int(length)
            return (item, key)
        }

        /// An entry up to its identifier's new bytes: item, key, shared and new lengths.
        @inline(__always)
        private mutating func head() -> (Int64, Double, UInt64, UInt64)? {
            guard let item = varint() else { return nil }
            let key: Double
            if steps, let previousKey {
                guard let step = varint() else { return nil }
                let bits = previousKey &- step
                self.previousKey = bits
                key = PrefixLists.key(orderedBits: bits)
            } else {
                guard offset + 8 <= raw.count else { return nil }
                let bits = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                offset += 8
                if steps {
                    previousKey = bits
                    key = PrefixLists.key(orderedBits: bits)
                } else {
                    key = Double(bitPattern: bits)
                }
            }
            guard let shared = varint(), shared <= uidLength, let length = varint(),
                  length <= UInt64(raw.count - offset) else { return nil }
            uidLength = shared + length
            return (Int64(bitPattern: item), key, shared, length)
        }
    }

    /// A list as format 4 wrote it (per entry the item id (8), the key's bits (8), the identifier's UTF-8 length (2)
    /// and bytes), for the upgrade to format 5; bytes that end inside an entry end the list there.
    static func decodeFormat4(_ data: Data) -> [Entry] {
        var entries: [Entry] = []
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset + 18 <= raw.count {
                let item = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int64.self))
                let bits = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
                let length = Int(UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 16, as: UInt16.self)))
                offset += 18
                guard offset + length <= raw.count else { return }
                entries.append(Entry(item: item, key: Double(bitPattern: bits),
                                     uid: String(decoding: UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + length)]), as: UTF8.self)))
                offset += length
            }
        }
        return entries
    }
}

/// Typed reads of the current row of a raw SQLite statement, with the checks GRDB's `Row` would make: a value of
/// another type (damage) is `.corruptIndex`, never a silent zero or a trap.
enum RawColumn {
    static func integer(_ handle: OpaquePointer, _ column: Int32) throws -> Int64 {
        guard sqlite3_column_type(handle, column) == SQLITE_INTEGER else { throw damaged(handle, column) }
        return sqlite3_column_int64(handle, column)
    }

    /// A number or NULL.
    static func real(_ handle: OpaquePointer, _ column: Int32) throws -> Double? {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_NULL: return nil
        case SQLITE_INTEGER, SQLITE_FLOAT: return sqlite3_column_double(handle, column)
        default: throw damaged(handle, column)
        }
    }

    /// A blob's bytes (none for NULL or an empty blob), valid until the statement steps.
    static func bytes(_ handle: OpaquePointer, _ column: Int32) throws -> UnsafeRawBufferPointer {
        let type = sqlite3_column_type(handle, column)
        guard type == SQLITE_BLOB || type == SQLITE_NULL else { throw damaged(handle, column) }
        let count = Int(sqlite3_column_bytes(handle, column))
        return UnsafeRawBufferPointer(start: count > 0 ? sqlite3_column_blob(handle, column) : nil, count: count)
    }

    /// Text or NULL.
    static func optionalText(_ handle: OpaquePointer, _ column: Int32) throws -> String? {
        sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : try text(handle, column)
    }

    /// An item's `NameSignals` from its row's `nameWords`, `nameFirst` and `nameKey` columns.
    static func nameSignals(_ handle: OpaquePointer, words: Int32, first: Int32, key: Int32) throws -> NameSignals {
        NameSignals(words: Int(try integer(handle, words)), first: try text(handle, first),
                    key: UInt64(bitPattern: try integer(handle, key)))
    }

    static func text(_ handle: OpaquePointer, _ column: Int32) throws -> String {
        guard sqlite3_column_type(handle, column) == SQLITE_TEXT else { throw damaged(handle, column) }
        return String(decoding: UnsafeBufferPointer(start: sqlite3_column_text(handle, column),
                                                    count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
    }

    private static func damaged(_ handle: OpaquePointer, _ column: Int32) -> EngineError {
        let name = sqlite3_column_name(handle, column).map { String(cString: $0) } ?? "\(column)"
        return EngineError(.corruptIndex, "a damaged value in column \(name): type \(sqlite3_column_type(handle, column))")
    }
}

extension PrefixLists.BestKept: Sendable where Element: Sendable {}

extension PrefixLists.BestKept where Element == PrefixLists.Entry {
    /// Takes out an item added earlier in the transaction; returns whether it was there.
    mutating func remove(_ item: Int64) -> Bool {
        remove { $0.item == item }
    }

    /// Takes in the best entries another `Added` kept (their items renamed by `item`; one it gives no id is left
    /// out) and notes what it left out. The result is what offering each entry of the other one here would have
    /// kept: whatever the other left out ranks below `capacity` of its entries, so it could not have entered either.
    mutating func merge(_ other: Self, item: (Int64) -> Int64?) {
        for entry in other.entries {
            guard let id = item(entry.item) else { continue }
            // (Most entries of a window cannot enter a full list: refused before an entry is made.)
            if let bestDropped, !Element.precedes(entry, bestDropped) { continue }
            if entries.count >= capacity, !Element.precedes(entry, entries[0]) {
                drop(entry)
                continue
            }
            insert(Element(item: id, key: entry.key, uid: entry.uid))
        }
        if let dropped = other.bestDropped { drop(dropped) }
    }
}
