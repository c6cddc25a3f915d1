#!/usr/bin/env bash
# On the GPU host: build, then the frontier-kernel, baseline, generator and CLI tests, with logs
# under $OUT and a short table last.  source .gpu/setup.sh && scripts/gpu-kernels.sh
set -uo pipefail
out=${OUT:-gpu-logs}
mkdir -p "$out"
export OMP_NUM_THREADS=8 GBCUDA_CACHE_DIR=${GBCUDA_CACHE_DIR:-/tmp/gbcuda-cache}
row() { printf '%-26s %s\n' "$1" "$2" | tee -a "$out/summary.txt"; }
: > "$out/summary.txt"
t0=$(date +%s)
{ cmake -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build build-gpu -j"$(nproc)"; } > "$out/build.log" 2>&1 \
  || { tail -40 "$out/build.log"; exit 1; }
row build "ok ($(( $(date +%s) - t0 )) s)"
run_gtest() {  # name filter limit
  local t0=$(date +%s)
  timeout "$3" build-gpu/bin/$1 --gtest_filter="$2" > "$out/$1.log" 2>&1
  local rc=$?
  row "$1" "rc=$rc $(grep -E '^\[  (PASSED|FAILED)' "$out/$1.log" | tr '\n' ' ') ($(( $(date +%s) - t0 )) s)"
  grep -E '^\[  FAILED|Failure' "$out/$1.log" | head -8
}
run_gtest test_frontier_kernels '*' 300
run_gtest test_generators '*' 120
run_gtest test_bfs '*cuda*' 200
t0=$(date +%s)
ctest --test-dir build-gpu -R '^(cli|bench)$' --timeout 300 > "$out/ctest-cli.log" 2>&1
row "ctest cli+bench" "$(grep -E 'tests passed|tests failed' "$out/ctest-cli.log") ($(( $(date +%s) - t0 )) s)"
grep -E 'FAIL' "$out/ctest-cli.log" | head -10
ls "$GBCUDA_CACHE_DIR" 2>/dev/null | head -3
cat "$GBCUDA_CACHE_DIR"/* 2>/dev/null | head -c 600; echo
