#!/usr/bin/env python3
"""Plots bfs_bench's JSON: BFS time per graph for every kernel and baseline, as grouped bars on a
log scale (the median of the timed runs; a tick marks the minimum).

    scripts/plot_performance.py [build/bench.json] [-o build/performance.png] [--source max-degree|random|all]

By default only the highest-degree source is plotted (the issue's targets are for that source);
--source all plots the median over every source's median. Skipped cases are labelled "skipped",
failed ones are drawn hatched in red and labelled "FAILED". Needs matplotlib (pip install matplotlib);
the rest is the standard library.
"""
import argparse
import json
import os
import statistics
import sys

os.environ.setdefault("MPLBACKEND", "Agg")

LABELS = {
    "auto": "gbcuda (auto)",
    "rodinia": "Rodinia two-kernel (GPU baseline)",
    "host": "gbcuda host backend (CPU)",
    "graphblas": "SuiteSparse:GraphBLAS (CPU)",
}


def label(name, kind):
    if name in LABELS:
        return LABELS[name]
    return f"gbcuda {name}" if kind == "kernel" else name


def human(n):
    for unit, div in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= div:
            return f"{n / div:.3g}{unit}"
    return str(n)


def collect(data, which):
    """Returns (graphs in order, series in order, {(graph, series): cell}) where a cell holds the
    median and min seconds (None when not timed) and a status."""
    graphs, series, cells, kinds = [], [], {}, {}
    grouped = {}
    for case in data.get("cases", []):
        if which != "all" and case.get("source_kind") != which:
            continue
        g, s = case["graph"], case["name"]
        if g not in graphs:
            graphs.append(g)
        if s not in series:
            series.append(s)
            kinds[s] = case.get("kind", "")
        grouped.setdefault((g, s), []).append(case)
    for key, cases in grouped.items():
        ok = [c for c in cases if c.get("status") == "ok" and c.get("seconds_median")]
        failed = any(c.get("status") in ("FAILED", "ERROR") for c in cases)
        skipped = all(c.get("status") == "skipped" for c in cases)
        timed = [c for c in cases if c.get("seconds_median")]
        use = ok or timed
        cells[key] = {
            "median": statistics.median(c["seconds_median"] for c in use) if use else None,
            "min": min(c["seconds_min"] for c in use) if use else None,
            "status": "FAILED" if failed else ("skipped" if skipped else "ok"),
        }
    return graphs, series, kinds, cells


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", nargs="?", default="build/bench.json", help="bfs_bench --json output")
    ap.add_argument("-o", "--output", default="build/performance.png", help="the image to write (PNG, SVG, PDF)")
    ap.add_argument("--source", choices=["max-degree", "random", "all"], default="max-degree",
                    help="which sources to plot (default: the highest-degree vertex)")
    args = ap.parse_args()

    try:
        with open(args.json, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        print(f"plot_performance: error: cannot read {args.json}: {e}", file=sys.stderr)
        return 2
    graphs, series, kinds, cells = collect(data, args.source)
    if not graphs:
        print(f"plot_performance: error: {args.json} has no cases for --source {args.source}", file=sys.stderr)
        return 2

    try:
        import matplotlib.pyplot as plt
        from matplotlib.patches import Patch
    except ImportError:
        print("plot_performance: error: matplotlib is missing (pip install matplotlib)", file=sys.stderr)
        return 2

    meta = {g["graph"]: g for g in data.get("graphs", [])}
    width = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(max(8.0, 1.6 * len(graphs) * max(1.0, len(series) / 3)), 6.0))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    times = [c["median"] * 1e3 for c in cells.values() if c["median"]]
    floor = min(times) / 3 if times else 1e-3  # where "skipped" labels sit on the log axis
    handles = []  # one legend entry per series
    for k, s in enumerate(series):
        xs = [i + (k - (len(series) - 1) / 2) * width for i in range(len(graphs))]
        color = colors[k % len(colors)]
        for x, g in zip(xs, graphs):
            cell = cells.get((g, s))
            if cell is None:
                continue
            if cell["median"]:
                failed = cell["status"] == "FAILED"
                ax.bar(x, cell["median"] * 1e3, width, color=color, edgecolor="red" if failed else "none",
                       hatch="//" if failed else None, label=None)
                ax.plot([x - width * 0.4, x + width * 0.4], [cell["min"] * 1e3] * 2, color="black", linewidth=0.8)
                if failed:
                    ax.text(x, cell["median"] * 1e3, "FAILED", rotation=90, ha="center", va="bottom", fontsize=7,
                            color="red")
            else:
                ax.text(x, floor, cell["status"], rotation=90, ha="center", va="bottom", fontsize=7, color="gray")
        handles.append(Patch(color=color, label=label(s, kinds.get(s, ""))))
    ticks = []
    for g in graphs:
        m = meta.get(g, {})
        base = os.path.basename(g) if not m.get("generated", True) else g
        ticks.append(f"{base}\n{human(m['vertices'])} v, {human(m['entries'])} e" if "vertices" in m else base)
    ax.set_xticks(range(len(graphs)))
    ax.set_xticklabels(ticks, fontsize=8)
    ax.set_yscale("log")
    ax.set_ylim(bottom=floor * 0.8)
    ax.set_ylabel("time per BFS, ms (median; tick = min)")
    settings = data.get("settings", {})
    which = {"max-degree": "source = highest-degree vertex", "random": "random sources",
             "all": "median over sources"}[args.source]
    device = data.get("device", {}).get("name", "?")
    ax.set_title(f"BFS time per graph ({which}; {settings.get('repeat', '?')} timed runs)\n"
                 f"{device}, {data.get('date', '')}", fontsize=10)
    ax.grid(axis="y", which="both", alpha=0.3)
    ax.legend(handles=handles, fontsize=8, loc="upper left")
    fig.tight_layout()
    out_dir = os.path.dirname(os.path.abspath(args.output))
    os.makedirs(out_dir, exist_ok=True)
    fig.savefig(args.output, dpi=150)
    print(f"plot_performance: wrote {args.output} ({len(graphs)} graphs, {len(series)} kernels/baselines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
