#!/usr/bin/env bash
# W = the tree (single_block_max_edges 32768 -> 2048), whole tree: ctest; against A = f5b30fd
# (build-base): issue 11's small graphs two rounds, the standard suite one run each.
set -u
export OMP_NUM_THREADS=16
R=/tmp/r55; mkdir -p $R
pack() { tar czf $OUT/r55.tgz -C $R . ; }
t0=$(date +%s); el() { echo "$(( $(date +%s)-t0 ))"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; cat $R/device.txt
grep -q "single_block_max_edges = 2048" include/gbcuda/detail/product_policy.hpp || { echo "tree lacks the change"; exit 4; }
bt() { ( cmake -S $1 -B /tmp/$2 -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/$2 -j$3 $4 ) > $R/build-$2.log 2>&1; }
bt . w2 11 "" & bt build-base a 5 "--target bfs_bench bfs_spmv"; wait
echo "built $(el) s"; grep -iE " warning|error:" $R/build*.log | head
for v in a w2; do ls /tmp/$v/bin/bfs_bench >/dev/null || { echo "build $v failed"; tail -20 $R/build-$v.log; pack; exit 1; }; done
mkdir -p /tmp/g
for G in randout:1000000:8 urand:20:16 kron:20:16 urand:22:16 kron:22:16 grid:1024:1024; do
  f=/tmp/g/$(echo $G | tr ':' '_').gbc; [ -f $f ] || GBCUDA_CACHE_DIR=/tmp/c-a timeout 120 /tmp/a/bin/bfs_spmv $G --save $f > /dev/null 2>&1 || echo "save $G failed"
done; echo "saved $(el) s"
[ -d /tmp/c-a ] || GBCUDA_CACHE_DIR=/tmp/c-a /tmp/a/bin/bfs_spmv grid:10:10 > /dev/null 2>&1
rm -rf /tmp/c-w2; cp -r /tmp/c-a /tmp/c-w2
GR="/tmp/g/randout_1000000_8.gbc /tmp/g/urand_20_16.gbc /tmp/g/kron_20_16.gbc /tmp/g/urand_22_16.gbc /tmp/g/kron_22_16.gbc /tmp/g/grid_1024_1024.gbc"
for r in 1 2; do for v in a w2; do
  GBCUDA_CACHE_DIR=/tmp/c-$v timeout 90 /tmp/$v/bin/bfs_bench $GR --kernels auto --no-host --no-graphblas --repeat 10 --warmup 2 --json $R/s-$v-$r.json > $R/s-$v-$r.txt 2>&1
  echo "round $v $r rc=$? $(el) s"
done; done
python3 scripts/bench_table.py --compare $R/s-a-1.json $R/s-w2-1.json $R/s-a-2.json $R/s-w2-2.json 2>&1 | tail -6
pack
( cd /tmp/w2 && GBCUDA_CACHE_DIR=/tmp/gbcache-t OMP_NUM_THREADS=2 timeout 230 ctest -j13 --timeout 210 > $R/ctest.log 2>&1; echo "ctest rc=$? $(grep -E 'tests passed|tests failed' $R/ctest.log) $(el) s" )
grep -E 'Failed|\*\*\*|Total Test' $R/ctest.log | head
pack
for v in a w2; do
  GBCUDA_CACHE_DIR=/tmp/c-$v timeout 200 /tmp/$v/bin/bfs_bench --preset standard --kernels auto --no-host --no-graphblas --repeat 5 --warmup 1 --json $R/std-$v.json > $R/std-$v.txt 2>&1
  echo "standard $v rc=$? $(el) s"; pack
done
python3 scripts/bench_table.py --compare $R/std-a.json $R/std-w2.json 2>&1 | tail -7
GBCUDA_CACHE_DIR=/tmp/c-w2 timeout 60 /tmp/w2/bin/bfs_spmv /tmp/g/randout_1000000_8.gbc --source max-degree --repeat 5 --verbose > $R/L-randout-w2.txt 2>&1; grep -E "^level    4|^time" $R/L-randout-w2.txt
pack; echo "end $(el) s"
