#!/usr/bin/env bash
# On the GPU host: build into a folder outside the tree, then run the tests that exercise the CUDA
# backend (the product's kernels in both loops, every operation against GraphBLAS and the host,
# the BFS, the examples), several at once, and a few timings. Logs under $OUT (default gpu-logs);
# a table of results last.
#   source .gpu/setup.sh && scripts/gpu-verify.sh [build-dir] [gtest-filter-for-test_product_kernels]
set -uo pipefail
out=${OUT:-gpu-logs}
build=${1:-/tmp/build-gpu}
filter=${2:-*}
mkdir -p "$out"
export GBCUDA_CACHE_DIR=${GBCUDA_CACHE_DIR:-/tmp/gbcuda-cache} OMP_NUM_THREADS=4
t0=$(date +%s)
if [ ! -f "$build/build.ninja" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
fi
cmake --build "$build" -j"$(nproc)" > "$out/build.log" 2>&1 || { grep -E 'error|Error' "$out/build.log" | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
run() {  # name timeout binary args...
  local name=$1 limit=$2; shift 2
  ( timeout "$limit" "$@" > "$out/$name.log" 2>&1; echo $? > "$out/$name.rc" ) &
}
run product_kernels 420 "$build/bin/test_product_kernels" --gtest_filter="$filter"
run ops 420 "$build/bin/test_ops" --gtest_filter='*Cuda*'
run cuda_backend 420 "$build/bin/test_cuda_backend"
run bfs 420 "$build/bin/test_bfs" --gtest_filter='*cuda*:*Cuda*'
run examples 300 "$build/bin/test_examples"
run matrix 120 "$build/bin/test_matrix"
wait
printf '%-18s %-4s %-28s %s\n' test rc result first-failures
for f in "$out"/*.rc; do
  n=$(basename "$f" .rc)
  printf '%-18s %-4s %-28s %s\n' "$n" "$(cat "$f")" \
    "$(grep -E '^\[  PASSED|^\[  FAILED  \] [0-9]' "$out/$n.log" | tr '\n' ' ' | cut -c1-60)" \
    "$(grep -E '^\[  FAILED  \] [A-Z]' "$out/$n.log" | head -3 | cut -c14-90 | tr '\n' ' ')"
done
echo "total $(( $(date +%s) - t0 )) s"
