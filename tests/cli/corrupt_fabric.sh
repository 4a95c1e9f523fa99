#!/bin/bash
# Copies the fabric cache $1 to a temporary directory, truncates every cached fabric.so there and runs the rest of
# the command line (a maeri command) with MAERI_FABRIC_CACHE pointing at the copy; prints its output and exits
# with its exit code. Used by the CLI test of a corrupt cached fabric.
set -u
cache=$1; shift
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
cp -r "$cache"/. "$copy"/ || exit 1
found=0
for object in "$copy"/*/fabric.so; do
  [[ -f $object ]] || continue
  truncate -s 100 "$object"; found=1
done
[[ $found -eq 1 ]] || { echo "no cached fabric in $cache"; exit 1; }
MAERI_FABRIC_CACHE=$copy "$@"
