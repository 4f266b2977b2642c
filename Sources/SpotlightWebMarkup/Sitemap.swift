import CLibXML2
import Foundation

/// A sitemap (`<urlset>`) or sitemap index (`<sitemapindex>`), as sitemaps.org defines them.
///
/// ```swift
/// let sitemap = try Sitemap.parse(Data("""
///     <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
///       <url><loc>https://shop.example/p/42</loc><lastmod>2025-01-01</lastmod></url>
///     </urlset>
///     """.utf8))
/// sitemap.pages     // [https://shop.example/p/42]
/// sitemap.sitemaps  // []
/// ```
///
/// Read with libxml2's streaming XML reader, so memory stays small whatever the file's size, with the network off
/// and without substituting entities or loading DTDs: an external entity (`<!ENTITY e SYSTEM "file:///etc/passwd">`)
/// is never read, and an entity reference inside `<loc>` is dropped, not expanded. Compressed sitemaps are refused:
/// the caller decompresses.
public struct Sitemap: Sendable, Equatable {
    /// The most bytes accepted: sitemaps.org's limit, 50 MiB.
    public static let maxSize = 50 << 20

    /// The `<url><loc>` URLs, in file order.
    public var pages: [URL]
    /// The `<sitemap><loc>` URLs of a sitemap index, in file order.
    public var sitemaps: [URL]

    /// A sitemap.
    ///
    /// - Parameters:
    ///   - pages: page URLs.
    ///   - sitemaps: sitemap URLs.
    public init(pages: [URL] = [], sitemaps: [URL] = []) {
        self.pages = pages
        self.sitemaps = sitemaps
    }

    /// Reads a sitemap or sitemap index.
    ///
    /// - Parameters:
    ///   - data: the file (uncompressed XML).
    ///   - limit: the most entries read (pages and sitemaps together); reading stops there.
    /// - Returns: the entries whose `<loc>` is an absolute http(s) URL; others are skipped.
    /// - Throws: `WebMarkupError.tooLarge` past ``maxSize``, `.unparsable` for an empty, compressed or malformed
    ///   file (libxml2's message), `.notSitemap` for XML with another root element.
    public static func parse(_ data: Data, limit: Int = 50_000) throws -> Sitemap {
        guard data.count <= maxSize else { throw WebMarkupError.tooLarge(data.count) }
        guard !data.isEmpty else { throw WebMarkupError.unparsable("empty document") }
        guard !data.starts(with: [0x1F, 0x8B]) else {
            throw WebMarkupError.unparsable("gzip-compressed sitemap: decompress it first")
        }
        LibXML.initialize()
        let bytes = [UInt8](data)
        return try bytes.withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { characters in
                guard let reader = xmlReaderForMemory(characters.baseAddress, Int32(characters.count), nil, nil, xmlOptions)
                else { throw WebMarkupError.unparsable("libxml2 could not start reading") }
                defer { xmlFreeTextReader(reader) }
                return try read(reader, limit: max(0, limit))
            }
        }
    }

    /// libxml2's XML options: no network. Deliberately absent: `XML_PARSE_NOENT` (entity substitution),
    /// `XML_PARSE_DTDLOAD`, `XML_PARSE_DTDATTR`, `XML_PARSE_DTDVALID`, `XML_PARSE_XINCLUDE` and `XML_PARSE_HUGE`.
    private static let xmlOptions = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOBLANKS.rawValue)

    /// Collects the first error libxml2 reports, instead of letting it print.
    private final class ErrorCollector {
        var message: String?
    }

    /// Reads the entries from a started reader.
    private static func read(_ reader: xmlTextReaderPtr, limit: Int) throws -> Sitemap {
        let errors = ErrorCollector()
        xmlTextReaderSetStructuredErrorHandler(reader, { context, error in
            guard let context, let error else { return }
            let collector = Unmanaged<ErrorCollector>.fromOpaque(context).takeUnretainedValue()
            guard collector.message == nil, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
            let text = error.pointee.message.map { String(cString: $0) } ?? "malformed XML"
            collector.message = "line \(error.pointee.line): \(text.trimmingCharacters(in: .whitespacesAndNewlines))"
        }, Unmanaged.passUnretained(errors).toOpaque())
        defer { withExtendedLifetime(errors) {} }

        var sitemap = Sitemap()
        var sawRoot = false
        var entry: String?  // `url` or `sitemap`, while inside one
        var location: [UInt8]?  // the text of the `<loc>` being read
        while true {
            let status = xmlTextReaderRead(reader)
            if status == 0 { break }
            guard status > 0 else { throw WebMarkupError.unparsable(errors.message ?? "malformed XML") }
            let depth = xmlTextReaderDepth(reader)
            switch xmlTextReaderNodeType(reader) {
            case Int32(XML_READER_TYPE_ELEMENT.rawValue):
                let name = string(xmlTextReaderConstLocalName(reader)) ?? ""
                if depth == 0 {
                    guard name == "urlset" || name == "sitemapindex" else { throw WebMarkupError.notSitemap(name) }
                    sawRoot = true
                } else if depth == 1 {
                    entry = name == "url" || name == "sitemap" ? name : nil
                } else if depth == 2, entry != nil, name == "loc", xmlTextReaderIsEmptyElement(reader) == 0 {
                    location = []
                }
            case Int32(XML_READER_TYPE_TEXT.rawValue), Int32(XML_READER_TYPE_CDATA.rawValue),
                 Int32(XML_READER_TYPE_SIGNIFICANT_WHITESPACE.rawValue):
                if location != nil, let value = xmlTextReaderConstValue(reader) {
                    var index = 0
                    while value[index] != 0, (location?.count ?? 0) <= WebURL.maxLength {
                        location?.append(value[index])
                        index += 1
                    }
                }
            case Int32(XML_READER_TYPE_END_ELEMENT.rawValue):
                if depth == 2, let text = location {
                    location = nil
                    let reference = String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                    guard sitemap.pages.count + sitemap.sitemaps.count < limit else { return sitemap }
                    guard let url = URL(string: reference), WebURL.isWeb(url) else { continue }
                    if entry == "url" { sitemap.pages.append(url) } else { sitemap.sitemaps.append(url) }
                    if sitemap.pages.count + sitemap.sitemaps.count >= limit { return sitemap }
                } else if depth == 1 {
                    entry = nil
                }
            default:
                break  // Entity references among them: never followed.
            }
        }
        guard sawRoot else { throw WebMarkupError.unparsable(errors.message ?? "no root element") }
        return sitemap
    }
}
