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
    /// The query with its misspelt words corrected, when too few items matched it as typed and the corrected query
    /// added results (after those of the query as typed).
    public var correction: String?

    public init(query: String, results: [PublicResult], next: Int?, correction: String? = nil) {
        self.query = query
        self.results = results
        self.next = next
        self.correction = correction
    }
}

/// Ranked public search on PostgreSQL's own indexes: full-text search over title (weight A), keywords (B) and
/// description (C), every word a prefix (search as you type), accents and case folded by `unaccent`; when that finds
/// too little, trigram word similarity on titles (typos). Engagement raises a result logarithmically (`os_score`).
///
/// Work is bounded for broad words (`'co':*` matches a quarter of a million items at 1M): a query with a narrow word
/// finds its items through the narrow words' index entries alone and checks the other words on each item (exact); a
/// query whose words are all broad ranks the narrowest word's candidate list (`search_candidates`, its best items as
/// of the last refresh, see `refreshCandidates`) and the items changed since. For one word that is the exact answer;
/// for several it is the best matches among that word's best items, and when those are too few for the page, the
/// exact search over every match.
enum PublicSearch {
    static let maximumLimit = 50, maximumOffset = 1_000, maximumQueryLength = 256
    /// A candidate list holds the best items for the deepest page the API serves, plus one (to know there is more).
    static let candidateListLength = maximumOffset + maximumLimit + 1

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
        var correction: String?
        if offset == 0, results.count < limit {
            // Too few: the query with its misspelt words corrected, then titles like it among items too new for the
            // corrections.
            var seen = Set(results.map(\.url))
            if let corrected = try await corrected(text, client: client, logger: logger) {
                let before = results.count
                for result in try await fullText(corrected, limit: limit, offset: 0, client: client, logger: logger)
                where results.count < limit && seen.insert(result.url).inserted {
                    results.append(result)
                }
                if results.count > before { correction = corrected }
            }
            if results.count < limit, text.count >= 3 {
                for result in try await similarRecentTitles(text, limit: limit, client: client, logger: logger)
                where results.count < limit && seen.insert(result.url).inserted {
                    results.append(result)
                }
            }
            more = false
        }
        return PublicSearchPage(query: text, results: results, next: more ? offset + limit : nil, correction: correction)
    }

    static let columns = """
        source, kind, title, description, url, image_url, deep_link, app_identifier, app_store_id, app_name,
        activity_type, user_info::text, keywords, attributes::text, engagement
        """

    /// How a query is searched: its words as the index's parser splits them, each a prefix ("brea choc" finds
    /// "Chocolate Bread"), split into broad ones (with a candidate list) and narrow ones.
    struct Plan {
        /// Every word: `'brea':* & 'choc':*` (PostgreSQL's text form, bound back as a parameter so that the planner
        /// sees the value).
        var all: String
        /// The words without a candidate list.
        var narrow: String
        /// The words with a candidate list, whether one of those lists holds every match of its word (then the lists
        /// hold every match of the query), and when the oldest of them was made.
        var broad: [String]
        var listsComplete: Bool
        var refreshedAt: Date?
    }

    static func plan(_ text: String, client: PostgresClient, logger: Logger) async throws -> Plan? {
        let rows = try await client.query("""
            with w as (
                select u.lexeme, c.prefix is not null as broad, c.matches, cardinality(c.ids) as listed, c.refreshed_at
                from unnest(to_tsvector('simple', os_fold(\(text)))) u
                left join search_candidates c on c.prefix = u.lexeme
            )
            select coalesce(os_prefix_query(array(select lexeme from w))::text, ''),
                   coalesce(os_prefix_query(array(select lexeme from w where not broad))::text, ''),
                   array(select lexeme from w where broad), coalesce(bool_or(listed >= matches), false),
                   min(refreshed_at)
            from w
            """, logger: logger)
        for try await (all, narrow, broad, complete, refreshed) in rows.decode(
            (String, String, [String], Bool, Date?).self) {
            guard !all.isEmpty else { return nil }
            return Plan(all: all, narrow: narrow, broad: broad, listsComplete: complete, refreshedAt: refreshed)
        }
        return nil
    }

    static func fullText(_ text: String, limit: Int, offset: Int, client: PostgresClient,
                         logger: Logger) async throws -> [PublicResult] {
        guard let plan = try await plan(text, client: client, logger: logger) else { return [] }
        if !plan.narrow.isEmpty {
            // Through the narrow words' index entries; the broad words are checked on each of their items
            // (ts_match_vq is @@ in a form the planner cannot take to the index).
            return try await decode(client.query("""
                select \(unescaped: columns), os_score(search, \(plan.all)::tsquery, engagement) as score
                from public_item
                where search @@ \(plan.narrow)::tsquery and ts_match_vq(search, \(plan.all)::tsquery)
                order by score desc, id
                limit \(limit) offset \(offset)
                """, logger: logger))
        }
        if !plan.broad.isEmpty, let refreshedAt = plan.refreshedAt {
            // Each word's best items as of the refresh, and every item changed since.
            let results = try await decode(client.query("""
                with candidate as (
                    select unnest(ids) as id from search_candidates where prefix = any(\(plan.broad))
                    union
                    select id from public_item
                    where updated_at >= \(refreshedAt) and ts_match_vq(search, \(plan.all)::tsquery)
                )
                select \(unescaped: columns), os_score(search, \(plan.all)::tsquery, engagement) as score
                from public_item join candidate using (id)
                where ts_match_vq(search, \(plan.all)::tsquery)
                order by score desc, id
                limit \(limit) offset \(offset)
                """, logger: logger))
            // Complete when a list held every match of its word, or the page filled (then it is the best of the
            // words' best items, the bounded answer for several broad words; for one word it is exact).
            if results.count == limit || plan.listsComplete { return results }
        }
        return try await decode(client.query("""
            select \(unescaped: columns), os_score(search, \(plan.all)::tsquery, engagement) as score
            from public_item
            where search @@ \(plan.all)::tsquery
            order by score desc, id
            limit \(limit) offset \(offset)
            """, logger: logger))
    }

    /// Remakes what bounds searches of broad words, from the vocabulary (`ts_stat`, read once):
    /// - the candidate lists: every lexeme prefix that at least `minimumItems` items match (summing the document
    ///   counts of the lexemes it starts, an upper bound) gets its best `candidateListLength` items by `os_score`;
    ///   prefixes no longer that broad lose theirs. One statement per prefix, each its own transaction, so searches go
    ///   on meanwhile and an interrupted refresh leaves every list valid;
    /// - the typo corrections (`search_correction`), built aside and swapped in.
    /// Then `search_refresh.covers_until` says which items the next searches must look at beside them. Returns the
    /// number of lists.
    @discardableResult
    static func refreshCandidates(minimumItems: Int, client: PostgresClient, logger: Logger,
                                  isCancelled: @escaping @Sendable () -> Bool = { Task.isCancelled }) async throws -> Int {
        try await client.withConnection { connection in
            // One refresh at a time, whoever starts it (a serving instance, `refresh-search`): the others wait.
            try await connection.query("select pg_advisory_lock(\(refreshLock))", logger: logger)
            do {
                let lists = try await refreshCandidates(minimumItems: minimumItems, connection: connection,
                                                        logger: logger, isCancelled: isCancelled)
                try await connection.query("select pg_advisory_unlock(\(refreshLock))", logger: logger)
                return lists
            } catch {
                _ = try? await connection.query("select pg_advisory_unlock(\(refreshLock))", logger: logger)
                throw error
            }
        }
    }

    /// The advisory lock that serialises refreshes (the migrations hold 7160411).
    static let refreshLock = 7_160_412

    private static func refreshCandidates(minimumItems: Int, connection: PostgresConnection, logger: Logger,
                                          isCancelled: @Sendable () -> Bool) async throws -> Int {
        // The cut-off: items changed from then on are searched beside the lists. An item's `updated_at` is its
        // transaction's start (`now()`), and a transaction still open now may commit after some prefix was
        // ranked: the cut-off is the start of the oldest one, so its items count as changed. Everything that
        // committed before is seen by every ranking below. (pg_stat_activity shows the transactions of the
        // service's own role, which is the one that writes items.)
        var started: Date?
        for try await time in try await connection.query("""
            select least(now(), (select min(xact_start) from pg_stat_activity
                                 where datname = current_database() and backend_type = 'client backend'
                                   and pid <> pg_backend_pid()))
            """, logger: logger).decode(Date.self) { started = time }
        guard let started else { return 0 }
        try await connection.query("drop table if exists refresh_vocabulary", logger: logger)
        try await connection.query("""
            create temporary table refresh_vocabulary as
            select word, ndoc from ts_stat('select search from public_item')
            """, logger: logger)
        var prefixes: [String] = []
        for try await prefix in try await connection.query("""
            select prefix from (
                select left(word, n) as prefix, sum(ndoc) as items
                from refresh_vocabulary, generate_series(1, least(length(word), 64)) n
                group by 1
            ) s
            where items >= \(max(minimumItems, 1))
            order by prefix
            """, logger: logger).decode(String.self) { prefixes.append(prefix) }
        for prefix in prefixes {
            if isCancelled() { throw CancellationError() }
            do {
                try await rankCandidates(prefix, started: started, connection: connection, logger: logger)
            } catch let error as PSQLError where error.serverInfo != nil {
                // The database refused this one prefix (a lexeme its own query parser reads differently):
                // searches for it stay exact. Any other failure (the database gone) ends the refresh.
                logger.warning("search candidates for a prefix were not ranked",
                               metadata: ["prefix": "\(prefix)", "error": "\(String(reflecting: error))"])
            }
        }
        try await connection.query(
            "delete from search_candidates where refreshed_at < \(started)", logger: logger)
        if isCancelled() { throw CancellationError() }
        try await connection.query("drop table if exists search_correction_next", logger: logger)
        try await connection.query("""
            create table search_correction_next as
            select d.variant, v.word, v.ndoc::int as items
            from refresh_vocabulary v,
                 lateral (select v.word as variant
                          union select left(v.word, i - 1) || substr(v.word, i + 1)
                          from generate_series(1, length(v.word)) i) d
            where v.ndoc >= 2 and length(v.word) between 4 and 32 and v.word ~ '^[[:alpha:]]+$'
            """, logger: logger)
        try await connection.query(
            "create index search_correction_next_variant on search_correction_next (variant)", logger: logger)
        try await connection.query("""
            do $$ begin
                drop table search_correction;
                alter table search_correction_next rename to search_correction;
                alter index search_correction_next_variant rename to search_correction_variant;
            end $$
            """, logger: logger)
        try await connection.query(
            "update search_refresh set covers_until = \(started), finished_at = now() where id = 1", logger: logger)
        try await connection.query("drop table refresh_vocabulary", logger: logger)
        logger.info("search candidate lists and corrections refreshed", metadata: ["lists": "\(prefixes.count)"])
        return prefixes.count
    }

    static func rankCandidates(_ prefix: String, started: Date, connection: PostgresConnection,
                               logger: Logger) async throws {
        try await connection.query("""
            with q as (select os_prefix_query(array[\(prefix)]) as query),
            ranked as (
                select id, row_number() over (order by os_score(search, q.query, engagement) desc, id) as position
                from public_item, q
                where search @@ q.query
            )
            insert into search_candidates as c (prefix, ids, matches, refreshed_at)
            select \(prefix), coalesce(array_agg(id order by position)
                                           filter (where position <= \(candidateListLength)), '{}'),
                   count(*), \(started)
            from ranked
            on conflict (prefix) do update
                set ids = excluded.ids, matches = excluded.matches, refreshed_at = excluded.refreshed_at
            """, logger: logger)
    }

    /// Refreshes the candidate lists when they are due and no other instance is refreshing (a lease in
    /// `search_refresh`, taken for `lease` seconds, so that a crashed instance's claim lapses). Due: the last refresh
    /// is older than `interval`, or `changedItems` items changed since it (searches of broad words read those one by
    /// one) and it is older than a twelfth of `interval`. Returns whether this instance refreshed.
    static func refreshCandidatesIfDue(interval: Double, minimumItems: Int, changedItems: Int, lease: Double = 3_600,
                                       client: PostgresClient, logger: Logger) async throws -> Bool {
        var claimed = false
        for try await _ in try await client.query("""
            update search_refresh set started_at = now(), lease_until = now() + make_interval(secs => \(lease))
            where id = 1 and (lease_until is null or lease_until < now())
              and (finished_at is null or finished_at < now() - make_interval(secs => \(interval))
                   or (finished_at < now() - make_interval(secs => \(interval / 12))
                       and (select count(*) from (select from public_item where updated_at >= covers_until
                                                  limit \(changedItems)) changed) >= \(changedItems)))
            returning id
            """, logger: logger).decode(Int.self) { claimed = true }
        guard claimed else { return false }
        do {
            try await refreshCandidates(minimumItems: minimumItems, client: client, logger: logger)
            try await client.query("update search_refresh set lease_until = null where id = 1", logger: logger)
        } catch {
            _ = try? await client.query("update search_refresh set lease_until = null where id = 1", logger: logger)
            throw error
        }
        return true
    }

    /// The corrected query: each word of four letters or more replaced by the vocabulary word one edit away (Damerau:
    /// a letter deleted, inserted or replaced, or two neighbours swapped) that the most items hold, when the word is
    /// not in the vocabulary or that neighbour is twenty times as common (a typo that some items share: "clietn"),
    /// and the neighbour does not merely continue the word (which, as a prefix, already finds it). `nil` when no word
    /// needed or found a correction. Words that only one item holds are not in the corrections (they would triple
    /// the table); that item is found by its other words.
    static func corrected(_ text: String, client: PostgresClient, logger: Logger) async throws -> String? {
        var words: [String] = []
        for try await word in try await client.query(
            "select lexeme from unnest(to_tsvector('simple', os_fold(\(text))))", logger: logger).decode(String.self) {
            words.append(word)
        }
        let misspelt = Set(words.filter { $0.count >= 4 && $0.count <= 32 && $0.allSatisfy(\.isLetter) })
        guard !misspelt.isEmpty else { return nil }
        var variants: Set<String> = []
        for word in misspelt { variants.formUnion(deletions(of: word)); variants.insert(word) }
        var known: [String: Int] = [:]
        var best: [String: (word: String, items: Int)] = [:]
        for try await (word, items) in try await client.query("""
            select word, items from search_correction where variant = any(\(Array(variants)))
            """, logger: logger).decode((String, Int).self) {
            if misspelt.contains(word) { known[word] = items }
            // A word the typed one begins is no correction: every word is searched as a prefix ("semanti" finds
            // "semantic" already).
            for typed in misspelt where isOneEdit(typed, word) && !word.hasPrefix(typed) {
                // The word most items hold; of equals, the first in order.
                if let current = best[typed], current.items > items || (current.items == items && current.word <= word) {
                    continue
                }
                best[typed] = (word, items)
            }
        }
        var changed = false
        let correctedWords = words.map { word -> String in
            guard let replacement = best[word], replacement.items >= 20 * (known[word] ?? 0) else { return word }
            changed = true
            return replacement.word
        }
        return changed ? correctedWords.joined(separator: " ") : nil
    }

    /// A word with each one of its letters deleted.
    static func deletions(of word: String) -> Set<String> {
        let characters = Array(word)
        return Set(characters.indices.map { index in
            var copy = characters
            copy.remove(at: index)
            return String(copy)
        })
    }

    /// Whether `a` becomes `b` by one edit: a letter deleted, inserted or replaced, or two neighbours swapped.
    static func isOneEdit(_ a: String, _ b: String) -> Bool {
        let x = Array(a), y = Array(b)
        if x == y { return false }
        if x.count == y.count {
            let differences = x.indices.filter { x[$0] != y[$0] }
            if differences.count == 1 { return true }
            return differences.count == 2 && differences[1] == differences[0] + 1
                && x[differences[0]] == y[differences[1]] && x[differences[1]] == y[differences[0]]
        }
        let (long, short) = x.count > y.count ? (x, y) : (y, x)
        guard long.count == short.count + 1 else { return false }
        var index = 0
        while index < short.count && long[index] == short[index] { index += 1 }
        return long[(index + 1)...].elementsEqual(short[index...])
    }

    /// Titles with a word like each of the query's words of three letters or more (pg_trgm's word similarity ≥ 0.45,
    /// a little looser than its default 0.6 so that one transposed pair of letters still matches a short word),
    /// among the items changed since the last refresh (all of them before the first): older ones are reached through
    /// the corrections. The longest word goes through the trigram index; the others filter its matches.
    static func similarRecentTitles(_ text: String, limit: Int, client: PostgresClient,
                                    logger: Logger) async throws -> [PublicResult] {
        let words = text.lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init).filter { $0.count >= 3 }
        guard let longest = words.max(by: { $0.count < $1.count }) else { return [] }
        return try await client.withConnection { connection in
            var coversUntil: Date?
            for try await time in try await connection.query(
                "select covers_until from search_refresh where id = 1", logger: logger).decode(Date?.self) {
                coversUntil = time
            }
            try await connection.query(
                "select set_config('pg_trgm.word_similarity_threshold', '0.45', false)", logger: logger)
            let rows = try await connection.query("""
                select \(unescaped: columns),
                       word_similarity(os_fold(\(text)), title_folded) * 0.1 as score
                from public_item
                where updated_at >= \(coversUntil ?? .distantPast)
                  and os_fold(\(longest)) <% title_folded
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
