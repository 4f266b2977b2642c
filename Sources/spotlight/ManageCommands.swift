import ArgumentParser
import Foundation
import OpenCoreSpotlight
import SpotlightSystem

#if canImport(Glibc)
import Glibc
#endif

// MARK: - forget

struct Forget: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Forget an app (its indexes, activities, engagement and registration) or one of its indexes.",
        discussion: "Asks for confirmation on a terminal; elsewhere --yes is required. Quarantined copies are kept.")

    @Argument(help: "The app (identifier or name).")
    var app: String

    @Option(help: "Forget only this index of the app.")
    var index: String?

    @Flag(name: [.short, .long], help: "Do not ask for confirmation.")
    var yes = false

    @Flag(help: "Print what was forgotten as JSON.")
    var json = false

    mutating func run() async throws {
        let identifier = try AppInventory.resolve(app)
        let plan = try AppRemoval.plan(app: identifier, indexName: index)
        let what = describe(plan)
        if !yes {
            guard isatty(STDIN_FILENO) == 1 else {
                throw SystemError("this would forget \(what); run again with --yes to confirm")
            }
            FileHandle.standardError.write(Data("Forget \(what)? [y/N] ".utf8))
            let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
            guard answer == "y" || answer == "yes" else {
                progressLine("nothing was forgotten")
                throw ExitCode(1)
            }
        }
        let done = try AppRemoval.forget(app: identifier, indexName: index)
        if json { try printJSON(done); return }
        print("Forgot \(describe(done)).")
    }

    private func describe(_ summary: AppRemoval.Summary) -> String {
        let subject = index.map { "the index \"\($0)\" of \(summary.displayName)" }
            ?? "\(summary.displayName) (\(summary.applicationIdentifier))"
        var parts: [String] = []
        if index == nil {
            parts.append(summary.indexes.isEmpty ? "no index"
                : TextReport.counted(summary.indexes.count, "index", "indexes") + " (" + summary.indexes.joined(separator: ", ") + ")")
        }
        parts.append(TextReport.counted(summary.items, "item", "items"))
        parts.append(ByteCountFormatter.string(fromByteCount: Int64(summary.bytes), countStyle: .file))
        if summary.registration != nil { parts.append("its registration") }
        return subject + ": " + parts.joined(separator: ", ")
    }
}
