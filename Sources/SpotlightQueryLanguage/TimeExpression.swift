/// A `$time` expression: a moment or a period relative to the query's start, or an ISO-8601 date.
///
/// ```swift
/// // $time.today(-1)   → .relative(.today, offset: -1, unit: nil)     the whole of yesterday
/// // $time.now(-3600)  → .relative(.now, offset: -3600, unit: nil)    an hour ago
/// // $time.now(-30d)   → .relative(.now, offset: -30, unit: .day)     30 calendar days ago
/// // $time.iso(2025-03-01) → .iso(…)                                  the local day 2025-03-01
/// ```
///
/// `$time` is resolved once per query by ``CompiledQuery`` in its calendar and time zone. Instants compare as
/// points in time (to the second); periods are half-open intervals `[start, end)` and compare as described in
/// `Documentation/QueryLanguage.md` (`date == $time.today` means "some time today").
public enum TimeExpression: Sendable, Hashable {
    /// `$time.<anchor>` or `$time.<anchor>(offset[unit])`.
    ///
    /// Without a unit, the offset counts the anchor's own unit: seconds for `now`, days for `today` and
    /// `yesterday`, weeks for `this_week` and `last_week`, months for `this_month`, years for `this_year`.
    case relative(TimeAnchor, offset: Double, unit: TimeUnit?)
    /// `$time.iso(…)`.
    case iso(ISODateTime)
}

/// The named starting points of `$time`.
public enum TimeAnchor: String, Sendable, Hashable, CaseIterable {
    /// `$time.now`: the instant the query starts.
    case now
    /// `$time.today`: the local calendar day of the query start.
    case today
    /// `$time.yesterday`: `$time.today(-1)`.
    case yesterday
    /// `$time.this_week`: the calendar week of the query start (the calendar's first weekday starts it).
    case thisWeek = "this_week"
    /// `$time.last_week`: `$time.this_week(-1)`.
    case lastWeek = "last_week"
    /// `$time.this_month`: the calendar month of the query start.
    case thisMonth = "this_month"
    /// `$time.this_year`: the calendar year of the query start.
    case thisYear = "this_year"

    /// Whether the anchor names a period (everything but `now`).
    public var isPeriod: Bool { self != .now }

    /// The unit an offset without a unit counts.
    public var defaultUnit: TimeUnit {
        switch self {
        case .now: .second
        case .today, .yesterday: .day
        case .thisWeek, .lastWeek: .week
        case .thisMonth: .month
        case .thisYear: .year
        }
    }
}

/// The unit letter of a `$time` offset (an extension seen in practice: `$time.now(-30d)`).
public enum TimeUnit: String, Sendable, Hashable, CaseIterable {
    /// `s`
    case second = "s"
    /// `m` (lowercase: minutes)
    case minute = "m"
    /// `h`
    case hour = "h"
    /// `d`
    case day = "d"
    /// `w`
    case week = "w"
    /// `M` (uppercase: months)
    case month = "M"
    /// `y`
    case year = "y"

    /// Whether the unit has a fixed length in seconds (`s`, `m`, `h`); calendar units need whole offsets.
    public var isFixedLength: Bool {
        self == .second || self == .minute || self == .hour
    }

    /// The length of a fixed-length unit in seconds.
    var seconds: Double {
        switch self {
        case .second: 1
        case .minute: 60
        case .hour: 3600
        default: 0
        }
    }
}

/// The fields of an ISO-8601 date or date-time as written in `$time.iso(…)`.
///
/// A date alone (`2025-03-01`) names the whole local day; a date-time without a zone is local time; `Z` or
/// `±hh:mm` fixes the offset from UTC. Always Gregorian.
public struct ISODateTime: Sendable, Hashable, CustomStringConvertible {
    /// The time-of-day part of an ISO-8601 date-time.
    public struct TimeOfDay: Sendable, Hashable {
        public var hour: Int
        public var minute: Int
        public var second: Int
        /// The fraction of the second, in nanoseconds (0–999,999,999).
        public var nanosecond: Int

        public init(hour: Int, minute: Int, second: Int = 0, nanosecond: Int = 0) {
            self.hour = hour
            self.minute = minute
            self.second = second
            self.nanosecond = nanosecond
        }
    }

    public var year: Int
    public var month: Int
    public var day: Int
    /// The time of day, or `nil` for a date alone (a period of one local day).
    public var time: TimeOfDay?
    /// The offset from UTC in seconds (`Z` is 0), or `nil` for local time.
    public var utcOffset: Int?

    public init(year: Int, month: Int, day: Int, time: TimeOfDay? = nil, utcOffset: Int? = nil) {
        self.year = year
        self.month = month
        self.day = day
        self.time = time
        self.utcOffset = utcOffset
    }

    /// Canonical ISO-8601 text: `2025-03-01`, `2025-03-01T10:30:00`, `2025-03-01T10:30:00.5Z`,
    /// `2025-03-01T10:30:00+02:00`.
    public var description: String {
        var text = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
        guard let time else { return text }
        text += "T\(pad(time.hour, 2)):\(pad(time.minute, 2)):\(pad(time.second, 2))"
        if time.nanosecond > 0 {
            var fraction = pad(time.nanosecond, 9)
            while fraction.hasSuffix("0") { fraction.removeLast() }
            text += "." + fraction
        }
        if let utcOffset {
            if utcOffset == 0 {
                text += "Z"
            } else {
                let magnitude = abs(utcOffset)
                text += (utcOffset < 0 ? "-" : "+") + "\(pad(magnitude / 3600, 2)):\(pad(magnitude % 3600 / 60, 2))"
            }
        }
        return text
    }

    private func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
