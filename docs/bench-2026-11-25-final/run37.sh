#!/usr/bin/env bash
# T = working tree (HEAD + the recheck only after a huge row). One calibration, then policy caches:
# d = as calibrated (single_block_max 1024, block_queue_max 1024), s = single_block_max 512,
# q = both 512. Small suite, 3 rounds alternated; grid levels for d and s.
set -u
export OMP_NUM_THREADS=16
R=/tmp/r37; mkdir -p $R
pack() { tar czf $OUT/r37.tgz -C $R . ; }
t0=$(date +%s); el() { echo "$(( $(date +%s)-t0 ))"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; cat $R/device.txt
( cmake -S . -B /tmp/t -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/t -j16 --target bfs_bench bfs_spmv ) > $R/build-t.log 2>&1 || { tail -20 $R/build-t.log; pack; exit 1; }
echo "built $(el) s"
mkdir -p /tmp/g
for G in kron:22:16 urand:22:16 urand:20:16 randout:1000000:8 grid:2048:2048 grid:1024:1024; do
  f=/tmp/g/$(echo $G | tr ':' '_').gbc; GBCUDA_CACHE_DIR=/tmp/c-d timeout 120 /tmp/t/bin/bfs_spmv $G --save $f > /dev/null 2>&1 || echo "save $G failed"
done; echo "saved $(el) s"
cat /tmp/c-d/* > $R/cache-d.json; tr '\n' ' ' < $R/cache-d.json; echo
mkdir -p /tmp/c-s /tmp/c-q
for f in /tmp/c-d/*; do
  sed -E 's/"single_block_max": [0-9]+/"single_block_max": 512/' $f > /tmp/c-s/$(basename $f)
  sed -E 's/"single_block_max": [0-9]+/"single_block_max": 512/; s/"block_queue_max": [0-9]+/"block_queue_max": 512/' $f > /tmp/c-q/$(basename $f)
done
cat /tmp/c-s/* /tmp/c-q/* | grep max | tr '\n' ' '; echo
GR="/tmp/g/kron_22_16.gbc /tmp/g/urand_22_16.gbc /tmp/g/urand_20_16.gbc /tmp/g/randout_1000000_8.gbc /tmp/g/grid_2048_2048.gbc /tmp/g/grid_1024_1024.gbc"
for r in 1 2 3; do for v in d s q; do
  GBCUDA_CACHE_DIR=/tmp/c-$v timeout 90 /tmp/t/bin/bfs_bench $GR --kernels auto --no-host --no-graphblas --repeat 10 --warmup 2 --json $R/s-$v$r.json > $R/s-$v$r.txt 2>&1
  echo "small $v$r rc=$? $(el) s"
done; done
pack
for v in d s q; do for G in grid_1024_1024 kron_22_16 urand_22_16 randout_1000000_8; do
  GBCUDA_CACHE_DIR=/tmp/c-$v timeout 60 /tmp/t/bin/bfs_spmv /tmp/g/$G.gbc --source max-degree --repeat 3 --verbose > $R/L-$G-$v.txt 2>&1; done; done
pack
for v in s q; do echo "$v vs d"; python3 scripts/bench_table.py --compare $R/s-d1.json $R/s-${v}1.json $R/s-d2.json $R/s-${v}2.json $R/s-d3.json $R/s-${v}3.json 2>&1 | tail -6; done
echo "end $(el) s"
