#!/usr/bin/env bash
# On the GPU host: build, the kernel tests, the standard benchmark with every baseline, then
# compute-sanitizer memcheck and racecheck on the frontier-kernel tests. Logs under $OUT.
set -uo pipefail
out=${OUT:-gpu-logs}
mkdir -p "$out"
export OMP_NUM_THREADS=16 GBCUDA_CACHE_DIR=${GBCUDA_CACHE_DIR:-/tmp/gbcuda-cache}
{ cmake -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build build-gpu -j"$(nproc)"; } > "$out/build.log" 2>&1 \
  || { tail -40 "$out/build.log"; exit 1; }
for t in test_frontier_kernels test_bfs; do
  timeout 120 build-gpu/bin/$t > "$out/$t.log" 2>&1
  echo "$t rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$out/$t.log" | tr '\n' ' ')"
  grep -E '^\[  FAILED' "$out/$t.log" | head -5
done
timeout 230 build-gpu/bin/bfs_bench --preset standard --json "$out/bench.json" > "$out/bench.txt" 2> "$out/bench.err"
echo "bench rc=$?"
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
GBCUDA_CALIBRATION=off timeout 60 "$cs" --tool memcheck --error-exitcode 99 build-gpu/bin/test_frontier_kernels \
  --gtest_filter='Kernels/*SampleMatrices*:Engine/*' > "$out/memcheck.log" 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$out/memcheck.log" | tail -1) $(grep -c '^\[       OK' "$out/memcheck.log") tests ok"
GBCUDA_CALIBRATION=off timeout 90 "$cs" --tool racecheck --error-exitcode 99 build-gpu/bin/test_frontier_kernels \
  --gtest_filter='Engine/TinyCapacities.*/queue_warp:Engine/TinyCapacities.*/queue_block:Engine/TinyCapacities.*/single_block' > "$out/racecheck.log" 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$out/racecheck.log" | tail -1) $(grep -c '^\[       OK' "$out/racecheck.log") tests ok"
cut -c1-150 "$out/bench.txt" | head -32
