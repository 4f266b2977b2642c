-- Bounded search for broad words (issue 16): a word prefix that thousands of items match ('co', 'data', 'py') would
-- make every search read and rank all of them. For each such prefix, the refresh (PublicSearch.refreshCandidates,
-- run by one instance at a time) keeps its best items as ranked by the search itself: a "champion list"
-- (Manning, Raghavan and Schütze, Introduction to Information Retrieval, 7.1.3). A search whose words are all broad
-- ranks the champion list of its narrowest word, plus every item changed since that list was made; a search with a
-- narrow word finds its items through the narrow words alone and checks the rest on each item.

-- The one ranking of public search: text relevance (ts_rank, normalised by document length) times engagement.
create function os_score(tsvector, tsquery, int) returns double precision
    language sql immutable strict parallel safe
    as $$ select ts_rank($1, $2, 1) * (1 + ln(1 + $3)) $$;

-- Every word of `words` as a prefix, all required: {brea,choc} → 'brea':* & 'choc':*. Each word is quoted in
-- tsquery's own syntax (a quote doubled, a backslash escaped), so no lexeme can be read as an operator.
create function os_prefix_query(words text[]) returns tsquery
    language sql immutable strict parallel safe
    as $$ select to_tsquery('simple', coalesce(string_agg(
              '''' || replace(replace(w, '\', '\\'), '''', '''''') || ''':*', ' & '), ''))
          from unnest(words) w $$;

create table search_candidates (
    -- A lexeme prefix (as to_tsvector('simple', os_fold(...)) spells it) matching at least the refresh's threshold
    -- of items.
    prefix text primary key,
    -- Its best items by os_score, best first: enough for the deepest page the API serves.
    ids bigint[] not null,
    -- How many items it matched when ranked.
    matches int not null,
    -- When the refresh that ranked it began: items changed since are ranked with the list.
    refreshed_at timestamptz not null
);

-- Which instance refreshes, and when it last did (a lease, so that a crashed instance's claim expires).
create table search_refresh (
    id int primary key check (id = 1),
    started_at timestamptz,
    finished_at timestamptz,
    lease_until timestamptz
);
insert into search_refresh (id) values (1);

-- Items changed since a refresh.
create index public_item_updated on public_item (updated_at);

-- Typo corrections (symmetric delete, as SymSpell does): every vocabulary word of four letters or more that at least
-- two items hold, under itself and under each spelling with one letter deleted. Two words within one edit (a
-- letter deleted, inserted, replaced, or two neighbours swapped) share a variant, so a misspelt word's corrections
-- are a few b-tree lookups. Remade by the refresh; items changed since are matched by trigrams instead.
create table search_correction (
    variant text not null,
    word text not null,
    items int not null
);
create index search_correction_variant on search_correction (variant);

-- The refresh's cut-off: the candidate lists and the corrections cover items changed before it.
alter table search_refresh add column covers_until timestamptz;
