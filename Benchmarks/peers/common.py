"""Shared harness for the peer benchmarks (issue 5): corpus loading and mapping, query files, workloads, timing,
memory and disk measurements, JSON output. Each peer script defines a class with the methods of `Peer` below and
calls `main(PeerClass)`. See Benchmarks/README.md for the output schema.

Everything here is standard library only, so it runs under Debian's /usr/bin/python3 (the only interpreter that
imports python3-xapian) and the venv made by scripts/install-peers.sh (which adds tantivy to it).
"""
import argparse
import collections
import gc
import gzip
import json
import os
import platform
import random
import re
import resource
import shutil
import sys
import time
import unicodedata
from collections import namedtuple

SCHEMA = "openspotlight-bench/1"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_DATA = os.environ.get("OPENSPOTLIGHT_DATA", os.path.normpath(os.path.join(ROOT, "..", "shared", "data")))
DEFAULT_QUERIES = os.path.join(ROOT, "Benchmarks", "queries")
VENV_PYTHON = os.path.join(ROOT, ".build-peers", "venv", "bin", "python")
TINY_ROWS = 2000
LIMIT = 20  # top k of every search

# Field weights shared by all peers: title 10, keywords 5, description 2, body 1.
FIELDS = (("title", 10.0), ("keywords", 5.0), ("description", 2.0), ("body", 1.0))
# Spotlight attribute names -> peer field names.
ATTRIBUTE_FIELDS = {"keywords": "keywords", "title": "title", "displayName": "title",
                    "contentDescription": "description", "textContent": "body"}

# One item, already mapped to the attribute set our engine indexes:
#   id = uniqueIdentifier ("pypi:<name>" / "debian:<id>"), title = name, keywords = list of keyword strings
#   (PyPI: name split on - _ . ; Debian: debtags), description = summary, body = Debian long description
#   (textContent), domain = domainIdentifier (Debian section; "pypi" for PyPI), month = contentModificationDate as
#   yyyymm (0 when unknown), rank_hint = rankingHint in [0, 1] (1 - (rank - 1) / 15000 for ranked PyPI projects).
Item = namedtuple("Item", "id title keywords description body domain month rank_hint")

WORD_RE = re.compile(r"[^\W_]+", re.UNICODE)


# --- interpreter ------------------------------------------------------------------------------------------------

def ensure_interpreter(modules):
    """Re-exec under the peers' interpreter (.build-peers/venv/bin/python made by scripts/install-peers.sh, else
    Debian's /usr/bin/python3) so that all peers run on the same Python and SQLite, and xapian/tantivy import.
    OPENSPOTLIGHT_PEER_PYTHON names another interpreter."""
    target = os.environ.get("OPENSPOTLIGHT_PEER_PYTHON") or \
        (VENV_PYTHON if os.path.exists(VENV_PYTHON) else "/usr/bin/python3")
    if not os.environ.get("OPENSPOTLIGHT_PEER_REEXEC") and os.path.exists(target):
        target_prefix = os.path.dirname(os.path.dirname(os.path.abspath(target)))
        if os.path.realpath(sys.prefix) != os.path.realpath(target_prefix):
            env = dict(os.environ, OPENSPOTLIGHT_PEER_REEXEC="1")
            os.execve(target, [target] + sys.argv, env)
    _check_imports(modules, fatal=True)


def _check_imports(modules, fatal):
    import importlib
    for m in modules:
        try:
            importlib.import_module(m)
        except ImportError as e:
            if fatal:
                sys.exit("peer: cannot import %s (%s) under %s; run scripts/install-peers.sh" % (m, e, sys.executable))
            return False
    return True


# --- text -------------------------------------------------------------------------------------------------------

def fold(s):
    """Lower case and strip diacritics (what FTS5's unicode61 remove_diacritics 2 and Tantivy's ascii_fold do)."""
    s = s.lower()
    if s.isascii():
        return s
    return "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))


def words(s):
    """Query tokenizer shared by all peers: folded runs of letters and digits."""
    return WORD_RE.findall(fold(s))


def max_typos(n):
    """Meilisearch's thresholds: no typo up to 4 letters, 1 for 5-8, 2 beyond."""
    return 0 if n <= 4 else (1 if n <= 8 else 2)


# --- corpora ----------------------------------------------------------------------------------------------------

def _pypi_items(path):
    with gzip.open(path, "rt", encoding="utf-8", newline="\n") as f:
        f.readline()
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) != 5:
                continue
            name, _v, month, rank, summary = p
            m = int(month[:4]) * 100 + int(month[5:7]) if len(month) == 7 else 0
            hint = max(0.0, 1.0 - (int(rank) - 1) / 15000.0) if rank else 0.0
            yield Item("pypi:" + name, name, [k for k in re.split(r"[-_.]+", name) if k], summary, "", "pypi", m, hint)


def _debian_items(path, limit=None):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for i, line in enumerate(f):
            if limit is not None and i >= limit:
                return
            d = json.loads(line)
            yield Item("debian:" + d["id"], d["name"], list(d.get("tags") or []), d.get("summary") or "",
                       d.get("description") or "", d.get("section") or "", 0, 0.0)


def load_corpus(corpus, data_dir, limit=None):
    pypi = os.path.join(data_dir, "pypi-packages.tsv.gz")
    debian = os.path.join(data_dir, "debian-packages.jsonl.gz")
    if corpus == "pypi":
        gen = _pypi_items(pypi)
    elif corpus == "debian":
        gen = _debian_items(debian)
    elif corpus == "tiny":
        gen = _debian_items(debian, TINY_ROWS)
    elif corpus == "both":
        import itertools
        gen = itertools.chain(_pypi_items(pypi), _debian_items(debian))
    else:
        raise SystemExit("unknown corpus %r" % corpus)
    items = []
    for it in gen:
        items.append(it)
        if limit and len(items) >= limit:
            break
    return items


def raw_text_bytes(items):
    n = 0
    for it in items:
        n += len(it.title.encode()) + len(" ".join(it.keywords).encode()) + len(it.description.encode()) + \
            len(it.body.encode())
    return n


# --- queries ----------------------------------------------------------------------------------------------------

def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f if line.strip()]


CLAUSE_RE = re.compile(r'\(\s*([A-Za-z_][\w:]*)\s*==\s*"((?:[^"\\]|\\.)*)"([a-z]*)\s*\)')


def parse_attribute_query(q):
    """`(keywords == "djan*"cwdt) && (keywords == "rest*"cwdt)` -> ("and", [(field, [words], prefix), ...]).
    Word-based (w) matching of folded words (c, d); a trailing * makes the last word a prefix."""
    clauses, ops, pos = [], set(), 0
    for m in CLAUSE_RE.finditer(q):
        between = q[pos:m.start()].strip()
        if between:
            ops.add(between)
        attr, value, _flags = m.groups()
        prefix = value.endswith("*")
        ws = words(value.rstrip("*"))
        clauses.append((ATTRIBUTE_FIELDS.get(attr, attr), ws, prefix))
        pos = m.end()
    if not clauses or q[pos:].strip() or len(ops) > 1 or not ops <= {"&&", "||"}:
        raise ValueError("unsupported attribute query: %r" % q)
    return ("or" if ops == {"||"} else "and"), clauses


def load_filter(line):
    f = json.loads(line)
    if f["op"] == "range":
        f["lo"] = int(f["lower"].replace("-", ""))
        f["hi"] = int(f["upper"].replace("-", ""))
    return f


def filter_matches(f, it):
    if f["op"] == "range":
        return f["lo"] <= it.month <= f["hi"]
    return it.domain in f["values"]


def load_workload(queries_dir, corpus, sample=1):
    with open(os.path.join(queries_dir, "manifest.json")) as f:
        man = json.load(f)["corpora"][corpus]
    stem = lambda name: os.path.splitext(name)[0]  # noqa: E731
    w = {
        "keystrokes": [(stem(n), read_lines(os.path.join(queries_dir, n))) for n in man["keystrokes"]],
        "filtered_name": stem(man["filtered_keystrokes"]),
        "filtered": read_lines(os.path.join(queries_dir, man["filtered_keystrokes"])),
        "typos": [tuple(line.split("\t")[:2]) for n in man["typos"] for line in read_lines(os.path.join(queries_dir, n))],
        "attributes": [q for n in man["attributes"] for q in read_lines(os.path.join(queries_dir, n))],
        "filters": [load_filter(line) for line in read_lines(os.path.join(queries_dir, man["filters"]))],
        "cold_open_query": man["cold_open_query"],
    }
    if sample > 1:
        w["keystrokes"] = [(n, qs[::sample]) for n, qs in w["keystrokes"]]
        for k in ("filtered", "typos", "attributes"):
            w[k] = w[k][::sample]
    return w


def relevance_queries(queries_dir, corpus, indexed):
    """The judged queries of a corpus whose relevant items are all indexed: (kind, query, relevant ids)."""
    files = {"both": ["relevance-pypi.jsonl", "relevance-debian.jsonl"], "tiny": ["relevance-debian.jsonl"]}
    out = []
    for name in files.get(corpus, ["relevance-%s.jsonl" % corpus]):
        path = os.path.join(queries_dir, name)
        if not os.path.exists(path):
            continue
        for line in read_lines(path):
            q = json.loads(line)
            if all(r in indexed for r in q["relevant"]):
                out.append((q["kind"], q["query"], q["relevant"]))
    return out


def mrr_block(ranked):
    """[(kind, rank or None)] -> {kind: {queries, mrr_at_10, success_at_1}}; ranks from 1, None: not in the top 10."""
    per = collections.OrderedDict()
    for kind, rank in ranked:
        k = per.setdefault(kind, [0, 0.0, 0])
        k[0] += 1
        k[1] += 1.0 / rank if rank and rank <= 10 else 0.0
        k[2] += rank == 1
    return {kind: {"queries": n, "mrr_at_10": round(rr / n, 3), "success_at_1": round(first / n, 3)}
            for kind, (n, rr, first) in sorted(per.items())}


def relevance(peer, judged):
    ranked = []
    for kind, query, relevant in judged:
        ws = words(query)
        res = None
        if kind.startswith("typo") and peer.typo_tolerant:
            res = peer.fuzzy_search(ws, limit=10)
        if res is None:
            res = peer.search(ws, limit=10) if ws else []
        rank = next((i + 1 for i, r in enumerate(res[:10]) if r in relevant), None)
        ranked.append((kind, rank))
    return mrr_block(ranked)


# --- measurement helpers ----------------------------------------------------------------------------------------

def now():
    return time.perf_counter_ns()


def ms(ns):
    return ns / 1e6


def pct(sorted_vals, p):
    if not sorted_vals:
        return None
    k = max(0, min(len(sorted_vals) - 1, int(-(-p * len(sorted_vals) // 100)) - 1))  # nearest rank
    return sorted_vals[k]


def stats(samples_ns, extra=None):
    v = sorted(ms(x) for x in samples_ns)
    out = {"n": len(v)}
    if v:
        out.update(p50_ms=round(pct(v, 50), 4), p99_ms=round(pct(v, 99), 4), max_ms=round(v[-1], 4),
                   mean_ms=round(sum(v) / len(v), 4))
    else:
        out.update(p50_ms=None, p99_ms=None, max_ms=None, mean_ms=None)
    if extra:
        out.update(extra)
    return out


def _status_kb(key):
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def rss_mb():
    kb = _status_kb("VmRSS")
    return round(kb / 1024, 1) if kb is not None else None


def hwm_mb():
    kb = _status_kb("VmHWM")
    return round(kb / 1024, 1) if kb is not None else None


def reset_peak_rss():
    """Reset VmHWM to the current RSS (Linux >= 4.0), so the next peak belongs to one phase."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def ru_maxrss_mb():
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def dir_size(path, largest=None):
    """(total bytes, file count) of every file under path; with largest=k also the k biggest files {relpath: bytes}."""
    total, files, sizes = 0, 0, []
    for dp, _dn, fn in os.walk(path):
        for n in fn:
            try:
                size = os.lstat(os.path.join(dp, n)).st_size
            except OSError:
                continue
            total += size
            files += 1
            sizes.append((size, os.path.relpath(os.path.join(dp, n), path)))
    if largest:
        return total, files, {name: size for size, name in sorted(sizes, reverse=True)[:largest]}
    return total, files


def evict_page_cache(path):
    """Drop the index files' pages from the OS page cache (clean pages only, after a sync); affects nothing else."""
    os.sync()
    for dp, _dn, fn in os.walk(path):
        for n in fn:
            try:
                fd = os.open(os.path.join(dp, n), os.O_RDONLY)
            except OSError:
                continue
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def progress(msg):
    print("[%s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


# --- the peer interface -----------------------------------------------------------------------------------------

class Peer:
    """What each peer implements. `words` are folded query tokens (common.words); the last one is a prefix.
    Every search returns the uniqueIdentifiers of at most `limit` items, best first."""
    name = "peer"
    engine = "?"
    version = "?"
    typo_tolerant = False
    notes = []

    def __init__(self, index_dir, args):
        self.dir = index_dir

    def bulk_index(self, items):  # create the index and add every item; durable (committed, synced) on return
        raise NotImplementedError

    def open_reader(self):  # a separate read handle, as a concurrent reader would have
        raise NotImplementedError

    def refresh_reader(self):  # make the reader see the latest commit (reopen/reload), if the engine needs it
        pass

    def search(self, words, flt=None, limit=LIMIT):
        raise NotImplementedError

    def fuzzy_search(self, words, limit=LIMIT):  # typo tolerant search, for peers that have one
        return None

    def attribute_query(self, op, clauses, limit=LIMIT):
        raise NotImplementedError

    def upsert(self, item):  # insert or replace one item and commit durably
        raise NotImplementedError

    def delete(self, item_id):  # delete one item and commit durably
        raise NotImplementedError

    def upsert_batch(self, items):  # replace many items in one commit (churn)
        for it in items:
            self.upsert(it)

    def close(self):  # close every handle (writer and readers)
        raise NotImplementedError

    def cold_search(self, words, limit=LIMIT):  # open a fresh read handle, run one search, return ids, close
        raise NotImplementedError


# --- the run ----------------------------------------------------------------------------------------------------

def parse_args(peer_cls):
    ap = argparse.ArgumentParser(description="%s peer benchmark (see Benchmarks/README.md)" % peer_cls.name)
    ap.add_argument("--corpus", choices=["pypi", "debian", "both", "tiny"], default="tiny")
    ap.add_argument("--limit", type=int, default=0, help="index at most N items of the corpus (0: all)")
    ap.add_argument("--workdir", default=os.path.join(ROOT, ".build-peers", "work"),
                    help="the index goes to WORKDIR/<peer>-<corpus>, removed first")
    ap.add_argument("--queries", default=DEFAULT_QUERIES)
    ap.add_argument("--data", default=DEFAULT_DATA)
    ap.add_argument("--json", action="store_true", help="print only the JSON object on stdout")
    ap.add_argument("--out", help="also write the JSON object to this file")
    ap.add_argument("--warmup", type=int, default=1, help="untimed passes over each query set")
    ap.add_argument("--reps", type=int, default=1, help="timed passes over each query set")
    ap.add_argument("--ops", type=int, default=200, help="single upserts and single deletes to time")
    ap.add_argument("--cold-reps", type=int, default=5)
    ap.add_argument("--churn-rounds", type=int, default=0,
                    help="after the other workloads, update every item this many times and measure the disk")
    ap.add_argument("--churn-batch", type=int, default=10000)
    ap.add_argument("--skip", default="", help="comma-separated phases to skip: search,filtered,attributes,typos,relevance,"
                                                "writes,cold")
    ap.add_argument("--sample", type=int, default=1, help="use every Nth query of each query file (relevance too)")
    ap.add_argument("--smoke", action="store_true",
                    help="quick check that everything runs: --warmup 0 --sample 10 --ops 20 --cold-reps 1")
    ap.add_argument("--keep", action="store_true", help="keep the index directory afterwards")
    ap.add_argument("--seed", type=int, default=5)
    peer_cls.add_arguments(ap) if hasattr(peer_cls, "add_arguments") else None
    args = ap.parse_args()
    if args.smoke:
        args.warmup, args.reps, args.sample, args.ops, args.cold_reps = 0, 1, max(args.sample, 10), 20, 1
    return args


def timed_queries(fn, queries, warmup, reps):
    for _ in range(warmup):
        for q in queries:
            fn(q)
    samples, empty = [], 0
    for r in range(reps):
        for q in queries:
            t0 = now()
            res = fn(q)
            samples.append(now() - t0)
            if r == 0 and not res:
                empty += 1
    return samples, empty


def run(peer_cls, args):
    skip = set(filter(None, args.skip.split(",")))
    rnd = random.Random(args.seed)
    out = {"schema": SCHEMA, "peer": peer_cls.name, "engine": peer_cls.engine, "corpus": args.corpus,
           "limit": LIMIT, "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
           "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                       "executable": sys.executable}}

    wl = load_workload(args.queries, args.corpus, args.sample)
    out["settings"] = {"warmup": args.warmup, "reps": args.reps, "sample": args.sample, "ops": args.ops,
                       "cold_reps": args.cold_reps}
    progress("%s: loading corpus %s" % (peer_cls.name, args.corpus))
    t0 = now()
    items = load_corpus(args.corpus, args.data, args.limit or None)
    load_s = ms(now() - t0) / 1000
    raw = raw_text_bytes(items)
    out["items"] = len(items)
    out["load_seconds"] = round(load_s, 3)
    mem = {"rss_after_load_mb": rss_mb()}
    progress("%s: %d items loaded in %.1f s" % (peer_cls.name, len(items), load_s))

    index_dir = os.path.join(os.path.abspath(args.workdir), "%s-%s" % (peer_cls.name, args.corpus))
    shutil.rmtree(index_dir, ignore_errors=True)
    os.makedirs(index_dir)
    peer = peer_cls(index_dir, args)
    out["engine_version"] = peer.version

    # 1. bulk indexing, durable
    gc.collect()
    reset_peak_rss()
    t0 = now()
    extra = peer.bulk_index(items) or {}
    bulk_ns = now() - t0
    mem["peak_rss_index_mb"] = hwm_mb()
    out["bulk_index"] = dict({"items": len(items), "seconds": round(bulk_ns / 1e9, 3),
                              "items_per_s": round(len(items) / (bulk_ns / 1e9), 1)}, **extra)
    progress("%s: bulk %d items in %.2f s (%.0f items/s)" % (peer_cls.name, len(items), bulk_ns / 1e9,
                                                            len(items) / (bulk_ns / 1e9)))
    fresh, nfiles, biggest = dir_size(index_dir, largest=3)
    out["disk"] = {"raw_text_bytes": raw, "fresh_bytes": fresh, "fresh_files": nfiles,
                   "fresh_over_raw": round(fresh / raw, 3) if raw else None, "fresh_largest_files": biggest}

    peer.open_reader()
    gc.collect()
    reset_peak_rss()

    # 2. keystroke search
    if "search" not in skip:
        out["search"] = {}
        all_samples, all_empty = [], 0
        for name, qs in wl["keystrokes"]:
            parsed = [w for w in (words(q) for q in qs) if w]
            s, e = timed_queries(lambda w: peer.search(w), parsed, args.warmup, args.reps)
            out["search"][name] = stats(s, {"empty": e})
            all_samples += s
            all_empty += e
            progress("%s: search %s: %s" % (peer_cls.name, name, _brief(out["search"][name])))
        out["search"]["all"] = stats(all_samples, {"empty": all_empty})

    # 3. keystroke search with one attribute filter, per selectivity class
    if "filtered" not in skip and wl["filters"]:
        out["filtered_search"] = {}
        parsed = [w for w in (words(q) for q in wl["filtered"]) if w]
        for cls in ("narrow", "medium", "wide"):
            fl = [f for f in wl["filters"] if f["class"] == cls]
            if not fl:
                continue
            fractions = [sum(1 for it in items if filter_matches(f, it)) / max(1, len(items)) for f in fl]
            pairs = [(w, fl[i % len(fl)]) for i, w in enumerate(parsed)]
            s, e = timed_queries(lambda p: peer.search(p[0], p[1]), pairs, args.warmup, args.reps)
            out["filtered_search"][cls] = stats(s, {"empty": e, "queries": wl["filtered_name"], "filters": len(fl),
                                                    "match_fraction": round(sum(fractions) / len(fractions), 6)})
            progress("%s: filtered %s: %s" % (peer_cls.name, cls, _brief(out["filtered_search"][cls])))

    # 4. attribute queries (CSSearchQuery shape)
    if "attributes" not in skip:
        parsed = [parse_attribute_query(q) for q in wl["attributes"]]
        s, e = timed_queries(lambda p: peer.attribute_query(p[0], p[1]), parsed, args.warmup, args.reps)
        out["attribute_query"] = stats(s, {"empty": e})
        progress("%s: attribute queries: %s" % (peer_cls.name, _brief(out["attribute_query"])))

    # 5. typo queries: hit = the correct query's best item is in the typo query's top 20
    if "typos" not in skip:
        pairs = [(words(t), words(c)) for t, c in wl["typos"]]
        pairs = [(t, c) for t, c in pairs if t and c]
        best = [(peer.search(c) or [None])[0] for _t, c in pairs]
        modes = [("plain", peer.search)]
        if peer.typo_tolerant:
            modes.append(("fuzzy", peer.fuzzy_search))
        for mode, fn in modes:
            s, _e = timed_queries(lambda p: fn(p[0]), pairs, args.warmup, args.reps)
            hits = nonempty = judged = 0
            for (t, _c), b in zip(pairs, best):
                res = fn(t)
                nonempty += bool(res)
                if b is not None:
                    judged += 1
                    hits += b in res
            block = stats(s, {"mode": mode, "hit_rate": round(hits / judged, 4) if judged else None,
                              "judged": judged, "nonempty_rate": round(nonempty / len(pairs), 4) if pairs else None})
            out["typo_" + mode] = block
            progress("%s: typos (%s): %s hit rate %s" % (peer_cls.name, mode, _brief(block), block["hit_rate"]))
        out["typo"] = out.get("typo_fuzzy") or out["typo_plain"]
        out["typo_tolerant"] = peer.typo_tolerant

    # 5b. relevance: judged queries (scripts/make-relevance.py), MRR@10 and success@1 per kind, through the
    # peer's keystroke search (its fuzzy search for the typo kinds, when it has one)
    if "relevance" not in skip:
        judged = relevance_queries(args.queries, args.corpus, {it.id for it in items})
        # (`--sample N` takes every Nth judged query too: a peer whose queries take seconds, FTS5 at a million items.)
        block = relevance(peer, judged[::args.sample] if args.sample > 1 else judged)
        if block:
            out["relevance"] = block
            for kind, k in sorted(block.items()):
                progress("%s: relevance %s: %d queries, MRR@10 %s, success@1 %s"
                         % (peer_cls.name, kind, k["queries"], k["mrr_at_10"], k["success_at_1"]))
    mem["peak_rss_query_mb"] = hwm_mb()

    # 6. single upserts, then single deletes, each committed and then seen by the separate reader
    if "writes" not in skip and items:
        picks = rnd.sample(range(len(items)), min(args.ops, len(items)))
        up_commit, up_vis, del_commit, del_vis, retries = [], [], [], [], 0
        tokens = []
        for k, i in enumerate(picks):
            it = items[i]
            token = "zzupsert%dq%dx" % (args.seed, k)  # not a prefix of another token
            tokens.append(token)
            new = it._replace(description=(it.description + " " + token).strip())
            t0 = now()
            peer.upsert(new)
            t1 = now()
            while True:
                peer.refresh_reader()
                if it.id in peer.search([token]):
                    break
                retries += 1
                if now() - t1 > 10e9:
                    raise RuntimeError("upsert of %s not visible to the reader after 10 s" % it.id)
            t2 = now()
            up_commit.append(t1 - t0)
            up_vis.append(t2 - t0)
        for k, i in enumerate(picks):
            it = items[i]
            t0 = now()
            peer.delete(it.id)
            t1 = now()
            while True:
                peer.refresh_reader()
                if it.id not in peer.search([tokens[k]]):
                    break
                retries += 1
                if now() - t1 > 10e9:
                    raise RuntimeError("delete of %s still visible to the reader after 10 s" % it.id)
            t2 = now()
            del_commit.append(t1 - t0)
            del_vis.append(t2 - t0)
        out["upsert"] = dict(stats(up_vis), commit=stats(up_commit))
        out["delete"] = dict(stats(del_vis), commit=stats(del_commit))
        out["write_visibility_retries"] = retries
        progress("%s: upsert visible %s; delete visible %s" % (peer_cls.name, _brief(out["upsert"]),
                                                                _brief(out["delete"])))
        # put the deleted items back so later phases see the whole corpus
        peer.upsert_batch([items[i] for i in picks])
        peer.refresh_reader()
        out["disk"]["after_writes_bytes"] = dir_size(index_dir)[0]

    # 7. churn: every item updated N times, in batches, then the disk again
    if args.churn_rounds > 0:
        t0 = now()
        for r in range(args.churn_rounds):
            for b in range(0, len(items), args.churn_batch):
                batch = [it._replace(description=it.description + " churn%d" % r)
                         for it in items[b:b + args.churn_batch]]
                peer.upsert_batch(batch)
            progress("%s: churn round %d done" % (peer_cls.name, r + 1))
        churn_s = (now() - t0) / 1e9
        peer.refresh_reader()
        churned = dir_size(index_dir)[0]
        out["disk"].update(churn_rounds=args.churn_rounds, churn_batch=args.churn_batch, churned_bytes=churned,
                           churned_over_fresh=round(churned / fresh, 3) if fresh else None,
                           churn_items_per_s=round(args.churn_rounds * len(items) / churn_s, 1))

    # 8. cold open to first result: every handle closed, then open + one query; page cache warm, then evicted
    peer.close()
    gc.collect()
    if "cold" not in skip:
        q = words(wl["cold_open_query"])
        warm, evicted, n_res = [], [], 0
        for _ in range(args.cold_reps):
            t0 = now()
            res = peer.cold_search(q)
            warm.append(now() - t0)
            n_res = len(res)
            gc.collect()
        for _ in range(args.cold_reps):
            evict_page_cache(index_dir)
            t0 = now()
            peer.cold_search(q)
            evicted.append(now() - t0)
            gc.collect()
        out["cold_open"] = {"query": wl["cold_open_query"], "results": n_res, "reps": args.cold_reps,
                            "first_result_ms": stats(warm)["p50_ms"], "first_result_max_ms": stats(warm)["max_ms"],
                            "evicted_first_result_ms": stats(evicted)["p50_ms"],
                            "evicted_first_result_max_ms": stats(evicted)["max_ms"]}
        progress("%s: cold open %.2f ms (page cache warm), %.2f ms (evicted)" % (
            peer_cls.name, out["cold_open"]["first_result_ms"], out["cold_open"]["evicted_first_result_ms"]))

    mem["ru_maxrss_mb"] = ru_maxrss_mb()
    out["memory"] = mem
    out["notes"] = list(peer.notes)
    if not args.keep:
        shutil.rmtree(index_dir, ignore_errors=True)
    return out


def _brief(s):
    return "p50 %.3f ms p99 %.3f ms max %.3f ms (n=%d)" % (s["p50_ms"] or 0, s["p99_ms"] or 0, s["max_ms"] or 0,
                                                          s["n"])


def print_table(r):
    rows = [("bulk index", "%.0f items/s, %.2f s" % (r["bulk_index"]["items_per_s"], r["bulk_index"]["seconds"]))]
    for k, v in r.get("search", {}).items():
        rows.append(("search " + k, _brief(v)))
    for k, v in r.get("filtered_search", {}).items():
        rows.append(("filtered %s (%.2f%%)" % (k, 100 * v["match_fraction"]), _brief(v)))
    if "attribute_query" in r:
        rows.append(("attribute query", _brief(r["attribute_query"])))
    for k in ("typo_plain", "typo_fuzzy"):
        if k in r:
            rows.append((k.replace("_", " "), _brief(r[k]) + ", hit rate %s" % r[k]["hit_rate"]))
    for k in ("upsert", "delete"):
        if k in r:
            rows.append((k + " visible", _brief(r[k])))
    if "cold_open" in r:
        rows.append(("cold open", "%.2f ms (evicted %.2f ms)" % (r["cold_open"]["first_result_ms"],
                                                                 r["cold_open"]["evicted_first_result_ms"])))
    d = r["disk"]
    rows.append(("disk", "%.1f MB fresh (%.2fx raw text %.1f MB)" % (d["fresh_bytes"] / 1e6, d["fresh_over_raw"] or 0,
                                                                    d["raw_text_bytes"] / 1e6)))
    m = r["memory"]
    rows.append(("memory", "after load %s MB, peak indexing %s MB, peak queries %s MB" % (
        m["rss_after_load_mb"], m["peak_rss_index_mb"], m["peak_rss_query_mb"])))
    print("%s %s, corpus %s (%d items)" % (r["engine"], r["engine_version"], r["corpus"], r["items"]))
    for a, b in rows:
        print("  %-28s %s" % (a, b))


def main(peer_cls):
    args = parse_args(peer_cls)
    result = run(peer_cls, args)
    text = json.dumps(result, indent=2, sort_keys=False)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    if args.json:
        print(text)
    else:
        print_table(result)
