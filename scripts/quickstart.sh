#!/bin/bash
# Sets up, builds and runs the main job on the default example: the best mRNA mappings of every
# layer of the `tiny` network on maeri-64.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
./build/cli/maeri map --hardware configs/hardware/maeri-64.yaml --workload configs/workloads/tiny.yaml \
  -o build/tiny.maeri-64.mapping.yaml
