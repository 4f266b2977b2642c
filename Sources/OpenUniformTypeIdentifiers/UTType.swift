// Where Apple ships UniformTypeIdentifiers (every Darwin platform) this module re-exports it; elsewhere it declares
// `UTType`. `canImport(Darwin)`, not `canImport(UniformTypeIdentifiers)`: on Linux this package has a module of
// that name itself (re-exporting this one).
#if !canImport(Darwin)
import Foundation
import Synchronization

/// A uniform type identifier: the type of a file or of in-memory data, and the types it conforms to.
///
/// Linux has no UniformTypeIdentifiers framework, so OpenSpotlight declares `UTType` itself, with Apple's
/// names, the system-declared types Apple lists in `UTCoreTypes.h` and their conformances:
///
/// ```swift
/// let attributes = CSSearchableItemAttributeSet(contentType: .jpeg)
/// UTType.jpeg.conforms(to: .image)                 // true
/// UTType(filenameExtension: "png") == .png         // true
/// UTType("public.m3u-playlist")?.supertypes        // .text, .playlist, .data, .content, .item
/// ```
///
/// On Apple platforms this file re-exports the real framework instead.
///
/// Apple: <https://developer.apple.com/documentation/uniformtypeidentifiers/uttype-swift.struct>
public struct UTType: Hashable, Sendable, Codable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The type's identifier, such as `public.jpeg`.
    ///
    /// Apple: <https://developer.apple.com/documentation/uniformtypeidentifiers/uttype-swift.struct/identifier>
    public let identifier: String

    /// A type with this identifier, declared or not. Conformance and tags come from the declaration table.
    internal init(_identifier identifier: String) {
        self.identifier = identifier
    }

    /// Creates the type with the given identifier; `nil` if no such type is declared.
    ///
    /// Identifiers are compared case-insensitively. Types are declared by the system table below, by
    /// `init(exportedAs:conformingTo:)` and `init(importedAs:conformingTo:)`, and (as `dyn.…` identifiers) by the
    /// tag initializers.
    ///
    /// Apple: <https://developer.apple.com/documentation/uniformtypeidentifiers/uttype-swift.struct/init(_:)>
    public init?(_ identifier: String) {
        guard let declaration = _UTTypeRegistry.declaration(for: identifier) else { return nil }
        self.init(_identifier: declaration.identifier)
    }

    /// Creates a type that your app owns (exports), conforming to `parentType` (to nothing when `nil`).
    ///
    /// On Apple platforms the type must be declared in the app's Info.plist.
    ///
    /// Apple: <https://developer.apple.com/documentation/uniformtypeidentifiers/uttype-swift.struct/init(exportedas:conformingto:)>
    public init(exportedAs identifier: String, conformingTo parentType: UTType? = nil) {
        // Deviation: Linux has no Info.plist type declarations, so this initializer declares the type for the
        // process (its identifier and its parent); a declaration already made is kept.
        self.init(_declaring: identifier, conformingTo: parentType)
    }

    /// Creates a type that your app uses but does not own (imports), conforming to `parentType` (to nothing when
    /// `nil`).
    ///
    /// Apple: <https://developer.apple.com/documentation/uniformtypeidentifiers/uttype-swift.struct/init(importedas:conformingto:)>
    public init(importedAs identifier: String, conformingTo parentType: UTType? = nil) {
        // Deviation: as `init(exportedAs:conformingTo:)`, the type is declared for the process.
        self.init(_declaring: identifier, conformingTo: parentType)
    }

    private init(_declaring identifier: String, conformingTo parentType: UTType?) {
        let declaration = _UTTypeRegistry.declareIfNeeded(
            _UTTypeDeclaration(identifier, parentType.map { [$0.identifier] } ?? [], description: nil)
        )
        self.init(_identifier: declaration.identifier)
    }

    /// Creates the type for a tag (a filename extension or a MIME type) that conforms to `supertype`.
    ///
    /// Returns the first declared type with that tag which conforms to `supertype`; when there is none, a dynamic
    /// type (`isDynamic`, identifier `dyn.…`) carrying the tag. `nil` for an empty tag.
    ///
    /// Apple: <https://developer.apple.com/documentation/uniformtypeidentifiers/uttype-swift.struct/init(tag:tagclass:conformingto:)>
    public init?(tag: String, tagClass: UTTagClass, conformingTo supertype: UTType?) {
        guard !tag.isEmpty else { return nil }
        if let declared = Self.types(tag: tag, tagClass: tagClass, conformingTo: supertype).first {
            self = declared
            return
        }
        // Deviation: dynamic identifiers are "dyn.h" + the hex digits of "tagClass=tag;supertype" in UTF-8, not
        // Apple's private base-32 encoding; they round-trip through `UTType(_:)` within the process.
        let parent = supertype?.identifier ?? "public.data"
        let hex = "\(tagClass.rawValue)=\(tag.lowercased());\(parent.lowercased())".utf8
            .map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
            .joined()
        var tags: [UTTagClass: [String]] = [:]
        tags[tagClass] = [tagClass == .filenameExtension ? tag : tag.lowercased()]
        let declaration = _UTTypeRegistry.declareIfNeeded(
            _UTTypeDeclaration("dyn.h" + hex, [parent], tags: tags, description: nil)
        )
        self.init(_identifier: declaration.identifier)
    }

    /// Creates the type for a filename extension (without the dot) that conforms to `supertype`.
    ///
    /// Apple: <https://developer.apple.com/documentation/uniformtypeidentifiers/uttype-swift.struct/init(filenameextension:conformingto:)>
    public init?(filenameExtension: String, conformingTo supertype: UTType = .data) {
        self.init(tag: filenameExtension, tagClass: .filenameExtension, conformingTo: supertype)
    }

    /// Creates the type for a MIME type that conforms to `supertype`.
    ///
    /// Apple: <https://developer.apple.com/documentation/uniformtypeidentifiers/uttype-swift.struct/init(mimetype:conformingto:)>
    public init?(mimeType: String, conformingTo supertype: UTType = .data) {
        self.init(tag: mimeType, tagClass: .mimeType, conformingTo: supertype)
    }

    /// Every declared type with the given tag that conforms to `supertype`, in declaration order.
    ///
    /// Apple: <https://developer.apple.com/documentation/uniformtypeidentifiers/uttype-swift.struct/types(tag:tagclass:conformingto:)>
    public static func types(tag: String, tagClass: UTTagClass, conformingTo supertype: UTType?) -> [UTType] {
        _UTTypeRegistry.declarations(withTag: tag, tagClass: tagClass)
            .map { UTType(_identifier: $0.identifier) }
            .filter { type in supertype.map { type.conforms(to: $0) } ?? true }
    }

    private var declaration: _UTTypeDeclaration? { _UTTypeRegistry.declaration(for: identifier) }

    /// The preferred filename extension of the type, without the dot.
    ///
    /// Apple: <https://developer.apple.com/documentation/uniformtypeidentifiers/uttype-swift.struct/preferredfilenameextension>
    public var preferredFilenameExtension: String? { tags[.filenameExtension]?.first }

    /// The preferred MIME type of the type.
    ///
    /// Apple: <https://developer.apple.com/documentation/uniformtypeidentifiers/uttype-swift.struct/preferredmimetype>
    public var preferredMIMEType: String? { tags[.mimeType]?.first }

    /// The tags of the type: filename extensions and MIME types, preferred first.
    ///
    /// Apple: <https://developer.apple.com/documentation/uniformtypeidentifiers/uttype-swift.struct/tags>
    public var tags: [UTTagClass: [String]] { declaration?.tags ?? [:] }

    /// A description of the type for display, such as "JPEG image".
    ///
    /// Deviation: descriptions are in English only.
    ///
    /// Apple: <https://developer.apple.com/documentation/uniformtypeidentifiers/uttype-swift.struct/localizeddescription>
    public var localizedDescription: String? { declaration?.description }

    /// The version of the type's declaration; always `nil` here.
    ///
    /// Apple: <https://developer.apple.com/documentation/uniformtypeidentifiers/uttype-swift.struct/version>
    public var version: NSNumber? { nil }

    /// A URL with more information about the type; always `nil` here.
    ///
    /// Apple: <https://developer.apple.com/documentation/uniformtypeidentifiers/uttype-swift.struct/referenceurl>
    public var referenceURL: URL? { nil }

    /// Whether the type was made up for a tag that no declared type has.
    ///
    /// Apple: <https://developer.apple.com/documentation/uniformtypeidentifiers/uttype-swift.struct/isdynamic>
    public var isDynamic: Bool { identifier.lowercased().hasPrefix("dyn.") }

    /// Whether the type is declared: system-declared, or declared by `init(exportedAs:)` / `init(importedAs:)`.
    ///
    /// Apple: <https://developer.apple.com/documentation/uniformtypeidentifiers/uttype-swift.struct/isdeclared>
    public var isDeclared: Bool { !isDynamic && declaration != nil }

    /// Whether the type is in the `public.` domain.
    ///
    /// Apple: <https://developer.apple.com/documentation/uniformtypeidentifiers/uttype-swift.struct/ispublic>
    public var isPublic: Bool { identifier.lowercased().hasPrefix("public.") }

    /// Whether the type is `type` or conforms to it, directly or through its supertypes.
    ///
    /// Apple: <https://developer.apple.com/documentation/uniformtypeidentifiers/uttype-swift.struct/conforms(to:)>
    public func conforms(to type: UTType) -> Bool {
        self == type || supertypes.contains(type)
    }

    /// Whether `type` conforms to this type and is a different type.
    ///
    /// Apple: <https://developer.apple.com/documentation/uniformtypeidentifiers/uttype-swift.struct/issupertype(of:)>
    public func isSupertype(of type: UTType) -> Bool {
        self != type && type.conforms(to: self)
    }

    /// Whether this type conforms to `type` and is a different type.
    ///
    /// Apple: <https://developer.apple.com/documentation/uniformtypeidentifiers/uttype-swift.struct/issubtype(of:)>
    public func isSubtype(of type: UTType) -> Bool {
        self != type && conforms(to: type)
    }

    /// Every type this type conforms to, directly or indirectly, not including itself.
    ///
    /// Apple: <https://developer.apple.com/documentation/uniformtypeidentifiers/uttype-swift.struct/supertypes>
    public var supertypes: Set<UTType> {
        var result: Set<UTType> = []
        var pending = declaration?.parents ?? []
        while let next = pending.popLast() {
            let type = UTType(_identifier: _UTTypeRegistry.declaration(for: next)?.identifier ?? next)
            guard type != self, result.insert(type).inserted else { continue }
            pending += _UTTypeRegistry.declaration(for: next)?.parents ?? []
        }
        return result
    }

    public var description: String { identifier }

    public var debugDescription: String { "\(identifier) (\(localizedDescription ?? "undeclared"))" }

    // Uniform type identifiers are case-insensitive.
    public static func == (lhs: UTType, rhs: UTType) -> Bool {
        lhs.identifier.lowercased() == rhs.identifier.lowercased()
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(identifier.lowercased())
    }

    // Encoded as the bare identifier string.
    public init(from decoder: any Decoder) throws {
        let identifier = try decoder.singleValueContainer().decode(String.self)
        self = UTType(identifier) ?? UTType(_unknownIdentifier: identifier)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(identifier)
    }
}

/// A kind of tag that maps to types: filename extensions or MIME types.
///
/// Apple: <https://developer.apple.com/documentation/uniformtypeidentifiers/uttagclass>
public struct UTTagClass: RawRepresentable, Hashable, Sendable {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Filename extensions, such as `jpg`.
    public static let filenameExtension = UTTagClass(rawValue: "public.filename-extension")
    /// MIME types, such as `image/jpeg`.
    public static let mimeType = UTTagClass(rawValue: "public.mime-type")
}

// MARK: - System-declared types

extension UTType {
    // Abstract base types
    /// A generic base type for most things: files, directories. `public.item`
    public static let item = UTType(_identifier: "public.item")
    /// A base type for anything with user-viewable content. `public.content`
    public static let content = UTType(_identifier: "public.content")
    /// A base type for content that mixes embedded content (compound documents). `public.composite-content`
    public static let compositeContent = UTType(_identifier: "public.composite-content")
    /// A data item mountable as a volume. `public.disk-image`
    public static let diskImage = UTType(_identifier: "public.disk-image")

    // Concrete base types
    /// A byte stream: files and in-memory data. `public.data`
    public static let data = UTType(_identifier: "public.data")
    /// A file-system directory, packages and folders included. `public.directory`
    public static let directory = UTType(_identifier: "public.directory")
    /// A resolvable reference: symbolic links and aliases. `com.apple.resolvable`
    public static let resolvable = UTType(_identifier: "com.apple.resolvable")
    /// A symbolic link. `public.symlink`
    public static let symbolicLink = UTType(_identifier: "public.symlink")
    /// An executable item. `public.executable`
    public static let executable = UTType(_identifier: "public.executable")
    /// A volume mount point. `com.apple.mount-point`
    public static let mountPoint = UTType(_identifier: "com.apple.mount-point")
    /// An alias file. `com.apple.alias-file`
    public static let aliasFile = UTType(_identifier: "com.apple.alias-file")
    /// A URL bookmark. `com.apple.bookmark`
    public static let urlBookmarkData = UTType(_identifier: "com.apple.bookmark")

    // URLs
    /// Any URL. `public.url`
    public static let url = UTType(_identifier: "public.url")
    /// A `file:` URL. `public.file-url`
    public static let fileURL = UTType(_identifier: "public.file-url")

    // Text
    /// All text-encoded data, markup included. `public.text`
    public static let text = UTType(_identifier: "public.text")
    /// Text with no markup, encoding unspecified. `public.plain-text`
    public static let plainText = UTType(_identifier: "public.plain-text")
    /// Plain text in UTF-8. `public.utf8-plain-text`
    public static let utf8PlainText = UTType(_identifier: "public.utf8-plain-text")
    /// Plain text in UTF-16 with a BOM, or big-endian without one. `public.utf16-external-plain-text`
    public static let utf16ExternalPlainText = UTType(_identifier: "public.utf16-external-plain-text")
    /// Plain text in native-order UTF-16. `public.utf16-plain-text`
    public static let utf16PlainText = UTType(_identifier: "public.utf16-plain-text")
    /// Text of delimited values. `public.delimited-values-text`
    public static let delimitedText = UTType(_identifier: "public.delimited-values-text")
    /// Comma-separated values. `public.comma-separated-values-text`
    public static let commaSeparatedText = UTType(_identifier: "public.comma-separated-values-text")
    /// Tab-separated values. `public.tab-separated-values-text`
    public static let tabSeparatedText = UTType(_identifier: "public.tab-separated-values-text")
    /// Tab-separated values in UTF-8. `public.utf8-tab-separated-values-text`
    public static let utf8TabSeparatedText = UTType(_identifier: "public.utf8-tab-separated-values-text")
    /// Rich Text Format. `public.rtf`
    public static let rtf = UTType(_identifier: "public.rtf")

    // Markup
    /// HTML. `public.html`
    public static let html = UTType(_identifier: "public.html")
    /// Generic XML. `public.xml`
    public static let xml = UTType(_identifier: "public.xml")
    /// YAML. `public.yaml`
    public static let yaml = UTType(_identifier: "public.yaml")
    /// Cascading style sheets. `public.css`
    public static let css = UTType(_identifier: "public.css")
    /// Markdown. `net.daringfireball.markdown`
    public static let markdown = UTType(_identifier: "net.daringfireball.markdown")

    // Source code
    /// Source code of any language. `public.source-code`
    public static let sourceCode = UTType(_identifier: "public.source-code")
    /// Assembly source. `public.assembly-source`
    public static let assemblyLanguageSource = UTType(_identifier: "public.assembly-source")
    /// C source. `public.c-source`
    public static let cSource = UTType(_identifier: "public.c-source")
    /// Objective-C source. `public.objective-c-source`
    public static let objectiveCSource = UTType(_identifier: "public.objective-c-source")
    /// Swift source. `public.swift-source`
    public static let swiftSource = UTType(_identifier: "public.swift-source")
    /// C++ source. `public.c-plus-plus-source`
    public static let cPlusPlusSource = UTType(_identifier: "public.c-plus-plus-source")
    /// Objective-C++ source. `public.objective-c-plus-plus-source`
    public static let objectiveCPlusPlusSource = UTType(_identifier: "public.objective-c-plus-plus-source")
    /// A C header. `public.c-header`
    public static let cHeader = UTType(_identifier: "public.c-header")
    /// A C++ header. `public.c-plus-plus-header`
    public static let cPlusPlusHeader = UTType(_identifier: "public.c-plus-plus-header")

    // Scripts
    /// Source of any scripting language. `public.script`
    public static let script = UTType(_identifier: "public.script")
    /// An AppleScript text script. `com.apple.applescript.text`
    public static let appleScript = UTType(_identifier: "com.apple.applescript.text")
    /// A compiled Open Scripting Architecture script. `com.apple.applescript.script`
    public static let osaScript = UTType(_identifier: "com.apple.applescript.script")
    /// An Open Scripting Architecture script bundle. `com.apple.applescript.script-bundle`
    public static let osaScriptBundle = UTType(_identifier: "com.apple.applescript.script-bundle")
    /// JavaScript source. `com.netscape.javascript-source`
    public static let javaScript = UTType(_identifier: "com.netscape.javascript-source")
    /// A shell script. `public.shell-script`
    public static let shellScript = UTType(_identifier: "public.shell-script")
    /// A Perl script. `public.perl-script`
    public static let perlScript = UTType(_identifier: "public.perl-script")
    /// A Python script. `public.python-script`
    public static let pythonScript = UTType(_identifier: "public.python-script")
    /// A Ruby script. `public.ruby-script`
    public static let rubyScript = UTType(_identifier: "public.ruby-script")
    /// A PHP script. `public.php-script`
    public static let phpScript = UTType(_identifier: "public.php-script")
    /// A makefile. `public.make-source`
    public static let makefile = UTType(_identifier: "public.make-source")

    // Serialized data
    /// JSON. `public.json`
    public static let json = UTType(_identifier: "public.json")
    /// A property list. `com.apple.property-list`
    public static let propertyList = UTType(_identifier: "com.apple.property-list")
    /// An XML property list. `com.apple.xml-property-list`
    public static let xmlPropertyList = UTType(_identifier: "com.apple.xml-property-list")
    /// A binary property list. `com.apple.binary-property-list`
    public static let binaryPropertyList = UTType(_identifier: "com.apple.binary-property-list")

    // Composite content
    /// A PDF document. `com.adobe.pdf`
    public static let pdf = UTType(_identifier: "com.adobe.pdf")
    /// A Rich Text Format Directory document. `com.apple.rtfd`
    public static let rtfd = UTType(_identifier: "com.apple.rtfd")
    /// A flattened RTFD document. `com.apple.flat-rtfd`
    public static let flatRTFD = UTType(_identifier: "com.apple.flat-rtfd")
    /// A WebKit web archive. `com.apple.webarchive`
    public static let webArchive = UTType(_identifier: "com.apple.webarchive")

    // Images
    /// Image data. `public.image`
    public static let image = UTType(_identifier: "public.image")
    /// A JPEG image. `public.jpeg`
    public static let jpeg = UTType(_identifier: "public.jpeg")
    /// A TIFF image. `public.tiff`
    public static let tiff = UTType(_identifier: "public.tiff")
    /// A GIF image. `com.compuserve.gif`
    public static let gif = UTType(_identifier: "com.compuserve.gif")
    /// A PNG image. `public.png`
    public static let png = UTType(_identifier: "public.png")
    /// Apple icon data. `com.apple.icns`
    public static let icns = UTType(_identifier: "com.apple.icns")
    /// A Windows bitmap. `com.microsoft.bmp`
    public static let bmp = UTType(_identifier: "com.microsoft.bmp")
    /// Windows icon data. `com.microsoft.ico`
    public static let ico = UTType(_identifier: "com.microsoft.ico")
    /// A camera raw image. `public.camera-raw-image`
    public static let rawImage = UTType(_identifier: "public.camera-raw-image")
    /// An SVG image. `public.svg-image`
    public static let svg = UTType(_identifier: "public.svg-image")
    /// A Live Photo. `com.apple.live-photo`
    public static let livePhoto = UTType(_identifier: "com.apple.live-photo")
    /// A HEIF image. `public.heif`
    public static let heif = UTType(_identifier: "public.heif")
    /// A HEIC image. `public.heic`
    public static let heic = UTType(_identifier: "public.heic")
    /// A WebP image. `org.webmproject.webp`
    public static let webP = UTType(_identifier: "org.webmproject.webp")

    // 3D content
    /// 3D content. `public.3d-content`
    public static let threeDContent = UTType(_identifier: "public.3d-content")
    /// Universal Scene Description. `com.pixar.universal-scene-description`
    public static let usd = UTType(_identifier: "com.pixar.universal-scene-description")
    /// A Universal Scene Description package. `com.pixar.universal-scene-description-mobile`
    public static let usdz = UTType(_identifier: "com.pixar.universal-scene-description-mobile")
    /// A Reality file. `com.apple.reality`
    public static let realityFile = UTType(_identifier: "com.apple.reality")
    /// A SceneKit scene. `com.apple.scenekit.scene`
    public static let sceneKitScene = UTType(_identifier: "com.apple.scenekit.scene")
    /// An AR reference object. `com.apple.arobject`
    public static let arReferenceObject = UTType(_identifier: "com.apple.arobject")

    // Audio and video
    /// Audio and/or video. `public.audiovisual-content`
    public static let audiovisualContent = UTType(_identifier: "public.audiovisual-content")
    /// Media that may hold video and audio (a "movie"). `public.movie`
    public static let movie = UTType(_identifier: "public.movie")
    /// Video without audio. `public.video`
    public static let video = UTType(_identifier: "public.video")
    /// Audio without video. `public.audio`
    public static let audio = UTType(_identifier: "public.audio")
    /// A QuickTime movie. `com.apple.quicktime-movie`
    public static let quickTimeMovie = UTType(_identifier: "com.apple.quicktime-movie")
    /// An MPEG-1 or MPEG-2 movie. `public.mpeg`
    public static let mpeg = UTType(_identifier: "public.mpeg")
    /// An MPEG-2 video. `public.mpeg-2-video`
    public static let mpeg2Video = UTType(_identifier: "public.mpeg-2-video")
    /// An MPEG-2 transport stream. `public.mpeg-2-transport-stream`
    public static let mpeg2TransportStream = UTType(_identifier: "public.mpeg-2-transport-stream")
    /// MP3 audio. `public.mp3`
    public static let mp3 = UTType(_identifier: "public.mp3")
    /// An MPEG-4 movie. `public.mpeg-4`
    public static let mpeg4Movie = UTType(_identifier: "public.mpeg-4")
    /// MPEG-4 audio. `public.mpeg-4-audio`
    public static let mpeg4Audio = UTType(_identifier: "public.mpeg-4-audio")
    /// Apple-protected MPEG-4 audio. `com.apple.protected-mpeg-4-audio`
    public static let appleProtectedMPEG4Audio = UTType(_identifier: "com.apple.protected-mpeg-4-audio")
    /// Apple-protected MPEG-4 video. `com.apple.protected-mpeg-4-video`
    public static let appleProtectedMPEG4Video = UTType(_identifier: "com.apple.protected-mpeg-4-video")
    /// An AVI movie. `public.avi`
    public static let avi = UTType(_identifier: "public.avi")
    /// AIFF audio. `public.aiff-audio`
    public static let aiff = UTType(_identifier: "public.aiff-audio")
    /// WAV audio. `com.microsoft.waveform-audio`
    public static let wav = UTType(_identifier: "com.microsoft.waveform-audio")
    /// MIDI audio. `public.midi-audio`
    public static let midi = UTType(_identifier: "public.midi-audio")
    /// A playlist. `public.playlist`
    public static let playlist = UTType(_identifier: "public.playlist")
    /// An M3U or M3U8 playlist. `public.m3u-playlist`
    public static let m3uPlaylist = UTType(_identifier: "public.m3u-playlist")

    // Directories
    /// A user-browsable directory (not a package). `public.folder`
    public static let folder = UTType(_identifier: "public.folder")
    /// The root folder of a volume. `public.volume`
    public static let volume = UTType(_identifier: "public.volume")
    /// A packaged directory. `com.apple.package`
    public static let package = UTType(_identifier: "com.apple.package")
    /// A bundle directory. `com.apple.bundle`
    public static let bundle = UTType(_identifier: "com.apple.bundle")
    /// A bundle-based plug-in. `com.apple.plugin`
    public static let pluginBundle = UTType(_identifier: "com.apple.plugin")
    /// A Spotlight importer bundle. `com.apple.metadata-importer`
    public static let spotlightImporter = UTType(_identifier: "com.apple.metadata-importer")
    /// A Quick Look generator bundle. `com.apple.quicklook-generator`
    public static let quickLookGenerator = UTType(_identifier: "com.apple.quicklook-generator")
    /// An XPC service bundle. `com.apple.xpc-service`
    public static let xpcService = UTType(_identifier: "com.apple.xpc-service")
    /// A framework bundle. `com.apple.framework`
    public static let framework = UTType(_identifier: "com.apple.framework")
    /// An application. `com.apple.application`
    public static let application = UTType(_identifier: "com.apple.application")
    /// A bundled application. `com.apple.application-bundle`
    public static let applicationBundle = UTType(_identifier: "com.apple.application-bundle")
    /// An app extension. `com.apple.application-and-system-extension`
    public static let applicationExtension = UTType(_identifier: "com.apple.application-and-system-extension")
    /// A UNIX executable. `public.unix-executable`
    public static let unixExecutable = UTType(_identifier: "public.unix-executable")
    /// A Windows executable. `com.microsoft.windows-executable`
    public static let exe = UTType(_identifier: "com.microsoft.windows-executable")
    /// A System Settings pane. `com.apple.systempreference.prefpane`
    public static let systemPreferencesPane = UTType(_identifier: "com.apple.systempreference.prefpane")

    // Archives
    /// An archive of files and directories. `public.archive`
    public static let archive = UTType(_identifier: "public.archive")
    /// A gzip archive. `org.gnu.gnu-zip-archive`
    public static let gzip = UTType(_identifier: "org.gnu.gnu-zip-archive")
    /// A bzip2 archive. `public.bzip2-archive`
    public static let bz2 = UTType(_identifier: "public.bzip2-archive")
    /// A zip archive. `public.zip-archive`
    public static let zip = UTType(_identifier: "public.zip-archive")
    /// An Apple Archive. `com.apple.archive`
    public static let appleArchive = UTType(_identifier: "com.apple.archive")

    // Documents
    /// A spreadsheet. `public.spreadsheet`
    public static let spreadsheet = UTType(_identifier: "public.spreadsheet")
    /// A presentation. `public.presentation`
    public static let presentation = UTType(_identifier: "public.presentation")
    /// A database store. `public.database`
    public static let database = UTType(_identifier: "public.database")

    // Messages, contacts, calendars
    /// A message (e-mail, instant message). `public.message`
    public static let message = UTType(_identifier: "public.message")
    /// Contact information. `public.contact`
    public static let contact = UTType(_identifier: "public.contact")
    /// A vCard. `public.vcard`
    public static let vCard = UTType(_identifier: "public.vcard")
    /// A to-do item. `public.to-do-item`
    public static let toDoItem = UTType(_identifier: "public.to-do-item")
    /// A calendar event. `public.calendar-event`
    public static let calendarEvent = UTType(_identifier: "public.calendar-event")
    /// An e-mail message. `public.email-message`
    public static let emailMessage = UTType(_identifier: "public.email-message")

    // Internet locations
    /// An Apple internet location file. `com.apple.internet-location`
    public static let internetLocation = UTType(_identifier: "com.apple.internet-location")
    /// A Microsoft internet shortcut. `com.microsoft.internet-shortcut`
    public static let internetShortcut = UTType(_identifier: "com.microsoft.internet-shortcut")

    // Miscellaneous
    /// A font. `public.font`
    public static let font = UTType(_identifier: "public.font")
    /// A bookmark. `public.bookmark`
    public static let bookmark = UTType(_identifier: "public.bookmark")
    /// PKCS #12 data. `com.rsa.pkcs-12`
    public static let pkcs12 = UTType(_identifier: "com.rsa.pkcs-12")
    /// An X.509 certificate. `public.x509-certificate`
    public static let x509Certificate = UTType(_identifier: "public.x509-certificate")
    /// An EPUB publication. `org.idpf.epub-container`
    public static let epub = UTType(_identifier: "org.idpf.epub-container")
    /// A console log. `public.log`
    public static let log = UTType(_identifier: "public.log")
    /// An Apple haptics audio pattern. `com.apple.haptics.ahap`
    public static let ahap = UTType(_identifier: "com.apple.haptics.ahap")
}

// MARK: - Declarations

/// One declared type: identifier, direct parents, tags and description.
struct _UTTypeDeclaration: Sendable {
    let identifier: String
    let parents: [String]
    let tags: [UTTagClass: [String]]
    let description: String?

    init(_ identifier: String, _ parents: [String], tags: [UTTagClass: [String]], description: String?) {
        self.identifier = identifier
        self.parents = parents
        self.tags = tags
        self.description = description
    }

    init(_ identifier: String, _ parents: [String], ext: [String] = [], mime: [String] = [], description: String?) {
        var tags: [UTTagClass: [String]] = [:]
        if !ext.isEmpty { tags[.filenameExtension] = ext }
        if !mime.isEmpty { tags[.mimeType] = mime }
        self.init(identifier, parents, tags: tags, description: description)
    }
}

/// The system-declared types, plus those the process declared (`exportedAs`, `importedAs`, dynamic types).
enum _UTTypeRegistry {
    private static let system: [_UTTypeDeclaration] = [
        // Conformances follow Apple's UTCoreTypes.h; types Apple lists without a parent have none.
        .init("public.item", [], description: "item"),
        .init("public.content", [], description: "content"),
        .init("public.composite-content", ["public.content"], description: "composite content"),
        .init("public.disk-image", [], description: "disk image"),
        .init("public.data", ["public.item"], description: "data"),
        .init("public.directory", ["public.item"], description: "directory"),
        .init("com.apple.resolvable", [], description: "resolvable"),
        .init("public.symlink", ["public.item", "com.apple.resolvable"], description: "symbolic link"),
        .init("public.executable", ["public.item"], description: "executable"),
        .init("com.apple.mount-point", ["public.item", "com.apple.resolvable"], description: "mount point"),
        .init("com.apple.alias-file", ["public.data", "com.apple.resolvable"], description: "alias"),
        .init("com.apple.bookmark", ["public.data", "com.apple.resolvable"], description: "URL bookmark"),
        .init("public.url", ["public.data"], description: "URL"),
        .init("public.file-url", ["public.url"], description: "file URL"),
        .init("public.text", ["public.data", "public.content"], description: "text"),
        .init("public.plain-text", ["public.text"], ext: ["txt", "text"], mime: ["text/plain"],
              description: "plain text document"),
        .init("public.utf8-plain-text", ["public.plain-text"], mime: ["text/plain;charset=utf-8"],
              description: "Unicode (UTF-8) text"),
        .init("public.utf16-external-plain-text", ["public.plain-text"], description: "Unicode (UTF-16) text"),
        .init("public.utf16-plain-text", ["public.plain-text"], description: "Unicode (UTF-16) text"),
        .init("public.delimited-values-text", ["public.text"], description: "delimited text"),
        .init("public.comma-separated-values-text", ["public.delimited-values-text"], ext: ["csv"],
              mime: ["text/csv", "text/comma-separated-values"], description: "comma-separated values"),
        .init("public.tab-separated-values-text", ["public.delimited-values-text"], ext: ["tsv"],
              mime: ["text/tab-separated-values"], description: "tab-separated values"),
        .init("public.utf8-tab-separated-values-text",
              ["public.tab-separated-values-text", "public.utf8-plain-text"],
              description: "UTF-8 tab-separated values"),
        .init("public.rtf", ["public.text"], ext: ["rtf"], mime: ["text/rtf", "application/rtf"],
              description: "rich text document"),
        .init("public.html", ["public.text"], ext: ["html", "htm", "shtml"], mime: ["text/html"],
              description: "HTML text"),
        .init("public.xml", ["public.text"], ext: ["xml"], mime: ["application/xml", "text/xml"],
              description: "XML text"),
        .init("public.yaml", ["public.text"], ext: ["yaml", "yml"], mime: ["application/x-yaml", "application/yaml"],
              description: "YAML document"),
        .init("public.css", ["public.text"], ext: ["css"], mime: ["text/css"], description: "CSS style sheet"),
        .init("net.daringfireball.markdown", ["public.plain-text"], ext: ["md", "markdown"], mime: ["text/markdown"],
              description: "Markdown document"),
        .init("public.source-code", ["public.plain-text"], description: "source code"),
        .init("public.assembly-source", ["public.source-code"], ext: ["s"], description: "assembly source"),
        .init("public.c-source", ["public.source-code"], ext: ["c"], description: "C source"),
        .init("public.objective-c-source", ["public.source-code"], ext: ["m"], description: "Objective-C source"),
        .init("public.swift-source", ["public.source-code"], ext: ["swift"], description: "Swift source"),
        .init("public.c-plus-plus-source", ["public.source-code"], ext: ["cpp", "cp", "cc", "cxx", "c++"],
              description: "C++ source"),
        .init("public.objective-c-plus-plus-source", ["public.source-code"], ext: ["mm"],
              description: "Objective-C++ source"),
        .init("public.c-header", ["public.source-code"], ext: ["h"], description: "C header"),
        .init("public.c-plus-plus-header", ["public.source-code"], ext: ["hpp", "hh", "hxx", "h++"],
              description: "C++ header"),
        .init("public.script", ["public.source-code"], description: "script"),
        .init("com.apple.applescript.text", ["public.script"], ext: ["applescript"], description: "AppleScript text"),
        .init("com.apple.applescript.script", ["public.data", "public.script"], ext: ["scpt"],
              description: "compiled script"),
        .init("com.apple.applescript.script-bundle", ["com.apple.bundle", "com.apple.package", "public.script"],
              ext: ["scptd"], description: "script bundle"),
        .init("com.netscape.javascript-source", ["public.source-code", "public.executable"], ext: ["js", "mjs"],
              mime: ["text/javascript", "application/javascript"], description: "JavaScript source"),
        .init("public.shell-script", ["public.script"], ext: ["sh", "command"], mime: ["application/x-sh"],
              description: "shell script"),
        .init("public.perl-script", ["public.shell-script"], ext: ["pl", "pm"], description: "Perl script"),
        .init("public.python-script", ["public.shell-script"], ext: ["py"], mime: ["text/x-python-script"],
              description: "Python script"),
        .init("public.ruby-script", ["public.shell-script"], ext: ["rb"], mime: ["text/ruby-script"],
              description: "Ruby script"),
        .init("public.php-script", ["public.shell-script"], ext: ["php"], mime: ["text/php"],
              description: "PHP script"),
        .init("public.make-source", ["public.script"], ext: ["mk"], description: "makefile"),
        .init("public.json", ["public.text"], ext: ["json"], mime: ["application/json"], description: "JSON document"),
        .init("com.apple.property-list", ["public.data"], ext: ["plist"], description: "property list"),
        .init("com.apple.xml-property-list", ["public.xml", "com.apple.property-list"],
              description: "XML property list"),
        .init("com.apple.binary-property-list", ["com.apple.property-list"], description: "binary property list"),
        .init("com.adobe.pdf", ["public.data", "public.composite-content"], ext: ["pdf"], mime: ["application/pdf"],
              description: "PDF document"),
        .init("com.apple.rtfd", ["com.apple.package", "public.composite-content"], ext: ["rtfd"],
              description: "rich text document with attachments"),
        .init("com.apple.flat-rtfd", ["public.data", "public.composite-content"], description: "flat RTFD document"),
        .init("com.apple.webarchive", ["public.data", "public.composite-content"], ext: ["webarchive"],
              mime: ["application/x-webarchive"], description: "web archive"),
        .init("public.image", ["public.data", "public.content"], description: "image"),
        .init("public.jpeg", ["public.image"], ext: ["jpeg", "jpg", "jpe"], mime: ["image/jpeg", "image/jpg"],
              description: "JPEG image"),
        .init("public.tiff", ["public.image"], ext: ["tiff", "tif"], mime: ["image/tiff"], description: "TIFF image"),
        .init("com.compuserve.gif", ["public.image"], ext: ["gif"], mime: ["image/gif"], description: "GIF image"),
        .init("public.png", ["public.image"], ext: ["png"], mime: ["image/png"], description: "PNG image"),
        .init("com.apple.icns", ["public.image"], ext: ["icns"], mime: ["image/icns"], description: "Apple icon image"),
        .init("com.microsoft.bmp", ["public.image"], ext: ["bmp"], mime: ["image/bmp"],
              description: "Windows bitmap image"),
        .init("com.microsoft.ico", ["public.image"], ext: ["ico"], mime: ["image/vnd.microsoft.icon", "image/x-icon"],
              description: "Windows icon image"),
        .init("public.camera-raw-image", ["public.image"], description: "raw image"),
        .init("public.svg-image", ["public.image"], ext: ["svg"], mime: ["image/svg+xml"], description: "SVG image"),
        .init("com.apple.live-photo", [], description: "Live Photo"),
        .init("public.heif-standard", ["public.image"], description: "HEIF image"),
        .init("public.heif", ["public.heif-standard"], ext: ["heif"], mime: ["image/heif"], description: "HEIF image"),
        .init("public.heic", ["public.heif-standard"], ext: ["heic"], mime: ["image/heic"], description: "HEIC image"),
        .init("org.webmproject.webp", ["public.image"], ext: ["webp"], mime: ["image/webp"], description: "WebP image"),
        .init("public.3d-content", ["public.content"], description: "3D content"),
        .init("com.pixar.universal-scene-description", ["public.3d-content", "public.data"], ext: ["usd"],
              description: "Universal Scene Description"),
        .init("com.pixar.universal-scene-description-mobile", ["public.3d-content", "public.data"], ext: ["usdz"],
              mime: ["model/vnd.usdz+zip"], description: "Universal Scene Description package"),
        .init("com.apple.reality", ["public.data"], ext: ["reality"], description: "Reality file"),
        .init("com.apple.scenekit.scene", ["public.3d-content", "public.data"], ext: ["scn"],
              description: "SceneKit scene"),
        .init("com.apple.arobject", ["public.data"], ext: ["arobject"], description: "AR reference object"),
        .init("public.audiovisual-content", ["public.data", "public.content"], description: "audiovisual content"),
        .init("public.movie", ["public.audiovisual-content"], description: "movie"),
        .init("public.video", ["public.movie"], description: "video"),
        .init("public.audio", ["public.audiovisual-content"], description: "audio"),
        .init("com.apple.quicktime-movie", ["public.movie"], ext: ["mov", "qt"], mime: ["video/quicktime"],
              description: "QuickTime movie"),
        .init("public.mpeg", ["public.movie"], ext: ["mpeg", "mpg", "mpe"], mime: ["video/mpeg"],
              description: "MPEG movie"),
        .init("public.mpeg-2-video", ["public.video"], ext: ["m2v"], mime: ["video/mpeg2"],
              description: "MPEG-2 video"),
        .init("public.mpeg-2-transport-stream", ["public.movie"], ext: ["ts", "mts", "m2ts"], mime: ["video/mp2t"],
              description: "MPEG-2 transport stream"),
        .init("public.mp3", ["public.audio"], ext: ["mp3"], mime: ["audio/mpeg", "audio/mp3"],
              description: "MP3 audio"),
        .init("public.mpeg-4", ["public.movie"], ext: ["mp4", "mpeg4"], mime: ["video/mp4"],
              description: "MPEG-4 movie"),
        .init("public.mpeg-4-audio", ["public.mpeg-4", "public.audio"], ext: ["m4a"],
              mime: ["audio/mp4", "audio/x-m4a"], description: "MPEG-4 audio"),
        .init("com.apple.protected-mpeg-4-audio", ["public.audio"], ext: ["m4p"],
              description: "protected MPEG-4 audio"),
        .init("com.apple.m4v-video", ["public.mpeg-4"], ext: ["m4v"], mime: ["video/x-m4v"],
              description: "MPEG-4 video"),
        .init("com.apple.protected-mpeg-4-video", ["com.apple.m4v-video"], description: "protected MPEG-4 video"),
        .init("public.avi", ["public.movie"], ext: ["avi"], mime: ["video/avi", "video/x-msvideo"],
              description: "AVI movie"),
        .init("public.aifc-audio", ["public.audio"], ext: ["aifc"], mime: ["audio/x-aifc"],
              description: "AIFF-C audio"),
        .init("public.aiff-audio", ["public.aifc-audio"], ext: ["aiff", "aif"], mime: ["audio/aiff", "audio/x-aiff"],
              description: "AIFF audio"),
        .init("com.microsoft.waveform-audio", ["public.audio"], ext: ["wav", "wave"],
              mime: ["audio/wav", "audio/vnd.wave", "audio/x-wav"], description: "WAV audio"),
        .init("public.midi-audio", ["public.audio"], ext: ["mid", "midi"], mime: ["audio/midi", "audio/x-midi"],
              description: "MIDI audio"),
        .init("public.playlist", [], description: "playlist"),
        .init("public.m3u-playlist", ["public.text", "public.playlist"], ext: ["m3u", "m3u8"],
              mime: ["audio/mpegurl", "audio/x-mpegurl", "application/vnd.apple.mpegurl"], description: "M3U playlist"),
        .init("public.folder", ["public.directory"], description: "folder"),
        .init("public.volume", ["public.folder"], description: "volume"),
        .init("com.apple.package", ["public.directory"], description: "package"),
        .init("com.apple.bundle", ["public.directory"], ext: ["bundle"], description: "bundle"),
        .init("com.apple.plugin", ["com.apple.bundle", "com.apple.package"], ext: ["plugin"], description: "plug-in"),
        .init("com.apple.metadata-importer", ["com.apple.plugin"], ext: ["mdimporter"],
              description: "Spotlight importer"),
        .init("com.apple.quicklook-generator", ["com.apple.plugin"], ext: ["qlgenerator"],
              description: "Quick Look generator"),
        .init("com.apple.xpc-service", ["com.apple.bundle", "com.apple.package"], ext: ["xpc"],
              description: "XPC service"),
        .init("com.apple.framework", ["com.apple.bundle"], ext: ["framework"], description: "framework"),
        .init("com.apple.application", ["public.executable"], description: "application"),
        .init("com.apple.application-bundle", ["com.apple.application", "com.apple.bundle", "com.apple.package"],
              ext: ["app"], description: "application"),
        .init("com.apple.application-and-system-extension", ["com.apple.xpc-service"], ext: ["appex"],
              description: "app extension"),
        .init("public.unix-executable", ["public.data", "public.executable"], description: "Unix executable"),
        .init("com.microsoft.windows-executable", ["public.data", "public.executable"], ext: ["exe"],
              mime: ["application/x-msdownload"], description: "Windows executable"),
        .init("com.apple.systempreference.prefpane", ["com.apple.package", "com.apple.bundle"], ext: ["prefPane"],
              description: "settings pane"),
        .init("public.archive", [], description: "archive"),
        .init("org.gnu.gnu-zip-archive", ["public.data", "public.archive"], ext: ["gz", "gzip"],
              mime: ["application/gzip", "application/x-gzip"], description: "gzip archive"),
        .init("public.bzip2-archive", ["public.data", "public.archive"], ext: ["bz2", "bzip2"],
              mime: ["application/x-bzip2"], description: "bzip2 archive"),
        .init("com.pkware.zip-archive", ["public.data", "public.archive"], description: "zip archive"),
        .init("public.zip-archive", ["com.pkware.zip-archive"], ext: ["zip"],
              mime: ["application/zip", "application/x-zip-compressed"], description: "zip archive"),
        .init("com.apple.archive", ["public.data", "public.archive"], ext: ["aar"], description: "Apple Archive"),
        .init("public.spreadsheet", ["public.content"], description: "spreadsheet"),
        .init("public.presentation", ["public.composite-content"], description: "presentation"),
        .init("public.database", [], description: "database"),
        .init("public.message", [], description: "message"),
        .init("public.contact", [], description: "contact"),
        .init("public.vcard", ["public.text", "public.contact"], ext: ["vcf", "vcard"],
              mime: ["text/vcard", "text/x-vcard", "text/directory"], description: "vCard"),
        .init("public.to-do-item", [], description: "to-do item"),
        .init("public.calendar-event", [], description: "calendar event"),
        .init("public.email-message", ["public.message"], ext: ["eml"], mime: ["message/rfc822"],
              description: "e-mail message"),
        .init("com.apple.internet-location", ["public.data"], ext: ["inetloc"], description: "internet location"),
        .init("com.microsoft.internet-shortcut", ["public.data"], ext: ["url"], description: "internet shortcut"),
        .init("public.font", [], description: "font"),
        .init("public.bookmark", [], description: "bookmark"),
        .init("com.rsa.pkcs-12", ["public.data"], ext: ["p12", "pfx"], mime: ["application/x-pkcs12"],
              description: "PKCS #12 archive"),
        .init("public.x509-certificate", ["public.data"], ext: ["cer", "crt", "der"],
              mime: ["application/x-x509-ca-cert", "application/pkix-cert"], description: "certificate"),
        .init("org.idpf.epub-container", ["public.data", "public.composite-content"], ext: ["epub"],
              mime: ["application/epub+zip"], description: "EPUB publication"),
        .init("public.log", [], ext: ["log"], description: "log"),
        .init("com.apple.haptics.ahap", [], ext: ["ahap"], description: "haptic pattern"),
    ]

    /// Declarations by lowercased identifier.
    private static let systemByIdentifier: [String: _UTTypeDeclaration] = Dictionary(
        system.map { ($0.identifier.lowercased(), $0) }, uniquingKeysWith: { first, _ in first }
    )

    /// Types declared while the process runs, in declaration order, and how many.
    private static let declared = Mutex<(byIdentifier: [String: _UTTypeDeclaration], order: [String])>(([:], []))

    /// Conformance trees already computed (`UTType._conformanceTree`), by identifier as given (the tree starts with
    /// it), valid while as many
    /// types are declared (a declaration can give ancestors to a type that named it as a parent before). Indexing
    /// computed the tree of every item's content type again: a quarter of converting PyPI's items.
    private static let trees = Mutex<(declarations: Int, byIdentifier: [String: [String]])>((0, [:]))

    static func conformanceTree(of identifier: String, compute: () -> [String]) -> [String] {
        let key = identifier
        let declarations = declared.withLock { $0.order.count }
        if let tree = trees.withLock({ $0.declarations == declarations ? $0.byIdentifier[key] : nil }) { return tree }
        let tree = compute()
        trees.withLock { state in
            // (A tree computed before a newer declaration is not kept.)
            if state.declarations < declarations { state = (declarations, [:]) }
            if state.declarations == declarations { state.byIdentifier[key] = tree }
        }
        return tree
    }

    static func declaration(for identifier: String) -> _UTTypeDeclaration? {
        let key = identifier.lowercased()
        if let declaration = systemByIdentifier[key] { return declaration }
        return declared.withLock { $0.byIdentifier[key] }
    }

    /// Declares a type unless one with its identifier exists, and returns the declaration in force.
    static func declareIfNeeded(_ declaration: _UTTypeDeclaration) -> _UTTypeDeclaration {
        let key = declaration.identifier.lowercased()
        if let existing = systemByIdentifier[key] { return existing }
        return declared.withLock { state in
            if let existing = state.byIdentifier[key] { return existing }
            state.byIdentifier[key] = declaration
            state.order.append(key)
            return declaration
        }
    }

    /// Declared types with a tag, system types first. Extensions and MIME types compare case-insensitively.
    static func declarations(withTag tag: String, tagClass: UTTagClass) -> [_UTTypeDeclaration] {
        let wanted = tag.lowercased()
        let runtime = declared.withLock { state in state.order.compactMap { state.byIdentifier[$0] } }
        return (system + runtime).filter { declaration in
            declaration.tags[tagClass]?.contains { $0.lowercased() == wanted } ?? false
        }
    }
}

#else
@_exported import UniformTypeIdentifiers
#endif

// MARK: - Helpers shared by both platforms

extension UTType {
    /// A type that keeps an identifier the system does not know, such as a custom `init(itemContentType:)` string.
    ///
    /// It conforms to nothing, so its conformance tree is the identifier alone.
    package init(_unknownIdentifier identifier: String) {
        #if canImport(Darwin)
        self = UTType(identifier) ?? UTType(importedAs: identifier)
        #else
        self.init(_identifier: identifier)
        #endif
    }

    /// The type's identifier followed by every type it conforms to, most specific first.
    ///
    /// A type has more supertypes than any of its ancestors, so ordering by the number of supertypes (more first,
    /// then by identifier) lists every type before the types it conforms to: `public.jpeg`, `public.image`,
    /// `public.content`, `public.data`, `public.item`. This is the value `init(contentType:)` stores in
    /// `contentTypeTree`.
    package var _conformanceTree: [String] {
        #if canImport(Darwin)
        return computedConformanceTree
        #else
        return _UTTypeRegistry.conformanceTree(of: identifier) { computedConformanceTree }
        #endif
    }

    private var computedConformanceTree: [String] {
        let ancestors = supertypes.filter { $0 != self }
            .map { (identifier: $0.identifier, depth: $0.supertypes.count) }
            .sorted { $0.depth != $1.depth ? $0.depth > $1.depth : $0.identifier < $1.identifier }
        return [identifier] + ancestors.map(\.identifier)
    }
}
