#!/bin/bash
# CLI tests of chained network runs (docs/cosim.md, "Chained network runs"): `maeri run` chains tiny's graph through
# the RTL and the post-processing unit bit-exactly, also over --jobs (layers in shards, or layers at once) and MPI
# ranks, with the same report and files; a flipped weight bit or a flipped
# unit output bit is caught at that layer or operator and named; the outputs written as .npy feed a second run that
# gives the same outputs; bad inputs exit 2 naming the file and field, with nothing written.
# onnx_top1 is issue 30's ONNX target: the classifier of maeri_make_onnx_models (conv + BatchNormalization, ReLU,
# max pool, a residual block, global average pool, Gemm, softmax) with its own initializers, chained on the RTL for
# eight inputs (seeds 1-8, U(−1, 1), each also the calibration input), each bit-exact and with the quantized
# network's top-1 equal to the float reference's. onnx_pad runs zero borders (asymmetric conv pads, a Pad node).
# Usage: network_chain.sh CASE MAERI CONFIGS_DIR NPY_DIR ONNX_DIR [MPIEXEC]   (exit 77 = skipped)
set -u
source "$(dirname "$(readlink -f "$0")")/require_mpi.sh"
case_name=$1 maeri=$2 configs=$3 npy=$4 onnx=$5 mpiexec=${6:-}
here=$(dirname "$0")
expect=$here/expect_exit.sh
hw=$configs/hardware/maeri-64.yaml
tiny=$configs/workloads/tiny.yaml
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
chain=(verify --chain --hardware "$hw" --workload "$tiny" --memory ideal)
pass_text="network tiny: PASS — 15 of 15 runs (4 fabric layers, their epilogues and 7 operators on the unit)"
refused() {
  local message=$1; shift
  "$expect" 2 --stderr-contains "$message" "$maeri" "${chain[@]}" "$@" --outputs "$dir/out" --json "$dir/out.json" \
    || exit 1
  [[ ! -e $dir/out && ! -e $dir/out.json ]] || fail "an output was written"
}

case $case_name in
  run)
    "$expect" 0 --stdout-contains "$pass_text" "$maeri" run || exit 1 ;;
  jobs)
    # Layers cut into shards over two processes: every tensor the same as one process makes (streamed, --all-tensors).
    "$expect" 0 --stdout-contains "$pass_text" "$maeri" "${chain[@]}" --jobs 2 --shards 3 --outputs "$dir/jobs" \
      --all-tensors || exit 1
    "$maeri" "${chain[@]}" --outputs "$dir/one" --all-tensors >/dev/null || fail "the run in one process"
    diff -r "$dir/one" "$dir/jobs" || fail "--jobs 2 gives other tensors" ;;
  layer_jobs)
    # Layers at once in two processes (no --shards), on the integer reference's tensors: the same report line by line
    # (every cycle and count; only the seconds and the jobs differ) and the same files as one process — also when a
    # flipped weight or unit bit stops the run at its layer or operator.
    for fault in "" weight:conv2:17:3 unit:add1:5:0; do
      for jobs in 1 2; do
        "$maeri" "${chain[@]}" --jobs $jobs --outputs "$dir/j$jobs" --all-tensors ${fault:+--fault $fault} \
          >"$dir/j$jobs.txt" 2>"$dir/j$jobs.err"
        echo $? >"$dir/j$jobs.status"
        sed -E -i 's/\[[0-9.]+ s\]//; s/[0-9.]+ s wall.*//; s/x [0-9]+ job\(s\)/x N job(s)/' "$dir/j$jobs.txt"
      done
      cmp "$dir/j1.status" "$dir/j2.status" || fail "--jobs 2 exits otherwise (fault '$fault')"
      diff "$dir/j1.txt" "$dir/j2.txt" || fail "--jobs 2 reports otherwise (fault '$fault')"
      diff "$dir/j1.err" "$dir/j2.err" || fail "--jobs 2 errs otherwise (fault '$fault')"
      diff -r "$dir/j1" "$dir/j2" || fail "--jobs 2 writes other tensors (fault '$fault')"
      rm -rf "$dir/j1" "$dir/j2"
    done
    grep -q "$pass_text" "$dir/j1.txt" && fail "the last case should have failed"
    grep -q "add1 \[unit\]: FAIL" "$dir/j2.txt" || fail "the unit fault is not reported with --jobs 2" ;;
  mpi)
    require_mpi "$mpiexec"
    "$expect" 0 --stdout-contains "$pass_text" \
      "$mpiexec" --oversubscribe --allow-run-as-root -np 2 "$maeri" "${chain[@]}" || exit 1 ;;
  weight_fault)
    # Bit 3 of conv2's 18th weight, as the fabric receives it: conv2's accumulators differ and the run stops there.
    "$expect" 3 --stdout-contains "conv2 [fabric" "$maeri" "${chain[@]}" --fault weight:conv2:17:3 \
      --json "$dir/fault.json" || exit 1
    grep -q '"operator": "conv2",' "$dir/fault.json" || fail "conv2 not in the report"
    grep -q "first at element" "$dir/fault.json" || fail "the first difference is not named"
    ! grep -q '"operator": "conv3_1x1"' "$dir/fault.json" || fail "the run went on past the failing layer" ;;
  unit_fault)
    "$expect" 3 --stdout-contains "add1 [unit]: FAIL: 1 of 200 elements of 'add1' differ; first at element 5 (0,0,1,0)" \
      "$maeri" "${chain[@]}" --fault unit:add1:5:0 || exit 1 ;;
  outputs_feed_back)
    # Every tensor as .npy; the input written back as real values quantizes to the same integers (its scale is
    # max |x| / limit again). The other tensors' scales are calibrated on the new real input, so they may differ.
    "$maeri" "${chain[@]}" --outputs "$dir/first" --all-tensors >/dev/null || fail "first run"
    for tensor in image conv1 relu1 pool1 add1 prob; do
      [[ -s $dir/first/$tensor.npy && -s $dir/first/$tensor.real.npy ]] || fail "no $tensor.npy"
      [[ -s $dir/first/$tensor.float.npy ]] || [[ $tensor == image ]] || fail "no $tensor.float.npy"
      grep -q "\"tensor\": \"$tensor\"" "$dir/first/tensors.json" || fail "$tensor not in tensors.json"
    done
    "$expect" 0 --stdout-contains "$pass_text" "$maeri" "${chain[@]}" --network-input "$dir/first/image.real.npy" \
      --outputs "$dir/second" --all-tensors || exit 1
    cmp "$dir/first/image.npy" "$dir/second/image.npy" || fail "the input's integers differ" ;;
  all_tensors_streamed)
    # --all-tensors writes each tensor as the run makes it and frees it after its last reader: the files and the
    # index equal those of --references-only, which writes the integer reference's tensors the same way as it makes them.
    "$maeri" "${chain[@]}" --outputs "$dir/run" --all-tensors >/dev/null || fail "chained run"
    "$maeri" "${chain[@]}" --references-only --outputs "$dir/reference" --all-tensors >/dev/null || fail "references"
    diff -r "$dir/run" "$dir/reference" || fail "the streamed tensors differ from the reference's" ;;
  calibration_set)
    # Scales from a calibration set (docs/quantization.md, "Calibration set"): a directory of two samples that are
    # the run's own input gives its input the scale the input alone gives (max |x| / limit): the same integers.
    "$maeri" "${chain[@]}" --outputs "$dir/first" --all-tensors >/dev/null || fail "first run"
    mkdir -p "$dir/set"
    cp "$dir/first/image.real.npy" "$dir/set/a.npy"
    cp "$dir/first/image.real.npy" "$dir/set/b.npy"
    "$expect" 0 --stdout-contains "$pass_text" "$maeri" "${chain[@]}" --network-input "$dir/first/image.real.npy" \
      --calibration-inputs "$dir/set" --outputs "$dir/second" --all-tensors || exit 1
    cmp "$dir/first/image.npy" "$dir/second/image.npy" || fail "the input's integers differ"
    mkdir -p "$dir/empty"
    refused "field '--calibration-inputs': no sample" --calibration-inputs "$dir/empty" ;;
  calibration_wraps)
    # docs/quantization.md, "Accumulator headroom": a filter of 64 weights alternating ±1, calibrated on ones (its
    # sums 0, so x and the weights get the full 15 bits), run on ±1 alternating (64 · 32767² ≈ 6.9e10, past 2^31):
    # its sums wrap, the run still matches its integer reference, and the quantization line names the layer.
    printf '%s\n' "kind: workload" "name: sums" "inputs:" "  - {name: x, shape: [1, 64, 1, 1]}" "operators:" \
      "  - {name: fc, type: conv, input: x, K: 1, C: 64, R: 1, S: 1, X: 1, Y: 1, stride: 1, padding: 0}" >"$dir/sums.yaml"
    sums=(verify --chain --hardware "$hw" --workload "$dir/sums.yaml" --memory ideal --references-only
          --network-weights "$npy/sums_weights.npz" --calibration-inputs "$npy/sums_calibration.npz")
    "$expect" 0 --stdout-contains "the sums of 1 layer wrapped at the 32-bit accumulator on this input, beyond what the calibration inputs made them (docs/quantization.md, \"Accumulator headroom\"): fc" \
      "$maeri" "${sums[@]}" --network-input "$npy/sums_alternating.npy" || exit 1
    "$maeri" "${sums[@]}" --network-input "$npy/sums_ones.npy" | grep -q "wrapped" &&
      fail "the sums wrapped on the calibration input itself"
    true ;;
  bad_input_shape)
    "$maeri" "${chain[@]}" --outputs "$dir/tensors" --all-tensors >/dev/null || fail "first run"
    refused "relu1.real.npy: field 'shape': (1, 8, 10, 10), but the network input 'image' needs (1, 3, 10, 10)" \
      --network-input "$dir/tensors/relu1.real.npy" ;;
  bad_weights_member)
    refused "tensors.npz: field 'input': the member names no weight or bias tensor of network tiny" \
      --network-weights "$npy/tensors.npz" ;;
  bad_outputs)
    # Found before anything runs, not after the co-simulation with a partial set written (issue 43, item 7).
    touch "$dir/file"
    "$expect" 2 --stderr-contains "file: field '--outputs': exists and is not a folder" \
      "$maeri" "${chain[@]}" --outputs "$dir/file" || exit 1
    mkdir -p "$dir/taken/prob.npy"
    "$expect" 2 --stderr-contains "field '--outputs': 'prob.npy' in it is a folder" \
      "$maeri" "${chain[@]}" --outputs "$dir/taken" || exit 1
    [[ $(ls "$dir/taken") == prob.npy ]] || fail "a file was written beside the folder in the way" ;;
  bad_fault)
    refused "--fault: 'weight:conv9:1:3': no such layer or operator" --fault weight:conv9:1:3
    # Decimal digits only: stoll read "+1" and " 1" as 1 and the run flipped a bit the user did not spell (issue 43).
    for index in +1 " 1" -1; do
      refused "--fault: 'weight:conv2:$index:3': INDEX is an element index ≥ 0 and BIT a bit below data_width 16" \
        --fault "weight:conv2:$index:3"
    done
    # A name with ':' is addressed whole: the place is before the first ':', INDEX and BIT after the last two.
    sed "s/name: conv2,/name: 'c:2',/; s/input: conv2/input: 'c:2'/; s/inputs: \[conv2,/inputs: ['c:2',/" "$tiny" \
      >"$dir/colon.yaml"
    grep -q "'c:2'" "$dir/colon.yaml" || fail "tiny.yaml changed: the sed found no conv2"
    "$expect" 3 --stdout-contains "c:2 [fabric" "$maeri" verify --chain --hardware "$hw" \
      --workload "$dir/colon.yaml" --memory ideal --fault "weight:c:2:17:3" || exit 1 ;;
  every_kind)
    # Every operator kind (concat, relu6, clip, both pools, requantize, add, global pool, flatten, reshape, softmax,
    # a bias, shared weights) on the RTL and the unit.
    "$expect" 0 --stdout-contains "network every-kind: PASS — 20 of 20 runs" "$maeri" verify --chain --hardware "$hw" \
      --workload "$here/../fuzz/regressions/workload_spec/graph-every-kind.yaml" --memory ideal || exit 1 ;;
  onnx_top1)
    for seed in 1 2 3 4 5 6 7 8; do
      "$expect" 0 --stdout-contains "top-1 agrees 1 of 1" "$maeri" verify --chain --hardware "$hw" \
        --workload "$onnx/classifier.onnx" --memory ideal --seed "$seed" || fail "seed $seed"
    done ;;
  onnx_batch)
    # The classifier exported with a symbolic batch, run as a batch of 3: the Gemm reads the flattened (3, 8) as its
    # batch of 3 rows, so the chain goes through to the softmax (with A's rows as the layer's X it was cut there).
    "$expect" 0 --stdout-contains "top-1 agrees 3 of 3" --stdout-contains "network classifier: PASS — 18 of 18 runs" \
      "$maeri" verify --chain --hardware "$hw" --workload "$onnx/classifier-batch.onnx" --batch 3 --memory both \
      || exit 1 ;;
  several_inputs)
    # gated.onnx is cut at its Sign: conv2 reads a second network input, which the chained run computes by
    # the float reference from the real input (seeded, or a plain .npy of 'image'), never seeded itself.
    computed="1 tensor computed by the float reference from the real input (the unit does not run their node): 'g'"
    "$expect" 0 --stdout-contains "network gated: PASS — 11 of 11 runs" --stdout-contains "$computed" \
      "$maeri" verify --chain --hardware "$hw" --workload "$onnx/gated.onnx" --memory both --outputs "$dir/seeded" \
      --all-tensors || exit 1
    "$expect" 0 --stdout-contains "network gated: PASS — 11 of 11 runs" --stdout-contains "$computed" \
      "$maeri" verify --chain --hardware "$hw" --workload "$onnx/gated.onnx" --network-input "$dir/seeded/image.real.npy" \
      --memory ideal || exit 1 ;;
  bad_token_index)
    # A token id outside the embedding's 50 rows (tests/cli/make_transformer_onnx_models.cpp, token-embedding.onnx):
    # exit 2 naming the file of the ids, the lookup, its indices tensor, the element and the range, nothing written.
    python3 - "$dir/ids.npy" <<'PY'
import struct, sys
header = "{'descr': '<i8', 'fortran_order': False, 'shape': (1, 6), }"
header += " " * (63 - (10 + len(header)) % 64) + "\n"
with open(sys.argv[1], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(struct.pack("<6q", 3, 49, 0, 50, 1, 2))
PY
    "$expect" 2 --stderr-contains "$dir/ids.npy: field '--network-input': lookup 'embedding': index 50 (element 3 of its indices 'input_ids') is outside [-50, 50)" \
      "$maeri" verify --chain --hardware "$hw" --workload "$onnx/token-embedding.onnx" --references-only \
      --network-input "$dir/ids.npy" --outputs "$dir/out" || exit 1
    [[ ! -e $dir/out ]] || fail "an output was written" ;;
  scalar_token)
    # One token id, ONNX rank 0 (scalar-token.onnx, tests/cli/make_transformer_onnx_models.cpp): a 0-d .npy (numpy's
    # scalar) is the one-element input 'token'; id 7 runs on the RTL bit-exactly, id 99 of the 12-row table exits 2
    # naming the file, the lookup and the tensor 'token', nothing written.
    python3 - "$dir" <<'PY'
import struct, sys
header = "{'descr': '<i8', 'fortran_order': False, 'shape': (), }"
header += " " * (63 - (10 + len(header)) % 64) + "\n"
for name, token in (("seven", 7), ("outside", 99)):
    with open(f"{sys.argv[1]}/{name}.npy", "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<q", token))
PY
    "$expect" 0 --stdout-contains "network scalar_token: PASS — 7 of 7 runs" \
      "$maeri" verify --chain --hardware "$hw" --workload "$onnx/scalar-token.onnx" --memory ideal \
      --network-input "$dir/seven.npy" || exit 1
    "$expect" 2 --stderr-contains "$dir/outside.npy: field '--network-input': lookup 'embedding.lookup': index 99 (element 0 of its indices 'token') is outside [-12, 12)" \
      "$maeri" verify --chain --hardware "$hw" --workload "$onnx/scalar-token.onnx" --references-only \
      --network-input "$dir/outside.npy" --outputs "$dir/out" || exit 1
    [[ ! -e $dir/out ]] || fail "an output was written" ;;
  onnx_float_nodes)
    # CumSum and Sign between convolutions (tests/cli/make_onnx_models.cpp): the unit runs neither, so the chained
    # run computes both cut tensors by the float reference from the real input, and the console, the JSON and the
    # HTML report list them.
    computed="2 tensors computed by the float reference from the real input (the unit does not run their node): 's1' (node running (CumSum)), 'r2' (node signs (Sign))"
    "$maeri" verify --chain --hardware "$hw" --workload "$onnx/gated.onnx" --references-only --outputs "$dir/gated" \
      --all-tensors > /dev/null || fail "gated's input"  # its input 'image' has float-nodes' shape (1, 3, 8, 8)
    "$expect" 0 --stdout-contains "network float_nodes: PASS" --stdout-contains "$computed" \
      "$maeri" verify --chain --hardware "$hw" --workload "$onnx/float-nodes.onnx" \
      --network-input "$dir/gated/image.real.npy" \
      --memory both --json "$dir/float-nodes.json" --report "$dir/float-nodes.html" || exit 1
    grep -q '"computed_by_float_reference"' "$dir/float-nodes.json" || fail "JSON lists no tensor"
    grep -q "computed by the float reference" "$dir/float-nodes.html" || fail "HTML lists no tensor"
    # Imported to YAML, the model keeps where its graph is cut (`cut:` on those inputs); a run of the YAML from the
    # same single .npy cannot compute them (no ONNX nodes to evaluate) and names each one's node instead of asking
    # for "an .npz with one member per input" of a network the user never saw.
    "$maeri" import "$onnx/float-nodes.onnx" -o "$dir/float-nodes.yaml" > /dev/null || fail "import"
    [[ $(grep -c 'cut: "node ' "$dir/float-nodes.yaml") == 2 ]] || fail "the YAML does not keep its 2 cut inputs"
    "$maeri" validate "$dir/float-nodes.yaml" > /dev/null || fail "the YAML with cut inputs does not load"
    "$expect" 2 --stderr-contains "2 more tensors cannot be computed from it" --stderr-contains "'s1' from node running" \
      --stderr-contains "'r2' from node signs" --stderr-contains "run the ONNX model this workload was imported from" \
      "$maeri" verify --chain --hardware "$hw" --workload "$dir/float-nodes.yaml" \
      --network-input "$dir/gated/image.real.npy" --memory ideal || exit 1 ;;
  onnx_channel_affine)
    # A CNN whose batch normalizations follow ReLUs (and a BatchNorm1d after a Gemm): each a channel affine on the
    # unit, so the chain goes from the image to the softmax (cut at each before: 8 network inputs).
    for seed in 1 2 3; do
      "$expect" 0 --stdout-contains "top-1 agrees 1 of 1" --stdout-contains "network bn_cnn: PASS — 22 of 22 runs" \
        "$maeri" verify --chain --hardware "$hw" --workload "$onnx/bn-cnn.onnx" --memory both --seed "$seed" \
        || fail "seed $seed"
    done ;;
  onnx_pad)
    # Zero borders (maeri_make_onnx_models' padded.onnx): a SAME conv of stride 2 (pads [0, 0, 1, 1]: a pad operator
    # of the excess before it), a Keras ZeroPadding2D as an ONNX Pad node, ReLU, GAP, Gemm, softmax; its own weights.
    for seed in 1 2 3; do
      "$expect" 0 --stdout-contains "top-1 agrees 1 of 1" \
        --stdout-contains "network padded: PASS — 15 of 15 runs (3 fabric layers, their epilogues and 9 operators" \
        "$maeri" verify --chain --hardware "$hw" --workload "$onnx/padded.onnx" --memory both --seed "$seed" \
        || fail "seed $seed"
    done ;;
   onnx_gates)
    # SiLU, a squeeze-and-excitation block and HardSwish (tests/cli/make_onnx_models.cpp, its own weights) chained
    # through the RTL and the post-processing unit, nothing cut, with the SDM/DRAM models and without.
    for seed in 1 2 3; do
      "$expect" 0 --stdout-contains "network gates: PASS — 23 of 23 runs" --stdout-contains "top-1 agrees 1 of 1" \
        "$maeri" verify --chain --hardware "$hw" --workload "$onnx/gates.onnx" --memory both --seed "$seed" \
        || fail "seed $seed"
    done ;;
  attention)
    # Matrix products of two activations on the fabric (issue 42): one head's q·kᵀ, softmax, probs·v, and the
    # BERT-like block (H = 64, 2 heads, sequence 32: projections, Q·Kᵀ and Vᵀ·Pᵀ per head, softmax of each row,
    # output projection, residuals, FFN), chained bit-exact on the RTL with the SDM/DRAM models and without.
    "$expect" 0 --stdout-contains "network attention_one_head: PASS — 5 of 5 runs (2 fabric layers" \
      "$maeri" verify --chain --hardware "$hw" --workload "$here/../workloads/attention-one-head.yaml" --memory both \
      || exit 1
    "$expect" 0 --stdout-contains "network bert_attention_block: PASS — 26 of 26 runs (8 fabric layers" \
      "$maeri" verify --chain --hardware "$hw" --workload "$configs/workloads/bert-attention-block.yaml" \
      --memory both || exit 1 ;;
  onnx_attention)
    # The ONNX attention models of maeri_make_onnx_models: one head with projections and K's Transpose folded
    # into Q·Kᵀ, and two heads in the per-head batched form [1, 2, 8, 4] × [1, 2, 4, 8]; nothing cut.
    "$expect" 0 --stdout-contains "network attention_one_head: PASS — 21 of 21 runs (6 fabric layers" \
      "$maeri" verify --chain --hardware "$hw" --workload "$onnx/attention-one-head.onnx" --memory both || exit 1
    "$expect" 0 --stdout-contains "network attention_two_heads: PASS — 7 of 7 runs (2 fabric layers" \
      "$maeri" verify --chain --hardware "$hw" --workload "$onnx/attention-two-heads.onnx" --memory both || exit 1 ;;
  bad_matmul)
    # Operands that disagree: exit 2 naming the file, the operator, both tensors and their shapes.
    printf '%s\n' "kind: workload" "name: bad" "inputs:" "  - {name: p, shape: [1, 2, 4, 4]}" \
      "  - {name: v, shape: [1, 2, 5, 3]}" "operators:" "  - {name: context, type: matmul, inputs: [p, v]}" \
      > "$dir/bad.yaml"
    "$expect" 2 --stderr-contains "bad.yaml:7:" --stderr-contains "matmul 'context' multiplies 'p' of shape \
(1,2,4,4) by 'v' of shape (1,2,5,3): A's rows have 4 elements but B's columns 5" \
      "$maeri" verify --chain --hardware "$hw" --workload "$dir/bad.yaml" || exit 1 ;;
  transformer_blocks)
    # The BERT encoder layer, the causal GPT-2 block and its decode step at H = 64, 2 heads, sequence 32 (written by
    # scripts/make-transformer-workloads.py) chained bit-exact on maeri-64 from a real .npy input: LayerNorm, GELU,
    # heads split and merged by transposes, 1/√d from the constants file, BERT's padding mask (the last 4 positions)
    # as an input, GPT-2's causal mask as a constant given by name.
    scripts=$configs/../scripts
    python3 "$scripts/transformer-constants.py" --random hidden=32,64,1,1 --padding-mask attention_mask=32,4 \
      -o "$dir/bert-inputs.npz" || fail "bert inputs"
    python3 "$scripts/transformer-constants.py" --head-size 32 -o "$dir/bert-constants.npz" || fail "bert constants"
    python3 "$scripts/transformer-constants.py" --random hidden=32,64,1,1 --seed 2 -o "$dir/x.npy" || fail "x.npy"
    python3 "$scripts/transformer-constants.py" --head-size 32 --causal 32,32 -o "$dir/gpt2-constants.npz" \
      || fail "gpt2 constants"
    "$expect" 0 --stdout-contains "network bert-encoder-h64: PASS — 32 of 32 runs (8 fabric layers" \
      "$maeri" verify --chain --hardware "$hw" --workload "$configs/workloads/bert-encoder-h64.yaml" --memory both \
      --network-input "$dir/bert-inputs.npz" --network-weights "$dir/bert-constants.npz" || exit 1
    "$expect" 0 --stdout-contains "network gpt2-block-h64: PASS — 32 of 32 runs (8 fabric layers" \
      "$maeri" verify --chain --hardware "$hw" --workload "$configs/workloads/gpt2-block-h64.yaml" --memory both \
      --network-input "$dir/x.npy" --network-weights "$dir/gpt2-constants.npz" || exit 1
    # One decode step against a KV cache of 31 positions (past_key, past_value inputs joined to the new key and value).
    python3 "$scripts/transformer-constants.py" --random hidden=1,64,1,1 --random past_key=2,31,32 \
      --random past_value=2,31,32 --seed 3 -o "$dir/decode-inputs.npz" || fail "decode inputs"
    "$expect" 0 --stdout-contains "network gpt2-decode-h64: PASS — 33 of 33 runs (8 fabric layers" \
      "$maeri" verify --chain --hardware "$hw" --workload "$configs/workloads/gpt2-decode-h64.yaml" --memory both \
      --network-input "$dir/decode-inputs.npz" --network-weights "$dir/bert-constants.npz" || exit 1 ;;
  onnx_transformer)
    # A BERT encoder layer and a GPT-2 decoder block as PyTorch exports them (tests/cli/make_transformer_onnx_models.cpp,
    # their own weights): imported with no node cut and chained bit-exact on maeri-64; ONNX Runtime checks them too
    # (tests/oracle/models.txt).
    for model in transformer-encoder transformer-decoder; do
      "$maeri" import "$onnx/$model.onnx" -o "$dir/$model.yaml" > "$dir/$model.import" 2>&1 || fail "import $model"
      grep -q "no node skipped" "$dir/$model.import" || fail "$model: a node is skipped: $(cat "$dir/$model.import")"
    done
    "$expect" 0 --stdout-contains "network transformer_encoder: PASS — 48 of 48 runs (8 fabric layers" \
      "$maeri" verify --chain --hardware "$hw" --workload "$onnx/transformer-encoder.onnx" --memory both || exit 1
    "$expect" 0 --stdout-contains "network transformer_decoder: PASS — 46 of 46 runs (6 fabric layers" \
      "$maeri" verify --chain --hardware "$hw" --workload "$onnx/transformer-decoder.onnx" --memory both || exit 1
    # Multi-query attention: leading axes that broadcast, the shared key and value heads repeated by concats.
    "$expect" 0 --stdout-contains "layer scores: its operands' leading axes broadcast to (1,2): repeated by concats" \
      --stdout-contains "no node skipped" "$maeri" import "$onnx/attention-broadcast.onnx" -o "$dir/ab.yaml" || exit 1
    "$expect" 0 --stdout-contains "network attention_broadcast: PASS — 8 of 8 runs (2 fabric layers" \
      "$maeri" verify --chain --hardware "$hw" --workload "$onnx/attention-broadcast.onnx" --memory both || exit 1
    # Hugging Face's extended attention mask from an int64 input: Unsqueeze, Cast to float (the same tensor), Sub, Mul.
    "$expect" 0 --stdout-contains "no node skipped" "$maeri" import "$onnx/attention-hf-mask.onnx" -o "$dir/hf.yaml" \
      || exit 1
    "$expect" 0 --stdout-contains "network attention_hf_mask: PASS — 9 of 9 runs (2 fabric layers" \
      "$maeri" verify --chain --hardware "$hw" --workload "$onnx/attention-hf-mask.onnx" --memory both || exit 1 ;;
  bad_mask)
    # A mask of the wrong shape (keys 31 against scores of 32): exit 2 naming the file, the operator, both tensors and
    # their shapes; for a graph input and for a constant.
    sed 's/attention_mask, shape: \[1, 1, 32\]/attention_mask, shape: [1, 1, 31]/' \
      "$configs/workloads/bert-encoder-h64.yaml" > "$dir/bad-mask.yaml"
    "$expect" 2 --stderr-contains "bad-mask.yaml:" --stderr-contains "add 'masked_scores' reads 'scaled_scores' of shape \
(2,32,32) and 'attention_mask' of shape (1,1,31)" \
      "$maeri" verify --chain --hardware "$hw" --workload "$dir/bad-mask.yaml" || exit 1
    sed 's/constant_shape: \[32, 32\]/constant_shape: [32, 31]/' "$configs/workloads/gpt2-block-h64.yaml" \
      > "$dir/bad-causal.yaml"
    "$expect" 2 --stderr-contains "bad-causal.yaml:" --stderr-contains "masked_scores" \
      --stderr-contains "(2,32,32)" --stderr-contains "(32,31)" \
      "$maeri" verify --chain --hardware "$hw" --workload "$dir/bad-causal.yaml" || exit 1 ;;
   onnx_elementwise)
    # Table functions and binary operators broadcast against constants of odd shapes and other tensors, Paddle's
    # HardSwish and PyTorch's GELU decomposition (tests/cli/make_onnx_models.cpp, its own weights): imported with no
    # cut and chained through the RTL and the post-processing unit, every tensor bit-exact.
    "$expect" 0 --stdout-contains "no node skipped: the graph is whole" "$maeri" import "$onnx/elementwise.onnx" \
      -o elementwise.yaml || exit 1
    for seed in 1 2; do
      "$expect" 0 --stdout-contains "network elementwise: PASS — 45 of 45 runs" \
        "$maeri" verify --chain --hardware "$hw" --workload "$onnx/elementwise.onnx" --memory both --seed "$seed" \
        || fail "seed $seed"
    done
    # The written YAML (constants by name and shape, functions with their parameters) runs the same way.
    "$expect" 0 --stdout-contains "network elementwise: PASS" "$maeri" verify --chain --hardware "$hw" \
      --workload elementwise.yaml --memory ideal || exit 1 ;;
  onnx_resize)
    # Resize nearest (asymmetric, floor; pytorch_half_pixel, round_prefer_ceil) and linear (half_pixel to sizes,
    # align_corners by scales), max pools with asymmetric pads and ceil_mode (tests/cli/make_onnx_models.cpp, their
    # own weights): nothing cut, bit-exact.
    "$maeri" import "$onnx/resize.onnx" -o "$dir/resize.yaml" > "$dir/resize.import" 2>&1 || fail "import resize"
    grep -q "no node skipped" "$dir/resize.import" || fail "a node is skipped: $(cat "$dir/resize.import")"
    [[ $(grep -c "type: resize" "$dir/resize.yaml") == 4 ]] || fail "not 4 resizes"
    for seed in 1 2; do
      "$expect" 0 --stdout-contains "network resize: PASS" \
        "$maeri" verify --chain --hardware "$hw" --workload "$onnx/resize.onnx" --memory both --seed "$seed" \
        || fail "seed $seed"
    done ;;
   onnx_layout)
    # Transpose, Slice (negative step), Gather, a MatMul on the last axis and Softmax(−1), and a softmax of opset 11
    # over the flattened axes from 2 on (tests/cli/make_onnx_models.cpp, their own weights): nothing cut, bit-exact.
    for model in layout softmax-opset11; do
      "$maeri" import "$onnx/$model.onnx" -o "$dir/$model.yaml" > "$dir/$model.import" 2>&1 || fail "import $model"
      grep -q "no node skipped" "$dir/$model.import" || fail "$model: a node is skipped: $(cat "$dir/$model.import")"
    done
    for seed in 1 2; do
      "$expect" 0 --stdout-contains "network layout: PASS" \
        "$maeri" verify --chain --hardware "$hw" --workload "$onnx/layout.onnx" --memory both --seed "$seed" \
        || fail "seed $seed"
    done
    "$expect" 0 --stdout-contains "network softmax_opset11: PASS" \
      "$maeri" verify --chain --hardware "$hw" --workload "$onnx/softmax-opset11.onnx" --memory ideal || exit 1 ;;
   onnx_layer_norm)
    # A LayerNormalization node and two decomposed forms (Pow and Mul squares, with and without γ, β) between
    # MatMuls on tokens, then Softmax(−1) (tests/cli/make_onnx_models.cpp): each read as one layer normalization,
    # nothing cut, bit-exact on the RTL.
    "$maeri" import "$onnx/layer-norm.onnx" -o "$dir/layer-norm.yaml" > "$dir/import.txt" 2>&1 || fail "import"
    grep -q "no node skipped" "$dir/import.txt" || fail "a node is skipped: $(cat "$dir/import.txt")"
    [[ $(grep -c "type: layer_normalization" "$dir/layer-norm.yaml") == 3 ]] || fail "not 3 layer normalizations"
    for seed in 1 2; do
      "$expect" 0 --stdout-contains "network layer_norm: PASS" \
        "$maeri" verify --chain --hardware "$hw" --workload "$onnx/layer-norm.onnx" --memory ideal --seed "$seed" \
        || fail "seed $seed"
    done ;;
   one_layer_option)
    "$expect" 1 --stderr-contains "--layer: one layer's option: not with a chained run" \
      "$maeri" "${chain[@]}" --layer conv1 || exit 1
    "$expect" 1 --stderr-contains "--csv: one layer's option: not with a chained run" "$maeri" run --csv x.csv || exit 1
    "$expect" 1 --stderr-contains "--fault: a chained run's option: with --chain (or \`maeri run\`) only" \
      "$maeri" verify --hardware "$hw" --workload "$tiny" --fault unit:add1:0:0 || exit 1
    # Given but empty, or given without what it qualifies: refused, never read as "not given" (issue 43, item 7).
    "$expect" 1 --stderr-contains "--outputs: expected a value, found ''" \
      "$maeri" "${chain[@]}" --outputs "" || exit 1
    "$expect" 1 --stderr-contains "--fault: expected a value, found ''" \
      "$maeri" "${chain[@]}" --fault "" || exit 1
    "$expect" 1 --stderr-contains "--all-tensors: chooses what --outputs writes: give --outputs DIR too" \
      "$maeri" "${chain[@]}" --all-tensors || exit 1 ;;
  *) fail "unknown case $case_name" ;;
esac
echo "ok: $case_name"
