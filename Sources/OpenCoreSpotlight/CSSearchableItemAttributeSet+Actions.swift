import Foundation

/// Attributes that enable actions on a search result: calling, navigating, custom actions and sharing.
///
/// Apple's header category: `CSSearchableItemAttributeSet (CSActionExtras)`.
extension CSSearchableItemAttributeSet {
    /// Whether calling one of the item's `phoneNumbers` is a primary action for it, as a Boolean number.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/supportsphonecall>
    public var supportsPhoneCall: NSNumber? {
        get { _number("supportsPhoneCall") }
        set { _setNumber("supportsPhoneCall", newValue) }
    }

    /// Whether navigating to the item's `latitude` and `longitude` is a primary action for it, as a Boolean number.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/supportsnavigation>
    public var supportsNavigation: NSNumber? {
        get { _number("supportsNavigation") }
        set { _setNumber("supportsNavigation", newValue) }
    }

    /// The identifiers of the app's custom actions offered for the item.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/actionidentifiers>
    public var actionIdentifiers: [String] {
        // Apple's property is non-optional: an empty array means no actions, and setting one removes the attribute.
        get { _strings("actionIdentifiers") ?? [] }
        set { _setStrings("actionIdentifiers", newValue.isEmpty ? nil : newValue) }
    }

    /// The type of file to produce when the user shares the item from search results.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/shareditemcontenttype>
    public var sharedItemContentType: UTType? {
        // Stored as the type identifier, so it is queryable and survives the index like any string attribute.
        get { _string("sharedItemContentType").map { UTType($0) ?? UTType(_unknownIdentifier: $0) } }
        set { _setString("sharedItemContentType", newValue?.identifier) }
    }
}
