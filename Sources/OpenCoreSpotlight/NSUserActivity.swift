import Foundation

#if !canImport(Darwin)
// Linux Foundation has no NSUserActivity: this is Foundation's class with its search-related surface. Where
// Foundation has one (Darwin), Apple's is used and this file compiles to nothing.

/// An app-chosen stable identifier of an activity, for deleting what the system saved of it.
///
/// Apple: <https://developer.apple.com/documentation/foundation/nsuseractivitypersistentidentifier>
public typealias NSUserActivityPersistentIdentifier = String

/// The activity type of a web page the app continues: a universal link opened in the app, with the page in
/// `webpageURL`.
///
/// Apple: <https://developer.apple.com/documentation/foundation/nsuseractivitytypebrowsingweb>
public let NSUserActivityTypeBrowsingWeb: String = "NSUserActivityTypeBrowsingWeb"

/// The methods an activity calls on its delegate.
///
/// Apple: <https://developer.apple.com/documentation/foundation/nsuseractivitydelegate>
public protocol NSUserActivityDelegate: NSObjectProtocol {
    /// The activity is about to be saved (indexed): update its `userInfo`, `title`… now.
    func userActivityWillSave(_ userActivity: NSUserActivity)
    /// The activity was continued on another device. Never called on Linux (there is no Handoff).
    func userActivityWasContinued(_ userActivity: NSUserActivity)
}

extension NSUserActivityDelegate {
    public func userActivityWillSave(_ userActivity: NSUserActivity) {}
    public func userActivityWasContinued(_ userActivity: NSUserActivity) {}
}

/// A place the person is at in the app — a viewed record, a screen — that search can bring them back to.
///
/// ```swift
/// let activity = NSUserActivity(activityType: "com.example.colleagues.view-employee")
/// activity.title = "Brent Reid"
/// activity.userInfo = ["id": "employee-7"]
/// activity.requiredUserInfoKeys = ["id"]
/// activity.keywords = ["Engineering"]
/// activity.isEligibleForSearch = true
/// activity.becomeCurrent()          // indexed now for this app; `spotlight brent` finds it
/// ```
///
/// An activity that becomes current while `isEligibleForSearch` is `true` and before its `expirationDate` is saved
/// to the app's activity index (`SavedUserActivity.indexName`), and every `becomeCurrent()` counts a visit, which
/// raises it in system search. When `contentAttributeSet.relatedUniqueIdentifier` names one of the app's indexed
/// items, the activity and the item are one search result, and the activity is not saved while no such item
/// exists. Choosing the result in `spotlight` gives the app this activity back (type and `userInfo`) through
/// `ContinuationHandler` (SpotlightSystem). Saving happens synchronously in `becomeCurrent()`, so a command-line
/// app may exit right after it.
///
/// Apple: <https://developer.apple.com/documentation/foundation/nsuseractivity>
open class NSUserActivity: NSObject {
    /// The kind of activity, in reverse-DNS form; the app routes continued activities by it.
    ///
    /// Apple: <https://developer.apple.com/documentation/foundation/nsuseractivity/activitytype>
    public let activityType: String

    /// The user-visible title; indexed and shown in search results.
    ///
    /// Apple: <https://developer.apple.com/documentation/foundation/nsuseractivity/title>
    open var title: String?

    /// What the app needs to restore the activity. Values must be property-list values (`String`, numbers,
    /// `Bool`, `Date`, `Data`, arrays and dictionaries of them) or `URL`/`UUID`; other values are dropped, with a
    /// warning, when the activity is saved.
    ///
    /// Apple: <https://developer.apple.com/documentation/foundation/nsuseractivity/userinfo>
    open var userInfo: [AnyHashable: Any]?

    /// The `userInfo` keys needed to restore the activity. When set, only these keys are saved and continued.
    ///
    /// Apple: <https://developer.apple.com/documentation/foundation/nsuseractivity/requireduserinfokeys>
    // Deviation: when this is nil, the whole userInfo is saved, even with a webpageURL (Apple's documented trap
    // delivers an empty userInfo then).
    open var requiredUserInfoKeys: Set<String>?

    /// Extra words the activity is found by.
    ///
    /// Apple: <https://developer.apple.com/documentation/foundation/nsuseractivity/keywords>
    open var keywords: Set<String> = []

    /// Whether the activity is added to the on-device index when it becomes current. Default `false`.
    ///
    /// Apple: <https://developer.apple.com/documentation/foundation/nsuseractivity/iseligibleforsearch>
    open var isEligibleForSearch = false

    /// Whether the activity may be shared with every user. When the user turned the public index on
    /// (`spotlight public set-server URL`; off by default), `becomeCurrent()` of an activity that is also eligible for
    /// search and has a `webpageURL` queues an anonymous report (type, page, title, description, keywords and the
    /// `requiredUserInfoKeys` part of `userInfo` only); the activity becomes public once enough distinct installs
    /// reported it (Documentation/PublicIndex.md).
    ///
    /// Apple: <https://developer.apple.com/documentation/foundation/nsuseractivity/iseligibleforpublicindexing>
    // Deviation: Apple's crowd-sourced index was never shipped (TN2416); here it is the opt-in OpenSpotlight public
    // index, and nothing leaves the machine unless the user configured a server.
    open var isEligibleForPublicIndexing = false

    /// Whether Handoff advertises the activity. Default `true`; there is no Handoff on Linux.
    ///
    /// Apple: <https://developer.apple.com/documentation/foundation/nsuseractivity/iseligibleforhandoff>
    // Deviation: there is no Handoff (or Siri prediction) on Linux; the flags are recorded only.
    open var isEligibleForHandoff = true

    /// Whether the system may suggest the activity. Default `false`; recorded only.
    ///
    /// Apple: <https://developer.apple.com/documentation/foundation/nsuseractivity/iseligibleforprediction>
    open var isEligibleForPrediction = false

    /// After this date the activity is not indexed, and a saved copy stops appearing and is purged. Without it, a
    /// saved activity expires one month after its last visit.
    ///
    /// Apple: <https://developer.apple.com/documentation/foundation/nsuseractivity/expirationdate>
    open var expirationDate: Date?

    private var _webpageURL: URL?

    /// The web page showing the same content. Only `http` and `https` URLs are accepted.
    ///
    /// Apple: <https://developer.apple.com/documentation/foundation/nsuseractivity/webpageurl>
    open var webpageURL: URL? {
        get { _webpageURL }
        set {
            if let url = newValue, !["http", "https"].contains(url.scheme?.lowercased() ?? "") {
                // Deviation: Apple raises an Objective-C exception for other schemes; here the URL is ignored and
                // a warning printed, since Swift cannot catch the exception anyway.
                FileHandle.standardError.write(Data(
                    "NSUserActivity: webpageURL must be http or https; ignoring \(url.absoluteString)\n".utf8))
                return
            }
            _webpageURL = newValue
        }
    }

    /// Where the person came from. Recorded only.
    ///
    /// Apple: <https://developer.apple.com/documentation/foundation/nsuseractivity/referrerurl>
    open var referrerURL: URL?

    /// A stable identifier for deleting what was saved of this activity with
    /// `deleteSavedUserActivities(withPersistentIdentifiers:)`. Two activities with the same type and persistent
    /// identifier are the same saved activity (visits add up).
    ///
    /// Apple: <https://developer.apple.com/documentation/foundation/nsuseractivity/persistentidentifier>
    open var persistentIdentifier: NSUserActivityPersistentIdentifier?

    /// Routes the activity to a scene. Continued with the activity; not search-related.
    ///
    /// Apple: <https://developer.apple.com/documentation/foundation/nsuseractivity/targetcontentidentifier>
    open var targetContentIdentifier: String?

    /// Whether continuation streams are requested. No effect on Linux.
    open var supportsContinuationStreams = false

    /// The activity's delegate, asked to update the activity before it is saved.
    ///
    /// Apple: <https://developer.apple.com/documentation/foundation/nsuseractivity/delegate>
    open weak var delegate: (any NSUserActivityDelegate)?

    private var _needsSave = false

    /// Set to `true` when the activity's state changed: the delegate's `userActivityWillSave(_:)` is called and the
    /// activity saved again — at once while it is current, else when it next becomes current.
    ///
    /// Apple: <https://developer.apple.com/documentation/foundation/nsuseractivity/needssave>
    open var needsSave: Bool {
        get { _needsSave }
        set {
            _needsSave = newValue
            if newValue, isCurrent { save(countingVisit: false) }
        }
    }

    /// The metadata used when the activity is indexed (`contentAttributeSet`, declared by Core Spotlight).
    internal var _contentAttributeSet: CSSearchableItemAttributeSet?

    private var invalidated = false

    /// The identifier this activity was last saved under, so that an update replaces that record.
    internal var _savedIdentifier: String?

    /// Creates an activity of the given type.
    ///
    /// Apple: <https://developer.apple.com/documentation/foundation/nsuseractivity/init(activitytype:)>
    public init(activityType: String) {
        self.activityType = activityType
        super.init()
    }

    /// Adds entries to `userInfo`, replacing existing keys.
    ///
    /// Apple: <https://developer.apple.com/documentation/foundation/nsuseractivity/adduserinfoentries(from:)>
    open func addUserInfoEntries(from otherDictionary: [AnyHashable: Any]) {
        var info = userInfo ?? [:]
        for (key, value) in otherDictionary { info[key] = value }
        userInfo = info
    }

    /// Makes this the app's current activity; when it is eligible for search and not expired, it is indexed for
    /// the app and the visit counted. An invalidated activity cannot become current.
    ///
    /// Apple: <https://developer.apple.com/documentation/foundation/nsuseractivity/becomecurrent()>
    open func becomeCurrent() {
        guard !invalidated else { return }
        Self.currentLock.lock()
        Self._current = self
        Self.currentLock.unlock()
        save(countingVisit: true)
        queuePublicReport()
    }

    /// With the public index turned on (`spotlight public set-server`), an activity eligible for search and public
    /// indexing with a `webpageURL` queues an anonymous report of this visit for it.
    private func queuePublicReport() {
        guard isEligibleForPublicIndexing, isEligibleForSearch, webpageURL != nil, !invalidated else { return }
        if let expirationDate, expirationDate <= Date() { return }
        do {
            try ActivityIndexer.queuePublicReport(self)
        } catch {
            FileHandle.standardError.write(Data("NSUserActivity: could not queue the public report of \(activityType): \(error)\n".utf8))
        }
    }

    /// Stops being the current activity. What was saved stays saved.
    ///
    /// Apple: <https://developer.apple.com/documentation/foundation/nsuseractivity/resigncurrent()>
    open func resignCurrent() {
        if _needsSave, isCurrent { save(countingVisit: false) }
        Self.currentLock.lock()
        if Self._current === self { Self._current = nil }
        Self.currentLock.unlock()
    }

    /// Ends the activity for good: it stops being current and cannot become current again. What was saved stays.
    ///
    /// Apple: <https://developer.apple.com/documentation/foundation/nsuseractivity/invalidate()>
    open func invalidate() {
        resignCurrent()
        invalidated = true
    }

    /// Whether this is the app's current activity.
    internal var isCurrent: Bool {
        Self.currentLock.lock()
        defer { Self.currentLock.unlock() }
        return Self._current === self
    }

    private static let currentLock = NSLock()
    // Guarded by `currentLock`. Weak, as Apple's: the app must hold its current activity.
    nonisolated(unsafe) private static weak var _current: NSUserActivity?

    private func save(countingVisit: Bool) {
        if _needsSave {
            _needsSave = false
            delegate?.userActivityWillSave(self)
        }
        guard isEligibleForSearch, !invalidated else { return }
        if let expirationDate, expirationDate <= Date() { return }
        // Deviation: saved synchronously (Apple saves some time later), so a command-line app may exit right after.
        do {
            // An update (not a visit) of an activity whose state changed keeps its saved record and visits.
            _savedIdentifier = try ActivityIndexer.save(self, countingVisit: countingVisit,
                                                        replacing: countingVisit ? nil : _savedIdentifier)
        } catch {
            FileHandle.standardError.write(Data("NSUserActivity: could not index \(activityType): \(error)\n".utf8))
        }
    }

    open override var description: String {
        "<NSUserActivity: \(activityType)\(title.map { " \"\($0)\"" } ?? "")>"
    }

    // MARK: - Deleting saved activities

    /// Deletes the app's saved activities that have one of these persistent identifiers.
    ///
    /// Apple: <https://developer.apple.com/documentation/foundation/nsuseractivity/deletesaveduseractivities(withpersistentidentifiers:completionhandler:)>
    @preconcurrency
    open class func deleteSavedUserActivities(withPersistentIdentifiers persistentIdentifiers: [NSUserActivityPersistentIdentifier],
                                              completionHandler handler: @escaping @Sendable () -> Void) {
        let app = OpenSpotlight.applicationIdentifier
        let root = OpenSpotlight.rootDirectory
        DispatchQueue.global().async {
            try? SavedUserActivity.delete(persistentIdentifiers: Set(persistentIdentifiers),
                                          applicationIdentifier: app, rootDirectory: root)
            handler()
        }
    }

    /// Deletes every saved activity of the app.
    ///
    /// Apple: <https://developer.apple.com/documentation/foundation/nsuseractivity/deleteallsaveduseractivities(completionhandler:)>
    @preconcurrency
    open class func deleteAllSavedUserActivities(completionHandler handler: @escaping @Sendable () -> Void) {
        let app = OpenSpotlight.applicationIdentifier
        let root = OpenSpotlight.rootDirectory
        DispatchQueue.global().async {
            try? SavedUserActivity.deleteAll(applicationIdentifier: app, rootDirectory: root)
            handler()
        }
    }

    /// Deletes the app's saved activities that have one of these persistent identifiers.
    open class func deleteSavedUserActivities(withPersistentIdentifiers persistentIdentifiers: [NSUserActivityPersistentIdentifier]) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            deleteSavedUserActivities(withPersistentIdentifiers: persistentIdentifiers) { c.resume() }
        }
    }

    /// Deletes every saved activity of the app.
    open class func deleteAllSavedUserActivities() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            deleteAllSavedUserActivities { c.resume() }
        }
    }
}
#endif
