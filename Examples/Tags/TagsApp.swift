import Foundation
import GRDB
import OpenCoreSpotlight
import SpotlightGRDB
#if canImport(Glibc)
import Glibc
#endif

/// `tags`: the Tags sample app from WWDC21 "Showcase app data in Spotlight", on the command line.
///
/// ```
/// swift run tags demo
/// ```
@main
enum TagsApp {
    static let usage = """
        usage: tags [--database PATH] COMMAND

          add-photo NAME TAG...   add a photo with tags
          tag PHOTO TAG           tag a photo (PHOTO: a name, or #id)
          untag PHOTO TAG         remove a tag from a photo
          rename PHOTO NAME       rename a photo
          rename-tag TAG NAME     rename a tag (re-indexes its photos)
          remove PHOTO            delete a photo
          list                    list the photos and their tags
          search TEXT             search Spotlight for photos with a tag starting with TEXT
          start | stop            start or stop Spotlight indexing (remembered)
          status                  where the database and the index are, and what is pending
          delete-index            delete the Spotlight index (the photos stay)
          demo                    a guided tour, in a fresh temporary database

        The database is PATH, else $TAGS_DATABASE, else $XDG_DATA_HOME/openspotlight-tags/tags.sqlite.
        """

    static func main() async {
        if ProcessInfo.processInfo.environment["OPENSPOTLIGHT_APP_ID"] == nil {
            OpenSpotlight.configure(applicationIdentifier: "com.example.tags")
        }
        var arguments = Array(CommandLine.arguments.dropFirst())
        var databaseURL = defaultDatabaseURL()
        if arguments.first == "--database", arguments.count >= 2 {
            databaseURL = URL(fileURLWithPath: arguments[1])
            arguments.removeFirst(2)
        }
        guard let command = arguments.first else {
            say(usage)
            exit(2)
        }
        do {
            try await run(command, Array(arguments.dropFirst()), databaseURL: databaseURL)
        } catch {
            sayError("tags: \(error)")
            exit(1)
        }
    }

    static func defaultDatabaseURL() -> URL {
        let env = ProcessInfo.processInfo.environment
        if let path = env["TAGS_DATABASE"], !path.isEmpty { return URL(fileURLWithPath: path) }
        let data = env["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
            ?? OpenSpotlight.homeDirectory.appendingPathComponent(".local/share")
        return data.appendingPathComponent("openspotlight-tags/tags.sqlite")
    }

    static func run(_ command: String, _ args: [String], databaseURL: URL) async throws {
        switch command {
        case "demo":
            try await Demo.run()
            return
        case "_crash-during-indexing":
            try await CrashHelpers.crashDuringIndexing(databaseURL: databaseURL, count: Int(args.first ?? "") ?? 100)
            return
        case "_write-forever":
            try await CrashHelpers.writeForever(databaseURL: databaseURL, perTransaction: Int(args.first ?? "") ?? 20)
            return
        case "help", "--help", "-h":
            say(usage)
            return
        default:
            break
        }

        let library = try PhotoLibrary(url: databaseURL)
        let printer = NotificationPrinter(delegate: library.spotlight)
        defer { printer.stop() }
        let indexing = try library.wantsIndexing
        if indexing { library.spotlight.startSpotlightIndexing() }

        func expect(_ n: Int) throws {
            guard args.count >= n else { throw TagsError("\(command): missing arguments\n\n\(usage)") }
        }
        switch command {
        case "add-photo":
            try expect(1)
            let id = try library.addPhotos([(args[0], Array(args.dropFirst()))])[0]
            say("added photo #\(id) \(args[0].debugDescription)")
        case "tag":
            try expect(2)
            try library.tag(photo: args[0], args[1])
            say("tagged \(args[0].debugDescription) with \(args[1].debugDescription)")
        case "untag":
            try expect(2)
            try library.untag(photo: args[0], args[1])
            say("untagged \(args[1].debugDescription) from \(args[0].debugDescription)")
        case "rename":
            try expect(2)
            try library.rename(photo: args[0], to: args[1])
            say("renamed \(args[0].debugDescription) to \(args[1].debugDescription)")
        case "rename-tag":
            try expect(2)
            try library.renameTag(args[0], to: args[1])
            say("renamed tag \(args[0].debugDescription) to \(args[1].debugDescription)")
        case "remove":
            try expect(1)
            try library.remove(photo: args[0])
            say("removed \(args[0].debugDescription)")
        case "list":
            for photo in try library.photos() {
                say("#\(photo.id) \(photo.name)  [\(photo.tags.joined(separator: ", "))]")
            }
        case "search":
            try expect(1)
            if indexing { try await library.spotlight.processPendingChanges() }
            try await printSearch(args.joined(separator: " "))
        case "start":
            try library.setWantsIndexing(true)
            if !indexing { library.spotlight.startSpotlightIndexing() }
            say("Spotlight indexing started")
        case "stop":
            try library.setWantsIndexing(false)
            library.spotlight.stopSpotlightIndexing()
            say("Spotlight indexing stopped; changes are recorded and will be indexed on start")
        case "status":
            let pending = try await library.dbPool.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(GRDBCoreSpotlightDelegate.historyTableName)") ?? 0
            }
            say("database:  \(databaseURL.path)")
            say("store:     \(library.spotlight.storeIdentifier)")
            say("index:     \(library.spotlight.searchableIndexName) under \(OpenSpotlight.rootDirectory.path)")
            say("indexing:  \(indexing ? "on" : "off")")
            say("pending:   \(pending) recorded change(s)")
        case "delete-index":
            library.spotlight.stopSpotlightIndexing()
            try await library.spotlight.deleteSpotlightIndex()
            try library.setWantsIndexing(false)
            say("Spotlight index deleted; the photos are still in the database. `tags start` indexes them again.")
        default:
            throw TagsError("unknown command \(command.debugDescription)\n\n\(usage)")
        }
        // A command-line tool exits right away: index what it changed before it does.
        if library.spotlight.isIndexingEnabled {
            try await library.spotlight.processPendingChanges()
        }
    }

    static func printSearch(_ typed: String) async throws {
        say("search \(typed.debugDescription): (keywords == \"\(typed)*\"cwdt)")
        let found = try await PhotoLibrary.search(typed)
        if found.isEmpty { say("  no photos") }
        for photo in found {
            say("  \(photo.name)  — keywords: \(photo.keywords.joined(separator: ", "))")
        }
    }
}

/// Writes a line to standard output at once (unbuffered, so a parent process sees it before a crash).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func sayError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Prints the delegate's index-update notifications.
final class NotificationPrinter {
    private let observer: NSObjectProtocol

    init(delegate: GRDBCoreSpotlightDelegate) {
        observer = NotificationCenter.default.addObserver(
            forName: GRDBCoreSpotlightDelegate.indexDidUpdateNotification, object: delegate, queue: nil
        ) { notification in
            let store = notification.userInfo?[GRDBCoreSpotlightDelegate.storeIdentifierKey] as? String ?? "?"
            let token = notification.userInfo?[GRDBCoreSpotlightDelegate.historyTokenKey] as? SpotlightHistoryToken
            say("  [spotlight] index updated: store \(store.prefix(8))…, history token \(token?.sequenceNumber ?? -1)")
        }
    }

    func stop() {
        NotificationCenter.default.removeObserver(observer)
    }
}
