import Foundation

/// Attributes of events and tasks: due, completion, start and end dates.
///
/// Apple's header category: `CSSearchableItemAttributeSet (CSEvents)`.
extension CSSearchableItemAttributeSet {
    /// The date the item is due.
    ///
    /// Queries may also name it `kMDItemDueDate`.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/duedate>
    public var dueDate: Date? {
        get { _date("dueDate") }
        set { _setDate("dueDate", newValue) }
    }

    /// The date the item was completed.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/completiondate>
    public var completionDate: Date? {
        get { _date("completionDate") }
        set { _setDate("completionDate", newValue) }
    }

    /// The start date of the item.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/startdate>
    public var startDate: Date? {
        get { _date("startDate") }
        set { _setDate("startDate", newValue) }
    }

    /// The end date of the item.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/enddate>
    public var endDate: Date? {
        get { _date("endDate") }
        set { _setDate("endDate", newValue) }
    }

    /// Other dates that matter for the item.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/importantdates>
    public var importantDates: [Date]? {
        get { _dates("importantDates") }
        set { _setDates("importantDates", newValue) }
    }

    /// Whether the event covers whole days, as a Boolean number.
    ///
    /// Apple: <https://developer.apple.com/documentation/corespotlight/cssearchableitemattributeset/allday>
    public var allDay: NSNumber? {
        get { _number("allDay") }
        set { _setNumber("allDay", newValue) }
    }
}
