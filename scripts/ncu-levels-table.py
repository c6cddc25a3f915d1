#!/usr/bin/env python3
"""One line per profiled launch from the CSV that scripts/gpu-ncu-levels.sh writes.

    scripts/ncu-levels-table.py ncu-urand_22_16-none.csv [more.csv ...]

Columns: launch id, duration (us), DRAM read (MB) and % of peak, L2 throughput %, L2 requests
from L1 (millions), L1 hit rate of global loads (%), L1 global-load sectors (millions), warps
resident (% of peak), issue slots used (%), L2 atomic requests (millions). The program's own
output before the CSV header is skipped.
"""
import csv
import io
import sys

COLUMNS = [  # (header, metric, scale)
    ("us", "gpu__time_duration.sum", 1e-3),
    ("dram_MB", "dram__bytes_read.sum", 1e-6),
    ("dram%", "dram__throughput.avg.pct_of_peak_sustained_elapsed", 1),
    ("L2%", "lts__throughput.avg.pct_of_peak_sustained_elapsed", 1),
    ("L2_req_M", "lts__t_requests_srcunit_tex.sum", 1e-6),
    ("L1_hit%", None, 1),
    ("L1_sect_M", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 1e-6),
    ("warps%", "sm__warps_active.avg.pct_of_peak_sustained_active", 1),
    ("issue%", "smsp__issue_active.avg.pct_of_peak_sustained_active", 1),
    ("atom_M", "lts__t_requests_srcunit_tex_op_atom.sum", 1e-6),
]


def launches(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    start = text.find('"ID"')
    if start < 0:
        sys.exit(f"{path}: no ncu CSV header (did ncu fail? see the .err file beside it)")
    out = {}
    for row in csv.DictReader(io.StringIO(text[start:])):
        value = row["Metric Value"].replace(",", "")
        try:
            out.setdefault(int(row["ID"]), {})[row["Metric Name"]] = float(value)
        except ValueError:
            pass  # "n/a" and the like
    return out


def main(paths):
    if not paths:
        sys.exit(__doc__)
    for path in paths:
        table = launches(path)
        print(path)
        print(" id " + " ".join(f"{h:>9}" for h, _, _ in COLUMNS))
        for i, m in sorted(table.items()):
            cells = []
            for _, metric, scale in COLUMNS:
                if metric is None:  # L1 hit rate of global loads
                    sectors = m.get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 0)
                    hits = m.get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum", 0)
                    v = 100 * hits / sectors if sectors else float("nan")
                else:
                    v = m.get(metric, float("nan")) * scale
                cells.append(f"{v:9.2f}")
            print(f"{i:3d} " + " ".join(cells))


if __name__ == "__main__":
    main(sys.argv[1:])
