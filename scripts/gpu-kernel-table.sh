#!/usr/bin/env bash
# On the GPU host: every kernel (the fused loop's, the algebra loop, the seed baselines) on a few
# graphs in one run (the kernel-by-kernel table of docs/performance.md). JSON and the Markdown
# table under $OUT.
#   source .gpu/setup.sh && scripts/gpu-kernel-table.sh [graphs...]
set -uo pipefail
out=${OUT:-gpu-logs}
mkdir -p "$out"
export OMP_NUM_THREADS=16 GBCUDA_CACHE_DIR=${GBCUDA_CACHE_DIR:-/tmp/gbcuda-cache}
[ -x build-gpu/bin/bfs_bench ] || { cmake -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release > "$out/configure.log" &&
  cmake --build build-gpu -j"$(nproc)" > "$out/build.log" 2>&1; } || { tail -30 "$out/build.log"; exit 1; }
graphs=("$@")
[ ${#graphs[@]} -gt 0 ] || graphs=(kron:20:16 urand:20:16 grid:1024:1024 randout:1000000:8 matrices/reg_d3_n100000.rodinia.txt)
build-gpu/bin/bfs_bench "${graphs[@]}" --kernels all --repeat 5 --timeout-per-case 10 --no-host \
  --json "$out/kernels.json" > "$out/kernels.txt" 2> "$out/kernels.err"
echo "bfs_bench rc=$?"
python3 scripts/bench_table.py "$out/kernels.json" | tee "$out/kernels.md"
