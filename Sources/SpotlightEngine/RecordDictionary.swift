import CZstd
import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// A zstd dictionary that an index's stored records are compressed with (format 5).
///
/// A record is a few hundred bytes, most of them attribute names (`contentDescription`, `contentTypeTree` and its
/// four type identifiers) and words its neighbours share; alone, zstd finds little to reuse in it (PyPI's records:
/// 290 bytes, 210 as a plain frame). Trained on the index's own records, a dictionary holds what they share, and a
/// frame compressed with it keeps only what is particular to the record (PyPI: ~70 bytes; Debian: 400 → 240).
///
/// - **Training**: the first write of at least `trainingMinimum` new items trains one from a sample of them
///   (`train(from:)`, zstd's `ZDICT_trainFromBuffer`, a few hundred milliseconds at most), before the write lock
///   is taken; the maintenance trains one for an index that grew by small writes and compresses its records again
///   (`IndexStore.compressRecordsWithDictionary`).
/// - **Storage**: the `recordDictionary` table, by zstd's dictionary id (which zstd derives from the dictionary's
///   content and writes into every frame's header); `meta.recordDictionary` names the one writes use. A transaction
///   that writes records with a dictionary stores that dictionary in the same transaction (`ensureStored`), so
///   no committed record names a dictionary the file lacks; dictionaries are never deleted.
/// - **Reading**: a frame's header names its dictionary; `RecordDictionary.named(_:in:)` reads it from the store once
///   per process and store file, then keeps it. A frame naming a dictionary the store does not have is damage
///   (`.corruptIndex`).
///
/// The dictionary and its compression and decompression forms are immutable once made; zstd allows using them
/// from several threads at once.
final class RecordDictionary: @unchecked Sendable {
    /// zstd's id of the dictionary, written in the header of every frame compressed with it.
    let id: UInt32
    /// The dictionary's bytes, as stored.
    let data: Data
    private let compression: OpaquePointer
    private let decompression: OpaquePointer

    /// New items in one write from which a dictionary is trained.
    static let trainingMinimum = 1_000
    /// At most this many records are sampled for training: a bulk load's first batch of 10,000 whole (4,096 until
    /// 2026-12-07; with these and samples of a block's bytes, `trainingSamples(_:)`, PyPI's record frames went
    /// from 51.0 to 49.4 MB).
    static let trainingSamples = 16_384
    /// The largest dictionary; a smaller sample trains a smaller one (a tenth of the sample's bytes, as zstd
    /// recommends), never below `minimumCapacity`.
    static let maximumCapacity = 64 << 10
    static let minimumCapacity = 4 << 10

    /// Makes the dictionary from stored or trained bytes; nil when zstd does not take them as a dictionary.
    init?(data: Data) {
        let made = data.withUnsafeBytes { raw -> (UInt32, OpaquePointer?, OpaquePointer?) in
            guard let base = raw.baseAddress, raw.count >= 8 else { return (0, nil, nil) }
            let id = ZSTD_getDictID_fromDict(base, raw.count)
            guard id != 0 else { return (0, nil, nil) }
            return (id, ZSTD_createCDict(base, raw.count, ValueCodec.zstdLevel), ZSTD_createDDict(base, raw.count))
        }
        guard made.0 != 0, let compression = made.1, let decompression = made.2 else {
            if let c = made.1 { ZSTD_freeCDict(c) }
            if let d = made.2 { ZSTD_freeDDict(d) }
            return nil
        }
        self.id = made.0
        self.data = data
        self.compression = compression
        self.decompression = decompression
    }

    deinit {
        ZSTD_freeCDict(compression)
        ZSTD_freeDDict(decompression)
    }

    /// Compresses `plain` with the dictionary into `out` (of `capacity` bytes); zstd's result code.
    func compress(_ context: OpaquePointer?, _ out: UnsafeMutableRawPointer?, _ capacity: Int,
                  _ plain: UnsafeRawPointer?, _ count: Int) -> Int {
        ZSTD_compress_usingCDict(context, out, capacity, plain, count, compression)
    }

    /// Makes the next frames of a streaming compression or decompression `context` use the dictionary (the context
    /// taken clean from `ZstdContexts` and reset by the caller after); zstd's result code.
    func reference(compression context: OpaquePointer) -> Int {
        ZSTD_CCtx_refCDict(context, compression)
    }

    func reference(decompression context: OpaquePointer) -> Int {
        ZSTD_DCtx_refDDict(context, decompression)
    }

    /// Decompresses a frame compressed with the dictionary; zstd's result code.
    func decompress(_ context: OpaquePointer?, _ out: UnsafeMutableRawPointer?, _ capacity: Int,
                    _ frame: UnsafeRawPointer?, _ count: Int) -> Int {
        ZSTD_decompress_usingDDict(context, out, capacity, frame, count, decompression)
    }

    // MARK: Training

    /// Trains a dictionary on the plain records of a write's new items, or returns nil when there are fewer than
    /// `trainingMinimum` of them or zstd finds nothing worth a dictionary in them.
    static func train(from operations: [IndexOperation]) -> RecordDictionary? {
        var records: [StoredItem] = []
        for operation in operations {
            if case .upsert(let item, false, _, _) = operation { records.append(item) }
        }
        guard records.count >= trainingMinimum else { return nil }
        let step = max(1, records.count / trainingSamples)
        let samples = stride(from: 0, to: records.count, by: step).prefix(trainingSamples).map { position in
            ValueCodec.encode(attributes: records[position].attributes, custom: records[position].customAttributes)
        }
        return train(samples: samples)
    }

    /// About the plain bytes of a training sample (`trainingSamples(_:)`): a block's (a row of about
    /// `RecordBlocks.rowTarget` bytes compressed holds 6 to 7 KB of PyPI's records).
    static let trainingSampleBytes = 6_144

    /// Trains a dictionary on plain records (`ValueCodec.encode`).
    static func train(samples: [[UInt8]]) -> RecordDictionary? {
        guard samples.count >= trainingMinimum else { return nil }
        let samples = trainingSamples(samples)
        var joined: [UInt8] = []
        joined.reserveCapacity(samples.reduce(0) { $0 + $1.count })
        var sizes: [Int] = []
        sizes.reserveCapacity(samples.count)
        for sample in samples {
            joined.append(contentsOf: sample)
            sizes.append(sample.count)
        }
        let capacity = min(maximumCapacity, max(minimumCapacity, joined.count / 10))
        var dictionary = [UInt8](repeating: 0, count: capacity)
        let written = dictionary.withUnsafeMutableBytes { target in
            joined.withUnsafeBytes { source in
                sizes.withUnsafeBufferPointer { sizes in
                    ZDICT_trainFromBuffer(target.baseAddress, capacity, source.baseAddress, sizes.baseAddress,
                                          UInt32(sizes.count))
                }
            }
        }
        guard ZDICT_isError(written) == 0, written > 0 else { return nil }
        // The trainer's statistics are for zstd's default level (3); records are compressed at `zstdLevel`: its
        // content finalized again for that level (a dictionary tuned to its level compresses better, zstd's
        // documentation says). Kept as trained when that fails.
        let content = Array(dictionary[dictionary.withUnsafeBytes { min(written, ZDICT_getDictHeaderSize($0.baseAddress, written)) }..<written])
        var finalized = [UInt8](repeating: 0, count: capacity)
        let parameters = ZDICT_params_t(compressionLevel: ValueCodec.zstdLevel, notificationLevel: 0, dictID: 0)
        let size = finalized.withUnsafeMutableBytes { target in
            content.withUnsafeBytes { content in
                joined.withUnsafeBytes { source in
                    sizes.withUnsafeBufferPointer { sizes in
                        ZDICT_finalizeDictionary(target.baseAddress, capacity, content.baseAddress, content.count,
                                                 source.baseAddress, sizes.baseAddress, UInt32(sizes.count), parameters)
                    }
                }
            }
        }
        if ZDICT_isError(size) == 0, size > 0, let tuned = RecordDictionary(data: Data(finalized.prefix(size))) {
            return tuned
        }
        return RecordDictionary(data: Data(dictionary.prefix(written)))
    }

    /// What a dictionary is trained on: the records as blocks lay them out (`RecordColumns`, format 19), sampled
    /// records together as many as a block holds (about `trainingSampleBytes`, at most
    /// `RecordBlocks.maximumRecords`), so that the dictionary holds what a block's columns share (attribute names,
    /// type trees, the words that start descriptions) as a block's frame meets it. Trained on records one at a
    /// time, as formats 5 to 18 were, a dictionary made PyPI's blocks laid out by attribute 4 % smaller than
    /// records one after the other; on eight together (format 19), 14 %; on a block's bytes together, with every
    /// record of a bulk load's first batch, 3 % smaller again (PyPI's frames 51.0 → 49.4 MB; offline, zstd's
    /// trainer on whole blocks, catalogue sections included, gave 47.9).
    ///
    /// (Samples made as catalogue blocks, their sections' fields made from the items and their initials left out,
    /// made PyPI's frames 1 % larger: 49.4 → 49.9 MB.)
    static func trainingSamples(_ records: [[UInt8]]) -> [[UInt8]] {
        var samples: [[UInt8]] = []
        // (At least about 128 samples: zstd's trainer wants many.)
        let target = max(1, min(trainingSampleBytes, records.reduce(0) { $0 + $1.count } / 128))
        var start = 0
        while start < records.count {
            var end = start
            var bytes = 0
            while end < records.count, bytes < target, end - start < RecordBlocks.maximumRecords {
                bytes += records[end].count
                end += 1
            }
            let group = records[start..<end]
            var sample: [UInt8] = []
            samples.append(RecordColumns.encode(group, to: &sample) ? sample : Array(group.joined()))
            start = end
        }
        return samples
    }

    // MARK: The store's dictionaries

    static let tableSQL = "CREATE TABLE IF NOT EXISTS recordDictionary(id INTEGER PRIMARY KEY, data BLOB NOT NULL)"

    /// The dictionaries read so far, per store file, by id. (A store replaced at the same path, by recovery, keeps
    /// its entries: zstd derives a dictionary's id from its content, so the same id names the same bytes.)
    private static let known = Mutex<[String: [UInt32: RecordDictionary]]>([:])

    /// Dictionaries that writes under way compress with and store only at their end (`ensureStored`), by the
    /// writer's connection: the write's own reads resolve them (an item it wrote in a row, or in a block, and
    /// replaces or deletes again), no other connection does.
    private static let unstored = Mutex<[UInt: RecordDictionary]>([:])

    private static func connectionKey(_ db: Database) -> UInt {
        UInt(bitPattern: db.sqliteConnection.map { Int(bitPattern: $0) } ?? 0)
    }

    /// Runs a write's `body` with `dictionary` resolved by `named` on its connection, stored or not.
    /// Throws `Conflict` at once when the store holds other bytes under the dictionary's id (as `ensureStored`
    /// would at the end): its records must not be read with these.
    static func whileWriting<T>(with dictionary: RecordDictionary?, _ db: Database, _ body: () throws -> T) throws -> T {
        guard let dictionary else { return try body() }
        if try db.tableExists("recordDictionary"),
           let stored = try Data.fetchOne(db, sql: "SELECT data FROM recordDictionary WHERE id = ?", arguments: [Int64(dictionary.id)]),
           stored != dictionary.data {
            throw Conflict()
        }
        let key = connectionKey(db)
        unstored.withLock { $0[key] = dictionary }
        defer { unstored.withLock { $0[key] = nil } }
        return try body()
    }

    /// The dictionary with zstd's id `id` of the store `db` reads, or nil when it has none by that id.
    static func named(_ id: UInt32, in db: Database) throws -> RecordDictionary? {
        if let writing = unstored.withLock({ $0.isEmpty ? nil : $0[connectionKey(db)] }), writing.id == id { return writing }
        let path = storePath(db)
        if let found = known.withLock({ $0[path]?[id] }) { return found }
        guard try db.tableExists("recordDictionary"),
              let data = try Data.fetchOne(db, sql: "SELECT data FROM recordDictionary WHERE id = ?", arguments: [Int64(id)])
        else { return nil }
        guard let dictionary = RecordDictionary(data: data), dictionary.id == id else {
            throw EngineError(.corruptIndex, "the record dictionary \(id) of the index at \(path) is damaged")
        }
        known.withLock { $0[path, default: [:]][id] = dictionary }
        return dictionary
    }

    /// The dictionary writes to the store compress with (`meta.recordDictionary`), if it has one.
    static func current(in db: Database) throws -> RecordDictionary? {
        guard let id = try Int64.fetchOne(db, sql: "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'recordDictionary'"),
              let id32 = UInt32(exactly: id) else { return nil }
        return try named(id32, in: db)
    }

    /// Stores `dictionary` in this transaction, unless the store has it already, and makes it the one writes use
    /// when the store has none yet. Throws `Conflict` when the store holds different bytes under its id (two
    /// processes trained different dictionaries that zstd gave the same id: about one chance in 2³¹).
    static func ensureStored(_ dictionary: RecordDictionary, _ db: Database) throws {
        if let stored = try Data.fetchOne(db, sql: "SELECT data FROM recordDictionary WHERE id = ?",
                                          arguments: [Int64(dictionary.id)]) {
            guard stored == dictionary.data else { throw Conflict() }
        } else {
            try db.execute(sql: "INSERT INTO recordDictionary(id, data) VALUES(?, ?)",
                           arguments: [Int64(dictionary.id), dictionary.data])
        }
        try db.execute(sql: "INSERT OR IGNORE INTO meta(key, value) VALUES('recordDictionary', ?)",
                       arguments: [Int64(dictionary.id)])
        known.withLock { $0[storePath(db), default: [:]][dictionary.id] = dictionary }
    }

    struct Conflict: Error {}

    private static func storePath(_ db: Database) -> String {
        sqlite3_db_filename(db.sqliteConnection, "main").map { String(cString: $0) } ?? ""
    }
}
