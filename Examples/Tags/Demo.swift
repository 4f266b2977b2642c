import Foundation
import GRDB
import OpenCoreSpotlight
import SpotlightGRDB
#if canImport(Glibc)
import Glibc
#endif

/// `tags demo`: a guided tour in a fresh temporary database and index, removed at the end.
enum Demo {
    static func run() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("tags-demo-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        OpenSpotlight.setRootDirectory(directory.appendingPathComponent("spotlight"))
        let library = try PhotoLibrary(url: directory.appendingPathComponent("tags.sqlite"))
        let spotlight = library.spotlight
        let printer = NotificationPrinter(delegate: spotlight)
        defer { printer.stop() }

        say("1. Start Spotlight indexing, then add six photos in one transaction")
        spotlight.startSpotlightIndexing()
        try await spotlight.processPendingChanges()   // the first start indexes what is there: nothing yet
        try library.addPhotos([
            ("Owachomo Bridge at dawn", ["Natural Bridges State Park", "Utah", "sunrise"]),
            ("Delicate Arch", ["Arches National Park", "Utah", "sunset"]),
            ("Half Dome", ["Yosemite", "California"]),
            ("Golden Gate in the fog", ["San Francisco", "California", "fog"]),
            ("Bryce hoodoos", ["Bryce Canyon", "Utah"]),
            ("Nature walk with Max", ["dog", "nature", "hiking"]),
        ])
        try await spotlight.processPendingChanges()   // indexing runs in the background; wait for it

        say("\n2. Search as the user types “natural”")
        try await TagsApp.printSearch("natural")

        say("\n3. Tag “Half Dome” with “natural wonders”: the photo is re-indexed with its new keywords")
        try library.tag(photo: "Half Dome", "natural wonders")
        try await spotlight.processPendingChanges()
        try await TagsApp.printSearch("natural")

        say("\n4. Stop indexing and add a photo: the change is recorded in the database, not indexed")
        spotlight.stopSpotlightIndexing()
        try library.addPhotos([("Landscape Arch", ["natural arch", "Utah"])])
        try await TagsApp.printSearch("natural")
        say("   Start indexing again: the change is caught up")
        spotlight.startSpotlightIndexing()
        try await spotlight.processPendingChanges()
        try await TagsApp.printSearch("natural")

        say("\n5. Delete the Spotlight index: nothing is found, and the photos are still in the database")
        spotlight.stopSpotlightIndexing()
        try await spotlight.deleteSpotlightIndex()
        try await TagsApp.printSearch("natural")
        say("   \(try library.photos().count) photos in the database")
    }
}

/// Hidden commands for the crash tests: a real process killed between committing and indexing.
enum CrashHelpers {
    /// Kills its own process with SIGKILL while it builds the item of the photo named "crash-here".
    final class CrashingDelegate: GRDBCoreSpotlightDelegate, @unchecked Sendable {
        override func attributeSet(for row: Row, table: String, in db: Database) throws -> CSSearchableItemAttributeSet? {
            if table == "photo", (row["name"] as String?) == "crash-here" {
                kill(getpid(), SIGKILL)
            }
            return try super.attributeSet(for: row, table: table, in: db)
        }
    }

    /// Indexes what is pending, commits `count` photos and a "crash-here" photo in one transaction, prints
    /// "committed", and dies by SIGKILL while indexing them: after the database commit, before the index update.
    static func crashDuringIndexing(databaseURL: URL, count: Int) async throws {
        let library = try PhotoLibrary(url: databaseURL) { try CrashingDelegate(forStoreWith: $0, declaration: $1) }
        library.spotlight.startSpotlightIndexing()
        try await library.spotlight.processPendingChanges()
        say("caught up")
        try library.addPhotos((0..<count).map { ("crash photo \($0)", ["crash", "group \($0 % 7)"]) }
                              + [(name: "crash-here", tags: ["crash"])])
        say("committed")
        try await library.spotlight.processPendingChanges()
        sayError("tags: _crash-during-indexing did not crash")
        exit(3)
    }

    /// Writes forever with indexing on, printing "committed N" after each transaction, until killed.
    static func writeForever(databaseURL: URL, perTransaction: Int) async throws {
        let library = try PhotoLibrary(url: databaseURL)
        library.spotlight.startSpotlightIndexing()
        var round = 0
        while true {
            try library.addPhotos((0..<perTransaction).map { ("photo \(round)-\($0)", ["loop", "round \(round % 5)"]) })
            if round >= 2 {
                try library.remove(photo: "photo \(round - 1)-0")
                try library.tag(photo: "photo \(round - 2)-1", "retagged")
                try library.rename(photo: "photo \(round - 2)-2", to: "renamed \(round - 2)-2")
            }
            round += 1
            say("committed \(round)")
        }
    }
}
