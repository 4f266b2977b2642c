import Foundation
import XCTest

@testable import OpenCoreSpotlight

/// `UTType`: identifiers, conformance, tags, declarations, and the conformance tree Core Spotlight stores.
final class UTTypeTests: XCTestCase {
    func testStaticMembersHaveApplesIdentifiers() {
        let cases: [(UTType, String)] = [
            (.item, "public.item"), (.content, "public.content"), (.compositeContent, "public.composite-content"),
            (.data, "public.data"), (.text, "public.text"), (.plainText, "public.plain-text"),
            (.utf8PlainText, "public.utf8-plain-text"), (.html, "public.html"), (.xml, "public.xml"),
            (.json, "public.json"), (.sourceCode, "public.source-code"), (.swiftSource, "public.swift-source"),
            (.image, "public.image"), (.jpeg, "public.jpeg"), (.png, "public.png"), (.gif, "com.compuserve.gif"),
            (.heic, "public.heic"), (.tiff, "public.tiff"), (.audio, "public.audio"), (.mp3, "public.mp3"),
            (.mpeg4Audio, "public.mpeg-4-audio"), (.movie, "public.movie"), (.video, "public.video"),
            (.mpeg4Movie, "public.mpeg-4"), (.quickTimeMovie, "com.apple.quicktime-movie"),
            (.audiovisualContent, "public.audiovisual-content"), (.pdf, "com.adobe.pdf"), (.rtf, "public.rtf"),
            (.contact, "public.contact"), (.vCard, "public.vcard"), (.message, "public.message"),
            (.emailMessage, "public.email-message"), (.calendarEvent, "public.calendar-event"),
            (.toDoItem, "public.to-do-item"), (.url, "public.url"), (.fileURL, "public.file-url"),
            (.folder, "public.folder"), (.directory, "public.directory"), (.archive, "public.archive"),
            (.zip, "public.zip-archive"), (.spreadsheet, "public.spreadsheet"), (.presentation, "public.presentation"),
            (.font, "public.font"), (.playlist, "public.playlist"), (.m3uPlaylist, "public.m3u-playlist"),
            (.bookmark, "public.bookmark"), (.internetLocation, "com.apple.internet-location"),
        ]
        for (type, identifier) in cases {
            XCTAssertEqual(type.identifier, identifier)
            XCTAssertEqual(UTType(identifier), type, identifier)
            XCTAssertTrue(type.isDeclared, identifier)
            XCTAssertFalse(type.isDynamic, identifier)
        }
    }

    func testConformance() {
        XCTAssertTrue(UTType.jpeg.conforms(to: .image))
        XCTAssertTrue(UTType.jpeg.conforms(to: .data))
        XCTAssertTrue(UTType.jpeg.conforms(to: .content))
        XCTAssertTrue(UTType.jpeg.conforms(to: .item))
        XCTAssertTrue(UTType.jpeg.conforms(to: .jpeg))
        XCTAssertFalse(UTType.jpeg.conforms(to: .text))
        XCTAssertFalse(UTType.image.conforms(to: .jpeg))
        XCTAssertTrue(UTType.m3uPlaylist.conforms(to: .text))
        XCTAssertTrue(UTType.m3uPlaylist.conforms(to: .playlist))
        XCTAssertTrue(UTType.swiftSource.conforms(to: .plainText))
        XCTAssertTrue(UTType.vCard.conforms(to: .contact))
        XCTAssertTrue(UTType.emailMessage.conforms(to: .message))
        XCTAssertTrue(UTType.mpeg4Audio.conforms(to: .audio))
        XCTAssertTrue(UTType.mpeg4Audio.conforms(to: .movie))
        XCTAssertTrue(UTType.pdf.conforms(to: .compositeContent))
        XCTAssertTrue(UTType.zip.conforms(to: .archive))
        XCTAssertTrue(UTType.folder.conforms(to: .item))

        XCTAssertEqual(UTType.jpeg.supertypes, [.image, .data, .content, .item])
        XCTAssertEqual(UTType.item.supertypes, [])
        XCTAssertTrue(UTType.image.isSupertype(of: .png))
        XCTAssertFalse(UTType.png.isSupertype(of: .png))
        XCTAssertTrue(UTType.png.isSubtype(of: .image))
        XCTAssertFalse(UTType.png.isSubtype(of: .png))
    }

    func testConformanceTreeIsMostSpecificFirst() {
        XCTAssertEqual(UTType.jpeg._conformanceTree,
                       ["public.jpeg", "public.image", "public.data", "public.content", "public.item"])
        XCTAssertEqual(UTType.item._conformanceTree, ["public.item"])
        XCTAssertEqual(UTType.emailMessage._conformanceTree, ["public.email-message", "public.message"])
        XCTAssertEqual(UTType.utf8PlainText._conformanceTree,
                       ["public.utf8-plain-text", "public.plain-text", "public.text", "public.data",
                        "public.content", "public.item"])
        // Every type comes before every type it conforms to.
        for type in [UTType.m3uPlaylist, .mpeg4Audio, .appleProtectedMPEG4Video, .applicationBundle, .osaScriptBundle,
                     .utf8TabSeparatedText, .xmlPropertyList, .heic] {
            let tree = type._conformanceTree
            XCTAssertEqual(tree.first, type.identifier)
            XCTAssertEqual(Set(tree), Set([type.identifier] + type.supertypes.map(\.identifier)))
            for (index, identifier) in tree.enumerated() {
                for ancestor in UTType(identifier)!.supertypes {
                    XCTAssertGreaterThan(tree.firstIndex(of: ancestor.identifier)!, index,
                                         "\(ancestor) after \(identifier)")
                }
            }
        }
    }

    /// Trees are computed once per type and kept (indexing asks for one per item), until a declaration could
    /// change one: a type declared with a parent nobody had declared yet gains that parent's ancestors when it is.
    func testConformanceTreesFollowLaterDeclarations() {
        let parent = "org.openspotlight.test.tree-parent-\(UUID().uuidString)"
        let child = UTType(importedAs: "org.openspotlight.test.tree-child-\(UUID().uuidString)",
                           conformingTo: UTType(_unknownIdentifier: parent))
        XCTAssertEqual(child._conformanceTree, [child.identifier, parent])
        XCTAssertEqual(child._conformanceTree, [child.identifier, parent], "the kept tree")
        _ = UTType(importedAs: parent, conformingTo: .plainText)
        XCTAssertEqual(child._conformanceTree,
                       [child.identifier, parent, "public.plain-text", "public.text", "public.data", "public.content",
                        "public.item"])
        // An identifier the registry does not know keeps its spelling, whichever spelling was asked first.
        XCTAssertEqual(UTType(_unknownIdentifier: "org.example.Unknown")._conformanceTree, ["org.example.Unknown"])
        XCTAssertEqual(UTType(_unknownIdentifier: "org.example.unknown")._conformanceTree, ["org.example.unknown"])
    }

    func testIdentifiersAreCaseInsensitive() {
        XCTAssertEqual(UTType("PUBLIC.JPEG"), .jpeg)
        XCTAssertEqual(UTType("Public.Jpeg")?.identifier, "public.jpeg")
        XCTAssertEqual(Set([UTType.jpeg, UTType("public.JPEG")!]).count, 1)
        XCTAssertNil(UTType("com.example.never-declared"))
        XCTAssertNil(UTType(""))
    }

    func testTags() {
        XCTAssertEqual(UTType(filenameExtension: "jpg"), .jpeg)
        XCTAssertEqual(UTType(filenameExtension: "JPEG"), .jpeg)
        XCTAssertEqual(UTType(filenameExtension: "txt"), .plainText)
        XCTAssertEqual(UTType(filenameExtension: "zip"), .zip)
        XCTAssertEqual(UTType(filenameExtension: "pdf"), .pdf)
        XCTAssertEqual(UTType(filenameExtension: "swift"), .swiftSource)
        XCTAssertEqual(UTType(filenameExtension: "m4a"), .mpeg4Audio)
        XCTAssertEqual(UTType(filenameExtension: "vcf"), .vCard)
        XCTAssertEqual(UTType(mimeType: "image/png"), .png)
        XCTAssertEqual(UTType(mimeType: "application/pdf"), .pdf)
        XCTAssertEqual(UTType(mimeType: "TEXT/HTML"), .html)
        XCTAssertEqual(UTType(mimeType: "message/rfc822", conformingTo: .message), .emailMessage)
        XCTAssertEqual(UTType(filenameExtension: "png", conformingTo: .image), .png)

        XCTAssertEqual(UTType.jpeg.preferredFilenameExtension, "jpeg")
        XCTAssertEqual(UTType.jpeg.preferredMIMEType, "image/jpeg")
        XCTAssertEqual(UTType.png.preferredFilenameExtension, "png")
        XCTAssertEqual(UTType.plainText.preferredMIMEType, "text/plain")
        XCTAssertNil(UTType.item.preferredFilenameExtension)
        XCTAssertEqual(UTType.jpeg.tags[.filenameExtension], ["jpeg", "jpg", "jpe"])
        XCTAssertEqual(UTType.types(tag: "jpg", tagClass: .filenameExtension, conformingTo: nil), [.jpeg])
        XCTAssertEqual(UTType.jpeg.localizedDescription, "JPEG image")
        XCTAssertEqual(UTTagClass.filenameExtension.rawValue, "public.filename-extension")
        XCTAssertEqual(UTTagClass.mimeType.rawValue, "public.mime-type")
        XCTAssertNil(UTType(filenameExtension: ""))
    }

    func testCodableAsTheIdentifier() throws {
        let data = try JSONEncoder().encode([UTType.jpeg, .pdf])
        XCTAssertEqual(String(decoding: data, as: UTF8.self), #"["public.jpeg","com.adobe.pdf"]"#)
        XCTAssertEqual(try JSONDecoder().decode([UTType].self, from: data), [.jpeg, .pdf])
        XCTAssertEqual(UTType.jpeg.description, "public.jpeg")
    }

    func testUnknownIdentifiersKeepTheirIdentity() {
        let custom = UTType(_unknownIdentifier: "com.acme.recipe-undeclared")
        XCTAssertEqual(custom.identifier, "com.acme.recipe-undeclared")
        XCTAssertEqual(custom._conformanceTree, ["com.acme.recipe-undeclared"])
        XCTAssertTrue(custom.conforms(to: custom))
        XCTAssertFalse(custom.conforms(to: .data))
    }

    #if !canImport(Darwin)
    func testEverySystemTypeAndParentIsDeclared() {
        let members: [UTType] = [
            .item, .content, .compositeContent, .diskImage, .data, .directory, .resolvable, .symbolicLink, .executable,
            .mountPoint, .aliasFile, .urlBookmarkData, .url, .fileURL, .text, .plainText, .utf8PlainText,
            .utf16ExternalPlainText, .utf16PlainText, .delimitedText, .commaSeparatedText, .tabSeparatedText,
            .utf8TabSeparatedText, .rtf, .html, .xml, .yaml, .css, .markdown, .sourceCode, .assemblyLanguageSource,
            .cSource, .objectiveCSource, .swiftSource, .cPlusPlusSource, .objectiveCPlusPlusSource, .cHeader,
            .cPlusPlusHeader, .script, .appleScript, .osaScript, .osaScriptBundle, .javaScript, .shellScript,
            .perlScript, .pythonScript, .rubyScript, .phpScript, .makefile, .json, .propertyList, .xmlPropertyList,
            .binaryPropertyList, .pdf, .rtfd, .flatRTFD, .webArchive, .image, .jpeg, .tiff, .gif, .png, .icns, .bmp,
            .ico, .rawImage, .svg, .livePhoto, .heif, .heic, .webP, .threeDContent, .usd, .usdz, .realityFile,
            .sceneKitScene, .arReferenceObject, .audiovisualContent, .movie, .video, .audio, .quickTimeMovie, .mpeg,
            .mpeg2Video, .mpeg2TransportStream, .mp3, .mpeg4Movie, .mpeg4Audio, .appleProtectedMPEG4Audio,
            .appleProtectedMPEG4Video, .avi, .aiff, .wav, .midi, .playlist, .m3uPlaylist, .folder, .volume, .package,
            .bundle, .pluginBundle, .spotlightImporter, .quickLookGenerator, .xpcService, .framework, .application,
            .applicationBundle, .applicationExtension, .unixExecutable, .exe, .systemPreferencesPane, .archive, .gzip,
            .bz2, .zip, .appleArchive, .spreadsheet, .presentation, .database, .message, .contact, .vCard, .toDoItem,
            .calendarEvent, .emailMessage, .internetLocation, .internetShortcut, .font, .bookmark, .pkcs12,
            .x509Certificate, .epub, .log, .ahap,
        ]
        XCTAssertEqual(Set(members).count, members.count, "no two members share an identifier")
        for type in members {
            XCTAssertNotNil(UTType(type.identifier), type.identifier)
            XCTAssertNotNil(type.localizedDescription, type.identifier)
            for ancestor in type.supertypes {
                XCTAssertTrue(ancestor.isDeclared, "\(ancestor) (ancestor of \(type))")
            }
        }
    }

    func testUnknownTagsMakeDynamicTypes() throws {
        let type = try XCTUnwrap(UTType(filenameExtension: "acmerecipe"))
        XCTAssertTrue(type.isDynamic)
        XCTAssertFalse(type.isDeclared)
        XCTAssertTrue(type.identifier.hasPrefix("dyn."))
        XCTAssertTrue(type.conforms(to: .data))
        XCTAssertEqual(type.preferredFilenameExtension, "acmerecipe")
        XCTAssertEqual(UTType(type.identifier), type, "dynamic identifiers round-trip")
        XCTAssertEqual(UTType(filenameExtension: "acmerecipe"), type, "the same tag makes the same type")

        // A declared type that does not conform to the wanted supertype is not returned.
        let textJPG = try XCTUnwrap(UTType(filenameExtension: "jpg", conformingTo: .text))
        XCTAssertNotEqual(textJPG, .jpeg)
        XCTAssertTrue(textJPG.isDynamic)
        XCTAssertTrue(textJPG.conforms(to: .text))

        let mime = try XCTUnwrap(UTType(mimeType: "application/x-acme"))
        XCTAssertTrue(mime.isDynamic)
        XCTAssertEqual(mime.preferredMIMEType, "application/x-acme")
    }

    func testExportedAndImportedTypesAreDeclared() {
        let note = UTType(exportedAs: "com.acme.note-\(#line)", conformingTo: .plainText)
        XCTAssertTrue(note.isDeclared)
        XCTAssertFalse(note.isDynamic)
        XCTAssertEqual(UTType(note.identifier), note)
        XCTAssertTrue(note.conforms(to: .text))
        XCTAssertEqual(note._conformanceTree,
                       [note.identifier, "public.plain-text", "public.text", "public.data", "public.content",
                        "public.item"])

        let imported = UTType(importedAs: "org.other.format-\(#line)")
        XCTAssertTrue(imported.isDeclared)
        XCTAssertEqual(imported.supertypes, [])

        // A second declaration of the same identifier keeps the first.
        let again = UTType(exportedAs: note.identifier, conformingTo: .image)
        XCTAssertFalse(again.conforms(to: .image))
        // System types cannot be redeclared.
        XCTAssertEqual(UTType(exportedAs: "public.jpeg", conformingTo: .text).supertypes, UTType.jpeg.supertypes)
    }
    #endif

    @available(*, deprecated)
    func testLegacyConstants() {
        #if !canImport(Darwin)
        let cases: [(String, UTType)] = [
            (kUTTypeItem, .item), (kUTTypeContent, .content), (kUTTypeData, .data), (kUTTypeText, .text),
            (kUTTypePlainText, .plainText), (kUTTypeImage, .image), (kUTTypeJPEG, .jpeg), (kUTTypePNG, .png),
            (kUTTypeAudio, .audio), (kUTTypeMovie, .movie), (kUTTypePDF, .pdf), (kUTTypeContact, .contact),
            (kUTTypeVCard, .vCard), (kUTTypeMessage, .message), (kUTTypeEmailMessage, .emailMessage),
            (kUTTypeCalendarEvent, .calendarEvent), (kUTTypeURL, .url), (kUTTypeHTML, .html),
            (kUTTypeMPEG4Audio, .mpeg4Audio), (kUTTypeZipArchive, .zip), (kUTType3DContent, .threeDContent),
            (kUTTypeElectronicPublication, .epub), (kUTTypeToDoItem, .toDoItem),
        ]
        for (constant, type) in cases {
            XCTAssertEqual(constant, type.identifier)
        }
        let legacy = CSSearchableItemAttributeSet(itemContentType: kUTTypeImage as String)
        XCTAssertEqual(legacy.contentType, "public.image")
        #endif
    }
}
