import CLibXML2
import Foundation

/// Reads the markup of web pages: what the public index service keeps from a page it crawled.
///
/// ```swift
/// let page = try WebMarkup.parse(html: body, url: pageURL, contentType: response.headers["Content-Type"])
/// guard !page.robots.noindex else { return }
/// for item in page.items() { index(item) }
/// for link in page.links { enqueue(link) }
/// ```
///
/// Parsing is pure (no network, no files) and safe on any bytes from several threads at once: libxml2's HTML parser
/// recovers from malformed markup, trees are walked without recursion, and every list read from a page is capped.
public enum WebMarkup {
    /// The default largest page accepted: 5 MiB.
    public static let defaultLimit = 5 << 20
    /// How much of a page is searched for `<meta charset>` when neither a byte order mark nor the Content-Type names
    /// the encoding.
    static let charsetPrescanLength = 16 << 10
    /// The most JSON-LD blocks read per page.
    static let jsonLDBlocksPerPage = 100
    /// The most links kept per page.
    static let linksPerPage = 10_000
    /// The most meta elements read per page.
    static let metasPerPage = 2_000

    /// Parses an HTML page.
    ///
    /// ```swift
    /// let page = try WebMarkup.parse(html: Data("<title>Hi</title>".utf8), url: URL(string: "https://a.example/")!)
    /// page.title  // "Hi"
    /// ```
    ///
    /// The encoding is, in order: a byte order mark, the `charset` of `contentType`, the page's `<meta charset>` (or
    /// `http-equiv` Content-Type) in its first 16 KiB, else UTF-8 when the bytes are valid UTF-8 and windows-1252
    /// when not. Labels follow the WHATWG Encoding Standard (ISO-8859-1 means windows-1252); an unknown label is
    /// skipped. Bytes invalid in the chosen encoding become U+FFFD, so all text in the result is valid Unicode.
    ///
    /// libxml2 runs without `HTML_PARSE_HUGE`, so its limits hold: a page nested deeper than 256 elements is read up
    /// to that point only (its head, usually all that matters, comes first).
    ///
    /// - Parameters:
    ///   - html: the response body.
    ///   - url: the page's URL, after redirects.
    ///   - contentType: the HTTP Content-Type header, if any. Media types other than HTML (`text/html`,
    ///     `application/xhtml+xml`) and the unspecific ones servers send by mistake (`text/plain`,
    ///     `application/octet-stream`, whose bytes are sniffed) are refused.
    ///   - limit: the most bytes accepted.
    /// - Returns: what the page says about itself.
    /// - Throws: `WebMarkupError.tooLarge` past `limit`, `.notHTML` for another media type or binary data (PDF, images,
    ///   archives), `.unparsable` for an empty body.
    public static func parse(html: Data, url: URL, contentType: String? = nil, limit: Int = defaultLimit) throws -> WebPage {
        guard html.count <= limit, html.count < Int(Int32.max) else { throw WebMarkupError.tooLarge(html.count) }
        if let contentType {
            let mediaType = contentType.split(separator: ";", maxSplits: 1).first
                .map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            let accepted = ["", "text/html", "application/xhtml+xml", "text/plain", "application/octet-stream"]
            guard accepted.contains(mediaType) else { throw WebMarkupError.notHTML("Content-Type \(mediaType)") }
        }
        let bytes = [UInt8](html)
        guard bytes.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D && $0 != 0x0C }) else {
            throw WebMarkupError.unparsable("empty document")
        }
        let (charset, start) = encoding(of: bytes, contentType: contentType)
        let isUTF16 = charset == .utf16LittleEndian || charset == .utf16BigEndian
        if let kind = binaryKind(bytes, isUTF16: isUTF16) { throw WebMarkupError.notHTML(kind) }
        let utf8 = charset.decode(bytes[start...])
        // Decoding may grow the text (a windows-1252 byte can take three bytes in UTF-8); libxml2 counts in Int32.
        guard utf8.count < Int(Int32.max) else { throw WebMarkupError.tooLarge(html.count) }
        LibXML.initialize()
        let document = utf8.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { characters in
                htmlReadMemory(characters.baseAddress, Int32(characters.count), nil, "UTF-8", htmlOptions)
            }
        }
        guard let document else { throw WebMarkupError.unparsable("libxml2 read no document") }
        defer { xmlFreeDoc(document) }
        return PageReader.page(from: document, url: url)
    }

    /// libxml2's HTML options: recover from any markup, never touch the network, stay quiet, drop blank text nodes,
    /// and trust the UTF-8 we hand over over the page's own `<meta charset>` (the bytes were decoded already).
    /// No `HTML_PARSE_HUGE`: libxml2's own size limits stay in force.
    static let htmlOptions = Int32(
        HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NONET.rawValue | HTML_PARSE_NOERROR.rawValue
            | HTML_PARSE_NOWARNING.rawValue | HTML_PARSE_NOBLANKS.rawValue | HTML_PARSE_IGNORE_ENC.rawValue
            | HTML_PARSE_COMPACT.rawValue
    )

    /// The page's encoding, chosen as ``parse(html:url:contentType:limit:)`` describes, and where its text starts
    /// (after a byte order mark).
    private static func encoding(of bytes: [UInt8], contentType: String?) -> (charset: Charset, start: Int) {
        if let (charset, length) = Charset.byteOrderMark(bytes) { return (charset, length) }
        if let label = contentType.flatMap(Charset.parameter(ofContentType:)), let charset = Charset(label: label) {
            return (charset, 0)
        }
        if let label = declaredCharset(bytes.prefix(charsetPrescanLength)), let charset = Charset(label: label, fromMeta: true) {
            return (charset, 0)
        }
        return (Charset.isValidUTF8(bytes[...]) ? .utf8 : .windows1252, 0)
    }

    /// The charset a page declares in `<meta charset>` or `<meta http-equiv="Content-Type" content="…; charset=…">`,
    /// read by libxml2 from the page's first bytes as ISO-8859-1 (charset names are ASCII).
    private static func declaredCharset(_ prefix: ArraySlice<UInt8>) -> String? {
        LibXML.initialize()
        let document = prefix.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { characters in
                htmlReadMemory(characters.baseAddress, Int32(characters.count), nil, "ISO-8859-1", htmlOptions)
            }
        }
        guard let document else { return nil }
        defer { xmlFreeDoc(document) }
        var label: String?
        walkDocument(document) { node in
            guard node.isElement else { return .skipChildren }
            guard node.isElement("meta") else { return node.isElement("body") ? .stop : .descend }
            if let charset = node.attribute("charset"), !charset.isEmpty {
                label = charset
            } else if node.attribute("http-equiv")?.lowercased() == "content-type",
                      let content = node.attribute("content") {
                label = Charset.parameter(ofContentType: content)
            }
            return label == nil ? .skipChildren : .stop
        }
        return label
    }

    /// What binary data the bytes look like, or `nil` when they may be text.
    private static func binaryKind(_ bytes: [UInt8], isUTF16: Bool) -> String? {
        let signatures: [(bytes: [UInt8], kind: String)] = [
            (Array("%PDF-".utf8), "PDF"), ([0x89, 0x50, 0x4E, 0x47], "PNG image"), (Array("GIF8".utf8), "GIF image"),
            ([0xFF, 0xD8, 0xFF], "JPEG image"), ([0x50, 0x4B, 0x03, 0x04], "ZIP archive"), ([0x1F, 0x8B], "gzip data"),
            ([0x28, 0xB5, 0x2F, 0xFD], "zstd data"), (Array("RIFF".utf8), "RIFF media"), ([0x00, 0x61, 0x73, 0x6D], "WebAssembly"),
        ]
        for signature in signatures where bytes.starts(with: signature.bytes) { return signature.kind }
        if !isUTF16, bytes.prefix(1024).contains(0) { return "binary data (NUL bytes)" }
        return nil
    }
}
