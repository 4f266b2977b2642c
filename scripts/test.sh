#!/usr/bin/env bash
# The README's second command (and CI's): build everything and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
swift build --build-tests
swift test --skip-build 2>&1 | tee .build/test-output.txt
