#!/usr/bin/env bash
# Prototype: barrier-free label-correcting BFS (exp/async_bfs.cu) on the meshes, variants of
# warps and back-off; a random graph for correctness under many corrections.
set -u
R=/tmp/r41; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/device.txt
nvcc -O3 -std=c++20 -arch=sm_90 -o /tmp/async_bfs exp/async_bfs.cu > $R/build.log 2>&1 || { cat $R/build.log; exit 1; }
run() { timeout 60 /tmp/async_bfs "$@" 2>&1 | tee -a $R/out.txt; }
run urand 100000 8 1 256 256
run grid 256 256 1 256 256
for cfg in "1 256 256" "1 1024 256" "2 1024 256" "1 256 1000" "1 128 256" "4 256 128" "1 64 256"; do
  run grid 2048 2048 $cfg
done
run grid 1024 1024 1 256 256
run grid 1024 1024 1 128 256
run urand 1000000 16 1 256 256
run urand 1000000 16 2 1024 256
cp $R/* $OUT/
