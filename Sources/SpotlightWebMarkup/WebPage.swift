import Foundation

/// Everything read from one HTML page: its head's metadata, its schema.org entities and its links.
///
/// ```swift
/// let page = try WebMarkup.parse(html: body, url: URL(string: "https://shop.example/p/42")!,
///                                contentType: "text/html; charset=utf-8")
/// page.title                          // "Trail Shoe 2 – Shop"
/// page.openGraph["og:image"]          // ["https://shop.example/img/42.jpg"]
/// page.structuredData.first?.types    // ["Product"]
/// page.items().first?.attributes["price"]  // "89.00"
/// ```
///
/// Every string is valid Unicode with its whitespace as the page had it, except ``title`` and ``description``,
/// whose runs of whitespace are collapsed to one space. Every URL is absolute.
public struct WebPage: Sendable, Equatable {
    /// The page's URL, as fetched.
    public var url: URL
    /// What relative links on the page are resolved against: `<base href>` when it holds an http(s) URL, else ``url``.
    public var baseURL: URL
    /// `<link rel="canonical">`, absolute; `nil` when absent or not http(s).
    public var canonicalURL: URL?
    /// `<title>`, whitespace collapsed; `nil` when absent or blank.
    public var title: String?
    /// `<meta name="description">`, whitespace collapsed.
    public var description: String?
    /// `<html lang>` (else `xml:lang`, else `<meta http-equiv="content-language">`), as written.
    public var language: String?
    /// What `<meta name="robots">` and `<meta name="openspotlightbot">` allow.
    public var robots: RobotsDirectives
    /// Open Graph properties (`og:*`, `article:*`, `product:*`, `music:*`, `video:*`, `book:*`, `profile:*`, …) by
    /// full lower-cased property name, values in page order (`og:image` may repeat).
    public var openGraph: [String: [String]]
    /// Twitter card properties (`twitter:*`, from `name=` or `property=`), the first value of each.
    public var twitterCard: [String: String]
    /// App Links (`al:ios:url`, `al:ios:app_store_id`, `al:android:package`, `al:web:url`, …), values in page order.
    public var appLinks: [String: [String]]
    /// `<meta name="apple-itunes-app">`, when it names a numeric app ID.
    public var smartAppBanner: SmartAppBanner?
    /// schema.org entities from JSON-LD blocks (arrays and `@graph` included) and from microdata, in page order:
    /// JSON-LD first, then microdata.
    public var structuredData: [StructuredItem]
    /// `<a href>` and `<area href>` targets: absolute, http(s) only, without fragment, each once, in page order.
    /// Links marked `rel="nofollow"` are left out; the list is empty when the page's robots say `nofollow`.
    public var links: [URL]

    /// A page with nothing but its URL; the parser fills the rest.
    ///
    /// - Parameter url: the page's URL, also its base URL.
    public init(url: URL) {
        self.url = url
        self.baseURL = url
        self.canonicalURL = nil
        self.title = nil
        self.description = nil
        self.language = nil
        self.robots = RobotsDirectives()
        self.openGraph = [:]
        self.twitterCard = [:]
        self.appLinks = [:]
        self.smartAppBanner = nil
        self.structuredData = []
        self.links = []
    }
}

/// What a page's robots meta tags allow a crawler to do with it.
///
/// ```swift
/// // <meta name="robots" content="noindex, follow">
/// page.robots  // RobotsDirectives(noindex: true, nofollow: false)
/// ```
///
/// Read from `<meta name="robots">` and `<meta name="openspotlightbot">`; `none` means both.
public struct RobotsDirectives: Sendable, Equatable {
    /// The page must not be indexed: ``WebPage/items()`` returns nothing.
    public var noindex: Bool
    /// The page's links must not be followed: ``WebPage/links`` is empty.
    public var nofollow: Bool

    /// Directives; both `false` (index, follow) by default.
    ///
    /// - Parameters:
    ///   - noindex: whether the page must stay out of the index.
    ///   - nofollow: whether its links must not be crawled.
    public init(noindex: Bool = false, nofollow: Bool = false) {
        self.noindex = noindex
        self.nofollow = nofollow
    }
}

/// A Smart App Banner: `<meta name="apple-itunes-app" content="app-id=123, app-argument=myapp://x">`.
///
/// ```swift
/// page.smartAppBanner?.appID        // "123"
/// page.smartAppBanner?.appArgument  // myapp://x
/// ```
///
/// Apple: <https://developer.apple.com/documentation/webkit/promoting-apps-with-smart-app-banners>
public struct SmartAppBanner: Sendable, Equatable {
    /// The App Store ID, digits only.
    public var appID: String
    /// The URL handed to the app when the banner opens it: the page's deep link. `nil` when absent or unusable
    /// (relative, or a `javascript:`/`data:`/`file:` URL).
    public var appArgument: URL?
    /// The affiliate data, as written.
    public var affiliateData: String?

    /// A banner.
    ///
    /// - Parameters:
    ///   - appID: the App Store ID.
    ///   - appArgument: the deep link.
    ///   - affiliateData: the affiliate data.
    public init(appID: String, appArgument: URL? = nil, affiliateData: String? = nil) {
        self.appID = appID
        self.appArgument = appArgument
        self.affiliateData = affiliateData
    }
}

/// One schema.org entity from JSON-LD or microdata.
///
/// ```swift
/// // {"@type": "Product", "name": "Trail Shoe", "offers": {"@type": "Offer", "price": 89}}
/// item.types                        // ["Product"]
/// item.properties["name"]           // [.text("Trail Shoe")]
/// item.properties["offers"]?.first  // .item(StructuredItem(types: ["Offer"], …))
/// ```
///
/// Type and property names lose their `http(s)://schema.org/` (or `schema:`) prefix. Numbers and booleans are kept
/// as the text the page wrote; URL-valued microdata properties are resolved against the page.
public struct StructuredItem: Sendable, Equatable {
    /// Where an item was found.
    public enum Source: Sendable, Equatable {
        /// A `<script type="application/ld+json">` block.
        case jsonLD
        /// `itemscope`/`itemtype`/`itemprop` attributes.
        case microdata
    }

    /// The types, prefix removed: `["Product"]`, `["Restaurant"]`; may be empty.
    public var types: [String]
    /// `@id` (JSON-LD) or `itemid` (microdata).
    public var id: String?
    /// Values by property name, in page order.
    public var properties: [String: [StructuredValue]]
    /// Where the item was found.
    public var source: Source

    /// An item.
    ///
    /// - Parameters:
    ///   - types: its types, without prefix.
    ///   - id: its `@id` or `itemid`.
    ///   - properties: values by property name.
    ///   - source: JSON-LD or microdata.
    public init(types: [String], id: String? = nil, properties: [String: [StructuredValue]] = [:], source: Source) {
        self.types = types
        self.id = id
        self.properties = properties
        self.source = source
    }
}

/// One value of a schema.org property: text, or a nested entity.
///
/// ```swift
/// item.properties["aggregateRating"]  // [.item(StructuredItem(types: ["AggregateRating"], …))]
/// ```
public indirect enum StructuredValue: Sendable, Equatable {
    /// Text, a number or a URL, as written.
    case text(String)
    /// A nested entity.
    case item(StructuredItem)
}
