import CZstd
import Foundation
import GRDB
import Synchronization

/// The compact binary encoding of an item's attributes, stored in the `item.attrs` column.
///
/// Format (version 1): a varint count of entries, then per entry: a flag byte (0 = attribute, 1 = custom attribute
/// followed by a flags byte), the name, the value. Values are a tag byte followed by their payload; strings are
/// varint length + UTF-8; numbers are little-endian 8-byte; arrays are a varint count + values.
/// It is smaller and several times faster than JSON or property lists, which matters at a million items.
///
/// Decoding is total: any byte string decodes to values or throws `EngineError` `.corruptIndex` — every length and
/// count is checked against the bytes that remain before anything is allocated, a varint longer than 64 bits is an
/// error, and arrays nest at most `maximumNestingDepth` deep (the write side rejects deeper values with
/// `.invalidItem` before encoding, so nothing valid is refused), so a damaged record never traps a reader.
///
/// Stored records are compressed (`stored` / `decode`): a record of `compressionThreshold` bytes or more is kept as a
/// zstd frame (Debian's libzstd) when that is smaller. A frame starts with zstd's magic number `28 B5 2F FD`,
/// which no uncompressed record can start with (40 entries would be followed by an entry kind, 0 or 1), so both
/// kinds of rows — and rows an older version wrote — are read by the same `decode`.
enum ValueCodec {
    /// The deepest nesting of arrays a value may have (a plain value has depth 0, an array of strings depth 1).
    static let maximumNestingDepth = AttributeValue.maximumNestingDepth
    /// Records shorter than this are stored as they are (compression would not pay).
    static let compressionThreshold = 96
    /// The largest record a zstd frame may claim to hold, and the largest ratio it may claim: a damaged size is
    /// refused before anything is allocated. (A record that compresses better than that is stored uncompressed.)
    static let maximumRecordSize = 256 << 20
    static let maximumRatio = 64
    /// zstd's level for records and record blocks. Decompressing costs the same at any level. Debian's blocks took
    /// 10.9 MB at level 3, 10.2 at 6, 9.98 at 9 and 9.88 at 12 (the whole index 1.51×, 1.48×, 1.47×, 1.47× its raw
    /// text). PyPI's blocks with their dictionary (`zstd -b -D`, 2,000 blocks of 4.8 KB, 2026-11-28): level 3
    /// 1.82 MB at 285 MB/s, 6 1.73 MB at 65 MB/s, 9 1.70 MB at 38 MB/s: level 9 was 8 % of a bulk load's CPU
    /// (perf), for 1.5 % less than level 6 in the frames (0.4 % of the index).
    static let zstdLevel: Int32 = 6

    /// With the index's dictionary (`RecordDictionary`), records from this size are compressed.
    static let dictionaryCompressionThreshold = 24

    /// The bytes an item row stores: `encode`'s, compressed when that is smaller (with the index's `dictionary`
    /// when it has one). Every stored attribute byte is written through here and read through `decode` (the one
    /// place a cipher for protection classes would go).
    static func stored(attributes: [String: AttributeValue], custom: [String: CustomAttribute],
                       dictionary: RecordDictionary? = nil) -> [UInt8] {
        stored(plain: encode(attributes: attributes, custom: custom), dictionary: dictionary)
    }

    /// The bytes an item row stores for a record's plain bytes (`encode`'s).
    static func stored(plain: [UInt8], dictionary: RecordDictionary?) -> [UInt8] {
        let threshold = dictionary == nil ? compressionThreshold : dictionaryCompressionThreshold
        guard plain.count >= threshold else { return plain }
        return compressed(plain, dictionary: dictionary)
    }

    /// `plain` as a zstd frame (with `dictionary` when there is one), or `plain` itself when the frame would not be
    /// smaller or the bytes are too many (`maximumRecordSize`). `plain` read back through `plain(_:dictionary:)`.
    static func compressed(_ plain: [UInt8], dictionary: RecordDictionary?) -> [UInt8] {
        guard plain.count <= maximumRecordSize else { return plain }
        let bound = ZSTD_compressBound(plain.count)
        var out = [UInt8](repeating: 0, count: bound)
        let written = ZstdContexts.compression.using { context in
            out.withUnsafeMutableBytes { target in
                plain.withUnsafeBytes { source in
                    if let dictionary {
                        return dictionary.compress(context, target.baseAddress, bound, source.baseAddress, plain.count)
                    }
                    return ZSTD_compressCCtx(context, target.baseAddress, bound, source.baseAddress, plain.count, zstdLevel)
                }
            }
        }
        guard ZSTD_isError(written) == 0, written < plain.count, plain.count <= written * maximumRatio else { return plain }
        out.removeLast(bound - written)
        return out
    }

    /// `plain` as `compressed(_:dictionary:)` makes it, but with its first `head` bytes closing a zstd block of their
    /// own (`ZSTD_e_flush`), so that `plainHead` takes them without decompressing the blocks after. It is one frame
    /// all the same, which any zstd reader (`plain(_:dictionary:)`, an older version of this one) reads whole.
    static func compressed(_ plain: [UInt8], dictionary: RecordDictionary?, head: Int) -> [UInt8] {
        guard head > 0, head < plain.count, plain.count <= maximumRecordSize else { return compressed(plain, dictionary: dictionary) }
        // Two blocks where one would do: a block header more and the second block's own literal tables.
        let bound = ZSTD_compressBound(plain.count) + 64
        var out = [UInt8](repeating: 0, count: bound)
        let written = ZstdContexts.compression.using { context -> Int in
            guard let context else { return -1 }
            // The streaming parameters and the dictionary are sticky: taken clean, and left clean for the next user.
            _ = ZSTD_CCtx_reset(context, ZSTD_reset_session_and_parameters)
            defer { _ = ZSTD_CCtx_reset(context, ZSTD_reset_session_and_parameters) }
            let set = dictionary.map { $0.reference(compression: context) }
                ?? ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, zstdLevel)
            guard ZSTD_isError(set) == 0,
                  ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(context, UInt64(plain.count))) == 0 else { return -1 }
            return out.withUnsafeMutableBytes { target in
                plain.withUnsafeBytes { source in
                    var output = ZSTD_outBuffer(dst: target.baseAddress, size: bound, pos: 0)
                    for (range, directive) in [(0..<head, ZSTD_e_flush), (head..<plain.count, ZSTD_e_end)] {
                        var input = ZSTD_inBuffer(src: source.baseAddress! + range.lowerBound, size: range.count, pos: 0)
                        while true {
                            let left = ZSTD_compressStream2(context, &output, &input, directive)
                            if ZSTD_isError(left) != 0 { return -1 }
                            if left == 0 && input.pos == input.size { break }
                            // Output full with more to write: the bound was wrong; store the record plain.
                            if output.pos == output.size { return -1 }
                        }
                    }
                    return output.pos
                }
            }
        }
        guard written > 0, written < plain.count, plain.count <= written * maximumRatio else { return plain }
        out.removeLast(bound - written)
        return out
    }

    /// The plain bytes of a stored frame from its start, decompressed a zstd block at a time until `enough` says the
    /// bytes out so far suffice: the blocks after are not decompressed (a frame from `compressed(_:dictionary:head:)`
    /// stops after its head). Bytes that are not a frame are returned whole; a frame written in one block comes out
    /// whole. Damage throws `.corruptIndex` as `plain(_:dictionary:)` does, never traps.
    static func plainHead(_ bytes: UnsafeRawBufferPointer, dictionary: (UInt32) throws -> RecordDictionary?,
                          enough: (UnsafeRawBufferPointer) -> Bool) throws -> [UInt8] {
        guard isCompressed(bytes) else { return [UInt8](bytes) }
        let damaged = EngineError(.corruptIndex, "a stored record's compressed frame is damaged")
        let (found, size) = try frameSetup(bytes, dictionary: dictionary)
        guard let headerEnd = frameHeaderSize(bytes) else { throw damaged }
        var out = [UInt8](repeating: 0, count: size)
        let produced = ZstdContexts.decompression.using { context -> Int in
            guard let context else { return -1 }
            _ = ZSTD_DCtx_reset(context, ZSTD_reset_session_and_parameters)
            defer { _ = ZSTD_DCtx_reset(context, ZSTD_reset_session_and_parameters) }
            if let found, ZSTD_isError(found.reference(decompression: context)) != 0 { return -1 }
            return out.withUnsafeMutableBytes { target in
                var output = ZSTD_outBuffer(dst: target.baseAddress, size: target.count, pos: 0)
                var input = ZSTD_inBuffer(src: bytes.baseAddress, size: headerEnd, pos: 0)
                // Each block (RFC 8878, 3.1.1.2): a 3-byte little-endian header (bit 0 last, bits 1-2 type,
                // bits 3-23 size) and its content (one byte for an RLE block).
                var blockStart = headerEnd
                while true {
                    guard blockStart + 3 <= bytes.count else { return -1 }
                    let header = Int(bytes[blockStart]) | Int(bytes[blockStart + 1]) << 8 | Int(bytes[blockStart + 2]) << 16
                    let type = (header >> 1) & 3, blockSize = header >> 3
                    guard type != 3 else { return -1 }
                    let end = blockStart + 3 + (type == 1 ? 1 : blockSize)
                    guard end <= bytes.count else { return -1 }
                    input.size = end
                    while input.pos < input.size {
                        let before = (input.pos, output.pos)
                        let code = ZSTD_decompressStream(context, &output, &input)
                        if ZSTD_isError(code) != 0 { return -1 }
                        if (input.pos, output.pos) == before { return -1 }
                    }
                    blockStart = end
                    if header & 1 != 0 { break }
                    if enough(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(target)[0..<output.pos])) { break }
                }
                return output.pos
            }
        }
        guard produced >= 0, produced <= out.count else { throw damaged }
        out.removeLast(out.count - produced)
        return out
    }

    /// The size of a zstd frame's header (magic number included, RFC 8878 3.1.1.1), nil when it is cut short.
    private static func frameHeaderSize(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= 5 else { return nil }
        let descriptor = bytes[4]
        let singleSegment = descriptor & 0x20 != 0
        let contentSizeBytes = [singleSegment ? 1 : 0, 2, 4, 8][Int(descriptor >> 6)]
        let size = 5 + (singleSegment ? 0 : 1) + [0, 1, 2, 4][Int(descriptor & 3)] + contentSizeBytes
        return size <= bytes.count ? size : nil
    }

    /// zstd's id of the dictionary a stored record was compressed with; 0 for none (or an uncompressed record).
    static func dictionaryID(of stored: [UInt8]) -> UInt32 {
        guard isCompressed(stored) else { return 0 }
        return stored.withUnsafeBytes { ZSTD_getDictID_fromFrame($0.baseAddress, stored.count) }
    }

    static func isCompressed(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { isCompressed($0) }
    }

    static func isCompressed(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 4 && bytes[0] == 0x28 && bytes[1] == 0xB5 && bytes[2] == 0x2F && bytes[3] == 0xFD
    }

    /// A frame's dictionary (from `dictionary`, by zstd's id; nil for none) and its plain size, checked before
    /// anything is allocated: a frame naming a dictionary `dictionary` does not have, or claiming a size past
    /// `maximumRecordSize` or `maximumRatio` times its own, is `.corruptIndex`.
    private static func frameSetup(_ bytes: UnsafeRawBufferPointer, dictionary: (UInt32) throws -> RecordDictionary?) throws
        -> (dictionary: RecordDictionary?, size: Int) {
        let dictionaryID = ZSTD_getDictID_fromFrame(bytes.baseAddress, bytes.count)
        var found: RecordDictionary? = nil
        if dictionaryID != 0 {
            found = try dictionary(dictionaryID)
            guard found != nil else {
                throw EngineError(.corruptIndex, "a stored record names the dictionary \(dictionaryID), which the index does not have")
            }
        }
        let size = ZSTD_getFrameContentSize(bytes.baseAddress, bytes.count)
        // ZSTD_CONTENTSIZE_UNKNOWN and ZSTD_CONTENTSIZE_ERROR are the two largest values.
        guard size < UInt64(maximumRecordSize), size <= UInt64(bytes.count * maximumRatio) else {
            throw EngineError(.corruptIndex, "a stored record's compressed frame is damaged (size \(size))")
        }
        return (found, Int(size))
    }

    /// A stored record's plain bytes (decompressed when it is a zstd frame; a frame compressed with a dictionary
    /// gets it from `dictionary`, by zstd's id). Damaged frames, and frames naming a dictionary `dictionary` does
    /// not have, throw `.corruptIndex`.
    static func plain(_ bytes: [UInt8], dictionary: (UInt32) throws -> RecordDictionary? = { _ in nil }) throws -> [UInt8] {
        guard isCompressed(bytes) else { return bytes }
        let (found, size) = try bytes.withUnsafeBytes { try frameSetup($0, dictionary: dictionary) }
        var out = [UInt8](repeating: 0, count: size)
        let written = ZstdContexts.decompression.using { context in
            out.withUnsafeMutableBytes { target in
                bytes.withUnsafeBytes { source in
                    if let found {
                        return found.decompress(context, target.baseAddress, Int(size), source.baseAddress, bytes.count)
                    }
                    return ZSTD_decompressDCtx(context, target.baseAddress, Int(size), source.baseAddress, bytes.count)
                }
            }
        }
        guard ZSTD_isError(written) == 0, written == Int(size) else {
            throw EngineError(.corruptIndex, "a stored record's compressed frame is damaged")
        }
        return out
    }

    static func encode(attributes: [String: AttributeValue], custom: [String: CustomAttribute]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        writeVarint(UInt64(attributes.count + custom.count), to: &out)
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) {
            out.append(0)
            writeString(name, to: &out)
            write(value, to: &out)
        }
        for (name, attribute) in custom.sorted(by: { $0.key < $1.key }) {
            out.append(1)
            out.append(attribute.storedFlags)
            writeString(name, to: &out)
            write(attribute.value, to: &out)
        }
        return out
    }

    /// Decodes the record of the item `item` in the store `db` reads, whose row holds `stored`: the record itself,
    /// or nothing when the record is in a block of records (`RecordBlocks`). Dictionaries (`RecordDictionary`) are
    /// read from the store.
    static func decode(_ stored: [UInt8], item: Int64, in db: Database) throws
        -> (attributes: [String: AttributeValue], custom: [String: CustomAttribute]) {
        try decode(try plain(stored, item: item, in: db))
    }

    /// The plain record of the item `item` in the store `db` reads, whose row holds `stored` (`decode(_:item:in:)`:
    /// the record compressed or not, or nothing when it is in a block of records).
    static func plain(_ stored: [UInt8], item: Int64, in db: Database) throws -> [UInt8] {
        if stored.isEmpty { return try RecordBlocks.record(of: item, in: db) }
        return try plain(stored, dictionary: { try RecordDictionary.named($0, in: db) })
    }

    static func decode(_ stored: [UInt8], dictionary: (UInt32) throws -> RecordDictionary? = { _ in nil }) throws
        -> (attributes: [String: AttributeValue], custom: [String: CustomAttribute]) {
        let bytes = try plain(stored, dictionary: dictionary)
        var reader = Reader(bytes: bytes)
        let count = try reader.count(minimumBytesEach: 3)
        // Sized once (the count is bounded by the bytes): growing the dictionary was a tenth of decoding a record,
        // which every item a query returns pays.
        var attributes: [String: AttributeValue] = Dictionary(minimumCapacity: count)
        var custom: [String: CustomAttribute] = [:]
        for _ in 0..<count {
            let kind = try reader.byte()
            if kind == 0 {
                let name = try reader.string()
                attributes[name] = try reader.value(depth: 0)
            } else if kind == 1 {
                let flags = try reader.byte()
                let name = try reader.string()
                let value = try reader.value(depth: 0)
                custom[name] = CustomAttribute(value: value, storedFlags: flags)
            } else {
                throw EngineError(.corruptIndex, "unknown attribute entry kind \(kind)")
            }
        }
        guard reader.offset == bytes.count else {
            throw EngineError(.corruptIndex, "\(bytes.count - reader.offset) stray bytes after the attribute record")
        }
        return (attributes, custom)
    }

    // MARK: Writing

    private static func write(_ value: AttributeValue, to out: inout [UInt8]) {
        switch value {
        case .string(let s): out.append(1); writeString(s, to: &out)
        case .int(let i): out.append(2); writeFixed(UInt64(bitPattern: i), to: &out)
        case .double(let d): out.append(3); writeFixed(d.bitPattern, to: &out)
        case .bool(let b): out.append(b ? 5 : 4)
        case .date(let d): out.append(6); writeFixed(d.timeIntervalSinceReferenceDate.bitPattern, to: &out)
        case .data(let d): out.append(7); writeVarint(UInt64(d.count), to: &out); out.append(contentsOf: d)
        case .url(let u): out.append(8); writeString(u.absoluteString, to: &out)
        case .person(let p):
            out.append(9)
            writeOptionalString(p.displayName, to: &out)
            writeVarint(UInt64(p.handles.count), to: &out)
            for h in p.handles { writeString(h, to: &out) }
            writeString(p.handleIdentifier, to: &out)
            writeOptionalString(p.contactIdentifier, to: &out)
        case .localized(let l):
            out.append(10)
            writeVarint(UInt64(l.count), to: &out)
            for (k, v) in l.sorted(by: { $0.key < $1.key }) {
                writeString(k, to: &out)
                writeString(v, to: &out)
            }
        case .array(let a):
            out.append(11)
            writeVarint(UInt64(a.count), to: &out)
            for v in a { write(v, to: &out) }
        case .null: out.append(12)
        }
    }

    static func writeOptionalString(_ s: String?, to out: inout [UInt8]) {
        if let s {
            out.append(1)
            writeString(s, to: &out)
        } else {
            out.append(0)
        }
    }

    static func writeString(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { buffer in
            writeVarint(UInt64(buffer.count), to: &out)
            out.append(contentsOf: buffer)
        }
    }

    static func writeFixed(_ v: UInt64, to out: inout [UInt8]) {
        var v = v.littleEndian
        withUnsafeBytes(of: &v) { out.append(contentsOf: $0) }
    }

    static func writeVarint(_ v: UInt64, to out: inout [UInt8]) {
        var v = v
        while v >= 0x80 {
            out.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    // MARK: Reading

    struct Reader {
        let bytes: [UInt8]
        var offset = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func byte() throws -> UInt8 {
            guard offset < bytes.count else { throw EngineError(.corruptIndex, "truncated attribute record") }
            defer { offset += 1 }
            return bytes[offset]
        }

        /// A varint of at most 64 bits: ten bytes at most, the tenth holding only the top bit.
        mutating func varint() throws -> UInt64 {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let b = try byte()
                if shift == 63, b > 1 { throw EngineError(.corruptIndex, "varint overflows 64 bits in attribute record") }
                result |= UInt64(b & 0x7F) << shift
                if b & 0x80 == 0 { return result }
                shift += 7
            }
        }

        /// A count or length that fits in the bytes that remain, taking at least `minimumBytesEach` bytes per
        /// element: a damaged length is an error here, never a huge allocation or an overflowing conversion.
        mutating func count(minimumBytesEach: Int) throws -> Int {
            let n = try varint()
            let remaining = UInt64(bytes.count - offset)
            guard n <= remaining / UInt64(max(minimumBytesEach, 1)) else {
                throw EngineError(.corruptIndex, "a length of \(n) runs past the end of the attribute record")
            }
            return Int(n)
        }

        mutating func fixed() throws -> UInt64 {
            guard offset + 8 <= bytes.count else { throw EngineError(.corruptIndex, "truncated attribute record") }
            var v: UInt64 = 0
            for i in 0..<8 { v |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
            offset += 8
            return v
        }

        mutating func rawBytes(_ n: Int) throws -> ArraySlice<UInt8> {
            guard n >= 0, n <= bytes.count - offset else {
                throw EngineError(.corruptIndex, "truncated attribute record")
            }
            defer { offset += n }
            return bytes[offset..<(offset + n)]
        }

        mutating func string() throws -> String {
            let n = try count(minimumBytesEach: 1)
            return String(decoding: try rawBytes(n), as: UTF8.self)
        }

        mutating func optionalString() throws -> String? {
            try byte() == 0 ? nil : try string()
        }

        /// An entry's head, as `encode` writes it: its kind (0 an attribute, 1 a custom attribute followed by its
        /// flags byte) and its name. Returns the flags of a custom attribute (nil for an attribute) and where the
        /// name is; the head itself runs from where the reader was to where it is left.
        mutating func entryHead() throws -> (custom: UInt8?, name: Range<Int>) {
            let kind = try byte()
            guard kind <= 1 else { throw EngineError(.corruptIndex, "unknown attribute entry kind \(kind)") }
            let flags = kind == 1 ? try byte() : nil
            let name = try rawBytes(try count(minimumBytesEach: 1)).indices
            return (flags, name)
        }

        /// Passes over a value as `value(depth:)` reads it, with the same checks and nothing made (`RecordEntries`):
        /// what `value` refuses, this refuses.
        mutating func skipValue(depth: Int) throws {
            func skipString() throws { _ = try rawBytes(try count(minimumBytesEach: 1)) }
            func skipOptionalString() throws { if try byte() != 0 { try skipString() } }
            switch try byte() {
            case 1: try skipString()
            case 2, 3, 6: _ = try fixed()
            case 4, 5, 12: break
            case 7: try skipString()
            case 8:
                guard URL(string: String(decoding: try rawBytes(try count(minimumBytesEach: 1)), as: UTF8.self)) != nil else {
                    throw EngineError(.corruptIndex, "bad URL in attribute record")
                }
            case 9:
                try skipOptionalString()
                let n = try count(minimumBytesEach: 1)
                for _ in 0..<n { try skipString() }
                try skipString()
                try skipOptionalString()
            case 10:
                let n = try count(minimumBytesEach: 2)
                for _ in 0..<n { try skipString(); try skipString() }
            case 11:
                guard depth < ValueCodec.maximumNestingDepth else {
                    throw EngineError(.corruptIndex, "arrays nested deeper than \(ValueCodec.maximumNestingDepth) in attribute record")
                }
                let n = try count(minimumBytesEach: 1)
                for _ in 0..<n { try skipValue(depth: depth + 1) }
            case let tag: throw EngineError(.corruptIndex, "unknown value tag \(tag)")
            }
        }

        /// A value nested `depth` arrays deep; deeper than `maximumNestingDepth` is damage (the recursion is
        /// bounded by it).
        mutating func value(depth: Int) throws -> AttributeValue {
            switch try byte() {
            case 1: return .string(try string())
            case 2: return .int(Int64(bitPattern: try fixed()))
            case 3: return .double(Double(bitPattern: try fixed()))
            case 4: return .bool(false)
            case 5: return .bool(true)
            case 6: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try fixed())))
            case 7: return .data(Data(try rawBytes(try count(minimumBytesEach: 1))))
            case 8:
                let s = try string()
                guard let u = URL(string: s) else { throw EngineError(.corruptIndex, "bad URL in attribute record") }
                return .url(u)
            case 9:
                let name = try optionalString()
                let n = try count(minimumBytesEach: 1)
                var handles: [String] = []
                for _ in 0..<n { handles.append(try string()) }
                let kind = try string()
                let contact = try optionalString()
                return .person(PersonValue(
                    displayName: name, handles: handles, handleIdentifier: kind, contactIdentifier: contact))
            case 10:
                let n = try count(minimumBytesEach: 2)
                var l: [String: String] = [:]
                for _ in 0..<n {
                    let k = try string()
                    l[k] = try string()
                }
                return .localized(l)
            case 11:
                guard depth < ValueCodec.maximumNestingDepth else {
                    throw EngineError(.corruptIndex, "arrays nested deeper than \(ValueCodec.maximumNestingDepth) in attribute record")
                }
                let n = try count(minimumBytesEach: 1)
                var a: [AttributeValue] = []
                a.reserveCapacity(n)
                for _ in 0..<n { a.append(try value(depth: depth + 1)) }
                return .array(a)
            case 12: return .null
            case let tag: throw EngineError(.corruptIndex, "unknown value tag \(tag)")
            }
        }
    }
}

/// zstd's compression and decompression contexts, kept for reuse. `ZSTD_compress` and `ZSTD_decompress` create and
/// free a context on every call, which for records of a few hundred bytes costs more than the work itself (it was
/// 39 % of a query that reads 200 items). A context serves one call at a time: a caller takes one from the pool,
/// or makes one when all are in use, and gives it back.
final class ZstdContexts: Sendable {
    static let compression = ZstdContexts(create: { ZSTD_createCCtx() }, free: { _ = ZSTD_freeCCtx($0) })
    static let decompression = ZstdContexts(create: { ZSTD_createDCtx() }, free: { _ = ZSTD_freeDCtx($0) })

    /// A few per core are enough; more are freed when given back.
    private static let kept = 8
    private let idle = Mutex<[Int]>([])
    private let create: @Sendable () -> OpaquePointer?
    private let free: @Sendable (OpaquePointer) -> Void

    private init(create: @escaping @Sendable () -> OpaquePointer?, free: @escaping @Sendable (OpaquePointer) -> Void) {
        self.create = create
        self.free = free
    }

    /// Runs `body` with a context of its own. Without memory for a new context, `body` gets nil, which zstd's
    /// functions report as an error (the record then stays uncompressed, or reads as damaged).
    func using<T>(_ body: (OpaquePointer?) -> T) -> T {
        // The pool holds addresses (Int): OpaquePointer is not Sendable.
        let context = idle.withLock { $0.popLast() }.flatMap { OpaquePointer(bitPattern: $0) } ?? create()
        defer {
            if let context {
                let address = Int(bitPattern: context)
                let kept = idle.withLock { pool -> Bool in
                    guard pool.count < Self.kept else { return false }
                    pool.append(address)
                    return true
                }
                if !kept { free(context) }
            }
        }
        return body(context)
    }
}

extension CustomAttribute {
    /// The byte a record stores for a custom attribute's behaviour (`ValueCodec.encode`): 1 searchable, 2 searchable
    /// by default, 4 unique, 8 multi-valued.
    var storedFlags: UInt8 {
        (isSearchable ? 1 : 0) | (isSearchableByDefault ? 2 : 0) | (isUnique ? 4 : 0) | (isMultiValued ? 8 : 0)
    }

    /// A custom attribute read back from a record: its value and its flags byte (`storedFlags`).
    init(value: AttributeValue, storedFlags flags: UInt8) {
        self.init(value: value, isSearchable: flags & 1 != 0, isSearchableByDefault: flags & 2 != 0,
                  isUnique: flags & 4 != 0, isMultiValued: flags & 8 != 0)
    }
}
