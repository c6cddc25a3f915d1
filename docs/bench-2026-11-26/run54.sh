#!/usr/bin/env bash
# f5b30fd (T, the tree) against the same code with single_block_max_edges 2048 (E2) and 1024 (E1)
# (exp/e2048, exp/e1024), and T with single_block_max 128 in the calibration cache (S).
set -u
export OMP_NUM_THREADS=16
R=/tmp/r54; mkdir -p $R
pack() { tar czf $OUT/r54.tgz -C $R . ; }
t0=$(date +%s); el() { echo "$(( $(date +%s)-t0 ))"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; cat $R/device.txt
bt() { ( cmake -S $1 -B /tmp/$2 -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/$2 -j$3 --target bfs_bench bfs_spmv ) > $R/build-$2.log 2>&1; }
[ -x /tmp/w/bin/bfs_bench ] || bt . w 6 & bt exp/e2048 e2 5 & bt exp/e1024 e1 5; wait
ln -sfn /tmp/w /tmp/t; ln -sfn /tmp/w /tmp/s
echo "built $(el) s"; for v in t e2 e1; do ls /tmp/$v/bin/bfs_bench >/dev/null || { echo "build $v failed"; tail -5 $R/build-$v.log; exit 1; }; done
mkdir -p /tmp/g
for G in randout:1000000:8 urand:20:16 kron:20:16 urand:22:16 kron:22:16 grid:1024:1024; do
  f=/tmp/g/$(echo $G | tr ':' '_').gbc; [ -f $f ] || GBCUDA_CACHE_DIR=/tmp/c-cal timeout 120 /tmp/t/bin/bfs_spmv $G --save $f > /dev/null 2>&1 || echo "save $G failed"
done; echo "saved $(el) s"
for v in t e2 e1; do rm -rf /tmp/c-$v; cp -r /tmp/c-cal /tmp/c-$v; done
rm -rf /tmp/c-s; cp -r /tmp/c-128 /tmp/c-s 2>/dev/null || { mkdir -p /tmp/c-s; for f in /tmp/c-cal/*.json; do python3 -c "
import json; j=json.load(open('$f')); j['single_block_max']=128; json.dump(j, open('/tmp/c-s/'+'$f'.split('/')[-1],'w'), indent=2)"; done; }
GR="/tmp/g/randout_1000000_8.gbc /tmp/g/urand_20_16.gbc /tmp/g/kron_20_16.gbc /tmp/g/urand_22_16.gbc /tmp/g/kron_22_16.gbc /tmp/g/grid_1024_1024.gbc"
for r in 1 2; do for v in t e2 e1 s; do
  GBCUDA_CACHE_DIR=/tmp/c-$v timeout 90 /tmp/$v/bin/bfs_bench $GR --kernels auto --no-host --no-graphblas --repeat 10 --warmup 2 --json $R/s-$v-$r.json > $R/s-$v-$r.txt 2>&1
  echo "round $v $r rc=$? $(el) s"
done; done
pack
for v in e2 e1 s; do echo "== $v against T"; python3 scripts/bench_table.py --compare $R/s-t-1.json $R/s-$v-1.json $R/s-t-2.json $R/s-$v-2.json 2>&1 | tail -6; done
for v in t e1; do for G in kron_20_16 urand_20_16; do GBCUDA_CACHE_DIR=/tmp/c-$v timeout 60 /tmp/$v/bin/bfs_spmv /tmp/g/$G.gbc --source max-degree --repeat 5 --verbose > $R/L-$G-$v.txt 2>&1; echo "== $G $v"; grep -E "^level|^time" $R/L-$G-$v.txt | cut -c1-105; done; done
pack; echo "end $(el) s"
