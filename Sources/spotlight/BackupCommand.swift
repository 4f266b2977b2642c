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

    @Option(help: "The index (default: the app's index, when it has one; _default is the default index).")
    var index: String?

    @Argument(help: "The file to write; it must not exist.")
    var destination: String

    mutating func run() async throws {
        let identifier = try AppInventory.resolve(app)
        let indexes = AppInventory.indexNames(of: identifier)
        let chosen: String
        if let index {
            guard indexes.contains(index) else {
                throw SystemError("\(app) has no index \"\(index)\"; its indexes are: \(indexes.joined(separator: ", "))")
            }
            chosen = index
        } else {
            let own = AppInventory.indexNames(of: identifier, ownOnly: true)
            guard own.count == 1 else {
                throw SystemError(own.isEmpty ? "\(app) has no index of its own to back up"
                    : "\(app) has several indexes (\(own.joined(separator: ", "))); name one with --index")
            }
            chosen = own[0]
        }
        let url = URL(fileURLWithPath: destination)
        let summary = try IndexBackup.backup(app: identifier, indexName: chosen, to: url)
        print("Backed up \(TextReport.possessive(identifier)) index \(chosen) (\(TextReport.counted(summary.items, "item")), "
            + "\(TextReport.byteCount(summary.bytes))) to \(url.path).")
    }
}
