import Foundation
import SpotlightSystem

/// The files that put OpenSpotlight into the desktop's search: the D-Bus service that starts the providers on
/// demand, GNOME Shell's search-provider key file, KRunner's D-Bus plugin, the desktop entry GNOME names the
/// provider after (which also opens the search page), and an optional systemd user unit.
public struct DesktopIntegration: Sendable {
    /// The `spotlight` executable the files start (an absolute path).
    public var executable: String
    /// Where data files go: `$XDG_DATA_HOME` (default `~/.local/share`), or `PREFIX/share` for a system install.
    public var dataDirectory: URL
    /// Where the systemd user unit goes: `$XDG_CONFIG_HOME/systemd/user`, or `PREFIX/lib/systemd/user`.
    public var systemdDirectory: URL
    /// Whether to install the systemd user unit (D-Bus activation then goes through systemd).
    public var systemdUnit: Bool

    public static let desktopID = "org.openspotlight.Spotlight.desktop"
    public static let unitName = "openspotlight-search.service"

    /// The user's own directories.
    public static func user(executable: String, systemdUnit: Bool = false) -> DesktopIntegration {
        let environment = ProcessInfo.processInfo.environment
        let home = URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory())
        let data = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
            ?? home.appendingPathComponent(".local/share")
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
            ?? home.appendingPathComponent(".config")
        return DesktopIntegration(executable: executable, dataDirectory: data,
                                  systemdDirectory: config.appendingPathComponent("systemd/user"), systemdUnit: systemdUnit)
    }

    /// Every user's: under `prefix` (default `/usr/local`), where GNOME Shell looks for search providers.
    public static func system(executable: String, prefix: URL = URL(fileURLWithPath: "/usr/local"),
                              systemdUnit: Bool = false) -> DesktopIntegration {
        DesktopIntegration(executable: executable, dataDirectory: prefix.appendingPathComponent("share"),
                           systemdDirectory: prefix.appendingPathComponent("lib/systemd/user"), systemdUnit: systemdUnit)
    }

    /// A file to write: where, and what.
    public struct File: Sendable, Hashable {
        public var url: URL
        public var contents: String
    }

    /// The executable as it goes on an `Exec` line (quoted per the Desktop Entry specification when needed).
    private var quotedExecutable: String {
        let special = CharacterSet(charactersIn: " \t\n\"'\\><~|&;$*?#()`")
        guard executable.unicodeScalars.contains(where: special.contains) else { return executable }
        var escaped = ""
        for character in executable {
            if "\"`$\\".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return "\"" + escaped + "\""
    }

    /// What an install writes.
    public var files: [File] {
        let exec = quotedExecutable
        var service = """
            [D-BUS Service]
            Name=\(SearchProviders.busName)
            Exec=\(exec) serve --dbus

            """
        if systemdUnit { service += "SystemdService=\(Self.unitName)\n" }
        var files = [
            File(url: dataDirectory.appendingPathComponent("dbus-1/services/\(SearchProviders.busName).service"),
                 contents: service),
            File(url: dataDirectory.appendingPathComponent("gnome-shell/search-providers/\(SearchProviders.busName).ini"),
                 contents: """
                    [Shell Search Provider]
                    DesktopId=\(Self.desktopID)
                    BusName=\(SearchProviders.busName)
                    ObjectPath=\(SearchProviders.gnomeObjectPath)
                    Version=2

                    """),
            File(url: dataDirectory.appendingPathComponent("krunner/dbusplugins/\(SearchProviders.busName).desktop"),
                 contents: """
                    [Desktop Entry]
                    Name=Spotlight
                    Comment=Items and activities of every app's Core Spotlight index
                    Icon=system-search
                    X-KDE-ServiceTypes=Plasma/Runner
                    Type=Service
                    X-KDE-PluginInfo-Name=\(SearchProviders.busName)
                    X-KDE-PluginInfo-Author=OpenSpotlight
                    X-KDE-PluginInfo-License=Apache-2.0
                    X-KDE-PluginInfo-Version=1.0
                    X-KDE-PluginInfo-EnabledByDefault=true
                    X-Plasma-API=DBus
                    X-Plasma-DBusRunner-Service=\(SearchProviders.busName)
                    X-Plasma-DBusRunner-Path=\(SearchProviders.krunnerObjectPath)

                    """),
            File(url: dataDirectory.appendingPathComponent("applications/\(Self.desktopID)"),
                 contents: """
                    [Desktop Entry]
                    Type=Application
                    Name=Spotlight
                    GenericName=Search
                    Comment=Search every app's Core Spotlight index
                    Exec=\(exec) serve --open
                    Icon=system-search
                    Terminal=false
                    Categories=Utility;
                    Keywords=search;spotlight;find;

                    """),
        ]
        if systemdUnit {
            files.append(File(url: systemdDirectory.appendingPathComponent(Self.unitName), contents: """
                [Unit]
                Description=OpenSpotlight search providers for GNOME Shell and KRunner
                Documentation=man:spotlight(1)

                [Service]
                Type=dbus
                BusName=\(SearchProviders.busName)
                ExecStart=\(exec) serve --dbus

                """))
        }
        return files
    }

    /// Every file an install may have written (the unit too), for uninstalling.
    public var allPaths: [URL] {
        var all = self
        all.systemdUnit = true
        return all.files.map(\.url)
    }

    /// Writes the files (atomically, creating their directories).
    @discardableResult
    public func install() throws -> [URL] {
        var written: [URL] = []
        for file in files {
            do {
                try FileManager.default.createDirectory(at: file.url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(file.contents.utf8).write(to: file.url, options: .atomic)
            } catch {
                throw SystemError("cannot write \(file.url.path): \(error.localizedDescription)")
            }
            written.append(file.url)
        }
        return written
    }

    /// Removes what an install wrote; returns the files that were there.
    @discardableResult
    public func uninstall() throws -> [URL] {
        var removed: [URL] = []
        for url in allPaths where FileManager.default.fileExists(atPath: url.path) {
            do {
                try FileManager.default.removeItem(at: url)
            } catch {
                throw SystemError("cannot remove \(url.path): \(error.localizedDescription)")
            }
            removed.append(url)
        }
        return removed
    }
}
