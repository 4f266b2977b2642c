#!/usr/bin/env bash
# The README's second command (and CI's): build everything and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
# A session bus, busctl, gdbus, headless Chromium and Selenium for the desktop and search-page tests.
source scripts/bootstrap-tests.sh
swift build --build-tests
# The install script, end to end in a throwaway prefix (reuses the debug build).
scripts/test-install.sh
swift test --skip-build 2>&1 | tee .build/test-output.txt
