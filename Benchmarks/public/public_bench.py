#!/usr/bin/env python3
"""The public index benchmark (issue 16): search latency over HTTP at ~1M public items, then a load test with
concurrent reporters and searchers, checking that no acknowledged report was lost.

Run by scripts/bench-public.sh, which builds the release service, starts PostgreSQL and the service. Standard
library only. Prints one JSON object with every figure.
"""
import argparse, gzip, http.client, json, random, statistics, subprocess, sys, tempfile, threading, time, os

def psql(url, sql):
    return subprocess.run(["psql", url, "-v", "ON_ERROR_STOP=1", "-tAc", sql], check=True,
                          capture_output=True, text=True).stdout.strip()

def copy_value(text):
    return (text or "").replace("\\", "\\\\").replace("\t", " ").replace("\n", " ").replace("\r", " ")

def array_value(words):
    return "{" + ",".join('"' + w.replace("\\", "").replace('"', "") + '"' for w in words if w) + "}"

def load_items(url, data_dir, target):
    """Public items from the two corpora (PyPI, Debian, then PyPI again under a second site up to `target`)."""
    count = int(psql(url, "select count(*) from public_item"))
    if count >= target:
        return count, 0.0
    rows = []
    pypi = []
    with gzip.open(os.path.join(data_dir, "pypi-packages.tsv.gz"), "rt", encoding="utf-8", errors="replace") as f:
        next(f)
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 5:
                continue
            name, _, _, rank, summary = parts[:5]
            pypi.append((name, summary, int(rank) if rank else 0))
    for name, summary, rank in pypi:
        engagement = max(0, 15000 - rank) // 100 if rank else 0
        rows.append(("web", "Product", f"https://pypi.example.org/project/{name}/", name, summary,
                     name.replace("-", " ").replace("_", " ").replace(".", " ").split(), engagement))
    with gzip.open(os.path.join(data_dir, "debian-packages.jsonl.gz"), "rt", encoding="utf-8") as f:
        for line in f:
            p = json.loads(line)
            rows.append(("activity", "Activity", f"https://packages.example.org/{p['name']}", p["name"],
                         p.get("summary") or "", (p.get("tags") or [])[:10], random.randint(5, 500)))
    i = 0
    while len(rows) < target:
        name, summary, rank = pypi[i % len(pypi)]
        rows.append(("web", "WebPage", f"https://mirror.example.net/{name}", name + " mirror", summary, [], 0))
        i += 1
    started = time.time()
    with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False, encoding="utf-8") as out:
        for source, kind, page, title, description, keywords, engagement in rows[:target]:
            out.write("\t".join([source, kind, copy_value(page), copy_value(title) or "untitled", copy_value(description),
                                 array_value(keywords), str(engagement)]) + "\n")
        path = out.name
    psql(url, f"\\copy public_item (source, kind, url, title, description, keywords, engagement) from '{path}'")
    os.unlink(path)
    psql(url, "vacuum analyze public_item")
    return int(psql(url, "select count(*) from public_item")), time.time() - started

def make_queries(url, n, seed):
    """Prefixes, whole names, two-word queries and typos, drawn from indexed titles and descriptions."""
    rng = random.Random(seed)
    titles = psql(url, f"select title from public_item tablesample system (1) repeatable (7) limit {n * 3}").split("\n")
    descriptions = psql(url, f"select description from public_item tablesample system (1) repeatable (11) where description <> '' limit {n}").split("\n")
    words = [w.lower() for d in descriptions for w in d.split() if w.isalpha() and len(w) >= 4]
    queries = []
    for _ in range(n):
        kind = rng.random()
        title = rng.choice(titles).split("-")[0].split("_")[0] or "data"
        if kind < 0.3:
            queries.append(title[: rng.randint(2, max(2, min(6, len(title))))])        # typing a name
        elif kind < 0.5:
            queries.append(title)                                                     # a whole name
        elif kind < 0.75 and words:
            a, b = rng.choice(words), rng.choice(words)
            queries.append(f"{a} {b[: rng.randint(2, len(b))]}")                     # two words, the last a prefix
        elif words:
            w = list(rng.choice(words))
            j = rng.randrange(len(w) - 1)
            w[j], w[j + 1] = w[j + 1], w[j]
            queries.append("".join(w))                                                # a typo
        else:
            queries.append(title)
    return queries

def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]

def get(conn, path):
    started = time.perf_counter()
    conn.request("GET", path)
    response = conn.getresponse()
    body = response.read()
    return response.status, body, (time.perf_counter() - started) * 1000

def search_latency(host, port, queries):
    from urllib.parse import quote
    conn = http.client.HTTPConnection(host, port, timeout=30)
    for q in queries[:50]:
        get(conn, "/v1/search?q=" + quote(q))                                         # warm-up
    times, empty, statuses = [], 0, {}
    for q in queries:
        status, body, ms = get(conn, "/v1/search?q=" + quote(q))
        statuses[status] = statuses.get(status, 0) + 1
        times.append(ms)
        if status == 200 and not json.loads(body)["results"]:
            empty += 1
    return {"queries": len(queries), "p50_ms": round(percentile(times, 50), 2), "p95_ms": round(percentile(times, 95), 2),
            "p99_ms": round(percentile(times, 99), 2), "max_ms": round(max(times), 2),
            "mean_ms": round(statistics.mean(times), 2), "empty_results": empty, "statuses": statuses}

def load_test(host, port, url, reporters, searchers, seconds, queries):
    from urllib.parse import quote
    run = f"load{int(time.time())}"
    stop = time.time() + seconds
    lock = threading.Lock()
    acknowledged, report_times, search_times, statuses = [], [], [], {}

    def reporter(index):
        conn = http.client.HTTPConnection(host, port, timeout=30)
        n = 0
        while time.time() < stop:
            body = json.dumps({"installID": f"{run}-install-{index:04d}-{n:08d}-abcdef", "activityType": "bench.view",
                               "webpageURL": f"https://load.example/{run}/{n % 2000}", "title": f"Load page {n % 2000}",
                               "requiredUserInfoKeys": [], "applicationIdentifier": "bench"})
            started = time.perf_counter()
            conn.request("POST", "/v1/reports", body, {"Content-Type": "application/json"})
            response = conn.getresponse()
            text = response.read()
            ms = (time.perf_counter() - started) * 1000
            with lock:
                statuses[response.status] = statuses.get(response.status, 0) + 1
                report_times.append(ms)
                if response.status == 202 and json.loads(text)["status"] == "recorded":
                    acknowledged.append(n)
            n += 1

    def searcher(index):
        conn = http.client.HTTPConnection(host, port, timeout=30)
        rng = random.Random(index)
        while time.time() < stop:
            status, _, ms = get(conn, "/v1/search?q=" + quote(rng.choice(queries)))
            with lock:
                statuses[status] = statuses.get(status, 0) + 1
                search_times.append(ms)

    threads = [threading.Thread(target=reporter, args=(i,)) for i in range(reporters)]
    threads += [threading.Thread(target=searcher, args=(i,)) for i in range(searchers)]
    started = time.time()
    for t in threads: t.start()
    for t in threads: t.join()
    elapsed = time.time() - started
    stored = int(psql(url, f"select count(*) from activity_report r join activity_variant v on v.id = r.variant_id "
                           f"join activity a on a.id = v.activity_id where a.webpage_url like 'https://load.example/{run}/%'"))
    return {"reporters": reporters, "searchers": searchers, "seconds": round(elapsed, 1),
            "reports_per_s": round(len(report_times) / elapsed, 1), "searches_per_s": round(len(search_times) / elapsed, 1),
            "report_p50_ms": round(percentile(report_times, 50), 2), "report_p99_ms": round(percentile(report_times, 99), 2),
            "search_p50_ms": round(percentile(search_times, 50), 2), "search_p99_ms": round(percentile(search_times, 99), 2),
            "acknowledged": len(acknowledged), "stored": stored, "lost": len(acknowledged) - stored, "statuses": statuses}

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--database", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--refresh", required=True, help="the command that ranks the search candidate lists")
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--reporters", type=int, default=8)
    parser.add_argument("--searchers", type=int, default=8)
    parser.add_argument("--seconds", type=int, default=30)
    args = parser.parse_args()
    random.seed(7)
    items, load_seconds = load_items(args.database, args.data, args.items)
    started = time.time()
    refreshed = subprocess.run(args.refresh, shell=True, check=True, capture_output=True, text=True).stdout.strip()
    refresh_seconds = time.time() - started
    queries = make_queries(args.database, args.queries, 11)
    result = {"items": items, "load_seconds": round(load_seconds, 1),
              "refresh_seconds": round(refresh_seconds, 1), "refresh": refreshed,
              "database_bytes": int(psql(args.database, "select pg_database_size(current_database())")),
              "search": search_latency("127.0.0.1", args.port, queries),
              "load": load_test("127.0.0.1", args.port, args.database, args.reporters, args.searchers, args.seconds, queries)}
    print(json.dumps(result, indent=2))

if __name__ == "__main__":
    main()
