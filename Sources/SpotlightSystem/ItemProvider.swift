import Foundation
import OpenCoreSpotlight

/// What the system asks of an item that its app provides on demand, through the app's extension: the item's data
/// in a type it lists in `providerDataTypeIdentifiers` (`data(for:itemIdentifier:typeIdentifier:)`), a file in a
/// type of `providerFileTypeIdentifiers` / `providerInPlaceFileTypeIdentifiers`
/// (`fileURL(for:itemIdentifier:typeIdentifier:inPlace:)`), or the app's current version of items
/// (`searchableItems(forIdentifiers:)`). The roles of Apple's drag and drop and sharing from Spotlight; `spotlight
/// data`, `spotlight file` and `spotlight item` use it.
///
/// ```swift
/// let provider = ItemProvider()
/// let (type, vCard) = try provider.data(app: "com.example.colleagues", identifier: "employee-1")
/// ```
// Deviation: Apple calls these delegate methods when a result is dragged or shared out of Spotlight; on Linux the
// system asks the app's registered extension, on `spotlight data|file|item`.
public struct ItemProvider: Sendable {
    public let root: URL

    public init(root: URL = OpenSpotlight.rootDirectory) {
        self.root = root
    }

    /// The item's data in `typeIdentifier`, or in the first (highest-fidelity) type the item offers.
    public func data(app: String, identifier: String, typeIdentifier: String? = nil) throws -> (type: String, data: Data) {
        let (type, indexName) = try offeredType(app: app, identifier: identifier, wanted: typeIdentifier,
                                                attributes: ["providerDataTypeIdentifiers"])
        let reply = try ask(app: app, indexName: indexName, kind: .provideData, identifiers: [identifier], type: type)
        return (type, reply)
    }

    /// A file of the item in `typeIdentifier` (or the first type it offers): the original when `inPlace`, else a
    /// copy.
    public func fileURL(app: String, identifier: String, typeIdentifier: String? = nil,
                        inPlace: Bool = false) throws -> (type: String, url: URL) {
        let (type, indexName) = try offeredType(
            app: app, identifier: identifier, wanted: typeIdentifier,
            attributes: inPlace ? ["providerInPlaceFileTypeIdentifiers"] : ["providerFileTypeIdentifiers"])
        let reply = try ask(app: app, indexName: indexName, kind: .provideFile, identifiers: [identifier], type: type,
                            inPlace: inPlace)
        return (type, URL(fileURLWithPath: String(decoding: reply, as: UTF8.self)))
    }

    /// The app's current version of items, from `searchableItems(forIdentifiers:)`.
    public func items(app: String, identifiers: [String], indexName: String = "_default") throws -> [ItemSnapshot] {
        let reply = try ask(app: app, indexName: indexName, kind: .provideItems, identifiers: identifiers, type: nil)
        do {
            return try JSONDecoder().decode([ItemSnapshot].self, from: reply)
        } catch {
            throw SystemError("\(app) answered items that cannot be read: \(error)")
        }
    }

    /// The type to ask for: `wanted` if the item offers it, else the first type it offers.
    private func offeredType(app: String, identifier: String, wanted: String?,
                             attributes: [String]) throws -> (type: String, indexName: String) {
        guard let (item, indexName) = try SavedUserActivity.item(withIdentifier: identifier, applicationIdentifier: app,
                                                                 rootDirectory: root) else {
            throw SystemError("\(app) has no item \(identifier)")
        }
        var offered: [String] = []
        for name in attributes {
            if case .array(let values)? = item.attributes[name] {
                for case .string(let type) in values { offered.append(type) }
            }
        }
        if let wanted {
            guard offered.contains(wanted) else {
                throw SystemError(offered.isEmpty
                    ? "\(identifier) of \(app) offers no \(attributes[0].replacingOccurrences(of: "Identifiers", with: ""))"
                    : "\(identifier) of \(app) is not offered as \(wanted); it is offered as \(offered.joined(separator: ", "))")
            }
            return (wanted, indexName)
        }
        guard let first = offered.first else {
            throw SystemError("\(identifier) of \(app) offers no \(attributes[0]) (the app lists none for it)")
        }
        return (first, indexName)
    }

    /// Writes the request, runs the app's extension on it, and returns the reply; the request's files are removed
    /// whatever happens.
    private func ask(app: String, indexName: String, kind: ReindexRequest.Kind, identifiers: [String], type: String?,
                     inPlace: Bool? = nil) throws -> Data {
        var request = ReindexRequest(applicationIdentifier: app, indexName: indexName, kind: kind,
                                     identifiers: identifiers, reason: "asked with spotlight")
        request.typeIdentifier = type
        request.inPlace = inPlace
        let store = ReindexRequestStore(root: root)
        try store.save(request)
        defer { store.remove(request) }
        let file = store.file(of: request)
        let host = ExtensionHost(root: root)
        switch host.run(request, store: store) {
        case .acknowledged:
            guard let reply = FileManager.default.contents(atPath: ReindexRequestStore.replyFile(for: file).path) else {
                throw SystemError("\(app) acknowledged the request but left no answer")
            }
            return reply
        case .noExtension:
            throw SystemError("\(app) registered no extension, so nothing can ask it for \(kind.delegateMethod)")
        case .appNotRegistered:
            throw SystemError("\(app) is not registered")
        case .failed(let why):
            if let said = FileManager.default.contents(atPath: ReindexRequestStore.errorFile(for: file).path) {
                throw SystemError("\(app) could not answer: \(String(decoding: said, as: UTF8.self))")
            }
            throw SystemError(why)
        }
    }
}

/// An item as its app answered `searchableItems(forIdentifiers:)`: identity and the attributes a person reads.
public struct ItemSnapshot: Codable, Sendable, Hashable {
    public var uniqueIdentifier: String
    public var domainIdentifier: String?
    public var contentType: String?
    public var title: String?
    public var displayName: String?
    public var contentDescription: String?
    public var keywords: [String]?

    public init(_ item: CSSearchableItem) {
        uniqueIdentifier = item.uniqueIdentifier
        domainIdentifier = item.domainIdentifier
        contentType = item.attributeSet.contentType
        title = item.attributeSet.title
        displayName = item.attributeSet.displayName
        contentDescription = item.attributeSet.contentDescription
        keywords = item.attributeSet.keywords
    }
}

extension ReindexRequest.Kind {
    /// The delegate method a request calls, for messages.
    var delegateMethod: String {
        switch self {
        case .reindexAll: return "searchableIndex(_:reindexAllSearchableItemsWithAcknowledgementHandler:)"
        case .reindexIdentifiers: return "searchableIndex(_:reindexSearchableItemsWithIdentifiers:acknowledgementHandler:)"
        case .provideData: return "data(for:itemIdentifier:typeIdentifier:)"
        case .provideFile: return "fileURL(for:itemIdentifier:typeIdentifier:inPlace:)"
        case .provideItems: return "searchableItems(forIdentifiers:)"
        }
    }
}
