#!/bin/bash
# Measures issue 41's targets on real exported ONNX models (tests/oracle/README.md): for every model of LIST (one a
# line: PATH [maeri import options…], as tests/oracle/models.txt), does it import, does it run whole (no node cut),
# and how does every final output computed from a seeded real input agree with ONNX Runtime (cosine). Uses the
# oracle runner with --references-only (the integer reference, which a chained run holds the RTL to bit for bit) unless
# --rtl is given; installs npm's onnxruntime-node into the build tree on first use (the tools must be built). Prints
# the table and the totals.
# Usage: scripts/measure-onnx-models.sh [--build DIR] [--hardware HW.yaml] [--rtl] [LIST]
#   LIST defaults to /work/models/models.txt; the results stay in DIR/measure-onnx/ (results.json, per-model work).
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
hardware=configs/hardware/maeri-64.yaml
mode=(--references-only)
list=/work/models/models.txt
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --hardware) hardware=$2; shift 2 ;;
    --rtl) mode=(); shift ;;
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
mkdir -p "$out"
NODE_PATH=$PWD/$build/onnxruntime-node/node_modules node tests/oracle/onnx_oracle.js --maeri "$build/cli/maeri" \
  --expose "$build/tests/maeri_expose_onnx_tensors" --hardware "$hardware" --work "$out" --json "$out/results.json" \
  "${mode[@]}" "$list" >"$out/log.txt" || true
node tests/oracle/results_table.js "$out/results.json"
