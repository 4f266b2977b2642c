import Foundation

/// Attributes of media and published works: people, dates, codecs, bit rates, ratings, rights.
///
/// Apple's header category: `CSSearchableItemAttributeSet (CSMedia)`.
extension CSSearchableItemAttributeSet {
    /// The people who edited the item.
    ///
    /// Queries may also name it `kMDItemEditors`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/editors>
    public var editors: [String]? {
        get { _strings("editors") }
        set { _setStrings("editors", newValue) }
    }

    /// The people visible in an image or movie, or written about in a document.
    ///
    /// Queries may also name it `kMDItemParticipants`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/participants>
    public var participants: [String]? {
        get { _strings("participants") }
        set { _setStrings("participants", newValue) }
    }

    /// The projects the item belongs to.
    ///
    /// Queries may also name it `kMDItemProjects`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/projects>
    public var projects: [String]? {
        get { _strings("projects") }
        set { _setStrings("projects", newValue) }
    }

    /// The date the item was last downloaded or received.
    ///
    /// Queries may also name it `kMDItemDownloadedDate`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/downloadeddate>
    public var downloadedDate: Date? {
        get { _date("downloadedDate") }
        set { _setDate("downloadedDate", newValue) }
    }

    /// Where the item came from, such as a website or a sender.
    ///
    /// Queries may also name it `kMDItemWhereFroms`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/contentsources>
    public var contentSources: [String]? {
        get { _strings("contentSources") }
        set { _setStrings("contentSources", newValue) }
    }

    /// A comment about the item.
    ///
    /// Queries may also name it `kMDItemComment`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/comment>
    public var comment: String? {
        get { _string("comment") }
        set { _setString("comment", newValue) }
    }

    /// The copyright statement of the content.
    ///
    /// Queries may also name it `kMDItemCopyright`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/copyright>
    public var copyright: String? {
        get { _string("copyright") }
        set { _setString("copyright", newValue) }
    }

    /// The date the user last used the item; a freshness signal for ranking.
    ///
    /// Queries may also name it `kMDItemLastUsedDate`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/lastuseddate>
    public var lastUsedDate: Date? {
        get { _date("lastUsedDate") }
        set { _setDate("lastUsedDate", newValue) }
    }

    /// The date the content was created.
    ///
    /// Queries may also name it `kMDItemContentCreationDate`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/contentcreationdate>
    public var contentCreationDate: Date? {
        get { _date("contentCreationDate") }
        set { _setDate("contentCreationDate", newValue) }
    }

    /// The date the content was last modified.
    ///
    /// Queries may also name it `kMDItemContentModificationDate`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/contentmodificationdate>
    public var contentModificationDate: Date? {
        get { _date("contentModificationDate") }
        set { _setDate("contentModificationDate", newValue) }
    }

    /// The date the item was moved to its current location.
    ///
    /// Queries may also name it `kMDItemDateAdded`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/addeddate>
    public var addedDate: Date? {
        get { _date("addedDate") }
        set { _setDate("addedDate", newValue) }
    }

    /// The duration of the content, in seconds.
    ///
    /// Queries may also name it `kMDItemDurationSeconds`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/duration>
    public var duration: NSNumber? {
        get { _number("duration") }
        set { _setNumber("duration", newValue) }
    }

    /// Contacts associated with the item besides its authors.
    ///
    /// Queries may also name it `kMDItemContactKeywords`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/contactkeywords>
    public var contactKeywords: [String]? {
        get { _strings("contactKeywords") }
        set { _setStrings("contactKeywords", newValue) }
    }

    /// The codecs used to encode the media.
    ///
    /// Queries may also name it `kMDItemCodecs`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/codecs>
    public var codecs: [String]? {
        get { _strings("codecs") }
        set { _setStrings("codecs", newValue) }
    }

    /// The media types present in the content.
    ///
    /// Queries may also name it `kMDItemMediaTypes`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/mediatypes>
    public var mediaTypes: [String]? {
        get { _strings("mediaTypes") }
        set { _setStrings("mediaTypes", newValue) }
    }

    /// Whether the content is prepared for streaming, as a Boolean number.
    ///
    /// Queries may also name it `kMDItemStreamable`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/streamable>
    public var streamable: NSNumber? {
        get { _number("streamable") }
        set { _setNumber("streamable", newValue) }
    }

    /// The combined audio and video bit rate of the media.
    ///
    /// Queries may also name it `kMDItemTotalBitRate`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/totalbitrate>
    public var totalBitRate: NSNumber? {
        get { _number("totalBitRate") }
        set { _setNumber("totalBitRate", newValue) }
    }

    /// The video bit rate of the media.
    ///
    /// Queries may also name it `kMDItemVideoBitRate`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/videobitrate>
    public var videoBitRate: NSNumber? {
        get { _number("videoBitRate") }
        set { _setNumber("videoBitRate", newValue) }
    }

    /// The audio bit rate of the media.
    ///
    /// Queries may also name it `kMDItemAudioBitRate`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/audiobitrate>
    public var audioBitRate: NSNumber? {
        get { _number("audioBitRate") }
        set { _setNumber("audioBitRate", newValue) }
    }

    /// How the media is delivered: 0 for fast start, 1 for RTSP.
    ///
    /// Queries may also name it `kMDItemDeliveryType`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/deliverytype>
    public var deliveryType: NSNumber? {
        get { _number("deliveryType") }
        set { _setNumber("deliveryType", newValue) }
    }

    /// The organizations that created the content.
    ///
    /// Queries may also name it `kMDItemOrganizations`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/organizations>
    public var organizations: [String]? {
        get { _strings("organizations") }
        set { _setStrings("organizations", newValue) }
    }

    /// The role of the content's creator.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/role>
    public var role: String? {
        get { _string("role") }
        set { _setString("role", newValue) }
    }

    /// The languages of the content, as BCP 47 tags.
    ///
    /// Queries may also name it `kMDItemLanguages`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/languages>
    public var languages: [String]? {
        get { _strings("languages") }
        set { _setStrings("languages", newValue) }
    }

    /// A statement of, or a link to, the rights held over the content.
    ///
    /// Queries may also name it `kMDItemRights`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/rights>
    public var rights: String? {
        get { _string("rights") }
        set { _setString("rights", newValue) }
    }

    /// The people or organizations that made the content available.
    ///
    /// Queries may also name it `kMDItemPublishers`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/publishers>
    public var publishers: [String]? {
        get { _strings("publishers") }
        set { _setStrings("publishers", newValue) }
    }

    /// The people or organizations that contributed to the content.
    ///
    /// Queries may also name it `kMDItemContributors`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/contributors>
    public var contributors: [String]? {
        get { _strings("contributors") }
        set { _setStrings("contributors", newValue) }
    }

    /// The extent or scope of the content: places, periods, jurisdictions.
    ///
    /// Queries may also name it `kMDItemCoverage`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/coverage>
    public var coverage: [String]? {
        get { _strings("coverage") }
        set { _setStrings("coverage", newValue) }
    }

    /// The user's rating of the item, out of 5.
    ///
    /// Queries may also name it `kMDItemStarRating`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/rating>
    public var rating: NSNumber? {
        get { _number("rating") }
        set { _setNumber("rating", newValue) }
    }

    /// A description of the rating, such as the number of reviewers.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/ratingdescription>
    public var ratingDescription: String? {
        get { _string("ratingDescription") }
        set { _setString("ratingDescription", newValue) }
    }

    /// How many times the user played the item.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/playcount>
    public var playCount: NSNumber? {
        get { _number("playCount") }
        set { _setNumber("playCount", newValue) }
    }

    /// Information about the item.
    ///
    /// Queries may also name it `kMDItemInformation`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/information>
    public var information: String? {
        get { _string("information") }
        set { _setString("information", newValue) }
    }

    /// The director of the content, such as a movie director.
    ///
    /// Queries may also name it `kMDItemDirector`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/director>
    public var director: String? {
        get { _string("director") }
        set { _setString("director", newValue) }
    }

    /// The producer of the content.
    ///
    /// Queries may also name it `kMDItemProducer`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/producer>
    public var producer: String? {
        get { _string("producer") }
        set { _setString("producer", newValue) }
    }

    /// The genre of the content, such as a movie genre.
    ///
    /// Queries may also name it `kMDItemGenre`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/genre>
    public var genre: String? {
        get { _string("genre") }
        set { _setString("genre", newValue) }
    }

    /// The performers in the content.
    ///
    /// Queries may also name it `kMDItemPerformers`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/performers>
    public var performers: [String]? {
        get { _strings("performers") }
        set { _setStrings("performers", newValue) }
    }

    /// The original format of the content.
    ///
    /// Queries may also name it `kMDItemOriginalFormat`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/originalformat>
    public var originalFormat: String? {
        get { _string("originalFormat") }
        set { _setString("originalFormat", newValue) }
    }

    /// The original source of the content.
    ///
    /// Queries may also name it `kMDItemOriginalSource`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/originalsource>
    public var originalSource: String? {
        get { _string("originalSource") }
        set { _setString("originalSource", newValue) }
    }

    /// Whether the item is stored locally, as a Boolean number.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/local>
    public var local: NSNumber? {
        get { _number("local") }
        set { _setNumber("local", newValue) }
    }

    /// Whether the content is explicit: 1 for explicit, 0 for clean.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/contentrating>
    public var contentRating: NSNumber? {
        get { _number("contentRating") }
        set { _setNumber("contentRating", newValue) }
    }

    /// The URL of the item.
    ///
    /// The Objective-C name is `URL`. Queries may also name it `kMDItemURL`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/url>
    public var url: URL? {
        get { _url("url") }
        set { _setURL("url", newValue) }
    }
}
