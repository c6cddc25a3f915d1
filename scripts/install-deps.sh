#!/usr/bin/env bash
# Installs the Debian packages listed in scripts/debian-build-tools.txt and
# scripts/debian-packages.txt that are missing, or those of the lists given as arguments
# (e.g. scripts/debian-fuzz-tools.txt for make fuzz).
# Needs root (or sudo) only when something is missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
lists=("$@")
[ ${#lists[@]} -gt 0 ] || lists=("$root/scripts/debian-build-tools.txt" "$root/scripts/debian-packages.txt")
mapfile -t pkgs < <(cat "${lists[@]}" | grep -v '^\s*#' | grep -v '^\s*$')
missing=()
for p in "${pkgs[@]}"; do
  # No `| grep -q` here: under pipefail an early-exiting grep can fail the pipeline (SIGPIPE).
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == *"install ok installed"* ]] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
echo "install-deps: installing ${missing[*]}" >&2
sudo_cmd=""
[ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo_cmd apt-get update -qq
$sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
