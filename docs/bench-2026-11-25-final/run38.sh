#!/usr/bin/env bash
# W = working tree (recheck only after a huge row + calibration: single_block_max = widest win,
# cache format 4), whole tree; A = HEAD 6ce6d51 (build-base). Each calibrates on its own.
# A/W alternated (2 rounds), then W's whole suite and sanitizers.
set -u
export OMP_NUM_THREADS=16
R=/tmp/r38; mkdir -p $R
pack() { tar czf $OUT/r38.tgz -C $R . ; }
t0=$(date +%s); el() { echo "$(( $(date +%s)-t0 ))"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; cat $R/device.txt
grep -q 'took = true' lib/cuda/product/common.cuh && grep -q queue_thresholds lib/cuda/product/calibrate.cu || { echo "tree lacks the change"; exit 4; }
bt() { ( cmake -S $1 -B /tmp/$2 -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/$2 -j$3 $4 ) > $R/build-$2.log 2>&1; }
bt . w 13 "" & bt build-base a 3 "--target bfs_bench bfs_spmv"; wait
echo "built $(el) s"; grep -iE "warning|error" $R/build*.log | head
for v in a w; do ls /tmp/$v/bin/bfs_bench >/dev/null || { echo "build $v failed"; tail -20 $R/build-$v.log; pack; exit 1; }; done
mkdir -p /tmp/g
for G in kron:22:16 urand:22:16 urand:20:16 randout:1000000:8 grid:2048:2048 grid:1024:1024; do
  f=/tmp/g/$(echo $G | tr ':' '_').gbc; GBCUDA_CACHE_DIR=/tmp/c-a timeout 120 /tmp/a/bin/bfs_spmv $G --save $f > /dev/null 2>&1 || echo "save $G failed"
done; echo "saved $(el) s"
GBCUDA_CACHE_DIR=/tmp/c-w timeout 60 /tmp/w/bin/bfs_spmv /tmp/g/grid_1024_1024.gbc > /dev/null 2>&1
cat /tmp/c-a/* /tmp/c-w/* > $R/caches.json; tr '\n' ' ' < $R/caches.json; echo
GR="/tmp/g/kron_22_16.gbc /tmp/g/urand_22_16.gbc /tmp/g/urand_20_16.gbc /tmp/g/randout_1000000_8.gbc /tmp/g/grid_2048_2048.gbc /tmp/g/grid_1024_1024.gbc"
for r in 1 2; do for v in a w; do
  GBCUDA_CACHE_DIR=/tmp/c-$v timeout 90 /tmp/$v/bin/bfs_bench $GR --kernels auto --no-host --no-graphblas --repeat 10 --warmup 2 --json $R/s-$v$r.json > $R/s-$v$r.txt 2>&1
  echo "small $v$r rc=$? $(el) s"
done; done
pack
echo "W vs A"; python3 scripts/bench_table.py --compare $R/s-a1.json $R/s-w1.json $R/s-a2.json $R/s-w2.json 2>&1 | tail -6
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
san() { name=$1; tool=$2; filt=$3; ( GBCUDA_CALIBRATION=off timeout 250 $cs --tool $tool --error-exitcode 99 /tmp/w/bin/test_product_kernels --gtest_filter="$filt" > $R/san-$name.log 2>&1; echo "san $name rc=$? $(el) s" ) & }
san memcheck memcheck 'Kernels/ProductKernel.HubsBesideShorterRows/*:*Tiny*:-*BySample*'
san racecheck racecheck 'Kernels/ProductKernel.HubsBesideShorterRows/auto*:Kernels/ProductKernel.HubsBesideShorterRows/queue*:Kernels/ProductKernel.HubsBesideShorterRows/single*:Kernels/ProductKernel.Star/queue_block'
( cd /tmp/w && GBCUDA_CACHE_DIR=/tmp/gbcache-t OMP_NUM_THREADS=2 timeout 330 ctest -j13 --timeout 300 > $R/ctest.log 2>&1; echo "ctest rc=$? $(grep -E 'tests passed|tests failed' $R/ctest.log) $(el) s" )
wait; cat /tmp/gbcache-t/* > $R/cache-ctest.json 2>/dev/null; pack
grep -E 'Failed|\*\*\*|Total Test' $R/ctest.log | head
for f in $R/san-*.log; do echo "$(basename $f): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tail -1) ok=$(grep -c '^\[       OK' $f) failed=$(grep -c '^\[  FAILED  \] [A-Z]' $f)"; done
echo "end $(el) s"
