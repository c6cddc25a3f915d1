#!/usr/bin/env bash
# On the GPU host: build, the standard benchmark suite (what `make bench` runs), then
# compute-sanitizer memcheck and racecheck on the product's kernel tests. Logs under $OUT.
#   source .gpu/setup.sh && scripts/gpu-bench.sh [bench-seconds] [sanitizer-seconds]
set -uo pipefail
out=${OUT:-gpu-logs}
mkdir -p "$out"
export OMP_NUM_THREADS=16 GBCUDA_CACHE_DIR=${GBCUDA_CACHE_DIR:-/tmp/gbcuda-cache}
{ cmake -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build build-gpu -j"$(nproc)"; } > "$out/build.log" 2>&1 \
  || { tail -40 "$out/build.log"; exit 1; }
t0=$(date +%s)
timeout "${1:-300}" build-gpu/bin/bfs_bench --preset standard --json "$out/bench.json" > "$out/bench.txt" 2> "$out/bench.err"
echo "bench rc=$? ($(( $(date +%s) - t0 )) s)"
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
filter='Kernels/TinyCapacities.*:FusedBfs.*'  # the long-path cases take 1e5 levels: too slow under the sanitizer
for tool in memcheck racecheck; do
  GBCUDA_CALIBRATION=off timeout "${2:-90}" "$cs" --tool $tool --error-exitcode 99 \
    build-gpu/bin/test_product_kernels --gtest_filter="$filter" > "$out/san-$tool.log" 2>&1
  echo "sanitizer $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/san-$tool.log" | tail -1) $(grep -c '^\[       OK' "$out/san-$tool.log") tests ok"
done
cat "$out/bench.txt"
