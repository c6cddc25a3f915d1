#!/usr/bin/env python3
"""Prints bfs_bench's JSON as a Markdown table for docs/performance.md: one row per kernel or
baseline (and vertex ordering, where bfs_bench ran --reorder), one column per graph, each cell
the median time of the highest-degree source (ms), with the device, date and command line above
it. Standard library only.

    scripts/bench_table.py build/bench.json [--source max-degree|random|all]

With --compare, an A/B of two builds from runs that alternated them (before, after, before,
after, ...: an order effect, such as a graph measured first after a process starts, then falls on
both sides): one row per graph, ordering and kernel, each round's medians, and the change of the
mean; a row whose rounds disagree in sign says so. The runs must come from one device.

    scripts/bench_table.py --compare before.json after.json [before2.json after2.json ...]
"""
import argparse
import json
import statistics
import sys


def fmt_ms(seconds):
    ms = seconds * 1e3
    return f"{ms:.3g}" if ms < 100 else f"{ms:.0f}"


def read(path):
    """bfs_bench's JSON, or None (with the reason on stderr)."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"bench_table: cannot read {path}: {e}", file=sys.stderr)
        return None


def timed_medians(data, source):
    """{(graph, ordering, kernel): median seconds} of the cases that ran (status ok)."""
    out = {}
    for case in data.get("cases", []):
        if source != "all" and case.get("source_kind") != source:
            continue
        if case.get("status") == "ok" and case.get("seconds_median"):
            key = (case["graph"], case.get("ordering", "none"), case["name"])
            out.setdefault(key, []).append(case["seconds_median"])
    return {k: statistics.median(v) for k, v in out.items()}


def compare(paths, source):
    if len(paths) < 2 or len(paths) % 2:
        print("bench_table: --compare takes an even number of JSON files: before, after, before, after, ...",
              file=sys.stderr)
        return 2
    runs = [read(p) for p in paths]
    if any(r is None for r in runs):
        return 2
    devices = sorted({r.get("device", {}).get("name", "?") for r in runs})
    if len(devices) > 1:
        print(f"bench_table: the runs come from different devices ({', '.join(devices)}): no A/B",
              file=sys.stderr)
        return 2
    before = [timed_medians(r, source) for r in runs[0::2]]
    after = [timed_medians(r, source) for r in runs[1::2]]
    keys = []
    for m in before + after:
        keys += [k for k in m if k not in keys]
    print(f"{devices[0]}; before: {', '.join(paths[0::2])}; after: {', '.join(paths[1::2])}")
    print(f"median ms per round (runs alternated), source: {source}\n")
    print("| graph | ordering | kernel | before | after | change |")
    print("|---|---|---|---|---|---|")
    for k in keys:
        b = [m.get(k) for m in before]
        a = [m.get(k) for m in after]
        cells = [" / ".join(fmt_ms(x) if x else "—" for x in side) for side in (b, a)]
        pairs = [(x, y) for x, y in zip(b, a) if x and y]
        if not pairs:
            change = "—"
        else:
            mean_b = statistics.mean(x for x, _ in pairs)
            mean_a = statistics.mean(y for _, y in pairs)
            change = f"{100 * (mean_a / mean_b - 1):+.1f}%"
            signs = {(y > x) - (y < x) for x, y in pairs}
            if len(pairs) > 1 and {1, -1} <= signs:
                change += " (rounds disagree)"
        print(f"| {k[0]} | {k[1]} | {k[2]} | {cells[0]} | {cells[1]} | {change} |")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json_file", nargs="+")
    ap.add_argument("--source", default="max-degree", choices=["max-degree", "random", "all"])
    ap.add_argument("--compare", action="store_true", help="an A/B of alternated runs (see above)")
    args = ap.parse_args()
    if args.compare:
        return compare(args.json_file, args.source)
    if len(args.json_file) != 1:
        print("bench_table: one JSON file (or --compare with several)", file=sys.stderr)
        return 2
    args.json_file = args.json_file[0]
    data = read(args.json_file)
    if data is None:
        return 2
    graphs, rows, cells = [], [], {}
    for case in data.get("cases", []):
        if args.source != "all" and case.get("source_kind") != args.source:
            continue
        g, r = case["graph"], case["name"]
        if case.get("ordering", "none") != "none":  # one row per kernel and ordering, never mixed
            r = f"{r}, {case['ordering']} order"
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
