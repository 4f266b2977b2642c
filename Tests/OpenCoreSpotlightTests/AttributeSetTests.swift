import Foundation
import SpotlightEngine
import XCTest

@testable import OpenCoreSpotlight

/// Every attribute of the catalogue round-trips through `CSSearchableItemAttributeSet` with its type, the catalogue
/// matches the properties, custom keys and `CSLocalizedString` behave as documented.
final class AttributeSetTests: XCTestCase {
    // MARK: - Every property round-trips

    /// Sets the property, reads it back, checks the stored engine value, then clears it with `nil`.
    private func roundTrip<Value: Equatable>(
        _ keyPath: ReferenceWritableKeyPath<CSSearchableItemAttributeSet, Value?>, _ name: String,
        _ value: Value, stored: AttributeValue, file: StaticString = #filePath, line: UInt = #line
    ) {
        let set = CSSearchableItemAttributeSet()
        XCTAssertNil(set[keyPath: keyPath], "\(name) starts absent", file: file, line: line)
        set[keyPath: keyPath] = value
        XCTAssertEqual(set[keyPath: keyPath], value, "\(name) reads back", file: file, line: line)
        XCTAssertEqual(set.attributes[name], stored, "\(name) is stored under its property name",
                       file: file, line: line)
        XCTAssertEqual(set.attributes.count, 1, "\(name) sets only itself", file: file, line: line)
        set[keyPath: keyPath] = nil
        XCTAssertNil(set[keyPath: keyPath], "\(name) is cleared by nil", file: file, line: line)
        XCTAssertNil(set.attributes[name], file: file, line: line)
        XCTAssertTrue(set.clearedAttributes.contains(name), "\(name) is remembered as cleared", file: file, line: line)
        set[keyPath: keyPath] = value
        XCTAssertFalse(set.clearedAttributes.contains(name), file: file, line: line)
    }

    func testStringPropertiesRoundTrip() {
        for (keyPath, name) in Self.stringProperties {
            roundTrip(keyPath, name, "text of \(name)", stored: .string("text of \(name)"))
            roundTrip(keyPath, name, "", stored: .string(""))
        }
    }

    func testStringArrayPropertiesRoundTrip() {
        for (keyPath, name) in Self.stringArrayProperties {
            roundTrip(keyPath, name, ["first \(name)", "second"],
                      stored: .array([.string("first \(name)"), .string("second")]))
            roundTrip(keyPath, name, [], stored: .array([]))
        }
    }

    func testNumberPropertiesKeepTheKindOfNumber() {
        for (keyPath, name) in Self.numberProperties {
            roundTrip(keyPath, name, NSNumber(value: 42), stored: .int(42))
            roundTrip(keyPath, name, NSNumber(value: -7.25), stored: .double(-7.25))
            roundTrip(keyPath, name, NSNumber(value: true), stored: .bool(true))

            let set = CSSearchableItemAttributeSet()
            set[keyPath: keyPath] = NSNumber(value: false)
            XCTAssertTrue(String(describing: type(of: set[keyPath: keyPath]!)).hasSuffix("Boolean"), name)
            set[keyPath: keyPath] = NSNumber(value: 2.5)
            XCTAssertEqual(String(cString: set[keyPath: keyPath]!.objCType), "d", name)
            set[keyPath: keyPath] = NSNumber(value: Int64.max)
            XCTAssertEqual(set[keyPath: keyPath]!.int64Value, Int64.max, name)
        }
    }

    func testDatePropertiesRoundTrip() {
        let date = Date(timeIntervalSinceReferenceDate: 760_000_000.125)
        for (keyPath, name) in Self.dateProperties {
            roundTrip(keyPath, name, date, stored: .date(date))
        }
        for (keyPath, name) in Self.dateArrayProperties {
            roundTrip(keyPath, name, [date, .distantPast], stored: .array([.date(date), .date(.distantPast)]))
        }
    }

    func testURLAndDataPropertiesRoundTrip() {
        for (keyPath, name) in Self.urlProperties {
            let url = URL(string: "https://example.com/\(name)?q=1")!
            roundTrip(keyPath, name, url, stored: .url(url))
            let file = URL(fileURLWithPath: "/tmp/\(name).png")
            roundTrip(keyPath, name, file, stored: .url(file))
        }
        for (keyPath, name) in Self.dataProperties {
            roundTrip(keyPath, name, Data([0, 1, 254, 255]), stored: .data(Data([0, 1, 254, 255])))
        }
    }

    func testPersonPropertiesRoundTrip() {
        let alice = CSPerson(displayName: "Alice", handles: ["alice@example.com"], handleIdentifier: "emailAddresses")
        alice.contactIdentifier = "contact-1"
        let bob = CSPerson(displayName: nil, handles: ["555-0100", "555-0101"], handleIdentifier: "phoneNumbers")
        for (keyPath, name) in Self.personProperties {
            roundTrip(keyPath, name, [alice, bob], stored: .array([.person(alice._value), .person(bob._value)]))
            let set = CSSearchableItemAttributeSet()
            set[keyPath: keyPath] = [alice]
            let back = set[keyPath: keyPath]![0]
            XCTAssertEqual(back.displayName, "Alice")
            XCTAssertEqual(back.handles, ["alice@example.com"])
            XCTAssertEqual(back.handleIdentifier, "emailAddresses")
            XCTAssertEqual(back.contactIdentifier, "contact-1")
        }
    }

    func testActionIdentifiersIsNonOptional() {
        let set = CSSearchableItemAttributeSet()
        XCTAssertEqual(set.actionIdentifiers, [])
        set.actionIdentifiers = ["com.acme.reply", "com.acme.archive"]
        XCTAssertEqual(set.actionIdentifiers, ["com.acme.reply", "com.acme.archive"])
        XCTAssertEqual(set.attributes["actionIdentifiers"],
                       .array([.string("com.acme.reply"), .string("com.acme.archive")]))
        set.actionIdentifiers = []
        XCTAssertEqual(set.actionIdentifiers, [])
        XCTAssertNil(set.attributes["actionIdentifiers"])
        XCTAssertTrue(set.clearedAttributes.contains("actionIdentifiers"))
    }

    func testSharedItemContentTypeIsStoredAsItsIdentifier() {
        let set = CSSearchableItemAttributeSet()
        XCTAssertNil(set.sharedItemContentType)
        set.sharedItemContentType = .pdf
        XCTAssertEqual(set.sharedItemContentType, .pdf)
        XCTAssertEqual(set.attributes["sharedItemContentType"], .string("com.adobe.pdf"))
        set.sharedItemContentType = nil
        XCTAssertNil(set.sharedItemContentType)
        XCTAssertTrue(set.clearedAttributes.contains("sharedItemContentType"))
    }

    func testLikelyJunkIsNonOptional() {
        let set = CSSearchableItemAttributeSet()
        XCTAssertEqual(set.likelyJunk, NSNumber(value: false))
        XCTAssertNil(set.attributes["likelyJunk"])
        set.likelyJunk = true
        XCTAssertEqual(set.likelyJunk.boolValue, true)
        XCTAssertEqual(set.attributes["likelyJunk"], .bool(true))
        set.likelyJunk = 0
        XCTAssertEqual(set.attributes["likelyJunk"], .int(0))
    }

    func testEmailHeadersRoundTrip() {
        let set = CSSearchableItemAttributeSet()
        XCTAssertNil(set.emailHeaders)
        let date = Date(timeIntervalSinceReferenceDate: 1000)
        set.emailHeaders = ["From": ["Alice <alice@example.com>"], "Received": ["by a", "by b"], "X-Date": [date]]
        let headers = set.emailHeaders!
        XCTAssertEqual(headers.keys.sorted(), ["From", "Received", "X-Date"])
        XCTAssertEqual(headers["From"] as? [String], ["Alice <alice@example.com>"])
        XCTAssertEqual(headers["Received"] as? [String], ["by a", "by b"])
        XCTAssertEqual(headers["X-Date"]?.first as? Date, date)
        XCTAssertEqual(
            set.attributes["emailHeaders"],
            .array([
                .array([.string("From"), .string("Alice <alice@example.com>")]),
                .array([.string("Received"), .string("by a"), .string("by b")]),
                .array([.string("X-Date"), .date(date)]),
            ])
        )
        set.emailHeaders = nil
        XCTAssertNil(set.emailHeaders)
        XCTAssertTrue(set.clearedAttributes.contains("emailHeaders"))
    }

    // MARK: - Code from Apple's documentation and samples compiles

    func testSeedSnippetsCompileAndStoreTypedValues() {
        let attributeSet = CSSearchableItemAttributeSet(contentType: .text)
        attributeSet.title = "Blue Bottle Coffee"
        attributeSet.contentDescription = "Coffee shop"
        attributeSet.supportsPhoneCall = true
        attributeSet.phoneNumbers = ["555"]
        attributeSet.supportsNavigation = 1
        attributeSet.latitude = 37.33
        attributeSet.longitude = -122.03
        attributeSet.rankingHint = 80
        attributeSet.keywords = ["coffee", "espresso"]
        attributeSet.contentCreationDate = Date()
        attributeSet.thumbnailData = Data()
        attributeSet.mailboxIdentifiers = [CSMailboxInbox]

        XCTAssertEqual(attributeSet.attributes["supportsPhoneCall"], .bool(true))
        XCTAssertEqual(attributeSet.attributes["phoneNumbers"], .array([.string("555")]))
        XCTAssertEqual(attributeSet.attributes["latitude"], .double(37.33))
        XCTAssertEqual(attributeSet.attributes["rankingHint"], .int(80))
        XCTAssertEqual(attributeSet.supportsPhoneCall?.boolValue, true)
        XCTAssertEqual(attributeSet.latitude?.doubleValue, 37.33)
        XCTAssertEqual(attributeSet.contentType, "public.text")
        XCTAssertEqual(attributeSet.mailboxIdentifiers, ["mailbox.inbox"])
    }

    func testMailboxConstantsAreDistinct() {
        let all = [CSMailboxInbox, CSMailboxDrafts, CSMailboxSent, CSMailboxJunk, CSMailboxTrash, CSMailboxArchive]
        XCTAssertEqual(Set(all).count, 6)
        XCTAssertEqual(CSMailboxJunk, "mailbox.junk")
    }

    func testContentTypeInitializerLeavesTheTreeToTheIndex() {
        let jpeg = CSSearchableItemAttributeSet(contentType: .jpeg)
        XCTAssertEqual(jpeg.contentType, "public.jpeg")
        XCTAssertNil(jpeg.contentTypeTree, "as Apple's: the app's attribute set has no tree until the index adds it")
        XCTAssertEqual(UTType.jpeg._conformanceTree,
                       ["public.jpeg", "public.image", "public.data", "public.content", "public.item"])
        XCTAssertEqual(UTType.m3uPlaylist._conformanceTree.first, "public.m3u-playlist")
        XCTAssertEqual(Set(UTType.m3uPlaylist._conformanceTree),
                       ["public.m3u-playlist", "public.text", "public.playlist", "public.data", "public.content",
                        "public.item"])

        let empty = CSSearchableItemAttributeSet()
        XCTAssertNil(empty.contentType)
        XCTAssertNil(empty.contentTypeTree)
    }

    func testItemContentTypeInitializerKeepsUnknownIdentifiers() {
        // Not deprecated (Apple: "to be deprecated"), so this compiles without a warning.
        let custom = CSSearchableItemAttributeSet(itemContentType: "com.acme.recipe")
        XCTAssertEqual(custom.contentType, "com.acme.recipe")
        XCTAssertNil(custom.contentTypeTree)
        XCTAssertEqual(UTType(_unknownIdentifier: "com.acme.recipe")._conformanceTree, ["com.acme.recipe"])
        XCTAssertEqual(UTType(_unknownIdentifier: "public.email-message")._conformanceTree,
                       ["public.email-message", "public.message"])
    }

    func testMoveFromMergesAndEmptiesTheSource() {
        let key = CSCustomAttributeKey(keyName: "com_example_rating")!
        let target = CSSearchableItemAttributeSet()
        target.title = "Old title"
        target.contentDescription = "Kept"
        let source = CSSearchableItemAttributeSet(contentType: .text)
        source.title = "New title"
        source.keywords = ["a", "b"]
        source.setValue(NSNumber(value: 4), forCustomKey: key)
        target.moveFrom(source)
        XCTAssertEqual(target.title, "New title")
        XCTAssertEqual(target.contentDescription, "Kept")
        XCTAssertEqual(target.keywords, ["a", "b"])
        XCTAssertEqual(target.contentType, "public.text")
        XCTAssertEqual((target.value(forCustomKey: key) as? NSNumber)?.intValue, 4)
        XCTAssertNil(source.title)
        XCTAssertNil(source.value(forCustomKey: key))
        target.moveFrom(target)
        XCTAssertEqual(target.title, "New title", "moving a set into itself changes nothing")
    }

    func testCopyKeepsEveryAttribute() {
        let set = CSSearchableItemAttributeSet()
        set.title = "Title"
        set.authors = [CSPerson(displayName: "A", handles: [], handleIdentifier: "emailAddresses")]
        set.latitude = 1.5
        let copy = set.copy() as! CSSearchableItemAttributeSet
        XCTAssertEqual(copy.title, "Title")
        XCTAssertEqual(copy.authors?.first?.displayName, "A")
        XCTAssertEqual(copy.latitude, 1.5)
        copy.title = "Other"
        XCTAssertEqual(set.title, "Title")
    }

    // MARK: - The catalogue matches the properties

    func testCatalogListsExactlyTheProperties() {
        let tested = Self.stringProperties.map(\.1) + Self.stringArrayProperties.map(\.1)
            + Self.numberProperties.map(\.1)
            + Self.dateProperties.map(\.1) + Self.dateArrayProperties.map(\.1) + Self.urlProperties.map(\.1)
            + Self.dataProperties.map(\.1) + Self.personProperties.map(\.1)
            + ["actionIdentifiers", "sharedItemContentType", "likelyJunk", "emailHeaders"]
        XCTAssertEqual(tested.count, Set(tested).count)
        let catalogued = AttributeCatalog.all.map(\.name)
        XCTAssertEqual(catalogued.count, Set(catalogued).count, "no attribute is catalogued twice")
        XCTAssertEqual(Set(catalogued), Set(tested))
    }

    func testCatalogKindsMatchThePropertyTypes() {
        func kind(_ name: String) -> AttributeKind? { AttributeCatalog.descriptor(named: name)?.kind }
        for (_, name) in Self.stringProperties { XCTAssertEqual(kind(name), .string, name) }
        for (_, name) in Self.stringArrayProperties { XCTAssertEqual(kind(name), .strings, name) }
        for (_, name) in Self.numberProperties {
            XCTAssertEqual(kind(name), Self.booleanNames.contains(name) ? .bool : .number, name)
        }
        for (_, name) in Self.dateProperties { XCTAssertEqual(kind(name), .date, name) }
        for (_, name) in Self.dateArrayProperties { XCTAssertEqual(kind(name), .dates, name) }
        for (_, name) in Self.urlProperties { XCTAssertEqual(kind(name), .url, name) }
        for (_, name) in Self.dataProperties { XCTAssertEqual(kind(name), .data, name) }
        for (_, name) in Self.personProperties { XCTAssertEqual(kind(name), .persons, name) }
        XCTAssertEqual(kind("actionIdentifiers"), .strings)
        XCTAssertEqual(kind("sharedItemContentType"), .string)
        XCTAssertEqual(kind("likelyJunk"), .bool)
        XCTAssertEqual(kind("emailHeaders"), .headers)
    }

    func testTextTiers() {
        let cases: [(String, TextTier?)] = [
            ("title", .name), ("displayName", .name),
            ("keywords", .keyword), ("alternateNames", .keyword),
            ("contentDescription", .description), ("subject", .description), ("headline", .description),
            ("textContent", .body), ("authorNames", .body), ("authors", .body), ("phoneNumbers", .body),
            ("city", .body), ("album", .body),
            ("contentType", nil), ("contentTypeTree", nil), ("path", nil), ("contentURL", nil),
            ("thumbnailURL", nil), ("relatedUniqueIdentifier", nil), ("domainIdentifier", nil), ("identifier", nil),
            ("mailboxIdentifiers", nil), ("latitude", nil), ("lastUsedDate", nil), ("thumbnailData", nil),
            ("emailHeaders", nil),
        ]
        for (name, tier) in cases {
            XCTAssertNotNil(AttributeCatalog.descriptor(named: name), name)
            XCTAssertEqual(AttributeCatalog.descriptor(named: name)?.textTier, tier, name)
        }
        XCTAssertLessThan(TextTier.name, TextTier.keyword)
        XCTAssertLessThan(TextTier.description, TextTier.body)
        // Only text-holding attributes take part in free-text search.
        for descriptor in AttributeCatalog.all where descriptor.textTier != nil {
            XCTAssertTrue([.string, .strings, .persons].contains(descriptor.kind), descriptor.name)
        }
    }

    func testMDItemAliases() {
        // The pairs of the specification (§3.5), then a few more of Spotlight's names.
        let pairs: [(String, String)] = [
            ("kMDItemTitle", "title"), ("kMDItemDisplayName", "displayName"),
            ("kMDItemAlternateNames", "alternateNames"), ("kMDItemDescription", "contentDescription"),
            ("kMDItemTextContent", "textContent"), ("kMDItemKeywords", "keywords"),
            ("kMDItemContentType", "contentType"), ("kMDItemContentTypeTree", "contentTypeTree"),
            ("kMDItemAuthors", "authorNames"), ("kMDItemRecipients", "recipientNames"),
            ("kMDItemAuthorEmailAddresses", "authorEmailAddresses"),
            ("kMDItemContentCreationDate", "contentCreationDate"),
            ("kMDItemContentModificationDate", "contentModificationDate"), ("kMDItemLastUsedDate", "lastUsedDate"),
            ("kMDItemPath", "path"), ("kMDItemURL", "url"), ("kMDItemNumberOfPages", "pageCount"),
            ("kMDItemDurationSeconds", "duration"), ("kMDItemLatitude", "latitude"), ("kMDItemLongitude", "longitude"),
            ("kMDItemCity", "city"), ("kMDItemCountry", "country"), ("kMDItemPhoneNumbers", "phoneNumbers"),
            ("kMDItemEmailAddresses", "emailAddresses"), ("kMDItemAlbum", "album"), ("kMDItemComposer", "composer"),
            ("kMDItemMusicalGenre", "musicalGenre"), ("kMDItemPixelWidth", "pixelWidth"),
            ("kMDItemPixelHeight", "pixelHeight"),
            ("kMDItemStarRating", "rating"), ("kMDItemWhereFroms", "contentSources"), ("kMDItemDateAdded", "addedDate"),
            ("kMDItemAttributeChangeDate", "metadataModificationDate"), ("kMDItemFonts", "fontNames"),
            ("kMDItemFlashOnOff", "flashOn"), ("kMDItemExposureTimeSeconds", "exposureTime"),
            ("kMDItemIsLikelyJunk", "likelyJunk"), ("kMDItemGPSDOP", "gpsdop"),
            ("kMDItemHTMLContent", "htmlContentData"),
        ]
        for (alias, name) in pairs {
            XCTAssertEqual(AttributeCatalog.descriptor(named: alias)?.name, name, alias)
            XCTAssertEqual(AttributeCatalog.descriptor(named: name)?.mdItemAlias, alias, name)
        }
        // Apple's Objective-C spellings resolve too.
        for (objc, name) in [("URL", "url"), ("HTMLContentData", "htmlContentData"), ("ISOSpeed", "isoSpeed"),
                             ("EXIFVersion", "exifVersion"), ("EXIFGPSVersion", "exifgpsVersion"),
                             ("GPSDOP", "gpsdop"), ("GPSTrack", "gpsTrack"), ("GPSDifferental", "gpsDifferental")] {
            XCTAssertEqual(AttributeCatalog.descriptor(named: objc)?.name, name, objc)
        }
        // Unmapped Spotlight names, and names that are not attributes, resolve to nothing.
        let unknownNames = ["kMDItemFSSize", "kMDItemIdentifier", "kMDItemNonsense", "kMDItem", "TITLE", "",
                            "isUserCreated"]
        for unknown in unknownNames {
            XCTAssertNil(AttributeCatalog.descriptor(named: unknown), unknown)
        }
        let aliases = AttributeCatalog.all.compactMap(\.mdItemAlias)
        XCTAssertEqual(aliases.count, Set(aliases).count, "aliases are unique")
        XCTAssertTrue(aliases.allSatisfy { $0.hasPrefix("kMDItem") })
        XCTAssertTrue(AttributeCatalog.all.allSatisfy { AttributeCatalog.descriptor(named: $0.name)?.name == $0.name })
    }

    // MARK: - Custom attributes

    func testCustomValuesOfEveryAllowedKindRoundTrip() throws {
        let set = CSSearchableItemAttributeSet()
        let key = try XCTUnwrap(CSCustomAttributeKey(keyName: "com_acme_value"))

        set.setValue(NSString(string: "hello"), forCustomKey: key)
        XCTAssertEqual(set.value(forCustomKey: key) as? NSString, "hello")

        set.setValue(NSNumber(value: 3), forCustomKey: key)
        XCTAssertEqual(set.value(forCustomKey: key) as? NSNumber, 3)
        XCTAssertEqual(set.customAttributes["com_acme_value"]?.value, .int(3))
        set.setValue(NSNumber(value: 0.5), forCustomKey: key)
        XCTAssertEqual(set.customAttributes["com_acme_value"]?.value, .double(0.5))
        set.setValue(NSNumber(value: true), forCustomKey: key)
        XCTAssertEqual(set.customAttributes["com_acme_value"]?.value, .bool(true))

        let date = Date(timeIntervalSinceReferenceDate: 12_345)
        set.setValue(NSDate(timeIntervalSinceReferenceDate: 12_345), forCustomKey: key)
        XCTAssertEqual((set.value(forCustomKey: key) as? NSDate).map { $0 as Date }, date)

        set.setValue(NSData(data: Data([9, 8, 7])), forCustomKey: key)
        XCTAssertEqual((set.value(forCustomKey: key) as? NSData).map { $0 as Data }, Data([9, 8, 7]))

        set.setValue(NSNull(), forCustomKey: key)
        XCTAssertTrue(set.value(forCustomKey: key) is NSNull)

        let person = CSPerson(displayName: "Ann", handles: ["555"], handleIdentifier: "phoneNumbers")
        set.setValue(person, forCustomKey: key)
        XCTAssertEqual(set.value(forCustomKey: key) as? CSPerson, person)

        set.setValue(NSArray(array: [NSString(string: "a"), NSNumber(value: 1), person]), forCustomKey: key)
        let array = try XCTUnwrap(set.value(forCustomKey: key) as? NSArray)
        XCTAssertEqual(array.count, 3)
        XCTAssertEqual(array[0] as? NSString, "a")
        XCTAssertEqual(array[1] as? NSNumber, 1)
        XCTAssertEqual(array[2] as? CSPerson, person)

        set.setValue(nil, forCustomKey: key)
        XCTAssertNil(set.value(forCustomKey: key))
    }

    func testCustomKeysAreComparedByName() throws {
        let set = CSSearchableItemAttributeSet()
        let key = try XCTUnwrap(CSCustomAttributeKey(keyName: "com_acme_rating"))
        let sameName = try XCTUnwrap(CSCustomAttributeKey(keyName: "com_acme_rating", searchable: false,
                                                           searchableByDefault: true, unique: true, multiValued: true))
        set.setValue(NSNumber(value: 4), forCustomKey: key)
        XCTAssertEqual(set.value(forCustomKey: sameName) as? NSNumber, 4)
        XCTAssertEqual(key, sameName)
        XCTAssertNil(set.value(forCustomKey: try XCTUnwrap(CSCustomAttributeKey(keyName: "com_acme_other"))))
    }

    func testUnsupportedCustomValuesReadAsNil() throws {
        let set = CSSearchableItemAttributeSet()
        let key = try XCTUnwrap(CSCustomAttributeKey(keyName: "com_acme_bad"))
        set.setValue(NSDictionary(dictionary: ["a": 1]), forCustomKey: key)
        XCTAssertNil(set.value(forCustomKey: key))
        XCTAssertTrue(set.invalidCustomKeys.contains("com_acme_bad"))
        set.setValue(NSString(string: "fine"), forCustomKey: key)
        XCTAssertEqual(set.value(forCustomKey: key) as? NSString, "fine")
    }

    func testInvalidCustomKeyNamesAreRejected() {
        for name in ["", "kMDItemTitle", "kMDcustom", "com.acme.key", "com-acme", "has space", "ünïcode", "emoji🙂",
                     "1starts_with_digit"] {
            XCTAssertNil(CSCustomAttributeKey(keyName: name), name)
            XCTAssertNil(CSCustomAttributeKey(keyName: name, searchable: true, searchableByDefault: true,
                                              unique: false, multiValued: false), name)
        }
        for name in ["com_mycompany_myapp_keyname", "rating", "_private", "camelCase2"] {
            XCTAssertNotNil(CSCustomAttributeKey(keyName: name), name)
        }
        let key = CSCustomAttributeKey(keyName: "com_acme_flag")!
        XCTAssertTrue(key.isSearchable)
        XCTAssertFalse(key.isSearchableByDefault)
        XCTAssertFalse(key.isUnique)
        XCTAssertFalse(key.isMultiValued)
    }

    // MARK: - CSLocalizedString

    func testLocalizationFallbackOrder() {
        let all = ["en": "Song", "fr": "Chanson", "fr-CA": "Toune", "de": "Lied", "pt_BR": "Canção"]
        let cases: [([String: String], [String], String?)] = [
            (all, ["fr-CA"], "Toune"),                 // exact tag
            (all, ["fr-BE"], "Chanson"),               // language subtag
            (all, ["fr_CA"], "Toune"),                 // underscores and hyphens alike
            (all, ["FR-ca"], "Toune"),                 // case-insensitive
            (all, ["pt-BR"], "Canção"),
            (all, ["pt"], "Canção"),                   // another tag of the language
            (all, ["ja", "de"], "Lied"),               // preferred languages in order
            (all, ["ja"], "Song"),                     // English
            (["fr": "Chanson", "de": "Lied"], ["ja"], "Lied"),   // first tag in sorted order
            (["zz": "Z"], [], "Z"),
            ([:], ["en"], nil),
        ]
        for (localizations, preferred, expected) in cases {
            XCTAssertEqual(CSLocalizedString._bestLocalization(localizations, preferredLanguages: preferred), expected,
                           "\(preferred) in \(localizations.keys.sorted())")
        }
    }

    func testLocalizedStringIsAString() {
        let localized = CSLocalizedString(localizedStrings: ["en": "Song", "fr": "Chanson"])
        let expected = CSLocalizedString._bestLocalization(["en": "Song", "fr": "Chanson"])!
        XCTAssertEqual(localized.localizedString(), expected)
        XCTAssertEqual(localized.length, expected.utf16.count)
        XCTAssertEqual(localized as String, expected)
        XCTAssertEqual(localized.description, expected)
        XCTAssertTrue(localized.isEqual(to: expected))
        XCTAssertEqual(localized._localizations, ["en": "Song", "fr": "Chanson"])
        XCTAssertTrue(localized.copy() as AnyObject === localized)

        let ignored = CSLocalizedString(localizedStrings: ["en": "ok", 3: "number key", "de": 4])
        XCTAssertEqual(ignored._localizations, ["en": "ok"])
        let bridged = CSLocalizedString(localizedStrings: [NSString(string: "en"): NSString(string: "bridged")])
        XCTAssertEqual(bridged._localizations, ["en": "bridged"])
        let literal: CSLocalizedString = "literal"
        XCTAssertEqual(literal._localizations, ["en": "literal"])
        XCTAssertEqual(CSLocalizedString(string: "plain").localizedString(), "plain")

        // Apple's documented use: assign it where a String attribute is expected.
        let set = CSSearchableItemAttributeSet()
        set.displayName = localized as String
        XCTAssertEqual(set.displayName, expected)
    }

    func testLocalizedValuesReadBackAsTheBestLocalization() {
        // What Apple platforms store for `displayName = localizedString as String`, and what the index returns.
        let set = CSSearchableItemAttributeSet()
        set._setValue("displayName", .localized(["en": "Song", "xx": "Other"]))
        XCTAssertEqual(set.displayName, CSLocalizedString._bestLocalization(["en": "Song", "xx": "Other"]))
    }
}

// MARK: - Property tables

extension AttributeSetTests {
    static var stringProperties: [(ReferenceWritableKeyPath<CSSearchableItemAttributeSet, String?>, String)] {
        [
            (\.displayName, "displayName"),
            (\.path, "path"),
            (\.relatedUniqueIdentifier, "relatedUniqueIdentifier"),
            (\.weakRelatedUniqueIdentifier, "weakRelatedUniqueIdentifier"),
            (\.contentType, "contentType"),
            (\.title, "title"),
            (\.version, "version"),
            (\.domainIdentifier, "domainIdentifier"),
            (\.containerTitle, "containerTitle"),
            (\.containerDisplayName, "containerDisplayName"),
            (\.containerIdentifier, "containerIdentifier"),
            (\.subject, "subject"),
            (\.theme, "theme"),
            (\.contentDescription, "contentDescription"),
            (\.identifier, "identifier"),
            (\.securityMethod, "securityMethod"),
            (\.creator, "creator"),
            (\.kind, "kind"),
            (\.comment, "comment"),
            (\.copyright, "copyright"),
            (\.role, "role"),
            (\.rights, "rights"),
            (\.ratingDescription, "ratingDescription"),
            (\.information, "information"),
            (\.director, "director"),
            (\.producer, "producer"),
            (\.genre, "genre"),
            (\.originalFormat, "originalFormat"),
            (\.originalSource, "originalSource"),
            (\.keySignature, "keySignature"),
            (\.timeSignature, "timeSignature"),
            (\.audioEncodingApplication, "audioEncodingApplication"),
            (\.composer, "composer"),
            (\.lyricist, "lyricist"),
            (\.album, "album"),
            (\.artist, "artist"),
            (\.musicalGenre, "musicalGenre"),
            (\.musicalInstrumentCategory, "musicalInstrumentCategory"),
            (\.musicalInstrumentName, "musicalInstrumentName"),
            (\.colorSpace, "colorSpace"),
            (\.acquisitionMake, "acquisitionMake"),
            (\.acquisitionModel, "acquisitionModel"),
            (\.cameraOwner, "cameraOwner"),
            (\.lensModel, "lensModel"),
            (\.profileName, "profileName"),
            (\.exifVersion, "exifVersion"),
            (\.exifgpsVersion, "exifgpsVersion"),
            (\.meteringMode, "meteringMode"),
            (\.exposureProgram, "exposureProgram"),
            (\.exposureTimeString, "exposureTimeString"),
            (\.accountIdentifier, "accountIdentifier"),
            (\.textContent, "textContent"),
            (\.headline, "headline"),
            (\.instructions, "instructions"),
            (\.thoroughfare, "thoroughfare"),
            (\.subThoroughfare, "subThoroughfare"),
            (\.postalCode, "postalCode"),
            (\.city, "city"),
            (\.stateOrProvince, "stateOrProvince"),
            (\.country, "country"),
            (\.fullyFormattedAddress, "fullyFormattedAddress"),
            (\.namedLocation, "namedLocation"),
            (\.gpsStatus, "gpsStatus"),
            (\.gpsMeasureMode, "gpsMeasureMode"),
            (\.gpsMapDatum, "gpsMapDatum"),
            (\.gpsProcessingMethod, "gpsProcessingMethod"),
            (\.gpsAreaInformation, "gpsAreaInformation"),
            (\.textContentSummary, "textContentSummary"),
            (\.transcribedTextContent, "transcribedTextContent"),
        ]
    }

    static var stringArrayProperties: [(ReferenceWritableKeyPath<CSSearchableItemAttributeSet, [String]?>, String)] {
        [
            (\.alternateNames, "alternateNames"),
            (\.contentTypeTree, "contentTypeTree"),
            (\.keywords, "keywords"),
            (\.providerDataTypeIdentifiers, "providerDataTypeIdentifiers"),
            (\.providerFileTypeIdentifiers, "providerFileTypeIdentifiers"),
            (\.providerInPlaceFileTypeIdentifiers, "providerInPlaceFileTypeIdentifiers"),
            (\.audiences, "audiences"),
            (\.encodingApplications, "encodingApplications"),
            (\.fontNames, "fontNames"),
            (\.editors, "editors"),
            (\.participants, "participants"),
            (\.projects, "projects"),
            (\.contentSources, "contentSources"),
            (\.contactKeywords, "contactKeywords"),
            (\.codecs, "codecs"),
            (\.mediaTypes, "mediaTypes"),
            (\.organizations, "organizations"),
            (\.languages, "languages"),
            (\.publishers, "publishers"),
            (\.contributors, "contributors"),
            (\.coverage, "coverage"),
            (\.performers, "performers"),
            (\.layerNames, "layerNames"),
            (\.accountHandles, "accountHandles"),
            (\.mailboxIdentifiers, "mailboxIdentifiers"),
            (\.authorNames, "authorNames"),
            (\.recipientNames, "recipientNames"),
            (\.authorEmailAddresses, "authorEmailAddresses"),
            (\.recipientEmailAddresses, "recipientEmailAddresses"),
            (\.authorAddresses, "authorAddresses"),
            (\.recipientAddresses, "recipientAddresses"),
            (\.phoneNumbers, "phoneNumbers"),
            (\.emailAddresses, "emailAddresses"),
            (\.instantMessageAddresses, "instantMessageAddresses"),
        ]
    }

    static var numberProperties: [(ReferenceWritableKeyPath<CSSearchableItemAttributeSet, NSNumber?>, String)] {
        [
            (\.rankingHint, "rankingHint"),
            (\.containerOrder, "containerOrder"),
            (\.fileSize, "fileSize"),
            (\.pageCount, "pageCount"),
            (\.pageWidth, "pageWidth"),
            (\.pageHeight, "pageHeight"),
            (\.duration, "duration"),
            (\.totalBitRate, "totalBitRate"),
            (\.videoBitRate, "videoBitRate"),
            (\.audioBitRate, "audioBitRate"),
            (\.deliveryType, "deliveryType"),
            (\.rating, "rating"),
            (\.playCount, "playCount"),
            (\.contentRating, "contentRating"),
            (\.audioSampleRate, "audioSampleRate"),
            (\.audioChannelCount, "audioChannelCount"),
            (\.tempo, "tempo"),
            (\.audioTrackNumber, "audioTrackNumber"),
            (\.pixelHeight, "pixelHeight"),
            (\.pixelWidth, "pixelWidth"),
            (\.pixelCount, "pixelCount"),
            (\.bitsPerSample, "bitsPerSample"),
            (\.focalLength, "focalLength"),
            (\.isoSpeed, "isoSpeed"),
            (\.orientation, "orientation"),
            (\.whiteBalance, "whiteBalance"),
            (\.aperture, "aperture"),
            (\.resolutionWidthDPI, "resolutionWidthDPI"),
            (\.resolutionHeightDPI, "resolutionHeightDPI"),
            (\.exposureMode, "exposureMode"),
            (\.exposureTime, "exposureTime"),
            (\.maxAperture, "maxAperture"),
            (\.fNumber, "fNumber"),
            (\.altitude, "altitude"),
            (\.latitude, "latitude"),
            (\.longitude, "longitude"),
            (\.speed, "speed"),
            (\.imageDirection, "imageDirection"),
            (\.gpsTrack, "gpsTrack"),
            (\.gpsdop, "gpsdop"),
            (\.gpsDestLatitude, "gpsDestLatitude"),
            (\.gpsDestLongitude, "gpsDestLongitude"),
            (\.gpsDestBearing, "gpsDestBearing"),
            (\.gpsDestDistance, "gpsDestDistance"),
            (\.gpsDifferental, "gpsDifferental"),
            (\.userCreated, "userCreated"),
            (\.userOwned, "userOwned"),
            (\.userCurated, "userCurated"),
            (\.supportsPhoneCall, "supportsPhoneCall"),
            (\.supportsNavigation, "supportsNavigation"),
            (\.allDay, "allDay"),
            (\.streamable, "streamable"),
            (\.local, "local"),
            (\.generalMIDISequence, "generalMIDISequence"),
            (\.flashOn, "flashOn"),
            (\.focalLength35mm, "focalLength35mm"),
            (\.hasAlphaChannel, "hasAlphaChannel"),
            (\.redEyeOn, "redEyeOn"),
            (\.isPriority, "isPriority"),
        ]
    }

    static var dateProperties: [(ReferenceWritableKeyPath<CSSearchableItemAttributeSet, Date?>, String)] {
        [
            (\.metadataModificationDate, "metadataModificationDate"),
            (\.dueDate, "dueDate"),
            (\.completionDate, "completionDate"),
            (\.startDate, "startDate"),
            (\.endDate, "endDate"),
            (\.downloadedDate, "downloadedDate"),
            (\.lastUsedDate, "lastUsedDate"),
            (\.contentCreationDate, "contentCreationDate"),
            (\.contentModificationDate, "contentModificationDate"),
            (\.addedDate, "addedDate"),
            (\.recordingDate, "recordingDate"),
            (\.timestamp, "timestamp"),
            (\.gpsDateStamp, "gpsDateStamp"),
        ]
    }

    static var dateArrayProperties: [(ReferenceWritableKeyPath<CSSearchableItemAttributeSet, [Date]?>, String)] {
        [
            (\.importantDates, "importantDates"),
        ]
    }

    static var urlProperties: [(ReferenceWritableKeyPath<CSSearchableItemAttributeSet, URL?>, String)] {
        [
            (\.contentURL, "contentURL"),
            (\.thumbnailURL, "thumbnailURL"),
            (\.darkThumbnailURL, "darkThumbnailURL"),
            (\.url, "url"),
        ]
    }

    static var dataProperties: [(ReferenceWritableKeyPath<CSSearchableItemAttributeSet, Data?>, String)] {
        [
            (\.thumbnailData, "thumbnailData"),
            (\.htmlContentData, "htmlContentData"),
        ]
    }

    static var personProperties: [(ReferenceWritableKeyPath<CSSearchableItemAttributeSet, [CSPerson]?>, String)] {
        [
            (\.authors, "authors"),
            (\.primaryRecipients, "primaryRecipients"),
            (\.additionalRecipients, "additionalRecipients"),
            (\.hiddenAdditionalRecipients, "hiddenAdditionalRecipients"),
        ]
    }

    /// The `NSNumber` attributes that hold a Boolean.
    static let booleanNames: Set<String> = [
        "userCreated", "userOwned", "userCurated", "supportsPhoneCall", "supportsNavigation",
        "allDay", "streamable", "local", "generalMIDISequence", "flashOn",
        "focalLength35mm", "hasAlphaChannel", "redEyeOn", "isPriority", "likelyJunk",
    ]
}
