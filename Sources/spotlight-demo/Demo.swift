// The README's demo: index the Debian package corpus (or a built-in sample) with Core Spotlight's API into the
// embedded index, then search it.
//
//   swift run spotlight-demo                 # index (once) and run the sample searches
//   swift run spotlight-demo "text edit"     # search for your own words
//   swift run spotlight-demo --cleanup       # remove the demo's index
//
// The demo keeps its index apart from the apps on this machine (`$XDG_CACHE_HOME/openspotlight-demo`, or
// `$OPENSPOTLIGHT_HOME` when set), so `spotlight` never lists Debian packages among your own results.
import Foundation
import OpenCoreSpotlight

let usage = """
    usage: spotlight-demo [<words>…]     index the Debian packages of ../shared/data once, then search them
                                         (the sample queries, or your words)
           spotlight-demo --cleanup      remove the demo's index
           spotlight-demo --help

    The index lives in $OPENSPOTLIGHT_HOME, else $XDG_CACHE_HOME/openspotlight-demo (~/.cache/openspotlight-demo),
    apart from your apps' search. Set OPENSPOTLIGHT_DATA to the folder holding debian-packages.jsonl.gz.
    """

/// The demo's own root: never the machine-wide one, unless `OPENSPOTLIGHT_HOME` says so.
func demoRoot() -> URL {
    let env = ProcessInfo.processInfo.environment
    if let home = env["OPENSPOTLIGHT_HOME"], !home.isEmpty { return URL(fileURLWithPath: home, isDirectory: true) }
    let cache = env["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0, isDirectory: true) : nil }
        ?? OpenSpotlight.homeDirectory.appendingPathComponent(".cache", isDirectory: true)
    return cache.appendingPathComponent("openspotlight-demo", isDirectory: true)
}

/// Progress for people, on standard error: the results on standard output stay clean.
func progress(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}


// MARK: Find the corpus

func findCorpus() -> URL? {
    let env = ProcessInfo.processInfo.environment
    let cwd = FileManager.default.currentDirectoryPath
    // An explicit OPENSPOTLIGHT_DATA is the only place looked at (without the corpus there: the built-in sample).
    let candidates = env["OPENSPOTLIGHT_DATA"].map { [$0] }
        ?? ["\(cwd)/../shared/data", "\(cwd)/shared/data", "\(cwd)/../../shared/data"]
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
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.contains(where: { ["--help", "-h", "help"].contains($0) }) {
            print(usage)
            return
        }
        if let unknown = arguments.first(where: { $0.hasPrefix("-") && $0 != "--cleanup" }) {
            FileHandle.standardError.write(Data("spotlight-demo: unknown option \(unknown)\n\(usage)\n".utf8))
            exit(2)
        }
        OpenSpotlight.configure(applicationIdentifier: "org.openspotlight.demo")
        let root = demoRoot()
        OpenSpotlight.setRootDirectory(root)
        if arguments == ["--cleanup"] {
            let app = root.appendingPathComponent("apps/org.openspotlight.demo")
            if FileManager.default.fileExists(atPath: app.path) {
                try FileManager.default.removeItem(at: app)
                print("Removed the demo's index (\(app.path)).")
            } else {
                print("The demo has no index at \(app.path); nothing to remove.")
            }
            return
        }

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
            progress("The demo index already holds \(packages.count) items from \(source) (client state matches).")
        } else {
            progress("Indexing \(packages.count) items from \(source) into \(root.path) (apart from your apps' search)…")
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
                let elapsed = Date().timeIntervalSince(start)
                let remaining = elapsed / Double(done) * Double(packages.count - done)
                progress(String(format: "  %d/%d  %.0f s, about %.0f s to go", done, packages.count, elapsed, remaining))
            }
            progress(String(format: "Indexed %d items in %.1f s.", packages.count, Date().timeIntervalSince(start)))
        }

        // MARK: Search

        let queries = !arguments.isEmpty ? [arguments.joined(separator: " ")]
            : ["text editor", "postgres", "python req", "strategy gam", "editr"]
        let search = AppSearch()
        for query in queries {
            let start = Date()
            let results = try search.search(query, limit: 5)
            let ms = Date().timeIntervalSince(start) * 1000
            print("\n\(query)  (\(results.count) shown, \(String(format: "%.1f", ms)) ms)")
            for result in results {
                let attributes = result.item.attributeSet
                print("  \(attributes.title ?? result.uniqueIdentifier) — \(attributes.contentDescription ?? "")")
            }
        }
        let inspector = IndexInspector(index)
        print("\nThe index: \(try inspector.count()) items in \(try inspector.domains().count) domains, "
            + "\(try inspector.diskSize() / 1_048_576) MB at \(inspector.storeURL.path) "
            + "(`spotlight-demo --cleanup` removes it)")
    }
}
