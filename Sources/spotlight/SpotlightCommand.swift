import ArgumentParser
import Foundation
import OpenCoreSpotlight
import SpotlightSystem

#if canImport(Glibc)
import Glibc
#endif

/// `spotlight`: search every app's index on this machine, and continue results in their apps.
@main
struct Spotlight: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spotlight",
        abstract: "Search every app's Core Spotlight index, and open results in their apps.",
        discussion: """
            spotlight brent reid            search (results are numbered)
            spotlight open 1                continue result 1 of the last search in its app
            spotlight -i                    search as you type
            spotlight doctor                check and repair every index
            spotlight data 1                ask result 1's app for its data (a vCard…)
            spotlight backup <app> <file>   copy an index consistently (not cp: data may be in its -wal)
            spotlight public set-server URL opt in to the public index (results "From the web")

            To search for a word that is also a command (open, apps…), use `spotlight search <words>`.

            Indexes live in $OPENSPOTLIGHT_HOME, else $XDG_DATA_HOME/openspotlight; apps register in $XDG_DATA_HOME/applications. See Documentation/System.md.
            """,
        version: "spotlight (OpenSpotlight) \(String(cString: CoreSpotlightVersionString).dropFirst("OpenSpotlight-".count))",
        subcommands: [Search.self, Open.self, Call.self, Directions.self, Apps.self, Query.self, Doctor.self, Reindex.self,
                      ItemData.self, ItemFile.self, ItemFromApp.self, Forget.self, Backup.self, Serve.self, Desktop.self,
                      Public.self],
        defaultSubcommand: Search.self)
}

// MARK: - Shared

func progressLine(_ line: String) {
    FileHandle.standardError.write(Data("spotlight: \(line)\n".utf8))
}

func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

/// A result named on the command line: a number of the last search, or an app and an identifier.
func chosenResult(_ target: [String]) throws -> (result: SystemSearch.Result, query: String?) {
    if target.count == 1, let number = Int(target[0]) {
        let (result, query) = try LastSearch.result(number)
        return (result, query)
    }
    guard target.count == 2 else {
        throw ValidationError("name a result by its number in the last search, or by app and identifier")
    }
    let app = SpotlightApp.find(target[0])?.applicationIdentifier ?? target[0]
    return (try ResultActions.result(app: app, identifier: target[1]), nil)
}

func registeredApp(_ identifier: String) throws -> SpotlightApp {
    guard let app = SpotlightApp.registered(identifier) else {
        throw SystemError("\(identifier) is not registered (no desktop entry with X-OpenSpotlight-AppID=\(identifier) in \(SystemLocations.applicationsDirectory.path)); its results cannot be opened")
    }
    return app
}

/// Continues a payload in its app, or prints what would run.
func continueInApp(_ payload: ContinuationPayload, dryRun: Bool) throws {
    let app = try registeredApp(payload.applicationIdentifier)
    if dryRun {
        let url = try payload.url()
        let command = try DesktopEntry.expandExec(app.exec, url: url, icon: app.icon, name: app.displayName,
                                                  desktopFile: app.desktopFile?.path)
        print(command.joined(separator: " "))
        print(String(decoding: try payload.json(), as: UTF8.self))
        return
    }
    if !app.terminal { progressLine("opening in \(app.displayName)") }
    if let status = try Launcher.continue(payload, in: app), status != 0 {
        throw ExitCode(status)
    }
}

// MARK: - search

struct Search: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Search every app's index (the default command).",
        discussion: "Without words on a terminal, starts the interactive search.")

    @Argument(help: "The words to search for; the last one may be the start of a word.")
    var words: [String] = []

    @Flag(name: [.short, .long], help: "Search as you type; Enter opens the chosen result.")
    var interactive = false

    @Flag(help: "Print the results as JSON.")
    var json = false

    @Option(help: "The most results to show.")
    var limit = 20

    @Option(name: .customLong("app"), help: "Search only this app (identifier or name); repeatable.")
    var apps: [String] = []

    @Flag(help: "Show why each result scored what it did.")
    var explain = false

    @Flag(help: "Do not repair broken or lost indexes before searching.")
    var noRepair = false

    @Option(help: ArgumentHelp("How to mark the words that matched: auto, terminal (bold, underlined), brackets or none.",
                               discussion: "auto: terminal on a terminal, brackets with NO_COLOR or TERM=dumb, none in a pipe."))
    var highlight: HighlightChoice = .auto

    enum HighlightChoice: String, ExpressibleByArgument, CaseIterable {
        case auto, terminal, brackets, none

        var style: TextReport.HighlightStyle {
            switch self {
            case .auto: return .automatic()
            case .terminal: return .terminal
            case .brackets: return .brackets
            case .none: return .none
            }
        }
    }

    mutating func run() async throws {
        var search = SystemSearch()
        search.progress = progressLine
        search.repairsAutomatically = !noRepair
        let only = apps.isEmpty ? nil : Set(try apps.map { try AppInventory.resolve($0) })
        let text = words.joined(separator: " ")
        // Without words on a capable terminal: the interactive search (a dumb terminal gets the plain listing).
        if interactive || (words.isEmpty && !json && InteractiveSearch.isSupported()) {
            // Repairs happen once, before typing starts.
            if !noRepair { _ = search.search("", limit: 1, applications: only) }
            let session = InteractiveSearch(search: search, initialQuery: text)
            session.applications = only
            guard let choice = try session.run() else {
                if session.wasInterrupted { throw ExitCode(130) }
                return
            }
            let outcome = search.search(choice.query, limit: limit, applications: only)
            do { try LastSearch.save(outcome) } catch { progressLine("\(error)") }
            switch choice.action {
            case .open:
                try continueInApp(try Continuation.payload(for: choice.result, query: choice.query), dryRun: false)
            case .call:
                let status = try Launcher.open(uri: try ResultActions.callURI(for: choice.result, phoneIndex: 0))
                if status != 0 { throw ExitCode(status) }
            case .directions:
                let status = try Launcher.open(uri: try ResultActions.directionsURI(for: choice.result))
                if status != 0 { throw ExitCode(status) }
            }
            return
        }
        var outcome = search.search(text, limit: limit, applications: only)
        if only == nil { await addWebResults(to: &outcome, limit: 5) }
        do { try LastSearch.save(outcome) } catch { progressLine("\(error)") }
        for problem in outcome.problems { progressLine(problem) }
        if json {
            try printJSON(outcome)
        } else {
            if words.isEmpty, outcome.somethingIndexed { print("Recently used and suggested:") }
            print(TextReport.searchResults(outcome, explain: explain, highlight: highlight.style), terminator: "")
        }
    }
}

// MARK: - open

struct Open: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Continue a result in its app.",
        discussion: """
            spotlight open 3                          result 3 of the last search
            spotlight open colleagues employee-7      an app's item (or saved activity activity:…)
            spotlight open colleagues --search brent  continue a search in the app
            """)

    @Argument(help: "A result number, or an app and an identifier (or just an app with --search).")
    var target: [String]

    @Option(help: "Continue this search in the app (CSQueryContinuationActionType).")
    var search: String?

    @Flag(help: "Print the command and the activity instead of running them.")
    var dryRun = false

    mutating func run() async throws {
        if let search {
            guard target.count == 1 else { throw ValidationError("with --search, name only the app") }
            guard let app = SpotlightApp.find(target[0]) else { throw SystemError("no registered app named \(target[0])") }
            guard app.supportsSearchContinuation else {
                throw SystemError("\(app.displayName) does not continue searches (X-OpenSpotlight-SearchContinuation)")
            }
            try continueInApp(.search(search, applicationIdentifier: app.applicationIdentifier), dryRun: dryRun)
            return
        }
        if target.count == 1, let number = Int(target[0]), let web = LastSearch.webResult(number) {
            try openWebResult(web, dryRun: dryRun)
            return
        }
        let (result, query) = try chosenResult(target)
        try continueInApp(try Continuation.payload(for: result, query: query), dryRun: dryRun)
    }
}

// MARK: - call, directions

struct Call: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Call a result's phone number through the tel: handler (xdg-open, or $OPENSPOTLIGHT_OPENER).")

    @Argument(help: "A result number, or an app and an identifier.")
    var target: [String]

    @Option(help: "Which of its phone numbers, from 1.")
    var number = 1

    @Flag(help: "Print the tel: URI instead of opening it.")
    var dryRun = false

    mutating func run() async throws {
        let (result, _) = try chosenResult(target)
        let uri = try ResultActions.callURI(for: result, phoneIndex: number - 1)
        if dryRun { print(uri); return }
        let status = try Launcher.open(uri: uri)
        if status != 0 { throw ExitCode(status) }
    }
}

struct Directions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Get directions to a result through the geo: handler (xdg-open, or $OPENSPOTLIGHT_OPENER).")

    @Argument(help: "A result number, or an app and an identifier.")
    var target: [String]

    @Flag(help: "Print the geo: URI instead of opening it.")
    var dryRun = false

    mutating func run() async throws {
        let (result, _) = try chosenResult(target)
        let uri = try ResultActions.directionsURI(for: result)
        if dryRun { print(uri); return }
        let status = try Launcher.open(uri: uri)
        if status != 0 { throw ExitCode(status) }
    }
}

// MARK: - apps

struct Apps: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the apps with indexes: items, activities, sizes.")

    @Flag(help: "Print the list as JSON.")
    var json = false

    mutating func run() async throws {
        let apps = AppInventory.apps()
        if json { try printJSON(apps) } else { print(TextReport.apps(apps), terminator: "") }
    }
}

// MARK: - query

struct Query: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a query in Spotlight's query language over every app's items (CSSearchQuery).",
        discussion: #"Example: spotlight query 'title == "brent*"cd && contentDescription == "*engineering*"c'"#)

    @Argument(help: "The query string.")
    var query: String

    @Option(name: .customLong("app"), help: "Query only this app (identifier or name); repeatable.")
    var apps: [String] = []

    @Option(help: "The most results per app (0: all).")
    var limit = 100

    @Flag(help: "Print the results as JSON.")
    var json = false

    struct Match: Codable {
        var applicationIdentifier: String
        var appDisplayName: String
        var identifier: String
        var domainIdentifier: String?
        var title: String?
        var description: String?
    }

    mutating func run() async throws {
        let registrations = Dictionary(SpotlightApp.all().map { ($0.applicationIdentifier, $0) }, uniquingKeysWith: { a, _ in a })
        let targets = apps.isEmpty
            ? AppInventory.apps().filter { !$0.indexes.isEmpty }.map(\.applicationIdentifier)
            : try apps.map { try AppInventory.resolve($0) }
        var matches: [Match] = []
        for app in targets {
            OpenSpotlight.configure(applicationIdentifier: app)
            let context = CSSearchQueryContext()
            context.fetchAttributes = ["title", "displayName", "contentDescription"]
            let search = CSSearchQuery(queryString: query, queryContext: context)
            var count = 0
            do {
                for try await found in search.results {
                    let item = found.item
                    matches.append(Match(applicationIdentifier: app, appDisplayName: registrations[app]?.displayName ?? app,
                                         identifier: item.uniqueIdentifier, domainIdentifier: item.domainIdentifier,
                                         title: item.attributeSet.title ?? item.attributeSet.displayName,
                                         description: item.attributeSet.contentDescription))
                    count += 1
                    if limit > 0, count >= limit { search.cancel(); break }
                }
            } catch let error as CSSearchQueryError where error.code == .invalidQuery {
                progressLine(error.localizedDescription)
                throw ExitCode(2)
            } catch let error as CSSearchQueryError where error.code == .cancelled {
                continue
            }
        }
        if json { try printJSON(matches); return }
        if targets.isEmpty { print("Nothing is indexed yet."); return }
        if matches.isEmpty { print("No items match."); return }
        var lastApp = ""
        for match in matches {
            if match.applicationIdentifier != lastApp {
                if !lastApp.isEmpty { print() }
                print(match.appDisplayName)
                lastApp = match.applicationIdentifier
            }
            var line = "  \(match.identifier)"
            if let title = match.title { line += "  \(title)" }
            if let description = match.description { line += " — \(description)" }
            print(line)
        }
    }
}

// MARK: - doctor, reindex

struct Doctor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check every index, purge expired items, and rebuild damaged or lost indexes through the apps' reindex extensions.")

    @Flag(help: "Only report; repair nothing.")
    var checkOnly = false

    @Flag(help: "Print the report as JSON.")
    var json = false

    @Flag(help: "Instead of checking: remove the copies of damaged indexes moved aside more than --days days ago.")
    var clean = false

    @Option(help: "With --clean: how old a rescued copy must be, in days.")
    var days = 30

    mutating func run() async throws {
        if clean {
            guard days >= 0 else { throw ValidationError("--days must be 0 or more") }
            let (removed, failures) = QuarantineCleaner.clean(olderThan: days)
            if json { try printJSON(removed) } else {
                let kept = QuarantineCleaner.rescuedFiles().count
                print("Removed \(TextReport.counted(removed.count, "rescued copy", "rescued copies"))"
                    + " (\(TextReport.byteCount(removed.reduce(0) { $0 + $1.bytes })))"
                    + "; \(TextReport.counted(kept, "newer copy", "newer copies")) kept.")
            }
            for failure in failures { progressLine("cannot remove \(failure)") }
            if !failures.isEmpty { throw ExitCode(1) }
            return
        }
        var doctor = IndexDoctor()
        doctor.progress = progressLine
        let report = doctor.examine(repair: !checkOnly)
        if json { try printJSON(report) } else { print(TextReport.doctor(report), terminator: "") }
        let unresolved = report.indexes.contains { $0.status != .ok && $0.action != .rebuilt && $0.action != .reset }
            || report.requests.contains { $0.outcome == "failed" }
        if unresolved { throw ExitCode(1) }
    }
}

struct Reindex: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Ask an app to reindex (like mdutil -cr): all of its indexes, one index, or the given identifiers.")

    @Argument(help: "The app (identifier or name).")
    var app: String

    @Argument(help: "Identifiers to reindex; none: everything.")
    var identifiers: [String] = []

    @Option(help: "The index (default: each index the app has; _default is the default index).")
    var index: String?

    mutating func run() async throws {
        let identifier = try AppInventory.resolve(app)
        guard let registration = SpotlightApp.registered(identifier) else {
            throw SystemError("\(identifier) is not registered, so the system cannot ask it to reindex")
        }
        let indexes = AppInventory.indexNames(of: identifier, ownOnly: true)
        let chosen: [String]
        if let index {
            // Asking for an index the app does not have would make the app create it (and duplicate its items).
            guard indexes.contains(index) || (indexes.isEmpty && index == "_default") else {
                throw SystemError("\(registration.displayName) has no index \"\(index)\""
                    + (indexes.isEmpty ? "" : "; its indexes are: \(indexes.joined(separator: ", "))"))
            }
            chosen = [index]
        } else {
            chosen = indexes.isEmpty ? ["_default"] : indexes
        }
        let store = ReindexRequestStore()
        for name in chosen {
            let request = ReindexRequest(applicationIdentifier: identifier, indexName: name,
                                         kind: identifiers.isEmpty ? .reindexAll : .reindexIdentifiers,
                                         identifiers: identifiers, reason: "requested with spotlight reindex")
            let pending = try store.add(request)
            progressLine("asking \(registration.displayName) to reindex \(name)…")
            switch ExtensionHost().issue(pending, store: store) {
            case .acknowledged: print("\(registration.displayName) reindexed \(name).")
            case .noExtension: print("\(registration.displayName) has no reindex extension; it reindexes at its next launch.")
            case .appNotRegistered: throw SystemError("\(identifier) is not registered")
            case .failed(let why): throw SystemError(why)
            }
        }
    }
}

