#!/usr/bin/env bash
# On the GPU host, after a build: compute-sanitizer over every test case that runs GPU code (the
# cases of ctest's "gpu" label, tests/CMakeLists.txt):
#   memcheck   every GPU case of every test binary (out-of-bounds and misaligned accesses, errors
#              returned by CUDA calls);
#   racecheck  the kernel tests: every product kernel in the fused and the algebra loop, with tiny
#              capacities so the overflow paths run, and every operation's kernels (shared-memory
#              races in the queues and block reductions).
# The runs go in parallel (one process each), each under its own time limit. One line per run:
# the sanitizer's summary, tests passed/failed, and whether it finished; exit 1 if any run reports
# an error, fails a test or runs out of time. Logs under $OUT (default gpu-logs).
#   source .gpu/setup.sh && scripts/gpu-sanitize.sh [build-dir] [seconds-per-run (default 540)]
set -uo pipefail
out=${OUT:-gpu-logs}
build=${1:-/tmp/build-gpu}
limit=${2:-540}
mkdir -p "$out"
# Calibration would time kernels under the sanitizer: use the default policy.
export GBCUDA_CALIBRATION=off OMP_NUM_THREADS=2
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
gpu_cases='*Cuda*:*cuda*:*Gpu*:*Device*'  # as GBCUDA_GPU_CASES in tests/CMakeLists.txt

runs=()
start() {  # name tool binary filter
  local name=$1 tool=$2 bin=$3 filter=$4
  runs+=("$name")
  (
    timeout "$limit" "$cs" --tool "$tool" --error-exitcode 99 "$build/bin/$bin" --gtest_filter="$filter" \
      > "$out/san-$name.log" 2>&1
    echo $? > "$out/san-$name.rc"
  ) &
}
start memcheck-product-kernels memcheck test_product_kernels '*'
start memcheck-cuda-backend memcheck test_cuda_backend '*'
start memcheck-ops memcheck test_ops "$gpu_cases"
start memcheck-bfs memcheck test_bfs "$gpu_cases"
start memcheck-examples memcheck test_examples "$gpu_cases"
start memcheck-algorithms memcheck test_algorithms "$gpu_cases"
start memcheck-generators memcheck test_generators "$gpu_cases:*HostAndGpu*"
start memcheck-matrix memcheck test_matrix "$gpu_cases"
start racecheck-product-kernels racecheck test_product_kernels 'Kernels/*:FusedBfs.*'
start racecheck-ops racecheck test_ops '*Cuda*'
wait

status=0
printf '%-27s %-4s %-44s %s\n' run rc summary 'tests ok / failed'
for name in "${runs[@]}"; do
  log="$out/san-$name.log"
  rc=$(cat "$out/san-$name.rc" 2>/dev/null || echo '?')
  summary=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1 | sed 's/^========= //')
  [ "$rc" = 124 ] && summary="ran out of its ${limit} s (${summary:-no summary})"
  printf '%-27s %-4s %-44s %s / %s\n' "$name" "$rc" "${summary:-?}" \
    "$(grep -c '^\[       OK' "$log")" "$(grep -c '^\[  FAILED  \] [A-Z]' "$log")"
  [ "$rc" = 0 ] || status=1
done
exit $status
