#!/usr/bin/env bash
# On the GPU host, after a build: compute-sanitizer over the test cases that run GPU code (the
# cases of ctest's "gpu" label, tests/CMakeLists.txt):
#   memcheck   out-of-bounds and misaligned accesses, errors returned by CUDA calls;
#   racecheck  shared-memory races (the queues and block reductions of the product's kernels and
#              of every operation).
# In both modes the GPU cases of the smaller test binaries run whole under memcheck.
# The runs go in parallel (one process each), each under its own time limit. One line per run:
# the sanitizer's summary, tests passed/failed, and whether it finished; exit 1 if any run reports
# an error, fails a test or runs out of time. Logs under $OUT (default gpu-logs).
#   source .gpu/setup.sh && scripts/gpu-sanitize.sh [build-dir] [seconds-per-run (540)] [kernels|full]
# "kernels" (the default) runs every kernel on the small cases (the product's tests with tiny
# capacities and the samples, every operation with each kernel forced, the BFS samples) and
# is meant to finish in minutes; "full" takes every GPU case, which under memcheck and racecheck
# runs for hours. All runs share the one GPU at once: on an H100, "kernels" mode needs more than
# 300 s a run (the second argument).
set -uo pipefail
out=${OUT:-gpu-logs}
build=${1:-/tmp/build-gpu}
limit=${2:-540}
mode=${3:-kernels}
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
if [ "$mode" = full ]; then  # every GPU case: hours under the sanitizers, more than one call's limit
  start memcheck-product-kernels memcheck test_product_kernels '*'
  start memcheck-cuda-backend memcheck test_cuda_backend '*'
  start memcheck-ops memcheck test_ops "$gpu_cases"
  start memcheck-bfs memcheck test_bfs "$gpu_cases"
  start racecheck-product-kernels racecheck test_product_kernels 'Kernels/*:FusedBfs.*'
  start racecheck-ops racecheck test_ops '*Cuda*'
else  # every kernel, on the small cases: a few minutes
  start memcheck-product-kernels memcheck test_product_kernels \
    'Kernels/TinyCapacities.*:FusedBfs.*:HostWaits.*:AlgebraOn*:Kernels/ProductKernel.SampleMatrices/*'
  start memcheck-ops memcheck test_ops '*EveryKernel/Cuda*'
  start memcheck-bfs memcheck test_bfs '*SampleMatrices/cuda*'
  start racecheck-product-kernels racecheck test_product_kernels 'Kernels/TinyCapacities.*'
  start racecheck-ops racecheck test_ops '*EveryKernel/Cuda*'
fi
start memcheck-examples memcheck test_examples "$gpu_cases"
start memcheck-algorithms memcheck test_algorithms "$gpu_cases"
start memcheck-generators memcheck test_generators "$gpu_cases:*HostAndGpu*"
# Not Memory.DeviceAllocationTooLarge*: its failed cudaMallocAsync is the point of the test, and
# memcheck reports every failed CUDA call as an error.
start memcheck-matrix memcheck test_matrix "$gpu_cases-Memory.DeviceAllocationTooLarge*"
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
