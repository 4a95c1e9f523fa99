#!/bin/bash
# Sets up, builds and runs the whole default test suite (everything except the `long` label), then the sanitizer
# stages: the suite's unit, cli, fuzz-replay and rtl tests built with ASan + UBSan
# (scripts/sanitize.sh), and a short libFuzzer run of every input reader (scripts/fuzz.sh, 30 s each).
# Usage: scripts/test.sh [--no-sanitize] [extra ctest arguments], e.g. scripts/test.sh --no-sanitize -L rtl
#   --no-sanitize  run only the default suite (quick local runs); extra ctest arguments apply to that suite
set -euo pipefail
cd "$(dirname "$0")/.."
sanitize=true
ctest_args=()
for argument in "$@"; do
  if [[ $argument == --no-sanitize ]]; then sanitize=false; else ctest_args+=("$argument"); fi
done

stage() {  # stage NAME COMMAND...: runs one stage and reports how long it took
  local name=$1 start=$SECONDS
  shift
  echo "=== $name"
  "$@"
  echo "=== $name: done in $((SECONDS - start)) s"
}
stage "build (build/)" bash scripts/setup.sh
# setup.sh installs Open MPI, so the suite's MPI case (2 ranks equal the unsharded run) must run, not skip.
export MAERI_REQUIRE_MPI=1
stage "default suite (build/)" bash -c 'cd build && ctest --output-on-failure -j "$(nproc)" -LE long "$@"' ctest \
  "${ctest_args[@]}"
if $sanitize; then
  stage "ASan + UBSan suite (build-asan/)" bash scripts/sanitize.sh
  stage "fuzzing (build-fuzz/)" bash scripts/fuzz.sh "${MAERI_FUZZ_SECONDS:-30}"
fi
