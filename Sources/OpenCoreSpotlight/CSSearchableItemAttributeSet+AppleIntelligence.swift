import Foundation

/// Attributes that Apple Intelligence fills in (priority, summary) and the transcript it reads.
extension CSSearchableItemAttributeSet {
    /// Whether the system classified the message as a priority item, as a Boolean number.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/ispriority>
    public var isPriority: NSNumber? {
        get { _number("isPriority") }
        set { _setNumber("isPriority", newValue) }
    }

    /// The system's summary of the item's text.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/textcontentsummary>
    public var textContentSummary: String? {
        get { _string("textContentSummary") }
        set { _setString("textContentSummary", newValue) }
    }

    /// The transcript of the item's audio, used as input for summarization.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/transcribedtextcontent>
    public var transcribedTextContent: String? {
        get { _string("transcribedTextContent") }
        set { _setString("transcribedTextContent", newValue) }
    }
}
