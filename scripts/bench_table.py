#!/usr/bin/env python3
"""Prints bfs_bench's JSON as a Markdown table for docs/PERFORMANCE.md: one row per kernel or
baseline, one column per graph, each cell the median time of the highest-degree source (ms),
with the device, date and command line above it. Standard library only.

    scripts/bench_table.py build/bench.json [--source max-degree|random|all]
"""
import argparse
import json
import statistics
import sys


def fmt_ms(seconds):
    ms = seconds * 1e3
    return f"{ms:.3g}" if ms < 100 else f"{ms:.0f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json_file")
    ap.add_argument("--source", default="max-degree", choices=["max-degree", "random", "all"])
    args = ap.parse_args()
    try:
        with open(args.json_file) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        print(f"bench_table: cannot read {args.json_file}: {e}", file=sys.stderr)
        return 2
    graphs, rows, cells = [], [], {}
    for case in data.get("cases", []):
        if args.source != "all" and case.get("source_kind") != args.source:
            continue
        g, r = case["graph"], case["name"]
        if g not in graphs:
            graphs.append(g)
        if r not in rows:
            rows.append(r)
        cells.setdefault((r, g), []).append(case)
    device = data.get("device", {}).get("name", "?")
    print(f"{device}, {data.get('date', '?')}: `{data.get('command_line', '?')}`")
    print(f"median ms, source: {args.source}\n")
    print("| kernel / baseline | " + " | ".join(f"`{g}`" for g in graphs) + " |")
    print("|---|" + "---|" * len(graphs))
    for r in rows:
        out = []
        for g in graphs:
            cases = cells.get((r, g), [])
            timed = [c["seconds_median"] for c in cases if c.get("status") == "ok" and c.get("seconds_median")]
            if any(c.get("status") in ("FAILED", "ERROR") for c in cases):
                out.append("FAILED")
            elif timed:
                out.append(fmt_ms(statistics.median(timed)))
            elif cases:
                out.append("skipped")
            else:
                out.append("—")
        print(f"| {r} | " + " | ".join(out) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
