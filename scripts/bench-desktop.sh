#!/usr/bin/env bash
# The desktop providers' latency (issue 15): GNOME Shell drops a search provider that answers slowly, so
# GetInitialResultSet must answer a typed word in ≤ 50 ms p99. Indexes the Colleagues and Smoothies demos and the
# Debian demo (63k packages) into a throwaway root beside 300 other applications' desktop entries, installs the D-Bus service file into a throwaway data
# directory, starts a private session bus (dbus-daemon) and lets D-Bus activation start `spotlight serve --dbus`
# (release build), then calls it for every keystroke of typed queries (Benchmarks/desktop/provider_latency.py).
#
#   scripts/bench-desktop.sh [ROUNDS]     results in .build-bench-results/desktop/
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
source scripts/bootstrap-tests.sh
rounds="${1:-5}"
swift build -c release --product spotlight >&2
swift build -c release --product colleagues >&2
swift build -c release --product smoothies >&2
swift build -c release --product spotlight-demo >&2
bin="$(swift build -c release --show-bin-path)"

work="$(mktemp -d /tmp/openspotlight-bench-desktop.XXXXXX)"
bus_pid=""
cleanup() { [ -n "$bus_pid" ] && kill "$bus_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
export OPENSPOTLIGHT_HOME="$work/home" XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config"
export XDG_RUNTIME_DIR="$work/runtime" XDG_DATA_DIRS="$work/share" OPENSPOTLIGHT_OPENER=true
mkdir -m 0700 -p "$XDG_RUNTIME_DIR"
# A desktop's worth of other applications (300 desktop entries), which every search lists to find registrations.
mkdir -p "$work/share/applications"
for i in $(seq 300); do
    printf '[Desktop Entry]\nType=Application\nName=Application %d\nExec=/usr/bin/true %%U\nIcon=application-x-executable\nCategories=Utility;\n' "$i" \
        > "$work/share/applications/org.example.App$i.desktop"
done

echo "bench-desktop: indexing Colleagues, Smoothies and the Debian demo…" >&2
"$bin/colleagues" setting all-records >/dev/null
"$bin/smoothies" list >/dev/null
"$bin/spotlight-demo" >/dev/null
"$bin/spotlight" apps >&2
"$bin/spotlight" desktop install >/dev/null 2>&1

cat > "$work/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=$work</listen>
  <servicedir>$XDG_DATA_HOME/dbus-1/services</servicedir>
  <policy context="default"><allow send_destination="*"/><allow receive_sender="*"/><allow own="*"/></policy>
</busconfig>
CONF
dbus-daemon --config-file="$work/bus.conf" --nofork --print-address=3 3>"$work/address" &
bus_pid=$!
for _ in $(seq 50); do [ -s "$work/address" ] && break; sleep 0.1; done
export DBUS_SESSION_BUS_ADDRESS="$(head -1 "$work/address")"

mkdir -p .build-bench-results/desktop
out=".build-bench-results/desktop/provider-latency.json"
echo "bench-desktop: $(nproc) cores, $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD)" >&2
python3 Benchmarks/desktop/provider_latency.py --rounds "$rounds" --out "$out"
echo "bench-desktop: wrote $out" >&2
