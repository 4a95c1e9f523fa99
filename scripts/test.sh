#!/bin/bash
# Sets up, builds and runs the whole default test suite (everything except the `long` label).
# Usage: scripts/test.sh [extra ctest arguments], e.g. scripts/test.sh -L rtl
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cd build
ctest --output-on-failure -j "$(nproc)" -LE long "$@"
