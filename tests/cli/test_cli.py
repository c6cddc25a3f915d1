#!/usr/bin/env python3
"""Checks bfs_spmv's behaviour: exit codes, output files, JSON, and the BFS answers for the samples.

Expected answers come from matrices/README.md ("BFS from 0" column and "BFS level sizes" list).
Standard library only. Usage (as tests/CMakeLists.txt runs it):
    test_cli.py --bin build/bin --matrices matrices --readme matrices/README.md
"""
import argparse
import bz2
import gzip
import json
import lzma
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time

from checker import Checker

OPTIONS = ["--source", "--device", "--direction", "--format", "--transpose", "--symmetrize", "--levels",
           "--parents", "--repeat", "--validate", "--json", "--verbose", "--help", "--kernel", "--save", "--index-base",
           "--header", "--reorder", "--no-barrier-free-tail", "--partitions", "--transport", "--gpus", "--multi-source"]
JSON_KEYS = ["file", "format", "vertices", "entries", "source", "source_choice", "source_seed", "reached", "levels", "device", "backend", "direction", "kernel",
             "level_loop", "barrier_free_tail", "barrier_free_from", "barrier_free_abandoned", "repeat", "seconds_median", "seconds_min", "gteps", "edges_traversed", "edges_counted_as",
             "validated", "level_sizes", "ordering", "ordering_from", "ordering_seconds", "partitions", "transport",
             "graph_bytes", "graph_bytes_per_entry", "build_seconds", "build_peak_device_bytes", "peak_device_bytes"]
RUN_TIMEOUT = 120  # seconds for one bfs_spmv run
# Every --kernel name (gbcuda::bfs_kernels(), then algebra); auto, pull and algebra also run on the host.
KERNELS = ["auto", "pull", "queue-warp", "queue-block", "queue-global", "single-block", "algebra"]
HOST_KERNELS = ["auto", "pull", "algebra"]


class CliChecker(Checker):
    def __init__(self, exe):
        super().__init__(exe, RUN_TIMEOUT)

    def run(self, args):
        """Runs bfs_spmv; returns (exit code, stdout, stderr). Exit code None on timeout."""
        return self.run_timed(args)[:3]

    def expect_exit(self, name, args, code, stdout_json=False):
        rc, out, err = self.run(args)
        detail = f"args {args}: exit {rc}, expected {code}; stderr: {err.strip()[-600:]}"
        ok = self.check(rc == code, f"{name}: exit code {code}", detail)
        if ok and code != 0:
            self.check("bfs_spmv: error:" in err, f"{name}: stderr says 'bfs_spmv: error:'", err.strip()[-600:])
            self.check(out.strip() == "", f"{name}: nothing on stdout on failure", out[:300])
        if ok and code == 0 and stdout_json:
            try:
                return json.loads(out)
            except ValueError as e:
                self.check(False, f"{name}: stdout is one JSON object", f"{e}: {out[:300]}")
        return out if ok else None


def parse_readme(path):
    """Returns {file: {"levels": L, "reached": R, "sizes": [...] or None, "first": [...], "last": [...]}}."""
    text = open(path, encoding="utf-8").read()
    expected = {}
    for line in text.splitlines():
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        name = cells[0].strip("`")
        for c in cells:
            m = re.fullmatch(r"(\d+) \(ecc \d+\) / ([\d,]+)", c)
            if m:
                expected[name] = {"levels": int(m.group(1)), "reached": int(m.group(2).replace(",", "")),
                                  "sizes": None, "first": None, "last": None}
                break
    for line in text.splitlines():
        m = re.match(r"- `([^`]+)`: (.*)$", line.strip())
        if not m or m.group(1) not in expected:
            continue
        e, rest = expected[m.group(1)], m.group(2)
        full = re.fullmatch(r"\[([\d, ]*)\]", rest)
        if full:
            e["sizes"] = [int(x) for x in full.group(1).split(",") if x.strip()]
            continue
        part = re.fullmatch(r"(\d+) levels; first (\d+) \[([\d, ]*)\], last (\d+) \[([\d, ]*)\]", rest)
        if part:
            e["first"] = [int(x) for x in part.group(3).split(",")]
            e["last"] = [int(x) for x in part.group(5).split(",")]
    return expected


def read_column(path):
    with open(path, encoding="ascii") as f:
        return [int(x) for x in f.read().split()]


def sizes_from_levels(levels):
    if not levels or max(levels) < 0:
        return []
    sizes = [0] * (max(levels) + 1)
    for lv in levels:
        if lv >= 0:
            sizes[lv] += 1
    return sizes


def read_arcs(path):
    """Arcs of a sample graph as a set of (i, j), 0-based, for the parent-edge check. None when the file
    is in a format this small reader does not handle (then only the levels of parents are checked)."""
    arcs = set()
    with open(path, encoding="ascii", errors="replace") as f:
        lines = f.read().splitlines()
    if not lines:
        return None
    if lines[0].startswith("%%MatrixMarket"):
        words = lines[0].lower().split()
        if len(words) < 5 or words[2] != "coordinate":
            return None
        symmetric = words[4] != "general"
        body = [ln for ln in lines[1:] if ln.strip() and not ln.startswith("%")][1:]
        for ln in body:
            i, j = (int(x) - 1 for x in ln.split()[:2])
            arcs.add((i, j))
            if symmetric:
                arcs.add((j, i))
        return arcs
    if path.endswith(".rodinia.txt"):
        toks = [int(x) for x in " ".join(lines).split()]
        n = toks[0]
        starts = toks[1:1 + 2 * n:2]
        degrees = toks[2:2 + 2 * n:2]
        m = toks[1 + 2 * n + 1]
        dests = toks[1 + 2 * n + 2::2][:m]
        for v in range(n):
            for k in range(starts[v], starts[v] + degrees[v]):
                arcs.add((v, dests[k]))
        return arcs
    first = lines[0].split()
    if len(first) == 3 and all(x.isdigit() for x in first):  # headerless: "rows cols nnz" then 1-based
        for ln in lines[1:]:
            if ln.strip():
                i, j = (int(x) - 1 for x in ln.split()[:2])
                arcs.add((i, j))
        return arcs
    return None


def check_parents(c, name, levels, parents, source, arcs):
    if not c.check(len(parents) == len(levels), f"{name}: parents file has one line per vertex",
                   f"{len(parents)} lines, {len(levels)} vertices"):
        return
    problems = []
    if parents[source] != source:
        problems.append(f"parent[source={source}] = {parents[source]}")
    for v, (lv, p) in enumerate(zip(levels, parents)):
        if len(problems) >= 5:
            break
        if v == source:
            continue
        if lv < 0:
            if p != -1:
                problems.append(f"unreached vertex {v} has parent {p}")
        elif not 0 <= p < len(levels):
            problems.append(f"vertex {v} (level {lv}) has parent {p}, out of range")
        elif levels[p] != lv - 1:
            problems.append(f"vertex {v} (level {lv}) has parent {p} at level {levels[p]}")
        elif arcs is not None and (p, v) not in arcs:
            problems.append(f"vertex {v} has parent {p} but there is no edge {p} -> {v}")
    c.check(not problems, f"{name}: parents are valid", "; ".join(problems))


def check_answer(c, name, result, levels, exp):
    """result: the parsed JSON; levels: the --levels file's content; exp: the README's answer."""
    sizes = sizes_from_levels(levels)
    c.check(len(sizes) == exp["levels"], f"{name}: {exp['levels']} levels in the levels file", f"got {len(sizes)}")
    reached = sum(1 for lv in levels if lv >= 0)
    c.check(reached == exp["reached"], f"{name}: {exp['reached']} vertices reached (levels file)", f"got {reached}")
    if exp.get("sizes") is not None:
        c.check(sizes == exp["sizes"], f"{name}: level sizes", f"got {sizes}, expected {exp['sizes']}")
    if exp.get("first") is not None:
        c.check(sizes[:len(exp["first"])] == exp["first"] and sizes[-len(exp["last"]):] == exp["last"],
                f"{name}: first/last level sizes", f"got {sizes[:10]} ... {sizes[-5:]}")
    if result is not None:
        c.check(result.get("levels") == exp["levels"] and result.get("reached") == exp["reached"],
                f"{name}: JSON levels/reached", f"got {result.get('levels')}/{result.get('reached')}")
        c.check(result.get("level_sizes") == sizes, f"{name}: JSON level_sizes match the levels file")
        c.check(result.get("vertices") == len(levels), f"{name}: levels file has one line per vertex",
                f"{len(levels)} lines, {result.get('vertices')} vertices")


def built_with_cuda(c):
    return "CUDA backend: yes" in c.run(["--version"])[1]


def have_gpu():
    if shutil.which("nvidia-smi") is None:
        return False
    try:
        return subprocess.run(["nvidia-smi", "-L"], capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def write(path, text):
    with open(path, "w", encoding="ascii") as f:
        f.write(text)
    return path


def test_usage_and_input_errors(c, tmp, matrices, gpu):
    karate = os.path.join(matrices, "karate.mtx")
    c.expect_exit("unknown option", ["--no-such-option", karate], 2)
    c.expect_exit("missing file", [os.path.join(tmp, "does-not-exist.mtx")], 2)
    c.expect_exit("bad --format", [karate, "--format", "xml"], 2)
    c.expect_exit("bad --device", [karate, "--device", "tpu"], 2)
    c.expect_exit("bad --direction", [karate, "--direction", "sideways"], 2)
    c.expect_exit("--repeat 0", [karate, "--repeat", "0"], 2)
    c.expect_exit("--transpose with --symmetrize", [karate, "--transpose", "--symmetrize"], 2)
    c.expect_exit("source out of range", [karate, "--source", "34"], 2)
    rc, _, err = c.run([karate, "--source", "1000"])
    c.check(rc == 2 and "33" in err, "source out of range: message gives the range", err.strip())
    c.expect_exit("negative source", [karate, "--source", "-1"], 2)
    c.expect_exit("negative source (=)", [karate, "--source=-5"], 2)
    c.expect_exit("non-numeric source", [karate, "--source", "abc"], 2)

    bad = {
        "truncated mtx": "%%MatrixMarket matrix coordinate pattern general\n5 5 4\n1 2\n2 3\n3",
        "index out of range": "%%MatrixMarket matrix coordinate pattern general\n5 5 3\n1 2\n2 6\n3 4\n",
        "zero index": "%%MatrixMarket matrix coordinate pattern general\n5 5 2\n0 1\n2 3\n",
        "entry count mismatch (too few)": "%%MatrixMarket matrix coordinate pattern general\n5 5 6\n1 2\n2 3\n",
        "entry count mismatch (too many)": "%%MatrixMarket matrix coordinate pattern general\n5 5 1\n1 2\n2 3\n",
        "unsupported header": "%%MatrixMarket matrix coordinate quaternion general\n3 3 1\n1 2 1 1 1 1\n",
        "not a number": "%%MatrixMarket matrix coordinate pattern general\n5 5 1\none two\n",
        "empty file": "",
        "empty graph (0x0)": "%%MatrixMarket matrix coordinate pattern general\n0 0 0\n",
        "non-square matrix": "%%MatrixMarket matrix coordinate pattern general\n3 4 2\n1 2\n2 4\n",
    }
    for i, (name, text) in enumerate(bad.items()):
        path = write(os.path.join(tmp, f"bad{i}.mtx"), text)
        out = os.path.join(tmp, f"bad{i}.levels")
        c.expect_exit(name, [path, "--device", "host", "--levels", out], 2)
        c.check(not os.path.exists(out), f"{name}: no levels file written on failure")
    # An explicit format that does not fit the file.
    c.expect_exit("--format rodinia on a Matrix Market file", [karate, "--format", "rodinia"], 2)

    # Output files must not appear when the run fails after reading.
    lv, pa = os.path.join(tmp, "fail.levels"), os.path.join(tmp, "fail.parents")
    c.expect_exit("bad source with output files", [karate, "--source", "99", "--levels", lv, "--parents", pa], 2)
    c.check(not os.path.exists(lv) and not os.path.exists(pa), "bad source: no output files written")

    if gpu and built_with_cuda(c):
        c.expect_exit("--device cuda with a GPU", [karate, "--device", "cuda"], 0)
    else:
        why = "in a build without CUDA" if gpu else "without a GPU"
        rc, out, err = c.run([karate, "--device", "cuda"])
        c.check(rc == 2, f"--device cuda {why}: exit 2", f"exit {rc}; stderr: {err.strip()}")
        c.check("bfs_spmv: error:" in err and out.strip() == "", f"--device cuda {why}: error on stderr only",
                err.strip())


def test_help_and_defaults(c, tmp, matrices, gpu):
    rc, out, err = c.run(["--version"])
    c.check(rc == 0 and "gbcuda" in out and "CUDA backend:" in out, "--version exits 0 and says whether CUDA is built in",
            f"exit {rc}: {out.strip()} {err.strip()}")
    rc, out, err = c.run(["--help"])
    c.check(rc == 0, "--help exits 0", f"exit {rc}; {err}")
    missing = [o for o in OPTIONS if o not in out]
    c.check(not missing, "--help mentions every option", f"missing {missing}")
    words = ["auto", "cuda", "host", "push", "pull", "mtx", "headerless", "rodinia", "edgelist", "gbc", "metis", "dimacs", "gzip", "kron:",
             "grid:", "Exit codes"]
    missing = [w for w in words if w not in out]
    c.check(not missing, "--help names devices, directions, formats and exit codes", f"missing {missing}")

    rc, out, err = c.run([])
    c.check(rc == 0, "no arguments: runs on the bundled matrix, exit 0", f"exit {rc}; {err.strip()[-600:]}")
    c.check("delaunay_n10" in out, "no arguments: summary names the bundled matrix", out[:400])
    c.check("stored directed entries in the rows of reached vertices" in out,
            "text summary says how edges are counted", out[:800])
    c.check("GTEPS" in out, "text summary reports GTEPS", out[:800])
    res = c.expect_exit("bundled matrix with --json", ["--json", "--device", "host"], 0, stdout_json=True)
    if isinstance(res, dict):
        c.check(res.get("levels") == 18 and res.get("reached") == 1024, "bundled matrix: 18 levels, 1024 reached",
                f"got {res.get('levels')}/{res.get('reached')}")

    karate = os.path.join(matrices, "karate.mtx")
    res = c.expect_exit("--json keys", [karate, "--json", "--repeat", "3", "--validate"], 0, stdout_json=True)
    if isinstance(res, dict):
        missing = [k for k in JSON_KEYS if k not in res]
        c.check(not missing, "--json has every key", f"missing {missing}")
        c.check(res.get("repeat") == 3 and res.get("validated") is True and res.get("source") == 0,
                "--json: repeat, validated, source", json.dumps(res)[:400])
        c.check(res.get("vertices") == 34 and res.get("entries") == 156, "--json: karate 34 vertices, 156 entries",
                f"{res.get('vertices')} / {res.get('entries')}")
        c.check(res.get("edges_traversed") == 156, "--json: edges_traversed = 156 (all rows reached)",
                str(res.get("edges_traversed")))
        c.check(isinstance(res.get("seconds_median"), (int, float)) and res["seconds_median"] >= 0,
                "--json: seconds_median is a number")
        # karate's CSR: 35 row offsets of 8 bytes and 156 columns of 4.
        c.check(res.get("graph_bytes") == 35 * 8 + 156 * 4 and
                abs(res.get("graph_bytes_per_entry", 0) - (35 * 8 + 156 * 4) / 156) < 1e-9,
                "--json: graph_bytes and graph_bytes_per_entry of karate's CSR",
                f"{res.get('graph_bytes')} / {res.get('graph_bytes_per_entry')}")
        if res.get("backend") == "cuda":
            c.check(isinstance(res.get("peak_device_bytes"), int) and res["peak_device_bytes"] >= res.get("graph_bytes", 0)
                    and res.get("build_peak_device_bytes", 0) >= res.get("graph_bytes", 0),
                    "--json on the GPU: the peaks hold at least the graph", json.dumps(res)[:400])
        else:
            c.check(res.get("peak_device_bytes") is None and res.get("build_peak_device_bytes") is None,
                    "--json on the host: no device peaks", json.dumps(res)[:400])
        if not gpu or not built_with_cuda(c):
            c.check(res.get("backend") == "host", "--device auto without a GPU (or CUDA build) runs on the host",
                    str(res.get("backend")))
    res = c.expect_exit("--json without --validate", [karate, "--json"], 0, stdout_json=True)
    if isinstance(res, dict):
        c.check("validated" in res and res["validated"] is None, "--json: validated is null without --validate")

    rc, out, err = c.run([karate, "--device", "host", "--verbose"])
    c.check(rc == 0 and re.search(r"^level\s+1\b", err, re.M) is not None, "--verbose prints per-level lines on stderr",
            err[-600:])
    c.check(re.search(r"^level\s+1\b", out, re.M) is None, "--verbose keeps per-level lines off stdout", out[:400])


def test_samples(c, tmp, matrices, expected):
    arcs_cache = {}
    for name, exp in expected.items():
        path = os.path.join(matrices, name)
        if not c.check(os.path.isfile(path), f"{name}: sample present in {matrices}"):
            continue
        if exp["sizes"] is None and exp["first"] is None:
            c.check(False, f"{name}: README lists its level sizes")
        for device in ["host", "auto"]:
            for direction in ["auto", "push", "pull"]:
                tag = f"{name} --device {device} --direction {direction}"
                lv = os.path.join(tmp, "out.levels")
                pa = os.path.join(tmp, "out.parents")
                for f in (lv, pa):
                    if os.path.exists(f):
                        os.remove(f)
                res = c.expect_exit(tag, [path, "--device", device, "--direction", direction, "--levels", lv,
                                          "--json"], 0, stdout_json=True)
                if isinstance(res, dict) and c.check(os.path.isfile(lv), f"{tag}: levels file written"):
                    check_answer(c, tag, res, read_column(lv), exp)
                    c.check(res.get("direction") == direction, f"{tag}: JSON direction", str(res.get("direction")))
                tag += " --parents --validate"
                res = c.expect_exit(tag, [path, "--device", device, "--direction", direction, "--levels", lv,
                                          "--parents", pa, "--validate", "--json"], 0, stdout_json=True)
                if isinstance(res, dict) and c.check(os.path.isfile(pa), f"{tag}: parents file written"):
                    levels = read_column(lv)
                    check_answer(c, tag, res, levels, exp)
                    c.check(res.get("validated") is True, f"{tag}: validated")
                    if name not in arcs_cache:
                        arcs_cache[name] = read_arcs(path)
                    check_parents(c, tag, levels, read_column(pa), 0, arcs_cache[name])


def test_partitions(c, tmp, matrices, expected, gpu):
    """--partitions P: the partitioned search (loopback transport) gives every sample's levels and a
    valid parent for each reached vertex on the host and, with a GPU, on it; the flags it cannot
    take are usage errors."""
    arcs_cache = {}
    for name, exp in expected.items():
        path = os.path.join(matrices, name)
        for device in ["host", "cuda"] if gpu else ["host"]:
            for parts in [1, 3]:
                tag = f"{name} --device {device} --partitions {parts}"
                lv = os.path.join(tmp, "part.levels")
                pa = os.path.join(tmp, "part.parents")
                res = c.expect_exit(tag, [path, "--device", device, "--partitions", str(parts), "--levels", lv,
                                          "--parents", pa, "--validate", "--json"], 0, stdout_json=True)
                if isinstance(res, dict) and c.check(os.path.isfile(lv) and os.path.isfile(pa),
                                                     f"{tag}: levels and parents files written"):
                    levels = read_column(lv)
                    check_answer(c, tag, res, levels, exp)
                    c.check(res.get("validated") is True, f"{tag}: validated")
                    if name not in arcs_cache:
                        arcs_cache[name] = read_arcs(path)
                    check_parents(c, tag, levels, read_column(pa), 0, arcs_cache[name])
                    c.check(res.get("partitions") == parts and res.get("transport") == "loopback"
                            and res.get("level_loop") == "partitioned", f"{tag}: JSON names the partitioned search",
                            str({k: res.get(k) for k in ("partitions", "transport", "level_loop")}))
    karate = os.path.join(matrices, "karate.mtx")
    for args, what in [(["--partitions", "2", "--kernel", "pull"], "--kernel"),
                       (["--partitions", "2", "--direction", "push"], "--direction"),
                       (["--partitions", "0"], "0 parts"),
                       (["--transport", "nccl"], "--transport without --partitions"),
                       (["--gpus", "0,1"], "--gpus without --partitions"),
                       (["--partitions", "2", "--transport", "nccl", "--device", "host"], "nccl on the host"),
                       (["--partitions", "2", "--transport", "mpi"], "unknown transport")]:
        c.expect_exit(f"--partitions: {what} is a usage error", [karate, *args], 2)


def test_multi_source(c, tmp, matrices, gpu):
    """--multi-source K: K random sources in one multi-source BFS; --validate checks each against its own
    BFS; the flags it cannot take are usage errors."""
    for device in ["host", "cuda"] if gpu else ["host"]:
        for k in [1, 34, 70]:  # 70 > 34 vertices: as many as have out-edges; 2 passes never happen here
            tag = f"karate --multi-source {k} --device {device}"
            res = c.expect_exit(tag, [os.path.join(matrices, "karate.mtx"), "--multi-source", str(k), "--device", device,
                                      "--validate", "--json", "--source", "random:7"], 0, stdout_json=True)
            if isinstance(res, dict):
                want = min(k, 34)
                c.check(res.get("multi_source") == want and len(res.get("sources", [])) == want
                        and len(set(res["sources"])) == want, f"{tag}: {want} distinct sources", str(res.get("sources")))
                c.check(res.get("validated") is True and res.get("reached_mean") == 34 and res.get("passes") == 1
                        and res.get("source_seed") == 7, f"{tag}: validated, every search reaches all 34",
                        str({k2: res.get(k2) for k2 in ("validated", "reached_mean", "passes", "source_seed")}))
        rc, out, err = c.run([os.path.join(matrices, "bcsstk13.mtx"), "--multi-source", "100", "--device", device,
                              "--validate"])
        c.check(rc == 0 and "100 searches in 2 passes" in out and "validated:  yes" in out,
                f"bcsstk13 --multi-source 100 --device {device}: 2 passes, validated", out[-400:] + err[-400:])
    karate = os.path.join(matrices, "karate.mtx")
    for args, what in [(["--multi-source", "4", "--kernel", "pull"], "--kernel"),
                       (["--multi-source", "4", "--source", "3"], "--source N"),
                       (["--multi-source", "4", "--levels", os.path.join(tmp, "l.out")], "--levels"),
                       (["--multi-source", "4", "--partitions", "2"], "--partitions"),
                       (["--multi-source", "0"], "0 sources")]:
        c.expect_exit(f"--multi-source: {what} is a usage error", [karate, *args], 2)


def test_transforms(c, tmp, matrices):
    cases = [
        ("west0067.mtx", ["--transpose"], {"levels": 5, "reached": 67}),
        ("cavity02_headerless.txt", ["--symmetrize"], {"levels": 6, "reached": 317}),
        ("cavity02_headerless.txt", ["--transpose"], {"levels": 6, "reached": 237}),
        ("cavity02_headerless.txt", ["--source", "4"], {"levels": 5, "reached": 317}),
        ("cryg2500.mtx", ["--transpose"], {"levels": 98, "reached": 2500}),
    ]
    for name, extra, exp in cases:
        path = os.path.join(matrices, name)
        if not os.path.isfile(path):
            c.check(False, f"{name}: sample present in {matrices}")
            continue
        for direction in ["push", "pull", "auto"]:
            tag = f"{name} {' '.join(extra)} --direction {direction}"
            lv = os.path.join(tmp, "t.levels")
            res = c.expect_exit(tag, [path, *extra, "--device", "host", "--direction", direction, "--levels", lv,
                                      "--validate", "--json"], 0, stdout_json=True)
            if isinstance(res, dict):
                check_answer(c, tag, res, read_column(lv), exp)
    # Explicit formats give the same answers as detection.
    for name, fmt_name in [("karate.mtx", "mtx"), ("cavity02_headerless.txt", "headerless"),
                           ("graph4096.rodinia.txt", "rodinia")]:
        path = os.path.join(matrices, name)
        if os.path.isfile(path):
            res = c.expect_exit(f"{name} --format {fmt_name}", [path, "--format", fmt_name, "--json"], 0,
                                stdout_json=True)
            if isinstance(res, dict):
                c.check(res.get("vertices") is not None, f"{name} --format {fmt_name}: ran")
    # A Rodinia file names its source (here 1: path 0 -> 1 -> 2); --source overrides it.
    rod = write(os.path.join(tmp, "t.rodinia.txt"), "3\n0 1\n1 1\n2 0\n\n1\n\n2\n1 1\n2 1\n")
    res = c.expect_exit("Rodinia source", [rod, "--json"], 0, stdout_json=True)
    if isinstance(res, dict):
        c.check(res.get("source") == 1 and res.get("reached") == 2, "Rodinia file: its source is the default",
                f"source {res.get('source')}, reached {res.get('reached')}")
    res = c.expect_exit("Rodinia --source 0", [rod, "--source", "0", "--json"], 0, stdout_json=True)
    if isinstance(res, dict):
        c.check(res.get("source") == 0 and res.get("reached") == 3, "Rodinia file: --source overrides its source",
                f"source {res.get('source')}, reached {res.get('reached')}")
    # An edge list (0-based) written here: 0-1, 1-2, 2-3 directed, and an isolated vertex 4.
    el = write(os.path.join(tmp, "small.edges"), "# tiny\n0 1\n1 2\n2 3\n4 4\n")
    lv = os.path.join(tmp, "el.levels")
    res = c.expect_exit("edge list", [el, "--format", "edgelist", "--levels", lv, "--json"], 0, stdout_json=True)
    if isinstance(res, dict):
        c.check(read_column(lv) == [0, 1, 2, 3, -1], "edge list: levels", str(read_column(lv)))


def run_piped(c, args, data, timeout=RUN_TIMEOUT):
    """Runs bfs_spmv with `data` (bytes) on its stdin; returns (exit code, stdout, stderr)."""
    try:
        p = subprocess.run([c.exe] + args, input=data, capture_output=True, timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return None, "", f"timed out after {timeout} s"


def test_inputs(c, tmp, matrices):
    """Issue 9: no silent wrong answer on any input -- banners slightly off, pipes, METIS, index bases,
    binary data. Each case checks the exit code, and for a graph read, its answer."""
    def json_run(tag, args, code=0):
        rc, out, err = c.run(args + ["--json", "--device", "host"])
        if not c.check(rc == code, f"{tag}: exit {code}", f"exit {rc}; stderr: {err.strip()[-600:]}"):
            return None, err
        if code != 0:
            c.check("bfs_spmv: error:" in err and out.strip() == "", f"{tag}: error on stderr only", err[-400:])
            return None, err
        try:
            return json.loads(out), err
        except ValueError as e:
            c.check(False, f"{tag}: stdout is one JSON object", f"{e}: {out[:300]}")
            return None, err

    # A symmetric path 0-1-2: all three reached from 0. Read as a headerless general file (the old
    # behaviour for a banner with one '%'), only vertex 0 would be.
    path_body = "3 3 2\n2 1\n3 2\n"
    for tag, head in [("one %", "%MatrixMarket"), ("three %", "%%%MatrixMarket"), ("space", "%% MatrixMarket"),
                      ("after a comment", "% data set X\n%%MatrixMarket")]:
        f = write(os.path.join(tmp, "banner.txt"), head + " matrix coordinate pattern symmetric\n" + path_body)
        res, err = json_run(f"banner {tag}", [f])
        if res:
            c.check(res.get("format") == "mtx" and res.get("reached") == 3 and res.get("entries") == 4,
                    f"banner {tag}: read as Matrix Market, symmetric", json.dumps(res)[:300])
            c.check("bfs_spmv: warning:" in err and "Matrix Market banner" in err, f"banner {tag}: warned", err[-400:])
    f = write(os.path.join(tmp, "typo.txt"), "%%MatrixMarkt matrix coordinate pattern symmetric\n" + path_body)
    _, err = json_run("misspelt banner", [f], 2)
    c.check("misspelt Matrix Market banner" in err and "--format" in err, "misspelt banner: says so", err[-400:])
    res, err = json_run("misspelt banner with --format headerless", [f, "--format", "headerless"])
    c.check(res is not None and res.get("format") == "headerless" and "bfs_spmv: warning:" in err,
            "misspelt banner with --format headerless: read, warned", err[-300:])

    # Pipes: the same answers with and without --format, text and .gbc.
    karate = os.path.join(matrices, "karate.mtx")
    data = open(karate, "rb").read()
    for args in ([], ["--format", "mtx"]):
        rc, out, err = run_piped(c, ["/dev/stdin", "--json", "--device", "host"] + args, data)
        ok = c.check(rc == 0, f"karate through a pipe {args}: exit 0", f"exit {rc}; {err[-400:]}")
        if ok:
            res = json.loads(out)
            c.check(res.get("format") == "mtx" and res.get("vertices") == 34 and res.get("entries") == 156,
                    f"karate through a pipe {args}: the whole graph", json.dumps(res)[:300])
    gbc = os.path.join(tmp, "karate.gbc")
    if c.check(c.run([karate, "--save", gbc, "--device", "host"])[0] == 0, "karate --save"):
        for args in ([], ["--format", "gbc"]):
            rc, out, err = run_piped(c, ["/dev/stdin", "--json", "--device", "host"] + args, open(gbc, "rb").read())
            ok = c.check(rc == 0, f".gbc through a pipe {args}: exit 0", f"exit {rc}; {err[-400:]}")
            if ok:
                res = json.loads(out)
                c.check(res.get("format") == "gbc" and res.get("entries") == 156, f".gbc through a pipe {args}",
                        json.dumps(res)[:300])
    # A FIFO: opened once (a second open would hang), read whole.
    fifo = os.path.join(tmp, "graph.fifo")
    os.mkfifo(fifo)
    p = subprocess.Popen([c.exe, fifo, "--json", "--device", "host"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        with open(fifo, "wb") as w:  # blocks until bfs_spmv has opened it
            w.write(data)
        out, err = p.communicate(timeout=RUN_TIMEOUT)
        ok = c.check(p.returncode == 0, "karate through a FIFO: exit 0", err.decode(errors="replace")[-400:])
        if ok:
            c.check(json.loads(out).get("entries") == 156, "karate through a FIFO: the whole graph", out[:300])
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        c.check(False, "karate through a FIFO: finishes")

    # METIS: by name, by content, by --format.
    metis = "% triangle 1-2-3 and edge 3-4\n4 4\n2 3\n1 3\n1 2 4\n3\n"
    for name, args in [("g.graph", []), ("g.txt", []), ("g.dat", ["--format", "metis"])]:
        f = write(os.path.join(tmp, name), metis)
        res, _ = json_run(f"METIS {name} {args}", [f] + args)
        if res:
            c.check(res.get("format") == "metis" and res.get("vertices") == 4 and res.get("entries") == 8 and
                    res.get("reached") == 4, f"METIS {name} {args}: read as METIS", json.dumps(res)[:300])
    f = write(os.path.join(tmp, "tri.txt"), "3 3\n2 3\n1 3\n1 2\n")
    _, err = json_run("METIS or edge list", [f], 2)
    c.check("METIS" in err and "edge list" in err and "--format" in err, "METIS or edge list: refused, both named",
            err[-400:])

    # Edge lists: --index-base, a CSV header, networkx lines.
    one = write(os.path.join(tmp, "one.edges"), "1 2\n2 3\n")
    res, err = json_run("1-based edge list, --index-base 1", [one, "--index-base", "1"])
    if res:
        c.check(res.get("vertices") == 3 and res.get("reached") == 3, "--index-base 1: vertices 0..2, all reached",
                json.dumps(res)[:300])
    res, err = json_run("1-based edge list, default base", [one])
    if res:
        c.check(res.get("vertices") == 4 and "no edge uses vertex 0" in err, "default base 0: warned about vertex 0",
                err[-300:])
    bad = write(os.path.join(tmp, "zero.edges"), "1 2\n0 1\n")
    _, err = json_run("--index-base 1 with an id 0", [bad, "--index-base", "1"], 2)
    c.check(":2:" in err and "vertex id 0" in err, "--index-base 1 with an id 0: names the line", err[-300:])
    c.expect_exit("--index-base 2", [one, "--index-base", "2"], 2)
    f = write(os.path.join(tmp, "x.csv"), "source,target\n0,1\n1,2\n")
    res, err = json_run("CSV header", [f])
    if res:
        c.check(res.get("format") == "edgelist" and res.get("reached") == 3 and "skipped the header line" in err,
                "CSV header: skipped with a warning", err[-300:])
    f = write(os.path.join(tmp, "nx.txt"), "0 1 {'weight': 2}\n1 2 {'weight': 0.5}\n")
    res, _ = json_run("networkx weights", [f])
    if res:
        c.check(res.get("format") == "edgelist" and res.get("reached") == 3, "networkx weights: read", str(res)[:300])
    f = write(os.path.join(tmp, "nx2.txt"), "0 1 {'weight': 2}\n1 2 {}\n")
    _, err = json_run("networkx weights on some lines only", [f], 2)
    c.check("nx2.txt:2:" in err and "no 'weight' attribute" in err, "networkx weights on some lines only: line named",
            err[-300:])

    # Real data: compressed DIMACS and SNAP files (by name and through a pipe), "N M" header lines.
    road = b"c road\np sp 4 4\na 1 2 7\na 2 3 1\na 3 4 2\na 4 1 3\n"
    snap = b"# Directed graph: web.txt\n# Nodes: 6 Edges: 3\n# FromNodeId\tToNodeId\n0\t1\n1\t2\n2\t3\n"
    for ext, pack in ((".gz", gzip.compress), (".xz", lzma.compress), (".bz2", bz2.compress)):
        f = os.path.join(tmp, "road.gr" + ext)
        with open(f, "wb") as out:
            out.write(pack(road))
        res, err = json_run(f"DIMACS road{ext}", [f])
        if res:
            c.check(res.get("format") == "dimacs" and res.get("vertices") == 4 and res.get("reached") == 4 and
                    res.get("levels") == 4, f"DIMACS road{ext}: 4 vertices in a cycle", json.dumps(res)[:300])
        rc, out, err = run_piped(c, ["/dev/stdin", "--json", "--device", "host"], pack(snap))
        res = json.loads(out) if rc == 0 else {}
        c.check(rc == 0 and res.get("format") == "edgelist" and res.get("vertices") == 6 and res.get("reached") == 4,
                f"SNAP through a {ext} pipe: sized by '# Nodes: 6'", f"exit {rc}: {out[:200]} {err[-300:]}")
    f = os.path.join(tmp, "cut.gr.gz")
    with open(f, "wb") as out:
        out.write(gzip.compress(road)[:-6])
    _, err = json_run("truncated gzip", [f], 2)
    c.check("cut.gr.gz: truncated gzip data" in err, "truncated gzip: refused, file named", err[-300:])
    f = write(os.path.join(tmp, "hdr.txt"), "5 3\n0 1\n1 2\n3 4\n")
    res, err = json_run("N M header line", [f])
    if res:
        c.check(res.get("vertices") == 5 and res.get("entries") == 3 and "hdr.txt:1: read '5 3' as a header line" in err
                and "--header no" in err, "N M header line: read as a header, warned", err[-300:])
    res, _ = json_run("N M header line, --header no", [f, "--header", "no"])
    if res:
        c.check(res.get("vertices") == 6 and res.get("entries") == 4, "--header no: an edge", json.dumps(res)[:300])
    f = write(os.path.join(tmp, "hdr1.txt"), "5 3\n1 2\n2 3\n4 5\n")
    _, err = json_run("1-based header under base 0", [f], 2)
    c.check("--index-base 1" in err and "--header no" in err, "1-based header under base 0: refused, choices named",
            err[-300:])
    c.expect_exit("--header maybe", [f, "--header", "maybe"], 2)

    # Headerless with a wrong count: a headerless message.
    f = write(os.path.join(tmp, "count.txt"), "3 3 3\n1 2\n2 3\n")
    _, err = json_run("headerless count", [f], 2)
    c.check("headerless" in err and "announcing 3" in err and "2 follow" in err, "headerless count: both counts",
            err[-300:])

    # Binary data and endless lines stop at once with a named line (not "out of memory").
    rc, out, err, secs = c.run_timed(["/dev/zero", "--device", "host"])
    c.check(rc == 2 and "NUL byte" in err and secs < 30, "/dev/zero: exit 2, NUL byte named, at once",
            f"exit {rc} after {secs:.1f} s; {err[-300:]}")
    rc, _, err = run_piped(c, ["/dev/stdin", "--device", "host"], b"0 1\n" + b"7" * (3 << 20))
    c.check(rc == 2 and "/dev/stdin:2: line longer than" in err, "endless line: exit 2, names the line", err[-300:])
    f = write(os.path.join(tmp, "big.txt"), "0 1\n1 " + "9" * 30 + "\n")
    _, err = json_run("64-bit overflow", [f], 2)
    c.check("out of range" in err, "a number past 64 bits is out of range", err[-300:])

    # --verbose names the format.
    rc, _, err = c.run([karate, "--device", "host", "--verbose"])
    c.check(rc == 0 and "bfs_spmv: format: mtx (coordinate pattern symmetric)" in err, "--verbose names the format",
            err[:400])


def run_and_check(c, tmp, tag, path, args, exp, arcs=None):
    """Runs bfs_spmv on `path` with --levels, --parents (files in tmp), --validate and --json; checks the
    answer against `exp` and the parents. Returns the JSON result (or None)."""
    lv, pa = os.path.join(tmp, "rc.levels"), os.path.join(tmp, "rc.parents")
    for f in (lv, pa):
        if os.path.exists(f):
            os.remove(f)
    res = c.expect_exit(tag, [path, *args, "--levels", lv, "--parents", pa, "--validate", "--json"], 0,
                        stdout_json=True)
    if isinstance(res, dict) and c.check(os.path.isfile(lv) and os.path.isfile(pa), f"{tag}: output files written"):
        levels = read_column(lv)
        check_answer(c, tag, res, levels, exp)
        c.check(res.get("validated") is True, f"{tag}: validated")
        check_parents(c, tag, levels, read_column(pa), res.get("source", 0), arcs)
    return res


def test_kernels(c, tmp, matrices, expected, gpu):
    karate = os.path.join(matrices, "karate.mtx")

    rc, out, err = c.run(["--kernel", "list"])
    c.check(rc == 0, "--kernel list: exit 0", f"exit {rc}; {err.strip()[-300:]}")
    lines = [ln for ln in out.splitlines() if ln.strip()]
    names = [ln.split()[0] for ln in lines]
    c.check(names == KERNELS, "--kernel list: every kernel, one per line, in order", f"got {names}")
    cuda_marked = [ln.split()[0] for ln in lines if "(CUDA)" in ln]
    c.check(cuda_marked == [k for k in KERNELS if k not in HOST_KERNELS], "--kernel list: marks the CUDA-only kernels",
            f"got {cuda_marked}")
    c.check(all(len(ln.split()) >= 3 for ln in lines), "--kernel list: each line has a description", out[:600])

    rc, out, err = c.run([karate, "--kernel", "no-such-kernel"])
    c.check(rc == 2 and out.strip() == "", "bad --kernel: exit 2, nothing on stdout", f"exit {rc}; {out[:200]}")
    c.check("bfs_spmv: error:" in err and all(k in err for k in KERNELS), "bad --kernel: the error lists the kernels",
            err.strip()[-600:])
    rc, out, err = c.run([karate, "--kernel", "queue-warp", "--device", "host"])
    c.check(rc == 2 and out.strip() == "", "CUDA-only kernel with --device host: exit 2", f"exit {rc}; {err.strip()}")
    c.check("bfs_spmv: error:" in err and "CUDA" in err, "CUDA-only kernel with --device host: says it needs CUDA",
            err.strip())
    # The seed kernels are bfs_bench's baselines, not the library's.
    c.expect_exit("a baseline's name is not a bfs_spmv kernel", [karate, "--kernel", "rodinia", "--device", "host"], 2)

    res = c.expect_exit("--kernel in JSON", [karate, "--kernel", "pull", "--device", "host", "--json"], 0,
                        stdout_json=True)
    if isinstance(res, dict):
        c.check(res.get("kernel") == "pull", "--json: kernel is the one asked for", str(res.get("kernel")))
        c.check(res.get("level_loop") == "algebra", "--json: the host runs the algebra loop",
                str(res.get("level_loop")))
    # The barrier-free tail: allowed by default, off with the flag; never on the host.
    for flag, allowed in [([], True), (["--no-barrier-free-tail"], False)]:
        res = c.expect_exit(f"barrier-free tail {flag or 'default'}", ["grid:120:120", "--device", "host", "--json"] + flag,
                            0, stdout_json=True)
        if isinstance(res, dict):
            c.check(res.get("barrier_free_tail") is allowed and res.get("barrier_free_from") is None and
                    res.get("barrier_free_abandoned") is False, f"--json barrier-free keys {flag or 'default'} (host)",
                    f"{res.get('barrier_free_tail')} / {res.get('barrier_free_from')} / {res.get('barrier_free_abandoned')}")
    rc, out, err = c.run([karate, "--kernel", "pull", "--device", "host", "--verbose"])
    per_level = [ln for ln in err.splitlines() if re.match(r"^level\s+\d+:", ln)]
    c.check(rc == 0 and per_level and all("host pull" in ln for ln in per_level),
            "--verbose: each level line names the kernel", "\n".join(per_level[:3]) or err[-400:])

    # The algebra kernels on the host, every sample.
    arcs_cache = {}
    for name, exp in expected.items():
        path = os.path.join(matrices, name)
        if not os.path.isfile(path):
            continue
        arcs_cache[name] = read_arcs(path)
        for k in HOST_KERNELS:
            run_and_check(c, tmp, f"{name} --kernel {k} --device host", path, ["--kernel", k, "--device", "host"], exp,
                          arcs_cache[name])

    # Every kernel on the GPU, every sample.
    if not (gpu and built_with_cuda(c)):
        print("test_cli: skipping the GPU kernels (" + ("no GPU" if not gpu else "built without CUDA") + ")",
              flush=True)
        return
    for name, exp in expected.items():
        path = os.path.join(matrices, name)
        if not os.path.isfile(path):
            continue
        for k in KERNELS:
            res = run_and_check(c, tmp, f"{name} --kernel {k} --device cuda", path, ["--kernel", k, "--device", "cuda"],
                                exp, arcs_cache.get(name))
            if isinstance(res, dict):
                loop = "algebra" if k == "algebra" else "fused"
                c.check(res.get("backend") == "cuda" and res.get("kernel") == k and res.get("level_loop") == loop,
                        f"{name} --kernel {k} --device cuda: ran on cuda with that kernel in the {loop} loop",
                        f"{res.get('backend')} / {res.get('kernel')} / {res.get('level_loop')}")
        for k in ["queue-warp", "pull"]:
            rc, _, err = c.run([path, "--kernel", k, "--device", "cuda", "--verbose"])
            per_level = [ln for ln in err.splitlines() if re.match(r"^level\s+\d+:", ln)]
            c.check(rc == 0 and per_level and all(k in ln for ln in per_level),
                    f"{name} --kernel {k} --verbose: each level line names the kernel", err[-400:])
    # A mesh of 239 levels on the GPU: the tail runs after 64 narrow levels, and its levels say so.
    res = c.expect_exit("grid on cuda: barrier-free tail", ["grid:120:120", "--device", "cuda", "--json"], 0,
                        stdout_json=True)
    if isinstance(res, dict):
        c.check(isinstance(res.get("barrier_free_from"), int) and res["barrier_free_from"] > 64 and
                res.get("levels") == 239, "grid on cuda: barrier_free_from past level 64, 239 levels",
                f"{res.get('barrier_free_from')} / {res.get('levels')}")
    # With parents (--validate) too: the tail runs and the parents it names pass the validation.
    res = c.expect_exit("grid on cuda --validate: barrier-free tail", ["grid:120:120", "--device", "cuda", "--validate",
                        "--json"], 0, stdout_json=True)
    if isinstance(res, dict):
        c.check(isinstance(res.get("barrier_free_from"), int) and res["barrier_free_from"] > 64 and
                res.get("validated") is True, "grid on cuda --validate: the tail ran and the parents are valid",
                f"{res.get('barrier_free_from')} / {res.get('validated')}")
    rc, _, err = c.run(["grid:120:120", "--device", "cuda", "--verbose", "--no-barrier-free-tail"])
    c.check(rc == 0 and "barrier-free" not in err, "grid on cuda with --no-barrier-free-tail: no tail level", err[-400:])
    rc, _, err = c.run(["grid:120:120", "--device", "cuda", "--verbose"])
    tail_lines = [ln for ln in err.splitlines() if re.match(r"^level\s+\d+:", ln) and "barrier-free tail" in ln]
    c.check(rc == 0 and len(tail_lines) > 100, "grid on cuda --verbose: the tail's levels are marked", err[-400:])


def out_degrees(arcs):
    """Out-degree per vertex of a set of arcs, as a dict (vertices without out-edges absent)."""
    deg = {}
    for i, _ in arcs:
        deg[i] = deg.get(i, 0) + 1
    return deg


def test_sources(c, tmp, matrices):
    karate = os.path.join(matrices, "karate.mtx")
    accepted = "max-degree, random or random:SEED"
    for bad in ["", "foo", "random:", "random:x", "random:-1", "-1", "1e3", "3x", "max"]:
        rc, out, err = c.run([karate, "--source", bad])
        c.check(rc == 2 and out.strip() == "", f"--source '{bad}': exit 2, nothing on stdout", f"exit {rc}; {out[:200]}")
        c.check(f"--source '{bad}'" in err and accepted in err, f"--source '{bad}': the error says what is accepted",
                err.strip())
    rc, out, _ = c.run(["--help"])
    c.check("max-degree" in out and "random[:SEED]" in out, "--help names max-degree and random[:SEED]")

    # max-degree: the most out-edges, lowest id on ties, on an undirected and a directed sample.
    for name in ["karate.mtx", "west0067.mtx", "cavity02_headerless.txt"]:
        path = os.path.join(matrices, name)
        arcs = read_arcs(path)
        if not c.check(arcs is not None, f"{name}: arcs readable"):
            continue
        deg = out_degrees(arcs)
        best = min(deg, key=lambda v: (-deg[v], v))
        res = c.expect_exit(f"{name} --source max-degree", [path, "--source", "max-degree", "--json"], 0,
                            stdout_json=True)
        if isinstance(res, dict):
            c.check(res.get("source") == best and res.get("source_choice") == "max-degree" and
                    res.get("source_seed") is None, f"{name} --source max-degree: vertex {best} (degree {deg[best]})",
                    f"source {res.get('source')}, {res.get('source_choice')}, seed {res.get('source_seed')}")
    rc, out, err = c.run([karate, "--source", "max-degree"])
    c.check(rc == 0 and re.search(r"^source:\s+33 \(max-degree\)$", out, re.M) is not None,
            "text summary: the source and how it was chosen", out[:400])

    # random: a vertex with an out-edge, the same one for the same seed. Here only 5 and 9 have
    # out-edges among 10 vertices.
    sparse = write(os.path.join(tmp, "sparse.edges"), "5 6\n9 0\n")
    picked = set()
    for seed in [None] + list(range(1, 13)):
        spec = "random" if seed is None else f"random:{seed}"
        runs = [c.expect_exit(f"--source {spec}", [sparse, "--format", "edgelist", "--source", spec, "--json"], 0,
                              stdout_json=True) for _ in range(2)]
        if all(isinstance(r, dict) for r in runs):
            a, b = runs
            c.check(a.get("source") in (5, 9) and a.get("source_choice") == "random",
                    f"--source {spec}: a vertex with an out-edge", f"{a.get('source')} / {a.get('source_choice')}")
            c.check(a.get("source") == b.get("source"), f"--source {spec}: the same vertex every run",
                    f"{a.get('source')} then {b.get('source')}")
            c.check(a.get("source_seed") == (1 if seed is None else seed),
                    f"--source {spec}: source_seed {1 if seed is None else seed}", str(a.get("source_seed")))
            picked.add(a.get("source"))
    c.check(picked == {5, 9}, "--source random: both candidates drawn over 13 seeds", str(picked))
    res7 = [c.expect_exit("karate --source random:7", [karate, "--source", "random:7", "--json"], 0,
                          stdout_json=True) for _ in range(2)]
    if all(isinstance(r, dict) for r in res7):
        c.check(res7[0].get("source") == res7[1].get("source"), "karate --source random:7: reproducible")
    empty = write(os.path.join(tmp, "loops-none.mtx"), "%%MatrixMarket matrix coordinate pattern general\n3 3 0\n")
    rc, out, err = c.run([empty, "--source", "random"])
    c.check(rc == 2 and "no vertex" in err and out.strip() == "", "--source random without any edge: exit 2",
            f"exit {rc}; {err.strip()}")

    # A source without out-edges is searched, with a warning; others get none.
    chain = write(os.path.join(tmp, "chain.edges"), "0 1\n1 2\n")
    rc, out, err = c.run([chain, "--format", "edgelist", "--source", "2", "--json"])
    warning = "bfs_spmv: warning: source 2 has no out-edges; the search reaches only 2"
    c.check(rc == 0 and warning in err, "source without out-edges: warning on stderr", f"exit {rc}; {err.strip()}")
    c.check(rc == 0 and json.loads(out).get("reached") == 1 and "warning" not in out,
            "source without out-edges: reaches 1, stdout keeps only the JSON", out[:300])
    rc, out, err = c.run([chain, "--format", "edgelist", "--source", "0"])
    c.check(rc == 0 and "warning" not in err, "source with out-edges: no warning", err.strip())

    # Without --source: 0, or the source a Rodinia file names.
    res = c.expect_exit("karate without --source", [karate, "--json"], 0, stdout_json=True)
    if isinstance(res, dict):
        c.check(res.get("source") == 0 and res.get("source_choice") == "default", "no --source: vertex 0, 'default'",
                f"{res.get('source')} / {res.get('source_choice')}")
    rod = write(os.path.join(tmp, "src.rodinia.txt"), "3\n0 1\n1 1\n2 0\n\n1\n\n2\n1 1\n2 1\n")
    res = c.expect_exit("Rodinia without --source", [rod, "--json"], 0, stdout_json=True)
    if isinstance(res, dict):
        c.check(res.get("source") == 1 and res.get("source_choice") == "rodinia",
                "Rodinia file without --source: its source, 'rodinia'", f"{res.get('source')} / {res.get('source_choice')}")
    res = c.expect_exit("Rodinia --source max-degree", [rod, "--source", "max-degree", "--json"], 0, stdout_json=True)
    if isinstance(res, dict):
        c.check(res.get("source") == 0 and res.get("source_choice") == "max-degree",
                "Rodinia file --source max-degree: overrides the file's source", str(res.get("source")))
    res = c.expect_exit("--source 5", [karate, "--source", "5", "--json"], 0, stdout_json=True)
    if isinstance(res, dict):
        c.check(res.get("source") == 5 and res.get("source_choice") == "given", "--source 5: 'given'",
                f"{res.get('source')} / {res.get('source_choice')}")


def file_type(path):
    """'link', 'file', 'fifo', 'chr', other, or None when nothing is there (the link itself, not followed)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    for name, test in (("link", stat.S_ISLNK), ("file", stat.S_ISREG), ("fifo", stat.S_ISFIFO), ("chr", stat.S_ISCHR)):
        if test(mode):
            return name
    return "other"


def null_device(folder):
    """A null device to write. As root, a node of our own made in `folder`, so that a bfs_spmv that
    replaces what it writes (the bug these checks guard against) cannot replace the system's /dev/null;
    otherwise /dev/null itself, which only root could replace. None when there is none."""
    if os.geteuid() != 0:
        return "/dev/null" if os.access("/dev/null", os.W_OK) else None
    node = os.path.join(folder, "null")
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except OSError:
        return None
    return node


def stdout_names(folder):
    """Names of the process's stdout to give as a file: a link of our own to /proc/self/fd/1 (what
    /dev/stdout is), and /dev/stdout itself when not root (root could replace it, were it mishandled)."""
    link = os.path.join(folder, "stdout-link")
    if not os.path.lexists(link):
        os.symlink("/proc/self/fd/1", link)
    return [link] + (["/dev/stdout"] if os.geteuid() != 0 else [])


def ints(text):
    """The whitespace-separated integers of `text`, or None when it holds anything else."""
    try:
        return [int(x) for x in text.split()]
    except ValueError:
        return None


def json_after_text(text):
    """The JSON object that ends `text` (stderr: warnings may come first), or None."""
    start = text.find("{\n")
    try:
        return json.loads(text[start:]) if start >= 0 else None
    except ValueError:
        return None


def test_outputs(c, tmp, matrices):
    karate = os.path.join(matrices, "karate.mtx")
    arcs = read_arcs(karate)
    out_dir = os.path.join(tmp, "outputs")
    os.mkdir(out_dir)
    ref = os.path.join(out_dir, "ref.levels")
    res = c.expect_exit("karate levels to a file", [karate, "--levels", ref, "--json"], 0, stdout_json=True)
    expected = read_column(ref) if isinstance(res, dict) else None
    os.remove(ref)

    # '-': the column on stdout, the summary (or JSON) on stderr.
    rc, out, err = c.run([karate, "--levels", "-", "--json"])
    c.check(rc == 0 and ints(out) == expected, "--levels -: the levels on stdout, nothing else",
            f"exit {rc}; {out[:200]}")
    res = json_after_text(err)
    c.check(isinstance(res, dict) and res.get("reached") == 34, "--levels - --json: the JSON object on stderr",
            err[-300:])
    rc, out, err = c.run([karate, "--parents", "-", "--validate"])
    parents = (ints(out) or []) if rc == 0 else []
    c.check(rc == 0 and len(parents) == 34 and "reached:" in err and "reached:" not in out,
            "--parents -: the parents on stdout, the text summary on stderr", f"exit {rc}; {out[:200]} / {err[-300:]}")
    if expected is not None and len(parents) == 34:
        check_parents(c, "--parents -", expected, parents, 0, arcs)
    for name in stdout_names(tmp):
        rc, out, err = c.run([karate, "--levels", name])
        c.check(rc == 0 and ints(out) == expected and "reached:" in err,
                f"--levels {name}: written through to stdout (a pipe), the summary on stderr",
                f"exit {rc}; {out[:200]} / {err[-200:]}")
        rc, out, err = c.run([karate, "--levels", "-", "--parents", name])
        c.check(rc == 2 and out == "" and "both write to stdout" in err, f"--levels - --parents {name}: refused",
                f"exit {rc}; {err.strip()}")
    rc, out, err = c.run([karate, "--levels", "-", "--parents", "-"])
    c.check(rc == 2 and out == "" and "both write to stdout" in err, "--levels - --parents -: refused",
            f"exit {rc}; {err.strip()}")
    rc, out, err = c.run([karate, "--save", "-"])
    c.check(rc == 2 and out == "" and "--save -" in err and "not stdout" in err, "--save -: refused, says why",
            f"exit {rc}; {err.strip()}")

    # A symlink to a regular file: the file behind it is replaced, the link stays a link.
    real, link = os.path.join(out_dir, "real.levels"), os.path.join(out_dir, "link.levels")
    write(real, "old\n")
    os.symlink("real.levels", link)
    c.expect_exit("--levels through a symlink", [karate, "--levels", link], 0)
    c.check(file_type(link) == "link" and os.readlink(link) == "real.levels", "--levels SYMLINK: stays a symlink",
            str(file_type(link)))
    c.check(file_type(real) == "file" and read_column(real) == expected, "--levels SYMLINK: the target holds the levels")
    c.check(sorted(os.listdir(out_dir)) == ["link.levels", "real.levels"], "--levels SYMLINK: no temporary left",
            str(os.listdir(out_dir)))

    # A FIFO: written through to its reader, still a FIFO afterwards.
    fifo = os.path.join(out_dir, "parents.fifo")
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()), daemon=True)
    reader.start()
    rc, out, err = c.run([karate, "--parents", fifo, "--validate"])
    reader.join(timeout=30)
    c.check(rc == 0 and not reader.is_alive() and got, "--parents FIFO: a reader gets the data",
            f"exit {rc}; {err.strip()[-300:]}")
    if got and expected is not None:
        check_parents(c, "--parents FIFO", expected, ints(got[0].decode()) or [], 0, arcs)
    c.check(file_type(fifo) == "fifo", "--parents FIFO: still a FIFO", str(file_type(fifo)))
    os.remove(fifo)

    # The null device: written through, never replaced, named by every output at once.
    null = null_device(tmp)
    if null is None:
        print("test_cli: no null device to write; skipping its checks", flush=True)
    else:
        null_link = os.path.join(out_dir, "null-link")
        os.symlink(null, null_link)
        rc, out, err = c.run([karate, "--levels", null, "--parents", null_link, "--save", null])
        c.check(rc == 0 and "reached:" in out, f"--levels/--parents/--save {null}: run", f"exit {rc}; {err.strip()}")
        c.check(file_type(null) == "chr" and file_type(null_link) == "link",
                f"{null}: still a character device, the link to it still a link", f"{file_type(null)}")
        os.remove(null_link)

    # Refused before the graph is read: the input is a FIFO no one writes, so reading it would wait
    # until the (short) timeout. Exit 2 at once, nothing made.
    big = os.path.join(tmp, "never-written.mtx")
    os.mkfifo(big)
    quick = CliChecker(c.exe)
    quick.timeout = 10
    no_dir = os.path.join(out_dir, "no-such-dir", "x.levels")
    a, alias = os.path.join(out_dir, "a.txt"), os.path.join(out_dir, "alias.txt")
    os.symlink("a.txt", alias)
    copy = shutil.copy(karate, os.path.join(out_dir, "input.mtx"))
    copy_link = os.path.join(out_dir, "input-link.mtx")
    os.symlink("input.mtx", copy_link)
    cases = [
        ("missing directory", [big, "--levels", no_dir], "no directory"),
        ("missing directory (--parents)", [big, "--parents", no_dir], "no directory"),
        ("missing directory (--save)", [big, "--save", no_dir], "no directory"),
        ("a directory", [big, "--levels", out_dir], "Is a directory"),
        ("two outputs, one path", [big, "--levels", a, "--parents", a], "name the same file"),
        ("two outputs, one file through a link", [big, "--levels", a, "--save", alias], "name the same file"),
        ("the input file", [copy, "--levels", copy], "is the input file"),
        ("the input file through a link", [copy, "--parents", copy_link], "is the input file"),
        ("the input file (--save)", [copy, "--save", copy], "is the input file"),
        ("an empty name", [big, "--levels", ""], "empty file name"),
    ]
    if os.geteuid() != 0:  # root writes anywhere
        ro = os.path.join(tmp, "read-only")
        os.mkdir(ro, 0o500)
        cases.append(("a read-only directory", [big, "--levels", os.path.join(ro, "x")], "cannot create files"))
    before = sorted(os.listdir(out_dir))
    for name, args, why in cases:
        rc, out, err = quick.run(args)
        c.check(rc == 2 and out == "" and why in err, f"output check, {name}: exit 2 saying '{why}', before reading",
                f"exit {rc}; {err.strip()[-300:]}")
    c.check(sorted(os.listdir(out_dir)) == before and not os.path.exists(os.path.dirname(no_dir)),
            "output checks create nothing", f"{before} -> {sorted(os.listdir(out_dir))}")
    with open(karate, encoding="ascii") as f1, open(copy, encoding="ascii") as f2:
        c.check(f1.read() == f2.read(), "the input file named as an output is untouched")


def test_generated_and_save(c, tmp, matrices, gpu):
    lv = os.path.join(tmp, "g.levels")
    devices = ["host"] + (["cuda"] if gpu and built_with_cuda(c) else [])
    grid = {"levels": 19, "reached": 100, "sizes": list(range(1, 11)) + list(range(9, 0, -1)), "first": None,
            "last": None}
    for device in devices:
        res = run_and_check(c, tmp, f"grid:10:10 --device {device}", "grid:10:10", ["--device", device], grid)
        if isinstance(res, dict):
            c.check(res.get("file") == "grid:10:10" and res.get("vertices") == 100 and res.get("entries") == 360,
                    f"grid:10:10 --device {device}: 100 vertices, 360 entries",
                    f"{res.get('file')} {res.get('vertices')} {res.get('entries')}")
        res = c.expect_exit(f"kron:10:8 --device {device} --validate", ["kron:10:8", "--device", device, "--validate",
                                                                      "--json"], 0, stdout_json=True)
        if isinstance(res, dict):
            c.check(res.get("validated") is True and res.get("vertices") == 1024 and res.get("reached", 0) > 1,
                    f"kron:10:8 --device {device}: 1024 vertices, validated", json.dumps(res)[:300])
    c.expect_exit("bad generator spec", ["kron:abc:8"], 2)
    c.expect_exit("generator spec with --format", ["grid:4:4", "--format", "mtx"], 2)

    # --save writes the graph searched; reading it back gives the same answers.
    cases = [(os.path.join(matrices, "west0067.mtx"), [], "west.gbc"),
             (os.path.join(matrices, "west0067.mtx"), ["--transpose"], "west_t.gbc"),
             (os.path.join(matrices, "graph4096.rodinia.txt"), ["--source", "0"], "g4096.gbc"),
             ("grid:10:10", [], "grid.gbc"),
             ("kron:10:8", [], "kron.gbc")]
    for src, extra, out_name in cases:
        if not src.count(":") and not os.path.isfile(src):
            c.check(False, f"{src}: sample present")
            continue
        gbc = os.path.join(tmp, out_name)
        tag = f"{os.path.basename(src)} {' '.join(extra)} --save"
        first = c.expect_exit(tag, [src, *extra, "--device", "host", "--save", gbc, "--levels",
                                    lv, "--json"], 0, stdout_json=True)
        if not isinstance(first, dict) or not c.check(os.path.isfile(gbc), f"{tag}: the .gbc file is written"):
            continue
        levels_first = read_column(lv)
        for fmt_args in ([], ["--format", "gbc"]):
            again = c.expect_exit(f"{tag}, read back {' '.join(fmt_args)}", [gbc, *fmt_args, "--device", "host",
                                                                               "--levels", lv,
                                                                               "--validate", "--json"], 0,
                                  stdout_json=True)
            if isinstance(again, dict):
                same = all(again.get(k) == first.get(k) for k in ("vertices", "entries", "reached", "levels",
                                                                   "level_sizes"))
                c.check(same and read_column(lv) == levels_first,
                        f"{tag}: the .gbc gives the same answers {' '.join(fmt_args)}",
                        f"{json.dumps(again)[:300]} vs {json.dumps(first)[:300]}")
    bad_dir = os.path.join(tmp, "no-such-dir", "x.gbc")
    c.expect_exit("--save into a missing folder", [os.path.join(matrices, "karate.mtx"), "--save", bad_dir], 2)


def test_reorder(c, tmp, matrices, expected, gpu):
    """--reorder: the answers in the file's own ids whatever the ordering; --save keeps the ordering."""
    devices = ["host"] + (["cuda"] if gpu and built_with_cuda(c) else [])
    for sample in ("west0067.mtx", "bcsstk13.mtx", "karate.mtx"):
        path = os.path.join(matrices, sample)
        if not c.check(os.path.isfile(path) and sample in expected, f"{sample}: sample and its answer present"):
            continue
        arcs = read_arcs(path)
        for device in devices:
            for ordering in ("degree", "rcm"):
                tag = f"{sample} --reorder {ordering} --device {device}"
                res = run_and_check(c, tmp, tag, path, ["--reorder", ordering, "--device", device], expected[sample],
                                    arcs)
                if isinstance(res, dict):
                    c.check(res.get("ordering") == ordering and res.get("ordering_from") == "computed" and
                            isinstance(res.get("ordering_seconds"), float) and res["ordering_seconds"] >= 0,
                            f"{tag}: JSON names the ordering and its cost",
                            f"{res.get('ordering')} {res.get('ordering_from')} {res.get('ordering_seconds')}")
                    c.check(res.get("source") == 0, f"{tag}: source 0 is the file's vertex 0", str(res.get("source")))

    # The same source whatever the ordering (max-degree and random pick among the file's ids), the
    # same levels; a saved ordering is read back and used, undone with --reorder none, replaced.
    src = "kron:10:8"
    lv = os.path.join(tmp, "ro.levels")
    base = c.expect_exit(f"{src} plain", [src, "--source", "max-degree", "--levels", lv, "--json", "--device",
                                          "host"], 0, stdout_json=True)
    if not isinstance(base, dict):
        return
    want = read_column(lv)
    gbc = os.path.join(tmp, "kron-rcm.gbc")
    runs = [("--reorder rcm --save", [src, "--reorder", "rcm", "--save", gbc], "rcm", "computed"),
            ("saved rcm file", [gbc], "rcm", "file"),
            ("saved rcm file --format gbc", [gbc, "--format", "gbc"], "rcm", "file"),
            ("saved rcm file --reorder rcm", [gbc, "--reorder", "rcm"], "rcm", "file"),
            ("saved rcm file --reorder none", [gbc, "--reorder", "none"], "none", "restored"),
            ("saved rcm file --reorder degree", [gbc, "--reorder", "degree"], "degree", "computed"),
            ("saved rcm file --source random", [gbc, "--source", "random:3"], "rcm", "file"),
            ("saved rcm file --transpose", [gbc, "--transpose"], "rcm", "file")]
    plain_random = c.expect_exit(f"{src} --source random:3", [src, "--source", "random:3", "--json", "--device",
                                                               "host"], 0, stdout_json=True)
    for tag, args, ordering, origin in runs:
        source = [] if "--source" in args else ["--source", "max-degree"]
        res = c.expect_exit(tag, [*args, *source, "--levels", lv, "--json", "--validate", "--device", "host"], 0,
                            stdout_json=True)
        if not isinstance(res, dict):
            continue
        c.check(res.get("ordering") == ordering and res.get("ordering_from") == origin,
                f"{tag}: ordering {ordering} ({origin})", f"{res.get('ordering')} ({res.get('ordering_from')})")
        if "--source" in args:
            c.check(isinstance(plain_random, dict) and res.get("source") == plain_random.get("source"),
                    f"{tag}: random:3 picks the same vertex as without an ordering",
                    f"{res.get('source')} vs {plain_random and plain_random.get('source')}")
        else:
            c.check(res.get("source") == base.get("source") and read_column(lv) == want,
                    f"{tag}: same source and levels as the plain run", f"source {res.get('source')}")
    # A directed graph: an ordering saved with the graph holds for its transpose (orderings look at
    # A + A'), and the answers stay the file's.
    west = os.path.join(matrices, "west0067.mtx")
    if os.path.isfile(west):
        wgbc = os.path.join(tmp, "west-rcm.gbc")
        for extra in ([], ["--transpose"]):
            plain = c.expect_exit(f"west0067 {' '.join(extra)} plain", [west, *extra, "--source", "5", "--levels", lv,
                                                                        "--json", "--device", "host"], 0,
                                  stdout_json=True)
            want_w = read_column(lv) if isinstance(plain, dict) else None
            if not extra:
                c.expect_exit("west0067 --reorder rcm --save", [west, "--reorder", "rcm", "--save", wgbc, "--device",
                                                                "host"], 0)
            res = c.expect_exit(f"west0067 saved rcm {' '.join(extra)}", [wgbc, *extra, "--source", "5", "--levels", lv,
                                                                          "--validate", "--json", "--device", "host"],
                                0, stdout_json=True)
            if isinstance(res, dict) and want_w is not None:
                c.check(res.get("ordering") == "rcm" and read_column(lv) == want_w,
                        f"west0067 saved rcm {' '.join(extra)}: the plain run's levels",
                        f"{res.get('ordering')} {read_column(lv)[:10]} vs {want_w[:10]}")
    out = c.expect_exit("--reorder --help", ["--help"], 0)
    c.check(out is not None and "--reorder" in out and "rcm" in out, "--help describes --reorder")
    c.expect_exit("--reorder unknown", [src, "--reorder", "gorder"], 2)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="folder holding bfs_spmv")
    ap.add_argument("--matrices", required=True, help="the sample matrices folder")
    ap.add_argument("--readme", required=True, help="matrices/README.md with the expected answers")
    args = ap.parse_args()

    exe = os.path.join(args.bin, "bfs_spmv")
    if not os.access(exe, os.X_OK):
        print(f"FAIL: {exe} not found or not executable\n0 passed, 1 failed")
        return 1
    expected = parse_readme(args.readme)
    c = CliChecker(os.path.abspath(exe))
    c.check(len(expected) >= 1, "README lists expected answers", args.readme)
    gpu = have_gpu()
    print(f"test_cli: {exe}; GPU {'present' if gpu else 'absent'}; {len(expected)} samples", flush=True)
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="gbcuda-cli-") as tmp:
        for test in (test_usage_and_input_errors, test_help_and_defaults):
            test(c, tmp, args.matrices, gpu)
        test_samples(c, tmp, args.matrices, expected)
        test_partitions(c, tmp, args.matrices, expected, gpu)
        test_multi_source(c, tmp, args.matrices, gpu)
        test_transforms(c, tmp, args.matrices)
        test_sources(c, tmp, args.matrices)
        test_outputs(c, tmp, args.matrices)
        test_inputs(c, tmp, args.matrices)
        test_kernels(c, tmp, args.matrices, expected, gpu)
        test_generated_and_save(c, tmp, args.matrices, gpu)
        test_reorder(c, tmp, args.matrices, expected, gpu)
    print(f"test_cli: {time.monotonic() - start:.1f} s")
    print(f"{c.passed} passed, {c.failed} failed")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
