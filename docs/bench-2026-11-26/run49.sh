#!/usr/bin/env bash
# A = 48599ae (build-base), W2 = 24b2757 (exp/w2: parents after the tail, abandon by the queue's
# tail), W3 = working tree (init_kernel does the search's set-up in one launch), whole tree.
set -u
export OMP_NUM_THREADS=16
R=/tmp/r49; mkdir -p $R
pack() { tar czf $OUT/r49.tgz -C $R . ; }
t0=$(date +%s); el() { echo "$(( $(date +%s)-t0 ))"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; cat $R/device.txt
bt() { ( cmake -S $1 -B /tmp/$2 -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/$2 -j$3 $4 ) > $R/build-$2.log 2>&1; }
bt . w3 10 "" & bt build-base a 3 "--target bfs_bench bfs_spmv" & bt exp/w2 w2 3 "--target bfs_bench bfs_spmv"; wait
echo "built $(el) s"; grep -iE " warning|error:" $R/build*.log | head
for v in a w2 w3; do ls /tmp/$v/bin/bfs_bench >/dev/null || { echo "build $v failed"; tail -20 $R/build-$v.log; pack; exit 1; }; done
( GBCUDA_CACHE_DIR=/tmp/c-w timeout 200 /tmp/w3/bin/test_product_kernels --gtest_filter='FusedBfs.*' > $R/t-fused.log 2>&1; echo "FusedBfs.* rc=$? $(grep -E 'PASSED|FAILED' $R/t-fused.log | tail -3 | tr '\n' ' ') $(el) s" )
grep -E "^\[  FAILED|Failure|Expected|Which is|vertex" $R/t-fused.log | head -20
mkdir -p /tmp/g
for G in grid:2048:2048 grid:1024:1024 kron:22:16 kron:20:16 urand:22:16 urand:20:16 randout:1000000:8; do
  f=/tmp/g/$(echo $G | tr ':' '_').gbc; [ -f $f ] || GBCUDA_CACHE_DIR=/tmp/c-a timeout 120 /tmp/a/bin/bfs_spmv $G --save $f > /dev/null 2>&1 || echo "save $G failed"
done; echo "saved $(el) s"
for v in w2 w3; do rm -rf /tmp/c-$v; cp -r /tmp/c-a /tmp/c-$v; done
GR="/tmp/g/kron_22_16.gbc /tmp/g/kron_20_16.gbc /tmp/g/urand_22_16.gbc /tmp/g/urand_20_16.gbc /tmp/g/randout_1000000_8.gbc /tmp/g/grid_2048_2048.gbc /tmp/g/grid_1024_1024.gbc"
for r in 1 2; do for v in a w2 w3; do
  GBCUDA_CACHE_DIR=/tmp/c-$v timeout 90 /tmp/$v/bin/bfs_bench $GR --kernels auto --no-host --no-graphblas --repeat 10 --warmup 2 --json $R/s-$v$r.json > $R/s-$v$r.txt 2>&1
  for m in 1000000 16000000; do for src in 5 0; do
    GBCUDA_CACHE_DIR=/tmp/c-$v timeout 60 /tmp/$v/bin/bfs_spmv exp/one-edge-$m.mtx --source $src --repeat 30 --json > $R/o-$m-$src-$v$r.json 2> /dev/null
  done; done
  echo "round $v$r $(el) s"
done; done
pack
echo "W2 vs A"; python3 scripts/bench_table.py --compare $R/s-a1.json $R/s-w21.json $R/s-a2.json $R/s-w22.json 2>&1 | tail -9
echo "W3 vs W2"; python3 scripts/bench_table.py --compare $R/s-w21.json $R/s-w31.json $R/s-w22.json $R/s-w32.json 2>&1 | tail -9
for f in $R/o-*.json; do echo "$(basename $f .json): $(python3 -c "import json; j=json.load(open('$f')); print('%.1f us median, min %.1f, levels %s' % (j['seconds_median']*1e6, j['seconds_min']*1e6, j.get('levels')))" 2>&1)"; done
( cd /tmp/w3 && GBCUDA_CACHE_DIR=/tmp/gbcache-t OMP_NUM_THREADS=2 timeout 270 ctest -j13 --timeout 250 > $R/ctest.log 2>&1; echo "ctest rc=$? $(grep -E 'tests passed|tests failed' $R/ctest.log) $(el) s" )
grep -E 'Failed|\*\*\*|Total Test' $R/ctest.log | head
pack; echo "end $(el) s"
