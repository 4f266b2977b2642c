#!/usr/bin/env bash
# The README's first command: build, index the Debian package corpus (../shared/data) into the embedded index and
# search it. Extra arguments are searched instead of the sample queries.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
swift build -c release --product spotlight-demo >&2
exec .build/release/spotlight-demo "$@"
