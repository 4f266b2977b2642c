#!/usr/bin/env python3
"""Prints the markdown table of benchmark result objects (schema openspotlight-bench/1), ours first, with the
ratio of each peer's figure to ours and the issue's goals.

    python3 Benchmarks/compare.py ours.json peer1.json [peer2.json ...]
"""
import json
import sys


def get(d, path):
    for k in path.split("."):
        if not isinstance(d, dict) or k not in d:
            return None
        d = d[k]
    return d


ROWS = [
    ("bulk index (items/s)", "bulk_index.items_per_s", "higher", None),
    ("bulk index (s)", "bulk_index.seconds", "lower", ("≤ 25 s at 1M", lambda v: v <= 25)),
    ("keystroke p50 (ms)", "search.all.p50_ms", "lower", None),
    ("keystroke p99 (ms)", "search.all.p99_ms", "lower", ("≤ 10 ms at 1M", lambda v: v <= 10)),
    ("filtered narrow p99 (ms)", "filtered_search.narrow.p99_ms", "lower", ("≤ 20 ms", lambda v: v <= 20)),
    ("filtered medium p99 (ms)", "filtered_search.medium.p99_ms", "lower", ("≤ 20 ms", lambda v: v <= 20)),
    ("filtered wide p99 (ms)", "filtered_search.wide.p99_ms", "lower", ("≤ 20 ms", lambda v: v <= 20)),
    ("attribute query p99 (ms)", "attribute_query.p99_ms", "lower", ("≤ 10 ms", lambda v: v <= 10)),
    ("typo hit rate", "typo.hit_rate", "higher", None),
    ("upsert visible p99 (ms)", "upsert.p99_ms", "lower", ("≤ 5 ms", lambda v: v <= 5)),
    ("delete visible p99 (ms)", "delete.p99_ms", "lower", ("≤ 5 ms", lambda v: v <= 5)),
    ("cold open, first result (ms)", "cold_open.first_result_ms", "lower", ("≤ 100 ms", lambda v: v <= 100)),
    ("cold open, evicted (ms)", "cold_open.evicted_first_result_ms", "lower", ("≤ 100 ms", lambda v: v <= 100)),
    ("disk / raw text", "disk.fresh_over_raw", "lower", ("≤ 1.2×", lambda v: v <= 1.2)),
    ("disk (MB)", "disk.fresh_bytes", "lower", None),
    ("disk after churn / fresh", "disk.churned_over_fresh", "lower", ("≤ 1.3×", lambda v: v <= 1.3)),
    ("churn updates (items/s)", "disk.churn_items_per_s", "higher", None),
    ("peak RSS indexing (MB)", "memory.peak_rss_index_mb", "lower", None),
    ("peak RSS queries (MB)", "memory.peak_rss_query_mb", "lower", None),
    ("relevance full MRR@10", "relevance.full.mrr_at_10", "higher", ("≥ 0.95", lambda v: v >= 0.95)),
    ("relevance prefix MRR@10", "relevance.prefix.mrr_at_10", "higher", ("≥ 0.90", lambda v: v >= 0.90)),
    ("relevance typo MRR@10", "relevance.typo.mrr_at_10", "higher", ("≥ 0.95", lambda v: v >= 0.95)),
    ("relevance typo-first MRR@10", "relevance.typo-first.mrr_at_10", "higher", None),
    ("relevance descriptive MRR@10", "relevance.descriptive.mrr_at_10", "higher", None),
]


def fmt(v, path):
    if v is None:
        return "—"
    if path == "disk.fresh_bytes":
        return "%.0f" % (v / 1e6)
    if isinstance(v, float):
        return "%.3g" % v if v < 100 else "%.0f" % v
    return str(v)


def main():
    objs = [json.load(open(p)) for p in sys.argv[1:]]
    ours, peers = objs[0], objs[1:]
    print("corpus: %s, %s items, %s" % (ours.get("corpus"), ours.get("items"), ours.get("date")))
    head = ["figure", "openspotlight"] + [p.get("peer", "?") for p in peers] + ["goal"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for label, path, better, goal in ROWS:
        mine = get(ours, path)
        cells = [label, fmt(mine, path)]
        for p in peers:
            v = get(p, path)
            cell = fmt(v, path)
            if isinstance(v, (int, float)) and isinstance(mine, (int, float)) and v and mine:
                ratio = (mine / v) if better == "higher" else (v / mine)
                cell += " (ours %.2f×)" % ratio
            cells.append(cell)
        if goal and isinstance(mine, (int, float)):
            cells.append("%s: %s" % (goal[0], "met" if goal[1](mine) else "missed"))
        else:
            cells.append("")
        print("| " + " | ".join(cells) + " |")
    print("\n(ours N× = how many times better ours is than that peer: >1 better, <1 worse)")
    # Engines whose query phases ran on a sample of the query sets, or without a warm-up pass: their latencies and
    # relevance come from those queries only.
    for o in objs:
        settings = o.get("settings") or {}
        sample, warmup = settings.get("sample", 1), settings.get("warmup", 1)
        if sample > 1 or warmup == 0:
            print("(%s: %s%s)" % (o.get("peer", "?"), "every %dth query of each set" % sample if sample > 1 else "every query",
                                  ", no warm-up pass" if warmup == 0 else ""))


if __name__ == "__main__":
    main()
