#!/usr/bin/env bash
# HEAD (48599ae) on the GPU: build, FusedBfs tests, whole ctest; grid A/B against 7692e12 (build-base).
set -u
export OMP_NUM_THREADS=16
R=/tmp/r46; mkdir -p $R
pack() { tar czf $OUT/r46.tgz -C $R . ; }
t0=$(date +%s); el() { echo "$(( $(date +%s)-t0 ))"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; cat $R/device.txt
git log --oneline -1 > $R/head.txt 2>/dev/null; cat $R/head.txt
bt() { ( cmake -S $1 -B /tmp/$2 -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/$2 -j$3 $4 ) > $R/build-$2.log 2>&1; }
bt . w 12 "" & bt build-base a 4 "--target bfs_bench bfs_spmv"; wait
echo "built $(el) s"; grep -iE " warning|error:" $R/build*.log | head
for v in a w; do ls /tmp/$v/bin/bfs_bench >/dev/null || { echo "build $v failed"; tail -20 $R/build-$v.log; pack; exit 1; }; done
( GBCUDA_CACHE_DIR=/tmp/c-w timeout 200 /tmp/w/bin/test_product_kernels --gtest_filter='FusedBfs.*' > $R/t-fused.log 2>&1; echo "FusedBfs.* rc=$? $(grep -E 'PASSED|FAILED' $R/t-fused.log | tail -3 | tr '\n' ' ') $(el) s" )
grep -E "^\[  FAILED|Failure" $R/t-fused.log | head -20
( cd /tmp/w && GBCUDA_CACHE_DIR=/tmp/gbcache-t OMP_NUM_THREADS=2 timeout 300 ctest -j13 --timeout 280 > $R/ctest.log 2>&1; echo "ctest rc=$? $(grep -E 'tests passed|tests failed' $R/ctest.log) $(el) s" )
grep -E 'Failed|\*\*\*|Total Test' $R/ctest.log | head
pack
mkdir -p /tmp/g
for G in grid:2048:2048 grid:1024:1024; do
  f=/tmp/g/$(echo $G | tr ':' '_').gbc; GBCUDA_CACHE_DIR=/tmp/c-a timeout 120 /tmp/a/bin/bfs_spmv $G --save $f > /dev/null 2>&1 || echo "save $G failed"
done; echo "saved $(el) s"
rm -rf /tmp/c-w; cp -r /tmp/c-a /tmp/c-w
GR="/tmp/g/grid_2048_2048.gbc /tmp/g/grid_1024_1024.gbc"
for r in 1 2; do for v in a w; do
  GBCUDA_CACHE_DIR=/tmp/c-$v timeout 90 /tmp/$v/bin/bfs_bench $GR --kernels auto --no-host --no-graphblas --repeat 10 --warmup 2 --json $R/s-$v$r.json > $R/s-$v$r.txt 2>&1
  echo "grid $v$r rc=$? $(el) s"
done; done
pack
python3 scripts/bench_table.py --compare $R/s-a1.json $R/s-w1.json $R/s-a2.json $R/s-w2.json 2>&1 | tail -6
echo "end $(el) s"
