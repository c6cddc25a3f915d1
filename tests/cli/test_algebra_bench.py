#!/usr/bin/env python3
"""algebra_bench on the host: the small preset runs every case beside GraphBLAS with matching
answers, the JSON holds every row, and bad options exit 2 before any work."""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    args = ap.parse_args()
    exe = os.path.join(args.bin, "algebra_bench")
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)
            print("FAIL:", what)

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "ab.json")
        p = subprocess.run([exe, "--preset", "small", "--device", "host", "--repeat", "1", "--warmup", "0",
                            "--json", out], capture_output=True, text=True, timeout=900)
        check(p.returncode == 0, f"small preset exits 0 (got {p.returncode}: {p.stderr[-2000:]})")
        data = json.load(open(out))
        rows = data["cases"]
        for graph in ("kron:14:16", "urand:14:16"):
            for case in ("spmv-f32", "spmv-f64", "sssp", "pagerank", "cc", "tc"):
                for impl in ("graphblas", "gbcuda"):
                    match = [r for r in rows if r["graph"] == graph and r["case"] == case and r["impl"] == impl]
                    check(len(match) == 1, f"one row for {graph} {case} {impl}")
                    if match:
                        check(match[0]["status"] == "ok", f"{graph} {case} {impl} ok ({match[0]['note']})")
                        check(match[0]["seconds_median"] is not None and match[0]["seconds_median"] > 0,
                              f"{graph} {case} {impl} has a time")
        pr = [r for r in rows if r["case"] == "pagerank" and r["impl"] == "gbcuda"]
        check(all(r["rounds"] == 20 for r in pr), "PageRank runs 20 iterations")
        tc = [r for r in rows if r["case"] == "tc"]
        check(all(r["note"].endswith("triangles") for r in tc), "the triangle rows name their count")
        lat = [r for r in rows if r["case"].startswith("latency:")]
        check(len(lat) == 5, f"five latency rows (got {len(lat)})")
        check("median ms" in p.stdout and "spmv-f32" in p.stdout, "the table is on stdout")
        check(not [r for r in rows if r["case"] in ("mxm-f64", "ewise-f64")], "mxm-f64 and ewise-f64 run only when named")

        # The SpGEMM case, named: A * A beside GraphBLAS, its entry count and row sums matching.
        out2 = os.path.join(tmp, "mxm.json")
        p = subprocess.run([exe, "grid:40:40", "--cases", "mxm-f64", "--device", "host", "--repeat", "1",
                            "--warmup", "0", "--no-latency", "--json", out2], capture_output=True, text=True,
                           timeout=300)
        check(p.returncode == 0, f"mxm-f64 exits 0 (got {p.returncode}: {p.stderr[-2000:]})")
        mx = json.load(open(out2))["cases"] if p.returncode == 0 else []
        for impl in ("graphblas", "gbcuda"):
            match = [r for r in mx if r["case"] == "mxm-f64" and r["impl"] == impl]
            check(len(match) == 1 and match[0]["status"] == "ok" and " entries, " in match[0]["note"],
                  f"mxm-f64 {impl}: one row, ok, its entry count named ({match})")

        # The element-wise add, named: on a directed graph (rows of different lengths) beside GraphBLAS.
        out3 = os.path.join(tmp, "ewise.json")
        p = subprocess.run([exe, "randout:3000:6", "kron:10:8", "--cases", "ewise-f64", "--device", "host",
                            "--repeat", "1", "--warmup", "0", "--no-latency", "--json", out3], capture_output=True,
                           text=True, timeout=300)
        check(p.returncode == 0, f"ewise-f64 exits 0 (got {p.returncode}: {p.stderr[-2000:]})")
        ew = json.load(open(out3))["cases"] if p.returncode == 0 else []
        for impl in ("graphblas", "gbcuda"):
            match = [r for r in ew if r["case"] == "ewise-f64" and r["impl"] == impl]
            check(len(match) == 2 and all(r["status"] == "ok" and r["note"].endswith(" entries") for r in match),
                  f"ewise-f64 {impl}: a row per graph, ok, its entry count named ({match})")

        p = subprocess.run([exe, "--preset", "small", "--cases", "spmv,nope"], capture_output=True, text=True)
        check(p.returncode == 2 and "unknown case" in p.stderr, f"an unknown case exits 2 ({p.returncode})")
        p = subprocess.run([exe, "--preset", "small", "--json", tmp], capture_output=True, text=True, timeout=60)
        check(p.returncode == 2 and "algebra_bench: loading" not in p.stderr,
              f"--json naming a directory exits 2 before loading ({p.returncode}: {p.stderr[-300:]})")
        p = subprocess.run([exe, "--help"], capture_output=True, text=True)
        check(p.returncode == 0 and "--cases" in p.stdout and "cuSPARSE" in p.stdout, "--help names the options")
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)
    print("all algebra_bench checks passed")


if __name__ == "__main__":
    main()
