#!/usr/bin/env bash
# Closing checks for f5b30fd (W, the tree): sanitizers on its device code; issue 11's graphs
# against eeac0e7 (B, build-base: the last commit before issue 11), two rounds alternated.
set -u
export OMP_NUM_THREADS=16
R=/tmp/r51; mkdir -p $R
pack() { tar czf $OUT/r51.tgz -C $R . ; }
t0=$(date +%s); el() { echo "$(( $(date +%s)-t0 ))"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; cat $R/device.txt
bt() { ( cmake -S $1 -B /tmp/$2 -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/$2 -j$3 $4 ) > $R/build-$2.log 2>&1; }
bt . w 11 "--target test_product_kernels bfs_bench bfs_spmv" & bt build-base b 5 "--target bfs_bench bfs_spmv"; wait
echo "built $(el) s"; grep -iE " warning|error:" $R/build*.log | head
for v in b w; do ls /tmp/$v/bin/bfs_bench >/dev/null || { echo "build $v failed"; tail -20 $R/build-$v.log; pack; exit 1; }; done
( GBCUDA_CACHE_DIR=/tmp/c-w timeout 120 /tmp/w/bin/test_product_kernels --gtest_filter='*VerticesWithoutInEdges*:FusedBfs.*:Kernels/ProductKernel.RandomGraphs/*' > $R/t-new.log 2>&1; echo "new test + fused + random rc=$? $(grep -E 'PASSED|FAILED' $R/t-new.log | tail -3 | tr '\n' ' ') $(el) s" )
grep -E "^\[  FAILED" $R/t-new.log | head
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
san() { name=$1; tool=$2; filt=$3; ( GBCUDA_CALIBRATION=off OMP_NUM_THREADS=4 timeout 200 $cs --tool $tool --error-exitcode 99 /tmp/w/bin/test_product_kernels --gtest_filter="$filt" > $R/san-$name.log 2>&1; echo "san $name rc=$? $(el) s" ) & }
san memcheck memcheck 'FusedBfs.*:Kernels/ProductKernel.HubsBesideShorterRows/*:*Tiny*:Kernels/ProductKernel.RandomGraphs/auto:Kernels/ProductKernel.RandomGraphs/pull:Kernels/ProductKernel.VerticesWithoutInEdges/*:-*BySample*'
san racecheck-tail racecheck 'FusedBfs.BarrierFreeTailOnASmallMesh'
san racecheck-old racecheck 'Kernels/ProductKernel.HubsBesideShorterRows/auto*:Kernels/ProductKernel.HubsBesideShorterRows/queue*:Kernels/ProductKernel.HubsBesideShorterRows/single*:Kernels/ProductKernel.HubsBesideShorterRows/pull*:Kernels/ProductKernel.Star/queue_block'
san synccheck synccheck 'FusedBfs.BarrierFreeTailOnASmallMesh:FusedBfs.BarrierFreeTailAbandonsWhenItsQueueIsFull:Kernels/ProductKernel.HubsBesideShorterRows/*'
wait
for f in $R/san-*.log; do echo "$(basename $f): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tail -1) ok=$(grep -c '^\[       OK' $f) failed=$(grep -c '^\[  FAILED  \] [A-Z]' $f)"; done
pack
mkdir -p /tmp/g
for G in kron:20:16 kron:22:16 urand:20:16 urand:22:16 urand:24:16 grid:1024:1024 grid:2048:2048 randout:1000000:8; do
  f=/tmp/g/$(echo $G | tr ':' '_').gbc; [ -f $f ] || GBCUDA_CACHE_DIR=/tmp/c-b timeout 120 /tmp/b/bin/bfs_spmv $G --save $f > /dev/null 2>&1 || echo "save $G failed"
done; echo "saved $(el) s"
GR=$(ls /tmp/g/kron_20_16.gbc /tmp/g/kron_22_16.gbc /tmp/g/urand_20_16.gbc /tmp/g/urand_22_16.gbc /tmp/g/urand_24_16.gbc /tmp/g/grid_1024_1024.gbc /tmp/g/grid_2048_2048.gbc /tmp/g/randout_1000000_8.gbc)
for r in 1 2; do for v in b w; do
  GBCUDA_CACHE_DIR=/tmp/c-$v timeout 120 /tmp/$v/bin/bfs_bench $GR --kernels auto --no-host --no-graphblas --repeat 10 --warmup 2 --json $R/blest-$v$r.json > $R/blest-$v$r.txt 2>&1
  echo "round $v$r rc=$? $(el) s"
done; done
GBCUDA_CACHE_DIR=/tmp/c-w timeout 60 /tmp/w/bin/bfs_bench /tmp/g/kron_22_16.gbc /tmp/g/kron_20_16.gbc --reorder degree --kernels auto --no-host --no-graphblas --repeat 10 --warmup 2 --json $R/deg-w.json > $R/deg-w.txt 2>&1
pack
python3 scripts/bench_table.py --compare $R/blest-b1.json $R/blest-w1.json $R/blest-b2.json $R/blest-w2.json 2>&1 | tail -10
grep -E "median" $R/deg-w.txt | head -3
echo "end $(el) s"
