#!/usr/bin/env bash
# HEAD's levels on the graphs whose targets stay missed: kron:22:16 in degree order, urand:22:16,
# urand:20:16 (listings only, for PERFORMANCE.md's explanations).
set -u
R=/tmp/r56; mkdir -p $R
t0=$(date +%s); el() { echo "$(( $(date +%s)-t0 ))"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; cat $R/device.txt
( cmake -S . -B /tmp/h -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/h -j16 --target bfs_spmv ) > $R/build.log 2>&1 || { tail -20 $R/build.log; exit 1; }
echo "built $(el) s"
L() { name=$1; shift; GBCUDA_CACHE_DIR=/tmp/c-h timeout 100 /tmp/h/bin/bfs_spmv "$@" --source max-degree --repeat 5 --verbose > $R/L-$name.txt 2>&1; echo "== $name"; grep -E "^level|^time|^ordering" $R/L-$name.txt | cut -c1-110; }
L kron22-degree kron:22:16 --reorder degree
L kron22 kron:22:16
L urand22 urand:22:16
L urand20 urand:20:16
tar czf $OUT/r56.tgz -C $R .; echo "end $(el) s"
