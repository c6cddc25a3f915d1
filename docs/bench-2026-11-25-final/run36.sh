#!/usr/bin/env bash
# On run35's warm machine: the whole suite and the sanitizers on T (/tmp/t).
set -u
R=/tmp/r36; mkdir -p $R
pack() { tar czf $OUT/r36.tgz -C $R . ; }
t0=$(date +%s); el() { echo "$(( $(date +%s)-t0 ))"; }
[ -x /tmp/t/bin/test_product_kernels ] || { echo "no /tmp/t build (machine was not warm)"; exit 3; }
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
san() { name=$1; tool=$2; filt=$3; ( GBCUDA_CALIBRATION=off timeout 280 $cs --tool $tool --error-exitcode 99 /tmp/t/bin/test_product_kernels --gtest_filter="$filt" > $R/san-$name.log 2>&1; echo "san $name rc=$? $(el) s" ) & }
san memcheck-hubs memcheck 'Kernels/ProductKernel.HubsBesideShorterRows/*:*Tiny*:-*BySample*'
san racecheck-hubs racecheck 'Kernels/ProductKernel.HubsBesideShorterRows/auto*:Kernels/ProductKernel.HubsBesideShorterRows/queue*:Kernels/ProductKernel.HubsBesideShorterRows/single*:Kernels/ProductKernel.Star/queue_block'
( cd /tmp/t && GBCUDA_CACHE_DIR=/tmp/gbcache-t OMP_NUM_THREADS=2 timeout 420 ctest -j13 --timeout 300 > $R/ctest.log 2>&1; echo "ctest rc=$? $(grep -E 'tests passed|tests failed' $R/ctest.log) $(el) s" )
wait; pack
grep -E 'Failed|\*\*\*|Total Test' $R/ctest.log | head
for f in $R/san-*.log; do echo "$(basename $f): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tail -1) ok=$(grep -c '^\[       OK' $f) failed=$(grep -c '^\[  FAILED  \] [A-Z]' $f)"; done
echo "end $(el) s"
