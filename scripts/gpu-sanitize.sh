#!/usr/bin/env bash
# On the GPU host, after a build in build-gpu: compute-sanitizer memcheck and racecheck on the
# frontier-kernel tests (every engine kernel in both level loops with tiny capacities, so the
# overflow paths run, plus the engine's own tests), and memcheck on the CUDA BFS samples.
# Logs under $OUT (default gpu-logs); one summary line per tool; exit 1 if any reports errors
# or runs out of its time (the counts of tests that finished are printed either way).
#   source .gpu/setup.sh && scripts/gpu-sanitize.sh [build-dir]
set -uo pipefail
out=${OUT:-gpu-logs}
build=${1:-build-gpu}
mkdir -p "$out"
export GBCUDA_CALIBRATION=off OMP_NUM_THREADS=8
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
status=0
run() {  # name tool timeout binary filter
  timeout "$3" "$cs" --tool "$2" --error-exitcode 99 "$build/bin/$4" --gtest_filter="$5" > "$out/$1.log" 2>&1
  local rc=$?
  printf '%-22s rc=%-3s %s; %s tests ok, %s failed\n' "$1" "$rc" \
    "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/$1.log" | tail -1)" \
    "$(grep -c '^\[       OK' "$out/$1.log")" "$(grep -c '^\[  FAILED  \] [A-Z]' "$out/$1.log")"
  [ "$rc" = 0 ] || status=1
}
engine='Engine/TinyCapacities.*:FrontierEngine.SingleBlockHandsOver*:FrontierEngine.AutoSwitches*:FrontierEngine.NoPull*:FrontierEngine.StatsOff*'
run memcheck-engine memcheck 150 test_frontier_kernels "$engine"
run memcheck-samples memcheck 100 test_frontier_kernels 'Kernels/FrontierKernel.SampleMatrices/*'
run racecheck-engine racecheck 200 test_frontier_kernels 'Engine/TinyCapacities.*'
run memcheck-bfs memcheck 60 test_bfs '*SampleMatrices/cuda*'
exit $status
