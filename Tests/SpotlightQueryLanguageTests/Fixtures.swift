import Foundation
import SpotlightQueryLanguage
import Testing

/// An item of a test fixture: attribute name → values, with a few `kMDItem…` aliases.
struct FixtureItem: QueryItem, Sendable {
    let id: String
    var attributes: [String: [QueryValue]]

    static let aliases = [
        "kMDItemDisplayName": "displayName",
        "kMDItemTitle": "title",
        "kMDItemAuthors": "authorNames",
        "kMDItemContentType": "contentType",
        "kMDItemContentTypeTree": "contentTypeTree",
        "kMDItemKeywords": "keywords",
        "kMDItemTextContent": "textContent",
    ]

    init(_ id: String, _ attributes: [String: [QueryValue]]) {
        self.id = id
        self.attributes = attributes
    }

    func queryValues(forAttribute name: String) -> [QueryValue]? {
        attributes[Self.aliases[name] ?? name]
    }

    func defaultSearchableText() -> [String] {
        attributes.keys.sorted().flatMap { key in
            attributes[key, default: []].compactMap { value in
                if case .string(let s) = value { return s }
                return nil
            }
        }
    }
}

/// The fixed clock and calendar of the tests: Wednesday 2025-06-18 10:30:00 in Los Angeles (UTC−7), weeks
/// starting on Monday.
enum TestClock {
    static let timeZone = TimeZone(identifier: "America/Los_Angeles")!

    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        calendar.firstWeekday = 2
        return calendar
    }()

    /// "T", the query start time.
    static let now = local(2025, 6, 18, 10, 30)

    /// A local date-time in Los Angeles.
    static func local(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0)
        -> Date
    {
        calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute,
                                           second: second))!
    }

    static func daysBefore(_ days: Int) -> Date {
        calendar.date(byAdding: .day, value: -days, to: now)!
    }
}

/// The reference data set of spec §17.5.
enum WorkedExampleFixture {
    static func strings(_ values: String...) -> [QueryValue] { values.map(QueryValue.string) }

    static let jpegTree = strings("public.jpeg", "public.image", "public.data", "public.item", "public.content")
    static let textTree = strings("public.plain-text", "public.text", "public.data", "public.item", "public.content")
    static let audioTree = strings("public.audio", "public.audiovisual-content", "public.data", "public.item",
                                   "public.content")
    static let emailTree = strings("public.email-message", "public.message", "public.data", "public.item",
                                   "public.content")

    static let items: [FixtureItem] = [
        FixtureItem("i1", [
            "title": strings("Paris"), "displayName": strings("Paris"), "contentType": strings("public.jpeg"),
            "contentTypeTree": jpegTree, "keywords": strings("Travel", "France"), "rankingHint": [.number(80)],
            "lastUsedDate": [.date(TestClock.daysBefore(2))],
            "contentCreationDate": [.date(TestClock.local(2025, 3, 10, 12))],
        ]),
        FixtureItem("i2", [
            "title": strings("paris"), "contentType": strings("public.plain-text"), "contentTypeTree": textTree,
            "textContent": strings("Packing list for the trip"),
        ]),
        FixtureItem("i3", [
            "title": strings("I love Paris"), "contentType": strings("public.plain-text"), "contentTypeTree": textTree,
            "authorNames": strings("Steve Jobs"), "completionDate": [.date(TestClock.daysBefore(3))],
        ]),
        FixtureItem("i4", [
            "title": strings("paris-france.jpg"), "contentType": strings("public.jpeg"), "contentTypeTree": jpegTree,
            "rankingHint": [.number(50)],
        ]),
        FixtureItem("i5", [
            "title": strings("Comparison"), "contentType": strings("public.plain-text"), "contentTypeTree": textTree,
            "rankingHint": [.number(10)],
        ]),
        FixtureItem("i6", ["title": strings("parisol")]),
        FixtureItem("i7", [
            "title": strings("MyWindowClass"), "contentType": strings("public.swift-source"),
            "contentTypeTree": strings("public.swift-source", "public.source-code", "public.plain-text",
                                       "public.text", "public.data", "public.item", "public.content"),
        ]),
        FixtureItem("i8", ["title": strings("Broken Window")]),
        FixtureItem("i9", ["title": strings("NSWindow")]),
        FixtureItem("i10", [
            "title": strings("Nocturnes"), "authorNames": strings("Frédéric Chopin"),
            "contentType": strings("public.audio"), "contentTypeTree": audioTree,
        ]),
        FixtureItem("i11", [
            "title": strings("Etudes"), "authorNames": strings("frederic chopin"),
            "contentType": strings("public.audio"), "contentTypeTree": audioTree,
        ]),
        FixtureItem("i12", [
            "title": strings("Keynote audio"), "authorNames": strings("Steve Jobs"),
            "contentType": strings("public.audio"), "contentTypeTree": audioTree,
            "completionDate": [.date(TestClock.daysBefore(20))],
        ]),
        FixtureItem("i13", [
            "title": strings("Lunch?"), "contentType": strings("public.email-message"), "contentTypeTree": emailTree,
            "subject": strings("Re: lunch"),
        ]),
        FixtureItem("i14", [
            "title": strings("Lunch plans"), "contentType": strings("public.email-message"),
            "contentTypeTree": emailTree, "subject": strings("Lunch plans"), "authorNames": strings("Tim Cook"),
            "completionDate": [.date(TestClock.local(2025, 6, 17, 15))],
        ]),
        FixtureItem("i15", [
            "title": strings("50% off"), "com_acme_priority": [.number(3)],
            "contentCreationDate": [.date(TestClock.local(2025, 3, 15, 12))],
        ]),
        FixtureItem("i16", [
            "title": strings("Windsurfing lessons"), "textContent": strings("Learn to windsurf at the lake"),
        ]),
        FixtureItem("i17", [
            "title": strings("Keynote video"), "authorNames": strings("Steve Jobs"),
            "contentType": strings("public.video"),
            "contentTypeTree": strings("public.video", "public.movie", "public.audiovisual-content", "public.data",
                                       "public.item", "public.content"),
        ]),
    ]

    static var allIDs: [String] { items.map(\.id) }
}

/// The fixture of `query-language.md`.
enum QueryLanguageFixture {
    static let items: [FixtureItem] = [
        FixtureItem("brent", ["title": [.string("Brent Reid")]]),
        FixtureItem("creme", ["title": [.string("Café Crème")]]),
        FixtureItem("latte", ["title": [.string("cafe latte")]]),
        FixtureItem("iphone", ["title": [.string("iPhoneCase")]]),
        FixtureItem("park", ["keywords": [.string("Natural Bridges State Park")]]),
    ]
}

/// The ids of the items a query matches, in fixture order.
func matchingIDs(_ query: String, in items: [FixtureItem]) throws -> [String] {
    let compiled = try CompiledQuery(parsing: query, now: TestClock.now, calendar: TestClock.calendar)
    return items.filter { compiled.matches($0) }.map(\.id)
}

/// A query and the ids it must match.
struct MatchCase: Sendable, CustomTestStringConvertible {
    var query: String
    var expected: [String]
    var testDescription: String { "\(query) → \(expected)" }

    init(_ query: String, _ expected: [String]) {
        self.query = query
        self.expected = expected
    }
}

