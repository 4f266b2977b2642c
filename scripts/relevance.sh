#!/usr/bin/env bash
# The relevance evaluation (issue 13): ours and the peers on the judged query sets of scripts/make-relevance.py,
# MRR@10 and success@1 per kind of query, every engine on the same corpus in the same run.
#
#   scripts/relevance.sh [pypi|debian|both] [--engines ours,fts5,tantivy,xapian] [--out DIR] [--smoke]
#
# `both` runs PyPI and Debian one after the other (each its own index). --smoke: the 2,000-item `tiny` corpus, a
# check that every engine runs and reports (under a minute once built), plus the metric's self-test.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="both"
engines="ours,fts5,tantivy,xapian"
out=".build-bench-results/relevance"
smoke=0
while [ $# -gt 0 ]; do
    case "$1" in
        pypi|debian|both|tiny) corpus="$1" ;;
        --engines) engines="$2"; shift ;;
        --out) out="$2"; shift ;;
        --smoke) smoke=1; corpus="tiny" ;;
        -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
        *) echo "relevance: unknown argument $1" >&2; exit 64 ;;
    esac
    shift
done
mkdir -p "$out"
source scripts/bootstrap.sh
peers="$(echo ",$engines," | sed 's/,ours,/,/g; s/^,//; s/,$//')"
if [ -n "$peers" ]; then scripts/install-peers.sh >/dev/null; fi
if [[ ",$engines," == *",ours,"* ]]; then swift build -c release --product spotlight-bench >&2; fi
python3 - <<'EOF'
import sys; sys.path.insert(0, "Benchmarks/peers"); import common
b = common.mrr_block([("full", 1), ("full", 2), ("full", None), ("prefix", 11), ("prefix", 1)])
assert b == {"full": {"queries": 3, "mrr_at_10": 0.5, "success_at_1": 0.333},
             "prefix": {"queries": 2, "mrr_at_10": 0.5, "success_at_1": 0.5}}, b
EOF
skip="search,filtered,attributes,typos,writes,cold"
corpora="$corpus"
if [ "$corpus" = both ]; then corpora="pypi debian"; fi
for c in $corpora; do
    files=()
    if [[ ",$engines," == *",ours,"* ]]; then
        echo "relevance: openspotlight on $c" >&2
        .build/release/spotlight-bench --corpus "$c" --json --out "$out/openspotlight-$c.json" --skip "$skip" >/dev/null
        files+=("$out/openspotlight-$c.json")
    fi
    if [ -n "$peers" ]; then
        python3 Benchmarks/peers/run_all.py --corpus "$c" --peers "$peers" --out-dir "$out" -- --skip "$skip" >/dev/null
        for p in ${peers//,/ }; do files+=("$out/$p-$c.json"); done
    fi
    python3 - "$c" "$smoke" "${files[@]}" <<'EOF'
import json, sys
corpus, smoke, paths = sys.argv[1], sys.argv[2] == "1", sys.argv[3:]
results = [json.load(open(p)) for p in paths]
kinds = sorted({k for r in results for k in r.get("relevance", {})})
names = [r.get("peer", "?") for r in results]
print("relevance on %s (%s items): MRR@10 / success@1 per kind" % (corpus, results[0].get("items") if results else "?"))
print("| kind | queries | " + " | ".join(names) + " |")
print("|---|---|" + "---|" * len(names))
for k in kinds:
    n = next((r["relevance"][k]["queries"] for r in results if k in r.get("relevance", {})), 0)
    cells = []
    for r in results:
        v = r.get("relevance", {}).get(k)
        cells.append("%.3f / %.3f" % (v["mrr_at_10"], v["success_at_1"]) if v else "—")
    print("| %s | %d | %s |" % (k, n, " | ".join(cells)))
print()
if smoke:
    missing = [n for n, r in zip(names, results) if not r.get("relevance")]
    if missing:
        sys.exit("relevance: no relevance block from " + ", ".join(missing))
EOF
done
