import Foundation

/// Attributes of documents: subject, description, identifiers, pages, fonts.
///
/// Apple's header category: `CSSearchableItemAttributeSet (CSDocuments)`.
extension CSSearchableItemAttributeSet {
    /// Moves every attribute set in `sourceAttributeSet` (standard and custom) into this set, replacing values of
    /// the same attributes, and leaves the source empty.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/movefrom(_:)>
    // Deviation: Apple does not document what moveFrom(_:) does; here it merges the source's values into the
    // receiver (the source's win) and empties the source, as "move" says.
    public func moveFrom(_ sourceAttributeSet: CSSearchableItemAttributeSet) {
        guard sourceAttributeSet !== self else { return }
        for (name, value) in sourceAttributeSet.attributes {
            attributes[name] = value
            clearedAttributes.remove(name)
        }
        for (name, entry) in sourceAttributeSet.customAttributes {
            customAttributes[name] = entry
            clearedCustomKeys[name] = nil
            if sourceAttributeSet.invalidCustomKeys.contains(name) {
                invalidCustomKeys.insert(name)
            } else {
                invalidCustomKeys.remove(name)
            }
        }
        sourceAttributeSet.attributes = [:]
        sourceAttributeSet.customAttributes = [:]
        sourceAttributeSet.invalidCustomKeys = []
    }

    /// The subject of the item.
    ///
    /// Queries may also name it `kMDItemSubject`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/subject>
    public var subject: String? {
        get { _string("subject") }
        set { _setString("subject", newValue) }
    }

    /// The theme of the item.
    ///
    /// Queries may also name it `kMDItemTheme`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/theme>
    public var theme: String? {
        get { _string("theme") }
        set { _setString("theme", newValue) }
    }

    /// A description of the item's content, usually shown as the subtitle of a result.
    ///
    /// Queries may also name it `kMDItemDescription`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/contentdescription>
    public var contentDescription: String? {
        get { _string("contentDescription") }
        set { _setString("contentDescription", newValue) }
    }

    /// A formal identifier of the resource, such as an ISBN or a DOI.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/identifier>
    public var identifier: String? {
        get { _string("identifier") }
        set { _setString("identifier", newValue) }
    }

    /// The audiences the item is intended for.
    ///
    /// Queries may also name it `kMDItemAudiences`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/audiences>
    public var audiences: [String]? {
        get { _strings("audiences") }
        set { _setStrings("audiences", newValue) }
    }

    /// The size of the document, in megabytes.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/filesize>
    public var fileSize: NSNumber? {
        get { _number("fileSize") }
        set { _setNumber("fileSize", newValue) }
    }

    /// The number of pages in the document.
    ///
    /// Queries may also name it `kMDItemNumberOfPages`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/pagecount>
    public var pageCount: NSNumber? {
        get { _number("pageCount") }
        set { _setNumber("pageCount", newValue) }
    }

    /// The width of the first page, in points (72 per inch).
    ///
    /// Queries may also name it `kMDItemPageWidth`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/pagewidth>
    public var pageWidth: NSNumber? {
        get { _number("pageWidth") }
        set { _setNumber("pageWidth", newValue) }
    }

    /// The height of the first page, in points (72 per inch).
    ///
    /// Queries may also name it `kMDItemPageHeight`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/pageheight>
    public var pageHeight: NSNumber? {
        get { _number("pageHeight") }
        set { _setNumber("pageHeight", newValue) }
    }

    /// The encryption method that protects the document.
    ///
    /// Queries may also name it `kMDItemSecurityMethod`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/securitymethod>
    public var securityMethod: String? {
        get { _string("securityMethod") }
        set { _setString("securityMethod", newValue) }
    }

    /// The application that created the content, such as a word processor.
    ///
    /// Queries may also name it `kMDItemCreator`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/creator>
    public var creator: String? {
        get { _string("creator") }
        set { _setString("creator", newValue) }
    }

    /// The software that converted the original content into a PDF stream.
    ///
    /// Queries may also name it `kMDItemEncodingApplications`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/encodingapplications>
    public var encodingApplications: [String]? {
        get { _strings("encodingApplications") }
        set { _setStrings("encodingApplications", newValue) }
    }

    /// A description of the kind of item.
    ///
    /// Queries may also name it `kMDItemKind`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/kind>
    public var kind: String? {
        get { _string("kind") }
        set { _setString("kind", newValue) }
    }

    /// The names of the fonts the document uses.
    ///
    /// Queries may also name it `kMDItemFonts`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/fontnames>
    public var fontNames: [String]? {
        get { _strings("fontNames") }
        set { _setStrings("fontNames", newValue) }
    }
}
