#!/usr/bin/env python3
"""Derive the judged relevance query sets from the corpora, reproducibly (fixed seed).

    python3 scripts/make-relevance.py [--data /work/shared/data] [--out Benchmarks/queries] [--seed 20261124]

Writes Benchmarks/queries/relevance-pypi.jsonl and relevance-debian.jsonl, one judged query per line:

    {"kind": "prefix", "query": "num", "relevant": ["pypi:numpy"]}

The judgments come from the data alone (names and PyPI's download rank), never from an engine's output:

- full: a project's exact name, typed as it is written; relevant: that project. PyPI: the 300 most downloaded
  projects; Debian (no popularity in the corpus): 300 packages drawn at random.
- prefix (PyPI only: Debian has no popularity to say which completion is meant): a prefix of 3 or more characters
  of a popular project's name (the 2,000 most downloaded), typed as in a search box; relevant: the most downloaded
  project whose name starts with those characters. Left out: prefixes that are another project's whole name (that
  project is then the right answer, a "full" query), prefixes ending in a separator, and prefixes whose most
  downloaded completion is not itself among the 2,000 (popularity too thin to call). 300 drawn at random.
- typo: a popular name (as for full) of 5 or more letters with one edit: a substitution, deletion, insertion or
  transposition, never creating another project's name; relevant: the project. `typo` keeps the first letter;
  `typo-first` changes it (many engines, ours included, require the first letter: reported apart, not hidden).
- descriptive: two or three of the rarest words (in the corpus' summaries) of a popular project's summary, in the
  summary's order; relevant: the project. A weaker judgment (another project may fit the words as well), so it is
  reported apart and has no target.

Names are compared folded (lower case, runs of letters and digits joined), the way every engine in the benchmark
tokenizes them; a project whose folded name equals another's is never a "full" or "typo" answer (ambiguous).
Running it twice gives byte-identical files.
"""
import argparse
import collections
import gzip
import json
import os
import random
import re
import sys
import unicodedata

SEED_DEFAULT = 20261124
PER_KIND = 300
POPULAR = 2_000
WORD_RE = re.compile(r"[^\W_]+", re.UNICODE)
LETTERS = "abcdefghijklmnopqrstuvwxyz"
STOP = set("a an and the of for to in on with by from at as is are be or your you it its this that into via using "
           "based simple python library package module tool tools api client plugin support".split())


def fold(s):
    s = s.lower()
    if not s.isascii():
        s = "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))
    return s


def key(s):
    return "".join(WORD_RE.findall(fold(s)))


def load_pypi(path):
    rows = []
    with gzip.open(path, "rt", encoding="utf-8", newline="\n") as f:
        header = f.readline().rstrip("\n").split("\t")
        assert header == ["name", "version", "month", "popularity_rank", "summary"], header
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) != 5:
                continue
            rows.append({"id": "pypi:" + p[0], "name": p[0], "rank": int(p[3]) if p[3] else None, "summary": p[4]})
    return rows


def load_debian(path):
    rows = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            rows.append({"id": "debian:" + d["id"], "name": d["name"], "rank": None, "summary": d.get("summary") or ""})
    return rows


def one_edit(word, kind, rng, first):
    """One edit of `word`: at position 0 when `first`, else after it."""
    n = len(word)
    lo = 0 if first else 1
    for _ in range(50):
        if kind == "substitution":
            i = lo if first else rng.randrange(lo, n)
            t = word[:i] + rng.choice([c for c in LETTERS if c != word[i]]) + word[i + 1:]
        elif kind == "deletion":
            i = 0 if first else rng.randrange(lo, n - 1)  # not the last letter: that is only a shorter prefix
            t = word[:i] + word[i + 1:]
        elif kind == "insertion":
            i = 0 if first else rng.randrange(lo, n)
            t = word[:i] + rng.choice(LETTERS) + word[i:]
        else:
            i = 0 if first else rng.randrange(lo, n - 1)
            if word[i] == word[i + 1]:
                continue
            t = word[:i] + word[i + 1] + word[i] + word[i + 2:]
        if t != word:
            return t
    return None


def typos(popular, keys, rng, first):
    kinds = ["substitution", "deletion", "insertion", "transposition"]
    out = []
    for row in popular:
        name = row["name"].lower()
        # Edit the longest word of the name (`python-dateutil` → `dateutil`), keeping its separators.
        parts = re.split(r"([^a-z0-9]+)", name)
        longest = max(range(0, len(parts), 2), key=lambda i: (len(parts[i]), -i))
        word = parts[longest]
        if len(word) < 5 or not word.isalpha() or (first and longest != 0):
            continue
        edited = one_edit(word, kinds[len(out) % 4], rng, first)
        if not edited:
            continue
        typed = "".join(parts[:longest] + [edited] + parts[longest + 1:])
        if key(typed) in keys:
            continue  # another project's name
        out.append({"kind": "typo-first" if first else "typo", "query": typed, "relevant": [row["id"]]})
        if len(out) == PER_KIND:
            break
    return out


def descriptive(popular, rows, rng):
    df = collections.Counter()
    for row in rows:
        df.update(set(WORD_RE.findall(fold(row["summary"]))))
    out = []
    for row in popular:
        ws = [w for w in WORD_RE.findall(fold(row["summary"])) if len(w) >= 3 and w not in STOP and not w.isdigit()]
        ws = list(dict.fromkeys(ws))
        if len(ws) < 3:
            continue
        n = rng.choice([2, 3])
        rarest = sorted(ws, key=lambda w: (df[w], w))[:n]
        query = " ".join(w for w in ws if w in rarest)
        out.append({"kind": "descriptive", "query": query, "relevant": [row["id"]]})
        if len(out) == PER_KIND:
            break
    return out


def judged(rows, popular_rows, rng, with_prefixes):
    counts = collections.Counter(key(r["name"]) for r in rows)
    keys = set(counts)
    unique = [r for r in popular_rows if counts[key(r["name"])] == 1 and key(r["name"])]
    out = [{"kind": "full", "query": r["name"], "relevant": [r["id"]]} for r in unique[:PER_KIND]]
    if with_prefixes:
        ranked = sorted((r for r in rows if r["rank"]), key=lambda r: (r["rank"], r["name"]))
        top = ranked[:POPULAR]
        top_ids = {r["id"] for r in top}
        # The most downloaded project starting with each prefix of a popular name.
        best = {}
        names = sorted(((r["name"].lower(), r["rank"], r["id"]) for r in ranked), key=lambda t: t[0])
        candidates = set()
        for r in top:
            name = r["name"].lower()
            for n in range(3, len(name)):
                p = name[:n]
                if not p[-1].isalnum() or key(p) in keys:
                    continue
                candidates.add(p)
        import bisect
        lowered = [t[0] for t in names]
        for p in sorted(candidates):
            i = bisect.bisect_left(lowered, p)
            winner = None
            while i < len(names) and names[i][0].startswith(p):
                if winner is None or (names[i][1], names[i][2]) < (winner[1], winner[2]):
                    winner = names[i]
                i += 1
            if winner and winner[2] in top_ids:
                best[p] = winner[2]
        chosen = sorted(best)
        rng.shuffle(chosen)
        out += [{"kind": "prefix", "query": p, "relevant": [best[p]]} for p in sorted(chosen[:PER_KIND])]
    out += typos(unique, keys, rng, first=False)
    out += typos(unique, keys, rng, first=True)
    out += descriptive(unique, rows, rng)
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(here, "..", "..", "shared", "data"))
    ap.add_argument("--out", default=os.path.join(here, "..", "Benchmarks", "queries"))
    ap.add_argument("--seed", type=int, default=SEED_DEFAULT)
    args = ap.parse_args()

    pypi = load_pypi(os.path.join(args.data, "pypi-packages.tsv.gz"))
    popular = sorted((r for r in pypi if r["rank"]), key=lambda r: (r["rank"], r["name"]))
    sets = {"pypi": judged(pypi, popular, random.Random(args.seed), with_prefixes=True)}
    debian = load_debian(os.path.join(args.data, "debian-packages.jsonl.gz"))
    drawn = sorted(debian, key=lambda r: r["id"])
    random.Random(args.seed + 1).shuffle(drawn)
    sets["debian"] = judged(debian, drawn, random.Random(args.seed + 2), with_prefixes=False)
    for corpus, queries in sets.items():
        path = os.path.join(args.out, "relevance-%s.jsonl" % corpus)
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            for q in queries:
                f.write(json.dumps(q, ensure_ascii=False, sort_keys=True) + "\n")
        kinds = collections.Counter(q["kind"] for q in queries)
        print("make-relevance: %s: %s" % (path, ", ".join("%s %d" % kv for kv in sorted(kinds.items()))), file=sys.stderr)


if __name__ == "__main__":
    main()
