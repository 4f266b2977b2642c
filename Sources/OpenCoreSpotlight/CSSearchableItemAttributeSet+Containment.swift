import Foundation

/// Attributes that place an item inside a container, such as an album, a folder or a thread.
///
/// Apple's header category: `CSSearchableItemAttributeSet (CSContainment)`.
extension CSSearchableItemAttributeSet {
    /// The title of the container the item belongs to (an album, a folder, a thread).
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/containertitle>
    public var containerTitle: String? {
        get { _string("containerTitle") }
        set { _setString("containerTitle", newValue) }
    }

    /// A localized name of the container the item belongs to, for display.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/containerdisplayname>
    public var containerDisplayName: String? {
        get { _string("containerDisplayName") }
        set { _setString("containerDisplayName", newValue) }
    }

    /// The identifier of the container the item belongs to.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/containeridentifier>
    public var containerIdentifier: String? {
        get { _string("containerIdentifier") }
        set { _setString("containerIdentifier", newValue) }
    }

    /// The position of the item within its container.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/containerorder>
    public var containerOrder: NSNumber? {
        get { _number("containerOrder") }
        set { _setNumber("containerOrder", newValue) }
    }
}
