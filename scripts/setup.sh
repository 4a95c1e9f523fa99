#!/bin/bash
# Installs the Debian packages the toolkit needs (only those missing; apt-get update first) and
# configures + builds it in ./build. Safe to run again: it does only what is left to do.
# Usage: scripts/setup.sh [--build-dir DIR] [--fuzz] [--no-build]
#   --fuzz      also install clang, its sanitizer/libFuzzer runtimes and llvm-symbolizer (scripts/fuzz.sh)
#   --no-build  install packages only
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=build
fuzz=false
build=true
while [[ $# -gt 0 ]]; do
  case $1 in
    --build-dir) build_dir=$2; shift 2 ;;
    --fuzz) fuzz=true; shift ;;
    --no-build) build=false; shift ;;
    *) echo "setup: unknown option $1" >&2; exit 1 ;;
  esac
done

packages=(build-essential cmake pkg-config git file dpkg-dev
          verilator libsystemc-dev libyaml-cpp-dev catch2
          libcli11-dev libfmt-dev nlohmann-json3-dev libtbb-dev zlib1g-dev libzip-dev libeigen3-dev
          libopenmpi-dev openmpi-bin libonnx-dev libprotobuf-dev protobuf-compiler
          pybind11-dev python3-dev python3-yaml  # python3-yaml: scripts/fusion-bound.py reads the specs (its test)
          chromium)  # headless, for the HTML report's browser test (tests/cli/report_in_browser.sh)
# libclang-rt-14-dev holds libFuzzer and clang's ASan/UBSan runtimes (clang only recommends it);
# llvm-14 holds llvm-symbolizer, which clang's sanitizer reports need for function names and lines.
if $fuzz; then packages+=(clang-14 libclang-rt-14-dev llvm-14); fi
# Node.js and npm run the ONNX Runtime oracle tests (tests/oracle: npm's onnxruntime-node, a test-only dependency the
# tests install into the build tree); Debian's packages only when the machine has no node or npm of its own.
command -v node >/dev/null || packages+=(nodejs)
command -v npm >/dev/null || packages+=(npm)
missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
  "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if $build; then
  cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build_dir" -j "$(nproc)"
fi
