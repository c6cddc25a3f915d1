#!/usr/bin/env python3
"""scripts/ncu-levels-table.py on a small CSV in the layout ncu writes (the profiled program's own
output first, then the header, then one row per launch and metric): the values of each launch,
the L1 hit rate it derives, and a clear failure for a file without an ncu table.

    test_ncu_table.py --script scripts/ncu-levels-table.py
"""
import argparse
import sys
import tempfile
from pathlib import Path

from checker import Checker

HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
          '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"')


def row(launch, metric, unit, value):
    return (f'"{launch}","1","bfs_spmv","127.0.0.1","product_kernel","1","13","(1024, 1, 1)","(132, 1, 1)",'
            f'"0","9.0","Command line profiler metrics","{metric}","{unit}","{value}"')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--script", required=True)
    args = ap.parse_args()
    c = Checker(sys.executable, 60)
    check = c.check

    lines = ["==PROF== Connected to process 1", "time:       0.5 s per BFS", HEADER]
    for launch, us, hits, sectors, l2 in [(0, "37,888", "0", "150,000", "7.87"), (1, "199,500", "8,379,381", "16,950,000", "51.63")]:
        lines += [row(launch, "gpu__time_duration.sum", "ns", us),
                  row(launch, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum", "sector", hits),
                  row(launch, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sector", sectors),
                  row(launch, "lts__throughput.avg.pct_of_peak_sustained_elapsed", "%", l2),
                  row(launch, "dram__bytes_read.sum", "byte", "n/a")]
    with tempfile.TemporaryDirectory() as d:
        csv_path = Path(d) / "ncu-g-none.csv"
        csv_path.write_text("\n".join(lines) + "\n")
        r = c.run_timed([args.script, csv_path])  # (exit code, stdout, stderr, seconds)
        check(r[0] == 0, f"a table is printed (exit {r[0]}, stderr {r[2].strip()!r})")
        out = r[1].splitlines()
        head = out[1].split() if len(out) > 1 else []
        check(head[:2] == ["id", "us"] and "L1_hit%" in head and "L2%" in head, f"header names the columns: {head}")
        rows = {int(cells[0]): cells for cells in (l.split() for l in out[2:]) if cells}
        check(sorted(rows) == [0, 1], f"one line per launch: {sorted(rows)}")
        if sorted(rows) == [0, 1] and "L1_hit%" in head:
            col = {h: i for i, h in enumerate(head)}
            check(rows[0][col["us"]] == "37.89" and rows[1][col["us"]] == "199.50", "durations in us")
            check(rows[1][col["L1_hit%"]] == "49.44", f"L1 hit rate = hits / sectors: {rows[1][col['L1_hit%']]}")
            check(rows[0][col["L1_hit%"]] == "0.00", "no hits: 0%")
            check(rows[1][col["L2%"]] == "51.63", "L2 throughput as given")
            check(rows[1][col["dram_MB"]] == "nan", "a value ncu could not give (n/a) shows as nan")

        err_path = Path(d) / "ncu-g-none.err"
        err_path.write_text("==ERROR== the profiler failed\n")
        r = c.run_timed([args.script, err_path])
        check(r[0] != 0 and "no ncu CSV header" in r[2], f"a file without a table fails clearly: {r[2].strip()!r}")
        check(r[1] == "", "and prints no table")
    print(f"{c.passed} passed, {c.failed} failed")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
