#!/usr/bin/env bash
# An A/B of bfs_bench between a base revision and the working tree, on one machine in one call:
# both built (Release) outside the tree, then the two run alternately (base, tree, base, tree, ...)
# so that drift and order effects fall on both sides, and scripts/bench_table.py --compare prints
# each round's medians and the change of the mean. JSON and logs go to $OUT (default ab-logs/).
#
#   scripts/ab.sh BASE_REV [--rounds N] [--jobs N] -- <bfs_bench arguments>
#   scripts/ab.sh HEAD~1 -- --preset standard --kernels auto --no-host --no-graphblas --repeat 5
#
# Each side keeps its own calibration cache (GBCUDA_CACHE_DIR), so neither reads the other's.
# On the GPU host: `source .gpu/setup.sh && scripts/ab.sh ...`.
set -euo pipefail

usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; }
[[ $# -ge 1 ]] || { usage >&2; exit 2; }
case "$1" in -h | --help) usage; exit 0 ;; esac
base=$1; shift
rounds=2
jobs=$(nproc 2>/dev/null || echo 2)
while [[ $# -gt 0 && $1 != -- ]]; do
  case "$1" in
    --rounds) rounds=${2:?--rounds needs a count}; shift 2 ;;
    --jobs) jobs=${2:?--jobs needs a count}; shift 2 ;;
    *) echo "ab.sh: unknown option '$1' (before --); see --help" >&2; exit 2 ;;
  esac
done
[[ ${1:-} == -- ]] || { echo "ab.sh: the bfs_bench arguments follow '--'; see --help" >&2; exit 2; }
shift
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "ab.sh: --rounds must be a positive count, not '$rounds'" >&2; exit 2; }

root=$(git rev-parse --show-toplevel)
rev=$(git -C "$root" rev-parse --verify --quiet "$base^{commit}") || { echo "ab.sh: '$base' is not a revision" >&2; exit 2; }
out=${OUT:-$root/ab-logs}
work=${AB_WORK:-/tmp/gbcuda-ab}
mkdir -p "$out" "$work"

# The base as a detached worktree (replaced if it exists), so the tree itself is never touched.
git -C "$root" worktree remove --force "$work/base-src" 2>/dev/null || rm -rf "$work/base-src"
git -C "$root" worktree add --detach "$work/base-src" "$rev" > /dev/null

build() {  # source dir, build dir, log
  { cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGBCUDA_TESTS=OFF &&
    cmake --build "$2" -j"$jobs" --target bfs_bench; } > "$3" 2>&1 || { tail -30 "$3" >&2; echo "ab.sh: build failed ($3)" >&2; exit 1; }
}
echo "building base ${rev:0:10} and the tree ($jobs jobs)"
build "$work/base-src" "$work/base" "$out/build-base.log"
build "$root" "$work/tree" "$out/build-tree.log"

runs=()
for ((r = 1; r <= rounds; ++r)); do
  for side in base tree; do
    json="$out/$side-$r.json"
    echo "round $r: $side"
    GBCUDA_CACHE_DIR="$work/cache-$side" "$work/$side/bin/bfs_bench" "$@" --json "$json" > "$out/$side-$r.txt" 2>&1 ||
      { tail -20 "$out/$side-$r.txt" >&2; echo "ab.sh: bfs_bench failed on the $side (round $r)" >&2; exit 1; }
    runs+=("$json")
  done
done
git -C "$root" worktree remove --force "$work/base-src"
python3 "$root/scripts/bench_table.py" --compare "${runs[@]}" | tee "$out/compare.md"
