import Foundation

/// Attributes that declare the representations an app can deliver for an item (drag and drop, sharing).
///
/// A type identifier may appear in only one of the three arrays.
///
/// Apple's header category: `CSSearchableItemAttributeSet (CSItemProvider)`.
extension CSSearchableItemAttributeSet {
    /// The types, best first, that the index delegate can deliver as data for the item.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/providerdatatypeidentifiers>
    public var providerDataTypeIdentifiers: [String]? {
        get { _strings("providerDataTypeIdentifiers") }
        set { _setStrings("providerDataTypeIdentifiers", newValue) }
    }

    /// The types, best first, that the index delegate can deliver as a copy of a file.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/providerfiletypeidentifiers>
    public var providerFileTypeIdentifiers: [String]? {
        get { _strings("providerFileTypeIdentifiers") }
        set { _setStrings("providerFileTypeIdentifiers", newValue) }
    }

    /// The types, best first, that the index delegate can deliver as the original file, in place.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/providerinplacefiletypeidentifiers>
    public var providerInPlaceFileTypeIdentifiers: [String]? {
        get { _strings("providerInPlaceFileTypeIdentifiers") }
        set { _setStrings("providerInPlaceFileTypeIdentifiers", newValue) }
    }
}
