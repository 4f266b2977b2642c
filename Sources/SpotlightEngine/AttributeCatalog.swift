/// How a catalogued attribute's value is shaped.
package enum AttributeKind: Sendable, Hashable {
    /// One string (`String?`; also `UTType?`, stored as the type identifier).
    case string
    /// An array of strings (`[String]?`).
    case strings
    /// A number (`NSNumber?`): an integer or a floating-point value.
    case number
    /// A Boolean carried in an `NSNumber` (`supportsPhoneCall`, `userCreated`, `isPriority`…).
    case bool
    /// One date (`Date?`).
    case date
    /// An array of dates (`[Date]?`).
    case dates
    /// A URL (`URL?`).
    case url
    /// Bytes (`Data?`).
    case data
    /// An array of people (`[CSPerson]?`).
    case persons
    /// E-mail headers (`[String: [Any]]?`), stored as one array per header: the name, then its values.
    case headers
}

/// How strongly an attribute's text counts in free-text search; lower tiers rank higher.
package enum TextTier: Int, Sendable, Comparable {
    /// What the item is called: `title`, `displayName`.
    case name = 0
    /// Words the item is tagged with: `keywords`, `alternateNames`.
    case keyword = 1
    /// Short text about the item: `contentDescription`, `subject`, `theme`, `headline`, `comment`, …
    case description = 2
    /// The item's body and every other human-readable text: `textContent`, people, places, credits, …
    case body = 3

    package static func < (lhs: TextTier, rhs: TextTier) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One attribute of `CSSearchableItemAttributeSet`, as the engine sees it.
package struct AttributeDescriptor: Sendable, Hashable {
    /// The attribute's name: the Swift property name, which is also the storage key and the name used in queries.
    package let name: String
    /// The shape of its value.
    package let kind: AttributeKind
    /// Its tier in free-text search, or `nil` when it is searchable only by naming it in a query.
    package let textTier: TextTier?
    /// The Spotlight `kMDItem…` name accepted as an alias in queries, if there is one.
    package let mdItemAlias: String?

    package init(name: String, kind: AttributeKind, textTier: TextTier?, mdItemAlias: String?) {
        self.name = name
        self.kind = kind
        self.textTier = textTier
        self.mdItemAlias = mdItemAlias
    }

    fileprivate init(_ name: String, _ kind: AttributeKind, _ textTier: TextTier?, _ mdItemAlias: String?) {
        self.init(name: name, kind: kind, textTier: textTier, mdItemAlias: mdItemAlias)
    }
}

/// Every attribute of Apple's `CSSearchableItemAttributeSet` catalogue, with its kind, free-text tier and
/// `kMDItem…` alias.
///
/// ```swift
/// AttributeCatalog.descriptor(named: "kMDItemTitle")?.name   // "title"
/// AttributeCatalog.descriptor(named: "title")?.textTier      // .name
/// AttributeCatalog.descriptor(named: "kMDItemFSSize")        // nil: no such attribute here
/// ```
///
/// Which attributes take part in free-text search (`textTier != nil`): every attribute holding text a person
/// would type to find the item — names, keywords, descriptions, bodies, people (names and handles: phone numbers and
/// e-mail addresses are what people search contacts and messages by), credits, places, camera make and model.
/// Attributes that are not (`textTier == nil`) are still matched when a query names them
/// (`contentType == "public.jpeg"`): identifiers (`relatedUniqueIdentifier`, `domainIdentifier`, `identifier`,
/// `containerIdentifier`, `accountIdentifier`, `accountHandles`, `mailboxIdentifiers`, the provider and action
/// identifiers), types (`contentType`, `contentTypeTree`, `sharedItemContentType`), locations of files
/// (`path`, `contentURL`, the thumbnails, `url`), numbers, dates, data, `emailHeaders`, and technical strings
/// (`version`, `kind`, codecs, color spaces, EXIF and GPS fields, languages, fonts, encoders, `contentSources`).
///
/// Names resolve from the property name (`htmlContentData`), Apple's Objective-C spelling where it differs
/// (`HTMLContentData`, `URL`, `ISOSpeed`, `GPSTrack`…) and the `kMDItem…` alias (`kMDItemHTMLContent`). The aliases
/// are Spotlight's own names for the same data, as listed in the specification (§3.5); a `kMDItem…` name that maps
/// to no attribute here resolves to `nil`, and the query layer treats it as an attribute no item has.
/// `kMDItemIdentifier` is not an alias of `identifier`: queries resolve it to the item's `uniqueIdentifier`.
package enum AttributeCatalog {
    /// Every catalogued attribute, in Apple's header order (General, Actions, Containment, Item provider,
    /// Documents, Events, Media, Music, Images, Messaging, Places, Apple Intelligence).
    package static let all: [AttributeDescriptor] = [
        // General
        .init("displayName", .string, .name, "kMDItemDisplayName"),
        .init("alternateNames", .strings, .keyword, "kMDItemAlternateNames"),
        .init("path", .string, nil, "kMDItemPath"),
        .init("contentURL", .url, nil, nil),
        .init("thumbnailURL", .url, nil, nil),
        .init("darkThumbnailURL", .url, nil, nil),
        .init("thumbnailData", .data, nil, nil),
        .init("relatedUniqueIdentifier", .string, nil, nil),
        .init("weakRelatedUniqueIdentifier", .string, nil, nil),
        .init("metadataModificationDate", .date, nil, "kMDItemAttributeChangeDate"),
        .init("contentType", .string, nil, "kMDItemContentType"),
        .init("contentTypeTree", .strings, nil, "kMDItemContentTypeTree"),
        .init("keywords", .strings, .keyword, "kMDItemKeywords"),
        .init("title", .string, .name, "kMDItemTitle"),
        .init("version", .string, nil, "kMDItemVersion"),
        .init("userCreated", .bool, nil, nil),
        .init("userOwned", .bool, nil, nil),
        .init("userCurated", .bool, nil, nil),
        .init("rankingHint", .number, nil, nil),
        .init("domainIdentifier", .string, nil, nil),
        // Actions
        .init("supportsPhoneCall", .bool, nil, nil),
        .init("supportsNavigation", .bool, nil, nil),
        .init("actionIdentifiers", .strings, nil, nil),
        .init("sharedItemContentType", .string, nil, nil),
        // Containment
        .init("containerTitle", .string, .body, nil),
        .init("containerDisplayName", .string, .body, nil),
        .init("containerIdentifier", .string, nil, nil),
        .init("containerOrder", .number, nil, nil),
        // ItemProvider
        .init("providerDataTypeIdentifiers", .strings, nil, nil),
        .init("providerFileTypeIdentifiers", .strings, nil, nil),
        .init("providerInPlaceFileTypeIdentifiers", .strings, nil, nil),
        // Documents
        .init("subject", .string, .description, "kMDItemSubject"),
        .init("theme", .string, .description, "kMDItemTheme"),
        .init("contentDescription", .string, .description, "kMDItemDescription"),
        .init("identifier", .string, nil, nil),
        .init("audiences", .strings, .body, "kMDItemAudiences"),
        .init("fileSize", .number, nil, nil),
        .init("pageCount", .number, nil, "kMDItemNumberOfPages"),
        .init("pageWidth", .number, nil, "kMDItemPageWidth"),
        .init("pageHeight", .number, nil, "kMDItemPageHeight"),
        .init("securityMethod", .string, nil, "kMDItemSecurityMethod"),
        .init("creator", .string, .body, "kMDItemCreator"),
        .init("encodingApplications", .strings, nil, "kMDItemEncodingApplications"),
        .init("kind", .string, nil, "kMDItemKind"),
        .init("fontNames", .strings, nil, "kMDItemFonts"),
        // Events
        .init("dueDate", .date, nil, "kMDItemDueDate"),
        .init("completionDate", .date, nil, nil),
        .init("startDate", .date, nil, nil),
        .init("endDate", .date, nil, nil),
        .init("importantDates", .dates, nil, nil),
        .init("allDay", .bool, nil, nil),
        // Media
        .init("editors", .strings, .body, "kMDItemEditors"),
        .init("participants", .strings, .body, "kMDItemParticipants"),
        .init("projects", .strings, .body, "kMDItemProjects"),
        .init("downloadedDate", .date, nil, "kMDItemDownloadedDate"),
        .init("contentSources", .strings, nil, "kMDItemWhereFroms"),
        .init("comment", .string, .description, "kMDItemComment"),
        .init("copyright", .string, .body, "kMDItemCopyright"),
        .init("lastUsedDate", .date, nil, "kMDItemLastUsedDate"),
        .init("contentCreationDate", .date, nil, "kMDItemContentCreationDate"),
        .init("contentModificationDate", .date, nil, "kMDItemContentModificationDate"),
        .init("addedDate", .date, nil, "kMDItemDateAdded"),
        .init("duration", .number, nil, "kMDItemDurationSeconds"),
        .init("contactKeywords", .strings, .body, "kMDItemContactKeywords"),
        .init("codecs", .strings, nil, "kMDItemCodecs"),
        .init("mediaTypes", .strings, nil, "kMDItemMediaTypes"),
        .init("streamable", .bool, nil, "kMDItemStreamable"),
        .init("totalBitRate", .number, nil, "kMDItemTotalBitRate"),
        .init("videoBitRate", .number, nil, "kMDItemVideoBitRate"),
        .init("audioBitRate", .number, nil, "kMDItemAudioBitRate"),
        .init("deliveryType", .number, nil, "kMDItemDeliveryType"),
        .init("organizations", .strings, .body, "kMDItemOrganizations"),
        .init("role", .string, .body, nil),
        .init("languages", .strings, nil, "kMDItemLanguages"),
        .init("rights", .string, .body, "kMDItemRights"),
        .init("publishers", .strings, .body, "kMDItemPublishers"),
        .init("contributors", .strings, .body, "kMDItemContributors"),
        .init("coverage", .strings, .body, "kMDItemCoverage"),
        .init("rating", .number, nil, "kMDItemStarRating"),
        .init("ratingDescription", .string, .body, nil),
        .init("playCount", .number, nil, nil),
        .init("information", .string, .description, "kMDItemInformation"),
        .init("director", .string, .body, "kMDItemDirector"),
        .init("producer", .string, .body, "kMDItemProducer"),
        .init("genre", .string, .body, "kMDItemGenre"),
        .init("performers", .strings, .body, "kMDItemPerformers"),
        .init("originalFormat", .string, nil, "kMDItemOriginalFormat"),
        .init("originalSource", .string, nil, "kMDItemOriginalSource"),
        .init("local", .bool, nil, nil),
        .init("contentRating", .number, nil, nil),
        .init("url", .url, nil, "kMDItemURL"),
        // Music
        .init("audioSampleRate", .number, nil, "kMDItemAudioSampleRate"),
        .init("audioChannelCount", .number, nil, "kMDItemAudioChannelCount"),
        .init("tempo", .number, nil, "kMDItemTempo"),
        .init("keySignature", .string, nil, "kMDItemKeySignature"),
        .init("timeSignature", .string, nil, "kMDItemTimeSignature"),
        .init("audioEncodingApplication", .string, nil, "kMDItemAudioEncodingApplication"),
        .init("composer", .string, .body, "kMDItemComposer"),
        .init("lyricist", .string, .body, "kMDItemLyricist"),
        .init("album", .string, .body, "kMDItemAlbum"),
        .init("artist", .string, .body, nil),
        .init("audioTrackNumber", .number, nil, "kMDItemAudioTrackNumber"),
        .init("recordingDate", .date, nil, "kMDItemRecordingDate"),
        .init("musicalGenre", .string, .body, "kMDItemMusicalGenre"),
        .init("generalMIDISequence", .bool, nil, "kMDItemIsGeneralMIDISequence"),
        .init("musicalInstrumentCategory", .string, .body, "kMDItemMusicalInstrumentCategory"),
        .init("musicalInstrumentName", .string, .body, "kMDItemMusicalInstrumentName"),
        // Images
        .init("pixelHeight", .number, nil, "kMDItemPixelHeight"),
        .init("pixelWidth", .number, nil, "kMDItemPixelWidth"),
        .init("pixelCount", .number, nil, "kMDItemPixelCount"),
        .init("colorSpace", .string, nil, "kMDItemColorSpace"),
        .init("bitsPerSample", .number, nil, "kMDItemBitsPerSample"),
        .init("flashOn", .bool, nil, "kMDItemFlashOnOff"),
        .init("focalLength", .number, nil, "kMDItemFocalLength"),
        .init("focalLength35mm", .bool, nil, "kMDItemFocalLength35mm"),
        .init("acquisitionMake", .string, .body, "kMDItemAcquisitionMake"),
        .init("acquisitionModel", .string, .body, "kMDItemAcquisitionModel"),
        .init("cameraOwner", .string, .body, "kMDItemCameraOwner"),
        .init("lensModel", .string, .body, "kMDItemLensModel"),
        .init("isoSpeed", .number, nil, "kMDItemISOSpeed"),
        .init("orientation", .number, nil, "kMDItemOrientation"),
        .init("layerNames", .strings, nil, "kMDItemLayerNames"),
        .init("whiteBalance", .number, nil, "kMDItemWhiteBalance"),
        .init("aperture", .number, nil, "kMDItemAperture"),
        .init("profileName", .string, nil, "kMDItemProfileName"),
        .init("resolutionWidthDPI", .number, nil, "kMDItemResolutionWidthDPI"),
        .init("resolutionHeightDPI", .number, nil, "kMDItemResolutionHeightDPI"),
        .init("exposureMode", .number, nil, "kMDItemExposureMode"),
        .init("exposureTime", .number, nil, "kMDItemExposureTimeSeconds"),
        .init("exifVersion", .string, nil, "kMDItemEXIFVersion"),
        .init("exifgpsVersion", .string, nil, "kMDItemEXIFGPSVersion"),
        .init("hasAlphaChannel", .bool, nil, "kMDItemHasAlphaChannel"),
        .init("redEyeOn", .bool, nil, "kMDItemRedEyeOnOff"),
        .init("meteringMode", .string, nil, "kMDItemMeteringMode"),
        .init("maxAperture", .number, nil, "kMDItemMaxAperture"),
        .init("fNumber", .number, nil, "kMDItemFNumber"),
        .init("exposureProgram", .string, nil, "kMDItemExposureProgram"),
        .init("exposureTimeString", .string, nil, "kMDItemExposureTimeString"),
        // Messaging
        .init("accountIdentifier", .string, nil, nil),
        .init("accountHandles", .strings, nil, nil),
        .init("htmlContentData", .data, nil, "kMDItemHTMLContent"),
        .init("textContent", .string, .body, "kMDItemTextContent"),
        .init("authors", .persons, .body, nil),
        .init("primaryRecipients", .persons, .body, nil),
        .init("additionalRecipients", .persons, .body, nil),
        .init("hiddenAdditionalRecipients", .persons, .body, nil),
        .init("emailHeaders", .headers, nil, nil),
        .init("mailboxIdentifiers", .strings, nil, nil),
        .init("authorNames", .strings, .body, "kMDItemAuthors"),
        .init("recipientNames", .strings, .body, "kMDItemRecipients"),
        .init("authorEmailAddresses", .strings, .body, "kMDItemAuthorEmailAddresses"),
        .init("recipientEmailAddresses", .strings, .body, "kMDItemRecipientEmailAddresses"),
        .init("authorAddresses", .strings, .body, "kMDItemAuthorAddresses"),
        .init("recipientAddresses", .strings, .body, "kMDItemRecipientAddresses"),
        .init("phoneNumbers", .strings, .body, "kMDItemPhoneNumbers"),
        .init("emailAddresses", .strings, .body, "kMDItemEmailAddresses"),
        .init("instantMessageAddresses", .strings, .body, "kMDItemInstantMessageAddresses"),
        .init("likelyJunk", .bool, nil, "kMDItemIsLikelyJunk"),
        // Places
        .init("headline", .string, .description, "kMDItemHeadline"),
        .init("instructions", .string, .body, "kMDItemInstructions"),
        .init("thoroughfare", .string, .body, nil),
        .init("subThoroughfare", .string, .body, nil),
        .init("postalCode", .string, .body, nil),
        .init("city", .string, .body, "kMDItemCity"),
        .init("stateOrProvince", .string, .body, "kMDItemStateOrProvince"),
        .init("country", .string, .body, "kMDItemCountry"),
        .init("fullyFormattedAddress", .string, .body, nil),
        .init("altitude", .number, nil, "kMDItemAltitude"),
        .init("latitude", .number, nil, "kMDItemLatitude"),
        .init("longitude", .number, nil, "kMDItemLongitude"),
        .init("speed", .number, nil, "kMDItemSpeed"),
        .init("timestamp", .date, nil, "kMDItemTimestamp"),
        .init("imageDirection", .number, nil, "kMDItemImageDirection"),
        .init("namedLocation", .string, .body, "kMDItemNamedLocation"),
        .init("gpsTrack", .number, nil, "kMDItemGPSTrack"),
        .init("gpsStatus", .string, nil, "kMDItemGPSStatus"),
        .init("gpsMeasureMode", .string, nil, "kMDItemGPSMeasureMode"),
        .init("gpsdop", .number, nil, "kMDItemGPSDOP"),
        .init("gpsMapDatum", .string, nil, "kMDItemGPSMapDatum"),
        .init("gpsDestLatitude", .number, nil, "kMDItemGPSDestLatitude"),
        .init("gpsDestLongitude", .number, nil, "kMDItemGPSDestLongitude"),
        .init("gpsDestBearing", .number, nil, "kMDItemGPSDestBearing"),
        .init("gpsDestDistance", .number, nil, "kMDItemGPSDestDistance"),
        .init("gpsProcessingMethod", .string, nil, "kMDItemGPSProcessingMethod"),
        .init("gpsAreaInformation", .string, nil, "kMDItemGPSAreaInformation"),
        .init("gpsDateStamp", .date, nil, "kMDItemGPSDateStamp"),
        .init("gpsDifferental", .number, nil, "kMDItemGPSDifferental"),
        // AppleIntelligence
        .init("isPriority", .bool, nil, nil),
        .init("textContentSummary", .string, .description, nil),
        .init("transcribedTextContent", .string, .body, nil),
    ]

    /// The descriptor for a property name, an Objective-C spelling or a `kMDItem…` alias; `nil` if none.
    package static func descriptor(named name: String) -> AttributeDescriptor? {
        byName[name]
    }

    /// Apple's Objective-C property names that differ from the Swift names.
    private static let objectiveCNames: [String: String] = [
        "URL": "url",
        "ISOSpeed": "isoSpeed",
        "EXIFVersion": "exifVersion",
        "EXIFGPSVersion": "exifgpsVersion",
        "HTMLContentData": "htmlContentData",
        "GPSTrack": "gpsTrack",
        "GPSStatus": "gpsStatus",
        "GPSMeasureMode": "gpsMeasureMode",
        "GPSDOP": "gpsdop",
        "GPSMapDatum": "gpsMapDatum",
        "GPSDestLatitude": "gpsDestLatitude",
        "GPSDestLongitude": "gpsDestLongitude",
        "GPSDestBearing": "gpsDestBearing",
        "GPSDestDistance": "gpsDestDistance",
        "GPSProcessingMethod": "gpsProcessingMethod",
        "GPSAreaInformation": "gpsAreaInformation",
        "GPSDateStamp": "gpsDateStamp",
        "GPSDifferental": "gpsDifferental",
    ]

    private static let byName: [String: AttributeDescriptor] = {
        var table: [String: AttributeDescriptor] = [:]
        for descriptor in all {
            table[descriptor.name] = descriptor
            if let alias = descriptor.mdItemAlias { table[alias] = descriptor }
        }
        for (objectiveCName, name) in objectiveCNames {
            table[objectiveCName] = table[name]
        }
        return table
    }()
}
