#!/usr/bin/env bash
# HEAD f12467e (working tree): test_product_kernels whole on the GPU after calibrate.cu's refactor.
set -u
R=/tmp/r39; mkdir -p $R
pack() { tar czf $OUT/r39.tgz -C $R . ; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; cat $R/device.txt
( cmake -S . -B /tmp/w -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/w -j16 --target test_product_kernels ) > $R/build.log 2>&1 || { tail -20 $R/build.log; pack; exit 1; }
GBCUDA_CACHE_DIR=/tmp/c OMP_NUM_THREADS=8 timeout 200 /tmp/w/bin/test_product_kernels > $R/test_product_kernels.log 2>&1; echo "rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/test_product_kernels.log | tr '\n' ' ')"
grep -E '^\[  FAILED' $R/test_product_kernels.log | head
cat /tmp/c/* | tee $R/cache.json | tr '\n' ' '; echo; pack
