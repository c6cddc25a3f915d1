#!/usr/bin/env bash
# Warm after run46 (/tmp/w kept): compute-sanitizer memcheck and racecheck on HEAD's device code.
set -u
R=/tmp/r47; mkdir -p $R
t0=$(date +%s); el() { echo "$(( $(date +%s)-t0 ))"; }
ls /tmp/w/bin/test_product_kernels >/dev/null || { echo "no build: machine was not warm"; exit 3; }
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
san() { name=$1; tool=$2; filt=$3; ( GBCUDA_CALIBRATION=off OMP_NUM_THREADS=4 timeout 420 $cs --tool $tool --error-exitcode 99 /tmp/w/bin/test_product_kernels --gtest_filter="$filt" > $R/san-$name.log 2>&1; echo "san $name rc=$? $(el) s" ) & }
san memcheck memcheck 'FusedBfs.*:Kernels/ProductKernel.HubsBesideShorterRows/*:*Tiny*:-*BySample*'
san racecheck-tail racecheck 'FusedBfs.BarrierFreeTailOnASmallMesh'
san racecheck-old racecheck 'Kernels/ProductKernel.HubsBesideShorterRows/auto*:Kernels/ProductKernel.HubsBesideShorterRows/queue*:Kernels/ProductKernel.HubsBesideShorterRows/single*:Kernels/ProductKernel.Star/queue_block'
san synccheck synccheck 'FusedBfs.BarrierFreeTailOnASmallMesh:FusedBfs.BarrierFreeTailAbandonsWhenItsQueueIsFull'
wait
for f in $R/san-*.log; do echo "$(basename $f): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tail -1) ok=$(grep -c '^\[       OK' $f) failed=$(grep -c '^\[  FAILED  \] [A-Z]' $f)"; done
tar czf $OUT/r47.tgz -C $R .
echo "end $(el) s"
