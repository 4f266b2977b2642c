import Foundation
import XCTest
@testable import OpenCoreSpotlight
import SpotlightEngine

/// Long inputs fail at once with `invalidQuery` and a message naming the limit, instead of searching for seconds
/// (issue 17, item 10: a 2,000-character user query took 6.8 s, 50,000 `&&` clauses 31 s). Inputs at the limits
/// still search.
final class QueryLimitTests: IndexTestCase {
    func indexThirtyItems() async throws {
        let index = CSSearchableIndex(name: "limits")
        try await index.indexSearchableItems((0..<30).map { makeItem("item-\($0)", title: "berry item \($0)") })
    }

    func userQueryResult(_ text: String) async -> Result<Int, any Error> {
        let context = CSUserQueryContext()
        context.maxSuggestionCount = 0
        do {
            var count = 0
            for try await _ in CSUserQuery(userQueryString: text, userQueryContext: context).responses { count += 1 }
            return .success(count)
        } catch {
            return .failure(error)
        }
    }

    func searchQueryResult(_ string: String, filter: String? = nil) async -> Result<Int, any Error> {
        let context = CSSearchQueryContext()
        if let filter { context.filterQueries = [filter] }
        do {
            var count = 0
            for try await _ in CSSearchQuery(queryString: string, queryContext: context).results { count += 1 }
            return .success(count)
        } catch {
            return .failure(error)
        }
    }

    func assertInvalidQuery(_ result: Result<Int, any Error>, mentions: String, file: StaticString = #filePath, line: UInt = #line) {
        switch result {
        case .success(let count):
            XCTFail("expected invalidQuery, found \(count) results", file: file, line: line)
        case .failure(let error):
            let error = error as? CSSearchQueryError
            XCTAssertEqual(error?.code, .invalidQuery, file: file, line: line)
            XCTAssertTrue(error?.message.contains(mentions) == true, "\(error?.message ?? "")", file: file, line: line)
        }
    }

    func testAUserQueryOf2000CharactersFailsWithInvalidQuery() async throws {
        try await indexThirtyItems()
        let text = String(repeating: "item ", count: 400)  // 2,000 characters, 400 words that all match
        assertInvalidQuery(await userQueryResult(text), mentions: "400 words")
        let bytes = String(repeating: "x", count: QueryLimits.maximumUserQueryBytes + 1)
        assertInvalidQuery(await userQueryResult(bytes), mentions: "\(QueryLimits.maximumUserQueryBytes) bytes")
    }

    func testAUserQueryAtTheWordLimitSearches() async throws {
        try await indexThirtyItems()
        let text = Array(repeating: "item", count: QueryLimits.maximumUserQueryWords).joined(separator: " ")
        let count = try await userQueryResult(text).get()
        XCTAssertEqual(count, 30)
    }

    func testTheCompletionHandlerGetsTheLimitError() throws {
        let query = CSUserQuery(userQueryString: String(repeating: "berry ", count: 100), userQueryContext: nil)
        let done = expectation(description: "completion")
        let box = ErrorBox()
        query.completionHandler = { error in box.set(error); done.fulfill() }
        query.start()
        wait(for: [done], timeout: 30)
        XCTAssertEqual((box.get() as? CSSearchQueryError)?.code, .invalidQuery)
    }

    func testASearchQueryOf50000ClausesFailsWithInvalidQuery() async throws {
        try await indexThirtyItems()
        // Short clauses, so the string stays under the length limit and the comparison limit is what refuses it.
        let many = (0..<5_000).map { _ in "a==1" }.joined(separator: "&&")
        assertInvalidQuery(await searchQueryResult(many), mentions: "more than \(QueryLimits.maximumComparisons) comparisons")
        let huge = (0..<50_000).map { "title == \"x\($0)*\"" }.joined(separator: " && ")
        assertInvalidQuery(await searchQueryResult(huge), mentions: "bytes long")
        assertInvalidQuery(await searchQueryResult("title == \"berry*\"", filter: many), mentions: "filter query has more than")
    }

    func testASearchQueryAtTheComparisonLimitSearches() async throws {
        try await indexThirtyItems()
        let atLimit = (["title == \"berry*\""] + (1..<QueryLimits.maximumComparisons).map { _ in "title == \"*item*\"" })
            .joined(separator: " && ")
        let count = try await searchQueryResult(atLimit).get()
        XCTAssertEqual(count, 30)
    }
}
