import ArgumentParser
import Foundation
import OpenCoreSpotlight
import SpotlightSystem

/// The app and item a result names (items only: a saved activity alone has no data to provide).
private func chosenItem(_ target: [String]) throws -> (app: String, identifier: String) {
    let (result, _) = try chosenResult(target)
    guard result.kind == "item" else {
        throw SystemError("result \(result.number) is a visited screen of \(result.appDisplayName), not an item; it has no data or files")
    }
    return (result.applicationIdentifier, result.identifier)
}

// MARK: - data

struct ItemData: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "data",
        abstract: "Ask an item's app for the item's data (as dragging it out of Spotlight does).",
        discussion: """
            The app lists the types it can provide in the item's providerDataTypeIdentifiers; its extension's \
            data(for:itemIdentifier:typeIdentifier:) answers. Without --type, the first (highest-fidelity) type.
            """)

    @Argument(help: "A result number of the last search, or an app and an item identifier.")
    var result: [String]

    @Option(name: .customLong("type"), help: "The uniform type identifier to ask for (e.g. public.vcard).")
    var typeIdentifier: String?

    @Option(name: [.short, .long], help: "Write the data to this file instead of standard output.")
    var output: String?

    mutating func run() async throws {
        let (app, identifier) = try chosenItem(result)
        let (type, data) = try ItemProvider().data(app: app, identifier: identifier, typeIdentifier: typeIdentifier)
        if let output {
            try data.write(to: URL(fileURLWithPath: output))
            progressLine("wrote \(data.count) bytes of \(type) to \(output)")
        } else {
            FileHandle.standardOutput.write(data)
        }
    }
}

// MARK: - file

struct ItemFile: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "file",
        abstract: "Ask an item's app for a file of the item and print its path (as sharing from Spotlight does).",
        discussion: """
            The app lists the types in providerFileTypeIdentifiers (a copy) or providerInPlaceFileTypeIdentifiers \
            (the original, with --in-place); its extension's fileURL(for:itemIdentifier:typeIdentifier:inPlace:) \
            answers.
            """)

    @Argument(help: "A result number of the last search, or an app and an item identifier.")
    var result: [String]

    @Option(name: .customLong("type"), help: "The uniform type identifier to ask for.")
    var typeIdentifier: String?

    @Flag(help: "Ask for the original file rather than a copy.")
    var inPlace = false

    mutating func run() async throws {
        let (app, identifier) = try chosenItem(result)
        let (_, url) = try ItemProvider().fileURL(app: app, identifier: identifier, typeIdentifier: typeIdentifier,
                                                  inPlace: inPlace)
        print(url.path)
    }
}

// MARK: - item

struct ItemFromApp: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "item",
        abstract: "Ask an item's app for its current version of the item (searchableItems(forIdentifiers:)).")

    @Argument(help: "A result number of the last search, or an app and an item identifier.")
    var result: [String]

    @Flag(help: "Print the item as JSON.")
    var json = false

    mutating func run() async throws {
        let (chosen, _) = try chosenResult(result)
        let items = try ItemProvider().items(app: chosen.applicationIdentifier, identifiers: [chosen.identifier],
                                             indexName: chosen.indexName)
        if json {
            try printJSON(items)
            return
        }
        guard let item = items.first else {
            print("\(chosen.appDisplayName) no longer has \(chosen.identifier).")
            return
        }
        print(item.title ?? item.displayName ?? item.uniqueIdentifier)
        if let description = item.contentDescription { print("  \(description)") }
        if let domain = item.domainIdentifier { print("  domain: \(domain)") }
        if let keywords = item.keywords, !keywords.isEmpty { print("  keywords: \(keywords.joined(separator: ", "))") }
    }
}
