#!/usr/bin/env bash
# Gets the real graph files of bfs_bench's real suite (bench/README.md lists what each is, where it
# comes from and its BFS answers) into a git-ignored folder, each checked against its sha256.
#
#   scripts/real-graphs.sh [--dest DIR] [--from DIR] [--list]
#
#   --dest DIR  where the files go (default: $GBCUDA_GRAPH_DIR, else data/graphs in the checkout;
#               bfs_bench --preset real looks in the same places)
#   --from DIR  take the files from DIR (already downloaded, e.g. carried to a machine without
#               internet) instead of downloading them; a file missing there is downloaded
#   --list      print name, sha256 and URL of each file, and exit
#
# Files are kept byte for byte as obtained (bfs_bench knows each one's format). A file already in
# DIR with the right sha256 is left alone; a download or copy whose sha256 differs is refused.
# Downloads use curl or wget from the URL below: the GitHub copy at a fixed commit, whose bytes the
# sha256 is of (the original collections serve other bytes: compressed, or with other headers).
# Exit status: 0 every file in place and verified; 1 some file could not be had; 2 usage.
set -euo pipefail

# name sha256 url
FILES=(
  "luxembourg_osm.mtx eb75caea9ccf73b6af18e0f72a885e37eb036c3c450c4575734b3243ae28e9b4 https://raw.githubusercontent.com/fahaizhong/graphdata/1800816d861ea15a37281e19a28b2d1cf7a7c633/luxembourg_osm.mtx"
  "delaunay_n16.mtx b2128f432a1543d86af01223634e2a8864932fbd096c2bb38149b034551e544e https://raw.githubusercontent.com/fahaizhong/graphdata/1800816d861ea15a37281e19a28b2d1cf7a7c633/delaunay_n16.mtx"
  "web-edu.mtx 69a7b19c3b545c9d650133d9ccfa9a2ef4ff966c7cd61279cd8ab8f50ef16855 https://raw.githubusercontent.com/luca959/Network_Analysis1/d99af9a8437099ddbf86f68325fc66de9aee65bc/web-edu.mtx"
  "facebook_combined.txt f41c026ed8af3cc3359f1ca5573d0605fb09ae0eefa34544b820fd8c6e2ef296 https://raw.githubusercontent.com/fahaizhong/graphdata/1800816d861ea15a37281e19a28b2d1cf7a7c633/facebook_combined.txt"
  "ca-HepPh.txt 0b7e187d7c2a306effa5fa74909955ad810c96e1edd06c88ca520921b4fee4d3 https://raw.githubusercontent.com/kKreics/graph_partitioning/22e6107ad592c3220adfb855ded45b1e39723b2d/graphs_part_1/ca-HepPh.txt"
  "p2p-Gnutella31.txt 811846e1211120bd3d0e3b70d00d3f2f02d2552ff9e907245c9e42764207baa2 https://raw.githubusercontent.com/DavidHulsman/groep27-PageRank/dbbb18b96044986b30c377efb4c26a413eba46b7/p2p-Gnutella31.txt"
  "wiki-Vote.txt b05c0226f5544f0e4a8ac607ae573db42e42716b6dd5aa00e8c769a1219c796f https://raw.githubusercontent.com/perfectstorm88/graph_machine_learning_homework/4905990a88c652d2877581396d1ff84cc9d7d138/wiki-Vote.txt"
)

usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; }

root=$(cd "$(dirname "$0")/.." && pwd)
dest=${GBCUDA_GRAPH_DIR:-$root/data/graphs}
from=
list=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dest) dest=${2:?--dest needs a folder}; shift 2 ;;
    --from) from=${2:?--from needs a folder}; shift 2 ;;
    --list) list=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "real-graphs.sh: unknown argument '$1'; see --help" >&2; exit 2 ;;
  esac
done

if [[ $list == 1 ]]; then
  for entry in "${FILES[@]}"; do
    read -r name sum url <<<"$entry"
    printf '%s  %s  %s\n' "$name" "$sum" "$url"
  done
  exit 0
fi
if [[ -n $from && ! -d $from ]]; then
  echo "real-graphs.sh: --from $from is not a folder" >&2
  exit 2
fi
mkdir -p "$dest"

sha() { sha256sum "$1" | cut -d' ' -f1; }
download() {  # url file
  if command -v curl >/dev/null; then
    curl -fsSL --retry 2 -o "$2" "$1"
  elif command -v wget >/dev/null; then
    wget -q -O "$2" "$1"
  else
    echo "real-graphs.sh: neither curl nor wget is installed" >&2
    return 1
  fi
}

failed=0
for entry in "${FILES[@]}"; do
  read -r name sum url <<<"$entry"
  target=$dest/$name
  if [[ -f $target && $(sha "$target") == "$sum" ]]; then
    echo "real-graphs.sh: $name: present, sha256 ok"
    continue
  fi
  tmp=$target.tmp.$$
  if [[ -n $from && -f $from/$name ]]; then
    cp "$from/$name" "$tmp"
    how="copied from $from"
  elif download "$url" "$tmp"; then
    how="downloaded from $url"
  else
    rm -f "$tmp"
    echo "real-graphs.sh: $name: could not download $url" >&2
    failed=1
    continue
  fi
  got=$(sha "$tmp")
  if [[ $got != "$sum" ]]; then
    rm -f "$tmp"
    echo "real-graphs.sh: $name: sha256 $got, expected $sum ($how); not kept" >&2
    failed=1
    continue
  fi
  mv "$tmp" "$target"
  echo "real-graphs.sh: $name: $how, sha256 ok"
done
if [[ $failed == 0 ]]; then
  echo "real-graphs.sh: every file is in $dest"
fi
exit $failed
