import Foundation

#if !canImport(Darwin)
/// The Core Spotlight metadata of an activity (Apple declares it in Core Spotlight, on Foundation's class).
extension NSUserActivity {
    /// Metadata used when the activity is indexed: description, thumbnail, phone numbers, coordinates, and
    /// `relatedUniqueIdentifier`, which makes the activity and the app's item with that identifier one search
    /// result. The set is copied when assigned.
    ///
    /// ```swift
    /// let attributes = CSSearchableItemAttributeSet(contentType: .contact)
    /// attributes.contentDescription = "Engineering"
    /// attributes.relatedUniqueIdentifier = "employee-7"   // an item indexed with CSSearchableIndex
    /// activity.contentAttributeSet = attributes
    /// ```
    ///
    /// Apple: <https://developer.apple.com/documentation/foundation/nsuseractivity/contentattributeset>
    public var contentAttributeSet: CSSearchableItemAttributeSet? {
        get { _contentAttributeSet }
        set { _contentAttributeSet = newValue?.copy() as? CSSearchableItemAttributeSet }
    }
}
#endif
