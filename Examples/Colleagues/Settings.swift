import Foundation
import OpenCoreSpotlight

/// What Colleagues makes searchable, as in the seed's settings screen.
enum IndexingSetting: String, Codable, CaseIterable {
    /// Nothing: every item and activity is deleted.
    case disabled
    /// Only the employees the person viewed, as activities (`NSUserActivity`).
    case viewedRecords = "viewed-records"
    /// Every employee as a Core Spotlight item; viewing one also records an activity related to the item.
    case allRecords = "all-records"
}

/// The app's preferences, in `$XDG_CONFIG_HOME/colleagues/settings.json`.
struct Settings: Codable {
    var indexing: IndexingSetting = .viewedRecords

    static var url: URL {
        let env = ProcessInfo.processInfo.environment
        let base = env["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
            ?? OpenSpotlight.homeDirectory.appendingPathComponent(".config")
        return base.appendingPathComponent("colleagues/settings.json")
    }

    static func load() -> Settings {
        guard let data = FileManager.default.contents(atPath: url.path),
              let settings = try? JSONDecoder().decode(Settings.self, from: data) else { return Settings() }
        return settings
    }

    func save() throws {
        try FileManager.default.createDirectory(at: Self.url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONEncoder().encode(self).write(to: Self.url, options: .atomic)
    }
}
