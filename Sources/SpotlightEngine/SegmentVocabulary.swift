import Foundation
import GRDB
import GRDBSQLite

/// The vocabulary, read from the segments' own sorted dictionaries (format 16), as Lucene's and Tantivy's readers
/// read it: a term's frequency is the number of postings its lists hold in every segment, and a range of terms is
/// each segment's range merged in byte order.
///
/// Formats 5 to 15 kept a global `term(text, id, df)` table beside the segments: every new term inserted, every
/// term's frequency updated by every write that added or deleted an item holding it (a small write's decrements left
/// pending, `dfPending`). It was 23 MB of PyPI's index and a tenth of its bulk load's CPU, and it said nothing the
/// segments' dictionaries do not: they hold every term with its list.
///
/// **A frequency counts deleted items until their segment is merged** (as Lucene's `docFreq` and Tantivy's
/// `doc_freq` do): a deleted item's postings stay in its segment, dead, until a merge drops them, and the merge
/// policy rewrites a segment in which a quarter of the items died (`SegmentMerger.expungeShare`). Frequencies
/// order a query's words and decide whether a word is expanded with typos (`Typos.expansionThreshold`): estimates,
/// as they always were. What a person sees is checked against live items: a completion or correction is offered
/// only for a term some live item holds (`hasLiveItem`), and a search drops dead postings as it reads them.
enum SegmentVocabulary {
    /// The number of postings `text` has in every segment of `db`'s snapshot.
    static func frequency(_ db: Database, of text: String, segments: PostingStore.Segments? = nil) throws -> Int {
        let segments = try segments ?? PostingStore.Segments(db)
        let bytes = Array(text.utf8)
        var total = 0
        for segment in segments.blocked { total += try segment.count(db, text: bytes) }
        if !segments.rows.isEmpty {
            let statement = try db.cachedStatement(sql: "SELECT count FROM postings WHERE segment = ? AND text = ?")
            for segment in segments.rows {
                total += try Int.fetchOne(statement, arguments: [segment, text]) ?? 0
            }
        }
        for segment in segments.packed { total += try segment.count(of: bytes) }
        return total
    }

    /// The number of postings of every term that starts with `prefix`, in every segment.
    static func frequency(_ db: Database, ofPrefix prefix: String) throws -> Int {
        var total = 0
        try forEachSegmentTerm(db, from: Array(prefix.utf8), below: Array(prefix.utf8) + Typos.SpanWalk.beyond) { _, count in
            total += count
        }
        return total
    }

    /// Each distinct term in `[low, high)` (byte order) with its postings in every segment, in byte order; the
    /// first `limit` of them.
    static func terms(_ db: Database, from low: [UInt8], below high: [UInt8], limit: Int = .max,
                      segments: PostingStore.Segments? = nil) throws -> [(text: String, count: Int)]
    {
        // Each segment's first `limit` terms of the range (the first `limit` of the union are among them), merged.
        let merged = VocabularyLetters.merge(try sources(db, segments: segments).map { source in
            try VocabularyLetters.source(limit: limit) { visit in try source.forEachTerm(db, from: low, below: high, visit) }
        })
        return (0..<min(limit, merged.count)).map { (merged.text($0), Int(merged.counts[$0])) }
    }

    /// Calls `body` with every (segment, term) of `[low, high)` and the postings of the term's list there: a term
    /// several segments hold comes once per segment, segment by segment.
    static func forEachSegmentTerm(_ db: Database, from low: [UInt8], below high: [UInt8],
                                   _ body: (UnsafeRawBufferPointer, Int) throws -> Void) throws {
        for source in try sources(db) { try source.forEachTerm(db, from: low, below: high, body) }
    }

    /// One segment's dictionary, however the segment is stored.
    enum Source {
        case blocked(BlockedSegment)
        /// A format 10 segment of posting rows (its id).
        case rows(Int64)
        case packed(PackedSegment)

        /// Calls `visit` with each term of `[low, high)` in byte order and its list's postings.
        func forEachTerm(_ db: Database, from low: [UInt8], below high: [UInt8],
                         _ visit: (UnsafeRawBufferPointer, Int) throws -> Void) throws {
            switch self {
            case .blocked(let segment):
                try segment.forEachTerm(db, from: low, below: high, visit)
            case .packed(let segment):
                try segment.forEachTerm(from: low, below: high, visit)
            case .rows(let segment):
                let statement = try db.cachedStatement(sql: """
                    SELECT text, count FROM postings WHERE segment = ?1 AND text >= ?2 AND text < ?3 ORDER BY text
                    """).sqliteStatement
                sqlite3_reset(statement)
                defer { sqlite3_reset(statement) }
                sqlite3_bind_int64(statement, 1, segment)
                low.withUnsafeBufferPointer { _ = sqlite3_bind_text(statement, 2, $0.baseAddress, Int32($0.count), SQLITE_TRANSIENT) }
                high.withUnsafeBufferPointer { _ = sqlite3_bind_text(statement, 3, $0.baseAddress, Int32($0.count), SQLITE_TRANSIENT) }
                while true {
                    let code = sqlite3_step(statement)
                    if code == SQLITE_DONE { break }
                    guard code == SQLITE_ROW else { throw IndexStore.stepError(db, code) }
                    let count = Int(sqlite3_column_int64(statement, 1))
                    let length = Int(sqlite3_column_bytes(statement, 0))
                    try visit(UnsafeRawBufferPointer(start: length == 0 ? nil : sqlite3_column_text(statement, 0), count: length), count)
                }
            }
        }
    }

    /// The dictionaries of every segment of `db`'s snapshot (`segments`, when the caller read them already).
    static func sources(_ db: Database, segments: PostingStore.Segments? = nil) throws -> [Source] {
        let segments = try segments ?? PostingStore.Segments(db)
        return segments.blocked.map(Source.blocked) + segments.rows.map(Source.rows) + segments.packed.map(Source.packed)
    }

    /// Whether some item that still exists holds `text`: its lists read until one names a live item (almost
    /// always the first posting; a frequency also counts the deleted items of segments not merged yet).
    static func hasLiveItem(_ db: Database, text: String) throws -> Bool {
        struct Found: Error {}
        let catalog = ItemCatalog(db)
        do {
            try PostingStore.forEachList(db, text: text) { list in
                try list.forEach { item, _ in
                    if try catalog.entry(id: item) != nil { throw Found() }
                }
            }
        } catch is Found {
            return true
        }
        return false
    }
}
