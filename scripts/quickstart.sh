#!/bin/bash
# Sets up, builds and runs the main job on the default example: every layer of the `tiny` network on maeri-64 —
# best mRNA mapping, configuration image, co-simulation on the Verilated RTL, bit-exact check against the integer
# reference and the analytical-model-vs-RTL cross-check (`maeri run`, scripts/main-job.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/main-job.sh build
