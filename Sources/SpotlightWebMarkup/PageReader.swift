import CLibXML2
import Foundation

// Reading a parsed HTML document into a `WebPage`: one iterative walk collects the raw markup (meta and link
// elements, anchors, JSON-LD blocks, microdata roots), then each field is made from it. Invariant: every list is
// capped while it is collected, so the work after the walk is bounded whatever the page.

/// Builds a ``WebPage`` from a libxml2 HTML document.
enum PageReader {
    /// One `<meta>` element's attributes that matter.
    private struct Meta {
        var name: String?
        var property: String?
        var httpEquiv: String?
        var content: String
    }

    /// What the walk collects.
    private struct Markup {
        var language: String?
        var baseHref: String?
        var headTitle: String?
        var otherTitle: String?
        var metas: [Meta] = []
        var canonical: String?
        var anchors: [String] = []
        var jsonLD: [String] = []
        var itemScopes: [XMLNode] = []
    }

    /// Open Graph's namespaces (and those of the object types built on it), as `property` prefixes.
    static let openGraphPrefixes = ["og:", "article:", "product:", "music:", "video:", "book:", "books:", "profile:",
                                    "place:", "restaurant:", "business:", "fb:"]
    /// The most values kept per Open Graph or App Links property, and the most properties.
    static let valuesPerProperty = 50
    static let propertiesPerKind = 200

    /// The page a document describes.
    ///
    /// - Parameters:
    ///   - document: the parsed page.
    ///   - url: the page's URL.
    static func page(from document: xmlDocPtr, url: URL) -> WebPage {
        let markup = collect(document)
        var page = WebPage(url: url)
        if let base = WebURL.web(markup.baseHref, against: url) { page.baseURL = base }
        let base = page.baseURL

        page.title = (markup.headTitle ?? markup.otherTitle).map(collapsingWhitespace).flatMap(nonEmpty).map(clampedText)
        page.language = markup.language.flatMap(nonEmpty)
        page.canonicalURL = WebURL.web(markup.canonical, against: base).map(WebURL.removingFragment)

        for meta in markup.metas {
            let name = meta.name?.trimmingCharacters(in: .whitespaces).lowercased()
            let property = meta.property?.trimmingCharacters(in: .whitespaces).lowercased()
            switch name {
            case "description":
                if page.description == nil { page.description = nonEmpty(clampedText(collapsingWhitespace(meta.content))) }
            case "robots", "openspotlightbot":
                let tokens = meta.content.lowercased().split(whereSeparator: { $0 == "," || $0.isWhitespace })
                if tokens.contains("noindex") || tokens.contains("none") { page.robots.noindex = true }
                if tokens.contains("nofollow") || tokens.contains("none") { page.robots.nofollow = true }
            case "apple-itunes-app":
                if page.smartAppBanner == nil { page.smartAppBanner = smartAppBanner(meta.content) }
            default:
                break
            }
            if page.language == nil, meta.httpEquiv?.lowercased() == "content-language" {
                page.language = nonEmpty(meta.content.split(separator: ",").first.map(String.init) ?? "")
            }
            let content = clampedText(meta.content.trimmingCharacters(in: .whitespacesAndNewlines))
            guard !content.isEmpty else { continue }
            // A key from `property=`, else from `name=` (many sites write `name="og:title"`); both when they differ.
            for key in Set([property, name].compactMap { $0 }) {
                if key.hasPrefix("twitter:") {
                    if page.twitterCard[key] == nil, page.twitterCard.count < propertiesPerKind { page.twitterCard[key] = content }
                } else if key.hasPrefix("al:") {
                    append(content, to: &page.appLinks, key: key)
                } else if openGraphPrefixes.contains(where: key.hasPrefix) {
                    append(content, to: &page.openGraph, key: key)
                }
            }
        }

        var blocks: [JSONValue] = []
        for text in markup.jsonLD {
            // A block that is not JSON is skipped; the page's other blocks still count.
            if let value = try? JSONReader.parse(text) { blocks.append(value) }
        }
        page.structuredData = JSONLD.items(from: blocks)
        let room = Limits.entitiesPerPage - page.structuredData.count
        if room > 0, !markup.itemScopes.isEmpty {
            page.structuredData += Microdata.items(topLevel: Array(markup.itemScopes.prefix(room)), document: document, base: base)
        }

        if !page.robots.nofollow {
            var seen: Set<URL> = []
            for href in markup.anchors {
                guard let link = WebURL.web(href, against: base).map(WebURL.removingFragment), seen.insert(link).inserted
                else { continue }
                page.links.append(link)
            }
        }
        return page
    }

    /// Walks the document once and collects the markup the page is made from.
    private static func collect(_ document: xmlDocPtr) -> Markup {
        var markup = Markup()
        var sawRoot = false
        walkDocument(document) { node in
            guard node.isElement else { return .skipChildren }
            if !sawRoot, node.isElement("html") {
                sawRoot = true
                markup.language = node.attribute("lang") ?? node.attribute("xml:lang")
            }
            if node.hasAttribute("itemscope"), !node.hasAttribute("itemprop"), markup.itemScopes.count < Limits.entitiesPerPage {
                markup.itemScopes.append(node)
            }
            if node.isElement("meta") {
                if markup.metas.count < WebMarkup.metasPerPage, let content = node.attribute("content"), !node.hasAttribute("itemprop") {
                    markup.metas.append(Meta(name: node.attribute("name"), property: node.attribute("property"),
                                             httpEquiv: node.attribute("http-equiv"), content: content))
                }
            } else if node.isElement("a") || node.isElement("area") {
                if markup.anchors.count < WebMarkup.linksPerPage, let href = node.attribute("href"),
                   !relTokens(node).contains("nofollow") {
                    markup.anchors.append(href)
                }
            } else if node.isElement("link") {
                if markup.canonical == nil, let href = node.attribute("href"), relTokens(node).contains("canonical") {
                    markup.canonical = href
                }
            } else if node.isElement("base") {
                if markup.baseHref == nil, let href = node.attribute("href") { markup.baseHref = href }
            } else if node.isElement("title") {
                if node.pointee.parent?.isElement("head") == true {
                    if markup.headTitle == nil { markup.headTitle = node.textContent(limit: 4_096) }
                } else if markup.otherTitle == nil, !isInsideSVG(node) {
                    markup.otherTitle = node.textContent(limit: 4_096)
                }
                return .skipChildren
            } else if node.isElement("script") {
                let type = node.attribute("type")?.split(separator: ";").first?
                    .trimmingCharacters(in: .whitespaces).lowercased()
                if type == "application/ld+json", markup.jsonLD.count < WebMarkup.jsonLDBlocksPerPage {
                    markup.jsonLD.append(node.textContent(limit: WebMarkup.defaultLimit))
                }
                return .skipChildren
            } else if node.isElement("style") {
                return .skipChildren
            }
            return .descend
        }
        return markup
    }

    /// The element's `rel` tokens, lower-cased.
    private static func relTokens(_ element: XMLNode) -> [Substring] {
        (element.attribute("rel") ?? "").lowercased().split(whereSeparator: { $0.isWhitespace })
    }

    /// Whether a `<title>` belongs to an inline SVG image (looking up at most 32 levels).
    private static func isInsideSVG(_ node: XMLNode) -> Bool {
        var ancestor = node.pointee.parent
        var steps = 0
        while let current = ancestor, steps < 32 {
            if current.isElement("svg") { return true }
            ancestor = current.pointee.parent
            steps += 1
        }
        return false
    }

    /// Appends a value to a multi-valued property table, within its caps.
    private static func append(_ value: String, to table: inout [String: [String]], key: String) {
        var values = table[key] ?? []
        guard values.count < valuesPerProperty, !values.isEmpty || table.count < propertiesPerKind else { return }
        values.append(value)
        table[key] = values
    }

    /// Reads `app-id=…, app-argument=…, affiliate-data=…`. A comma inside the argument URL stays part of it.
    static func smartAppBanner(_ content: String) -> SmartAppBanner? {
        let keys = ["app-id", "app-argument", "affiliate-data", "app-clip-bundle-id", "app-clip-display"]
        var fields: [String: String] = [:]
        var currentKey: String?
        for part in content.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = part.trimmingCharacters(in: .whitespacesAndNewlines)
            let pair = trimmed.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = pair.first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            if let key, pair.count == 2, keys.contains(key) {
                currentKey = key
                fields[key] = pair[1].trimmingCharacters(in: .whitespaces)
            } else if let currentKey {
                fields[currentKey, default: ""] += "," + String(part)
            }
        }
        guard let appID = fields["app-id"]?.trimmingCharacters(in: .whitespaces), !appID.isEmpty, appID.count <= 20,
              appID.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        let argument = fields["app-argument"].flatMap { WebURL.deepLink($0.trimmingCharacters(in: .whitespaces)) }
        let affiliate = fields["affiliate-data"].flatMap { nonEmpty(clampedText($0.trimmingCharacters(in: .whitespaces))) }
        return SmartAppBanner(appID: appID, appArgument: argument, affiliateData: affiliate)
    }
}

/// The text, or `nil` when it is empty or only whitespace.
func nonEmpty(_ text: String) -> String? {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    return trimmed.isEmpty ? nil : trimmed
}
