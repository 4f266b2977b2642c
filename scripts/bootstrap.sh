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
# Web markup (HTML pages, sitemaps) is parsed by libxml2.
[ -f /usr/include/libxml2/libxml/HTMLparser.h ] || need+=(libxml2-dev)
# Tests check the desktop entries apps write with the freedesktop validator.
command -v desktop-file-validate >/dev/null 2>&1 || need+=(desktop-file-utils)
# Installs Debian packages (as root, or through sudo); scripts/bootstrap-tests.sh uses it too.
openspotlight_apt_install() {
    [ $# -gt 0 ] || return 0
    echo "bootstrap: installing $*" >&2
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
openspotlight_apt_install "${need[@]}"

if ! command -v swift >/dev/null 2>&1; then
    for dir in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
        [ -x "$dir/swift" ] && export PATH="$dir:$PATH" && break
    done
fi
command -v swift >/dev/null 2>&1 || { echo "bootstrap: no Swift toolchain found; install Swift 6 from swift.org" >&2; exit 1; }
