#!/usr/bin/env bash
# The README's second command (and CI's): build everything and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
# A session bus, busctl, gdbus, headless Chromium and Selenium for the desktop and search-page tests.
source scripts/bootstrap-tests.sh
# PostgreSQL for the public index's tests (installed from Debian's packages when missing; a throwaway cluster in
# .build-pg). The tests start it themselves too; starting it here reports a failure before the long build.
scripts/public-db.sh start >/dev/null
swift build --build-tests
# The install script, end to end in a throwaway prefix (reuses the debug build).
scripts/test-install.sh
swift test --skip-build 2>&1 | tee .build/test-output.txt
