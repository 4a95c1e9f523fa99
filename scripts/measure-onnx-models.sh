#!/bin/bash
# Measures issue 41's targets on real exported ONNX models (tests/oracle/README.md): for every model of LIST, does it
# import, does it run whole (no node cut) and from the real input alone (a cut tensor computed by the float
# reference), and how does every final output computed from a seeded real input agree with ONNX Runtime (cosine).
# LIST (default tests/oracle/measured-models.txt) holds "FILE SHA-256 github:OWNER/REPO@COMMIT:PATH [maeri import
# options…]" lines: each model is taken from DIR/measured-models/, else from --from FOLDER, else downloaded from GitHub,
# its SHA-256 checked; a list of "PATH [options…]" lines (as tests/oracle/models.txt) is run as it is. Uses the oracle
# runner with --references-only (the integer reference, which a chained run holds the RTL to bit for bit) unless
# --rtl is given; installs npm's onnxruntime-node into the build tree on first use (the tools must be built). Prints
# the table and the totals.
# Usage: scripts/measure-onnx-models.sh [--build DIR] [--hardware HW.yaml] [--rtl] [--from FOLDER] [LIST]
#   the results stay in DIR/measure-onnx/ (results.json, per-model work).
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
hardware=configs/hardware/maeri-64.yaml
mode=(--references-only)
list=tests/oracle/measured-models.txt
from=
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --hardware) hardware=$2; shift 2 ;;
    --rtl) mode=(); shift ;;
    --from) from=$2; shift 2 ;;
    -*) echo "measure-onnx-models: unknown option $1" >&2; exit 1 ;;
    *) list=$1; shift ;;
  esac
done
for tool in cli/maeri tests/maeri_expose_onnx_tensors; do
  [[ -x $build/$tool ]] || { echo "measure-onnx-models: build first: cmake --build $build --target maeri" \
    "maeri_expose_onnx_tensors" >&2; exit 1; }
done
tests/oracle/install_onnxruntime.sh "$PWD/$build/onnxruntime-node" >/dev/null
out=$build/measure-onnx
models=$build/measured-models
mkdir -p "$out" "$models"
# The model FILE of SHA-256 SUM from SOURCE (github:OWNER/REPO@COMMIT:PATH) in $models, or a message and status 1.
fetch_model() {
  local file=$1 sum=$2 source=$3 target=$models/$1
  [[ -f $target && $(sha256sum "$target" | cut -c1-64) == "$sum" ]] && return 0
  if [[ -n $from && -f $from/$file ]]; then
    cp "$from/$file" "$target"
  else
    local spec=${source#github:} repo commit path
    repo=${spec%%@*}; commit=${spec#*@}; path=${commit#*:}; commit=${commit%%:*}
    curl -fsSL --max-time 120 -o "$target" "https://raw.githubusercontent.com/$repo/$commit/$path" ||
      { echo "measure-onnx-models: cannot download $file from $source" >&2; rm -f "$target"; return 1; }
  fi
  [[ $(sha256sum "$target" | cut -c1-64) == "$sum" ]] ||
    { echo "measure-onnx-models: $file does not have SHA-256 $sum ($source)" >&2; rm -f "$target"; return 1; }
}
runner_list=$list
if grep -qE '^[^#[:space:]]+ [0-9a-f]{64} github:' "$list"; then
  runner_list=$out/models.txt
  : > "$runner_list"
  while read -r file sum source options; do
    [[ -z $file || $file == \#* ]] && continue
    fetch_model "$file" "$sum" "$source" && echo "$PWD/$models/$file $options" >> "$runner_list"
  done < "$list"
fi
NODE_PATH=$PWD/$build/onnxruntime-node/node_modules node tests/oracle/onnx_oracle.js --maeri "$build/cli/maeri" \
  --expose "$build/tests/maeri_expose_onnx_tensors" --hardware "$hardware" --work "$out" --json "$out/results.json" \
  "${mode[@]}" "$runner_list" >"$out/log.txt" || true
node tests/oracle/results_table.js "$out/results.json"
