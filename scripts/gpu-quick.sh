#!/usr/bin/env bash
# On the GPU host, after scripts/gpu-check.sh has built build-gpu: the CUDA tests again, the
# sanitizers, and BFS timings of the samples on both backends. Logs under $OUT.
set -uo pipefail
out=${OUT:-gpu-logs}
mkdir -p "$out"
export OMP_NUM_THREADS=8
cmake --build build-gpu -j"$(nproc)" > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
for t in test_cuda_backend test_bfs test_ops test_algorithms test_matrix; do
  filter='*'
  [ "$t" = test_cuda_backend ] || filter='*cuda*:*Cuda*'
  timeout 300 build-gpu/bin/$t --gtest_filter="$filter" > "$out/$t.log" 2>&1
  printf '%-20s rc=%s %s\n' "$t" "$?" "$(grep -E '^\[  (PASSED|FAILED)' "$out/$t.log" | tr '\n' ' ')"
done
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  timeout 200 "$cs" --tool "$tool" --error-exitcode 99 build-gpu/bin/test_cuda_backend > "$out/san-$tool.log" 2>&1
  printf 'sanitizer %-10s rc=%s %s\n' "$tool" "$?" "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/san-$tool.log" | tail -1)"
done
timeout 200 "$cs" --tool memcheck --error-exitcode 99 build-gpu/bin/test_bfs --gtest_filter='*SampleMatrices/cuda*' > "$out/san-bfs.log" 2>&1
printf 'sanitizer bfs       rc=%s %s\n' "$?" "$(grep -E 'ERROR SUMMARY' "$out/san-bfs.log" | tail -1)"
for m in matrices/reg_d3_n100000.rodinia.txt matrices/bcsstk13.mtx matrices/delaunay_n10.mtx; do
  for d in host cuda; do
    build-gpu/bin/bfs_spmv "$m" --source 0 --device $d --repeat 10 --json > "$out/time-$d-$(basename $m).json" 2>/dev/null
    python3 -c "import json,sys;j=json.load(open(sys.argv[1]));print(f\"{sys.argv[2]:5} {j['file'].split('/')[-1]:30} {j['seconds_median']*1e3:9.3f} ms levels={j['levels']} reached={j['reached']} {j['device']}\")" "$out/time-$d-$(basename $m).json" $d
  done
done
