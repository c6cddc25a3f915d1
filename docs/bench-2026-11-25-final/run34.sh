#!/usr/bin/env bash
# A = HEAD 6ce6d51 (build-base); W = working tree (pull by edges, PullScan). W runs with
# GBCUDA_PULL_SCAN=rows (r) and =edges (e). Gate: test_product_kernels on W.
set -u
export OMP_NUM_THREADS=16 GBCUDA_CACHE_DIR=/tmp/gbcache
R=/tmp/r34; mkdir -p $R
pack() { tar czf $OUT/r34.tgz -C $R . ; }
t0=$(date +%s); el() { echo "$(( $(date +%s)-t0 ))"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; cat $R/device.txt
grep -q pull_scan_edges lib/cuda/product/bodies.cuh || { echo "tree lacks the change"; exit 4; }
bt() { ( cmake -S $1 -B /tmp/$2 -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/$2 -j$3 $4 ) > $R/build-$2.log 2>&1; }
if [ ! -x /tmp/w/bin/test_product_kernels ] || [ ! -f /tmp/g/randout_100000000_8.gbc ]; then
bt . w 10 "--target bfs_bench bfs_spmv test_product_kernels" & bt build-base a 6 "--target bfs_bench bfs_spmv"; wait
echo "built $(el) s"; grep -iE "warning|error" $R/build*.log | head
for v in a w; do ls /tmp/$v/bin/bfs_bench >/dev/null || { echo "build $v failed"; tail -20 $R/build-$v.log; pack; exit 1; }; done
( cd /tmp/w && GBCUDA_CACHE_DIR=/tmp/gbcache-t OMP_NUM_THREADS=4 timeout 300 bin/test_product_kernels > $R/gate.log 2>&1; echo "gate rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/gate.log | head -3 | tr '\n' ' ') $(el) s" ) &
GP=$!
mkdir -p /tmp/g
for G in kron:22:16 urand:22:16 urand:20:16 randout:1000000:8 grid:1024:1024 urand:26:8 randout:100000000:4 randout:100000000:8; do
  f=/tmp/g/$(echo $G | tr ':' '_').gbc; timeout 120 /tmp/a/bin/bfs_spmv $G --save $f > /dev/null 2>&1 || echo "save $G failed"
done; echo "saved $(el) s"
wait $GP
grep -E '^\[  FAILED' $R/gate.log | head -20
else echo "reusing builds and graphs"; fi
run() { v=$1; shift; tl=$1; shift; if [ $v = a ]; then timeout $tl /tmp/a/bin/"$@"; else GBCUDA_PULL_SCAN=$([ $v = r ] && echo rows || echo edges) timeout $tl /tmp/w/bin/"$@"; fi; }
GR="/tmp/g/kron_22_16.gbc /tmp/g/urand_22_16.gbc /tmp/g/urand_20_16.gbc /tmp/g/randout_1000000_8.gbc /tmp/g/grid_1024_1024.gbc"
for r in 1 2; do for v in a r e; do
  run $v 90 bfs_bench $GR --kernels auto --no-host --no-graphblas --repeat 10 --warmup 2 --json $R/s-$v$r.json > $R/s-$v$r.txt 2>&1
  echo "small $v$r rc=$? $(el) s"
done; done
pack
for G in randout_100000000_4 randout_100000000_8 urand_26_8; do for v in a r e; do
  run $v 60 bfs_spmv /tmp/g/$G.gbc --source max-degree --repeat 5 --verbose > $R/L-$G-$v.txt 2>&1
  echo "$G $v rc=$? $(grep -E '^time' $R/L-$G-$v.txt | head -1 | cut -c1-70) $(el) s"
done; done
pack
for G in urand_22_16 kron_22_16 randout_1000000_8; do for v in a r e; do
  run $v 30 bfs_spmv /tmp/g/$G.gbc --source max-degree --repeat 5 --verbose > $R/L-$G-$v.txt 2>&1
done; done
pack
for v in r e; do echo "$v vs A"; python3 scripts/bench_table.py --compare $R/s-a1.json $R/s-${v}1.json $R/s-a2.json $R/s-${v}2.json 2>&1 | tail -7; done
echo "e vs r"; python3 scripts/bench_table.py --compare $R/s-r1.json $R/s-e1.json $R/s-r2.json $R/s-e2.json 2>&1 | tail -7
echo "end $(el) s"
