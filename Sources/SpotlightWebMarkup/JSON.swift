// A small JSON reader for JSON-LD blocks, made for hostile input. Invariants: recursion is bounded by
// `JSONReader.maxDepth` (deeper input is refused, never followed), the number of values by `maxValues`, and the
// reader accepts what real pages write around and inside their JSON: HTML comment and CDATA wrappers, a trailing
// `;`, trailing commas, and raw control characters (newlines, tabs) inside strings. Object members keep their order.

/// A JSON value; numbers keep the text the page wrote (`4.50` stays `4.50`).
enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([JSONMember])
}

/// One member of a JSON object.
struct JSONMember: Equatable, Sendable {
    var key: String
    var value: JSONValue
}

/// Why a JSON block was refused.
struct JSONError: Error, Equatable, Sendable {
    /// What was wrong.
    var reason: String
    /// The byte offset where it was noticed.
    var offset: Int
}

/// Reads one JSON value from UTF-8 bytes.
struct JSONReader {
    /// The deepest nesting of arrays and objects accepted.
    static let maxDepth = 64
    /// The most values (of any kind) one block may hold.
    static let maxValues = 200_000

    private let bytes: [UInt8]
    private var index = 0
    private var values = 0

    /// Parses a JSON-LD block's text.
    ///
    /// - Parameter text: the script element's content.
    /// - Returns: its value.
    /// - Throws: `JSONError` when it is not JSON (with the leniencies above), nests deeper than ``maxDepth`` or
    ///   holds more than ``maxValues`` values.
    static func parse(_ text: String) throws(JSONError) -> JSONValue {
        var reader = JSONReader(bytes: Array(text.utf8))
        reader.skipWrappers()
        let value = try reader.value(depth: 0)
        reader.skipWrappers()
        guard reader.index == reader.bytes.count else {
            throw JSONError(reason: "text after the JSON value", offset: reader.index)
        }
        return value
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C {
            index += 1
        }
    }

    /// Skips whitespace, `;`, and the wrappers pages put around JSON-LD: `<!--`, `-->`, `<![CDATA[`, `]]>`, and `//`
    /// before a wrapper.
    private mutating func skipWrappers() {
        let wrappers: [[UInt8]] = [Array("<!--".utf8), Array("-->".utf8), Array("<![CDATA[".utf8), Array("]]>".utf8), Array("//".utf8)]
        var progressed = true
        while progressed {
            progressed = false
            skipWhitespace()
            if current == UInt8(ascii: ";") {
                index += 1
                progressed = true
                continue
            }
            for wrapper in wrappers where bytes[index...].starts(with: wrapper) {
                index += wrapper.count
                progressed = true
                break
            }
        }
    }

    private mutating func value(depth: Int) throws(JSONError) -> JSONValue {
        values += 1
        guard values <= JSONReader.maxValues else { throw JSONError(reason: "too many values", offset: index) }
        skipWhitespace()
        guard let byte = current else { throw JSONError(reason: "unexpected end", offset: index) }
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard depth < JSONReader.maxDepth else {
                throw JSONError(reason: "nested deeper than \(JSONReader.maxDepth) levels", offset: index)
            }
            return byte == UInt8(ascii: "{") ? try object(depth: depth + 1) : try array(depth: depth + 1)
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(number())
        default:
            throw JSONError(reason: "unexpected character", offset: index)
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONError) {
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard bytes[index...].starts(with: expected) else { throw JSONError(reason: "unknown literal", offset: index) }
        index += expected.count
    }

    private mutating func number() -> String {
        let start = index
        while let byte = current,
              byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e")
              || byte == UInt8(ascii: "E") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
            index += 1
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func array(depth: Int) throws(JSONError) -> JSONValue {
        index += 1  // [
        var elements: [JSONValue] = []
        while true {
            skipWhitespace()
            if current == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            elements.append(try value(depth: depth))
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                index += 1
            } else if current != UInt8(ascii: "]") {
                throw JSONError(reason: "expected , or ]", offset: index)
            }
        }
    }

    private mutating func object(depth: Int) throws(JSONError) -> JSONValue {
        index += 1  // {
        var members: [JSONMember] = []
        while true {
            skipWhitespace()
            if current == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            guard current == UInt8(ascii: "\"") else { throw JSONError(reason: "expected a member name", offset: index) }
            let key = try string()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw JSONError(reason: "expected :", offset: index) }
            index += 1
            members.append(JSONMember(key: key, value: try value(depth: depth)))
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                index += 1
            } else if current != UInt8(ascii: "}") {
                throw JSONError(reason: "expected , or }", offset: index)
            }
        }
    }

    private mutating func string() throws(JSONError) -> String {
        let start = index
        index += 1  // "
        var result: [UInt8] = []
        var pendingHighSurrogate: UInt32?
        func appendScalar(_ value: UInt32, to result: inout [UInt8]) {
            let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
            result.append(contentsOf: Array(String(Character(scalar)).utf8))
        }
        while let byte = current {
            index += 1
            if byte == UInt8(ascii: "\"") {
                if pendingHighSurrogate != nil { appendScalar(0xFFFD, to: &result) }
                return String(decoding: result, as: UTF8.self)
            }
            guard byte == UInt8(ascii: "\\") else {
                if pendingHighSurrogate != nil {
                    appendScalar(0xFFFD, to: &result)
                    pendingHighSurrogate = nil
                }
                result.append(byte)
                continue
            }
            guard let escaped = current else { break }
            index += 1
            if escaped == UInt8(ascii: "u") {
                guard index + 4 <= bytes.count,
                      let unit = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else {
                    throw JSONError(reason: "invalid \\u escape", offset: index)
                }
                index += 4
                if let high = pendingHighSurrogate {
                    pendingHighSurrogate = nil
                    if (0xDC00...0xDFFF).contains(unit) {
                        appendScalar(0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00), to: &result)
                        continue
                    }
                    appendScalar(0xFFFD, to: &result)
                }
                if (0xD800...0xDBFF).contains(unit) {
                    pendingHighSurrogate = unit
                } else {
                    appendScalar(unit == 0 ? 0xFFFD : unit, to: &result)
                }
                continue
            }
            if pendingHighSurrogate != nil {
                appendScalar(0xFFFD, to: &result)
                pendingHighSurrogate = nil
            }
            switch escaped {
            case UInt8(ascii: "n"): result.append(0x0A)
            case UInt8(ascii: "t"): result.append(0x09)
            case UInt8(ascii: "r"): result.append(0x0D)
            case UInt8(ascii: "b"): result.append(0x08)
            case UInt8(ascii: "f"): result.append(0x0C)
            default: result.append(escaped)  // \" \\ \/ and, leniently, any other character as itself
            }
        }
        throw JSONError(reason: "unterminated string", offset: start)
    }
}
