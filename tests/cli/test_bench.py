#!/usr/bin/env python3
"""Checks bfs_bench without a GPU: the small preset on the host, the JSON it writes, the choice of
sources, the GraphBLAS baseline's agreement, the skipped-baseline message, the small real suite
(its generated shapes, a real file read as the suite reads it, missing files named), and exit codes.

Standard library only. Usage (as tests/CMakeLists.txt runs it):
    test_bench.py --bin build/bin --matrices matrices
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from checker import Checker

RUN_TIMEOUT = 300  # seconds for one bfs_bench run
PRESET_SMALL = ["kron:16:16", "urand:16:16", "grid:256:256", "randout:100000:8"]
PRESET_REAL_SMALL = ["web:20000", "road:120:100", "rmat:14:8", "powerlaw:20000:8"]
REAL_FILES = ["luxembourg_osm.mtx", "delaunay_n16.mtx", "web-edu.mtx", "facebook_combined.txt", "ca-HepPh.txt",
              "p2p-Gnutella31.txt", "wiki-Vote.txt"]
EDGES_COUNTED_AS = "edges = stored directed entries in the rows of reached vertices"
TOO_LARGE = "skipped (too large for the CPU baselines in this run)"
HOST_KERNELS = ["auto", "pull", "algebra"]  # the kernels that run on the host backend
CASE_KEYS = ["graph", "vertices", "entries", "name", "kind", "source", "source_kind", "status", "note", "device",
             "levels", "reached", "edges_traversed", "seconds_median", "seconds_min", "seconds", "gteps", "runs",
             "runs_planned", "warmup_runs", "peak_device_bytes", "validated", "compared_with", "ordering"]

# A small directed graph with known answers: out-degrees 0:1 1:1 2:1 3:3 4:0 5:3 6:0 7:0, so the
# highest-degree vertex is 3 (tied with 5; the lower id wins) and 0, 1, 2, 5 are the other
# vertices with an out-edge. 0-based arcs; the file is 1-based.
TIE_ARCS = [(0, 1), (1, 2), (2, 3), (3, 0), (3, 4), (3, 5), (5, 6), (5, 4), (5, 0)]
TIE_N = 8


def bfs_levels(n, arcs, source):
    adj = [[] for _ in range(n)]
    for i, j in arcs:
        adj[i].append(j)
    level = [-1] * n
    level[source] = 0
    frontier = [source]
    while frontier:
        nxt = []
        for v in frontier:
            for w in adj[v]:
                if level[w] < 0:
                    level[w] = level[v] + 1
                    nxt.append(w)
        frontier = nxt
    return level


def read_mtx_arcs(path):
    """Arcs of a Matrix Market coordinate file (symmetric ones in both directions), deduplicated."""
    with open(path, encoding="ascii") as f:
        lines = f.read().splitlines()
    symmetric = lines[0].lower().split()[4] != "general"
    body = [ln for ln in lines[1:] if ln.strip() and not ln.startswith("%")]
    n = int(body[0].split()[0])
    arcs = set()
    for ln in body[1:]:
        i, j = (int(x) - 1 for x in ln.split()[:2])
        arcs.add((i, j))
        if symmetric:
            arcs.add((j, i))
    return n, sorted(arcs)


def is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def load_json(c, path, name):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        c.check(False, f"{name}: --json file is readable JSON", str(e))
        return None


def check_header(c, j, name):
    for key in ["tool", "gbcuda_version", "date", "command_line", "device", "graphblas", "edges_counted_as",
                "settings", "graphs", "cases", "failures"]:
        c.check(key in j, f"{name}: JSON has '{key}'")
    c.check(j.get("edges_counted_as") == EDGES_COUNTED_AS, f"{name}: JSON says how edges are counted",
            str(j.get("edges_counted_as")))
    c.check(isinstance(j.get("device"), dict) and bool(j["device"].get("name")), f"{name}: JSON names the device")
    policy = j.get("device", {}).get("product_policy", {})
    c.check(all(isinstance(policy.get(k), (int, float)) and policy[k] > 0
                for k in ["alpha", "beta", "single_block_max", "block_queue_max", "block_queue_max_edges"]),
            f"{name}: JSON records the product policy the runs used", str(policy))
    if j.get("device", {}).get("backend") == "host":  # the host runs with the defaults (product_policy.hpp)
        c.check(policy.get("alpha") == 15.0 and policy.get("beta") == 18.0, f"{name}: host policy is the defaults",
                str(policy))
    c.check("bfs_bench" in j.get("command_line", ""), f"{name}: JSON holds the command line")
    c.check(j.get("failures") == 0, f"{name}: JSON reports no failures", str(j.get("failures")))


def check_cases(c, j, name, graphs, kernels, expect_graphblas=True):
    """Every graph x source x (kernel | graphblas) is there, ok, with numbers; GraphBLAS agrees."""
    cases = j.get("cases", [])
    for k, case in enumerate(cases):
        missing = [key for key in CASE_KEYS if key not in case]
        if not c.check(not missing, f"{name}: case {k} has every key", f"missing {missing}"):
            return
    recorded = {g["graph"]: g for g in j.get("graphs", [])}
    for g in graphs:
        rec = recorded.get(g)
        if not c.check(rec is not None and "error" not in rec, f"{name}: graph {g} loaded", str(rec)):
            continue
        sources = [s["vertex"] for s in rec["sources"]]
        c.check(rec["sources"][0]["kind"] == "max-degree", f"{name}: {g}: first source is the max-degree vertex")
        for src in sources:
            rows = [x for x in cases if x["graph"] == g and x["source"] == src]
            names = [x["name"] for x in rows]
            want = list(kernels) + (["graphblas"] if expect_graphblas else [])
            c.check(names == want, f"{name}: {g} source {src}: one case per kernel and baseline", f"{names} != {want}")
            for x in rows:
                label = f"{name}: {g} source {src} {x['name']}"
                c.check(x["status"] == "ok", f"{label}: status ok", f"{x['status']}: {x['note']}")
                c.check(x["runs"] == len(x["seconds"]) == x["runs_planned"] == 2, f"{label}: 2 timed runs",
                        f"runs {x['runs']}, seconds {x['seconds']}")
                nums = ["vertices", "entries", "levels", "reached", "edges_traversed", "seconds_median", "seconds_min"]
                c.check(all(is_number(x[key]) for key in nums), f"{label}: numbers present",
                        str({key: x[key] for key in nums}))
                c.check(all(is_number(t) and t >= 0 for t in x["seconds"]), f"{label}: run times are numbers")
                if is_number(x["seconds_median"]) and x["seconds_median"] > 0:
                    c.check(is_number(x["gteps"]), f"{label}: GTEPS present", str(x["gteps"]))
                    if is_number(x["gteps"]):
                        want_g = x["edges_traversed"] / x["seconds_median"] / 1e9
                        c.check(abs(x["gteps"] - want_g) <= 1e-9 + 1e-6 * want_g, f"{label}: GTEPS = edges / median")
                c.check(bool(x["device"]), f"{label}: names the device")
                c.check(x["source_kind"] in ("max-degree", "random"), f"{label}: source kind")
            if rows:
                first = rows[0]
                c.check(first["validated"], f"{name}: {g} source {src}: first result validated")
                for x in rows[1:]:
                    c.check(x["compared_with"] == first["name"], f"{name}: {g} source {src} {x['name']}: compared")
                    c.check((x["levels"], x["reached"], x["edges_traversed"]) ==
                            (first["levels"], first["reached"], first["edges_traversed"]),
                            f"{name}: {g} source {src} {x['name']}: agrees with {first['name']}",
                            f"{(x['levels'], x['reached'], x['edges_traversed'])} vs "
                            f"{(first['levels'], first['reached'], first['edges_traversed'])}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="folder holding bfs_bench")
    ap.add_argument("--matrices", required=True, help="the sample matrices folder")
    args = ap.parse_args()
    exe = os.path.join(args.bin, "bfs_bench")
    if not os.access(exe, os.X_OK):
        print(f"FAIL: {exe} not found or not executable\n0 passed, 1 failed")
        return 1
    c = Checker(exe, RUN_TIMEOUT)
    karate = os.path.join(args.matrices, "karate.mtx")
    t_start = time.monotonic()

    with tempfile.TemporaryDirectory(prefix="test_bench_") as tmp:
        tie = os.path.join(tmp, "tie.mtx")
        with open(tie, "w", encoding="ascii") as f:
            f.write(f"%%MatrixMarket matrix coordinate pattern general\n{TIE_N} {TIE_N} {len(TIE_ARCS)}\n")
            for i, j in TIE_ARCS:
                f.write(f"{i + 1} {j + 1}\n")

        # 1. The small preset on the host, as the brief's command runs it.
        out1 = os.path.join(tmp, "out.json")
        rc, out, err, secs = c.run_timed(["--preset", "small", "--device", "host", "--repeat", "2", "--json", out1])
        print(f"preset small: exit {rc} in {secs:.1f} s", flush=True)
        if c.check(rc == 0, "preset small: exit 0", err[-1500:]):
            c.check("GTEPS" in out and "median ms" in out and "peak MiB" in out, "preset small: table header")
            c.check(EDGES_COUNTED_AS in out, "preset small: the table says how edges are counted")
            for g in PRESET_SMALL:
                c.check(any(line.startswith(g + " ") for line in out.splitlines()), f"preset small: table row for {g}")
            c.check("[1/4]" in err and "[4/4]" in err, "preset small: progress on stderr")
            j = load_json(c, out1, "preset small")
            if j:
                check_header(c, j, "preset small")
                c.check(j["settings"].get("repeat") == 2, "preset small: settings.repeat")
                c.check([g["graph"] for g in j["graphs"]] == PRESET_SMALL, "preset small: the preset's graphs",
                        str([g["graph"] for g in j["graphs"]]))
                check_cases(c, j, "preset small", PRESET_SMALL, ["auto"])
                c.check(all(x["kind"] != "host-backend" for x in j["cases"]),
                        "preset small: no separate host baseline when the kernels run on the host")

        # 1b. The small real suite: the generated shapes, and of the real files only web-edu.mtx (a
        # stand-in in its format, headerless and stored once per edge: the path 0-1-2-3, so 6
        # entries once symmetrized; the max-degree source is 1, 3 levels); the others are missing.
        graph_dir = os.path.join(tmp, "graphs")
        os.mkdir(graph_dir)
        with open(os.path.join(graph_dir, "web-edu.mtx"), "w", encoding="ascii") as f:
            f.write("4 4 3\n1 2\n2 3\n3 4\n")
        out_real = os.path.join(tmp, "real.json")
        saved_dir = os.environ.get("GBCUDA_GRAPH_DIR")
        os.environ["GBCUDA_GRAPH_DIR"] = graph_dir
        try:
            rc, out, err, secs = c.run_timed(["--preset", "real-small", "--device", "host", "--repeat", "2",
                                              "--json", out_real])
        finally:
            if saved_dir is None:
                del os.environ["GBCUDA_GRAPH_DIR"]
            else:
                os.environ["GBCUDA_GRAPH_DIR"] = saved_dir
        print(f"preset real-small: exit {rc} in {secs:.1f} s", flush=True)
        if c.check(rc == 0, "preset real-small: exit 0 (missing real files are not a failure)", err[-1500:]):
            for name in REAL_FILES:
                if name == "web-edu.mtx":
                    continue
                c.check(any(name in ln and "scripts/real-graphs.sh" in ln for ln in err.splitlines()),
                        f"preset real-small: missing {name} named with the command that gets it", err[-800:])
            j = load_json(c, out_real, "preset real-small")
            if j:
                graphs = PRESET_REAL_SMALL + ["web-edu.mtx"]
                c.check([g["graph"] for g in j["graphs"]] == graphs, "preset real-small: its graphs, then the files found",
                        str([g["graph"] for g in j["graphs"]]))
                check_cases(c, j, "preset real-small", graphs, ["auto"])
                rec = {g["graph"]: g for g in j["graphs"]}
                edu = rec.get("web-edu.mtx", {})
                c.check(edu.get("vertices") == 4 and edu.get("entries") == 6 and "symmetrized" in edu.get("read_as", "")
                        and edu.get("path") == os.path.join(graph_dir, "web-edu.mtx"),
                        "preset real-small: web-edu.mtx read headerless and symmetrized", str(edu))
                c.check(all(rec.get(g, {}).get("generated") for g in PRESET_REAL_SMALL),
                        "preset real-small: the shapes are generated")
                first = {x["graph"]: x for x in reversed(j.get("cases", []))}  # each graph's first case
                web, road, edu_case = first.get("web:20000", {}), first.get("road:120:100", {}), first.get("web-edu.mtx", {})
                c.check(20 <= web.get("levels", 0) <= 34, "preset real-small: web:20000 has the crawl's 20-34 levels",
                        str(web.get("levels")))
                c.check(road.get("reached") == 12000 and road.get("levels", 0) >= 150,
                        "preset real-small: road:120:100 is connected and deep", str((road.get("reached"), road.get("levels"))))
                c.check((edu_case.get("source"), edu_case.get("levels"), edu_case.get("reached")) == (1, 3, 4),
                        "preset real-small: web-edu.mtx stand-in's BFS", str(edu_case))

        # 2. Known answers: sources (max degree with a tie, every other non-isolated vertex), levels.
        out2 = os.path.join(tmp, "out2.json")
        rc, out, err, secs = c.run_timed([tie, karate, "--device", "host", "--kernels", "all", "--sources", "100",
                                    "--repeat", "2", "--warmup", "1", "--seed", "7", "--json", out2])
        print(f"known graphs: exit {rc} in {secs:.1f} s", flush=True)
        if c.check(rc == 0, "known graphs: exit 0", err[-1500:]):
            j = load_json(c, out2, "known graphs")
            if j:
                check_header(c, j, "known graphs")
                check_cases(c, j, "known graphs", [tie, karate], HOST_KERNELS)
                graphs = {g["graph"]: g for g in j["graphs"]}
                for path, (n, arcs) in [(tie, (TIE_N, TIE_ARCS)), (karate, read_mtx_arcs(karate))]:
                    g = graphs.get(path)
                    if not g:
                        continue
                    name = os.path.basename(path)
                    degree = [0] * n
                    for i, _ in arcs:
                        degree[i] += 1
                    best = max(range(n), key=lambda v: (degree[v], -v))
                    sources = [s["vertex"] for s in g["sources"]]
                    c.check(sources[0] == best, f"{name}: first source is the max-degree vertex {best}", str(sources))
                    c.check(g["max_out_degree"] == degree[best], f"{name}: max_out_degree")
                    c.check(len(set(sources)) == len(sources), f"{name}: sources distinct", str(sources))
                    others = {v for v in range(n) if degree[v] > 0 and v != best}
                    c.check(set(sources[1:]) == others, f"{name}: --sources 100 takes every other non-isolated vertex",
                            f"{sorted(sources[1:])} vs {sorted(others)}")
                    c.check(all(s["kind"] == "random" for s in g["sources"][1:]), f"{name}: random sources marked")
                    for x in j["cases"]:
                        if x["graph"] != path:
                            continue
                        lv = bfs_levels(n, arcs, x["source"])
                        want = (max(lv) + 1, sum(1 for v in lv if v >= 0),
                                sum(degree[v] for v in range(n) if lv[v] >= 0))
                        c.check((x["levels"], x["reached"], x["edges_traversed"]) == want,
                                f"{name} source {x['source']} {x['name']}: levels, reached, edges",
                                f"{(x['levels'], x['reached'], x['edges_traversed'])} != {want}")

        # 3. Same seed, same sources; the CPU-baseline size limit says why rows are skipped.
        out3 = os.path.join(tmp, "out3.json")
        rc, out, err, secs = c.run_timed([karate, "--device", "host", "--sources", "3", "--seed", "7", "--repeat", "1",
                                    "--warmup", "0", "--host-max-entries", "10", "--json", out3])
        if c.check(rc == 0, "size limit: exit 0", err[-1500:]):
            c.check(TOO_LARGE in out, "size limit: the table says the baseline was skipped", out[-1500:])
            j = load_json(c, out3, "size limit")
            if j:
                grb = [x for x in j["cases"] if x["name"] == "graphblas"]
                c.check(len(grb) == 4 and all(x["status"] == "skipped" and x["note"] == TOO_LARGE for x in grb),
                        "size limit: graphblas rows skipped", str(grb)[:500])
                j2 = load_json(c, out2, "known graphs")
                if j2:
                    s2 = [g["sources"] for g in j2["graphs"] if g["graph"] == karate]
                    s3 = [g["sources"] for g in j["graphs"] if g["graph"] == karate]
                    c.check(s2 and s3 and s2[0][:4] == s3[0], "the seed fixes the random sources", f"{s2} / {s3}")

        # 4. --no-graphblas leaves the baseline out.
        rc, out, err, secs = c.run_timed([tie, "--device", "host", "--no-graphblas", "--repeat", "1", "--warmup", "0"])
        if c.check(rc == 0, "--no-graphblas: exit 0", err[-1500:]):
            rows = [line for line in out.splitlines() if line.startswith(tie + " ")]
            c.check(len(rows) == 1 and " graphblas " not in rows[0], "--no-graphblas: only the kernel's row",
                    out[-800:])

        # 4b. --reorder: each kernel once per ordering, the same answers in the graph's own ids, the
        # baselines once, the orderings' cost recorded.
        out4 = os.path.join(tmp, "out4.json")
        rc, out, err, secs = c.run_timed([tie, karate, "--device", "host", "--kernels", "auto,pull", "--reorder",
                                          "none,degree,rcm", "--sources", "2", "--repeat", "2", "--warmup", "1",
                                          "--json", out4])
        if c.check(rc == 0, "--reorder: exit 0", err[-1500:]):
            c.check(" order " in out.splitlines()[0] and " rcm " in out, "--reorder: the table has an order column")
            c.check("relabelling (rcm)" in err, "--reorder: progress names the relabelling", err[-600:])
            j = load_json(c, out4, "--reorder")
            if j:
                check_header(c, j, "--reorder")
                c.check(j["settings"].get("orderings") == ["none", "degree", "rcm"], "--reorder: settings.orderings")
                for g in j["graphs"]:
                    ords = g.get("orderings", [])
                    c.check([o["ordering"] for o in ords] == ["degree", "rcm"] and
                            all(is_number(o["seconds"]) and o["error"] is None for o in ords),
                            f"--reorder: {g['graph']}: the orderings' cost", str(ords))
                    for src in [x["vertex"] for x in g["sources"]]:
                        rows = [x for x in j["cases"] if x["graph"] == g["graph"] and x["source"] == src]
                        got = [(x["name"], x["ordering"]) for x in rows]
                        want = [(k, o) for o in ("none", "degree", "rcm") for k in ("auto", "pull")]
                        want.append(("graphblas", "none"))
                        c.check(got == want, f"--reorder: {g['graph']} source {src}: one row per kernel and ordering",
                                str(got))
                        c.check(all(x["status"] == "ok" for x in rows) and
                                len({(x["levels"], x["reached"], x["edges_traversed"]) for x in rows}) == 1,
                                f"--reorder: {g['graph']} source {src}: every ordering gives the same answer",
                                str([(x["status"], x["note"], x["levels"], x["reached"]) for x in rows]))
                        c.check(rows and rows[0]["validated"] and all(x["compared_with"] == "auto" for x in rows[1:]),
                                f"--reorder: {g['graph']} source {src}: checked against the first row")

        # 4c. A .gbc file saved with an ordering (by bfs_spmv): that ordering is used, not computed
        # again; the baselines search the graph in its original ids; the answers are the same.
        spmv = os.path.join(os.path.dirname(exe), "bfs_spmv")
        gbc = os.path.join(tmp, "karate-rcm.gbc")
        rc_s = subprocess.run([spmv, karate, "--reorder", "rcm", "--save", gbc, "--device", "host"],
                              capture_output=True, text=True, timeout=RUN_TIMEOUT).returncode
        out5 = os.path.join(tmp, "out5.json")
        if c.check(rc_s == 0 and os.path.isfile(gbc), "bfs_spmv --reorder rcm --save writes a .gbc"):
            rc, out, err, secs = c.run_timed([gbc, "--device", "host", "--reorder", "none,rcm,degree", "--repeat", "1",
                                              "--warmup", "0", "--json", out5])
            if c.check(rc == 0, "saved ordering: exit 0", err[-1500:]):
                c.check("rcm ordering saved in the file" in err, "saved ordering: stderr says it came from the file",
                        err[-600:])
                j = load_json(c, out5, "saved ordering")
                if j:
                    ords = {o["ordering"]: o for o in j["graphs"][0].get("orderings", [])}
                    c.check(ords.get("rcm", {}).get("from_file") is True and
                            ords.get("degree", {}).get("from_file") is False,
                            "saved ordering: rcm from the file, degree computed", str(ords))
                    rows = j["cases"]
                    c.check(len(rows) == 4 and all(x["status"] == "ok" for x in rows) and
                            len({(x["levels"], x["reached"]) for x in rows}) == 1 and
                            rows[0]["vertices"] == 34,
                            "saved ordering: every ordering and GraphBLAS agree on karate",
                            str([(x["name"], x["ordering"], x["status"], x["levels"]) for x in rows]))

        # 5. Usage errors: exit 2, a message on stderr, nothing on stdout, no JSON written.
        bad_json = os.path.join(tmp, "bad.json")
        bad = [
            ("no graphs", []),
            ("unknown option", [tie, "--frobnicate"]),
            ("repeat 0", [tie, "--repeat", "0"]),
            ("negative sources", [tie, "--sources", "-1"]),
            ("unknown kernel", [tie, "--kernels", "nosuch"]),
            ("empty kernel name", [tie, "--kernels", "auto,,pull"]),
            ("GPU kernel on the host", [tie, "--device", "host", "--kernels", "rodinia"]),
            ("unknown preset", ["--preset", "huge"]),
            ("unknown device", [tie, "--device", "gpu"]),
            ("missing file", [os.path.join(tmp, "nope.mtx")]),
            ("bad spec", ["kron:abc:16"]),
            ("zero timeout", [tie, "--timeout-per-case", "0"]),
            ("unknown ordering", [tie, "--reorder", "none,gorder"]),
            ("ordering twice", [tie, "--reorder", "rcm,rcm"]),
            ("json folder missing", [tie, "--json", os.path.join(tmp, "no", "such", "dir", "x.json")]),
        ]
        for name, argv in bad:
            rc, out, err, _ = c.run_timed(argv + ["--json", bad_json] if "--json" not in argv else argv)
            c.check(rc == 2, f"{name}: exit 2", f"args {argv}: exit {rc}; stderr: {err.strip()[-400:]}")
            c.check("bfs_bench: error:" in err, f"{name}: stderr says 'bfs_bench: error:'", err.strip()[-400:])
            c.check(out.strip() == "", f"{name}: nothing on stdout", out[:300])
            c.check(not os.path.exists(bad_json), f"{name}: no JSON written")

        # 1c. The reader flags on a GRAPH file: a 1-based edge list stored once per edge, with an
        # "N M" header line (the path 1-2-3-4-5), read as it says and searched as A + A'.
        path5 = os.path.join(tmp, "path5.txt")
        with open(path5, "w", encoding="ascii") as f:
            f.write("5 4\n1 2\n2 3\n3 4\n4 5\n")
        out_flags = os.path.join(tmp, "flags.json")
        rc, out, err, _ = c.run_timed([path5, "--index-base", "1", "--header", "yes", "--symmetrize", "--device", "host",
                                       "--repeat", "1", "--warmup", "0", "--no-graphblas", "--json", out_flags])
        if c.check(rc == 0, "reader flags: exit 0", err[-800:]):
            j = load_json(c, out_flags, "reader flags")
            if j:
                g = j["graphs"][0]
                c.check(g.get("vertices") == 5 and g.get("entries") == 8, "reader flags: 5 vertices, 8 entries (A + A')",
                        str(g))
                c.check(g.get("read_as") == "auto, 1-based, header yes, symmetrized (A + A')",
                        "reader flags: the JSON says how the file was read", str(g.get("read_as")))
                case = j["cases"][0]
                c.check(case.get("reached") == 5 and case.get("validated"), "reader flags: the BFS reaches all 5",
                        str(case))
        rc, out, err, _ = c.run_timed([path5, "--index-base", "1", "--header", "no", "--device", "host", "--repeat", "1",
                                       "--warmup", "0", "--no-graphblas", "--json", out_flags])
        if c.check(rc == 0, "reader flags, --header no: exit 0", err[-800:]):
            j = load_json(c, out_flags, "reader flags, --header no")
            if j:
                c.check(j["graphs"][0].get("entries") == 5, "--header no: the first line is an edge (5 entries)",
                        str(j["graphs"][0]))

        rc, out, err, _ = c.run_timed(["--help"])
        if c.check(rc == 0, "--help: exit 0"):
            for opt in ["--reorder", "--kernels", "--sources", "--seed", "--repeat", "--warmup", "--device", "--json", "--preset",
                        "--no-graphblas", "--no-host", "--host-max-entries", "--timeout-per-case", "real-small",
                        "scripts/real-graphs.sh", "GBCUDA_GRAPH_DIR", "--format", "--index-base", "--header",
                        "--symmetrize", "--graph500", "--no-validate", "--partitions", "--transport", "--gpus"]:
                c.check(opt in out, f"--help mentions {opt}")

        # --graph500: kernel 1 timed, the keys searched and validated, the reference output format.
        g5 = os.path.join(tmp, "g500.json")
        rc, out, err, _ = c.run_timed(["--graph500", "10", "8", "--device", "host", "--json", g5])
        if c.check(rc == 0, "--graph500 10 8: exit 0", err[-800:]):
            fields = dict(ln.split(": ", 1) for ln in out.splitlines() if ": " in ln)
            for k in ["SCALE", "edgefactor", "NBFS", "graph_generation", "construction_time", "bfs  median_time",
                      "bfs  harmonic_mean_TEPS", "median_nedge", "bfs  validation"]:
                c.check(k in fields, f"--graph500: prints {k}", out[:600])
            c.check(fields.get("SCALE") == "10" and fields.get("edgefactor") == "8" and fields.get("NBFS") == "64",
                    "--graph500: SCALE 10, edgefactor 8, 64 searches", out[:300])
            c.check(fields.get("bfs  validation") == "passed", "--graph500: every search validated")
            j = load_json(c, g5, "--graph500")
            if j:
                c.check(len(j.get("searches", [])) == 64 and len({s["key"] for s in j["searches"]}) == 64,
                        "--graph500 JSON: 64 distinct keys")
                c.check(all(0 < s["nedge"] <= 8 * 1024 and s["valid"] for s in j["searches"]),
                        "--graph500 JSON: each search's nedge within the drawn edges, valid")
                c.check(j.get("edges_drawn") == 8 * 1024 and j["teps"]["min"] <= j["teps"]["harmonic_mean"] <= j["teps"]["max"],
                        "--graph500 JSON: edges drawn, TEPS statistics", str(j.get("teps")))
        # --graph500 with --partitions: the parts built in kernel 1, every search's tree validated.
        g5p = os.path.join(tmp, "g500p.json")
        rc, out, err, _ = c.run_timed(["--graph500", "10", "8", "--device", "host", "--partitions", "3", "--json", g5p])
        if c.check(rc == 0, "--graph500 10 8 --partitions 3: exit 0", err[-800:]):
            fields = dict(ln.split(": ", 1) for ln in out.splitlines() if ": " in ln)
            c.check(fields.get("bfs  validation") == "passed" and fields.get("num_parts") == "3",
                    "--graph500 --partitions 3: 3 parts, every search validated", out[-600:])
            j = load_json(c, g5p, "--graph500 --partitions")
            if j:
                c.check(j.get("partitions") == 3 and j.get("transport") == "loopback" and j.get("invalid") == 0
                        and len(j.get("searches", [])) == 64, "--graph500 --partitions JSON: 3 loopback parts, 64 valid",
                        str({k: j.get(k) for k in ("partitions", "transport", "invalid")}))
        for args, what in [(["--partitions", "2", karate], "--partitions without --graph500"),
                           (["--graph500", "10", "--transport", "nccl"], "--transport without --partitions"),
                           (["--graph500", "10", "--partitions", "2", "--transport", "mpi"], "an unknown transport")]:
            rc, out, err, _ = c.run_timed([*args, "--device", "host"])
            c.check(rc == 2, f"--graph500: {what} is a usage error", f"exit {rc}; {err[-300:]}")
        for args, what in [(["--graph500", "10", karate], "a GRAPH"), (["--graph500", "0"], "SCALE 0"),
                           (["--graph500", "10", "--kernels", "pull"], "--kernels"), (["--no-validate", karate], "--no-validate alone")]:
            rc, out, err, _ = c.run_timed([*args, "--device", "host"])
            c.check(rc == 2, f"--graph500: {what} is a usage error", f"exit {rc}; {err[-300:]}")

        # --kernels list: the library's kernels, algebra, and (in a CUDA build) the seed kernels.
        rc, out, err, _ = c.run_timed(["--kernels", "list", "--device", "host"])
        names = [ln.split()[0] for ln in out.splitlines() if ln.strip()]
        c.check(rc == 0 and names == HOST_KERNELS, "--kernels list --device host: the host's kernels",
                f"exit {rc}; {names}; {err[-300:]}")

    print(f"{c.passed} passed, {c.failed} failed ({time.monotonic() - t_start:.1f} s)")
    return 0 if c.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
