#!/bin/bash
# Fuzzing stage: installs clang + libFuzzer (scripts/setup.sh --fuzz), builds the harnesses of tests/fuzz/ with
# clang, ASan and UBSan in ./build-fuzz, generates the seed corpora (shipped configs, images and mapping files made by
# the codegen API, tensor files, ONNX models built with the ONNX C++ API), runs each harness for SECONDS (default 30) and prints executions/s and coverage.
# A crash, sanitizer report or timeout fails the stage; its input is copied to tests/fuzz/regressions/<harness>/,
# where ctest replays it (label `fuzz`) once it is committed.
# Usage: scripts/fuzz.sh [SECONDS] [HARNESS...]   (harnesses: see tests/fuzz/CMakeLists.txt)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift $(( $# > 0 ? 1 : 0 ))
harnesses=("$@")
if [[ ${#harnesses[@]} -eq 0 ]]; then
  harnesses=(hardware_spec workload_spec mapping_file config_image tensor_file network_manifest csv_table
             surrogate_model optimum_cache npy_file npz_archive onnx_model graph_extents)
fi

bash scripts/setup.sh --fuzz --no-build
build_dir=build-fuzz
CC=clang-14 CXX=clang++-14 cmake -S . -B "$build_dir" -DMAERI_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build_dir" -j "$(nproc)"

work=$build_dir/fuzz
seeds=$work/seeds
"$build_dir"/tests/fuzz/maeri_fuzz_seeds configs "$seeds"

# Reports name functions and lines (clang's runtimes need llvm-symbolizer); every UBSan finding aborts with a trace.
export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
declare -A dictionary=([hardware_spec]=tests/fuzz/yaml.dict [workload_spec]=tests/fuzz/yaml.dict
                       [mapping_file]=tests/fuzz/yaml.dict)
failed=()
summary=()
for harness in "${harnesses[@]}"; do
  corpus=$work/corpus/$harness   # inputs libFuzzer found interesting; kept between local runs
  crashes=$work/crashes/$harness
  mkdir -p "$corpus" "$crashes" "$seeds/$harness"
  log=$work/$harness.log
  # A fixed seed (MAERI_FUZZ_SEED, default 1) makes a run reproducible: the same binary explores the same inputs,
  # so a CI failure can be replayed locally; set MAERI_FUZZ_SEED=0 for libFuzzer's random seed.
  options=(-seed="${MAERI_FUZZ_SEED:-1}" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1
           -artifact_prefix="$crashes/")
  if [[ -n ${dictionary[$harness]:-} ]]; then options+=(-dict="${dictionary[$harness]}"); fi
  echo "fuzz: $harness for ${seconds}s (log: $log)"
  status=0
  "$build_dir"/tests/fuzz/fuzz_"$harness" "${options[@]}" "$corpus" "$seeds/$harness" >"$log" 2>&1 || status=$?
  # The last status line, e.g. "#123456 DONE cov: 812 ft: 2301 corp: 140/9Kb lim: 4096 exec/s: 4115 rss: 80Mb".
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
  ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
  corp=$(sed -nE 's/.* corp: ([0-9]+).*/\1/p' <<<"$last")
  runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log" | tail -1)
  rate=$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+)/\1/p' "$log" | tail -1)
  summary+=("$(printf '%-14s %12s %10s %8s %8s %8s' "$harness" "${runs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" \
               "${corp:-?}")")
  if [[ $status -ne 0 ]]; then
    failed+=("$harness")
    grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$log" | head -20 || true
    mkdir -p tests/fuzz/regressions/"$harness"
    for input in "$crashes"/*; do
      [[ -f $input ]] && cp "$input" tests/fuzz/regressions/"$harness"/ && echo "fuzz: kept $input as tests/fuzz/regressions/$harness/$(basename "$input")"
    done
  fi
done

printf '\n%-14s %12s %10s %8s %8s %8s\n' harness executions exec/s cov ft corpus
printf '%s\n' "${summary[@]}"
echo "(cov: instrumented edges of maeri_util/maeri_contracts/maeri_model/maeri_mapspace/maeri_search/maeri_codegen reached; ft: libFuzzer's coverage features)"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz: FAILED: ${failed[*]} (inputs kept under tests/fuzz/regressions/; logs under $work/)"
  exit 1
fi
echo "fuzz: ${#harnesses[@]} passed, 0 failed"
