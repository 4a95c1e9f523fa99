#!/bin/bash
# Sanitizer stage: builds everything (our code, the Verilated fabric and Verilator's runtime) with AddressSanitizer
# and UndefinedBehaviorSanitizer in ./build-asan (-DMAERI_SANITIZE=address,undefined; rtl/CMakeLists.txt says why
# the generated model files skip UBSan) and runs the unit, cli, fuzz-replay and rtl tests under them, all but the
# `long` regression (about 6x slower under ASan) and the Verilator lint (no C++ runs). Any report fails its test.
# Usage: scripts/sanitize.sh [extra ctest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --no-build
# -O1: the usual optimisation for sanitizer runs (fast enough to run the RTL, quick to compile the Verilated model,
# little inlining to blur reports); -g1: line numbers in reports. No -DNDEBUG, so assertions are checked too.
cmake -S . -B build-asan -DMAERI_SANITIZE=address,undefined -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" >/dev/null
cmake --build build-asan -j "$(nproc)"

# The sanitizer runtime options, all in this one place:
# - detect_stack_use_after_return=0: SystemC runs SC_THREADs on its own coroutine stacks (QuickThreads). Debian's
#   libsystemc 2.3.4 tells ASan about each stack switch (__sanitizer_start/finish_switch_fiber), but ASan's fake
#   stacks for use-after-return detection are per OS thread, not per coroutine, so they would be unmapped under a
#   suspended coroutine's locals (google/sanitizers#189). Off is also GCC 12's default; this keeps it off for clang.
# - check_initialization_order=1, strict_init_order=1: report static initialisers that read globals of other
#   translation units (the SystemC and Verilator runtimes have many globals).
# - exitcode=86 (ASan, LSan, UBSan): a sanitizer report exits with 86, never with an exit code a CLI test expects
#   (docs/cli.md: 0..4), so `expect_exit.sh 1 ...` cannot pass on a crashed run.
# - print_stacktrace=1, halt_on_error=1 (UBSan): a trace for every report; -fno-sanitize-recover already aborts.
# - LeakSanitizer runs at every exit (ASan's default on Linux) with no suppressions: SystemC and Verilator leave
#   nothing it reports in these tests. If one is ever needed, add a suppressions file here with the reason.
export ASAN_OPTIONS=detect_stack_use_after_return=0:check_initialization_order=1:strict_init_order=1:exitcode=86
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=86
export LSAN_OPTIONS=exitcode=86

cd build-asan
ctest --output-on-failure -j "$(nproc)" -LE 'long|lint' "$@"
