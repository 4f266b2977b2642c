import Foundation
import OpenCoreSpotlight

/// A result from the public index ("From the web"), shown below the user's own results and numbered after them.
public struct WebResult: Codable, Sendable, Hashable {
    /// Its number in the listing (`spotlight open N`).
    public var number: Int
    /// `activity` (a public activity past the crowd threshold) or `web` (an item from a crawled page).
    public var source: String
    /// `Activity`, or the schema.org kind (`Product`, `Recipe`, … `WebPage`).
    public var kind: String
    public var title: String
    public var description: String?
    /// The public web page.
    public var url: String
    /// The link into the app that the page's markup gives (Smart App Banner `app-argument`, App Links).
    public var deepLink: String?
    /// The app that reported the activity or registered the site.
    public var applicationIdentifier: String?
    public var appName: String?
    /// For activities: the type and the required `userInfo` to continue it with.
    public var activityType: String?
    public var userInfo: [String: UserInfoValue]?

    public init(number: Int, source: String, kind: String, title: String, description: String? = nil, url: String,
                deepLink: String? = nil, applicationIdentifier: String? = nil, appName: String? = nil,
                activityType: String? = nil, userInfo: [String: UserInfoValue]? = nil) {
        self.number = number
        self.source = source
        self.kind = kind
        self.title = title
        self.description = description
        self.url = url
        self.deepLink = deepLink
        self.applicationIdentifier = applicationIdentifier
        self.appName = appName
        self.activityType = activityType
        self.userInfo = userInfo
    }

    /// How choosing this result opens it.
    public enum Opening: Sendable, Hashable {
        /// In an installed app: its activity, or the page as `NSUserActivityTypeBrowsingWeb` (universal link).
        case app(SpotlightApp, ContinuationPayload)
        /// In the browser (or whatever handles the URL).
        case browser(String)
    }

    /// In the app when it is installed — the reporting app continues its own activity; an app whose associated
    /// domains include the page's host continues the page as a universal link — else in the browser.
    public func opening(apps: [SpotlightApp] = SpotlightApp.all()) -> Opening {
        if source == "activity", let identifier = applicationIdentifier, let activityType,
           let app = apps.first(where: { $0.applicationIdentifier == identifier }) {
            let payload = ContinuationPayload(
                applicationIdentifier: identifier, activityType: activityType, title: title, userInfo: userInfo ?? [:],
                requiredUserInfoKeys: userInfo.map { $0.keys.sorted() }, webpageURL: URL(string: url))
            return .app(app, payload)
        }
        if let page = URL(string: url) {
            let owner = apps.first { $0.applicationIdentifier == applicationIdentifier && $0.claims(page) }
                ?? apps.first { $0.claims(page) }
            if let owner {
                return .app(owner, ContinuationPayload(applicationIdentifier: owner.applicationIdentifier,
                                                       activityType: NSUserActivityTypeBrowsingWeb, title: title,
                                                       webpageURL: page))
            }
        }
        return .browser(url)
    }
}

extension SystemSearch.Outcome {
    /// Adds public results below the user's own, numbered after them.
    public mutating func appendWebResults(_ results: [WebResult]) {
        var next = (self.results.map(\.number).max() ?? 0) + 1
        web = results.map { result in
            var numbered = result
            numbered.number = next
            next += 1
            return numbered
        }
    }
}
