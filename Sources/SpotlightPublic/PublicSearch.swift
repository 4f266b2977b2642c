import Foundation
import Logging
import PostgresNIO

/// One public search result: an activity past the crowd threshold or an item from a crawled page.
public struct PublicResult: Codable, Sendable, Equatable {
    /// `activity` or `web`.
    public var source: String
    /// `Activity`, or the schema.org kind of a web item (`Product`, `Recipe`, `Article`, … `WebPage`).
    public var kind: String
    public var title: String
    public var description: String?
    /// The public web page.
    public var url: String
    public var imageURL: String?
    /// The link into the app (Smart App Banner `app-argument`, App Links), for web items.
    public var deepLink: String?
    /// The app that reported the activity, or that registered the site.
    public var applicationIdentifier: String?
    public var appStoreID: String?
    public var appName: String?
    /// For activities: what continuing it in the app needs (type and the required `userInfo`).
    public var activityType: String?
    public var userInfo: [String: JSONValue]?
    public var keywords: [String]
    public var attributes: [String: String]
    /// Distinct installs that engaged with it within the window (activities), 0 for web items.
    public var engagement: Int
    public var score: Double
}

/// `GET /v1/search`'s answer.
public struct PublicSearchPage: Codable, Sendable, Equatable {
    public var query: String
    public var results: [PublicResult]
    /// The `offset` of the next page, when there is one.
    public var next: Int?
}

/// Ranked public search on PostgreSQL's own indexes: full-text search over title (weight A), keywords (B) and
/// description (C), every word a prefix (search as you type), accents and case folded by `unaccent`; when that finds
/// too little, trigram word similarity on titles (typos). Engagement raises a result logarithmically.
enum PublicSearch {
    static let maximumLimit = 50, maximumOffset = 1_000, maximumQueryLength = 256

    static func search(_ query: String, limit: Int, offset: Int, in client: PostgresClient,
                       logger: Logger) async throws -> PublicSearchPage {
        // Control characters (NUL above all, which PostgreSQL's text cannot hold) separate words like spaces.
        let cleaned = String(String.UnicodeScalarView(query.unicodeScalars.map {
            $0.properties.generalCategory == .control ? " " : $0
        }))
        let text = String(cleaned.trimmingCharacters(in: .whitespacesAndNewlines).prefix(maximumQueryLength))
        guard !text.isEmpty else { return PublicSearchPage(query: text, results: [], next: nil) }
        // One more than asked, to know whether there is a next page.
        var results = try await fullText(text, limit: limit + 1, offset: offset, client: client, logger: logger)
        var more = results.count > limit
        results = Array(results.prefix(limit))
        if offset == 0, results.count < limit, text.count >= 3 {
            let seen = Set(results.map(\.url))
            let similar = try await similarTitles(text, limit: limit, client: client, logger: logger)
            results += similar.filter { !seen.contains($0.url) }.prefix(limit - results.count)
            more = false
        }
        return PublicSearchPage(query: text, results: results, next: more ? offset + limit : nil)
    }

    static let columns = """
        source, kind, title, description, url, image_url, deep_link, app_identifier, app_store_id, app_name,
        activity_type, user_info::text, keywords, attributes::text, engagement
        """

    static func fullText(_ text: String, limit: Int, offset: Int, client: PostgresClient,
                         logger: Logger) async throws -> [PublicResult] {
        // The query's words as the index's parser splits them, each a prefix: "brea choc" finds "Chocolate Bread".
        let rows = try await client.query("""
            with q as (
                select to_tsquery('simple', coalesce((
                    select string_agg(quote_literal(lexeme) || ':*', ' & ')
                    from unnest(to_tsvector('simple', os_fold(\(text))))), '')) as query
            )
            select \(unescaped: columns),
                   ts_rank(search, q.query, 1) * (1 + ln(1 + engagement)) as score
            from public_item, q
            where q.query::text <> '' and search @@ q.query
            order by score desc, id
            limit \(limit) offset \(offset)
            """, logger: logger)
        return try await decode(rows)
    }

    /// Titles with a word like each of the query's words of three letters or more (pg_trgm's word similarity ≥ 0.45,
    /// a little looser than its default 0.6 so that one transposed pair of letters still matches a short word). The
    /// longest word goes through the trigram index; the others filter its matches.
    static func similarTitles(_ text: String, limit: Int, client: PostgresClient,
                              logger: Logger) async throws -> [PublicResult] {
        let words = text.lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init).filter { $0.count >= 3 }
        guard let longest = words.max(by: { $0.count < $1.count }) else { return [] }
        return try await client.withConnection { connection in
            try await connection.query(
                "select set_config('pg_trgm.word_similarity_threshold', '0.45', false)", logger: logger)
            let rows = try await connection.query("""
                select \(unescaped: columns),
                       word_similarity(os_fold(\(text)), title_folded) * 0.1 as score
                from public_item
                where os_fold(\(longest)) <% title_folded
                  and not exists (select 1 from unnest(\(words)::text[]) w where not (os_fold(w) <% title_folded))
                order by score desc, engagement desc, id
                limit \(limit)
                """, logger: logger)
            return try await decode(rows)
        }
    }

    static func decode(_ rows: PostgresRowSequence) async throws -> [PublicResult] {
        var results: [PublicResult] = []
        let decoder = JSONDecoder()
        for try await row in rows {
            let cells = row.makeRandomAccess()
            func text(_ index: Int) throws -> String? { try cells[index].decode(String?.self) }
            results.append(PublicResult(
                source: try cells[0].decode(String.self), kind: try cells[1].decode(String.self),
                title: try cells[2].decode(String.self), description: try text(3), url: try cells[4].decode(String.self),
                imageURL: try text(5), deepLink: try text(6), applicationIdentifier: try text(7), appStoreID: try text(8),
                appName: try text(9), activityType: try text(10),
                userInfo: try text(11).flatMap { try? decoder.decode([String: JSONValue].self, from: Data($0.utf8)) },
                keywords: try cells[12].decode([String].self),
                attributes: (try text(13)).flatMap { try? decoder.decode([String: String].self, from: Data($0.utf8)) } ?? [:],
                engagement: try cells[14].decode(Int.self), score: try cells[15].decode(Double.self)))
        }
        return results
    }
}

/// Fixed-window request counters in the database, so every instance enforces the same limits.
enum RateLimiter {
    /// Counts one request under `key`; throws 429 (with Retry-After) past `limit` in the current window.
    static func hit(_ key: String, limit: Int, window: Int, client: PostgresClient, logger: Logger) async throws {
        guard limit > 0 else { return }
        let rows = try await client.query("""
            insert into rate_counter as c (key, window_start, count)
            values (\(key), to_timestamp(floor(extract(epoch from now()) / \(window)) * \(window)), 1)
            on conflict (key, window_start) do update set count = c.count + 1
            returning count, ceil(extract(epoch from c.window_start) + \(window) - extract(epoch from now()))::int
            """, logger: logger)
        for try await (count, remaining) in rows.decode((Int, Int).self) where count > limit {
            throw PublicAPIError(.tooManyRequests, code: "rate-limited",
                                 "more than \(limit) requests in \(window) seconds; try again later",
                                 retryAfter: max(remaining, 1))
        }
    }

    /// Forgets windows that ended long ago.
    static func prune(client: PostgresClient, logger: Logger) async throws {
        try await client.query("delete from rate_counter where window_start < now() - interval '2 hours'", logger: logger)
    }
}
