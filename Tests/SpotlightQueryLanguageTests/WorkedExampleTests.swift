import Foundation
import SpotlightQueryLanguage
import Testing

/// The worked examples of spec §17.5 and the examples of `query-language.md`, over their fixtures.
@Suite("Worked examples")
struct WorkedExampleTests {
    static let all = WorkedExampleFixture.allIDs

    static func allExcept(_ excluded: String...) -> [String] {
        all.filter { !excluded.contains($0) }
    }

    /// §17.5, examples 1–43 (44 and 45 are errors: see `ParseErrorTests`).
    static let examples: [MatchCase] = [
        MatchCase(#"title == "Paris""#, ["i1"]),  // 1
        MatchCase(#"title == "Paris"c"#, ["i1", "i2"]),  // 2
        MatchCase(#"title ==[c] "Paris""#, ["i1", "i2"]),  // 3
        MatchCase(#"title == "Paris"wc"#, ["i1", "i2", "i3", "i4"]),  // 4
        MatchCase(#"title == "Window"w"#, ["i7", "i8"]),  // 5
        MatchCase(#"title == "paris*""#, ["i2", "i4", "i6"]),  // 6
        MatchCase(#"title == "*paris"c"#, ["i1", "i2", "i3"]),  // 7
        MatchCase(#"title == "*paris*""#, ["i2", "i4", "i5", "i6"]),  // 8
        MatchCase(#"title == 'paris'"#, ["i2"]),  // 9
        MatchCase(#"title == "pari?""#, ["i2"]),  // 10
        MatchCase(#"authorNames == "Frédéric*""#, ["i10"]),  // 11
        MatchCase(#"authorNames == "Frederic"wcd"#, ["i10", "i11"]),  // 12
        MatchCase(#"authorNames == "Frederic"w"#, []),  // 13
        MatchCase(#"authorNames == "Steve"wc && contentType == "audio"wc"#, ["i12"]),  // 14
        MatchCase(#"authorNames == "Steve"wc && (contentType == "audio"wc || contentType == "video"wc)"#,
                  ["i12", "i17"]),  // 15
        MatchCase(#"(authorNames == "Tim"wc || authorNames == "Steve"wc) && InRange(completionDate,$time.today(-10),$time.today)"#,
                  ["i3", "i14"]),  // 16
        MatchCase(#"title == 'par*'c"#, ["i1", "i2", "i4", "i6"]),  // 17
        MatchCase(#"contentType == "public.email-message" && subject != "Re:*""#, ["i14"]),  // 18
        MatchCase(#"contentTypeTree == "public.image""#, ["i1", "i4"]),  // 19
        MatchCase(#"contentTypeTree = "public.text""#, ["i2", "i3", "i5", "i7"]),  // 20
        MatchCase(#"!(contentTypeTree == "public.image")"#, allExcept("i1", "i4")),  // 21
        MatchCase(#"contentTypeTree != "public.image""#,
                  ["i2", "i3", "i5", "i7", "i10", "i11", "i12", "i13", "i14", "i17"]),  // 22
        MatchCase(#"kMDItemDisplayName == "*paris*"cd"#, ["i1"]),  // 23
        MatchCase(#"rankingHint >= 50"#, ["i1", "i4"]),  // 24
        MatchCase(#"InRange(rankingHint, 10, 60)"#, ["i4", "i5"]),  // 25
        MatchCase(#"lastUsedDate >= $time.this_week(-1)"#, ["i1"]),  // 26
        MatchCase(#"contentCreationDate >= $time.iso(2025-03-01) && contentCreationDate < $time.iso(2025-04-01)"#,
                  ["i1", "i15"]),  // 27
        MatchCase(#"completionDate == $time.yesterday"#, ["i14"]),  // 28
        MatchCase(#"** == "windsurf*"cdw"#, ["i16"]),  // 29
        MatchCase(#"keywords == "travel"c"#, ["i1"]),  // 30
        MatchCase(#"keywords == "travel""#, []),  // 31
        MatchCase(#"com_acme_priority > 2"#, ["i15"]),  // 32
        MatchCase(#"title == "50% off""#, ["i15"]),  // 33
        MatchCase(#"title == "Lunch\?""#, ["i13"]),  // 34
        MatchCase(#"lastUsedDate == NULL"#, allExcept("i1")),  // 35
        MatchCase(#"lastUsedDate != NULL"#, ["i1"]),  // 36
        MatchCase(#"title == "love paris"wc"#, ["i3"]),  // 37
        MatchCase(#"title == "plans lunch"tc"#, ["i14"]),  // 38
        MatchCase(#"title == "plans lunch"wc"#, []),  // 39
        MatchCase(#"title == "window"wc && title != "*broken*"c"#, ["i7"]),  // 40
        MatchCase(#"title == "*""#, all),  // 41
        MatchCase(#"title < "m""#, []),  // 42
        MatchCase(#"true"#, all),  // 43
    ]

    @Test(arguments: examples)
    func workedExample(_ c: MatchCase) throws {
        #expect(try matchingIDs(c.query, in: WorkedExampleFixture.items) == c.expected)
    }

    /// The mdfind-style equivalents of §17.5, with the `kMDItem…` spellings.
    static let mdfindStyle: [MatchCase] = [
        MatchCase(#"kMDItemContentType == "public.jpeg""#, ["i1", "i4"]),
        MatchCase(#"kMDItemAuthors ==[c] "steve jobs""#, ["i3", "i12", "i17"]),
        MatchCase(#"kMDItemAuthors ==[c] "Steve""#, []),
        MatchCase(#"(kMDItemAuthors == "Tim"wc || kMDItemAuthors == "Steve"wc) && (kMDItemContentType == "audio"wc || kMDItemContentType == "video"wc)"#,
                  ["i12", "i17"]),
        MatchCase(#"kMDItemTextContent == "*trip*""#, ["i2"]),
    ]

    @Test(arguments: mdfindStyle)
    func mdfindStyleExample(_ c: MatchCase) throws {
        #expect(try matchingIDs(c.query, in: WorkedExampleFixture.items) == c.expected)
    }

    /// The examples of `query-language.md`.
    static let queryLanguageExamples: [MatchCase] = [
        MatchCase(#"title == "Brent Reid""#, ["brent"]),
        MatchCase(#"title == "brent reid""#, []),
        MatchCase(#"title == "brent*"c"#, ["brent"]),
        MatchCase(#"title == "*Reid""#, ["brent"]),
        MatchCase(#"title == "reid"cw"#, ["brent"]),
        MatchCase(#"title == "cafe*"c"#, ["latte"]),
        MatchCase(#"title == "cafe*"cd"#, ["creme", "latte"]),
        MatchCase(#"title == "case"cw"#, ["iphone"]),
        MatchCase(#"keywords == "natural*"cwdt"#, ["park"]),
        MatchCase(#"keywords == "bridges*"c"#, []),
        MatchCase(#"title ==[cd] "CAFE LATTE""#, ["latte"]),
        // beyond the table
        MatchCase(#"title == "iphone*"cw"#, ["iphone"]),
        MatchCase(#"title == "iphonecase"cw"#, ["iphone"]),
        MatchCase(#"title == "phone"cw"#, ["iphone"]),
        MatchCase(#"title == "creme"cdw"#, ["creme"]),
        MatchCase(#"title == "creme"cw"#, []),
        MatchCase(#"keywords == "park state"cwt"#, ["park"]),
        MatchCase(#"keywords == "park state"cw"#, []),
        MatchCase(#"keywords == "state park"cw"#, ["park"]),
        MatchCase(#"keywords == "*bridges*"c"#, ["park"]),
        MatchCase(#"* == "*latte""#, ["latte"]),
        MatchCase(#"title == NULL"#, ["park"]),
    ]

    @Test(arguments: queryLanguageExamples)
    func queryLanguageExample(_ c: MatchCase) throws {
        #expect(try matchingIDs(c.query, in: QueryLanguageFixture.items) == c.expected)
    }
}
