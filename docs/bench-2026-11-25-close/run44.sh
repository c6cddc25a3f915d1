#!/usr/bin/env bash
# W = working tree (barrier-free tail in the fused BFS), whole tree; A = HEAD f52ac84 (build-base).
# Phase 1: build, W's product-kernel and BFS tests, the grid's levels; A/W/W-no-tail alternated.
set -u
export OMP_NUM_THREADS=16
R=/tmp/r44; mkdir -p $R
pack() { tar czf $OUT/r44.tgz -C $R . ; }
t0=$(date +%s); el() { echo "$(( $(date +%s)-t0 ))"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; cat $R/device.txt
grep -q barrier_free_tail lib/cuda/product/fused_bfs.cu || { echo "tree lacks the change"; exit 4; }
bt() { ( cmake -S $1 -B /tmp/$2 -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/$2 -j$3 $4 ) > $R/build-$2.log 2>&1; }
bt . w 12 "" & bt build-base a 4 "--target bfs_bench bfs_spmv"; wait
echo "built $(el) s"; grep -iE " warning|error:" $R/build*.log | head
for v in a w; do ls /tmp/$v/bin/bfs_bench >/dev/null || { echo "build $v failed"; tail -20 $R/build-$v.log; pack; exit 1; }; done
( GBCUDA_CACHE_DIR=/tmp/c-w timeout 200 /tmp/w/bin/test_product_kernels --gtest_filter='FusedBfs.*:Kernels/ProductKernel.DirectedPath/*:Kernels/ProductKernel.RandomGraphs/auto*' > $R/t-product.log 2>&1; echo "test_product_kernels subset rc=$? $(grep -E 'PASSED|FAILED' $R/t-product.log | tail -3 | tr '\n' ' ') $(el) s" )
grep -E "^\[  FAILED|Failure|error" $R/t-product.log | head -20
mkdir -p /tmp/g
for G in grid:2048:2048 grid:1024:1024 kron:22:16 urand:22:16 urand:20:16 randout:1000000:8; do
  f=/tmp/g/$(echo $G | tr ':' '_').gbc; GBCUDA_CACHE_DIR=/tmp/c-a timeout 120 /tmp/a/bin/bfs_spmv $G --save $f > /dev/null 2>&1 || echo "save $G failed"
done; echo "saved $(el) s"
cp -r /tmp/c-a /tmp/c-w2 2>/dev/null; rm -rf /tmp/c-w; cp -r /tmp/c-a /tmp/c-w   # one calibration for all
GBCUDA_CACHE_DIR=/tmp/c-w timeout 60 /tmp/w/bin/bfs_spmv /tmp/g/grid_2048_2048.gbc --source max-degree --repeat 3 --verbose > $R/L-grid-w.txt 2>&1
grep -E "barrier-free|time:|kernel:" $R/L-grid-w.txt | head -5
GR="/tmp/g/kron_22_16.gbc /tmp/g/urand_22_16.gbc /tmp/g/urand_20_16.gbc /tmp/g/randout_1000000_8.gbc /tmp/g/grid_2048_2048.gbc /tmp/g/grid_1024_1024.gbc"
for r in 1 2; do for v in a w n; do
  b=$v; x=""; [ $v = n ] && { b=w; x="--no-barrier-free-tail"; }
  GBCUDA_CACHE_DIR=/tmp/c-$b timeout 90 /tmp/$b/bin/bfs_bench $GR --kernels auto --no-host --no-graphblas --repeat 10 --warmup 2 $x --json $R/s-$v$r.json > $R/s-$v$r.txt 2>&1
  echo "small $v$r rc=$? $(el) s"
done; done
pack
echo "W vs A"; python3 scripts/bench_table.py --compare $R/s-a1.json $R/s-w1.json $R/s-a2.json $R/s-w2.json 2>&1 | tail -8
echo "W-no-tail vs A"; python3 scripts/bench_table.py --compare $R/s-a1.json $R/s-n1.json $R/s-a2.json $R/s-n2.json 2>&1 | tail -8
echo "end $(el) s"
