#!/bin/bash
# Installs the Debian packages the toolkit needs (only those missing; apt-get update first) and
# configures + builds it in ./build. Safe to run again: it does only what is left to do.
# Usage: scripts/setup.sh [--build-dir DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=build
if [[ ${1:-} == --build-dir ]]; then build_dir=$2; fi

packages=(build-essential cmake pkg-config git
          verilator libsystemc-dev libyaml-cpp-dev catch2
          libcli11-dev libfmt-dev nlohmann-json3-dev libtbb-dev zlib1g-dev)
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

cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
