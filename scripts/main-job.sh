#!/bin/bash
# The main job on the default example, as the README's quick start runs it: `maeri run` — every layer of the `tiny`
# network on maeri-64 chained end to end (best mapping, configuration image, co-simulation on the Verilated RTL,
# bit-exact check against the integer reference, model-vs-RTL cross-check), with its JSON report and its HTML page
# (docs/report.md: open run.html in a browser).
# scripts/quickstart.sh ends with this script and the test suite runs this same file (ctest `cli_run_default_example`),
# so a change of options that breaks the README's first command fails the suite.
# Usage: scripts/main-job.sh [BUILD_DIR [REPORT_DIR]]   (defaults: build, and the build directory)
set -euo pipefail
build_dir=${1:-build}
report_dir=${2:-$build_dir}
"$build_dir/cli/maeri" run --json "$report_dir/run.json" --report "$report_dir/run.html"
