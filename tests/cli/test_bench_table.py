#!/usr/bin/env python3
"""scripts/bench_table.py on small JSON files in bfs_bench's layout: the table (one row per kernel
and vertex ordering, failed and skipped cells, the source filter) and --compare (each round's
medians, the change of the means, rounds that disagree, a case one side lacks), and clear
failures for an odd number of files, runs from different devices and an unreadable file.

    test_bench_table.py --script scripts/bench_table.py
"""
import argparse
import json
import sys
import tempfile
from pathlib import Path

from checker import Checker


def case(graph, name, ms, ordering="none", status="ok", source_kind="max-degree"):
    return {"graph": graph, "name": name, "ordering": ordering, "status": status, "source_kind": source_kind,
            "seconds_median": ms * 1e-3 if ms else None}


def bench(cases, device="NVIDIA H100 80GB HBM3"):
    return {"tool": "bfs_bench", "date": "2026-11-25T14:39:14Z", "command_line": "bfs_bench test",
            "device": {"name": device}, "cases": cases}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--script", required=True)
    args = ap.parse_args()
    c = Checker(sys.executable, 60)
    check = c.check

    with tempfile.TemporaryDirectory() as tmp:
        def write(name, data):
            path = Path(tmp) / name
            path.write_text(json.dumps(data))
            return str(path)

        def run(*files, extra=()):  # (exit code, stdout, stderr)
            return c.run_timed([args.script, *extra, *files])[:3]

        table = write("table.json", bench([
            case("kron:22:16", "auto", 0.30), case("kron:22:16", "auto", 0.21, ordering="degree"),
            case("grid:2048:2048", "auto", 25.7), case("grid:2048:2048", "auto", 24.8, ordering="degree"),
            case("kron:22:16", "pull", None, status="FAILED"), case("grid:2048:2048", "pull", None, status="skipped"),
            case("kron:22:16", "auto", 9.9, source_kind="random")]))
        r = run(table)
        lines = r[1].splitlines()
        check(r[0] == 0, f"table: exit 0 ({r[0]}, {r[2].strip()})")
        check("| auto | 0.3 | 25.7 |" in lines, "table: the natural order's row, max-degree source only")
        check("| auto, degree order | 0.21 | 24.8 |" in lines, "table: the degree order in a row of its own")
        check("| pull | FAILED | skipped |" in lines, "table: a failed and a skipped cell")
        r = run(table, extra=("--source", "random"))
        check("| auto | 9.9 |" in r[1].splitlines(), "table: --source random (only the graphs it has)")

        def rounds(kron, grid):
            return bench([case("kron:22:16", "auto", kron), case("grid:2048:2048", "auto", grid)])

        b1, a1 = write("b1.json", rounds(0.30, 25.0)), write("a1.json", rounds(0.27, 26.0))
        b2 = write("b2.json", rounds(0.30, 25.0))
        a2 = write("a2.json", bench([case("kron:22:16", "auto", 0.27), case("grid:2048:2048", "auto", 24.0),
                                     case("urand:20:16", "auto", 0.19)]))
        r = run(b1, a1, b2, a2, extra=("--compare",))
        lines = r[1].splitlines()
        check(r[0] == 0, f"compare: exit 0 ({r[0]}, {r[2].strip()})")
        check("| kron:22:16 | none | auto | 0.3 / 0.3 | 0.27 / 0.27 | -10.0% |" in lines,
              "compare: each round's medians and the change of the means")
        check("| grid:2048:2048 | none | auto | 25 / 25 | 26 / 24 | +0.0% (rounds disagree) |" in lines,
              "compare: rounds of opposite signs are flagged")
        check("| urand:20:16 | none | auto | — / — | — / 0.19 | — |" in lines, "compare: a case only one side has")
        r = run(b1, a1, b2, extra=("--compare",))
        check(r[0] == 2 and "even number" in r[2], "compare: an odd number of files is refused")
        other = write("other.json", bench([case("kron:22:16", "auto", 0.5)], device="NVIDIA H200"))
        r = run(b1, other, extra=("--compare",))
        check(r[0] == 2 and "different devices" in r[2], "compare: runs of two devices are refused")
        r = run(b1, str(Path(tmp) / "missing.json"), extra=("--compare",))
        check(r[0] == 2 and "cannot read" in r[2], "compare: an unreadable file is refused")
        r = run(b1, a1)
        check(r[0] == 2 and "one JSON file" in r[2], "table: two files without --compare are refused")

    print(f"{c.passed} passed, {c.failed} failed")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
