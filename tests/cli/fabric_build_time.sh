#!/bin/bash
# A chained run on an instance whose fabric is not built yet tells the build's seconds apart from its own overhead
# (the last line of `maeri verify --chain`, cli/command_verify.cpp): with an empty fabric cache the line ends with
# "building the fabric first N s" and its overhead leaves those seconds out (building even the smallest fabric takes
# far longer than a tiny network's loading, planning and checking); a second run, the fabric now cached, names no
# build. Usage: fabric_build_time.sh MAERI HARDWARE WORKLOAD
set -u
maeri=$1 hardware=$2 workload=$3
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
run() { MAERI_FABRIC_CACHE=$cache "$maeri" verify --chain --hardware "$hardware" --workload "$workload" --memory ideal 2>&1; }
first=$(run) || { echo "$first"; echo "FAIL: the first run (building the fabric) failed"; exit 1; }
line=$(grep '^network .*: PASS' <<<"$first")
if [[ ! $line =~ overhead\ ([0-9.]+)\ s,\ building\ the\ fabric\ first\ ([0-9.]+)\ s$ ]]; then
  echo "$first"; echo "FAIL: the last line does not give the build's seconds apart"; exit 1
fi
overhead=${BASH_REMATCH[1]} build=${BASH_REMATCH[2]}
if ! awk -v o="$overhead" -v b="$build" 'BEGIN { exit !(o < b) }'; then
  echo "$line"; echo "FAIL: overhead $overhead s is not below the build's $build s: the build is counted in it"; exit 1
fi
second=$(run) || { echo "$second"; echo "FAIL: the second run (fabric cached) failed"; exit 1; }
if grep -q 'building the fabric' <<<"$second"; then
  echo "$second"; echo "FAIL: the second run names a build, but the fabric was cached"; exit 1
fi
echo "PASS: built in $build s, overhead $overhead s; the cached run names no build"
