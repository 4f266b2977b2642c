#!/usr/bin/env bash
# Installs what a fresh Debian machine needs to build OpenSpotlight: a Swift 6 toolchain must already be on PATH
# (the machine image provides it); SQLite's, zstd's and sd-bus's headers, zcat and desktop-file-validate come from
# Debian's packages.
set -euo pipefail

need=()
command -v zcat >/dev/null 2>&1 || need+=(gzip)
[ -f /usr/include/sqlite3.h ] || need+=(libsqlite3-dev)
# The engine compresses stored attributes with zstd.
[ -f /usr/include/zstd.h ] || need+=(libzstd-dev)
# The desktop's search providers speak D-Bus through systemd's sd-bus.
[ -f /usr/include/systemd/sd-bus.h ] || need+=(libsystemd-dev)
# Tests check the desktop entries apps write with the freedesktop validator.
command -v desktop-file-validate >/dev/null 2>&1 || need+=(desktop-file-utils)
if [ ${#need[@]} -gt 0 ]; then
    echo "bootstrap: installing ${need[*]}" >&2
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

if ! command -v swift >/dev/null 2>&1; then
    for dir in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
        [ -x "$dir/swift" ] && export PATH="$dir:$PATH" && break
    done
fi
command -v swift >/dev/null 2>&1 || { echo "bootstrap: no Swift toolchain found; install Swift 6 from swift.org" >&2; exit 1; }
