import Foundation

/// URL handling shared by the page, item, robots.txt and sitemap readers.
enum WebURL {
    /// The longest URL reference considered, in characters; longer ones are ignored.
    static let maxLength = 8_192

    /// A reference from the page (`href`, `src`, a JSON-LD `url`) made absolute.
    ///
    /// Leading and trailing whitespace is stripped and tabs and newlines inside are removed, as browsers do;
    /// characters that are not allowed in URLs (spaces, non-ASCII) are percent-encoded.
    ///
    /// - Parameters:
    ///   - reference: the reference as written.
    ///   - base: what relative references are resolved against.
    /// - Returns: the absolute URL, or `nil` when the reference is empty, too long or not a URL.
    static func resolve(_ reference: String, against base: URL?) -> URL? {
        var text = reference.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty, text.utf8.count <= maxLength else { return nil }
        if text.contains(where: { $0 == "\t" || $0 == "\n" || $0 == "\r" }) {
            text.removeAll { $0 == "\t" || $0 == "\n" || $0 == "\r" }
        }
        if let url = URL(string: text, relativeTo: base) { return url.absoluteURL }
        // Foundation refuses some characters browsers accept (`|`, `^`, `{`, raw spaces): encode them and try again.
        let allowed = CharacterSet.urlFragmentAllowed.union(CharacterSet(charactersIn: "#%"))
        guard let encoded = text.addingPercentEncoding(withAllowedCharacters: allowed) else { return nil }
        return URL(string: encoded, relativeTo: base)?.absoluteURL
    }

    /// Whether the URL is http or https with a host.
    static func isWeb(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return false }
        return !(url.host ?? "").isEmpty
    }

    /// A reference resolved, kept only when it is http(s).
    static func web(_ reference: String?, against base: URL?) -> URL? {
        guard let reference, let url = resolve(reference, against: base), isWeb(url) else { return nil }
        return url
    }

    /// The URL without its fragment (`https://a.example/p#top` → `https://a.example/p`).
    static func removingFragment(_ url: URL) -> URL {
        guard url.fragment != nil || url.absoluteString.hasSuffix("#"),
              var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url }
        components.fragment = nil
        return components.url ?? url
    }

    /// A deep link from the page (Smart App Banner argument, App Links URL): absolute with a scheme, and not one of the
    /// schemes that run code or read local data in the client (`javascript:`, `data:`, `file:`, `vbscript:`, `blob:`,
    /// `about:`).
    static func deepLink(_ reference: String?) -> URL? {
        guard let reference, let url = resolve(reference, against: nil), let scheme = url.scheme?.lowercased(),
              !scheme.isEmpty, !["javascript", "data", "file", "vbscript", "blob", "about"].contains(scheme) else {
            return nil
        }
        return url
    }
}

/// Text with every run of whitespace turned into one space, and none at either end.
///
/// - Parameter text: any text.
/// - Returns: the collapsed text.
func collapsingWhitespace(_ text: String) -> String {
    var result = ""
    result.reserveCapacity(text.utf8.count)
    var pendingSpace = false
    for scalar in text.unicodeScalars {
        if scalar.properties.isWhitespace || scalar == "\u{200B}" {
            pendingSpace = !result.isEmpty
        } else {
            if pendingSpace { result.unicodeScalars.append(" ") }
            pendingSpace = false
            result.unicodeScalars.append(scalar)
        }
    }
    return result
}
