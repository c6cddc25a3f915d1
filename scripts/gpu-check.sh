#!/usr/bin/env bash
# On the GPU host: build with CUDA, run the whole ctest suite, then compute-sanitizer (memcheck,
# racecheck) over the CUDA tests. Logs go to $OUT (or ./gpu-logs); a short table is printed last.
#   source .gpu/setup.sh && scripts/gpu-check.sh [sanitize]
set -uo pipefail
out=${OUT:-gpu-logs}
mkdir -p "$out"
jobs=$(nproc)
status() { printf '%-28s %s\n' "$1" "$2" | tee -a "$out/summary.txt"; }
: > "$out/summary.txt"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
t0=$(date +%s)
if cmake -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release > "$out/configure.log" 2>&1 &&
   cmake --build build-gpu -j"$jobs" > "$out/build.log" 2>&1; then
  status build "ok ($(( $(date +%s) - t0 )) s)"
else
  status build FAILED; tail -40 "$out/build.log"; exit 1
fi
t0=$(date +%s)
ctest --test-dir build-gpu -j4 --timeout 600 --output-on-failure > "$out/ctest.log" 2>&1
status ctest "$(grep -E 'tests passed|tests failed' "$out/ctest.log") ($(( $(date +%s) - t0 )) s)"
grep -E '\(Failed\)|\(Timeout\)|Exception' "$out/ctest.log" | head -20
if [ "${1:-}" = sanitize ]; then
  cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in memcheck racecheck; do
    timeout 240 "$cs" --tool "$tool" --error-exitcode 99 build-gpu/bin/test_cuda_backend > "$out/sanitizer-$tool-backend.log" 2>&1
    status "sanitizer $tool backend" "rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer-$tool-backend.log" | tail -1)"
  done
  timeout 240 "$cs" --tool memcheck --error-exitcode 99 build-gpu/bin/test_bfs --gtest_filter='*SampleMatrices*cuda*' \
    > "$out/sanitizer-memcheck-bfs.log" 2>&1
  status "sanitizer memcheck bfs" "rc=$? $(grep -E 'ERROR SUMMARY' "$out/sanitizer-memcheck-bfs.log" | tail -1)"
fi
cat "$out/summary.txt"
