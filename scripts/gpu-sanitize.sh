#!/usr/bin/env bash
# On the GPU host, after a build: compute-sanitizer memcheck and racecheck on the product's
# kernel tests (every kernel in the fused and the algebra loop with tiny capacities, so the
# overflow paths run, plus the fused BFS's own tests and the host-wait tests), and memcheck on
# the CUDA BFS samples and the operations against GraphBLAS. Logs under $OUT (default gpu-logs);
# one summary line per run; exit 1 if any reports errors or runs out of its time.
#   source .gpu/setup.sh && scripts/gpu-sanitize.sh [build-dir]
set -uo pipefail
out=${OUT:-gpu-logs}
build=${1:-build-gpu}
mkdir -p "$out"
export GBCUDA_CALIBRATION=off OMP_NUM_THREADS=8
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
status=0
run() {  # name tool timeout binary filter
  timeout "$3" "$cs" --tool "$2" --error-exitcode 99 "$build/bin/$4" --gtest_filter="$5" > "$out/san-$1.log" 2>&1
  local rc=$?
  printf '%-22s rc=%-3s %s; %s tests ok, %s failed\n' "$1" "$rc" \
    "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/san-$1.log" | tail -1)" \
    "$(grep -c '^\[       OK' "$out/san-$1.log")" "$(grep -c '^\[  FAILED  \] [A-Z]' "$out/san-$1.log")"
  [ "$rc" = 0 ] || status=1
}
fused='Kernels/TinyCapacities.*:FusedBfs.*:HostWaits.*:AlgebraOn*'
run memcheck-kernels memcheck 90 test_product_kernels "$fused"
run memcheck-samples memcheck 70 test_product_kernels 'Kernels/ProductKernel.SampleMatrices/*'
run racecheck-kernels racecheck 100 test_product_kernels 'Kernels/TinyCapacities.*'
run memcheck-ops memcheck 60 test_ops '*Cuda*EveryKernel*'
run memcheck-bfs memcheck 40 test_bfs '*SampleMatrices/cuda*'
exit $status
