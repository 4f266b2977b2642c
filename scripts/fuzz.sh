#!/usr/bin/env bash
# The long fuzz run of issue 17 (b, c): the value decoder and the store opener on random and mutated bytes, the
# query parser on mutated queries, CSUserQuery and CSSearchQuery on random and mutated strings. The suite runs
# the same tests with a few thousand inputs; this runs N of each (default 100,000): N random byte strings, N
# mutated records, N/20 damaged store files, N mutated queries, N/5 CSUserQuery and N/5 CSSearchQuery inputs.
# Every test prints a "fuzz:" line with its figures; a crash is a failed run.
#
#   scripts/fuzz.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
iterations="${1:-100000}"
swift build --build-tests >&2
export OPENSPOTLIGHT_FUZZ_ITERATIONS="$iterations"
swift test --skip-build --filter 'DecoderFuzzTests|QueryFuzzTests|mutatedCanonicalQueries' 2>&1 | tee /dev/stderr | grep 'fuzz:'
