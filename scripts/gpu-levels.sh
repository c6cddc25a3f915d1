#!/usr/bin/env bash
# On the GPU host: per-level statistics (kernel, frontier, edges, time) of the auto policy on the
# standard graphs, to see where a search spends its time. Logs under $OUT.
set -uo pipefail
out=${OUT:-gpu-logs}
mkdir -p "$out"
export GBCUDA_CACHE_DIR=${GBCUDA_CACHE_DIR:-/tmp/gbcuda-cache}
[ -x build-gpu/bin/bfs_spmv ] || { cmake -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build build-gpu -j"$(nproc)" > "$out/build.log" 2>&1; } || exit 1
# arguments: GRAPH@SOURCE ...
for arg in "$@"; do
  g=${arg%@*}; src=${arg##*@}
  name=$(echo "$g" | tr ':' '_')
  build-gpu/bin/bfs_spmv "$g" --source "$src" --repeat 5 --verbose > "$out/$name.txt" 2> "$out/$name.levels"
  echo "== $g source $src: $(grep -E 'time|GTEPS' "$out/$name.txt" | tr '\n' ' ')"
  grep -E '^ *(level|[0-9])' "$out/$name.levels" | tail -n 30 | head -n 24
done
