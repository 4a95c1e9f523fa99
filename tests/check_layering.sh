#!/bin/bash
# Layering check: each folder of the chain may include project headers only from itself and the folders above it.
# The chain order below is the one home of that order (README.md and ../shared/DESIGN.md describe it).
# Usage: check_layering.sh SOURCE_DIR
set -euo pipefail
cd "$1"
chain=(util contracts importer mapper/model mapper/mapspace mapper/search codegen flow sim testbench calibration cli)
status=0
for ((i = 0; i < ${#chain[@]}; ++i)); do
  folder=${chain[i]}
  allowed=("${chain[@]:0:i+1}")
  while IFS= read -r line; do
    included=${line#*#include \"}
    included=${included%/*}  # the folder of the included header
    if [[ " ${chain[*]} " == *" $included "* && " ${allowed[*]} " != *" $included "* ]]; then
      echo "layering: ${line%%:*} includes $included/, which is below $folder/ in the chain" >&2
      status=1
    fi
  done < <(grep -HE '^#include "[a-z_/]+/[a-z_]+\.hpp"' "$folder"/*.hpp "$folder"/*.cpp || true)
done
[[ $status -eq 0 ]] && echo "layering: ${chain[*]} — every include goes up the chain"
exit $status
