import Foundation

/// The records of a block of records laid out by attribute (format 19): each attribute's values of the block's
/// records side by side, and the attribute names once a block.
///
/// A record (`ValueCodec.encode`) interleaves its attribute names and values: `contentDescription`, the text,
/// `contentModificationDate`, eight bytes, `contentTypeTree` and its four type identifiers, and so on. In a block of
/// records, zstd finds the names and type identifiers again in the record before, but every switch between what
/// repeats and what does not costs it a match or a literal run of its own, several a record. Laid out by attribute,
/// a block's descriptions follow one another, as do its titles, its dates and its type trees (one long match), and
/// the names are written once. PyPI's record frames (a dictionary trained on records laid out so, zstd level 6):
/// 56.7 → 51.0 MB, from 42 % fewer plain bytes, so a bulk load compresses them faster too (`BENCHMARKS.md`,
/// 2026-12-07).
///
/// Layout, after a 0 byte where a block of records one after the other has its first record's length (never 0: a
/// record is at least its entry count):
/// - the *slots*: a varint count, then each slot's entry head as a record writes it (a kind byte, 0 for an
///   attribute and 1 for a custom attribute followed by its flags byte, then the name as a varint length and UTF-8);
/// - the *shapes*: a varint count, then each shape as a varint count of entries and each entry's slot as a varint;
/// - each record's shape, as a varint (the block's item count of them);
/// - each slot's *column*, as a varint byte count, then the columns' bytes: the values (`ValueCodec`'s, tag and
///   payload) of the records whose shape has the slot, in record order (a slot twice in a shape, twice).
///
/// Reading checks every value's bounds once (`decode`) and rebuilds a record's bytes exactly as they were when it
/// is asked for (`Layout.record(at:)`), so everything that reads a record reads it as before. Every count, index
/// and length is checked against the bytes; damage throws `.corruptIndex`, never traps.
enum RecordColumns {
    /// Appends the records laid out by attribute to `out`, after the 0 byte that marks the layout; false, with
    /// `out` as it was, when a record is not one `ValueCodec.encode` writes (its block then keeps its records one
    /// after the other).
    static func encode<Records: Collection>(_ records: Records, to out: inout [UInt8]) -> Bool
        where Records.Element == [UInt8] {
        guard !records.isEmpty else { return false }
        // A block's records have a handful of slots: they are looked up by comparing bytes, one slot after the
        // other (a dictionary keyed by the heads' bytes hashed each byte on its own: a third of this encoding in
        // PyPI's bulk load), and through the dictionary only past `scannedSlots`.
        var slotIndex: [ArraySlice<UInt8>: Int] = [:]
        var slots: [ArraySlice<UInt8>] = []
        func knownSlot(_ head: ArraySlice<UInt8>) -> Int? {
            guard slots.count > scannedSlots else {
                return head.withUnsafeBytes { bytes in
                    slots.firstIndex { slot in
                        slot.count == bytes.count
                            && (bytes.isEmpty || slot.withUnsafeBytes { memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 })
                    }
                }
            }
            return slotIndex[head]
        }
        var shapeIndex: [[Int]: Int] = [:]
        var shapes: [[Int]] = []
        var recordShapes: [Int] = []
        recordShapes.reserveCapacity(records.count)
        var columns: [[UInt8]] = []
        for record in records {
            var reader = ValueCodec.Reader(bytes: record)
            var shape: [Int] = []
            do {
                let count = try reader.count(minimumBytesEach: 3)
                shape.reserveCapacity(count)
                for _ in 0..<count {
                    let headStart = reader.offset
                    _ = try reader.entryHead()
                    let head = record[headStart..<reader.offset]
                    let valueStart = reader.offset
                    try reader.skipValue(depth: 0)
                    let slot: Int
                    if let known = knownSlot(head) {
                        slot = known
                    } else {
                        slot = slots.count
                        slots.append(head)
                        if slots.count > scannedSlots {
                            if slotIndex.isEmpty { for (k, known) in slots.enumerated() { slotIndex[known] = k } }
                            slotIndex[head] = slot
                        }
                        columns.append([])
                    }
                    shape.append(slot)
                    columns[slot] += record[valueStart..<reader.offset]
                }
            } catch {
                return false
            }
            guard reader.offset == record.count else { return false }
            if let known = shapeIndex[shape] {
                recordShapes.append(known)
            } else {
                shapeIndex[shape] = shapes.count
                recordShapes.append(shapes.count)
                shapes.append(shape)
            }
        }
        let before = out.count
        out.append(0)
        ValueCodec.writeVarint(UInt64(slots.count), to: &out)
        for slot in slots { out += slot }
        ValueCodec.writeVarint(UInt64(shapes.count), to: &out)
        for shape in shapes {
            ValueCodec.writeVarint(UInt64(shape.count), to: &out)
            for slot in shape { ValueCodec.writeVarint(UInt64(slot), to: &out) }
        }
        for shape in recordShapes { ValueCodec.writeVarint(UInt64(shape), to: &out) }
        for column in columns { ValueCodec.writeVarint(UInt64(column.count), to: &out) }
        for column in columns { out += column }
        // (Records of many entries with long names and short values: their layout would rebuild into more than a
        // reader takes from damaged bytes.)
        guard records.reduce(0, { $0 + $1.count }) <= maximumExpansion * (out.count - before) else {
            out.removeSubrange(before...)
            return false
        }
        return true
    }

    /// The most slots `encode` looks up by comparing their bytes in turn.
    static let scannedSlots = 24

    /// The most record bytes a layout rebuilds, per byte of the layout: a reader refuses more as damage (a slot's
    /// name repeated for every value of a damaged column could otherwise make gigabytes of a block), and a writer
    /// keeps the records of a block that would rebuild into more one after the other.
    static let maximumExpansion = 64

    /// A block's records laid out by attribute, read: where each record's values are, so that a record is rebuilt
    /// when it is asked for (`record(at:)`), not every record of a block a search reads one hit of.
    struct Layout: Sendable {
        /// The block's plain bytes.
        let bytes: [UInt8]
        /// Each slot's entry head, as a range of `bytes`.
        let slots: [Range<Int>]
        /// Each record's entries: the slot, and where its value starts and ends in `bytes`, of record `k` from
        /// `firsts[k]` to `firsts[k + 1]`.
        let entries: [(slot: Int32, start: Int32, end: Int32)]
        let firsts: [Int32]

        /// The bytes of record `position` (`ValueCodec.encode`'s, as the record was written).
        func record(at position: Int) -> [UInt8] {
            let range = Int(firsts[position])..<Int(firsts[position + 1])
            var out: [UInt8] = []
            var length = 10
            for entry in entries[range] {
                length += slots[Int(entry.slot)].count + Int(entry.end - entry.start)
            }
            out.reserveCapacity(length)
            ValueCodec.writeVarint(UInt64(range.count), to: &out)
            bytes.withUnsafeBytes { p in
                for entry in entries[range] {
                    out.append(contentsOf: UnsafeRawBufferPointer(rebasing: p[slots[Int(entry.slot)]]))
                    out.append(contentsOf: UnsafeRawBufferPointer(rebasing: p[Int(entry.start)..<Int(entry.end)]))
                }
            }
            return out
        }
    }

    /// Reads the layout of the `count` records of block `block`, from `reader`'s offset (just past the 0 byte) to
    /// the end of its bytes; every value's bounds are checked here, once.
    static func decode(_ reader: inout ValueCodec.Reader, count: Int, block: Int64) throws -> Layout {
        let bytes = reader.bytes
        // (Where the layout starts: its 0 byte.)
        let layoutStart = reader.offset - 1
        guard bytes.count < Int(Int32.max) else { throw RecordBlocks.damaged(block) }
        // A slot's head is at least a kind byte and a name's length.
        let slotCount = try reader.count(minimumBytesEach: 2)
        guard slotCount > 0 else { throw RecordBlocks.damaged(block) }
        var slots: [Range<Int>] = []
        slots.reserveCapacity(slotCount)
        for _ in 0..<slotCount {
            let start = reader.offset
            _ = try reader.entryHead()
            slots.append(start..<reader.offset)
        }
        let shapeCount = try reader.count(minimumBytesEach: 1)
        guard shapeCount > 0, shapeCount <= count else { throw RecordBlocks.damaged(block) }
        var shapes: [[Int]] = []
        shapes.reserveCapacity(shapeCount)
        for _ in 0..<shapeCount {
            let n = try reader.count(minimumBytesEach: 1)
            var shape: [Int] = []
            shape.reserveCapacity(n)
            for _ in 0..<n {
                let slot = try reader.varint()
                guard slot < UInt64(slotCount) else { throw RecordBlocks.damaged(block) }
                shape.append(Int(slot))
            }
            shapes.append(shape)
        }
        var recordShapes: [Int] = []
        recordShapes.reserveCapacity(count)
        for _ in 0..<count {
            let shape = try reader.varint()
            guard shape < UInt64(shapeCount) else { throw RecordBlocks.damaged(block) }
            recordShapes.append(Int(shape))
        }
        // Each column's cursor and end.
        var cursors: [Int] = []
        var ends: [Int] = []
        cursors.reserveCapacity(slotCount)
        ends.reserveCapacity(slotCount)
        var total = 0
        for _ in 0..<slotCount {
            let length = try reader.varint()
            guard length <= UInt64(bytes.count) else { throw RecordBlocks.damaged(block) }
            total += Int(length)
            ends.append(total)
        }
        guard total == bytes.count - reader.offset else { throw RecordBlocks.damaged(block) }
        let most = maximumExpansion * (bytes.count - layoutStart)
        for slot in 0..<slotCount {
            // (The previous slot's end is already where this one starts.)
            cursors.append(slot == 0 ? reader.offset : ends[slot - 1])
            ends[slot] += reader.offset
        }
        // The shapes flattened (each shape's slots from `shapeStarts[k]` to `shapeStarts[k + 1]`), and what each
        // record's entry count takes rebuilt.
        var shapeSlots: [Int] = []
        var shapeStarts: [Int] = [0]
        var countBytes: [Int] = []
        for shape in shapes {
            shapeSlots += shape
            shapeStarts.append(shapeSlots.count)
            var length = 1
            var rest = shape.count >> 7
            while rest > 0 {
                length += 1
                rest >>= 7
            }
            countBytes.append(length)
        }
        let headLengths = slots.map(\.count)
        var entryCount = 0
        for shape in recordShapes { entryCount += shapeStarts[shape + 1] - shapeStarts[shape] }
        var entries: [(slot: Int32, start: Int32, end: Int32)] = []
        entries.reserveCapacity(entryCount)
        var firsts: [Int32] = [0]
        firsts.reserveCapacity(count + 1)
        // What the records come to when rebuilt.
        var rebuilt = 0
        let read = bytes.withUnsafeBytes { p -> Bool in
            cursors.withUnsafeMutableBufferPointer { cursors in
                for shape in recordShapes {
                    rebuilt += countBytes[shape]
                    for k in shapeStarts[shape]..<shapeStarts[shape + 1] {
                        let slot = shapeSlots[k]
                        let start = cursors[slot]
                        guard let end = valueEnd(p, from: start, limit: ends[slot], depth: 0) else { return false }
                        entries.append((Int32(truncatingIfNeeded: slot), Int32(truncatingIfNeeded: start),
                                        Int32(truncatingIfNeeded: end)))
                        rebuilt += headLengths[slot] + end - start
                        cursors[slot] = end
                    }
                    guard rebuilt <= most else { return false }
                    firsts.append(Int32(truncatingIfNeeded: entries.count))
                }
                return true
            }
        }
        guard read, cursors == ends else { throw RecordBlocks.damaged(block) }
        reader.offset = bytes.count
        return Layout(bytes: bytes, slots: slots, entries: entries, firsts: firsts)
    }

    /// Where the value that starts at `start` ends, within `limit`; nil when its bytes are not a value's (a tag,
    /// count or length that does not fit, arrays nested deeper than `ValueCodec.maximumNestingDepth`). A value's
    /// bounds only: what it holds is checked when its record is decoded (`ValueCodec.decode`, `RecordEntries`).
    /// (`ValueCodec.Reader.skipValue`'s walk over raw bytes, without a throwing call and a slice at every step,
    /// since every block a search reads a record of goes through it.)
    static func valueEnd(_ p: UnsafeRawBufferPointer, from start: Int, limit: Int, depth: Int) -> Int? {
        guard start < limit, limit <= p.count else { return nil }
        var i = start + 1
        @inline(__always) func varint() -> UInt64? {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while i < limit {
                let byte = p[i]
                i += 1
                if shift == 63, byte > 1 { return nil }
                result |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return result }
                shift += 7
            }
            return nil
        }
        /// Passes over a length and that many bytes.
        @inline(__always) func bytes() -> Bool {
            guard let n = varint(), n <= UInt64(limit - i) else { return false }
            i += Int(n)
            return true
        }
        @inline(__always) func optionalBytes() -> Bool {
            guard i < limit else { return false }
            i += 1
            return p[i - 1] == 0 || bytes()
        }
        switch p[start] {
        case 1, 7, 8:
            return bytes() ? i : nil
        case 2, 3, 6:
            return limit - i >= 8 ? i + 8 : nil
        case 4, 5, 12:
            return i
        case 9:
            guard optionalBytes(), let n = varint(), n <= UInt64(limit - i) else { return nil }
            for _ in 0..<n { guard bytes() else { return nil } }
            return bytes() && optionalBytes() ? i : nil
        case 10:
            guard let n = varint(), n <= UInt64(limit - i) else { return nil }
            for _ in 0..<n { guard bytes(), bytes() else { return nil } }
            return i
        case 11:
            guard depth < ValueCodec.maximumNestingDepth, let n = varint(), n <= UInt64(limit - i) else { return nil }
            for _ in 0..<n {
                guard let end = valueEnd(p, from: i, limit: limit, depth: depth + 1) else { return nil }
                i = end
            }
            return i
        default:
            return nil
        }
    }
}
