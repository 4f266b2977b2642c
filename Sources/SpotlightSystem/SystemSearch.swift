import Foundation
import OpenCoreSpotlight
import SpotlightEngine

/// The system search: one typed text over every app's indexes on the machine (for the current user), ranked,
/// grouped by app, each result naming its app and the actions it offers.
///
/// ```swift
/// let outcome = SystemSearch().search("brent reid")
/// for group in outcome.apps {
///     print(group.displayName)
///     for result in group.results { print("  \(result.number). \(result.title)", result.actions) }
/// }
/// ```
///
/// Matching and ranking are the engine's (`Ranking`, as `AppSearch` and `CSUserQuery` use): every word must match
/// (the last as a prefix), name matches beat keyword, description and body matches, and `rankingHint`,
/// `lastUsedDate` and the engagement the app reported (`CSUserQuery.userEngaged`) reorder close matches. Saved activities (`NSUserActivity`) are searched too, and
/// each visit raises them: `min(1.5, 0.5 × log2(1 + visits))` points. An activity whose
/// `relatedUniqueIdentifier` (or `weakRelatedUniqueIdentifier`) names one of the app's items is one result with
/// that item: the item's metadata is shown, the activity is what continuing it opens, and the better of the two
/// scores counts. An activity whose related item is gone is deleted (the item's deletion cascades).
///
/// Scores do not depend on the size of an app's index, so results of different apps compare. Apps are ordered by
/// their best result; results are numbered in display order, for `spotlight open <number>`.
public struct SystemSearch: @unchecked Sendable {
    // @unchecked Sendable: `progress` is only called from the searching thread.
    public let root: URL
    /// Whether broken and lost indexes are repaired before searching (through the apps' reindex extensions).
    public var repairsAutomatically = true
    /// Receives a line per step of long work (repairs).
    public var progress: ((String) -> Void)?

    public init(root: URL = OpenSpotlight.rootDirectory) {
        self.root = root
    }

    /// An action a result offers.
    public enum Action: String, Codable, Sendable, Hashable {
        /// Continue it in its app.
        case open
        /// Call its phone number (`supportsPhoneCall` and `phoneNumbers`).
        case call
        /// Get directions to it (`supportsNavigation`, `latitude` and `longitude`).
        case directions
    }

    /// One result.
    public struct Result: Codable, Sendable, Hashable {
        /// The result's number in display order, from 1.
        public var number: Int
        public var applicationIdentifier: String
        /// The app's name, or its identifier when it is not registered.
        public var appDisplayName: String
        /// `item` (a Core Spotlight item, maybe with a saved activity) or `activity` (a saved activity alone).
        public var kind: String
        /// The item's unique identifier, or the saved activity's identifier for an activity alone.
        public var identifier: String
        /// The index holding the item (`_default` for the default index, `_activities` for activities).
        public var indexName: String
        public var title: String
        public var description: String?
        public var actions: [Action]
        public var score: Double
        /// The saved activity continuing this result opens, if any.
        public var activityIdentifier: String?
        public var activityType: String?
        public var visitCount: Int?
        public var phoneNumbers: [String]?
        public var latitude: Double?
        public var longitude: Double?
        public var contentURL: String?
        /// The item's thumbnail, when it is a local file (`thumbnailURL`).
        public var thumbnailPath: String?
        public var lastUsedDate: Date?
        /// Why it scored what it did.
        public var explanation: String?
        /// The title with the typed words it matched (when the title shown is the item's name).
        public var titleHighlight: Highlight?
        /// The passage of the description or text that matches the most typed words, with them marked; only when
        /// it shows typed words the title does not (a result found by its name keeps its description).
        public var snippet: Highlight?
    }

    /// A text with the ranges the typed words matched (`AppSearch.Highlight`). In JSON, ranges are UTF-16 offsets
    /// and lengths, as `NSRange`, JavaScript strings and GLib's Pango markup helpers count.
    public struct Highlight: Codable, Sendable, Hashable {
        /// The attribute the text comes from: `title`, `displayName`, `contentDescription`, `textContent`, …
        public var attribute: String
        public var text: String
        public var ranges: [TextRange]

        /// `text` cut into matched and unmatched pieces, in order.
        public var pieces: [(text: String, isMatch: Bool)] {
            let utf16 = Array(text.utf16)
            var result: [(text: String, isMatch: Bool)] = []
            var last = 0
            func piece(_ from: Int, _ to: Int) -> String { String(decoding: utf16[from..<to], as: UTF16.self) }
            for range in ranges {
                let lower = min(max(range.location, last), utf16.count), upper = min(range.location + range.length, utf16.count)
                guard lower < upper else { continue }
                if last < lower { result.append((piece(last, lower), false)) }
                result.append((piece(lower, upper), true))
                last = upper
            }
            if last < utf16.count { result.append((piece(last, utf16.count), false)) }
            return result
        }

        init(_ engine: TextHighlight) {
            attribute = engine.attribute
            text = engine.text
            ranges = engine.ranges.map {
                let location = engine.text.utf16.distance(from: engine.text.startIndex, to: $0.lowerBound)
                return TextRange(location: location, length: engine.text.utf16.distance(from: $0.lowerBound, to: $0.upperBound))
            }
        }
    }

    /// A range of UTF-16 code units.
    public struct TextRange: Codable, Sendable, Hashable {
        public var location: Int
        public var length: Int
    }

    /// One app's results.
    public struct AppResults: Codable, Sendable, Hashable {
        public var applicationIdentifier: String
        public var displayName: String
        public var isRegistered: Bool
        public var results: [Result]
    }

    /// Everything a search found and did.
    public struct Outcome: Codable, Sendable, Hashable {
        public var query: String
        public var apps: [AppResults]
        /// Reindex requests issued on the way (repairs).
        public var repairs: [IndexDoctor.RequestReport]
        /// Indexes that could not be searched, for people.
        public var problems: [String]
        /// Whether any app has an index at all.
        public var somethingIndexed: Bool
        public var date: Date
        /// Results from the public index ("From the web"), when it is turned on; numbered after `results`.
        public var web: [WebResult]? = nil

        /// Every result in display order.
        public var results: [Result] { apps.flatMap(\.results) }
    }

    /// Searches every app's indexes for typed text.
    ///
    /// - Parameters:
    ///   - text: what the person typed; empty text returns recent and hinted items.
    ///   - limit: the most results in all (0: no limit).
    ///   - applications: only these apps (default: all).
    public func search(_ text: String, limit: Int = 20, applications: Set<String>? = nil) -> Outcome {
        var repairs: [IndexDoctor.RequestReport] = []
        var doctor = IndexDoctor(root: root)
        doctor.progress = progress
        if repairsAutomatically {
            repairs += doctor.repairLostAndPending()
        }
        var problems: [String] = []
        var candidates: [Candidate] = []
        var registrations: [String: SpotlightApp] = [:]
        for app in SpotlightApp.all() { registrations[app.applicationIdentifier] = app }
        var somethingIndexed = false
        let perStoreLimit = limit > 0 ? limit * 2 + 10 : 0
        for app in StoreLocation.installedApps(root: root) where applications?.contains(app) ?? true {
            var names = StoreLocation.indexNames(app: app, root: root)
            if !names.isEmpty { somethingIndexed = true }
            var appCandidates: [Candidate] = []
            var stores: [(name: String, store: IndexStore)] = []
            let boosts = engagementBoosts(app: app, text: text)
            var storeFailed = false
            // The app's own indexes, as AppIndexes (the one search path) names them; activities are merged below.
            for name in names where AppIndexes.isAppIndex(name) {
                var options = TextSearchOptions(limit: perStoreLimit)
                options.now = Date()
                options.boosts = boosts
                do {
                    let (store, hits) = try searchStore(app: app, indexName: name, text: text, options: options,
                                                        doctor: doctor, repairs: &repairs)
                    stores.append((name, store))
                    appCandidates += hits.map { Candidate(app: app, indexName: name, hit: $0) }
                } catch {
                    problems.append("\(app)/\(name): \(error)")
                    storeFailed = true
                }
            }
            names = StoreLocation.indexNames(app: app, root: root)
            if names.contains(SavedUserActivity.indexName) {
                do {
                    let cascade = !storeFailed && doctor.canCascadeDeletes(app: app)
                    appCandidates = try merge(activitiesOf: app, into: appCandidates, text: text, stores: stores,
                                              cascadeDeletes: cascade, doctor: doctor, repairs: &repairs)
                } catch {
                    problems.append("\(app)/\(SavedUserActivity.indexName): \(error)")
                }
            }
            candidates += appCandidates
        }
        if repairsAutomatically { doctor.recordKnownIndexes() }

        // AppIndexes' merge rule (score, identifier, index name), with the app first among equal identifiers.
        candidates.sort { $0.score != $1.score ? $0.score > $1.score : $0.sortKey < $1.sortKey }
        if limit > 0, candidates.count > limit { candidates.removeLast(candidates.count - limit) }
        var groups: [String: [Candidate]] = [:]
        var order: [String] = []
        for candidate in candidates {
            if groups[candidate.app] == nil { order.append(candidate.app) }
            groups[candidate.app, default: []].append(candidate)
        }
        var number = 0
        let apps = order.map { app -> AppResults in
            let registration = registrations[app]
            let results = groups[app]!.map { candidate -> Result in
                number += 1
                return candidate.result(number: number, registration: registration)
            }
            return AppResults(applicationIdentifier: app, displayName: registration?.displayName ?? app,
                              isRegistered: registration != nil, results: results)
        }
        return Outcome(query: text, apps: apps, repairs: repairs, problems: problems,
                       somethingIndexed: somethingIndexed, date: Date())
    }

    /// The engagement the app reported (`CSUserQuery.userEngaged`), which raises results here as in the app.
    private func engagementBoosts(app: String, text: String) -> [String: Double] {
        let file = StoreLocation.appDirectory(for: app, root: root).appendingPathComponent("engagement.sqlite")
        guard FileManager.default.fileExists(atPath: file.path),
              let store = try? EngagementStore.forApp(app, root: root) else { return [:] }
        return (try? store.boosts(for: text)) ?? [:]
    }

    /// Searches one store; a store found broken is repaired (when allowed) and searched again.
    private func searchStore(app: String, indexName: String, text: String, options: TextSearchOptions,
                             doctor: IndexDoctor, repairs: inout [IndexDoctor.RequestReport]) throws -> (IndexStore, [SearchHit]) {
        func attempt() throws -> (IndexStore, [SearchHit]) {
            let store = try StoreRegistry.store(app: app, indexName: indexName, root: root, create: false)
            return (store, try store.search(text, options: options))
        }
        do {
            return try attempt()
        } catch let error where IndexDoctor.needsRebuild(error) && repairsAutomatically {
            progress?("\(app): the index \(indexName) cannot be read (\(error)); rebuilding it")
            if let report = doctor.repair(app: app, indexName: indexName, error: error) { repairs.append(report) }
            guard FileManager.default.fileExists(atPath: StoreLocation.storeURL(app: app, indexName: indexName, root: root).path) else {
                throw SystemError("the index was damaged and is being rebuilt")
            }
            return try attempt()
        }
    }

    /// Adds the app's saved activities: merged with the item they relate to, or as results of their own.
    private func merge(activitiesOf app: String, into candidates: [Candidate], text: String,
                       stores: [(name: String, store: IndexStore)], cascadeDeletes: Bool, doctor: IndexDoctor,
                       repairs: inout [IndexDoctor.RequestReport]) throws -> [Candidate] {
        var candidates = candidates
        // The activity index is the system's: a damaged one restarts empty.
        let activityHits: [SearchHit]
        do {
            let store = try StoreRegistry.store(app: app, indexName: SavedUserActivity.indexName, root: root, create: false)
            activityHits = try store.search(text, options: TextSearchOptions(limit: 0))
        } catch let error where IndexDoctor.needsRebuild(error) && repairsAutomatically {
            _ = doctor.repair(app: app, indexName: SavedUserActivity.indexName, error: error)
            return candidates
        }
        let activities = try SavedUserActivity.all(applicationIdentifier: app, rootDirectory: root)
        // Every item-related activity: the item it belongs to (or its deletion).
        var byItem: [String: SavedUserActivity] = [:]
        var orphans: [String] = []
        var itemCache: [String: (item: StoredItem, indexName: String)?] = [:]
        func item(_ id: String) -> (item: StoredItem, indexName: String)? {
            if let cached = itemCache[id] { return cached }
            var found: (item: StoredItem, indexName: String)?
            for (name, store) in stores {
                if let item = try? store.item(withIdentifier: id) { found = (item, name); break }
            }
            itemCache[id] = found
            return found
        }
        for activity in activities {
            guard let related = activity.relatedUniqueIdentifier ?? activity.weakRelatedUniqueIdentifier else { continue }
            if item(related) == nil {
                if activity.relatedUniqueIdentifier != nil { orphans.append(activity.uniqueIdentifier) }
                continue
            }
            if let existing = byItem[related], (existing.lastVisit ?? .distantPast) >= (activity.lastVisit ?? .distantPast) {
                continue
            }
            byItem[related] = activity
        }
        if !orphans.isEmpty, cascadeDeletes {
            try? SavedUserActivity.delete(identifiers: orphans, applicationIdentifier: app, rootDirectory: root)
        }
        let orphanSet = Set(orphans)
        // Items with an activity: continued with it, raised by its visits.
        for i in candidates.indices {
            if let activity = byItem[candidates[i].item.uniqueIdentifier] {
                candidates[i].activity = activity
                candidates[i].visitPoints = Self.visitPoints(activity.visitCount, engagement: candidates[i].engagementPoints)
            }
        }
        var positions: [String: Int] = [:]
        for (i, c) in candidates.enumerated() { positions[c.item.uniqueIdentifier] = i }
        for hit in activityHits {
            guard let activity = SavedUserActivity(hit.item), !orphanSet.contains(activity.uniqueIdentifier) else { continue }
            let visits = Self.visitPoints(activity.visitCount, engagement: hit.explanation.engagementPoints)
            if let related = activity.relatedUniqueIdentifier ?? activity.weakRelatedUniqueIdentifier,
               let (relatedItem, indexName) = item(related) {
                // One result with the item it relates to, scored by whichever of the two matched better (its
                // explanation with it).
                if let i = positions[related] {
                    if hit.score + visits > candidates[i].score {
                        candidates[i].ranking = hit.explanation
                        candidates[i].engagementPoints = hit.explanation.engagementPoints
                        candidates[i].visitPoints = visits
                        candidates[i].activity = candidates[i].activity ?? activity
                    }
                } else {
                    // The item's metadata wins for display.
                    var candidate = Candidate(app: app, indexName: indexName, item: relatedItem, ranking: hit.explanation)
                    candidate.activity = byItem[related] ?? activity
                    candidate.visitPoints = visits
                    positions[related] = candidates.count
                    candidates.append(candidate)
                }
            } else {
                var candidate = Candidate(app: app, indexName: SavedUserActivity.indexName, hit: hit)
                candidate.activity = activity
                candidate.isActivityOnly = true
                candidate.visitPoints = visits
                candidates.append(candidate)
            }
        }
        return candidates
    }

    /// The points visits add to an activity's result: `min(1.5, 0.5 × log2(1 + visits))`, and with the result's
    /// engagement points at most 2 (the engagement budget of `Ranking`), so that the static parts of a score stay
    /// below the gap between a name match and a keyword match.
    public static func visitPoints(_ visits: Int, engagement: Double = 0) -> Double {
        min(1.5, 0.5 * log2(1 + Double(max(visits, 0))), max(0, 2 - engagement))
    }
}

/// A result before numbering. Its score is the sum of the parts its explanation lists: the engine's ranking of
/// the matched item (or activity) and the points its activity's visits add.
struct Candidate {
    var app: String
    var indexName: String
    /// The item shown (for an activity merged with its item, the item).
    var item: StoredItem
    /// The engine's scoring of what matched (nil: listed without a text match).
    var ranking: RankingExplanation?
    /// The engagement points already in `ranking`.
    var engagementPoints: Double = 0
    /// The points the activity's visits add.
    var visitPoints: Double = 0
    var activity: SavedUserActivity?
    var isActivityOnly = false

    var score: Double { (ranking?.total ?? 0) + visitPoints }

    init(app: String, indexName: String, hit: SearchHit) {
        self.init(app: app, indexName: indexName, item: hit.item, ranking: hit.explanation)
    }

    init(app: String, indexName: String, item: StoredItem, ranking: RankingExplanation? = nil) {
        self.app = app
        self.indexName = indexName
        self.item = item
        self.ranking = ranking
        self.engagementPoints = ranking?.engagementPoints ?? 0
    }

    /// Every part of the score, and the score they add up to.
    var explanation: String? {
        guard let ranking else { return nil }
        var parts = ranking.components
        if visitPoints != 0, let activity {
            parts.append("visits (\(activity.visitCount)): \(String(format: "%.2f", visitPoints))")
        }
        return parts.joined(separator: ", ") + " = \(String(format: "%.3f", score))"
    }

    var sortKey: String { app + "\u{0}" + item.uniqueIdentifier + "\u{0}" + indexName }

    func result(number: Int, registration: SpotlightApp?) -> SystemSearch.Result {
        let info = ItemSummary(item)
        var actions: [SystemSearch.Action] = []
        if registration != nil { actions.append(.open) }
        if info.canCall { actions.append(.call) }
        if info.canNavigate { actions.append(.directions) }
        let title = info.title ?? activity?.title ?? item.uniqueIdentifier
        let highlights = ranking.map { HitHighlights(item: item, explanation: $0) }
        return SystemSearch.Result(
            number: number, applicationIdentifier: app, appDisplayName: registration?.displayName ?? app,
            kind: isActivityOnly ? "activity" : "item", identifier: item.uniqueIdentifier, indexName: indexName,
            title: title, description: info.description,
            actions: actions, score: (score * 1000).rounded() / 1000, activityIdentifier: activity?.uniqueIdentifier,
            activityType: activity?.activityType, visitCount: activity?.visitCount, phoneNumbers: info.phoneNumbers,
            latitude: info.latitude, longitude: info.longitude, contentURL: info.contentURL, thumbnailPath: info.thumbnailPath,
            lastUsedDate: activity?.lastVisit ?? item.lastUsedDate, explanation: explanation,
            titleHighlight: highlights?.name.flatMap { $0.text == title && !$0.ranges.isEmpty ? SystemSearch.Highlight($0) : nil },
            snippet: highlights?.snippet.flatMap { snippet in
                snippet.words.isSubset(of: highlights?.name?.words ?? []) ? nil : SystemSearch.Highlight(snippet)
            })
    }
}

/// The display fields of a stored item.
struct ItemSummary {
    var title: String?
    var description: String?
    var phoneNumbers: [String]?
    var latitude: Double?
    var longitude: Double?
    var canCall = false
    var canNavigate = false
    var contentURL: String?
    var thumbnailPath: String?

    init(_ item: StoredItem) {
        let a = item.attributes
        title = Self.string(a["title"]) ?? Self.string(a["displayName"])
        description = Self.string(a["contentDescription"])
        let phones = a["phoneNumbers"].map { $0.elements.compactMap { Self.string($0) } }
        phoneNumbers = phones?.isEmpty == false ? phones : nil
        latitude = a["latitude"]?.numericValue
        longitude = a["longitude"]?.numericValue
        canCall = (a["supportsPhoneCall"]?.numericValue ?? 0) != 0 && phoneNumbers != nil
        canNavigate = (a["supportsNavigation"]?.numericValue ?? 0) != 0 && latitude != nil && longitude != nil
        if case .url(let u)? = a["contentURL"] { contentURL = u.absoluteString }
        if case .url(let u)? = a["thumbnailURL"], u.isFileURL { thumbnailPath = u.path }
    }

    static func string(_ value: AttributeValue?) -> String? {
        switch value {
        case .string(let s)?: return s
        case .localized(let l)?:
            let preferred = Locale.preferredLanguages.first.map { String($0.prefix(2)) } ?? "en"
            return l[preferred] ?? l["en"] ?? l.keys.sorted().first.flatMap { l[$0] }
        default: return nil
        }
    }
}
