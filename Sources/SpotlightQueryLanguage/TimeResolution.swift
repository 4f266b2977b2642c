import Foundation

/// A `$time` expression resolved against the query's start time and calendar.
public enum ResolvedTime: Sendable, Hashable {
    /// A point in time (`$time.now`, `$time.iso` with a time of day, a bare number).
    case instant(Date)
    /// A half-open interval `[start, end)` (`$time.today`, `$time.this_week`, `$time.iso` of a date alone, …).
    case period(start: Date, end: Date)

    /// The first moment covered.
    public var start: Date {
        switch self {
        case .instant(let date): return date
        case .period(let start, _): return start
        }
    }
}

extension TimeExpression {
    /// Resolves the expression at a moment in a calendar (§17.4 of the spec).
    ///
    /// ```swift
    /// // now = Wednesday 2025-06-18 10:30 local, weeks starting on Monday:
    /// TimeExpression.relative(.today, offset: -1, unit: nil).resolve(now: now, calendar: calendar)
    /// // .period(2025-06-17 00:00, 2025-06-18 00:00)
    /// TimeExpression.relative(.lastWeek, offset: 0, unit: nil).resolve(now: now, calendar: calendar)
    /// // .period(2025-06-09 00:00, 2025-06-16 00:00)
    /// ```
    ///
    /// Periods: `today` is the local day, shifted by the offset; `this_week` the calendar week (the calendar's
    /// `firstWeekday` starts it); `this_month`, `this_year` likewise; `yesterday` and `last_week` are one unit
    /// earlier. With an explicit unit the period keeps its length and moves by that unit. `$time.iso` dates are
    /// Gregorian; without a zone they are in the calendar's time zone.
    ///
    /// - Parameters:
    ///   - now: when the query starts.
    ///   - calendar: the calendar and time zone of "today", "this week", ….
    public func resolve(now: Date, calendar: Calendar) -> ResolvedTime {
        switch self {
        case .iso(let date):
            return date.resolve(in: calendar.timeZone)
        case .relative(let anchor, let offset, let unit):
            let ownUnit = anchor.defaultUnit
            guard anchor.isPeriod else {
                return .instant(Self.shift(now, by: offset, unit ?? ownUnit, calendar))
            }
            let component: Calendar.Component
            var baseShift = 0.0
            switch anchor {
            case .now, .today: component = .day
            case .yesterday: component = .day; baseShift = -1
            case .thisWeek: component = .weekOfYear
            case .lastWeek: component = .weekOfYear; baseShift = -1
            case .thisMonth: component = .month
            case .thisYear: component = .year
            }
            let periodStart = calendar.dateInterval(of: component, for: now)?.start ?? calendar.startOfDay(for: now)
            let base = Self.shift(periodStart, by: baseShift, ownUnit, calendar)
            let start = Self.shift(base, by: offset, unit ?? ownUnit, calendar)
            let end = Self.shift(start, by: 1, ownUnit, calendar)
            return .period(start: start, end: end)
        }
    }

    /// A date moved by a number of units: seconds arithmetic for `s`/`m`/`h`, calendar arithmetic otherwise.
    static func shift(_ date: Date, by amount: Double, _ unit: TimeUnit, _ calendar: Calendar) -> Date {
        guard amount.isFinite else { return date }
        if unit.isFixedLength {
            return date.addingTimeInterval(amount * unit.seconds)
        }
        let whole = Int(max(-1e12, min(1e12, amount.rounded())))
        if whole == 0 { return date }
        let component: Calendar.Component
        let approximateSeconds: Double
        switch unit {
        case .week: component = .weekOfYear; approximateSeconds = 604_800
        case .month: component = .month; approximateSeconds = 2_629_746
        case .year: component = .year; approximateSeconds = 31_556_952
        default: component = .day; approximateSeconds = 86_400
        }
        return calendar.date(byAdding: component, value: whole, to: date)
            ?? date.addingTimeInterval(Double(whole) * approximateSeconds)
    }
}

extension ISODateTime {
    /// The instant (date-time) or local day (date alone) the fields name.
    ///
    /// - Parameter timeZone: the zone of a date or date-time written without one.
    public func resolve(in timeZone: TimeZone) -> ResolvedTime {
        guard let time else {
            let start = Self.localInstant(Self.civilSeconds(year, month, day, 0, 0, 0), timeZone)
            let next = Self.nextDay(year, month, day)
            let end = Self.localInstant(Self.civilSeconds(next.year, next.month, next.day, 0, 0, 0), timeZone)
            return .period(start: start, end: end)
        }
        let civil = Self.civilSeconds(year, month, day, time.hour, time.minute, time.second)
        let fraction = Double(time.nanosecond) / 1e9
        if let utcOffset {
            return .instant(Date(timeIntervalSince1970: civil - Double(utcOffset) + fraction))
        }
        return .instant(Self.localInstant(civil, timeZone).addingTimeInterval(fraction))
    }

    /// Seconds since 1970-01-01T00:00:00 of a proleptic Gregorian date-time read as UTC.
    static func civilSeconds(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int)
        -> Double
    {
        // Clamped so that hand-built out-of-range fields cannot overflow.
        let year = max(-1_000_000, min(1_000_000, year))
        let month = max(1, min(12, month))
        let day = max(-100_000, min(100_000, day))
        let (hour, minute, second) = (max(-1_000_000, min(1_000_000, hour)), max(-1_000_000, min(1_000_000, minute)),
                                      max(-1_000_000, min(1_000_000, second)))
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Double(days) * 86_400 + Double(hour * 3600 + minute * 60 + second)
    }

    /// The instant at which a zone's wall clock shows a civil time (the later offset wins in a DST overlap).
    static func localInstant(_ civil: Double, _ timeZone: TimeZone) -> Date {
        let guess = Date(timeIntervalSince1970: civil)
        let first = Date(timeIntervalSince1970: civil - Double(timeZone.secondsFromGMT(for: guess)))
        return Date(timeIntervalSince1970: civil - Double(timeZone.secondsFromGMT(for: first)))
    }

    static func nextDay(_ year: Int, _ month: Int, _ day: Int) -> (year: Int, month: Int, day: Int) {
        if day < ISODateParser.daysInMonth(year: year, month: month) { return (year, month, day + 1) }
        if month < 12 { return (year, month + 1, 1) }
        return (year + 1, 1, 1)
    }
}
