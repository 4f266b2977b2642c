-- The public index (issue 16), version 1. Every piece of state lives here: service instances keep none.

create extension if not exists unaccent;
create extension if not exists pg_trgm;

-- Lower case without accents, for indexing and for queries alike. unaccent() is only STABLE (its dictionary could be
-- swapped); naming the dictionary makes this wrapper safe to declare IMMUTABLE, which generated columns need.
create function os_fold(text) returns text
    language sql immutable strict parallel safe
    as $$ select lower(public.unaccent('public.unaccent'::regdictionary, $1)) $$;

-- array_to_string() is only STABLE; for text[] it cannot change.
create function os_words(text[]) returns text
    language sql immutable strict parallel safe
    as $$ select array_to_string($1, ' ') $$;

-- The key that install identifiers are hashed with (HMAC-SHA256), when the operator gives none
-- (`--hash-key-file`): drawn once by the first instance, shared by all.
create table service_key (
    id int primary key check (id = 1),
    key bytea not null
);

-- A public activity (NSUserActivity with isEligibleForPublicIndexing and a webpageURL), identified by its type and
-- page. Nothing of it is searchable or returned until one of its variants reaches the crowd threshold.
create table activity (
    id bigint generated always as identity primary key,
    activity_type text not null,
    webpage_url text not null,
    first_reported timestamptz not null default now(),
    unique (activity_type, webpage_url)
);

-- What devices said about an activity, exactly: a variant becomes public only when K distinct installs sent this same
-- content, so nothing one person alone sent (a personal title, a userInfo value) is ever published.
create table activity_variant (
    id bigint generated always as identity primary key,
    activity_id bigint not null references activity (id) on delete cascade,
    content_hash bytea not null,
    app_identifier text,
    title text not null,
    description text,
    keywords text[] not null default '{}',
    -- Only the requiredUserInfoKeys subset of userInfo, ever.
    user_info jsonb not null default '{}',
    required_keys text[] not null default '{}',
    unique (activity_id, content_hash)
);

-- One row per (variant, install, day): a report repeated on the same day by the same install is the same row.
-- install_hash is HMAC-SHA256(service key, the device's rotating install identifier).
create table activity_report (
    variant_id bigint not null references activity_variant (id) on delete cascade,
    install_hash bytea not null,
    day date not null,
    received_at timestamptz not null default now(),
    primary key (variant_id, install_hash, day)
);
create index activity_report_day on activity_report (day);

-- A site registered for web markup. It is crawled only once the registrant has served its token at
-- /.well-known/openspotlight.
create table site (
    id bigint generated always as identity primary key,
    origin text not null unique,
    token text not null,
    app_identifier text,
    app_name text,
    created_at timestamptz not null default now(),
    verified_at timestamptz,
    robots_txt text,
    crawl_delay double precision not null default 1,
    next_fetch_at timestamptz not null default now(),
    last_crawl_started timestamptz
);

-- The crawl frontier and what became of each URL. The primary key stops a redirect loop or a link cycle: a URL is
-- fetched once per crawl.
create table crawl_page (
    site_id bigint not null references site (id) on delete cascade,
    url text not null,
    kind text not null default 'page' check (kind in ('page', 'sitemap', 'robots')),
    state text not null default 'queued' check (state in ('queued', 'done', 'skipped', 'failed')),
    depth int not null default 0,
    attempts int not null default 0,
    not_before timestamptz not null default now(),
    locked_until timestamptz,
    fetched_at timestamptz,
    http_status int,
    note text,
    primary key (site_id, url)
);
create index crawl_page_due on crawl_page (not_before) where state = 'queued';

-- What search reads: public activities past the threshold and items from crawled pages.
create table public_item (
    id bigint generated always as identity primary key,
    source text not null check (source in ('activity', 'web')),
    activity_id bigint unique references activity (id) on delete cascade,
    site_id bigint references site (id) on delete cascade,
    page_url text,
    kind text not null,
    url text not null,
    title text not null,
    description text,
    image_url text,
    keywords text[] not null default '{}',
    attributes jsonb not null default '{}',
    deep_link text,
    app_identifier text,
    app_store_id text,
    app_name text,
    activity_type text,
    user_info jsonb,
    engagement int not null default 0,
    updated_at timestamptz not null default now(),
    search tsvector generated always as (
        setweight(to_tsvector('simple', os_fold(title)), 'A')
        || setweight(to_tsvector('simple', os_fold(os_words(keywords))), 'B')
        || setweight(to_tsvector('simple', os_fold(coalesce(description, ''))), 'C')
    ) stored,
    title_folded text generated always as (os_fold(title)) stored
);
create index public_item_search on public_item using gin (search);
create index public_item_title_trgm on public_item using gin (title_folded gin_trgm_ops);
create index public_item_page on public_item (site_id, page_url);

-- Fixed-window request counters for rate limits, shared by every instance. Unlogged: after a crash the windows
-- restart, which only forgives some requests.
create unlogged table rate_counter (
    key text not null,
    window_start timestamptz not null,
    count int not null,
    primary key (key, window_start)
);
