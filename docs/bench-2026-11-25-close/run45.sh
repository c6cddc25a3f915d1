#!/usr/bin/env bash
# Same machine as run44 (/tmp/a, /tmp/w kept): W's whole ctest and sanitizers; large graphs A/W.
set -u
export OMP_NUM_THREADS=16
R=/tmp/r45; mkdir -p $R
t0=$(date +%s); el() { echo "$(( $(date +%s)-t0 ))"; }
ls /tmp/w/bin/test_product_kernels >/dev/null || { echo "no build: machine was not warm"; exit 3; }
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
san() { name=$1; tool=$2; filt=$3; ( GBCUDA_CALIBRATION=off timeout 250 $cs --tool $tool --error-exitcode 99 /tmp/w/bin/test_product_kernels --gtest_filter="$filt" > $R/san-$name.log 2>&1; echo "san $name rc=$? $(el) s" ) & }
san memcheck memcheck 'FusedBfs.BarrierFree*:Kernels/ProductKernel.HubsBesideShorterRows/*:*Tiny*:-*BySample*'
san racecheck racecheck 'FusedBfs.BarrierFreeTailFinishesLongNarrowSearches:Kernels/ProductKernel.HubsBesideShorterRows/auto*:Kernels/ProductKernel.Star/queue_block'
( cd /tmp/w && GBCUDA_CACHE_DIR=/tmp/gbcache-t OMP_NUM_THREADS=2 timeout 330 ctest -j13 --timeout 300 > $R/ctest.log 2>&1; echo "ctest rc=$? $(grep -E 'tests passed|tests failed' $R/ctest.log) $(el) s" )
wait
grep -E 'Failed|\*\*\*|Total Test' $R/ctest.log | head
for f in $R/san-*.log; do echo "$(basename $f): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tail -1) ok=$(grep -c '^\[       OK' $f) failed=$(grep -c '^\[  FAILED  \] [A-Z]' $f)"; done
tar czf $OUT/r45.tgz -C $R .
for v in a w; do
  GBCUDA_CACHE_DIR=/tmp/c-$v timeout 150 /tmp/$v/bin/bfs_bench urand:26:8 randout:100000000:4 randout:100000000:8 --kernels auto --no-host --no-graphblas --repeat 5 --warmup 1 --json $R/big-$v.json > $R/big-$v.txt 2>&1
  echo "big $v rc=$? $(el) s"
done
tar czf $OUT/r45.tgz -C $R .
python3 scripts/bench_table.py --compare $R/big-a.json $R/big-w.json 2>&1 | tail -5
echo "end $(el) s"
