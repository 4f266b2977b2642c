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
# The engine's and the API's tests again, built as apps build them (release, with testing enabled): a release build
# once lost whole-word typos that the debug-built tests kept (BENCHMARKS.md, 2026-12-06). Its own build folder, so
# it never invalidates the debug build above (~15 minutes from nothing, ~2 to run).
swift build -c release --build-tests -Xswiftc -enable-testing --build-path .build-release-tests
swift test -c release -Xswiftc -enable-testing --build-path .build-release-tests --skip-build \
    --filter 'SpotlightEngineTests|OpenCoreSpotlightTests|SpotlightTextTests|SpotlightQueryLanguageTests' \
    2>&1 | tee .build/test-output-release.txt
