import Foundation
import SpotlightEngine

/// A `userInfo` value in a form that can be stored and sent to another process without losing its type: the
/// property-list types, plus `URL` and `UUID` (which Foundation allows in `userInfo`). Beyond Apple.
///
/// Its JSON form is an object with one key naming the type: `{"string": "Brent"}`, `{"int": 7}`,
/// `{"double": 2.5}`, `{"bool": true}`, `{"date": 1700000000.5}` (seconds since 1970), `{"data": "<base64>"}`,
/// `{"url": "https://…"}`, `{"uuid": "…"}`, `{"array": [ … ]}`, `{"dictionary": { "key": … }}`, `{"null": true}`.
public indirect enum UserInfoValue: Sendable, Hashable, Codable {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case date(Date)
    case data(Data)
    case url(URL)
    case uuid(UUID)
    case array([UserInfoValue])
    case dictionary([String: UserInfoValue])
    case null

    /// Converts a Foundation value; `nil` for a value that is not a property-list value, `URL` or `UUID`.
    public init?(_ value: Any) {
        let typeName = String(describing: type(of: value))
        switch value {
        case let s as String: self = .string(s)
        case let u as URL: self = .url(u)
        case let u as UUID: self = .uuid(u)
        case let d as Date: self = .date(d)
        case let d as Data: self = .data(d)
        case is NSNull: self = .null
        case let b as Bool where type(of: value) == Bool.self || typeName.hasSuffix("Boolean"):
            self = .bool(b)
        case let i as Int where type(of: value) == Int.self: self = .int(Int64(i))
        case let i as Int64 where type(of: value) == Int64.self: self = .int(i)
        case let i as Int32 where type(of: value) == Int32.self: self = .int(Int64(i))
        case let d as Double where type(of: value) == Double.self: self = .double(d)
        case let f as Float where type(of: value) == Float.self: self = .double(Double(f))
        case let n as NSNumber:
            switch String(cString: n.objCType) {
            case "f", "d": self = .double(n.doubleValue)
            default: self = .int(n.int64Value)
            }
        case let s as NSString: self = .string(s as String)
        case let a as [Any]:
            var values: [UserInfoValue] = []
            for element in a {
                guard let v = UserInfoValue(element) else { return nil }
                values.append(v)
            }
            self = .array(values)
        case let d as [AnyHashable: Any]:
            guard let converted = UserInfoValue.dictionary(from: d) else { return nil }
            self = .dictionary(converted)
        default:
            return nil
        }
    }

    /// Converts a `userInfo` dictionary; `nil` when a key is not a string or a value cannot be converted.
    public static func dictionary(from userInfo: [AnyHashable: Any]) -> [String: UserInfoValue]? {
        var out: [String: UserInfoValue] = [:]
        for (key, value) in userInfo {
            guard let key = key.base as? String, let v = UserInfoValue(value) else { return nil }
            out[key] = v
        }
        return out
    }

    /// The Foundation value (`String`, `Int`, `Double`, `Bool`, `Date`, `Data`, `URL`, `UUID`, `[Any]`,
    /// `[String: Any]`, `NSNull`).
    public var foundationValue: Any {
        switch self {
        case .string(let s): return s
        case .int(let i): return Int(truncatingIfNeeded: i)
        case .double(let d): return d
        case .bool(let b): return b
        case .date(let d): return d
        case .data(let d): return d
        case .url(let u): return u
        case .uuid(let u): return u
        case .array(let a): return a.map(\.foundationValue)
        case .dictionary(let d): return d.mapValues(\.foundationValue)
        case .null: return NSNull()
        }
    }

    /// A `userInfo` dictionary from converted values.
    public static func userInfo(_ values: [String: UserInfoValue]) -> [AnyHashable: Any] {
        var out: [AnyHashable: Any] = [:]
        for (key, value) in values { out[key] = value.foundationValue }
        return out
    }

    private enum Key: String, CodingKey {
        case string, int, double, bool, date, data, url, uuid, array, dictionary, null
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        guard let key = c.allKeys.first, c.allKeys.count == 1 else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                debugDescription: "a userInfo value is an object with exactly one key naming its type"))
        }
        switch key {
        case .string: self = .string(try c.decode(String.self, forKey: key))
        case .int: self = .int(try c.decode(Int64.self, forKey: key))
        case .double: self = .double(try c.decode(Double.self, forKey: key))
        case .bool: self = .bool(try c.decode(Bool.self, forKey: key))
        case .date: self = .date(Date(timeIntervalSince1970: try c.decode(Double.self, forKey: key)))
        case .data:
            guard let d = Data(base64Encoded: try c.decode(String.self, forKey: key)) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "not base64")
            }
            self = .data(d)
        case .url:
            guard let u = URL(string: try c.decode(String.self, forKey: key)) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "not a URL")
            }
            self = .url(u)
        case .uuid:
            guard let u = UUID(uuidString: try c.decode(String.self, forKey: key)) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "not a UUID")
            }
            self = .uuid(u)
        case .array: self = .array(try c.decode([UserInfoValue].self, forKey: key))
        case .dictionary: self = .dictionary(try c.decode([String: UserInfoValue].self, forKey: key))
        case .null: self = .null
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        switch self {
        case .string(let s): try c.encode(s, forKey: .string)
        case .int(let i): try c.encode(i, forKey: .int)
        case .double(let d): try c.encode(d, forKey: .double)
        case .bool(let b): try c.encode(b, forKey: .bool)
        case .date(let d): try c.encode(d.timeIntervalSince1970, forKey: .date)
        case .data(let d): try c.encode(d.base64EncodedString(), forKey: .data)
        case .url(let u): try c.encode(u.absoluteString, forKey: .url)
        case .uuid(let u): try c.encode(u.uuidString, forKey: .uuid)
        case .array(let a): try c.encode(a, forKey: .array)
        case .dictionary(let d): try c.encode(d, forKey: .dictionary)
        case .null: try c.encode(true, forKey: .null)
        }
    }

    /// Canonical JSON (sorted keys) of a dictionary, used for identity.
    static func canonicalJSON(_ values: [String: UserInfoValue]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(values)).flatMap { String(data: $0, encoding: .utf8) } ?? ""
    }
}

/// An activity as the system saved it in the app's activity index, after `NSUserActivity.becomeCurrent()`.
/// Beyond Apple: it is how the system search reads, merges and continues activities.
///
/// Saved activities are items of the app's index named `SavedUserActivity.indexName`, with the activity's title,
/// keywords and `contentAttributeSet` as attributes (so they are found like items), `lastUsedDate` set to the last
/// visit, and the activity's own fields in custom attributes that are never searched (`_activityType`,
/// `_activityUserInfo`, …). The app's own queries (`CSSearchQuery`, `CSUserQuery`) do not see that index.
public struct SavedUserActivity: Sendable, Hashable {
    /// The name of the app's index holding its saved activities.
    public static let indexName = "_activities"

    /// The saved activity's identifier in the activity index (`activity:` and a hash of its identity).
    public var uniqueIdentifier: String { stored.uniqueIdentifier }
    public var activityType: String
    public var title: String?
    /// The saved `userInfo`: only `requiredUserInfoKeys` when the activity had them.
    public var userInfo: [String: UserInfoValue]
    public var requiredUserInfoKeys: Set<String>?
    public var webpageURL: URL?
    public var persistentIdentifier: String?
    public var targetContentIdentifier: String?
    public var isEligibleForPublicIndexing: Bool
    /// `contentAttributeSet.relatedUniqueIdentifier`: the app's item this activity is one result with, and which
    /// it does not outlive.
    public var relatedUniqueIdentifier: String?
    /// `contentAttributeSet.weakRelatedUniqueIdentifier`: merged with that item, but not deleted with it.
    public var weakRelatedUniqueIdentifier: String?
    /// How many times the activity became current.
    public var visitCount: Int
    public var firstVisit: Date?
    public var lastVisit: Date?
    public var expirationDate: Date { stored.expirationDate }
    /// The engine's copy (attributes for display: `title`, `contentDescription`, `phoneNumbers`…).
    package let stored: StoredItem

    enum Key {
        static let type = "_activityType"
        static let userInfo = "_activityUserInfo"
        static let requiredKeys = "_activityRequiredUserInfoKeys"
        static let webpageURL = "_activityWebpageURL"
        static let persistentIdentifier = "_activityPersistentIdentifier"
        static let targetContentIdentifier = "_activityTargetContentIdentifier"
        static let publicIndexing = "_activityEligibleForPublicIndexing"
        static let visitCount = "_activityVisitCount"
        static let firstVisit = "_activityFirstVisit"
    }

    /// Reads a saved activity from its stored item; `nil` if the item is not a saved activity.
    package init?(_ stored: StoredItem) {
        func custom(_ key: String) -> AttributeValue? { stored.customAttributes[key]?.value }
        guard case .string(let type)? = custom(Key.type) else { return nil }
        self.stored = stored
        self.activityType = type
        if case .string(let t)? = stored.attributes["title"] { title = t } else { title = nil }
        if case .data(let d)? = custom(Key.userInfo),
           let info = try? JSONDecoder().decode([String: UserInfoValue].self, from: d) {
            userInfo = info
        } else {
            userInfo = [:]
        }
        if case .array(let keys)? = custom(Key.requiredKeys) {
            requiredUserInfoKeys = Set(keys.compactMap { if case .string(let s) = $0 { return s } else { return nil } })
        } else {
            requiredUserInfoKeys = nil
        }
        if case .string(let u)? = custom(Key.webpageURL) { webpageURL = URL(string: u) } else { webpageURL = nil }
        if case .string(let p)? = custom(Key.persistentIdentifier) { persistentIdentifier = p } else { persistentIdentifier = nil }
        if case .string(let t)? = custom(Key.targetContentIdentifier) { targetContentIdentifier = t } else { targetContentIdentifier = nil }
        if case .bool(let b)? = custom(Key.publicIndexing) { isEligibleForPublicIndexing = b } else { isEligibleForPublicIndexing = false }
        if case .string(let r)? = stored.attributes["relatedUniqueIdentifier"] { relatedUniqueIdentifier = r } else { relatedUniqueIdentifier = nil }
        if case .string(let r)? = stored.attributes["weakRelatedUniqueIdentifier"] { weakRelatedUniqueIdentifier = r } else { weakRelatedUniqueIdentifier = nil }
        if case .int(let n)? = custom(Key.visitCount) { visitCount = Int(n) } else { visitCount = 1 }
        if case .date(let d)? = custom(Key.firstVisit) { firstVisit = d } else { firstVisit = nil }
        lastVisit = stored.lastUsedDate
    }

    /// The `userInfo` as Foundation values.
    public var foundationUserInfo: [AnyHashable: Any] { UserInfoValue.userInfo(userInfo) }

    // MARK: - Reading and deleting

    private static func store(app: String, root: URL, create: Bool) throws -> IndexStore? {
        let url = StoreLocation.storeURL(app: app, indexName: indexName, root: root)
        guard create || FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try StoreRegistry.store(at: url, create: create)
    }

    /// Every live saved activity of an app.
    public static func all(applicationIdentifier app: String = OpenSpotlight.applicationIdentifier,
                           rootDirectory root: URL = OpenSpotlight.rootDirectory) throws -> [SavedUserActivity] {
        guard let store = try store(app: app, root: root, create: false) else { return [] }
        var out: [SavedUserActivity] = []
        var after: String?
        while true {
            let page = try store.listItems(after: after, limit: 500)
            out += page.compactMap(SavedUserActivity.init)
            guard page.count == 500, let last = page.last else { break }
            after = last.uniqueIdentifier
        }
        return out
    }

    /// Deletes saved activities by their identifiers in the activity index.
    public static func delete(identifiers: [String], applicationIdentifier app: String = OpenSpotlight.applicationIdentifier,
                              rootDirectory root: URL = OpenSpotlight.rootDirectory) throws {
        guard !identifiers.isEmpty, let store = try store(app: app, root: root, create: false) else { return }
        try store.apply([.delete(identifiers: identifiers)])
    }

    /// Deletes the saved activities with one of these persistent identifiers.
    public static func delete(persistentIdentifiers: Set<String>, applicationIdentifier app: String = OpenSpotlight.applicationIdentifier,
                              rootDirectory root: URL = OpenSpotlight.rootDirectory) throws {
        let doomed = try all(applicationIdentifier: app, rootDirectory: root)
            .filter { $0.persistentIdentifier.map(persistentIdentifiers.contains) ?? false }
            .map(\.uniqueIdentifier)
        try delete(identifiers: doomed, applicationIdentifier: app, rootDirectory: root)
    }

    /// Deletes every saved activity of an app.
    public static func deleteAll(applicationIdentifier app: String = OpenSpotlight.applicationIdentifier,
                                 rootDirectory root: URL = OpenSpotlight.rootDirectory) throws {
        guard let store = try store(app: app, root: root, create: false) else { return }
        try store.apply([.deleteAll])
    }

    /// Deletes the activities that item deletions in one of the app's indexes took with them: activities whose
    /// `relatedUniqueIdentifier` names an item the app no longer has, and activities whose
    /// `contentAttributeSet.domainIdentifier` is one of the deleted domains or below one (Apple: group activities
    /// by domain "so you can delete them with deleteSearchableItems(withDomainIdentifiers:)"). `CSSearchableIndex`
    /// calls it once a deletion is committed. Returns the deleted activities' identifiers.
    @discardableResult
    package static func cascade(afterDeleting operations: [IndexOperation], onDefaultIndex: Bool = true,
                               applicationIdentifier app: String = OpenSpotlight.applicationIdentifier,
                               rootDirectory root: URL = OpenSpotlight.rootDirectory) throws -> [String] {
        var deletedIdentifiers: Set<String> = []
        var domains: [String] = []
        var broad = false
        for operation in operations {
            switch operation {
            case .delete(let identifiers): deletedIdentifiers.formUnion(identifiers)
            // As Apple's: deleting domains deletes the activities of those domains only when called on the default
            // index (activities belong to it); on a named index only activities related to deleted items go.
            case .deleteDomains(let d): if onDefaultIndex { domains += d }; broad = true
            case .deleteAll: broad = true
            case .upsert: break
            }
        }
        guard broad || !deletedIdentifiers.isEmpty,
              FileManager.default.fileExists(atPath: StoreRegistry.location(app: app, indexName: indexName, root: root).url.path)
        else { return [] }
        let activities = try all(applicationIdentifier: app, rootDirectory: root)
        var doomed: [String] = []
        for activity in activities {
            if let domain = activity.stored.domainIdentifier,
               domains.contains(where: { domain == $0 || domain.hasPrefix($0 + ".") }) {
                doomed.append(activity.uniqueIdentifier)
            } else if let related = activity.relatedUniqueIdentifier, broad || deletedIdentifiers.contains(related),
                      try item(withIdentifier: related, applicationIdentifier: app, rootDirectory: root) == nil {
                doomed.append(activity.uniqueIdentifier)
            }
        }
        try delete(identifiers: doomed, applicationIdentifier: app, rootDirectory: root)
        return doomed
    }

    /// Deletes the saved activities whose `relatedUniqueIdentifier` names an item the app no longer has (the item
    /// was deleted or expired). Returns the deleted activities' identifiers.
    ///
    /// Deleting item X also deletes the activities related to X: `CSSearchableIndex` does it when the deletion is
    /// committed (`cascade(afterDeleting:)`); this catches what that missed (items that expired, deletions by an
    /// older version, a process killed in between), when the system reads activities (`spotlight` searches and
    /// `spotlight doctor`).
    @discardableResult
    public static func deleteOrphans(applicationIdentifier app: String = OpenSpotlight.applicationIdentifier,
                                     rootDirectory root: URL = OpenSpotlight.rootDirectory) throws -> [String] {
        let orphans = try all(applicationIdentifier: app, rootDirectory: root).filter { activity in
            guard let related = activity.relatedUniqueIdentifier else { return false }
            return (try? item(withIdentifier: related, applicationIdentifier: app, rootDirectory: root)) == nil
        }.map(\.uniqueIdentifier)
        try delete(identifiers: orphans, applicationIdentifier: app, rootDirectory: root)
        return orphans
    }

    /// The app's live item with this identifier in any of its indexes (not the activity index), with the name of
    /// the index holding it.
    package static func item(withIdentifier identifier: String, applicationIdentifier app: String,
                             rootDirectory root: URL) throws -> (item: StoredItem, indexName: String)? {
        for name in StoreLocation.indexNames(app: app, root: root) where name != indexName {
            let store = try StoreRegistry.store(app: app, indexName: name, root: root, create: false)
            if let item = try store.item(withIdentifier: identifier) { return (item, name) }
        }
        return nil
    }
}

#if !canImport(Darwin)
extension SavedUserActivity {
    /// The activity as the app gets it back when the person continues it: type, title, `userInfo`, keys,
    /// web page and persistent identifier.
    public func makeUserActivity() -> NSUserActivity {
        let activity = NSUserActivity(activityType: activityType)
        activity.title = title
        activity.userInfo = foundationUserInfo
        activity.requiredUserInfoKeys = requiredUserInfoKeys
        activity.webpageURL = webpageURL
        activity.persistentIdentifier = persistentIdentifier
        activity.targetContentIdentifier = targetContentIdentifier
        activity.isEligibleForSearch = true
        activity.isEligibleForPublicIndexing = isEligibleForPublicIndexing
        return activity
    }
}

/// Saves activities that become current into the app's activity index.
enum ActivityIndexer {
    /// Queues the public index report of a visit, when the user opted in (`PublicIndexSettings`). Only the
    /// `requiredUserInfoKeys` part of `userInfo` is included; without `requiredUserInfoKeys`, none of it.
    static func queuePublicReport(_ activity: NSUserActivity, now: Date = Date()) throws {
        let root = OpenSpotlight.rootDirectory
        guard PublicIndexSettings.load(root: root) != nil, let page = activity.webpageURL else { return }
        let title = (activity.title ?? activity.contentAttributeSet?.title ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else { return }
        let required = activity.requiredUserInfoKeys ?? []
        var values: [String: UserInfoValue] = [:]
        for (key, value) in activity.userInfo ?? [:] {
            guard let key = key.base as? String, required.contains(key), let converted = UserInfoValue(value) else { continue }
            values[key] = converted
        }
        let keywords = Set(activity.contentAttributeSet?.keywords ?? []).union(activity.keywords).sorted()
        let queue = try PublicReportQueue(app: OpenSpotlight.applicationIdentifier, root: root)
        try queue.enqueue(activityType: activity.activityType, webpageURL: page.absoluteString, title: title,
                          description: activity.contentAttributeSet?.contentDescription, keywords: keywords,
                          requiredUserInfoKeys: required.sorted(), userInfoJSON: UserInfoValue.canonicalJSON(values),
                          applicationIdentifier: OpenSpotlight.applicationIdentifier, now: now)
    }

    /// Saves an activity; returns the identifier it is saved under (`nil` when it was not saved). With
    /// `replacing`, the record saved under that identifier is replaced (its visits carried over).
    @discardableResult
    static func save(_ activity: NSUserActivity, countingVisit: Bool, replacing: String? = nil,
                     now: Date = Date()) throws -> String? {
        let app = OpenSpotlight.applicationIdentifier
        let root = OpenSpotlight.rootDirectory
        let set = (activity.contentAttributeSet?.copy() as? CSSearchableItemAttributeSet) ?? CSSearchableItemAttributeSet()
        // Apple: an activity related to an item is not stored unless the item exists (index the item first).
        if let related = set.relatedUniqueIdentifier,
           try SavedUserActivity.item(withIdentifier: related, applicationIdentifier: app, rootDirectory: root) == nil {
            return nil
        }
        if let title = activity.title { set.title = title }
        let keywords = Set(set.keywords ?? []).union(activity.keywords)
        if !keywords.isEmpty { set.keywords = keywords.sorted() }

        var info = activity.userInfo ?? [:]
        if let required = activity.requiredUserInfoKeys {
            info = info.filter { ($0.key.base as? String).map(required.contains) ?? false }
        }
        var values: [String: UserInfoValue] = [:]
        for (key, value) in info {
            guard let key = key.base as? String else {
                warn("userInfo key \(key) of \(activity.activityType) is not a string; not saved")
                continue
            }
            guard let converted = UserInfoValue(value) else {
                warn("userInfo[\"\(key)\"] of \(activity.activityType) is \(type(of: value)), not a property-list value; not saved")
                continue
            }
            values[key] = converted
        }

        let uid = identifier(activity, userInfo: values, related: set.relatedUniqueIdentifier)
        // A damaged activity index is moved aside and restarts empty (the one recovery policy, `StoreRecovery`).
        let store = try StoreRecovery.openStore(app: app, indexName: SavedUserActivity.indexName, root: root).store
        var previous = try store.item(withIdentifier: uid, now: now).flatMap(SavedUserActivity.init)
        var operations: [IndexOperation] = []
        if let replacing, replacing != uid,
           let old = try store.item(withIdentifier: replacing, now: now).flatMap(SavedUserActivity.init) {
            previous = previous ?? old
            operations.append(.delete(identifiers: [replacing]))
        }
        let visits = (previous?.visitCount ?? 0) + (countingVisit ? 1 : 0)
        set.lastUsedDate = countingVisit ? now : (previous?.lastVisit ?? now)

        let item = CSSearchableItem(uniqueIdentifier: uid, domainIdentifier: set.domainIdentifier, attributeSet: set)
        // G1: Apple expires activities "after a period of time"; here one month after the last save, as items.
        if let expiration = activity.expirationDate { item.expirationDate = expiration }
        var stored = try ItemConversion.storedItem(item, now: now)
        func put(_ key: String, _ value: AttributeValue?) {
            guard let value else { return }
            stored.customAttributes[key] = CustomAttribute(value: value, isSearchable: false)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        put(SavedUserActivity.Key.type, .string(activity.activityType))
        put(SavedUserActivity.Key.userInfo, .data(try encoder.encode(values)))
        put(SavedUserActivity.Key.requiredKeys, activity.requiredUserInfoKeys.map { .array($0.sorted().map { .string($0) }) })
        put(SavedUserActivity.Key.webpageURL, activity.webpageURL.map { .string($0.absoluteString) })
        put(SavedUserActivity.Key.persistentIdentifier, activity.persistentIdentifier.map { .string($0) })
        put(SavedUserActivity.Key.targetContentIdentifier, activity.targetContentIdentifier.map { .string($0) })
        put(SavedUserActivity.Key.publicIndexing, .bool(activity.isEligibleForPublicIndexing))
        put(SavedUserActivity.Key.visitCount, .int(Int64(max(visits, 1))))
        put(SavedUserActivity.Key.firstVisit, .date(previous?.firstVisit ?? now))
        try store.apply(operations + [.upsert(stored)], now: now)
        return uid
    }

    /// The saved activity's identity: its type and persistent identifier when it has one, else its type, saved
    /// `userInfo`, web page and related item, else (with none of those) its title. The same identity is the same
    /// saved activity, whose visits add up.
    static func identifier(_ activity: NSUserActivity, userInfo: [String: UserInfoValue], related: String?) -> String {
        var key = activity.activityType + "\u{0}"
        if let persistent = activity.persistentIdentifier {
            key += "p\u{0}" + persistent
        } else {
            key += "u\u{0}" + UserInfoValue.canonicalJSON(userInfo) + "\u{0}" + (activity.webpageURL?.absoluteString ?? "")
                + "\u{0}" + (related ?? "")
            if userInfo.isEmpty, activity.webpageURL == nil, related == nil { key += "\u{0}" + (activity.title ?? "") }
        }
        return "activity:" + hash(key, seed: 0xcbf2_9ce4_8422_2325) + hash(key, seed: 0x8422_2325_cbf2_9ce4)
    }

    /// FNV-1a, 64 bits, as 16 hex digits.
    private static func hash(_ text: String, seed: UInt64) -> String {
        var h = seed
        for byte in text.utf8 {
            h ^= UInt64(byte)
            h = h &* 0x0000_0100_0000_01b3
        }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    private static func warn(_ message: String) {
        FileHandle.standardError.write(Data("NSUserActivity: \(message)\n".utf8))
    }
}
#endif
