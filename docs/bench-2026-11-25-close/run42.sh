#!/usr/bin/env bash
# Closing evaluation for issue 11: W = HEAD f52ac84 (whole tree), B = eeac0e7 (the last commit
# before issue 11's first change; build-base). Standard suite and BLEST's graphs, B/W alternated,
# then W's whole ctest and sanitizers.
set -u
export OMP_NUM_THREADS=16
R=/tmp/r42; mkdir -p $R
pack() { tar czf $OUT/r42.tgz -C $R . ; }
pack2() { tar czf $OUT/r42b.tgz -C $R ctest.log san-memcheck.log san-racecheck.log; }
t0=$(date +%s); el() { echo "$(( $(date +%s)-t0 ))"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; cat $R/device.txt
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
P=${1:-1}
if [ $P = 1 ]; then
bt() { ( cmake -S $1 -B /tmp/$2 -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/$2 -j$3 $4 ) > $R/build-$2.log 2>&1; }
bt . w 12 "" & bt build-base b 4 "--target bfs_bench bfs_spmv"; wait
echo "built $(el) s"; grep -iE " warning|error:" $R/build*.log | head
for v in b w; do ls /tmp/$v/bin/bfs_bench >/dev/null || { echo "build $v failed"; tail -20 $R/build-$v.log; pack; exit 1; }; done
BL="kron:20:16 kron:22:16 urand:20:16 urand:22:16 urand:24:16 grid:1024:1024 grid:2048:2048 randout:1000000:8"
for r in 1 2; do for v in b w; do
  GBCUDA_CACHE_DIR=/tmp/c-$v timeout 200 /tmp/$v/bin/bfs_bench $BL --kernels auto --no-host --no-graphblas --repeat 10 --warmup 2 --json $R/blest-$v$r.json > $R/blest-$v$r.txt 2>&1
  echo "blest $v$r rc=$? $(el) s"
done; done
pack; echo "phase 1 end $(el) s"; exit 0
fi
if [ $P = 2 ]; then
for v in b w; do
  GBCUDA_CACHE_DIR=/tmp/c-$v timeout 280 /tmp/$v/bin/bfs_bench --preset standard --kernels auto --no-host --no-graphblas --repeat 5 --warmup 1 --json $R/std-$v.json > $R/std-$v.txt 2>&1
  echo "standard $v rc=$? $(el) s"
done
pack
cat /tmp/c-b/* /tmp/c-w/* > $R/caches.json 2>/dev/null
for p in "blest-b1 blest-w1 blest-b2 blest-w2" "std-b std-w"; do python3 scripts/bench_table.py --compare $(for x in $p; do echo $R/$x.json; done) 2>&1 | tail -12; done
echo "phase 2 end $(el) s"; exit 0
fi
san() { name=$1; tool=$2; filt=$3; ( GBCUDA_CALIBRATION=off timeout 250 $cs --tool $tool --error-exitcode 99 /tmp/w/bin/test_product_kernels --gtest_filter="$filt" > $R/san-$name.log 2>&1; echo "san $name rc=$? $(el) s" ) & }
san memcheck memcheck 'Kernels/ProductKernel.HubsBesideShorterRows/*:*Tiny*:-*BySample*'
san racecheck racecheck 'Kernels/ProductKernel.HubsBesideShorterRows/auto*:Kernels/ProductKernel.HubsBesideShorterRows/queue*:Kernels/ProductKernel.HubsBesideShorterRows/single*:Kernels/ProductKernel.Star/queue_block'
( cd /tmp/w && GBCUDA_CACHE_DIR=/tmp/gbcache-t OMP_NUM_THREADS=2 timeout 330 ctest -j13 --timeout 300 > $R/ctest.log 2>&1; echo "ctest rc=$? $(grep -E 'tests passed|tests failed' $R/ctest.log) $(el) s" )
wait; pack2
grep -E 'Failed|\*\*\*|Total Test' $R/ctest.log | head
for f in $R/san-*.log; do echo "$(basename $f): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tail -1) ok=$(grep -c '^\[       OK' $f) failed=$(grep -c '^\[  FAILED  \] [A-Z]' $f)"; done
echo "end $(el) s"
