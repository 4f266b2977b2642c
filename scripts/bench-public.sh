#!/usr/bin/env bash
# The public index benchmark (issue 16): ~1M public items in PostgreSQL, search latency over HTTP, then a load test
# (concurrent reporters and searchers, zero lost reports checked in the database). Release build of the service,
# the throwaway cluster of scripts/public-db.sh. Results: .build-bench-results/public/results.json.
#
#   scripts/bench-public.sh [--items N] [--reporters N] [--searchers N] [--seconds S]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
swift build -c release --product spotlight-public
cluster=$(scripts/public-db.sh start)
database=${cluster/\/openspotlight_public\?/\/openspotlight_bench?}
psql "$cluster" -tAc "select 1 from pg_database where datname = 'openspotlight_bench'" | grep -q 1 \
    || psql "$cluster" -qc "create database openspotlight_bench"
mkdir -p .build-bench-results/public
port=${OPENSPOTLIGHT_BENCH_PORT:-18431}
# Limits far above the load, so the figures measure the service rather than its rate limits. The search refresh runs
# once, after loading (`--refresh` below), rather than in the service while it is measured.
.build/release/spotlight-public serve --database "$database" --port "$port" --no-crawler \
    --reports-per-install-per-hour 1000000 --requests-per-address-per-minute 100000000 --no-search-refresh \
    > .build-bench-results/public/service.log 2>&1 &
service=$!
trap 'kill $service 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q "listening on" .build-bench-results/public/service.log && break; sleep 0.2; done
data=${OPENSPOTLIGHT_DATA:-$(cd .. && pwd)/shared/data}
python3 Benchmarks/public/public_bench.py --database "$database" --port "$port" --data "$data" \
    --refresh ".build/release/spotlight-public refresh-search --database '$database'" "$@" \
    | tee .build-bench-results/public/results.json
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; $(date -u +%Y-%m-%dT%H:%MZ)"
