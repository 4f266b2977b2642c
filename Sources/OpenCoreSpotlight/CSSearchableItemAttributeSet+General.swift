import Foundation

/// General attributes: names, paths, types, keywords, thumbnails, user involvement and ranking hints.
///
/// Apple's header category: `CSSearchableItemAttributeSet (CSGeneral)`.
extension CSSearchableItemAttributeSet {
    /// A localized name for the item, shown in place of its title in the user interface.
    ///
    /// Queries may also name it `kMDItemDisplayName`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/displayname>
    public var displayName: String? {
        get { _string("displayName") }
        set { _setString("displayName", newValue) }
    }

    /// Other localized names the item can be found by.
    ///
    /// Queries may also name it `kMDItemAlternateNames`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/alternatenames>
    public var alternateNames: [String]? {
        get { _strings("alternateNames") }
        set { _setStrings("alternateNames", newValue) }
    }

    /// The complete file-system path of the item.
    ///
    /// Queries may also name it `kMDItemPath`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/path>
    public var path: String? {
        get { _string("path") }
        set { _setString("path", newValue) }
    }

    /// The file URL of the content the item describes.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/contenturl>
    public var contentURL: URL? {
        get { _url("contentURL") }
        set { _setURL("contentURL", newValue) }
    }

    /// The file URL of a thumbnail image for the item.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/thumbnailurl>
    public var thumbnailURL: URL? {
        get { _url("thumbnailURL") }
        set { _setURL("thumbnailURL", newValue) }
    }

    /// The file URL of a thumbnail image to show in Dark Mode.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/darkthumbnailurl>
    public var darkThumbnailURL: URL? {
        get { _url("darkThumbnailURL") }
        set { _setURL("darkThumbnailURL", newValue) }
    }

    /// The bytes of a thumbnail image for the item.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/thumbnaildata>
    public var thumbnailData: Data? {
        get { _data("thumbnailData") }
        set { _setData("thumbnailData", newValue) }
    }

    /// The unique identifier of the indexed item a user activity is about; links their lifetimes.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/relateduniqueidentifier>
    public var relatedUniqueIdentifier: String? {
        get { _string("relatedUniqueIdentifier") }
        set { _setString("relatedUniqueIdentifier", newValue) }
    }

    /// The unique identifier of an indexed item a user activity relates to, without linking their lifetimes.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/weakrelateduniqueidentifier>
    public var weakRelatedUniqueIdentifier: String? {
        get { _string("weakRelatedUniqueIdentifier") }
        set { _setString("weakRelatedUniqueIdentifier", newValue) }
    }

    /// The date the item's metadata last changed.
    ///
    /// Queries may also name it `kMDItemAttributeChangeDate`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/metadatamodificationdate>
    public var metadataModificationDate: Date? {
        get { _date("metadataModificationDate") }
        set { _setDate("metadataModificationDate", newValue) }
    }

    /// The uniform type identifier of the item, such as `public.jpeg`.
    ///
    /// Queries may also name it `kMDItemContentType`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/contenttype>
    public var contentType: String? {
        get { _string("contentType") }
        set { _setString("contentType", newValue) }
    }

    /// The item's type and the types it conforms to, most specific first.
    ///
    /// Queries may also name it `kMDItemContentTypeTree`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/contenttypetree>
    public var contentTypeTree: [String]? {
        get { _strings("contentTypeTree") }
        set { _setStrings("contentTypeTree", newValue) }
    }

    /// Keywords that describe the item, such as synonyms, abbreviations and categories.
    ///
    /// Queries may also name it `kMDItemKeywords`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/keywords>
    public var keywords: [String]? {
        get { _strings("keywords") }
        set { _setStrings("keywords", newValue) }
    }

    /// The title of the item: a document's title, a song's name, a message's subject.
    ///
    /// Queries may also name it `kMDItemTitle`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/title>
    public var title: String? {
        get { _string("title") }
        set { _setString("title", newValue) }
    }

    /// A version string for the item.
    ///
    /// Queries may also name it `kMDItemVersion`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/version>
    public var version: String? {
        get { _string("version") }
        set { _setString("version", newValue) }
    }

    /// Whether the user created the item (a note, a document), as a Boolean number.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/usercreated>
    public var userCreated: NSNumber? {
        get { _number("userCreated") }
        set { _setNumber("userCreated", newValue) }
    }

    /// Whether the user bought or otherwise acquired the item, as a Boolean number.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/userowned>
    public var userOwned: NSNumber? {
        get { _number("userOwned") }
        set { _setNumber("userOwned", newValue) }
    }

    /// Whether the user chose to add the item to a collection (a bookmark, a download), as a Boolean number.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/usercurated>
    public var userCurated: NSNumber? {
        get { _number("userCurated") }
        set { _setNumber("userCurated", newValue) }
    }

    /// The item's importance among the app's items, 0 to 100, higher is better.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/rankinghint>
    public var rankingHint: NSNumber? {
        get { _number("rankingHint") }
        set { _setNumber("rankingHint", newValue) }
    }

    /// The domain of the item, so that activities can be deleted by domain like searchable items.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/domainidentifier>
    public var domainIdentifier: String? {
        get { _string("domainIdentifier") }
        set { _setString("domainIdentifier", newValue) }
    }

    // Deviation: `relatedAppEntityIdentifier: EntityIdentifier?` (iOS 27 / macOS 27 beta) is not provided: its type
    // belongs to App Intents, which has no Linux counterpart.
}
