#!/usr/bin/env python3
"""Run every peer, one after the other (each its own process), and print a JSON array of their result objects.

    python3 Benchmarks/peers/run_all.py --corpus tiny [--peers fts5,tantivy,xapian] [--out-dir DIR]
        [--peer-args "fts5=--sample 10 --warmup 0"] [-- extra args]

Arguments after `--` go to every peer (e.g. `-- --limit 5000 --reps 3`); `--peer-args PEER=ARGS` (repeatable) adds
arguments for one peer after them, so they win (`--sample 10` for FTS5, whose queries take 1-2 s each at a million
items: every 10th query of each set, recorded in its `settings`). With --out-dir, each peer's object is also written
to DIR/<peer>-<corpus>.json. A peer that fails makes the exit status 1; the others still run.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = ["fts5", "tantivy", "xapian"]


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default="tiny", choices=["pypi", "debian", "both", "tiny"])
    ap.add_argument("--peers", default=",".join(PEERS))
    ap.add_argument("--out-dir")
    ap.add_argument("--peer-args", action="append", default=[], metavar="PEER=ARGS",
                    help="arguments for one peer only, after the shared ones (repeatable)")
    args = ap.parse_args(argv)
    own = {}
    for spec in args.peer_args:
        peer, sep, rest = spec.partition("=")
        if not sep or peer not in PEERS:
            ap.error("--peer-args wants PEER=ARGS with PEER one of %s, got %r" % (", ".join(PEERS), spec))
        own.setdefault(peer, []).extend(shlex.split(rest))
    results, failed = [], []
    for peer in [p for p in args.peers.split(",") if p]:
        cmd = [sys.executable, os.path.join(HERE, "%s_peer.py" % peer), "--corpus", args.corpus, "--json"] + extra + own.get(peer, [])
        print("run_all: %s" % " ".join(cmd), file=sys.stderr, flush=True)
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            failed.append(peer)
            print("run_all: %s failed with status %d" % (peer, proc.returncode), file=sys.stderr)
            continue
        obj = json.loads(proc.stdout)
        results.append(obj)
        if args.out_dir:
            os.makedirs(args.out_dir, exist_ok=True)
            with open(os.path.join(args.out_dir, "%s-%s.json" % (peer, args.corpus)), "w") as f:
                json.dump(obj, f, indent=2)
                f.write("\n")
    print(json.dumps(results, indent=2))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
