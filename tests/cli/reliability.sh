#!/bin/bash
# CLI tests of issue 43's remaining reliability items (docs/cli.md, "Bad inputs the tests cover", cli_reliable_CASE):
# non-finite values refused where they enter a chained run (never "cosine similarity nan … PASS"), messages that
# name the file and tensor at fault, the memory budget (refused up front, within 10 s of CPU and a bounded address
# space), imported workloads the loader would refuse, and DRAM timing the co-simulation cannot run.
# Usage: reliability.sh CASE MAERI CONFIGS_DIR MODELS_DIR [ONNX_MODELS_DIR]   (the files of
# maeri_make_hostile_models and of maeri_make_onnx_models)
set -u
case_name=$1 maeri=$2 configs=$3 models=$4 onnx_models=${5:-}
here=$(dirname "$(readlink -f "$0")")
expect=$here/expect_exit.sh
hw=$configs/hardware/maeri-64.yaml
tiny=$configs/workloads/tiny.yaml
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fail() { echo "FAILED: $*"; exit 1; }
source "$here/time_bound.sh"
chain=(verify --chain --hardware "$hw" --memory ideal)
# Refused within 10 s of CPU and, outside ASan builds (which reserve terabytes of shadow memory), a 2 GiB address
# space, writing nothing, the message short and never "nan … PASS".
address_limit=2097152
if ldd "$maeri" 2>/dev/null | grep -q libasan; then address_limit=unlimited; fi
refused() {
  (ulimit -v "$address_limit" && quickly 2 "$@" --json "$dir/out.json") || exit 1
  [[ ! -e $dir/out.json ]] || fail "an output was written"
}
# An imported workload refused: exit 2 naming the node, no workload written.
import_refused() {
  local model=$1; shift
  quickly 2 "$@" "$maeri" import "$models/$model" -o "$dir/w.yaml"
  [[ ! -e $dir/w.yaml ]] || fail "the workload was written"
}
# A graph of `count` 1×1 convs of 4 channels on a 2×2 image, one after the other.
deep_chain() {
  local count=$1 previous=image
  { echo "kind: workload"; echo "name: deep$count"; echo "inputs:"; echo "  - {name: image, shape: [1, 4, 2, 2]}"
    echo "operators:"
    for ((i = 0; i < count; i++)); do
      echo "  - {name: c$i, type: conv, input: $previous, K: 4, C: 4, R: 1, S: 1, X: 2, Y: 2, stride: 1, padding: 0}"
      previous=c$i
    done; } >"deep$count.yaml"
}

case $case_name in
  input_nan)  # was exit 0, "cosine similarity nan", PASS
    refused --stderr-contains "input-nan.npy: field '--network-input': the network input 'image' holds nan at element 17 (0, 0, 1, 7)" \
      "$maeri" "${chain[@]}" --workload "$tiny" --network-input "$models/input-nan.npy" ;;
  input_inf)  # blamed tiny.yaml's weights: "requantization_of: the multiplier must be positive and finite"
    refused --stderr-contains "input-inf.npy: field '--network-input': the network input 'image' holds inf at element 5 (0, 0, 0, 5)" \
      "$maeri" "${chain[@]}" --workload "$tiny" --network-input "$models/input-inf.npy" ;;
  input_overflow)  # finite values whose sums overflow a double
    refused --stderr-contains "tiny.yaml: field 'operators': the float reference of fabric layer 'conv1' computes" \
      --stderr-contains "(their products or sums overflow a double)" \
      "$maeri" "${chain[@]}" --workload "$tiny" --network-input "$models/input-huge.npy" ;;
  weights_nan)
    refused --stderr-contains "weights-nan.npz: field 'weights': tensor 'conv1.weights' (the weights of fabric layer 'conv1') holds nan at element 40 (1, 1, 1, 1)" \
      "$maeri" "${chain[@]}" --workload "$tiny" --network-weights "$models/weights-nan.npz" ;;
  calibration_inf)
    refused --stderr-contains "calibration-inf.npz:b: field '--calibration-inputs': a calibration sample of the network input 'image' holds -inf at element 99" \
      "$maeri" "${chain[@]}" --workload "$tiny" --calibration-inputs "$models/calibration-inf.npz" ;;
  bn_negative_variance)  # was exit 0, PASS
    for model in bn-negative-variance.onnx bn-negative-variance-folded.onnx; do
      refused --stderr-contains "field 'node bn': channel 1: the variance 'bn.var' -0.5 plus epsilon" \
        "$maeri" "${chain[@]}" --workload "$models/$model"
    done ;;
  bn_nan_mean)
    for model in bn-nan-mean.onnx bn-nan-mean-folded.onnx; do
      refused --stderr-contains "field 'node bn': input constant 'bn.mean' holds nan at element 1" \
        "$maeri" "${chain[@]}" --workload "$models/$model"
    done ;;
  bn_zero_variance)  # σ² = ε = 0: a division by zero (was "requantization_of: …")
    for model in bn-zero-variance.onnx bn-zero-variance-folded.onnx; do
      refused --stderr-contains "field 'node bn': channel 2: the variance 'bn.var' 0 plus epsilon 0 is 0" \
        "$maeri" "${chain[@]}" --workload "$models/$model"
    done ;;
  mul_nan_channel)
    refused --stderr-contains "field 'node scale': input constant 'factor' holds nan at element 1" \
      "$maeri" "${chain[@]}" --workload "$models/mul-nan-channel.onnx" ;;
  mul_nan_tensor)
    refused --stderr-contains "mul-nan-tensor.onnx: field 'weights': tensor 'factor' (the constant operand of mul 'scale') holds nan at element 77" \
      "$maeri" "${chain[@]}" --workload "$models/mul-nan-tensor.onnx" ;;
  gemm_alpha_nan)
    refused --stderr-contains "field 'node fc': attribute 'alpha': expected a finite float, found nan" \
      "$maeri" "${chain[@]}" --workload "$models/gemm-alpha-nan.onnx" ;;
  deep_chain)  # 3,500 1×1 convs: "tiny.yaml: field 'weights': requantization_of …" before
    deep_chain 3500
    refused --stderr-contains "deep3500.yaml: field 'operators': the float reference of fabric layer 'c" \
      "$maeri" "${chain[@]}" --workload deep3500.yaml --references-only ;;
  memory_budget_wide_conv)  # a 1×1 conv of 2^24 → 2^24 channels: 7.5 GB and a hang before
    printf '%s\n' "kind: workload" "name: wide" "inputs:" "  - {name: x, shape: [1, 16777216, 1, 1]}" "operators:" \
      "  - {name: wide, type: conv, input: x, K: 16777216, C: 16777216, R: 1, S: 1, X: 1, Y: 1, stride: 1, padding: 0}" >wide.yaml
    refused --stderr-contains "wide.yaml: field 'tensors': a chained run of network wide: tensor 'wide.weights' (16777216, 16777216, 1, 1), 16 bytes a value, would need 4503599627370496 bytes (4.0 PiB), more than the memory budget of" \
      "$maeri" "${chain[@]}" --workload wide.yaml --references-only
    # Single-layer verify and codegen planned 2^42 weight phases until killed: refused before planning, by the
    # image reader's own limit (codegen/image_validation.hpp, kMaxInMemoryTensorElements = 2^27).
    local_limit="has no image within the limits of its reader: layer: the weight tensor K·(C/groups)·R·S is 281474976710656, more than this build's limit of 134217728"
    refused --stderr-contains "wide.yaml: field 'layers.wide': layer wide $local_limit" \
      "$maeri" verify --hardware "$hw" --workload wide.yaml --layer wide
    (ulimit -v "$address_limit" && quickly 2 --stderr-contains "$local_limit" \
      "$maeri" codegen --hardware "$hw" --workload wide.yaml -o images) || exit 1
    [[ ! -e images/wide.manifest.json && ! -e images/wide.wide.mimg ]] || fail "codegen wrote an image or a manifest" ;;
  memory_budget_pad)  # pad-then-conv near the extent limits (6.5–7.9 GB before), and the same under --memory-budget
    printf '%s\n' "kind: workload" "name: padded" "inputs:" "  - {name: x, shape: [1, 1, 1, 1]}" "operators:" \
      "  - {name: border, type: pad, input: x, pads: [0, 0, 16777215, 16777215]}" \
      "  - {name: conv, type: conv, input: border, K: 1, C: 1, R: 1, S: 1, X: 16777216, Y: 16777216, stride: 1, padding: 0}" \
      >padded.yaml
    refused --stderr-contains "padded.yaml: field 'tensors': a chained run of network padded: tensor 'border' (1, 1, 16777216, 16777216), 24 bytes a value, would need 6755399441055744 bytes (6.0 PiB)" \
      "$maeri" "${chain[@]}" --workload padded.yaml --references-only
    printf '%s\n' "kind: workload" "name: padded" "inputs:" "  - {name: x, shape: [1, 1, 4096, 4096]}" "operators:" \
      "  - {name: border, type: pad, input: x, pads: [4096, 4096, 4096, 4096]}" \
      "  - {name: conv, type: conv, input: border, K: 1, C: 1, R: 1, S: 1, X: 12288, Y: 12288, stride: 1, padding: 0}" \
      >padded.yaml
    refused --stderr-contains "tensor 'border' (1, 1, 12288, 12288), 24 bytes a value, would need 3623878656 bytes (3.4 GiB), more than the memory budget of 1073741824 bytes (1.0 GiB" \
      "$maeri" --memory-budget 1G "${chain[@]}" --workload padded.yaml --references-only ;;
  memory_budget_option)  # --memory-budget after the subcommand, MAERI_MEMORY_BUDGET, a bad size; tiny within 64 MiB
    refused --stderr-contains "tiny.yaml: field 'tensors': a chained run of network tiny" \
      --stderr-contains "more than the memory budget of 4096 bytes (4.0 KiB" \
      "$maeri" "${chain[@]}" --workload "$tiny" --references-only --memory-budget 4K
    MAERI_MEMORY_BUDGET=4K "$expect" 2 --stderr-contains "more than the memory budget of 4096 bytes" \
      "$maeri" "${chain[@]}" --workload "$tiny" --references-only || fail "MAERI_MEMORY_BUDGET"
    "$expect" 2 --stderr-contains "--memory-budget: expected a size in bytes" \
      "$maeri" --memory-budget 12Q validate "$tiny" || fail "a bad size"
    "$expect" 0 "$maeri" "${chain[@]}" --workload "$tiny" --references-only --memory-budget 64M \
      || fail "tiny within 64 MiB" ;;
  import_hardsigmoid_alpha)  # was written, then refused by validate
    import_refused hardsigmoid-huge-alpha.onnx --stderr-contains "hardsigmoid-huge-alpha.onnx: field 'node bad': the workload it imports would not load, refused as \`maeri validate\` would refuse it: the imported workload:10:65: field 'operators[1].alpha': expected a number in [-1e+30, 1e+30], found 3.0000000054977558e+38" ;;
  import_matmul_1d)  # a reshape to an empty shape
    import_refused matmul-1d.onnx --stderr-contains "matmul-1d.onnx: field 'node dot.reshape_output': the workload it imports would not load" \
      --stderr-contains "field 'operators[2].shape': expected a list of 1 to 8 integers" ;;
  import_pad_2_24)
    import_refused pad-2-24.onnx --stderr-contains "pad-2-24.onnx: field 'node conv': the Conv layer it gives is not valid: X: expected an integer in [1, 16777216], found 33554440" ;;
  import_pad_2_40)
    import_refused pad-2-40.onnx --stderr-contains "pad-2-40.onnx: field 'node conv': the Conv layer it gives is not valid: X: expected an integer in [1, 16777216], found 2199023255558" ;;
  import_pool_kernel_over_input)  # a window of 9 over 6 values padded by 2 on each side: written, and it loads
    "$expect" 0 --stdout-contains "wrote $dir/w.yaml" "$maeri" import "$models/maxpool-1d-kernel-over-input.onnx" \
      -o "$dir/w.yaml" || fail "import"
    "$expect" 0 --stdout-contains "bad.output (1,4,2,1)" "$maeri" validate "$dir/w.yaml" || fail "validate" ;;
  import_pool_pads_kernel)
    import_refused maxpool-pads-kernel.onnx --stderr-contains "maxpool-pads-kernel.onnx: field 'node bad': the workload it imports would not load" \
      --stderr-contains "padding 2x2 not smaller than the window 2x2 (a window would hold padding only)" ;;
  dram_refresh_rounded)  # validated, then "refresh must be shorter than its interval" at run time
    sed -e 's/^\(  *\)latency_cycles: .*/&\n\1timing: {banks: 8, row_bytes: 1024, row_miss_ns: 30, refresh_interval_ns: 7800, refresh_ns: 7799.999, turnaround_ns: 5}/' \
      "$hw" >refresh.yaml
    quickly 2 --stderr-contains "refresh.yaml" --stderr-contains "field 'dram.timing.refresh_ns': expected a refresh shorter than its interval in cycles" \
      "$maeri" validate refresh.yaml ;;
  dram_slowest_device)  # "watchdog: no progress for 100000 cycles", exit 2 with an empty stderr
    sed -e 's/^\(  *\)bytes_per_cycle: .*/\1bytes_per_cycle: 0.001/' \
        -e 's/^\(  *\)latency_cycles: .*/&\n\1timing: {banks: 1, row_bytes: 16, row_miss_ns: 1e4, refresh_interval_ns: 0, refresh_ns: 0, turnaround_ns: 1e4}/' \
      "$hw" >slow.yaml
    "$expect" 0 --stdout-contains "1 of 1 runs PASS" "$maeri" verify --hardware slow.yaml --workload "$tiny" \
      --layer conv3_1x1 --memory dram || fail "the slowest legal device" ;;
  chain_failure_stderr)  # a chained run that fails says so on stderr too (exit 2 came with an empty stderr)
    "$expect" 3 --stderr-contains "tiny.yaml: fabric 'conv2' differs from the integer reference: " \
      "$maeri" "${chain[@]}" --workload "$tiny" --fault weight:conv2:17:3 || fail "a fault's failure" ;;
  mapping_layer_twice)  # codegen wrote a manifest listing conv1 twice, which verify --manifest refused
    "$maeri" map --hardware "$hw" --workload "$tiny" -o tiny.mapping.yaml >/dev/null || fail "map"
    awk '/^  - name: conv1$/ {copy = 1} /^  - name: conv2$/ {copy = 0; printf "%s", held} copy {held = held $0 "\n"} {print}' \
      tiny.mapping.yaml >twice.mapping.yaml
    [[ $(grep -c "name: conv1$" twice.mapping.yaml) -eq 2 ]] || fail "conv1 is not listed twice"
    for command in "codegen -o images" "verify --chain --memory ideal"; do
      # shellcheck disable=SC2086
      quickly 2 --stderr-contains "twice.mapping.yaml:17:11: field 'layers[1].name': a second mapping of layer 'conv1' (layers[0] maps it already)" \
        "$maeri" $command --hardware "$hw" --workload "$tiny" --mapping twice.mapping.yaml
    done
    [[ ! -e images ]] || fail "codegen wrote images" ;;
  writers_match_readers)  # every file a command writes loads with the reader docs/cli.md names for it
    "$maeri" map --hardware "$hw" --workload "$tiny" -o tiny.mapping.yaml >/dev/null || fail "map"
    "$maeri" codegen --hardware "$hw" --workload "$tiny" --mapping tiny.mapping.yaml -o images >/dev/null \
      || fail "codegen --mapping of map's file"
    for image in images/*.mimg; do
      "$maeri" disasm "$image" --hardware "$hw" >/dev/null || fail "disasm refused $image"
    done
    "$expect" 0 --stdout-contains "4 of 4 runs PASS" "$maeri" verify --hardware "$hw" --manifest images/tiny.manifest.json \
      --memory ideal || fail "verify --manifest of codegen's manifest"
    "$maeri" verify --chain --hardware "$hw" --workload "$tiny" --mapping tiny.mapping.yaml --memory ideal \
      --references-only --outputs tensors --all-tensors >/dev/null || fail "verify --chain --mapping of map's file"
    "$maeri" verify --chain --hardware "$hw" --workload "$tiny" --network-input tensors/image.real.npy \
      --references-only >/dev/null || fail "--network-input of the run's own image.real.npy"
    # A layer's output as --output writes it is the --expected of the same run.
    "$maeri" verify --hardware "$hw" --workload "$tiny" --layer conv1 --memory ideal --output conv1.out.npy >/dev/null \
      || fail "verify --output"
    "$expect" 0 --stdout-contains "PASS" "$maeri" verify --hardware "$hw" --workload "$tiny" --layer conv1 \
      --memory ideal --expected conv1.out.npy || fail "--expected of verify's own --output"
    # JSON reports are strict JSON (no NaN or Infinity, which Python's reader accepts by default); CSV tables load
    # in `plot`, the CSV reader the docs name.
    "$maeri" map --hardware "$hw" --workload "$tiny" --json map.json --csv map.csv -o m.yaml >/dev/null || fail "map --json"
    "$maeri" run --json run.json >/dev/null || fail "run --json"
    for report in map.json run.json; do
      python3 -c 'import json, sys
def refuse(constant): raise ValueError("not JSON: " + constant)
json.load(open(sys.argv[1]), parse_constant=refuse)' "$report" || fail "$report is not strict JSON"
    done
    x_column=$(head -1 map.csv | cut -d, -f1) y_column=$(head -1 map.csv | tr ',' '\n' | grep -m1 cycles)
    "$maeri" plot --csv map.csv --x "$x_column" --y "$y_column" --bars -o map.svg >/dev/null \
      || fail "plot refused map --csv's table"
    # The calibrated hardware spec loads as a hardware spec; its table loads in `plot`.
    "$maeri" calibrate --hardware "$hw" --workload "$tiny" --top 1 --spread 1 -o calibrated.yaml >/dev/null \
      || fail "calibrate"
    "$maeri" validate calibrated.yaml >/dev/null || fail "validate refused calibrate's hardware spec"
    "$maeri" map --hardware calibrated.yaml --workload "$tiny" -o c.yaml >/dev/null || fail "map --hardware of calibrate's spec"
    x_column=$(head -1 calibration.csv | cut -d, -f1) y_column=$(head -1 calibration.csv | tr ',' '\n' | grep -m1 cycles)
    "$maeri" plot --csv calibration.csv --x "$x_column" --y "$y_column" --bars -o calibration-again.svg >/dev/null \
      || fail "plot refused calibration.csv"
    # A trained surrogate loads in `surrogate check`.
    "$maeri" surrogate train --hardware "$hw" --workload "$tiny" --samples 50 --epochs 2 -o surrogate.json >/dev/null \
      || fail "surrogate train"
    "$maeri" surrogate check --model surrogate.json --hardware "$hw" --workload "$tiny" --samples 20 >/dev/null \
      || fail "surrogate check refused what surrogate train wrote"
    for model in "$onnx_models"/*.onnx "$models"/maxpool-1d-kernel-over-input.onnx; do
      case $(basename "$model") in bad-*|not-onnx.onnx|dynamic.onnx|if-input.onnx) continue ;; esac
      "$maeri" import "$model" -o imported.yaml >/dev/null 2>&1 || continue  # refused: nothing written to check
      "$maeri" validate imported.yaml >/dev/null || fail "validate refused what import wrote from $(basename "$model")"
    done ;;
  loop_zero_weights)  # a layer whose weights are all 0 (a zero scale): its output is 0, not a refused multiplier
    "$expect" 0 --stdout-contains "'steps/2/h_next': max |error| 0, cosine similarity 1.000000" \
      "$maeri" "${chain[@]}" --workload "$models/loop-zero-weights.onnx" --references-only || exit 1 ;;
  loop_4096)  # an ONNX Loop of 4,096 iterations: "tiny.yaml: field 'weights': requantization_of …" before
    "$expect" 0 --stdout-contains "'steps/4095/h_next'" --stdout-contains "no tensor drifts from the float reference" \
      "$maeri" "${chain[@]}" --workload "$models/loop-4096.onnx" --references-only || exit 1 ;;
  *) fail "unknown case $case_name" ;;
esac
echo "PASS: $case_name"
