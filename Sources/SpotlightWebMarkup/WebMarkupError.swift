/// Why a page or a sitemap could not be read.
///
/// ```swift
/// do {
///     _ = try WebMarkup.parse(html: pdfBytes, url: url, contentType: "application/pdf")
/// } catch WebMarkupError.notHTML(let reason) {
///     print(reason)  // Content-Type application/pdf
/// }
/// ```
///
/// robots.txt never fails: unreadable lines are ignored, as RFC 9309 asks.
public enum WebMarkupError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes are not an HTML page: another Content-Type, or binary data (PDF, image, archive). The reason says
    /// which.
    case notHTML(String)
    /// The parser gave up: an empty page, or XML that is not well-formed (libxml2's message, with its line).
    case unparsable(String)
    /// More bytes than the caller's limit; the value is the number of bytes offered.
    case tooLarge(Int)
    /// Well-formed XML whose root element is neither `urlset` nor `sitemapindex`; the value is that root element.
    case notSitemap(String)

    public var description: String {
        switch self {
        case .notHTML(let reason): "not an HTML page: \(reason)"
        case .unparsable(let reason): "unparsable: \(reason)"
        case .tooLarge(let size): "too large: \(size) bytes"
        case .notSitemap(let root): "not a sitemap: root element <\(root)>"
        }
    }
}
