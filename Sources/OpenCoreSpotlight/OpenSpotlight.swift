import Foundation
import SpotlightEngine

/// Process-wide settings of OpenSpotlight (not part of Apple's API).
public enum OpenSpotlight {
    /// Sets the identifier of the app this process indexes for. Call it before creating any index.
    ///
    /// Without it, the app is `OPENSPOTLIGHT_APP_ID`, else `Bundle.main.bundleIdentifier`, else the executable's
    /// name.
    public static func configure(applicationIdentifier: String) {
        StoreLocation.applicationIdentifier = applicationIdentifier
    }

    /// The identifier of the app this process indexes for.
    public static var applicationIdentifier: String { StoreLocation.applicationIdentifier }

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
