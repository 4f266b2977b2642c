#if !canImport(Darwin)
// The legacy `kUTType…` constants of CoreServices' UTCoreTypes.h, for code written before `UTType`:
//
//     let attributes = CSSearchableItemAttributeSet(itemContentType: kUTTypeImage as String)
//
// Apple deprecated them in favour of `UTType` (iOS 14, macOS 11). Only declared where UniformTypeIdentifiers is
// missing; on Apple platforms they come from CoreServices / MobileCoreServices.

// Deviation: the constants are `String`, not `CFString` (Linux has no CFString in Swift); `kUTTypeImage as String`
// still compiles.

/// The uniform type identifier `public.item`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeItem: String = "public.item"

/// The uniform type identifier `public.content`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeContent: String = "public.content"

/// The uniform type identifier `public.composite-content`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeCompositeContent: String = "public.composite-content"

/// The uniform type identifier `public.message`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeMessage: String = "public.message"

/// The uniform type identifier `public.contact`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeContact: String = "public.contact"

/// The uniform type identifier `public.archive`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeArchive: String = "public.archive"

/// The uniform type identifier `public.disk-image`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeDiskImage: String = "public.disk-image"

/// The uniform type identifier `public.data`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeData: String = "public.data"

/// The uniform type identifier `public.directory`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeDirectory: String = "public.directory"

/// The uniform type identifier `com.apple.resolvable`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeResolvable: String = "com.apple.resolvable"

/// The uniform type identifier `public.symlink`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeSymLink: String = "public.symlink"

/// The uniform type identifier `public.executable`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeExecutable: String = "public.executable"

/// The uniform type identifier `com.apple.mount-point`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeMountPoint: String = "com.apple.mount-point"

/// The uniform type identifier `com.apple.alias-file`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeAliasFile: String = "com.apple.alias-file"

/// The uniform type identifier `com.apple.alias-record`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeAliasRecord: String = "com.apple.alias-record"

/// The uniform type identifier `com.apple.bookmark`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeURLBookmarkData: String = "com.apple.bookmark"

/// The uniform type identifier `public.url`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeURL: String = "public.url"

/// The uniform type identifier `public.file-url`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeFileURL: String = "public.file-url"

/// The uniform type identifier `public.text`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeText: String = "public.text"

/// The uniform type identifier `public.plain-text`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypePlainText: String = "public.plain-text"

/// The uniform type identifier `public.utf8-plain-text`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeUTF8PlainText: String = "public.utf8-plain-text"

/// The uniform type identifier `public.utf16-external-plain-text`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeUTF16ExternalPlainText: String = "public.utf16-external-plain-text"

/// The uniform type identifier `public.utf16-plain-text`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeUTF16PlainText: String = "public.utf16-plain-text"

/// The uniform type identifier `public.delimited-values-text`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeDelimitedText: String = "public.delimited-values-text"

/// The uniform type identifier `public.comma-separated-values-text`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeCommaSeparatedText: String = "public.comma-separated-values-text"

/// The uniform type identifier `public.tab-separated-values-text`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeTabSeparatedText: String = "public.tab-separated-values-text"

/// The uniform type identifier `public.utf8-tab-separated-values-text`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeUTF8TabSeparatedText: String = "public.utf8-tab-separated-values-text"

/// The uniform type identifier `public.rtf`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeRTF: String = "public.rtf"

/// The uniform type identifier `public.html`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeHTML: String = "public.html"

/// The uniform type identifier `public.xml`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeXML: String = "public.xml"

/// The uniform type identifier `public.source-code`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeSourceCode: String = "public.source-code"

/// The uniform type identifier `public.assembly-source`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeAssemblyLanguageSource: String = "public.assembly-source"

/// The uniform type identifier `public.c-source`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeCSource: String = "public.c-source"

/// The uniform type identifier `public.objective-c-source`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeObjectiveCSource: String = "public.objective-c-source"

/// The uniform type identifier `public.swift-source`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeSwiftSource: String = "public.swift-source"

/// The uniform type identifier `public.c-plus-plus-source`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeCPlusPlusSource: String = "public.c-plus-plus-source"

/// The uniform type identifier `public.objective-c-plus-plus-source`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeObjectiveCPlusPlusSource: String = "public.objective-c-plus-plus-source"

/// The uniform type identifier `public.c-header`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeCHeader: String = "public.c-header"

/// The uniform type identifier `public.c-plus-plus-header`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeCPlusPlusHeader: String = "public.c-plus-plus-header"

/// The uniform type identifier `com.sun.java-source`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeJavaSource: String = "com.sun.java-source"

/// The uniform type identifier `public.script`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeScript: String = "public.script"

/// The uniform type identifier `com.apple.applescript.text`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeAppleScript: String = "com.apple.applescript.text"

/// The uniform type identifier `com.apple.applescript.script`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeOSAScript: String = "com.apple.applescript.script"

/// The uniform type identifier `com.apple.applescript.script-bundle`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeOSAScriptBundle: String = "com.apple.applescript.script-bundle"

/// The uniform type identifier `com.netscape.javascript-source`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeJavaScript: String = "com.netscape.javascript-source"

/// The uniform type identifier `public.shell-script`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeShellScript: String = "public.shell-script"

/// The uniform type identifier `public.perl-script`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypePerlScript: String = "public.perl-script"

/// The uniform type identifier `public.python-script`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypePythonScript: String = "public.python-script"

/// The uniform type identifier `public.ruby-script`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeRubyScript: String = "public.ruby-script"

/// The uniform type identifier `public.php-script`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypePHPScript: String = "public.php-script"

/// The uniform type identifier `public.json`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeJSON: String = "public.json"

/// The uniform type identifier `com.apple.property-list`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypePropertyList: String = "com.apple.property-list"

/// The uniform type identifier `com.apple.xml-property-list`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeXMLPropertyList: String = "com.apple.xml-property-list"

/// The uniform type identifier `com.apple.binary-property-list`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeBinaryPropertyList: String = "com.apple.binary-property-list"

/// The uniform type identifier `com.adobe.pdf`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypePDF: String = "com.adobe.pdf"

/// The uniform type identifier `com.apple.rtfd`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeRTFD: String = "com.apple.rtfd"

/// The uniform type identifier `com.apple.flat-rtfd`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeFlatRTFD: String = "com.apple.flat-rtfd"

/// The uniform type identifier `com.apple.txn.text-multimedia-data`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeTXNTextAndMultimediaData: String = "com.apple.txn.text-multimedia-data"

/// The uniform type identifier `com.apple.webarchive`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeWebArchive: String = "com.apple.webarchive"

/// The uniform type identifier `public.image`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeImage: String = "public.image"

/// The uniform type identifier `public.jpeg`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeJPEG: String = "public.jpeg"

/// The uniform type identifier `public.jpeg-2000`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeJPEG2000: String = "public.jpeg-2000"

/// The uniform type identifier `public.tiff`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeTIFF: String = "public.tiff"

/// The uniform type identifier `com.apple.pict`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypePICT: String = "com.apple.pict"

/// The uniform type identifier `com.compuserve.gif`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeGIF: String = "com.compuserve.gif"

/// The uniform type identifier `public.png`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypePNG: String = "public.png"

/// The uniform type identifier `com.apple.quicktime-image`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeQuickTimeImage: String = "com.apple.quicktime-image"

/// The uniform type identifier `com.apple.icns`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeAppleICNS: String = "com.apple.icns"

/// The uniform type identifier `com.microsoft.bmp`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeBMP: String = "com.microsoft.bmp"

/// The uniform type identifier `com.microsoft.ico`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeICO: String = "com.microsoft.ico"

/// The uniform type identifier `public.camera-raw-image`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeRawImage: String = "public.camera-raw-image"

/// The uniform type identifier `public.svg-image`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeScalableVectorGraphics: String = "public.svg-image"

/// The uniform type identifier `com.apple.live-photo`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeLivePhoto: String = "com.apple.live-photo"

/// The uniform type identifier `public.audiovisual-content`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeAudiovisualContent: String = "public.audiovisual-content"

/// The uniform type identifier `public.movie`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeMovie: String = "public.movie"

/// The uniform type identifier `public.video`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeVideo: String = "public.video"

/// The uniform type identifier `public.audio`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeAudio: String = "public.audio"

/// The uniform type identifier `com.apple.quicktime-movie`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeQuickTimeMovie: String = "com.apple.quicktime-movie"

/// The uniform type identifier `public.mpeg`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeMPEG: String = "public.mpeg"

/// The uniform type identifier `public.mpeg-2-video`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeMPEG2Video: String = "public.mpeg-2-video"

/// The uniform type identifier `public.mpeg-2-transport-stream`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeMPEG2TransportStream: String = "public.mpeg-2-transport-stream"

/// The uniform type identifier `public.mp3`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeMP3: String = "public.mp3"

/// The uniform type identifier `public.mpeg-4`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeMPEG4: String = "public.mpeg-4"

/// The uniform type identifier `public.mpeg-4-audio`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeMPEG4Audio: String = "public.mpeg-4-audio"

/// The uniform type identifier `com.apple.protected-mpeg-4-audio`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeAppleProtectedMPEG4Audio: String = "com.apple.protected-mpeg-4-audio"

/// The uniform type identifier `com.apple.protected-mpeg-4-video`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeAppleProtectedMPEG4Video: String = "com.apple.protected-mpeg-4-video"

/// The uniform type identifier `public.avi`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeAVIMovie: String = "public.avi"

/// The uniform type identifier `public.aiff-audio`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeAudioInterchangeFileFormat: String = "public.aiff-audio"

/// The uniform type identifier `com.microsoft.waveform-audio`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeWaveformAudio: String = "com.microsoft.waveform-audio"

/// The uniform type identifier `public.midi-audio`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeMIDIAudio: String = "public.midi-audio"

/// The uniform type identifier `public.playlist`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypePlaylist: String = "public.playlist"

/// The uniform type identifier `public.m3u-playlist`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeM3UPlaylist: String = "public.m3u-playlist"

/// The uniform type identifier `public.folder`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeFolder: String = "public.folder"

/// The uniform type identifier `public.volume`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeVolume: String = "public.volume"

/// The uniform type identifier `com.apple.package`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypePackage: String = "com.apple.package"

/// The uniform type identifier `com.apple.bundle`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeBundle: String = "com.apple.bundle"

/// The uniform type identifier `com.apple.plugin`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypePluginBundle: String = "com.apple.plugin"

/// The uniform type identifier `com.apple.metadata-importer`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeSpotlightImporter: String = "com.apple.metadata-importer"

/// The uniform type identifier `com.apple.quicklook-generator`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeQuickLookGenerator: String = "com.apple.quicklook-generator"

/// The uniform type identifier `com.apple.xpc-service`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeXPCService: String = "com.apple.xpc-service"

/// The uniform type identifier `com.apple.framework`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeFramework: String = "com.apple.framework"

/// The uniform type identifier `com.apple.application`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeApplication: String = "com.apple.application"

/// The uniform type identifier `com.apple.application-bundle`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeApplicationBundle: String = "com.apple.application-bundle"

/// The uniform type identifier `com.apple.application-file`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeApplicationFile: String = "com.apple.application-file"

/// The uniform type identifier `public.unix-executable`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeUnixExecutable: String = "public.unix-executable"

/// The uniform type identifier `com.microsoft.windows-executable`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeWindowsExecutable: String = "com.microsoft.windows-executable"

/// The uniform type identifier `com.sun.java-class`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeJavaClass: String = "com.sun.java-class"

/// The uniform type identifier `com.sun.java-archive`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeJavaArchive: String = "com.sun.java-archive"

/// The uniform type identifier `com.apple.systempreference.prefpane`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeSystemPreferencesPane: String = "com.apple.systempreference.prefpane"

/// The uniform type identifier `org.gnu.gnu-zip-archive`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeGNUZipArchive: String = "org.gnu.gnu-zip-archive"

/// The uniform type identifier `public.bzip2-archive`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeBzip2Archive: String = "public.bzip2-archive"

/// The uniform type identifier `public.zip-archive`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeZipArchive: String = "public.zip-archive"

/// The uniform type identifier `public.spreadsheet`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeSpreadsheet: String = "public.spreadsheet"

/// The uniform type identifier `public.presentation`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypePresentation: String = "public.presentation"

/// The uniform type identifier `public.database`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeDatabase: String = "public.database"

/// The uniform type identifier `public.vcard`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeVCard: String = "public.vcard"

/// The uniform type identifier `public.to-do-item`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeToDoItem: String = "public.to-do-item"

/// The uniform type identifier `public.calendar-event`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeCalendarEvent: String = "public.calendar-event"

/// The uniform type identifier `public.email-message`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeEmailMessage: String = "public.email-message"

/// The uniform type identifier `com.apple.internet-location`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeInternetLocation: String = "com.apple.internet-location"

/// The uniform type identifier `com.apple.ink.inktext`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeInkText: String = "com.apple.ink.inktext"

/// The uniform type identifier `public.font`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeFont: String = "public.font"

/// The uniform type identifier `public.bookmark`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeBookmark: String = "public.bookmark"

/// The uniform type identifier `public.3d-content`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTType3DContent: String = "public.3d-content"

/// The uniform type identifier `com.rsa.pkcs-12`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypePKCS12: String = "com.rsa.pkcs-12"

/// The uniform type identifier `public.x509-certificate`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeX509Certificate: String = "public.x509-certificate"

/// The uniform type identifier `org.idpf.epub-container`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeElectronicPublication: String = "org.idpf.epub-container"

/// The uniform type identifier `public.log`.
@available(*, deprecated, message: "Use UTType instead")
public let kUTTypeLog: String = "public.log"

#endif
