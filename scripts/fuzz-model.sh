#!/usr/bin/env bash
# The long run of the model-based fuzzing of index operations (Tests/OpenCoreSpotlightTests/ModelFuzzTests.swift):
#   scripts/fuzz-model.sh [operations (default 1000000)] [seed (default: the time)]
# Prints one line of figures (operations, batches, queries checked, divergences). Figures: Documentation/Reliability.md.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests
OPENSPOTLIGHT_FUZZ_OPERATIONS="${1:-1000000}" OPENSPOTLIGHT_FUZZ_SEED="${2:-$(date +%s)}" \
    swift test --skip-build --filter 'ModelFuzzTests/testRandomOperationsMatchTheModel' 2>&1 | grep -E 'model fuzz|error|passed|failed'
