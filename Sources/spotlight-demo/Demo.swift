// The README's demo: index the Debian package corpus (or a built-in sample) with Core Spotlight's API into the
// embedded index, then search it.
//
//   swift run spotlight-demo                 # index (once) and run the sample searches
//   swift run spotlight-demo "text edit"     # search for your own words
import Foundation
import OpenCoreSpotlight


// MARK: Find the corpus

func findCorpus() -> URL? {
    let env = ProcessInfo.processInfo.environment
    var candidates: [String] = []
    if let dir = env["OPENSPOTLIGHT_DATA"] { candidates.append(dir) }
    let cwd = FileManager.default.currentDirectoryPath
    candidates += ["\(cwd)/../shared/data", "\(cwd)/shared/data", "\(cwd)/../../shared/data"]
    for dir in candidates {
        let url = URL(fileURLWithPath: dir).appendingPathComponent("debian-packages.jsonl.gz")
        if FileManager.default.fileExists(atPath: url.path) { return url.standardizedFileURL }
    }
    return nil
}

struct Package {
    var name, summary, description, section, homepage, maintainer: String
    var tags: [String]
}

func loadDebian(_ url: URL) throws -> [Package] {
    let zcat = Process()
    zcat.executableURL = URL(fileURLWithPath: "/bin/sh")
    zcat.arguments = ["-c", "exec zcat \"$0\"", url.path]
    let pipe = Pipe()
    zcat.standardOutput = pipe
    try zcat.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    zcat.waitUntilExit()
    var packages: [Package] = []
    for line in data.split(separator: UInt8(ascii: "\n")) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else { continue }
        packages.append(Package(
            name: object["name"] as? String ?? "", summary: object["summary"] as? String ?? "",
            description: object["description"] as? String ?? "", section: object["section"] as? String ?? "misc",
            homepage: object["homepage"] as? String ?? "", maintainer: object["maintainer"] as? String ?? "",
            tags: object["tags"] as? [String] ?? []))
    }
    return packages
}

let sample: [Package] = [
    ("vim", "Vi IMproved - enhanced vi editor", "editors"), ("emacs", "GNU Emacs editor", "editors"),
    ("nano", "small, friendly text editor inspired by Pico", "editors"),
    ("postgresql", "object-relational SQL database", "database"), ("sqlite3", "Command line interface for SQLite 3", "database"),
    ("python3", "interactive high-level object-oriented language", "python"),
    ("python3-requests", "elegant and simple HTTP library for Python3, built for human beings", "python"),
    ("0ad", "Real-time strategy game of ancient warfare", "games"), ("supertux", "Classic 2D jump 'n run sidescroller with Tux", "games"),
    ("gimp", "GNU Image Manipulation Program", "graphics"), ("inkscape", "vector-based drawing program", "graphics"),
    ("ripgrep", "Recursively searches directories for a regex pattern", "utils"),
].map { Package(name: $0.0, summary: $0.1, description: $0.1, section: $0.2, homepage: "", maintainer: "Debian", tags: []) }

@main
struct Demo {
    static func main() async throws {
        OpenSpotlight.configure(applicationIdentifier: "org.openspotlight.demo")

        // MARK: Index (once: the batch's client state remembers what was indexed)

        let index = CSSearchableIndex(name: "debian")
        let corpus = findCorpus()
        let packages: [Package]
        let source: String
        if let corpus {
            packages = try loadDebian(corpus)
            source = "Debian 12 packages from \(corpus.lastPathComponent)"
        } else {
            packages = sample
            source = "the built-in sample (set OPENSPOTLIGHT_DATA to the folder with debian-packages.jsonl.gz for the full corpus)"
        }
        let stateToken = Data("debian:\(packages.count):v1".utf8)
        let stored = try await index.fetchLastClientState()
        if stored == stateToken {
            print("Index already holds \(packages.count) items from \(source) (client state matches).")
        } else {
            print("Indexing \(packages.count) items from \(source)…")
            let start = Date()
            try await index.deleteAllSearchableItems()
            var done = 0
            for chunk in stride(from: 0, to: packages.count, by: 5_000) {
                let slice = packages[chunk..<min(chunk + 5_000, packages.count)]
                index.beginBatch()
                index.indexSearchableItems(slice.map { package in
                    let attributes = CSSearchableItemAttributeSet(contentType: .text)
                    attributes.title = package.name
                    attributes.displayName = package.name
                    attributes.contentDescription = package.summary
                    attributes.textContent = package.description
                    attributes.keywords = package.tags
                    attributes.authorNames = [package.maintainer]
                    if let url = URL(string: package.homepage), !package.homepage.isEmpty { attributes.contentURL = url }
                    let item = CSSearchableItem(uniqueIdentifier: package.name, domainIdentifier: package.section,
                                                attributeSet: attributes)
                    item.expirationDate = .distantFuture
                    return item
                }, completionHandler: nil)
                done += slice.count
                let last = done == packages.count
                try await index.endBatch(withClientState: last ? stateToken : Data("partial:\(done)".utf8))
                print("  \(done)/\(packages.count)")
            }
            print(String(format: "Indexed %d items in %.1f s.", packages.count, Date().timeIntervalSince(start)))
        }

        // MARK: Search

        let queries = CommandLine.arguments.count > 1 ? [CommandLine.arguments.dropFirst().joined(separator: " ")]
            : ["text editor", "postgres", "python req", "strategy gam", "editr"]
        let search = AppSearch()
        for query in queries {
            let start = Date()
            let results = try search.search(query, limit: 5)
            let ms = Date().timeIntervalSince(start) * 1000
            print("\n\(query)  (\(results.count) shown, \(String(format: "%.1f", ms)) ms)")
            for result in results {
                let attributes = result.item.attributeSet
                print("  \(attributes.title ?? result.stored.uniqueIdentifier) — \(attributes.contentDescription ?? "")")
            }
        }
        let inspector = IndexInspector(index)
        print("\nThe index: \(try inspector.count()) items in \(try inspector.domains().count) domains, "
            + "\(try inspector.diskSize() / 1_048_576) MB at \(inspector.storeURL.path)")
    }
}
