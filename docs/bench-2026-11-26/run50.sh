#!/usr/bin/env bash
# A = 0c1eef5 (build-base); W = working tree: the pull reads 32 words' candidates at once and skips
# words without any; candidates without in-edges are marked visited. Bench first, then the checks.
set -u
export OMP_NUM_THREADS=16
R=/tmp/r50; mkdir -p $R
pack() { tar czf $OUT/r50.tgz -C $R . ; }
t0=$(date +%s); el() { echo "$(( $(date +%s)-t0 ))"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; cat $R/device.txt
grep -q kLaneCandidates lib/cuda/product/bodies.cuh || { echo "tree lacks the change"; exit 4; }
bt() { ( cmake -S $1 -B /tmp/$2 -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/$2 -j$3 $4 ) > $R/build-$2.log 2>&1; }
bt . w 11 "" & bt build-base a 5 "--target bfs_bench bfs_spmv"; wait
echo "built $(el) s"; grep -iE " warning|error:" $R/build*.log | head
for v in a w; do ls /tmp/$v/bin/bfs_bench >/dev/null || { echo "build $v failed"; tail -20 $R/build-$v.log; pack; exit 1; }; done
( GBCUDA_CACHE_DIR=/tmp/c-w timeout 100 /tmp/w/bin/test_product_kernels --gtest_filter='FusedBfs.*:Kernels/ProductKernel.RandomGraphs/*:Kernels/ProductKernel.DirectedPath/*' > $R/t-quick.log 2>&1; echo "quick tests rc=$? $(grep -E 'PASSED|FAILED' $R/t-quick.log | tail -3 | tr '\n' ' ') $(el) s" )
grep -E "^\[  FAILED" $R/t-quick.log | head
mkdir -p /tmp/g
for G in kron:22:16 kron:20:16 urand:22:16 urand:20:16 randout:1000000:8 grid:1024:1024; do
  f=/tmp/g/$(echo $G | tr ':' '_').gbc; [ -f $f ] || GBCUDA_CACHE_DIR=/tmp/c-a timeout 120 /tmp/a/bin/bfs_spmv $G --save $f > /dev/null 2>&1 || echo "save $G failed"
done; echo "saved $(el) s"
rm -rf /tmp/c-w; cp -r /tmp/c-a /tmp/c-w
GR="/tmp/g/kron_22_16.gbc /tmp/g/kron_20_16.gbc /tmp/g/urand_22_16.gbc /tmp/g/urand_20_16.gbc /tmp/g/randout_1000000_8.gbc /tmp/g/grid_1024_1024.gbc"
for r in 1 2; do for v in a w; do
  GBCUDA_CACHE_DIR=/tmp/c-$v timeout 90 /tmp/$v/bin/bfs_bench $GR --kernels auto --no-host --no-graphblas --repeat 10 --warmup 2 --json $R/s-$v$r.json > $R/s-$v$r.txt 2>&1
  GBCUDA_CACHE_DIR=/tmp/c-$v timeout 90 /tmp/$v/bin/bfs_bench /tmp/g/kron_22_16.gbc /tmp/g/kron_20_16.gbc --reorder degree --kernels auto --no-host --no-graphblas --repeat 10 --warmup 2 --json $R/d-$v$r.json > $R/d-$v$r.txt 2>&1
  echo "round $v$r $(el) s"
done; done
pack
echo "natural order"; python3 scripts/bench_table.py --compare $R/s-a1.json $R/s-w1.json $R/s-a2.json $R/s-w2.json 2>&1 | tail -8
echo "degree order"; python3 scripts/bench_table.py --compare $R/d-a1.json $R/d-w1.json $R/d-a2.json $R/d-w2.json 2>&1 | tail -4
for v in a w; do GBCUDA_CACHE_DIR=/tmp/c-$v timeout 60 /tmp/$v/bin/bfs_spmv /tmp/g/kron_22_16.gbc --source max-degree --repeat 5 --verbose > $R/L-kron22-$v.txt 2>&1; grep -E "^level|^time" $R/L-kron22-$v.txt | cut -c1-110; done
for v in a w; do
  GBCUDA_CACHE_DIR=/tmp/c-$v timeout 200 /tmp/$v/bin/bfs_bench --preset standard --kernels auto --no-host --no-graphblas --repeat 5 --warmup 1 --json $R/std-$v.json > $R/std-$v.txt 2>&1
  echo "standard $v rc=$? $(el) s"
done
pack
python3 scripts/bench_table.py --compare $R/std-a.json $R/std-w.json 2>&1 | tail -9
( cd /tmp/w && GBCUDA_CACHE_DIR=/tmp/gbcache-t OMP_NUM_THREADS=2 timeout 250 ctest -j13 --timeout 230 > $R/ctest.log 2>&1; echo "ctest rc=$? $(grep -E 'tests passed|tests failed' $R/ctest.log) $(el) s" )
grep -E 'Failed|\*\*\*|Total Test' $R/ctest.log | head
pack; echo "end $(el) s"
