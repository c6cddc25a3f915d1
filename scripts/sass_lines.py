#!/usr/bin/env python3
"""Compares the machine code of two builds of a kernel file, source line by source line: how
many SASS instructions each line of each source file compiled to, in build A and build B, and
where they differ. Meant for changes that should leave a path alone (a change to the pull and
the grid's push levels, say): in a kernel at its register cap, a
change anywhere can re-allocate and re-schedule code everywhere, and this shows where. Standard
library only; needs `nvdisasm` (CUDA toolkit, or PyPI's nvidia-cuda-nvdisasm wheel, whose
nvidia/cu13/bin/nvdisasm runs as is).

Compile each tree's file to a cubin with line info, then compare:

    nvcc -arch=sm_90 -cubin -lineinfo -O3 ... lib/cuda/product/fused_bfs.cu -o a.cubin
    scripts/sass_lines.py a.cubin b.cubin [--file common.cuh] [--nvdisasm PATH]

Prints instructions per source file (A, B, change), then, for each file named with --file (base
name), the lines whose counts differ. Line numbers are compared as they are: name only files the
change did not edit, or their lines will not correspond.
"""
import argparse
import collections
import re
import shutil
import subprocess
import sys

LINE_INFO = re.compile(r'//## File "([^"]+)", line (\d+)')
INSTRUCTION = re.compile(r"^\s+/\*[0-9a-f]{4,}\*/")


def count_by_line(cubin, nvdisasm):
    """{(file base name, line): instructions} of every function in the cubin."""
    try:
        text = subprocess.run([nvdisasm, "-g", "-c", cubin], check=True, capture_output=True, text=True).stdout
    except FileNotFoundError:
        sys.exit(f"no nvdisasm at '{nvdisasm}' (give one with --nvdisasm)")
    except subprocess.CalledProcessError as e:
        sys.exit(f"{cubin}: nvdisasm failed: {e.stderr.strip() or e.returncode}")
    counts = collections.Counter()
    where = None
    for line in text.splitlines():
        m = LINE_INFO.search(line)
        if m:
            where = (m.group(1).rsplit("/", 1)[-1], int(m.group(2)))
        elif where and INSTRUCTION.match(line):
            counts[where] += 1
    if not counts:
        sys.exit(f"{cubin}: no instructions with line info (compile with -lineinfo)")
    return counts


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("a", help="cubin of build A (before)")
    p.add_argument("b", help="cubin of build B (after)")
    p.add_argument("--file", action="append", default=[], help="a source file (base name) to compare line by line")
    p.add_argument("--nvdisasm", default=shutil.which("nvdisasm") or "nvdisasm", help="the nvdisasm to run")
    args = p.parse_args()
    a = count_by_line(args.a, args.nvdisasm)
    b = count_by_line(args.b, args.nvdisasm)
    files = sorted({f for f, _ in a} | {f for f, _ in b})
    print(f"{'source file':32s} {'A':>7s} {'B':>7s} {'change':>7s}")
    for f in files:
        sa = sum(v for (g, _), v in a.items() if g == f)
        sb = sum(v for (g, _), v in b.items() if g == f)
        print(f"{f:32s} {sa:7d} {sb:7d} {sb - sa:+7d}")
    print(f"{'all':32s} {sum(a.values()):7d} {sum(b.values()):7d} {sum(b.values()) - sum(a.values()):+7d}")
    for f in args.file:
        lines = sorted({n for g, n in a if g == f} | {n for g, n in b if g == f})
        changed = [(n, a.get((f, n), 0), b.get((f, n), 0)) for n in lines if a.get((f, n), 0) != b.get((f, n), 0)]
        print(f"\n{f}: {len(changed)} of {len(lines)} lines compiled to a different number of instructions")
        for n, x, y in changed:
            print(f"  line {n:5d}: {x:5d} -> {y:5d} ({y - x:+d})")


if __name__ == "__main__":
    main()
