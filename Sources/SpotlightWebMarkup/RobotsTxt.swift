import Foundation

/// A site's robots.txt, read as Google documents it and RFC 9309 specifies.
///
/// ```swift
/// let robots = RobotsTxt("""
///     User-agent: *
///     Disallow: /private
///     Allow: /private/press
///     Sitemap: https://shop.example/sitemap.xml
///     """)
/// robots.isAllowed(URL(string: "https://shop.example/private/a")!, userAgent: "OpenSpotlightBot/1.0")      // false
/// robots.isAllowed(URL(string: "https://shop.example/private/press/1")!, userAgent: "OpenSpotlightBot/1.0")  // true
/// robots.sitemaps  // [https://shop.example/sitemap.xml]
/// ```
///
/// - Groups: a run of `User-agent` lines followed by rules; a `User-agent` line after a rule starts a new group.
///   Groups naming the same agent are merged. A crawler obeys the group of the most specific matching product token
///   (`openspotlightbot-news`, else `openspotlightbot`), compared case-insensitively, else the `*` groups, else
///   nothing (all allowed).
/// - Rules: `Allow` and `Disallow` match the URL's path and query from their start, with `*` for any run of characters
///   and a final `$` for the end. The longest matching pattern wins; between an `Allow` and a `Disallow` of the same
///   length, `Allow` wins. An empty `Disallow` allows everything. Percent-encoding is normalised on both sides.
/// - `Crawl-delay` belongs to its group; `Sitemap` lines are global.
/// - Lines that cannot be read are ignored; only the first 500 KiB count. `/robots.txt` itself is always allowed.
///
/// RFC 9309: <https://www.rfc-editor.org/rfc/rfc9309>; Google's reading of it:
/// <https://developers.google.com/search/docs/crawling-indexing/robots/robots_txt>
public struct RobotsTxt: Sendable {
    /// The most bytes read; the rest is ignored, as Google does.
    public static let maxSize = 500 << 10
    /// The longest pattern kept, in bytes; longer rules are ignored.
    static let maxPatternLength = 2_048

    /// A rule, its pattern normalised.
    struct Rule: Sendable {
        var pattern: [UInt8]
        var allows: Bool
    }

    /// A group of rules and the product tokens it is for (lower-cased; `*` for all).
    struct Group: Sendable {
        var agents: [String] = []
        var rules: [Rule] = []
        var crawlDelay: Double?
    }

    private var groups: [Group]
    /// The `Sitemap` URLs, absolute, http(s) only, each once, in file order.
    public var sitemaps: [URL]

    /// A robots.txt that allows everything: what a site without one (HTTP 404) gets.
    public static let allowAll = RobotsTxt("")

    /// Reads a robots.txt.
    ///
    /// - Parameter text: the file's content.
    public init(_ text: String) {
        var groups: [Group] = []
        var sitemaps: [URL] = []
        var current: Group?
        var groupHasRules = false
        let bytes = text.utf8.prefix(RobotsTxt.maxSize)
        for rawLine in bytes.split(omittingEmptySubsequences: true, whereSeparator: { $0 == 0x0A || $0 == 0x0D }) {
            var line = Substring(String(decoding: rawLine, as: UTF8.self))
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased().replacingOccurrences(of: "\u{FEFF}", with: "")
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch key {
            case "user-agent", "useragent", "user agent":
                if groupHasRules || current == nil {
                    if let finished = current { groups.append(finished) }
                    current = Group()
                    groupHasRules = false
                }
                current?.agents.append(RobotsTxt.agentToken(value, allowingStar: true))
            case "allow", "disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw":
                guard current != nil else { continue }
                groupHasRules = true
                let allows = key == "allow"
                // An empty Disallow allows everything: no rule. An empty Allow says nothing.
                guard !value.isEmpty else { continue }
                let pattern = RobotsTxt.normalize(value.hasPrefix("/") || value.hasPrefix("*") ? value : "/" + value)
                guard pattern.count <= RobotsTxt.maxPatternLength else { continue }
                current?.rules.append(Rule(pattern: pattern, allows: allows))
            case "crawl-delay", "crawldelay":
                guard current != nil else { continue }
                groupHasRules = true
                if current?.crawlDelay == nil, let delay = Double(value), delay.isFinite, delay >= 0 {
                    current?.crawlDelay = delay
                }
            case "sitemap", "site-map":
                if let url = URL(string: value), WebURL.isWeb(url), !sitemaps.contains(url), sitemaps.count < 1_000 {
                    sitemaps.append(url)
                }
            default:
                continue
            }
        }
        if let finished = current { groups.append(finished) }
        self.groups = groups
        self.sitemaps = sitemaps
    }

    /// Reads a robots.txt from the bytes a server sent (UTF-8; invalid bytes are replaced, a byte order mark dropped).
    ///
    /// - Parameter data: the response body.
    public init(data: Data) {
        self.init(String(decoding: data.prefix(RobotsTxt.maxSize), as: UTF8.self))
    }

    /// Whether a crawler may fetch a URL.
    ///
    /// - Parameters:
    ///   - url: the URL; its path and query are matched.
    ///   - userAgent: the crawler's User-Agent header or product token (`OpenSpotlightBot/1.0 (+https://…)`).
    /// - Returns: `false` when the most specific rule that matches disallows it.
    public func isAllowed(_ url: URL, userAgent: String) -> Bool {
        var path = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? ""
        if path.isEmpty { path = "/" }
        if path == "/robots.txt" { return true }
        if let query = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedQuery {
            path += "?" + query
        }
        let target = RobotsTxt.normalize(path)
        var best: (length: Int, allows: Bool)?
        for group in applicableGroups(userAgent) {
            for rule in group.rules where RobotsTxt.matches(target, rule.pattern) {
                let length = rule.pattern.count
                if let current = best, current.length > length || (current.length == length && current.allows) { continue }
                best = (length, rule.allows)
            }
        }
        return best?.allows ?? true
    }

    /// How many seconds the crawler should wait between requests, when its group says.
    ///
    /// - Parameter userAgent: the crawler's User-Agent header or product token.
    /// - Returns: the first `Crawl-delay` of the crawler's groups, or `nil`.
    public func crawlDelay(userAgent: String) -> Double? {
        applicableGroups(userAgent).lazy.compactMap(\.crawlDelay).first
    }

    /// The groups a crawler obeys: those of the longest product token that is the crawler's, or a prefix of it
    /// ending at a `-` (`googlebot` for `googlebot-news`); else the `*` groups.
    private func applicableGroups(_ userAgent: String) -> [Group] {
        let token = RobotsTxt.agentToken(userAgent, allowingStar: false)
        var bestLength = -1
        if !token.isEmpty {
            for group in groups {
                for agent in group.agents where agent != "*" && !agent.isEmpty {
                    if agent == token || token.hasPrefix(agent + "-") { bestLength = max(bestLength, agent.count) }
                }
            }
        }
        if bestLength >= 0 {
            return groups.filter { group in
                group.agents.contains { $0.count == bestLength && ($0 == token || token.hasPrefix($0 + "-")) }
            }
        }
        return groups.filter { $0.agents.contains("*") }
    }

    /// A product token, lower-cased: the leading letters, `-` and `_` (`OpenSpotlightBot/1.0` → `openspotlightbot`).
    /// `*` alone (or followed by anything but a token character) is the wildcard.
    private static func agentToken(_ value: String, allowingStar: Bool) -> String {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if allowingStar, trimmed.hasPrefix("*") { return "*" }
        let token = trimmed.prefix { $0.isASCII && ($0.isLetter || $0 == "-" || $0 == "_") }
        return token.lowercased()
    }

    /// A path or pattern as bytes with percent-encoding normalised: escapes of unreserved characters decoded, other
    /// escapes upper-cased, and non-ASCII, space and control bytes escaped.
    static func normalize(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        let hex = Array("0123456789ABCDEF".utf8)
        func hexValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        func isUnreserved(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
        }
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count, let high = hexValue(bytes[index + 1]),
               let low = hexValue(bytes[index + 2]) {
                let decoded = high << 4 | low
                if isUnreserved(decoded) {
                    result.append(decoded)
                } else {
                    result += [UInt8(ascii: "%"), hex[Int(high)], hex[Int(low)]]
                }
                index += 3
                continue
            }
            if byte >= 0x80 || byte <= 0x20 || byte == 0x7F {
                result += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            } else {
                result.append(byte)
            }
            index += 1
        }
        return result
    }

    /// Whether a pattern matches a path from its start: `*` matches any run of bytes, a final `$` the end.
    /// Google's algorithm: the set of path positions reachable after each pattern byte, O(pattern × path).
    static func matches(_ path: [UInt8], _ pattern: [UInt8]) -> Bool {
        var positions: [Int] = [0]
        var next: [Int] = []
        for (offset, byte) in pattern.enumerated() {
            if byte == UInt8(ascii: "$"), offset == pattern.count - 1 {
                return positions.last == path.count
            }
            if byte == UInt8(ascii: "*") {
                // Every position from the smallest reachable one on.
                guard let first = positions.first else { return false }
                positions = Array(first...path.count)
                continue
            }
            next.removeAll(keepingCapacity: true)
            for position in positions where position < path.count && path[position] == byte {
                next.append(position + 1)
            }
            if next.isEmpty { return false }
            swap(&positions, &next)
        }
        return true
    }
}
