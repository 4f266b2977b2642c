#!/usr/bin/env bash
# The long run of the SIGKILL loop (ProcessTests.testSIGKILLLoopKeepsEveryAcknowledgedWriteAndNoPartialBatch): kills a
# writer at random moments of batches and single writes, checking after each kill that every acknowledged write is
# there and no batch is partial.
#   scripts/kill-loop.sh [kills (default 1000)]
# Figures: Documentation/Reliability.md.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests
OPENSPOTLIGHT_KILLS="${1:-1000}" \
    swift test --skip-build --filter 'ProcessTests/testSIGKILLLoopKeepsEveryAcknowledgedWriteAndNoPartialBatch' 2>&1 | grep -E 'kill loop|error|passed|failed'
