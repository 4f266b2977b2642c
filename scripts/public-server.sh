#!/usr/bin/env bash
# The public index in one command (issue 16): installs PostgreSQL from Debian's packages when it is missing, starts
# the throwaway cluster of scripts/public-db.sh (initdb + pg_ctl, in .build-pg), builds spotlight-public, applies its
# migrations and serves on http://127.0.0.1:8080 until Ctrl-C. Extra arguments go to `spotlight-public serve`
# (e.g. --port 9000 --threshold 3 --allow-insecure-sites for local sites). The tests use the same cluster script.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
database=$(scripts/public-db.sh start)
swift build -c release --product spotlight-public >&2
echo "public-server: database $database" >&2
exec .build/release/spotlight-public serve --database "$database" "$@"
