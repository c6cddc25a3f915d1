#!/usr/bin/env bash
# A = HEAD 6ce6d51 (build-base); T = working tree (expand_tile rechecks only after taking a huge
# row). T built whole (for run36's ctest). Then A/T alternated, and A under policy caches whose
# single_block_max is 256 / 512 / 2048 on the grids.
set -u
export OMP_NUM_THREADS=16 GBCUDA_CACHE_DIR=/tmp/gbcache
R=/tmp/r35; mkdir -p $R
pack() { tar czf $OUT/r35.tgz -C $R . ; }
t0=$(date +%s); el() { echo "$(( $(date +%s)-t0 ))"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; cat $R/device.txt
grep -q 'took = true' lib/cuda/product/common.cuh || { echo "tree lacks the change"; exit 4; }
bt() { ( cmake -S $1 -B /tmp/$2 -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/$2 -j$3 $4 ) > $R/build-$2.log 2>&1; }
bt . t 12 "" & bt build-base a 4 "--target bfs_bench bfs_spmv"; wait
echo "built $(el) s"; grep -iE "warning|error" $R/build*.log | head
for v in a t; do ls /tmp/$v/bin/bfs_bench >/dev/null || { echo "build $v failed"; tail -20 $R/build-$v.log; pack; exit 1; }; done
( cd /tmp/t && GBCUDA_CACHE_DIR=/tmp/gbcache-t OMP_NUM_THREADS=4 timeout 300 bin/test_product_kernels > $R/gate.log 2>&1; echo "gate rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/gate.log | head -3 | tr '\n' ' ') $(el) s" ) &
GP=$!
mkdir -p /tmp/g
for G in kron:22:16 urand:22:16 urand:20:16 randout:1000000:8 grid:2048:2048 grid:1024:1024; do
  f=/tmp/g/$(echo $G | tr ':' '_').gbc; timeout 120 /tmp/a/bin/bfs_spmv $G --save $f > /dev/null 2>&1 || echo "save $G failed"
done; echo "saved $(el) s"
wait $GP; grep -E '^\[  FAILED' $R/gate.log | head -20
GR="/tmp/g/kron_22_16.gbc /tmp/g/urand_22_16.gbc /tmp/g/urand_20_16.gbc /tmp/g/randout_1000000_8.gbc /tmp/g/grid_2048_2048.gbc /tmp/g/grid_1024_1024.gbc"
for r in 1 2 3; do for v in a t; do
  timeout 90 /tmp/$v/bin/bfs_bench $GR --kernels auto --no-host --no-graphblas --repeat 10 --warmup 2 --json $R/s-$v$r.json > $R/s-$v$r.txt 2>&1
  echo "small $v$r rc=$? $(el) s"
done; done
pack
cat /tmp/gbcache/* > $R/cache.json; cat $R/cache.json | tr '\n' ' '; echo
for sb in 256 512 2048; do mkdir -p /tmp/gbc-$sb; for f in /tmp/gbcache/*; do sed -E "s/\"single_block_max\": [0-9]+/\"single_block_max\": $sb/" $f > /tmp/gbc-$sb/$(basename $f); done; done
grep -h single_block_max /tmp/gbc-*/* | tr '\n' ' '; echo
GG="/tmp/g/grid_2048_2048.gbc /tmp/g/grid_1024_1024.gbc"
for r in 1 2; do for sb in def 256 512 2048; do
  d=/tmp/gbcache; [ $sb = def ] || d=/tmp/gbc-$sb
  GBCUDA_CACHE_DIR=$d timeout 60 /tmp/a/bin/bfs_bench $GG --kernels auto --no-host --no-graphblas --repeat 10 --warmup 2 --json $R/sb-$sb-$r.json > $R/sb-$sb-$r.txt 2>&1
  echo "sb $sb $r rc=$? $(el) s"
done; done
for sb in def 512; do d=/tmp/gbcache; [ $sb = def ] || d=/tmp/gbc-$sb
  GBCUDA_CACHE_DIR=$d timeout 60 /tmp/a/bin/bfs_spmv /tmp/g/grid_2048_2048.gbc --source max-degree --repeat 3 --verbose > $R/L-grid-sb$sb.txt 2>&1; done
pack
echo "T vs A"; python3 scripts/bench_table.py --compare $R/s-a1.json $R/s-t1.json $R/s-a2.json $R/s-t2.json $R/s-a3.json $R/s-t3.json 2>&1 | tail -7
for sb in 256 512 2048; do echo "sb $sb vs def"; python3 scripts/bench_table.py --compare $R/sb-def-1.json $R/sb-$sb-1.json $R/sb-def-2.json $R/sb-$sb-2.json 2>&1 | tail -3; done
echo "end $(el) s"
