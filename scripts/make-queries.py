#!/usr/bin/env python3
"""Derive the benchmark query sets from the corpora, reproducibly (fixed seed).

    python3 scripts/make-queries.py [--data /work/shared/data] [--out Benchmarks/queries] [--seed 20261122]

Reads ../shared/data/pypi-packages.tsv.gz and ../shared/data/debian-packages.jsonl.gz (never edits them) and writes
the files described in Benchmarks/README.md ("Query files") plus manifest.json, which says which files belong to
which corpus. Running it twice gives byte-identical files.
"""
import argparse
import collections
import gzip
import itertools
import json
import os
import random
import re
import sys
import unicodedata

SEED_DEFAULT = 20261122
WORD_RE = re.compile(r"[^\W_]+", re.UNICODE)
ALNUM_WORD = re.compile(r"^[a-z0-9]+$")
LETTERS = "abcdefghijklmnopqrstuvwxyz"

# Target fractions of the corpus matched by an attribute filter, per class.
FILTER_CLASSES = [("narrow", 0.005, 0.002, 0.010), ("medium", 0.10, 0.07, 0.14), ("wide", 0.50, 0.40, 0.60)]
FILTERS_PER_CLASS = 4


def log(*a):
    print("make-queries:", *a, file=sys.stderr)


def fold(s):
    s = s.lower()
    if s.isascii():
        return s
    return "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))


def words(s):
    return WORD_RE.findall(fold(s))


# --- corpora ----------------------------------------------------------------------------------------------------

def load_pypi(path):
    rows = []
    with gzip.open(path, "rt", encoding="utf-8", newline="\n") as f:
        header = f.readline().rstrip("\n").split("\t")
        assert header == ["name", "version", "month", "popularity_rank", "summary"], header
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) != 5:
                continue
            name, _version, month, rank, summary = p
            rows.append((name, month, int(rank) if rank else None, summary))
    return rows


def load_debian(path):
    rows = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            rows.append((d["id"], d["name"], d.get("summary") or "", d.get("section") or "", d.get("tags") or []))
    return rows


# --- (a) and (b): keystrokes ------------------------------------------------------------------------------------

def keystrokes(text):
    """Every prefix of text, letter by letter; prefixes ending in whitespace are skipped (same words as before)."""
    out = []
    for i in range(1, len(text) + 1):
        p = text[:i]
        if p[-1].isspace():
            continue
        out.append(p)
    return out


def summary_phrase(summary, rng, min_words=2, max_words=4):
    """A run of 2-4 consecutive plain words (lower case, letters/digits, >= 2 chars) from a summary, or None."""
    toks = [t.strip(".,;:!?()[]{}\"'`") for t in summary.lower().split()]
    ok = [bool(ALNUM_WORD.match(t)) and len(t) >= 2 for t in toks]
    runs, cur = [], []
    for t, good in zip(toks, ok):
        if good:
            cur.append(t)
        else:
            if len(cur) >= min_words:
                runs.append(cur)
            cur = []
    if len(cur) >= min_words:
        runs.append(cur)
    if not runs:
        return None
    run = rng.choice(runs)
    n = rng.randint(min_words, min(max_words, len(run)))
    start = rng.randint(0, len(run) - n)
    return " ".join(run[start:start + n])


def pick_phrases(summaries, count, rng):
    seen, out = set(), []
    order = list(range(len(summaries)))
    rng.shuffle(order)
    for i in order:
        p = summary_phrase(summaries[i], rng)
        if p and p not in seen and len(p) <= 40:
            seen.add(p)
            out.append(p)
            if len(out) == count:
                break
    return out


# --- (c): typos -------------------------------------------------------------------------------------------------

def max_typos(word_len):
    """Meilisearch's defaults: no typo up to 4 letters, 1 typo for 5-8, 2 beyond."""
    return 0 if word_len <= 4 else (1 if word_len <= 8 else 2)


def one_typo(word, kind, rng):
    n = len(word)
    for _ in range(50):
        if kind == "substitution":
            i = rng.randrange(n)
            c = rng.choice([x for x in LETTERS if x != word[i]])
            t = word[:i] + c + word[i + 1:]
        elif kind == "deletion":  # not the last letter: that would just be a shorter prefix
            i = rng.randrange(n - 1)
            t = word[:i] + word[i + 1:]
        elif kind == "insertion":
            i = rng.randrange(n + 1)
            t = word[:i] + rng.choice(LETTERS) + word[i:]
        else:  # transposition of two adjacent, different letters
            i = rng.randrange(n - 1)
            if word[i] == word[i + 1]:
                continue
            t = word[:i] + word[i + 1] + word[i] + word[i + 2:]
        if t != word and max_typos(len(t)) >= 1:  # the typed word must itself be long enough to allow a typo
            return t
    return None


def make_typos(source_words, count, rng):
    kinds = ["substitution", "deletion", "insertion", "transposition"]
    cands = sorted({w for w in source_words if len(w) >= 5 and w.isalpha()})
    rng.shuffle(cands)
    out = []
    for w in cands:
        kind = kinds[len(out) % 4]
        t = one_typo(w, kind, rng)
        if t:
            out.append((t, w, kind))
        if len(out) == count:
            break
    return out


# --- (d): keyword prefix queries in the Spotlight query language ------------------------------------------------

def clause(prefix):
    return '(keywords == "%s*"cwdt)' % prefix


def make_attribute_queries(keyword_lists, count, rng):
    """keyword_lists: per item, its keyword words. Half the queries pick a word weighted by how many items have it
    (common keywords), half pick a distinct word uniformly (rare ones); the prefix keeps 2..all letters; one in five
    queries ANDs two words of the same item."""
    df = collections.Counter()
    for kws in keyword_lists:
        df.update(set(kws))
    vocab = sorted(w for w in df if len(w) >= 2 and ALNUM_WORD.match(w))
    weights = [df[w] for w in vocab]
    with_two = [sorted(set(k)) for k in keyword_lists if len(set(w for w in k if len(w) >= 2)) >= 2]
    out, seen = [], set()

    def pref(w):
        return w[: rng.randint(min(2, len(w)), len(w))]

    while len(out) < count:
        i = len(out)
        if i % 5 == 4 and with_two:
            ks = [w for w in rng.choice(with_two) if len(w) >= 2 and ALNUM_WORD.match(w)]
            if len(ks) < 2:
                continue
            a, b = rng.sample(ks, 2)
            q = clause(pref(a)) + " && " + clause(pref(b))
        elif i % 2 == 0:
            q = clause(pref(rng.choices(vocab, weights)[0]))
        else:
            q = clause(pref(rng.choice(vocab)))
        if q not in seen:
            seen.add(q)
            out.append(q)
    return out


# --- (e): filters -----------------------------------------------------------------------------------------------

def month_iso(m, end=False):
    y, mo = int(m[:4]), int(m[5:7])
    if end:
        y, mo = (y + 1, 1) if mo == 12 else (y, mo + 1)
    return "%04d-%02d-01T00:00:00Z" % (y, mo)


def month_filter(cls, lo, hi, count, total):
    return {
        "class": cls, "attribute": "contentModificationDate", "op": "range", "lower": lo, "upper": hi,
        "fraction": round(count / total, 6),
        "spotlight": "contentModificationDate >= $time.iso(%s) && contentModificationDate < $time.iso(%s)"
                     % (month_iso(lo), month_iso(hi, end=True)),
    }


def domain_filter(cls, values, count, total):
    values = sorted(values)
    return {
        "class": cls, "attribute": "domainIdentifier", "op": "in", "values": values,
        "fraction": round(count / total, 6),
        "spotlight": "(" + " || ".join('domainIdentifier == "%s"' % v for v in values) + ")",
    }


def month_filters(month_counts, total, rng):
    months = sorted(m for m in month_counts if m)
    prefix = [0]
    for m in months:
        prefix.append(prefix[-1] + month_counts[m])
    out = []
    for cls, _target, lo_f, hi_f in FILTER_CLASSES:
        cands = []
        for i in range(len(months)):
            for j in range(i, len(months)):
                c = prefix[j + 1] - prefix[i]
                if c / total > hi_f:
                    break
                if c / total >= lo_f:
                    cands.append((months[i], months[j], c))
        picked = rng.sample(cands, min(FILTERS_PER_CLASS, len(cands)))
        out += [month_filter(cls, a, b, c, total) for a, b, c in sorted(picked)]
    return out


def section_filters(section_counts, total, rng, classes=FILTER_CLASSES):
    secs = sorted(section_counts)
    max_values = {"narrow": 3, "medium": 6, "wide": 12}
    out = []
    for cls, target, lo_f, hi_f in classes:
        got, tries = [], 0
        while len(got) < FILTERS_PER_CLASS and tries < 20000:
            tries += 1
            order = secs[:]
            rng.shuffle(order)
            chosen, c = [], 0
            for s in order:
                if (c + section_counts[s]) / total <= hi_f:
                    chosen.append(s)
                    c += section_counts[s]
                if c / total >= lo_f and (len(chosen) >= 1 and rng.random() < 0.5 or c / total >= target):
                    break
            if lo_f <= c / total <= hi_f and len(chosen) <= max_values[cls]:
                key = tuple(sorted(chosen))
                if key not in {tuple(f["values"]) for f in got}:
                    got.append(domain_filter(cls, chosen, c, total))
        out += got
    return out


# --- output -----------------------------------------------------------------------------------------------------

def write_lines(path, lines):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for line in lines:
            assert "\n" not in line and "\r" not in line
            f.write(line + "\n")
    log("wrote %s (%d lines)" % (os.path.relpath(path), len(lines)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--data", default=os.environ.get("OPENSPOTLIGHT_DATA", os.path.join(root, "..", "shared", "data")))
    ap.add_argument("--out", default=os.path.join(root, "Benchmarks", "queries"))
    ap.add_argument("--seed", type=int, default=SEED_DEFAULT)
    args = ap.parse_args()

    pypi = load_pypi(os.path.join(args.data, "pypi-packages.tsv.gz"))
    debian = load_debian(os.path.join(args.data, "debian-packages.jsonl.gz"))
    log("pypi %d rows, debian %d rows" % (len(pypi), len(debian)))
    os.makedirs(args.out, exist_ok=True)
    out = lambda name: os.path.join(args.out, name)  # noqa: E731

    # (a) the 100 most popular PyPI projects, typed letter by letter
    ranked = sorted((r for r in pypi if r[2] is not None), key=lambda r: r[2])
    top_names = [r[0] for r in ranked[:100]]
    write_lines(out("keystrokes-pypi-names.txt"), [p for n in top_names for p in keystrokes(n)])

    # (b) multi-word phrases from summaries, typed letter by letter (popular PyPI projects; any Debian package)
    rng = random.Random(args.seed)
    pypi_phr = pick_phrases([r[3] for r in ranked], 60, rng)
    rng = random.Random(args.seed + 1)
    deb_phr = pick_phrases([r[2] for r in debian], 60, rng)
    write_lines(out("keystrokes-pypi-summaries.txt"), [p for s in pypi_phr for p in keystrokes(s)])
    write_lines(out("keystrokes-debian-summaries.txt"), [p for s in deb_phr for p in keystrokes(s)])

    # (c) one-typo variants of complete words (words long enough to allow a typo under Meilisearch's thresholds)
    rng = random.Random(args.seed + 2)
    pypi_src = [w for n in top_names for w in words(n)] + [w for s in pypi_phr for w in s.split()]
    pypi_src += [w for r in ranked[:2000] for w in words(r[3])]
    typos = make_typos(pypi_src, 200, rng)
    write_lines(out("typos-pypi.tsv"), ["%s\t%s\t%s" % t for t in typos])
    rng = random.Random(args.seed + 3)
    deb_src = [w for s in deb_phr for w in s.split()] + [w for r in debian[::20] for w in words(r[2])]
    typos = make_typos(deb_src, 200, rng)
    write_lines(out("typos-debian.tsv"), ["%s\t%s\t%s" % t for t in typos])

    # (d) keyword prefix queries: PyPI keywords = name split on - _ . ; Debian keywords = debtags
    rng = random.Random(args.seed + 4)
    write_lines(out("attributes-pypi.txt"),
                make_attribute_queries([words(r[0]) for r in pypi], 300, rng))
    rng = random.Random(args.seed + 5)
    write_lines(out("attributes-debian.txt"),
                make_attribute_queries([words(" ".join(r[4])) for r in debian], 300, rng))

    # (e) attribute filters, FILTERS_PER_CLASS per selectivity class
    rng = random.Random(args.seed + 6)
    mc = collections.Counter(r[1] for r in pypi)
    pypi_f = month_filters(mc, len(pypi), rng)
    write_lines(out("filters-pypi.jsonl"), [json.dumps(f, sort_keys=True) for f in pypi_f])
    rng = random.Random(args.seed + 7)
    sc = collections.Counter(r[3] for r in debian)
    deb_f = section_filters(sc, len(debian), rng)
    write_lines(out("filters-debian.jsonl"), [json.dumps(f, sort_keys=True) for f in deb_f])
    # both: Debian sections (narrow) and PyPI months (medium, wide), fractions over both corpora together
    rng = random.Random(args.seed + 8)
    total = len(pypi) + len(debian)
    both_f = section_filters(sc, total, rng, classes=FILTER_CLASSES[:1])
    both_f += [f for f in month_filters(mc, total, rng) if f["class"] != "narrow"]
    write_lines(out("filters-both.jsonl"), [json.dumps(f, sort_keys=True) for f in both_f])

    manifest = {
        "seed": args.seed,
        "generator": "scripts/make-queries.py",
        "limit": 20,
        "corpora": {
            "pypi": {
                "keystrokes": ["keystrokes-pypi-names.txt", "keystrokes-pypi-summaries.txt"],
                "filtered_keystrokes": "keystrokes-pypi-names.txt",
                "typos": ["typos-pypi.tsv"],
                "attributes": ["attributes-pypi.txt"],
                "filters": "filters-pypi.jsonl",
                "cold_open_query": "requests",
            },
            "debian": {
                "keystrokes": ["keystrokes-debian-summaries.txt", "keystrokes-pypi-names.txt"],
                "filtered_keystrokes": "keystrokes-debian-summaries.txt",
                "typos": ["typos-debian.tsv"],
                "attributes": ["attributes-debian.txt"],
                "filters": "filters-debian.jsonl",
                "cold_open_query": "python requests",
            },
            "both": {
                "keystrokes": ["keystrokes-pypi-names.txt", "keystrokes-pypi-summaries.txt",
                               "keystrokes-debian-summaries.txt"],
                "filtered_keystrokes": "keystrokes-pypi-names.txt",
                "typos": ["typos-pypi.tsv", "typos-debian.tsv"],
                "attributes": ["attributes-pypi.txt", "attributes-debian.txt"],
                "filters": "filters-both.jsonl",
                "cold_open_query": "requests",
            },
        },
    }
    manifest["corpora"]["tiny"] = dict(manifest["corpora"]["debian"])
    with open(out("manifest.json"), "w", encoding="utf-8", newline="\n") as f:
        json.dump(manifest, f, indent=2, sort_keys=True)
        f.write("\n")
    log("wrote manifest.json")


if __name__ == "__main__":
    main()
