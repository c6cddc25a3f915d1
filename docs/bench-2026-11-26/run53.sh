#!/usr/bin/env bash
# f5b30fd (the tree): how wide should a single-block level be? The calibrated single_block_max
# (layered graphs of 3 edges a vertex) against 256 / 128 / 64, by editing the calibration cache.
set -u
export OMP_NUM_THREADS=16
R=/tmp/r53; mkdir -p $R
pack() { tar czf $OUT/r53.tgz -C $R . ; }
t0=$(date +%s); el() { echo "$(( $(date +%s)-t0 ))"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; cat $R/device.txt
( cmake -S . -B /tmp/w -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/w -j16 --target bfs_bench bfs_spmv ) > $R/build.log 2>&1 || { tail -20 $R/build.log; exit 1; }
echo "built $(el) s"
mkdir -p /tmp/g
for G in randout:1000000:8 urand:20:16 kron:20:16 urand:22:16 kron:22:16 grid:1024:1024; do
  f=/tmp/g/$(echo $G | tr ':' '_').gbc; GBCUDA_CACHE_DIR=/tmp/c-cal timeout 120 /tmp/w/bin/bfs_spmv $G --save $f > /dev/null 2>&1 || echo "save $G failed"
done; echo "saved $(el) s"
cat /tmp/c-cal/*.json | tee $R/calibrated.json
for m in 256 128 64; do mkdir -p /tmp/c-$m; for f in /tmp/c-cal/*.json; do python3 -c "
import json,sys; j=json.load(open('$f')); j['single_block_max']=$m; json.dump(j, open('/tmp/c-$m/'+'$f'.split('/')[-1],'w'), indent=2)"; done; done
GR="/tmp/g/randout_1000000_8.gbc /tmp/g/urand_20_16.gbc /tmp/g/kron_20_16.gbc /tmp/g/urand_22_16.gbc /tmp/g/kron_22_16.gbc /tmp/g/grid_1024_1024.gbc"
for r in 1 2; do for v in cal 256 128 64; do
  GBCUDA_CACHE_DIR=/tmp/c-$v timeout 90 /tmp/w/bin/bfs_bench $GR --kernels auto --no-host --no-graphblas --repeat 10 --warmup 2 --json $R/s-$v-$r.json > $R/s-$v-$r.txt 2>&1
  echo "round $v $r rc=$? $(el) s"
done; done
pack
for v in 256 128 64; do echo "== single_block_max $v against the calibrated"; python3 scripts/bench_table.py --compare $R/s-cal-1.json $R/s-$v-1.json $R/s-cal-2.json $R/s-$v-2.json 2>&1 | tail -6; done
for v in cal 128; do for G in randout_1000000_8 urand_20_16; do GBCUDA_CACHE_DIR=/tmp/c-$v timeout 60 /tmp/w/bin/bfs_spmv /tmp/g/$G.gbc --source max-degree --repeat 5 --verbose > $R/L-$G-$v.txt 2>&1; echo "== $G $v"; grep -E "^level|^time" $R/L-$G-$v.txt | cut -c1-105; done; done
pack; echo "end $(el) s"
