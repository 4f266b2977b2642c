import Foundation
import XCTest
@testable import OpenCoreSpotlight
import SpotlightEngine

final class CSUserQueryTests: IndexTestCase {
    let smoothies: [(String, String, String)] = [
        ("berry-blue", "Berry Blue", "A berry smoothie with blueberries"),
        ("very-berry", "Very Berry", "Strawberries and raspberries"),
        ("carrot-chops", "Carrot Chops", "Carrots and orange"),
        ("chocolate-almond-milk", "Chocolate Almond Milk", "Cocoa, almond milk and banana"),
        ("matcha-milk", "Matcha Milk", "Green tea with milk"),
        ("milk-shake", "Milk Shake", "Classic vanilla milk"),
        ("creme", "Crème Brûlée", "Caramel custard"),
    ]

    func seed() async throws -> CSSearchableIndex {
        let index = CSSearchableIndex(name: "smoothies")
        try await index.indexSearchableItems(smoothies.map { id, title, description in
            let set = CSSearchableItemAttributeSet(contentType: .content)
            set.title = title
            set.displayName = title
            set.contentDescription = description
            return CSSearchableItem(uniqueIdentifier: id, domainIdentifier: "smoothies", attributeSet: set)
        })
        return index
    }

    func search(_ text: String, _ configure: (CSUserQueryContext) -> Void = { _ in }) async throws
        -> (items: [CSUserQuery.Item], suggestions: [CSUserQuery.Suggestion])
    {
        let context = CSUserQueryContext()
        context.fetchAttributes = ["title"]
        context.enableRankedResults = true
        configure(context)
        var items: [CSUserQuery.Item] = []
        var suggestions: [CSUserQuery.Suggestion] = []
        for try await response in CSUserQuery(userQueryString: text, userQueryContext: context).responses {
            switch response {
            case .item(let item): items.append(item)
            case .suggestion(let suggestion): suggestions.append(suggestion)
            }
        }
        return (items, suggestions)
    }

    func ids(_ text: String) async throws -> [String] {
        try await search(text).items.map(\.id)
    }

    func testBerryFindsTheBerrySmoothies() async throws {
        _ = try await seed()
        let r1 = try await ids("berry")
        XCTAssertEqual(r1, ["berry-blue", "very-berry"])
        let r2 = try await ids("BERRY")
        XCTAssertEqual(r2, ["berry-blue", "very-berry"])
        let r3 = try await ids("ber")
        XCTAssertEqual(r3, ["berry-blue", "very-berry"], "the last word is a prefix")
        let r4 = try await ids("berry smo")
        XCTAssertEqual(r4, ["berry-blue"])
    }

    func testDiacriticsAndTypos() async throws {
        _ = try await seed()
        let r5 = try await ids("creme brulee")
        XCTAssertEqual(r5, ["creme"])
        let r6 = try await ids("chocolat")
        XCTAssertEqual(r6, ["chocolate-almond-milk"])
        let r7 = try await ids("chcolate")
        XCTAssertEqual(r7, ["chocolate-almond-milk"], "one deletion in an 8-letter word")
        let r8 = try await ids("chocolaet almond")
        XCTAssertEqual(r8, ["chocolate-almond-milk"], "a transposition is one typo")
        let r9 = try await ids("carots")
        XCTAssertEqual(r9, ["carrot-chops"], "a typo inside the word being typed")
        let r10 = try await ids("mlik shake")
        XCTAssertEqual(r10, ["milk-shake"], "a word of 4 letters tolerates one typo")
        let r10b = try await ids("mlk shake")
        XCTAssertEqual(r10b, [], "words of 3 letters are typed exactly")
    }

    func testRankingPutsTitlesFirstAndRanksAreConsistent() async throws {
        _ = try await seed()
        let result = try await search("milk")
        // All three have "milk" in their titles: the title that starts with it first, then the shorter title.
        XCTAssertEqual(result.items.map(\.id), ["milk-shake", "matcha-milk", "chocolate-almond-milk"])
        for (a, b) in zip(result.items, result.items.dropFirst()) {
            XCTAssertEqual(a.item.compare(byRank: b.item), .orderedAscending)
            XCTAssertLessThan(a, b)
        }
    }

    func testAppSearchExplainsTheNamePartsAndTheyAddUp() async throws {
        _ = try await seed()
        let results = try AppSearch().search("milk shake", limit: 5)
        let first = try XCTUnwrap(results.first)
        XCTAssertEqual(first.uniqueIdentifier, "milk-shake")
        XCTAssertEqual(first.explanation.exactNamePoints, 3.5, "the typed text is the whole title")
        XCTAssertEqual(first.explanation.nameStartPoints, 0.25)
        XCTAssertEqual(first.explanation.nameLengthPoints, 0.125, accuracy: 1e-12)
        for result in try AppSearch().search("milk", limit: 5) + results {
            let e = result.explanation
            let parts = e.words.reduce(0) { $0 + $1.points } + e.exactNamePoints + e.nameStartPoints + e.nameLengthPoints
                + e.rankingHintPoints + e.recencyPoints + e.engagementPoints
            XCTAssertEqual(parts, result.score, accuracy: 1e-9, "\(result.uniqueIdentifier): \(e)")
            XCTAssertEqual(e.total, result.score, accuracy: 1e-9)
        }
        let matcha = try XCTUnwrap(try AppSearch().search("milk", limit: 5).first { $0.uniqueIdentifier == "matcha-milk" })
        XCTAssertEqual(matcha.explanation.exactNamePoints, 0)
        XCTAssertEqual(matcha.explanation.nameStartPoints, 0, "milk is its second word")
        XCTAssertTrue(matcha.explanation.description.contains("name length: 0.12"), matcha.explanation.description)
    }

    func testAppSearchHighlightsTheNameAndASnippet() async throws {
        _ = try await seed()
        let shake = try XCTUnwrap(try AppSearch().search("milk sha", limit: 1).first)
        let highlights = shake.highlights()
        XCTAssertEqual(highlights.name?.attribute, "title")
        XCTAssertEqual(highlights.name?.pieces.map { $0.isMatch ? "[\($0.text)]" : String($0.text) }.joined(), "[Milk] [Sha]ke")
        XCTAssertEqual(highlights.name?.nsRanges, [NSRange(location: 0, length: 4), NSRange(location: 5, length: 3)])
        XCTAssertEqual(highlights.snippet?.attribute, "contentDescription")
        XCTAssertEqual(highlights.snippet.map { s in s.ranges.map { String(s.text[$0]) } }, ["milk"])
        // Folded matches light up the text as written, whole characters in NFC and NFD alike.
        let creme = try XCTUnwrap(try AppSearch().search("creme bru", limit: 1).first)
        XCTAssertEqual(creme.highlights().name?.pieces.filter(\.isMatch).map { String($0.text) }, ["Crème", "Brû"])
        // A description that does not match gives no snippet; the name alone matched.
        let berry = try XCTUnwrap(try AppSearch().search("very", limit: 1).first)
        XCTAssertEqual(berry.uniqueIdentifier, "very-berry")
        XCTAssertNil(berry.highlights().snippet)
        // A typo lights up the word it was corrected to.
        let chocolate = try XCTUnwrap(try AppSearch().search("chcolate", limit: 1).first)
        XCTAssertEqual(chocolate.highlights().name?.pieces.filter(\.isMatch).map { String($0.text) }, ["Chocolate"])
        XCTAssertEqual(chocolate.explanation.words.first?.kind, .typo)
        XCTAssertEqual(chocolate.explanation.words.first?.points ?? 0, 8 * 0.6, accuracy: 1e-12)
        // A weak typo (of a beginning only, the word being typed: `chcola` → `chocola…`) is reported as a typo, its
        // points telling it from one of the whole word, and lights up its word as well.
        let typing = try XCTUnwrap(try AppSearch().search("chcola", limit: 1).first)
        XCTAssertEqual(typing.uniqueIdentifier, "chocolate-almond-milk")
        XCTAssertEqual(typing.explanation.words.first?.kind, .typo)
        XCTAssertEqual(typing.explanation.words.first?.matchedWord, "chocolate")
        XCTAssertEqual(typing.explanation.words.first?.points ?? 0, 8 * 0.55, accuracy: 1e-12)
        XCTAssertEqual(typing.highlights().name?.pieces.filter(\.isMatch).map { String($0.text) }, ["Chocolate"])
    }

    func testEngagementMovesAResultUp() async throws {
        _ = try await seed()
        let before = try await search("milk")
        XCTAssertEqual(before.items.last?.id, "chocolate-almond-milk")
        let query = CSUserQuery(userQueryString: "milk", userQueryContext: nil)
        let chocolate = try XCTUnwrap(before.items.first { $0.id == "chocolate-almond-milk" })
        query.userEngaged(chocolate, visibleItems: before.items, interaction: .select)
        let r11 = try await ids("milk")
        XCTAssertEqual(r11.first, "chocolate-almond-milk", "after engaging Chocolate Almond Milk for milk it comes first")
        let r12 = try await ids("mil")
        XCTAssertEqual(r12.first, "chocolate-almond-milk", "also while typing the same query")
        let r13 = try await ids("cocoa")
        XCTAssertEqual(r13, ["chocolate-almond-milk"], "engagement never adds matches")
    }

    func testEngagementNeverBuriesAClearlyBetterMatch() async throws {
        _ = try await seed()
        let query = CSUserQuery(userQueryString: "caramel", userQueryContext: nil)
        for _ in 0..<20 {
            query.userEngaged(CSUserQuery.Item(item: makeItem("carrot-chops")), visibleItems: [], interaction: .select)
        }
        // "orange" is in Carrot Chops' description only; a title match elsewhere must stay ahead.
        let index = CSSearchableIndex(name: "smoothies")
        try await index.indexSearchableItems([makeItem("orange-title", title: "Orange Sunrise")])
        let r14 = try await ids("orange")
        XCTAssertEqual(r14, ["orange-title", "carrot-chops"])
    }

    func testFreshLastUsedDateWithIsUpdateRises() async throws {
        let index = try await seed()
        let r15 = try await ids("berry")
        XCTAssertEqual(r15.first, "berry-blue")
        let set = CSSearchableItemAttributeSet()
        set.lastUsedDate = Date()
        let update = CSSearchableItem(uniqueIdentifier: "very-berry", domainIdentifier: "smoothies", attributeSet: set)
        update.isUpdate = true
        try await index.indexSearchableItems([update])
        let r16 = try await ids("berry")
        XCTAssertEqual(r16, ["very-berry", "berry-blue"])
    }

    func testMaxResultCountAndFilters() async throws {
        _ = try await seed()
        let r17 = try await search("milk") { $0.maxResultCount = 2 }
        XCTAssertEqual(r17.items.count, 2)
        let filtered = try await search("milk") { $0.filterQueries = [#"title == "matcha*"c"#] }
        XCTAssertEqual(filtered.items.map(\.id), ["matcha-milk"])
        let fetched = try await search("matcha").items.first?.item
        XCTAssertEqual(fetched?.attributeSet.title, "Matcha Milk")
        XCTAssertNil(fetched?.attributeSet.contentDescription, "only fetchAttributes are returned")
    }

    func testSuggestionsCompleteAndCorrect() async throws {
        _ = try await seed()
        let none = try await search("berry smo")
        XCTAssertEqual(none.suggestions, [], "maxSuggestionCount is 0 by default")

        let result = try await search("berry smo") { $0.maxSuggestionCount = 5 }
        let texts = result.suggestions.map { String($0.suggestion.localizedAttributedSuggestion.characters) }
        XCTAssertEqual(texts.first, "berry smoothie")
        let corrected = try await search("choclate alm") { $0.maxSuggestionCount = 5 }
        XCTAssertEqual(corrected.suggestions.first.map { String($0.suggestion.localizedAttributedSuggestion.characters) },
                       "chocolate almond")

        let highlight = try XCTUnwrap(result.suggestions.first).suggestion.localizedAttributedSuggestion
        let marked = highlight.runs.filter { $0[SuggestionHighlightAttribute.self] == true }
            .map { String(highlight[$0.range].characters) }
        XCTAssertEqual(marked, ["othie"], "the part not typed yet is highlighted")
        XCTAssertEqual(result.suggestions.first?.suggestion.suggestionKind, .default)
    }

    func testSuggestionsNeverComeFromDeletedItemsAndRememberEngagedQueries() async throws {
        let index = try await seed()
        try await index.deleteSearchableItems(withIdentifiers: ["matcha-milk"])
        let suggestions = try await search("matc") { $0.maxSuggestionCount = 5 }.suggestions
        XCTAssertEqual(suggestions, [], "matcha only existed in a deleted item")

        let context = CSUserQueryContext(currentSuggestion: nil)
        XCTAssertEqual(context.maxSuggestionCount, 10)
        let picked = try await search("milk sh") { $0.maxSuggestionCount = 5 }.suggestions
        let shake = try XCTUnwrap(picked.first)
        CSUserQuery(userQueryString: "milk sh", userQueryContext: nil)
            .userEngaged(shake, visibleSuggestions: picked, interaction: .select)
        let later = try await search("mi") { $0.maxSuggestionCount = 3 }.suggestions
        XCTAssertEqual(later.first?.suggestion.text, "milk shake", "a past engaged query is suggested first")
        for (a, b) in zip(later, later.dropFirst()) { XCTAssertEqual(a.suggestion.compare(byRank: b.suggestion), .orderedAscending) }
    }

    func testContinuingFromASuggestion() async throws {
        _ = try await seed()
        let carr = try await search("carr") { $0.maxSuggestionCount = 1 }
        let suggestion = try XCTUnwrap(carr.suggestions.first)
        let context = CSUserQueryContext(currentSuggestion: suggestion.suggestion)
        var found: [String] = []
        for try await response in CSUserQuery(userQueryString: nil, userQueryContext: context).responses {
            if case .item(let item) = response { found.append(item.id) }
        }
        XCTAssertEqual(found, ["carrot-chops"])
    }

    func testHandlerAPIDeliversItemsAndSuggestions() async throws {
        _ = try await seed()
        let context = CSUserQueryContext()
        context.maxSuggestionCount = 3
        let query = CSUserQuery(userQueryString: "berry", userQueryContext: context)
        let items = Box<[String]>([])
        let suggestions = Box<[String]>([])
        query.foundItemsHandler = { found in items.mutate { $0 += found.map(\.uniqueIdentifier) } }
        query.foundSuggestionsHandler = { list in suggestions.mutate { $0 = list.map(\.text) } }
        let done = expectation(description: "done")
        query.completionHandler = { error in
            XCTAssertNil(error)
            done.fulfill()
        }
        query.start()
        await fulfillment(of: [done], timeout: 30)
        XCTAssertEqual(items.value, ["berry-blue", "very-berry"])
        XCTAssertEqual(query.foundItemCount, 2)
        XCTAssertEqual(query.foundSuggestionCount, suggestions.value.count)
        CSUserQuery.prepare()
    }

    func testEmptyTextReturnsItemsByRecencyAndHint() async throws {
        let index = try await seed()
        let set = CSSearchableItemAttributeSet()
        set.rankingHint = 100
        let update = CSSearchableItem(uniqueIdentifier: "creme", domainIdentifier: nil, attributeSet: set)
        update.isUpdate = true
        try await index.indexSearchableItems([update])
        let r18 = try await ids("")
        XCTAssertEqual(r18.first, "creme")
        let blank = try await ids("   ")
        XCTAssertEqual(blank.first, "creme", "blank text is empty text")
    }

    /// Text with nothing searchable in it matches nothing (it used to list items as if they matched).
    func testPunctuationOrEmojiAloneMatchNothing() async throws {
        _ = try await seed()
        for text in ["🍓", "!!!", "*", "%", "— …", "🍓 ?"] {  // no smoothie has 🍓 in it
            let found = try await ids(text)
            XCTAssertEqual(found, [], "\(text) has nothing to search for")
        }
        let words = try await ids("berry !!!")
        XCTAssertFalse(words.isEmpty, "punctuation beside a word does not stop the word from matching")
    }

    /// Emoji are words where they appear in content (issue 13): `🍓` finds "🍓 Strawberry Shake" and nothing else.
    func testEmojiAreWords() async throws {
        let index = try await seed()
        let set = CSSearchableItemAttributeSet(contentType: .content)
        set.title = "🍓 Strawberry Shake"
        let heart = CSSearchableItemAttributeSet(contentType: .content)
        heart.title = "Favourites ❤️"
        try await index.indexSearchableItems([
            CSSearchableItem(uniqueIdentifier: "shake", domainIdentifier: "smoothies", attributeSet: set),
            CSSearchableItem(uniqueIdentifier: "favourites", domainIdentifier: "smoothies", attributeSet: heart),
        ])
        let strawberry = try await ids("🍓")
        XCTAssertEqual(strawberry, ["shake"])
        let withPunctuation = try await ids("🍓 ?")
        XCTAssertEqual(withPunctuation, ["shake"])
        let heartFound = try await ids("❤")
        XCTAssertEqual(heartFound, ["favourites"], "with or without the emoji variation selector")
        let nothing = try await ids("🥝")
        XCTAssertEqual(nothing, [])
    }
}
