#!/bin/bash
# Installs npm's onnxruntime-node (the CPU runtime; a test-only dependency of the ONNX Runtime oracle,
# tests/oracle/README.md) into DIR/node_modules, unless that version is already there. The package's postinstall
# only fetches optional GPU binaries; the CPU runtime and its Node binding ship in the tarball, so the install runs
# with --ignore-scripts and needs nothing but the npm registry.
# Usage: install_onnxruntime.sh DIR
set -euo pipefail
dir=$1
version=1.30.0
for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "install_onnxruntime: '$tool' is missing (scripts/setup.sh installs it)" >&2; exit 1; }
done
installed=$(node -p "require('$dir/node_modules/onnxruntime-node/package.json').version" 2>/dev/null || true)
if [[ $installed != "$version" ]]; then
  mkdir -p "$dir"
  [[ -f $dir/package.json ]] || echo '{"name": "maeri-oracle", "private": true}' > "$dir/package.json"
  npm install --prefix "$dir" --ignore-scripts --no-audit --no-fund --loglevel=error "onnxruntime-node@$version"
fi
# The binding loads without its install script: a failure here names what is missing.
NODE_PATH=$dir/node_modules node -e "require('onnxruntime-node'); console.log('onnxruntime-node $version ready in $dir')"
