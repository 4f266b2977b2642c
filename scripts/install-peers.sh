#!/usr/bin/env bash
# Installs the peer engines the benchmark compares against (issue 5):
#   - SQLite with FTS5 (Debian libsqlite3 + sqlite3 CLI; Python's sqlite3 module links it)
#   - Xapian 1.4 (Debian python3-xapian, importable only from the Debian /usr/bin/python3)
#   - Tantivy 0.27 (PyPI `tantivy`) into a virtual environment at .build-peers/venv
# The venv is created from /usr/bin/python3 with --system-site-packages, so one interpreter,
# .build-peers/venv/bin/python, imports sqlite3, xapian and tantivy.
# Idempotent and unattended: installs only what is missing, never reads stdin.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${PEERS_VENV:-$ROOT/.build-peers/venv}"
TANTIVY_SPEC="${TANTIVY_SPEC:-tantivy>=0.22,<0.28}"
export DEBIAN_FRONTEND=noninteractive

log() { echo "install-peers: $*" >&2; }

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo -n"; fi
fi

# --- Debian packages -------------------------------------------------------------------------
need=()
for pkg in python3 python3-venv python3-xapian sqlite3 libsqlite3-0; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    need+=("$pkg")
  fi
done
if [ "${#need[@]}" -gt 0 ]; then
  log "apt-get install ${need[*]}"
  $SUDO apt-get update -qq </dev/null >&2
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" </dev/null >&2
else
  log "Debian packages present"
fi

/usr/bin/python3 -c 'import xapian, sqlite3, sys
v = xapian.version_string()
assert v.startswith("1.4"), v
con = sqlite3.connect(":memory:")
con.execute("create virtual table t using fts5(x)")
print("install-peers: xapian", v, "sqlite", sqlite3.sqlite_version, file=sys.stderr)'

# --- Tantivy in a venv (kept out of git by .build-*/ in .gitignore) ---------------------------
if [ ! -x "$VENV/bin/python" ]; then
  log "creating venv $VENV"
  mkdir -p "$(dirname "$VENV")"
  /usr/bin/python3 -m venv --system-site-packages "$VENV"
fi
if ! "$VENV/bin/python" -c 'import tantivy' >/dev/null 2>&1; then
  log "pip install $TANTIVY_SPEC"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "$TANTIVY_SPEC" </dev/null >&2
else
  log "tantivy present"
fi
"$VENV/bin/python" - <<'PY'
import sys, sqlite3, xapian, tantivy
try:
    from importlib.metadata import version
    tv = version("tantivy")
except Exception:
    tv = "?"
print(f"install-peers: ok: python {sys.version.split()[0]}, sqlite {sqlite3.sqlite_version}, "
      f"xapian {xapian.version_string()}, tantivy {tv}", file=sys.stderr)
PY
echo "$VENV/bin/python"
