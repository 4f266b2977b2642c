import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Turning a page's bytes into UTF-8 before libxml2 sees them, so that what comes out is valid UTF-8 whatever came in.
// Invariant: `Charset.decode` never fails; bytes that are invalid in the charset become U+FFFD, and so does NUL.
// Labels follow the WHATWG Encoding Standard: ISO-8859-1 and US-ASCII mean windows-1252, Shift_JIS means
// windows-31j, and a `<meta>` that says UTF-16 means UTF-8 (a page whose prescan found ASCII is not UTF-16).

/// A character encoding a page can be decoded from.
enum Charset: Equatable, Sendable {
    case utf8
    case utf16LittleEndian
    case utf16BigEndian
    /// windows-1252, also for ISO-8859-1 and US-ASCII labels.
    case windows1252
    /// Any other encoding, by the name glibc's iconv knows it under.
    case iconv(String)

    /// The encoding a label names (`"ISO-8859-1"`, `"utf8"`, `" Shift_JIS "`), or `nil` when no decoder knows it.
    ///
    /// - Parameters:
    ///   - label: the name, as a Content-Type header or a `<meta>` wrote it; case and surrounding space or quotes
    ///     do not matter.
    ///   - fromMeta: whether the label came from the page itself, where UTF-16 labels mean UTF-8.
    init?(label: String, fromMeta: Bool = false) {
        let name = label.trimmingCharacters(in: CharacterSet(charactersIn: " \t\r\n\u{0C}\"'")).lowercased()
        switch name {
        case "utf-8", "utf8", "unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "x-unicode20utf8":
            self = .utf8
        case "utf-16", "utf-16le", "unicode", "ucs-2", "csunicode", "iso-10646-ucs-2", "unicodefeff":
            self = fromMeta ? .utf8 : .utf16LittleEndian
        case "utf-16be", "unicodefffe":
            self = fromMeta ? .utf8 : .utf16BigEndian
        case "ansi_x3.4-1968", "ascii", "us-ascii", "cp1252", "cp819", "csisolatin1", "ibm819", "iso-8859-1",
             "iso-ir-100", "iso8859-1", "iso88591", "iso_8859-1", "iso_8859-1:1987", "l1", "latin1", "windows-1252",
             "x-cp1252":
            self = .windows1252
        default:
            guard let iconvName = Charset.iconvName(for: name) else { return nil }
            self = .iconv(iconvName)
        }
    }

    /// The iconv name for a WHATWG label, when iconv can decode it.
    private static func iconvName(for label: String) -> String? {
        // Only plain names: iconv reads suffixes such as `//IGNORE` as options.
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-_.:")
        guard !label.isEmpty, label.count <= 40, label.allSatisfy({ allowed.contains($0) }) else { return nil }
        let name: String = switch label {
        case "shift_jis", "sjis", "ms_kanji", "ms932", "x-sjis", "windows-31j", "csshiftjis": "CP932"
        case "gb2312", "gbk", "chinese", "x-gbk", "csgb2312", "iso-ir-58", "gb_2312", "gb_2312-80": "GBK"
        case "euc-kr", "ks_c_5601-1987", "ks_c_5601-1989", "ksc5601", "ksc_5601", "windows-949", "cseuckr": "CP949"
        case "big5", "big5-hkscs", "cn-big5", "csbig5", "x-x-big5": "BIG5-HKSCS"
        case "iso-8859-9", "iso8859-9", "latin5", "l5", "iso_8859-9", "windows-1254": "CP1254"
        case "tis-620", "iso-8859-11", "iso8859-11", "windows-874", "dos-874": "CP874"
        default: label.uppercased()
        }
        guard let converter = Charset.openConverter(from: name) else { return nil }
        iconv_close(converter)
        return name
    }

    /// An iconv converter from `name` to UTF-8, or `nil` when iconv does not know the name.
    fileprivate static func openConverter(from name: String) -> iconv_t? {
        let converter = iconv_open("UTF-8", name)
        guard let converter, converter != iconv_t(bitPattern: -1) else { return nil }
        return converter
    }

    /// The charset a byte order mark announces, with the mark's length.
    static func byteOrderMark(_ bytes: [UInt8]) -> (charset: Charset, length: Int)? {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return (.utf8, 3) }
        if bytes.starts(with: [0xFE, 0xFF]) { return (.utf16BigEndian, 2) }
        if bytes.starts(with: [0xFF, 0xFE]) { return (.utf16LittleEndian, 2) }
        return nil
    }

    /// The `charset` parameter of a Content-Type header (`text/html; charset="ISO-8859-1"` → `ISO-8859-1`).
    static func parameter(ofContentType contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2,
                  pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset" else { continue }
            let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: " \t\"'"))
            if !value.isEmpty { return value }
        }
        return nil
    }

    /// The bytes decoded to UTF-8: invalid sequences and NUL become U+FFFD, so the result is always valid UTF-8
    /// without NUL.
    ///
    /// - Parameter bytes: the encoded text, without byte order mark.
    /// - Returns: UTF-8 bytes.
    func decode(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        let text: String
        switch self {
        case .utf8:
            if let valid = String(validating: bytes, as: UTF8.self) {
                text = valid
            } else {
                text = String(decoding: bytes, as: UTF8.self)
            }
        case .utf16LittleEndian, .utf16BigEndian:
            var units: [UInt16] = []
            units.reserveCapacity(bytes.count / 2)
            var index = bytes.startIndex
            while index + 1 < bytes.endIndex {
                let first = UInt16(bytes[index]), second = UInt16(bytes[index + 1])
                units.append(self == .utf16LittleEndian ? first | second << 8 : first << 8 | second)
                index += 2
            }
            if index < bytes.endIndex { units.append(0xFFFD) }
            text = String(decoding: units, as: UTF16.self)
        case .windows1252:
            var scalars = String.UnicodeScalarView()
            scalars.reserveCapacity(bytes.count)
            for byte in bytes {
                let value = byte >= 0x80 && byte < 0xA0 ? Charset.windows1252High[Int(byte - 0x80)] : UInt32(byte)
                scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
            }
            text = String(scalars)
        case .iconv(let name):
            guard let decoded = Charset.decodeWithIconv(bytes, from: name) else {
                return Charset.utf8.decode(bytes)
            }
            text = decoded
        }
        var utf8 = Array(text.utf8)
        if utf8.contains(0) {
            utf8 = utf8.flatMap { $0 == 0 ? [0xEF, 0xBF, 0xBD] : [$0] }
        }
        return utf8
    }

    /// Whether the bytes are valid UTF-8.
    static func isValidUTF8(_ bytes: ArraySlice<UInt8>) -> Bool {
        String(validating: bytes, as: UTF8.self) != nil
    }

    /// windows-1252's characters for 0x80–0x9F (the five undefined bytes map to the C1 controls, as WHATWG says).
    private static let windows1252High: [UInt32] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D,
        0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A,
        0x0153, 0x009D, 0x017E, 0x0178,
    ]

    /// Decodes with iconv, replacing each undecodable byte with U+FFFD and going on.
    private static func decodeWithIconv(_ bytes: ArraySlice<UInt8>, from name: String) -> String? {
        guard let converter = openConverter(from: name) else { return nil }
        defer { iconv_close(converter) }
        let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * 2)
        let chunkSize = 64 * 1024
        let chunk = UnsafeMutablePointer<CChar>.allocate(capacity: chunkSize)
        defer { chunk.deallocate() }
        var input = Array(bytes)
        input.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var inPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(base).assumingMemoryBound(to: CChar.self)
            var inLeft = buffer.count
            var finished = false
            while !finished {
                var outPointer: UnsafeMutablePointer<CChar>? = chunk
                var outLeft = chunkSize
                // After the input, one call with no input flushes a stateful encoding's pending shift state.
                let flushing = inLeft == 0
                let result = flushing
                    ? convert(converter, nil, nil, &outPointer, &outLeft)
                    : convert(converter, &inPointer, &inLeft, &outPointer, &outLeft)
                let produced = chunkSize - outLeft
                chunk.withMemoryRebound(to: UInt8.self, capacity: produced) {
                    output.append(contentsOf: UnsafeBufferPointer(start: $0, count: produced))
                }
                if result != -1 {
                    finished = flushing
                    continue
                }
                switch errno {
                case E2BIG:
                    continue
                case EINVAL:  // A truncated sequence at the end.
                    output.append(contentsOf: replacement)
                    inLeft = 0
                default:  // EILSEQ: an invalid byte; skip it.
                    if flushing {
                        finished = true
                    } else {
                        output.append(contentsOf: replacement)
                        inPointer = inPointer.map { $0 + 1 }
                        inLeft -= 1
                    }
                }
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}

/// glibc's `iconv(3)`, under a name the `Charset.iconv` case does not hide.
private func convert(
    _ converter: iconv_t, _ input: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ inputLeft: UnsafeMutablePointer<Int>?,
    _ output: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outputLeft: UnsafeMutablePointer<Int>?
) -> Int {
    iconv(converter, input, inputLeft, output, outputLeft)
}
