#!/usr/bin/env bash
# W = working tree (parents after the barrier-free tail; ring warps see the abandon flag), whole
# tree; A = HEAD 48599ae (build-base). Tests, sanitizers, grid A/B with and without parents,
# randout:1e6:8's levels and an ncu profile of them.
set -u
export OMP_NUM_THREADS=16
R=/tmp/r48; mkdir -p $R
pack() { tar czf $OUT/r48.tgz -C $R . ; }
t0=$(date +%s); el() { echo "$(( $(date +%s)-t0 ))"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; cat $R/device.txt
grep -q barrier_free_parents_kernel lib/cuda/product/barrier_free.cuh || { echo "tree lacks the change"; exit 4; }
bt() { ( cmake -S $1 -B /tmp/$2 -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/$2 -j$3 $4 ) > $R/build-$2.log 2>&1; }
bt . w 12 "" & bt build-base a 4 "--target bfs_bench bfs_spmv"; wait
echo "built $(el) s"; grep -iE " warning|error:" $R/build*.log | head
for v in a w; do ls /tmp/$v/bin/bfs_bench >/dev/null || { echo "build $v failed"; tail -20 $R/build-$v.log; pack; exit 1; }; done
( GBCUDA_CACHE_DIR=/tmp/c-w timeout 200 /tmp/w/bin/test_product_kernels --gtest_filter='FusedBfs.*' > $R/t-fused.log 2>&1; echo "FusedBfs.* rc=$? $(grep -E 'PASSED|FAILED' $R/t-fused.log | tail -3 | tr '\n' ' ') $(el) s" )
grep -E "^\[  FAILED|Failure|Expected|Which is|vertex" $R/t-fused.log | head -20
( cd /tmp/w && GBCUDA_CACHE_DIR=/tmp/gbcache-t OMP_NUM_THREADS=2 timeout 280 ctest -j13 --timeout 260 > $R/ctest.log 2>&1; echo "ctest rc=$? $(grep -E 'tests passed|tests failed' $R/ctest.log) $(el) s" )
grep -E 'Failed|\*\*\*|Total Test' $R/ctest.log | head
pack
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
san() { name=$1; tool=$2; filt=$3; ( GBCUDA_CALIBRATION=off OMP_NUM_THREADS=4 timeout 150 $cs --tool $tool --error-exitcode 99 /tmp/w/bin/test_product_kernels --gtest_filter="$filt" > $R/san-$name.log 2>&1; echo "san $name rc=$? $(el) s" ) & }
san memcheck memcheck 'FusedBfs.*:Kernels/ProductKernel.HubsBesideShorterRows/*:*Tiny*:-*BySample*'
san racecheck-tail racecheck 'FusedBfs.BarrierFreeTailOnASmallMesh'
san synccheck synccheck 'FusedBfs.BarrierFreeTailOnASmallMesh:FusedBfs.BarrierFreeTailAbandonsWhenItsQueueIsFull'
wait
for f in $R/san-*.log; do echo "$(basename $f): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tail -1) ok=$(grep -c '^\[       OK' $f) failed=$(grep -c '^\[  FAILED  \] [A-Z]' $f)"; done
pack
mkdir -p /tmp/g
for G in grid:2048:2048 grid:1024:1024 randout:1000000:8; do
  f=/tmp/g/$(echo $G | tr ':' '_').gbc; [ -f $f ] || GBCUDA_CACHE_DIR=/tmp/c-a timeout 120 /tmp/a/bin/bfs_spmv $G --save $f > /dev/null 2>&1 || echo "save $G failed"
done; echo "saved $(el) s"
rm -rf /tmp/c-w; cp -r /tmp/c-a /tmp/c-w
GR="/tmp/g/grid_2048_2048.gbc /tmp/g/grid_1024_1024.gbc"
for r in 1 2; do for v in a w; do
  GBCUDA_CACHE_DIR=/tmp/c-$v timeout 90 /tmp/$v/bin/bfs_bench $GR --kernels auto --no-host --no-graphblas --repeat 10 --warmup 2 --json $R/s-$v$r.json > $R/s-$v$r.txt 2>&1
  for G in grid_2048_2048 grid_1024_1024; do
    GBCUDA_CACHE_DIR=/tmp/c-$v timeout 60 /tmp/$v/bin/bfs_spmv /tmp/g/$G.gbc --source max-degree --repeat 10 --parents /dev/null --validate --json > $R/p-$G-$v$r.json 2> $R/p-$G-$v$r.err
  done
  echo "grid $v$r rc=$? $(el) s"
done; done
pack
python3 scripts/bench_table.py --compare $R/s-a1.json $R/s-w1.json $R/s-a2.json $R/s-w2.json 2>&1 | tail -4
for f in $R/p-*.json; do echo "$(basename $f .json): $(python3 -c "import json,sys; j=json.load(open('$f')); print(j.get('seconds_median'), j.get('barrier_free_from'), j.get('validated'))" 2>&1)"; done
GBCUDA_CACHE_DIR=/tmp/c-w timeout 60 /tmp/w/bin/bfs_spmv /tmp/g/randout_1000000_8.gbc --source max-degree --repeat 5 --verbose > $R/L-randout6-w.txt 2>&1
grep -E "^level|time|kernel:" $R/L-randout6-w.txt | cut -c1-130
NCU_LAUNCHES=30 OUT=$R timeout 150 bash scripts/gpu-ncu-levels.sh /tmp/w/bin /tmp/g/randout_1000000_8.gbc max-degree
python3 scripts/ncu-levels-table.py $R/ncu-randout_1000000_8-none.csv 2>&1 | head -40
pack; echo "end $(el) s"
