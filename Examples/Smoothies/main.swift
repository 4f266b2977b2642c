// Smoothies: the seed's sample app as a command-line program. It indexes its menu in a named index, in a batch
// whose client state lets the next launch skip indexing; ordering a smoothie updates its lastUsedDate; its own
// search uses CSUserQuery, where choosing a result (engagement) moves it up; the system continues a result by
// showing that smoothie.

import Foundation
import OpenCoreSpotlight
import SpotlightSystem

OpenSpotlight.configure(applicationIdentifier: "com.example.smoothies")

await IndexExtensionRunner.handleLaunchArguments(CommandLine.arguments, handler: SmoothiesIndexExtension())

do {
    try SpotlightApp.register(displayName: "Smoothies", icon: "applications-food", comment: "Smoothie recipes",
                              terminal: true, noDisplay: true,
                              supportsSearchContinuation: true)
} catch {
    log("could not register with the system: \(error)")
}

/// When each smoothie was last ordered, in `$XDG_STATE_HOME/smoothies/orders.json` (state, not configuration).
enum Orders {
    static var url: URL {
        let env = ProcessInfo.processInfo.environment
        let base = env["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
            ?? OpenSpotlight.homeDirectory.appendingPathComponent(".local/state")
        return base.appendingPathComponent("smoothies/orders.json")
    }

    static func load() -> [String: Date] {
        guard let data = FileManager.default.contents(atPath: url.path) else { return [:] }
        return (try? JSONDecoder().decode([String: Date].self, from: data)) ?? [:]
    }

    static func record(_ id: String, at date: Date) throws {
        var orders = load()
        orders[id] = date
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONEncoder().encode(orders).write(to: url, options: .atomic)
    }
}

func show(_ smoothie: Smoothie) {
    print(smoothie.recipe)
}

/// Orders a smoothie: its item's lastUsedDate is updated (isUpdate keeps every other attribute), which raises it
/// in searches.
func order(_ smoothie: Smoothie) async throws {
    let now = Date()
    let attributes = CSSearchableItemAttributeSet(contentType: .content)
    attributes.lastUsedDate = now
    let update = CSSearchableItem(uniqueIdentifier: smoothie.id, domainIdentifier: "menu", attributeSet: attributes)
    update.isUpdate = true
    try await CSSearchableIndex(name: MenuIndexer.indexName).indexSearchableItems([update])
    try Orders.record(smoothie.id, at: now)
    print("Ordered \(smoothie.title).")
}

/// The in-app search: a CSUserQuery with ranked results and suggestions. With `engage`, reports that the person
/// chose that result, which raises it for this query (and a little for every query) from then on.
func search(_ text: String, engage: String?) async throws {
    let context = CSUserQueryContext(currentSuggestion: nil)
    context.fetchAttributes = ["title", "contentDescription"]
    context.enableRankedResults = true
    context.maxSuggestionCount = 3
    let query = CSUserQuery(userQueryString: text, userQueryContext: context)
    var items: [CSUserQuery.Item] = []
    var suggestions: [CSUserQuery.Suggestion] = []
    for try await response in query.responses {
        switch response {
        case .item(let item): items.append(item)
        case .suggestion(let suggestion): suggestions.append(suggestion)
        }
    }
    items.sort(by: <)
    if items.isEmpty { print("No smoothies match \"\(text)\".") }
    for (i, item) in items.enumerated() {
        let set = item.item.attributeSet
        print("\(i + 1). \(set.title ?? item.id) (\(item.id)) — \(set.contentDescription ?? "")")
    }
    for suggestion in suggestions.sorted(by: <) {
        print("→ \(String(suggestion.suggestion.localizedAttributedSuggestion.characters))")
    }
    if let engage {
        guard let chosen = items.first(where: { $0.id == engage }) ?? Int(engage).flatMap({ items.indices.contains($0 - 1) ? items[$0 - 1] : nil }) else {
            print("\(engage) is not among the results.")
            exit(1)
        }
        query.userEngaged(chosen, visibleItems: items, interaction: .select)
        print("Chose \(chosen.item.attributeSet.title ?? chosen.id).")
    }
}

let continuation = ContinuationHandler()
continuation.onContinueUserActivity(CSSearchableItemActionType) { activity in
    guard let id = activity.userInfo?[CSSearchableItemActivityIdentifier] as? String, let smoothie = Menu.smoothie(id: id) else {
        print("That smoothie is no longer on the menu.")
        return
    }
    show(smoothie)
}
continuation.onContinueUserActivity(CSQueryContinuationActionType) { activity in
    let text = activity.userInfo?[CSSearchQueryString] as? String ?? ""
    try? await search(text, engage: nil)
}

var arguments = Array(CommandLine.arguments.dropFirst())
let isHelp = arguments.first.map { ["help", "--help", "-h"].contains($0) } ?? false

// Keep the index in step with the menu; the client state makes this a no-op when nothing changed (and then
// nothing is said).
if !isHelp {
    do {
        if try await MenuIndexer.syncMenu() {
            log("indexed \(Menu.all.count) smoothies (menu version \(Menu.version))")
        }
    } catch {
        log("could not index the menu: \(error)")
    }
}

if ContinuationHandler.containsContinuation(CommandLine.arguments) {
    exit(await continuation.handleLaunchArguments(CommandLine.arguments) ? 0 : 1)
}

await IndexExtensionRunner.processPendingRequests(delegate: SmoothiesIndexExtension())

let usage = """
    usage: smoothies [list]                       the menu, most recently ordered first
           smoothies show <id or title>
           smoothies order <id or title>          updates the smoothie's lastUsedDate
           smoothies search <words> [--engage <id or number>]
           smoothies reindex                      index the whole menu again
           smoothies --continue-activity <payload>   (what `spotlight open` runs)
    """

let command = arguments.isEmpty ? "list" : arguments.removeFirst()
do {
    switch command {
    case "list":
        let orders = Orders.load()
        let sorted = Menu.all.sorted {
            let a = orders[$0.id] ?? .distantPast, b = orders[$1.id] ?? .distantPast
            return a != b ? a > b : $0.title < $1.title
        }
        for smoothie in sorted {
            print("\(smoothie.title) (\(smoothie.id))\(orders[smoothie.id] == nil ? "" : " — ordered")")
        }
    case "show", "order":
        let name = arguments.joined(separator: " ")
        guard let smoothie = Menu.find(name) else {
            print("No smoothie named \"\(name)\".")
            exit(1)
        }
        if command == "show" { show(smoothie) } else { try await order(smoothie) }
    case "search":
        var engage: String?
        if let i = arguments.firstIndex(of: "--engage"), i + 1 < arguments.count {
            engage = arguments[i + 1]
            arguments.removeSubrange(i...(i + 1))
        }
        try await search(arguments.joined(separator: " "), engage: engage)
    case "reindex":
        try await MenuIndexer.indexMenu(into: CSSearchableIndex(name: MenuIndexer.indexName))
        print("Indexed \(Menu.all.count) smoothies.")
    case "help", "--help", "-h":
        print(usage)
    default:
        FileHandle.standardError.write(Data("smoothies: unknown command \"\(command)\"\n\(usage)\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("smoothies: \(error)\n".utf8))
    exit(1)
}
