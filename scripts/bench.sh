#!/usr/bin/env bash
# Reproduces BENCHMARKS.md: builds the release benchmark, installs the peers (SQLite FTS5, Tantivy, Xapian), runs
# ours and every peer on the same corpus one after the other, and prints the side-by-side table.
#
#   scripts/bench.sh [pypi|debian|both|tiny] [extra arguments for every engine, e.g. --sample 2]
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
python3 Benchmarks/peers/run_all.py --corpus "$corpus" --out-dir "$out" -- "$@" >/dev/null
python3 Benchmarks/compare.py "$out"/openspotlight-"$corpus".json "$out"/fts5-"$corpus".json \
    "$out"/tantivy-"$corpus".json "$out"/xapian-"$corpus".json
