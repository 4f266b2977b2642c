import Foundation
import SpotlightQueryLanguage
import Testing

/// A `$time` expression and what it resolves to at `TestClock.now` (Wednesday 2025-06-18 10:30, Los Angeles,
/// weeks from Monday).
struct TimeCase: Sendable, CustomTestStringConvertible {
    var expression: String
    var expected: ResolvedTime
    var testDescription: String { expression }

    init(_ expression: String, instant: Date) {
        self.expression = expression
        self.expected = .instant(instant)
    }

    init(_ expression: String, from start: Date, to end: Date) {
        self.expression = expression
        self.expected = .period(start: start, end: end)
    }
}

/// Parses `d == <expression>` and returns the `$time` on the right.
func timeExpression(_ text: String) throws -> TimeExpression {
    guard case .comparison(let c) = try QueryParser.parse("d == \(text)"), case .time(let time) = c.value else {
        throw CancellationError()
    }
    return time
}

@Suite("$time")
struct TimeTests {
    static func l(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0)
        -> Date
    {
        TestClock.local(year, month, day, hour, minute, second)
    }
    static let now = TestClock.now
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    static let cases: [TimeCase] = [
        TimeCase("$time.now", instant: now),
        TimeCase("$time.now(-3600)", instant: l(2025, 6, 18, 9, 30, 0)),
        TimeCase("$time.now(90)", instant: l(2025, 6, 18, 10, 31, 30)),
        TimeCase("$time.now(-30d)", instant: l(2025, 5, 19, 10, 30, 0)),
        TimeCase("$time.now(2h)", instant: l(2025, 6, 18, 12, 30, 0)),
        TimeCase("$time.now(90m)", instant: l(2025, 6, 18, 12, 0, 0)),
        TimeCase("$time.now(-15s)", instant: l(2025, 6, 18, 10, 29, 45)),
        TimeCase("$time.now(-1w)", instant: l(2025, 6, 11, 10, 30, 0)),
        TimeCase("$time.now(1M)", instant: l(2025, 7, 18, 10, 30, 0)),
        TimeCase("$time.now(-1y)", instant: l(2024, 6, 18, 10, 30, 0)),
        TimeCase("$time.today", from: l(2025, 6, 18), to: l(2025, 6, 19)),
        TimeCase("$time.today(0)", from: l(2025, 6, 18), to: l(2025, 6, 19)),
        TimeCase("$time.today(-1)", from: l(2025, 6, 17), to: l(2025, 6, 18)),
        TimeCase("$time.today(+2)", from: l(2025, 6, 20), to: l(2025, 6, 21)),
        TimeCase("$time.today(-18)", from: l(2025, 5, 31), to: l(2025, 6, 1)),
        TimeCase("$time.today(-1w)", from: l(2025, 6, 11), to: l(2025, 6, 12)),
        TimeCase("$time.today(-1M)", from: l(2025, 5, 18), to: l(2025, 5, 19)),
        TimeCase("$time.yesterday", from: l(2025, 6, 17), to: l(2025, 6, 18)),
        TimeCase("$time.yesterday(-1)", from: l(2025, 6, 16), to: l(2025, 6, 17)),
        TimeCase("$time.this_week", from: l(2025, 6, 16), to: l(2025, 6, 23)),
        TimeCase("$time.this_week(-1)", from: l(2025, 6, 9), to: l(2025, 6, 16)),
        TimeCase("$time.this_week(1)", from: l(2025, 6, 23), to: l(2025, 6, 30)),
        TimeCase("$time.last_week", from: l(2025, 6, 9), to: l(2025, 6, 16)),
        TimeCase("$time.last_week(-1)", from: l(2025, 6, 2), to: l(2025, 6, 9)),
        TimeCase("$time.this_month", from: l(2025, 6, 1), to: l(2025, 7, 1)),
        TimeCase("$time.this_month(-1)", from: l(2025, 5, 1), to: l(2025, 6, 1)),
        TimeCase("$time.this_month(-6)", from: l(2024, 12, 1), to: l(2025, 1, 1)),
        TimeCase("$time.this_month(-4)", from: l(2025, 2, 1), to: l(2025, 3, 1)),
        TimeCase("$time.this_year", from: l(2025, 1, 1), to: l(2026, 1, 1)),
        TimeCase("$time.this_year(-1)", from: l(2024, 1, 1), to: l(2025, 1, 1)),
        TimeCase("$time.iso(2025-03-01)", from: l(2025, 3, 1), to: l(2025, 3, 2)),
        TimeCase("$time.iso(2024-12-31)", from: l(2024, 12, 31), to: l(2025, 1, 1)),
        TimeCase("$time.iso(2025-03-09)", from: l(2025, 3, 9), to: l(2025, 3, 10)),  // 23-hour DST day
        TimeCase("$time.iso(2025-03-01T10:00)", instant: l(2025, 3, 1, 10)),
        TimeCase("$time.iso('2025-07-01 08:15:30')", instant: l(2025, 7, 1, 8, 15, 30)),
        TimeCase("$time.iso(2021-12-31T00:00:00Z)", instant: Date(timeIntervalSince1970: 1_640_908_800)),
        TimeCase("$time.iso(2025-03-01T10:00:00+02:00)", instant: Date(timeIntervalSince1970: 1_740_816_000)),
        TimeCase("$time.iso(2025-03-01T10:00:00.5Z)", instant: Date(timeIntervalSince1970: 1_740_823_200.5)),
        TimeCase("$time.iso(2001-01-01T00:00:00Z)", instant: Date(timeIntervalSinceReferenceDate: 0)),
    ]

    @Test(arguments: cases)
    func resolves(_ c: TimeCase) throws {
        let resolved = try timeExpression(c.expression).resolve(now: Self.now, calendar: TestClock.calendar)
        #expect(resolved == c.expected)
    }

    @Test func dstDayIsTwentyThreeHours() throws {
        let resolved = try timeExpression("$time.iso(2025-03-09)").resolve(now: Self.now, calendar: TestClock.calendar)
        guard case .period(let start, let end) = resolved else {
            Issue.record("not a period")
            return
        }
        #expect(end.timeIntervalSince(start) == 23 * 3600)
    }

    @Test func weekStartFollowsTheCalendar() throws {
        var sundayFirst = TestClock.calendar
        sundayFirst.firstWeekday = 1
        let resolved = try timeExpression("$time.this_week").resolve(now: Self.now, calendar: sundayFirst)
        #expect(resolved == .period(start: Self.l(2025, 6, 15), end: Self.l(2025, 6, 22)))
    }

    @Test func todayFollowsTheTimeZone() throws {
        // 10:30 in Los Angeles is 17:30 UTC, the same day; 20:00 in Los Angeles is the next day in UTC.
        let evening = TestClock.local(2025, 6, 18, 20)
        let resolved = try timeExpression("$time.today").resolve(now: evening, calendar: Self.utc)
        #expect(resolved == .period(start: Date(timeIntervalSince1970: 1_750_291_200),  // 2025-06-19T00:00Z
                                    end: Date(timeIntervalSince1970: 1_750_377_600)))
    }

    /// Period-aware comparisons (§17.4) of one date against `$time.yesterday` = [06-17 00:00, 06-18 00:00).
    static let comparisons: [(date: Date, query: String, matches: Bool)] = [
        (l(2025, 6, 17, 15), "d == $time.yesterday", true),
        (l(2025, 6, 17, 0), "d == $time.yesterday", true),
        (l(2025, 6, 18, 0), "d == $time.yesterday", false),
        (l(2025, 6, 16, 23, 59, 59), "d == $time.yesterday", false),
        (l(2025, 6, 17, 15), "d != $time.yesterday", false),
        (l(2025, 6, 18, 15), "d != $time.yesterday", true),
        (l(2025, 6, 16, 12), "d < $time.yesterday", true),
        (l(2025, 6, 17, 0), "d < $time.yesterday", false),
        (l(2025, 6, 17, 23), "d <= $time.yesterday", true),
        (l(2025, 6, 18, 0), "d <= $time.yesterday", false),
        (l(2025, 6, 18, 0), "d > $time.yesterday", true),
        (l(2025, 6, 17, 23), "d > $time.yesterday", false),
        (l(2025, 6, 17, 0), "d >= $time.yesterday", true),
        (l(2025, 6, 16, 23), "d >= $time.yesterday", false),
        (l(2025, 6, 18, 23), "InRange(d, $time.today(-10), $time.today)", true),
        (l(2025, 6, 8, 0), "InRange(d, $time.today(-10), $time.today)", true),
        (l(2025, 6, 7, 23), "InRange(d, $time.today(-10), $time.today)", false),
        (l(2025, 6, 19, 0), "InRange(d, $time.today(-10), $time.today)", false),
        (l(2025, 6, 18, 10, 30, 0).addingTimeInterval(0.7), "d == $time.now", true),  // to the second
        (l(2025, 6, 18, 10, 30, 1), "d == $time.now", false),
        (l(2025, 6, 18, 10, 29, 59), "d < $time.now", true),
        (l(2025, 6, 18, 10, 30, 0), "d <= $time.now", true),
        (l(2025, 6, 18, 9, 0), "InRange(d, $time.now(-2h), $time.now)", true),
        (l(2025, 6, 18, 8, 0), "InRange(d, $time.now(-2h), $time.now)", false),
        (l(2025, 6, 18, 9, 0), "InRange(d, $time.today, $time.now)", true),
        (l(2025, 6, 18, 11, 0), "InRange(d, $time.today, $time.now)", false),
        (l(2025, 6, 16, 9, 0), "d == $time.this_week", true),
        (l(2025, 6, 15, 23, 0), "d == $time.this_week", false),
        (l(2025, 6, 15, 23, 0), "d == $time.last_week", true),
        (l(2025, 6, 30, 23, 0), "d == $time.this_month", true),
        (l(2025, 7, 1, 0, 0), "d < $time.this_month(1)", false),
        (l(2024, 12, 31, 23, 0), "d == $time.this_year(-1)", true),
        (l(2025, 3, 1, 12), "d == $time.iso(2025-03-01)", true),
        (l(2025, 3, 2, 0), "d == $time.iso(2025-03-01)", false),
        (l(2025, 3, 1, 10), "d == $time.iso(2025-03-01T10:00)", true),
    ]

    @Test(arguments: comparisons.indices)
    func periodAwareComparison(_ index: Int) throws {
        let c = Self.comparisons[index]
        let item = FixtureItem("x", ["d": [.date(c.date)]])
        let query = try CompiledQuery(parsing: c.query, now: Self.now, calendar: TestClock.calendar)
        #expect(query.matches(item) == c.matches, "\(c.query) with d = \(c.date)")
    }

    @Test func resolvedOnceAtCompileTime() throws {
        let query = try CompiledQuery(parsing: "d == $time.today", now: Self.now, calendar: TestClock.calendar)
        #expect(query.now == Self.now)
        let item = FixtureItem("x", ["d": [.date(Self.l(2025, 6, 18, 23))]])
        #expect(query.matches(item))
        let later = try CompiledQuery(parsing: "d == $time.today", now: Self.l(2025, 6, 19, 1),
                                      calendar: TestClock.calendar)
        #expect(!later.matches(item))
    }

    @Test func timeAgainstNonDates() throws {
        let item = FixtureItem("x", ["n": [.number(1)], "s": [.string("2025-06-18")]])
        for query in ["n == $time.today", "s == $time.today", "n != $time.today", "InRange(n, $time.today, 5)"] {
            let compiled = try CompiledQuery(parsing: query, now: Self.now, calendar: TestClock.calendar)
            #expect(!compiled.matches(item), "\(query)")
        }
    }
}
