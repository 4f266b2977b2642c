import ArgumentParser
import Foundation
import SpotlightSystem

// MARK: - backup

/// `spotlight backup <app> [--index NAME] <destination>`: a consistent copy of an index (SQLite's online backup).
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy an app's index to a file, consistently, while the app may be writing (SQLite's online backup).",
        discussion: """
            spotlight backup colleagues ~/colleagues-backup.sqlite
            spotlight backup com.example.notes --index notes /backups/notes.sqlite

            Copying the .sqlite file is not a backup: committed changes may still be in its -wal file.
            The destination must not exist; the copy is one self-contained file (mode 0600).
            """)

    @Argument(help: "The app (identifier or registered name).")
    var app: String

    @Option(help: "The index (default: the default index, _default).")
    var index = "_default"

    @Argument(help: "The file to write; it must not exist.")
    var destination: String

    mutating func run() async throws {
        let identifier = SpotlightApp.find(app)?.applicationIdentifier ?? app
        let url = URL(fileURLWithPath: destination)
        let summary = try IndexBackup.backup(app: identifier, indexName: index, to: url)
        print("Backed up \(identifier)'s index \(index) (\(summary.items) items, \(summary.bytes) bytes) to \(url.path).")
    }
}
