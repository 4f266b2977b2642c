import Foundation
import SpotlightEngine
import Synchronization

/// Process-wide settings of OpenSpotlight (not part of Apple's API).
public enum OpenSpotlight {
    /// Sets the identifier of the app this process indexes for. Call it before creating any index.
    ///
    /// Without it, the app is `OPENSPOTLIGHT_APP_ID`, else `Bundle.main.bundleIdentifier`, else the executable's
    /// name.
    public static func configure(applicationIdentifier: String) {
        configured.withLock { $0 = applicationIdentifier }
    }

    /// The environment variable naming the app when nothing configured one.
    package static let applicationIdentifierEnvironmentVariable = "OPENSPOTLIGHT_APP_ID"
    private static let configured = Mutex<String?>(nil)

    /// The identifier of the app this process indexes for. App identity is the API layer's: the engine is always
    /// told which app's indexes it works on.
    ///
    /// Decided by this rule, first match wins:
    /// 1. `configure(applicationIdentifier:)`;
    /// 2. the `OPENSPOTLIGHT_APP_ID` environment variable;
    /// 3. `Bundle.main.bundleIdentifier`;
    /// 4. the executable's name.
    public static var applicationIdentifier: String {
        if let app = configured.withLock({ $0 }) { return app }
        if let env = ProcessInfo.processInfo.environment[applicationIdentifierEnvironmentVariable], !env.isEmpty {
            return env
        }
        if let bundle = Bundle.main.bundleIdentifier, !bundle.isEmpty { return bundle }
        return ProcessInfo.processInfo.processName
    }

    /// Forgets a configured application identifier (tests).
    package static func resetApplicationIdentifier() {
        configured.withLock { $0 = nil }
    }

    /// Relocates every index of this process (tests use a temporary directory). `nil` goes back to
    /// `OPENSPOTLIGHT_HOME`, `$XDG_DATA_HOME/openspotlight` or `~/.local/share/openspotlight`.
    public static func setRootDirectory(_ url: URL?) {
        if let url { StoreLocation.rootDirectory = url } else { StoreLocation.resetRootDirectory() }
    }

    /// The directory holding every index.
    public static var rootDirectory: URL { StoreLocation.rootDirectory }

    /// The user's home directory: `$HOME` when absolute, else the password database's (Foundation on Linux reads
    /// only the latter). Every default location under `~` derives from it.
    public static var homeDirectory: URL { StoreLocation.homeDirectory }
}
