#!/usr/bin/env bash
# Prototype v2: warps keep their finds in a ring in shared memory (keep = how many), surplus to
# the global queue. Beside v1's best and gbcuda HEAD's grid time (bfs_bench, same call).
set -u
R=/tmp/r43; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/device.txt
nvcc -O3 -std=c++20 -arch=sm_90 -o /tmp/async_bfs exp/async_bfs.cu > $R/build.log 2>&1 || { cat $R/build.log; exit 1; }
run() { timeout 60 /tmp/async_bfs "$@" 2>&1 | tee -a $R/out.txt; }
run urand 100000 8 1 256 256 32
run urand 1000000 16 1 256 256 32
run grid 256 256 1 256 256 32
run grid 2048 2048 1 64 256 0
for cfg in "1 256 256 32" "1 256 256 64" "1 1024 256 32" "2 1024 256 32" "1 128 256 32" "4 256 256 32" "1 1024 1000 32" "1 1024 256 16"; do
  run grid 2048 2048 $cfg
done
run grid 1024 1024 1 256 256 32
run grid 1024 1024 1 1024 256 32
ls /tmp/w/bin/bfs_bench >/dev/null 2>&1 && GBCUDA_CACHE_DIR=/tmp/c-w timeout 120 /tmp/w/bin/bfs_bench grid:2048:2048 grid:1024:1024 --kernels auto --no-host --no-graphblas --repeat 10 --warmup 2 2>&1 | grep -E "median" | tee -a $R/out.txt
cp $R/* $OUT/
