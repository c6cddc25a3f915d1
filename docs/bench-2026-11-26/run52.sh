#!/usr/bin/env bash
# Warm after run51: the standard suite, eeac0e7 (B) then f5b30fd (W).
set -u
export OMP_NUM_THREADS=16
R=/tmp/r52; mkdir -p $R
t0=$(date +%s); el() { echo "$(( $(date +%s)-t0 ))"; }
for v in b w; do ls /tmp/$v/bin/bfs_bench >/dev/null || { echo "no build: machine was not warm"; exit 3; }; done
for v in b w; do
  GBCUDA_CACHE_DIR=/tmp/c-$v timeout 280 /tmp/$v/bin/bfs_bench --preset standard --kernels auto --no-host --no-graphblas --repeat 5 --warmup 1 --json $R/std-$v.json > $R/std-$v.txt 2>&1
  echo "standard $v rc=$? $(el) s"; tar czf $OUT/r52.tgz -C $R .
done
python3 scripts/bench_table.py --compare $R/std-b.json $R/std-w.json 2>&1 | tail -9
echo "end $(el) s"
