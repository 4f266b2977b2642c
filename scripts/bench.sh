#!/usr/bin/env bash
# Reproduces BENCHMARKS.md: builds the release benchmark, installs the peers (SQLite FTS5, Tantivy, Xapian), runs
# ours and every peer on the same corpus one after the other, and prints the side-by-side table.
#
#   scripts/bench.sh [pypi|debian|both|tiny] [extra arguments for every engine, e.g. --sample 2]
#   (FTS5 runs every 10th query on pypi and both: FTS5_ARGS sets its own arguments instead)
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${1:-pypi}"
shift || true
source scripts/bootstrap.sh
scripts/install-peers.sh >/dev/null
out=".build-bench-results/$corpus"
mkdir -p "$out"
swift build -c release --product spotlight-bench >&2
echo "bench: openspotlight on $corpus" >&2
.build/release/spotlight-bench --corpus "$corpus" --json --out "$out/openspotlight-$corpus.json" "$@" >/dev/null
# FTS5 ranks every match of a query with bm25: at a million items its keystrokes take 1-2 s each, so on the large
# corpora it runs every 10th query of each set, with no warm-up pass (its JSON's `settings` and the table say so;
# FTS5_ARGS overrides it, e.g. FTS5_ARGS= for every query).
fts5_args="${FTS5_ARGS---sample 10 --warmup 0}"
[ "$corpus" = pypi ] || [ "$corpus" = both ] || fts5_args="${FTS5_ARGS-}"
python3 Benchmarks/peers/run_all.py --corpus "$corpus" --out-dir "$out" --peer-args "fts5=$fts5_args" -- "$@" >/dev/null
python3 Benchmarks/compare.py "$out"/openspotlight-"$corpus".json "$out"/fts5-"$corpus".json \
    "$out"/tantivy-"$corpus".json "$out"/xapian-"$corpus".json
