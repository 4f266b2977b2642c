#!/usr/bin/env python3
"""How fast the desktop search providers answer, as GNOME Shell and KRunner call them.

Run by scripts/bench-desktop.sh against a private session bus whose `spotlight serve --dbus` is started by D-Bus
activation. For every keystroke of a list of typed queries it calls GetInitialResultSet (GNOME waits for it, and
drops a provider that is slow), then GetResultMetas for the first five identifiers (what GNOME asks next), and
KRunner's Match. Prints a table and writes JSON.

    provider_latency.py --rounds 5 --out results.json
"""
import argparse
import json
import statistics
import time

from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection

BUS_NAME = "org.openspotlight.SearchProvider"
GNOME = DBusAddress("/org/openspotlight/SearchProvider", bus_name=BUS_NAME, interface="org.gnome.Shell.SearchProvider2")
KRUNNER = DBusAddress("/org/openspotlight/KRunner", bus_name=BUS_NAME, interface="org.kde.krunner1")

# What people type: names from the Colleagues and Smoothies demos and Debian package searches, one keystroke at
# a time (each prefix is a call, as the shell makes them).
QUERIES = [
    "brent reid", "priya", "engineering", "berry blue", "mango", "smoothie", "text editor", "python3 numpy",
    "network manager", "libreoffice", "rust compiler", "mail client", "image viewer", "gnome shell", "kde",
    "postgresql", "web browser", "font", "ssh server", "video player",
]


def keystrokes(query):
    return [query[:i] for i in range(1, len(query) + 1) if not query[:i].endswith(" ")]


def percentile(values, p):
    ordered = sorted(values)
    if not ordered:
        return 0.0
    k = (len(ordered) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def summary(values):
    return {
        "calls": len(values),
        "p50_ms": round(percentile(values, 50), 3),
        "p95_ms": round(percentile(values, 95), 3),
        "p99_ms": round(percentile(values, 99), 3),
        "max_ms": round(max(values), 3) if values else 0,
        "mean_ms": round(statistics.fmean(values), 3) if values else 0,
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out")
    args = parser.parse_args()

    connection = open_dbus_connection(bus="SESSION")

    def call(address, method, signature, body):
        started = time.perf_counter()
        reply = connection.send_and_get_reply(new_method_call(address, method, signature, body), timeout=30)
        elapsed = (time.perf_counter() - started) * 1000
        if reply.header.message_type.name == "error":
            raise SystemExit("%s failed: %r" % (method, reply.body))
        return reply.body, elapsed

    # The first call starts the service (D-Bus activation) and opens the indexes.
    _, first = call(GNOME, "GetInitialResultSet", "as", (["brent"],))

    initial, metas, shell, krunner = [], [], [], []
    found = 0
    for _ in range(args.rounds):
        for query in QUERIES:
            for typed in keystrokes(query):
                (ids,), t_initial = call(GNOME, "GetInitialResultSet", "as", (typed.split(),))
                _, t_metas = call(GNOME, "GetResultMetas", "as", (ids[:5],))
                _, t_match = call(KRUNNER, "Match", "s", (typed,))
                initial.append(t_initial)
                metas.append(t_metas)
                shell.append(t_initial + t_metas)
                krunner.append(t_match)
                found += 1 if ids else 0

    result = {
        "first_call_ms": round(first, 3),
        "keystrokes": len(initial),
        "keystrokes_with_results": found,
        "GetInitialResultSet": summary(initial),
        "GetResultMetas(5)": summary(metas),
        "GNOME keystroke (initial + metas)": summary(shell),
        "KRunner Match": summary(krunner),
    }
    print("first call (activation, indexes opened): %.1f ms" % first)
    print("%-36s %7s %8s %8s %8s %8s" % ("call", "calls", "p50 ms", "p95 ms", "p99 ms", "max ms"))
    for name in ["GetInitialResultSet", "GetResultMetas(5)", "GNOME keystroke (initial + metas)", "KRunner Match"]:
        s = result[name]
        print("%-36s %7d %8.2f %8.2f %8.2f %8.2f" % (name, s["calls"], s["p50_ms"], s["p95_ms"], s["p99_ms"], s["max_ms"]))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
