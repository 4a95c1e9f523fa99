#!/bin/bash
# CLI tests of fused groups through streaming operators (docs/mapping.md, "Fused groups"): the group `maeri map`
# decides runs on the RTL with the unit's operators between its members, every member bit-exact and the group's
# model equal to the co-simulation (cycles with DRAM, DRAM bytes: error 0).
# transformer: the BERT encoder layer at H 64 (configs/workloads/bert-encoder-h64.yaml) on maeri-64 under the energy
# objective, from a real .npy input: one group of its 8 products, Q·Kᵀ and P·V reading their operand A from the SDM
# through the reshapes, transposes, scale, mask and softmax between them.
# pool_stripes: conv → relu → 3x3/2 max pool → conv on a 16 KiB SDM: a group in 16 row stripes through the pool's
# window, weights pinned.
# token_stripes: a BERT feed-forward block at H 32, FF 128 over 64 tokens (GEMM → GELU → GEMM → residual add →
# LayerNorm → GEMM) on an 8 KiB SDM: a group in token stripes (its GEMMs' N cut into 2 blocks, the nb loop the stripe
# loop, image flag token_stripes), through the residual add and the LayerNorm of each token's row.
# query_rows: BERT attention at H 64, 2 heads of 32, 32 tokens (projections, heads split by reshape + transpose,
# Q·Kᵀ, scale, padding mask, softmax, P·V, heads merged, output projection, residual) on an 8 KiB SDM, under
# TransFusion's policy (`map --fuse query,scores,context,attention_output`: every Einsum but K and V): one group in 4
# token stripes — the GEMMs' N, the products' query rows (K per head, the kb loop the stripe loop, image flag
# query_rows), Q and P streamed stripe by stripe from the SDM through the head split and merge, K and V read whole
# in every stripe. Expected: every tensor bit-exact with the integer reference (from the generated .npz input), and
# the group's cycles with DRAM and DRAM bytes of the model equal to the co-simulation's (error 0).
# query_rows_ragged: the same over 31 tokens, the products' last query-row stripe ragged; the same expectations.
# Usage: stream_fusion_chain.sh CASE MAERI CONFIGS_DIR
set -u
case_name=$1 maeri=$2 configs=$3
scripts=$configs/../scripts
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
# The group's rows of cycles with DRAM and DRAM bytes show no error.
exact_group() {
  local out=$1 group=$2
  grep -A24 "^fused group $group" "$out" | grep -E "^  (cycles \(with DRAM\)|DRAM bytes) .* 0 +0\.00%$" | wc -l \
    | grep -qx 2 || fail "the group's model is not the co-simulation: $(grep -A24 "^fused group" "$out")"
}

# BERT attention at H 64, 2 heads of 32, over $1 tokens (the query_rows cases).
attention_yaml() {
  cat <<YAML
kind: workload
name: attn
batch: 1
inputs:
  - {name: hidden, shape: [$1, 64, 1, 1]}
  - {name: attention_mask, shape: [1, 1, $1]}
operators:
  - {name: key, type: gemm, input: hidden, M: 1, K: 64, N: 64, batch: $1, bias: key.bias}
  - {name: key_split, type: reshape, input: key, shape: [$1, 2, 32]}
  - {name: key_heads, type: transpose, input: key_split, perm: [1, 0, 2]}
  - {name: value, type: gemm, input: hidden, M: 1, K: 64, N: 64, batch: $1, bias: value.bias}
  - {name: value_split, type: reshape, input: value, shape: [$1, 2, 32]}
  - {name: value_heads, type: transpose, input: value_split, perm: [1, 0, 2]}
  - {name: query, type: gemm, input: hidden, M: 1, K: 64, N: 64, batch: $1, bias: query.bias}
  - {name: query_split, type: reshape, input: query, shape: [$1, 2, 32]}
  - {name: query_heads, type: transpose, input: query_split, perm: [1, 0, 2]}
  - {name: scores, type: matmul, inputs: [query_heads, key_heads], transpose_b: true}
  - {name: scaled_scores, type: mul, inputs: [scores], constant: attention_scale, constant_shape: [1]}
  - {name: masked_scores, type: add, inputs: [scaled_scores, attention_mask]}
  - {name: probs, type: softmax, input: masked_scores, axis: -1}
  - {name: context, type: matmul, inputs: [probs, value_heads]}
  - {name: context_tokens, type: transpose, input: context, perm: [1, 0, 2]}
  - {name: context_merged, type: reshape, input: context_tokens, shape: [$1, 64, 1, 1]}
  - {name: attention_output, type: gemm, input: context_merged, M: 1, K: 64, N: 64, batch: $1, bias: attention_output.bias}
  - {name: attention_residual, type: add, inputs: [attention_output, hidden]}
YAML
}

# The attention over $1 tokens on maeri-64 with an 8 KiB SDM ($dir/hw.yaml, $dir/attn.yaml) under TransFusion's
# policy: map's decision $dir/map.yaml.
attention_map() {
  sed -e 's/^name: .*/name: maeri-64-sdm8/' -e 's/capacity_kib: [0-9]*/capacity_kib: 8/' \
    "$configs/hardware/maeri-64.yaml" > "$dir/hw.yaml"
  attention_yaml "$1" > "$dir/attn.yaml"
  "$maeri" map --hardware "$dir/hw.yaml" --workload "$dir/attn.yaml" --objective energy \
    --fuse query,scores,context,attention_output -o "$dir/map.yaml" > "$dir/map.out" || fail "map"
}

# Runs the attention workload in $dir/attn.yaml over $1 tokens (the last 4 padded) with map's decision
# $dir/map.yaml on the RTL, from a generated input: $dir/chain.out.
attention_chain() {
  python3 "$scripts/transformer-constants.py" --random hidden=$1,64,1,1 --padding-mask attention_mask=$1,4 \
    -o "$dir/inputs.npz" || fail "inputs"
  python3 "$scripts/transformer-constants.py" --head-size 32 -o "$dir/constants.npz" || fail "constants"
  "$maeri" verify --chain --hardware "$dir/hw.yaml" --workload "$dir/attn.yaml" --mapping "$dir/map.yaml" \
    --memory both --network-input "$dir/inputs.npz" --network-weights "$dir/constants.npz" > "$dir/chain.out" \
    || { cat "$dir/chain.out"; fail "chain"; }
}

case $case_name in
  transformer)
    hw=$configs/hardware/maeri-64.yaml
    workload=$configs/workloads/bert-encoder-h64.yaml
    "$maeri" map --hardware "$hw" --workload "$workload" --objective energy -o "$dir/map.yaml" > "$dir/map.out" \
      || fail "map"
    grep -q "layers: \[key, value, query, scores, context, attention_output, intermediate, output\]" "$dir/map.yaml" \
      || fail "map did not fuse the layer: $(cat "$dir/map.yaml")"
    python3 "$scripts/transformer-constants.py" --random hidden=32,64,1,1 --padding-mask attention_mask=32,4 \
      -o "$dir/inputs.npz" || fail "inputs"
    python3 "$scripts/transformer-constants.py" --head-size 32 -o "$dir/constants.npz" || fail "constants"
    "$maeri" verify --chain --hardware "$hw" --workload "$workload" --mapping "$dir/map.yaml" --memory both \
      --network-input "$dir/inputs.npz" --network-weights "$dir/constants.npz" > "$dir/chain.out" \
      || { cat "$dir/chain.out"; fail "chain"; }
    grep -q "network bert-encoder-h64: PASS — 32 of 32 runs (8 fabric layers" "$dir/chain.out" || fail "not PASS"
    grep -q "scores \[fabric, fused group key-output, member 4 of 8: input from the SDM, operand A from the SDM" \
      "$dir/chain.out" || fail "scores does not read its operand A from the SDM"
    exact_group "$dir/chain.out" key-output ;;
  pool_stripes)
    sed -e 's/^name: .*/name: maeri-64-sdm16/' -e 's/capacity_kib: [0-9]*/capacity_kib: 16/' \
      "$configs/hardware/maeri-64.yaml" > "$dir/hw.yaml"
    cat > "$dir/pooled.yaml" <<'YAML'
kind: workload
name: pooled
batch: 1
inputs:
  - {name: x, shape: [1, 8, 32, 16]}
operators:
  - {name: a, type: conv, input: x, K: 16, C: 8, R: 3, S: 3, X: 32, Y: 16, stride: 1, padding: 1, X_out: 32, Y_out: 16}
  - {name: a_relu, type: relu, input: a}
  - {name: pool, type: max_pool, input: a_relu, size: 3, stride: 2, padding: 1}
  - {name: b, type: conv, input: pool, K: 16, C: 16, R: 3, S: 3, X: 16, Y: 8, stride: 1, padding: 1, X_out: 16, Y_out: 8}
YAML
    "$maeri" map --hardware "$dir/hw.yaml" --workload "$dir/pooled.yaml" --objective energy -o "$dir/map.yaml" \
      > "$dir/map.out" || fail "map"
    grep -A2 "layers: \[a, b\]" "$dir/map.yaml" | grep -q "stripes: 16" || fail "not fused in stripes: $(cat "$dir/map.yaml")"
    "$maeri" verify --chain --hardware "$dir/hw.yaml" --workload "$dir/pooled.yaml" --mapping "$dir/map.yaml" \
      --memory both > "$dir/chain.out" || { cat "$dir/chain.out"; fail "chain"; }
    grep -q "network pooled: PASS" "$dir/chain.out" || fail "not PASS"
    exact_group "$dir/chain.out" a-b ;;
  token_stripes)
    sed -e 's/^name: .*/name: maeri-64-sdm8/' -e 's/capacity_kib: [0-9]*/capacity_kib: 8/' \
      "$configs/hardware/maeri-64.yaml" > "$dir/hw.yaml"
    cat > "$dir/ffn.yaml" <<'YAML'
kind: workload
name: ffn
batch: 1
inputs:
  - {name: hidden, shape: [64, 32, 1, 1]}
operators:
  - {name: intermediate, type: gemm, input: hidden, M: 1, K: 32, N: 128, batch: 64}
  - {name: intermediate_act, type: gelu, input: intermediate}
  - {name: output, type: gemm, input: intermediate_act, M: 1, K: 128, N: 32, batch: 64}
  - {name: output_residual, type: add, inputs: [output, hidden]}
  - {name: output_norm, type: layer_normalization, input: output_residual, axis: 1, epsilon: 1e-12, scale: ln.scale, shift: ln.shift}
  - {name: next, type: gemm, input: output_norm, M: 1, K: 32, N: 32, batch: 64}
YAML
    "$maeri" map --hardware "$dir/hw.yaml" --workload "$dir/ffn.yaml" --objective energy -o "$dir/map.yaml" \
      > "$dir/map.out" || fail "map"
    grep -A3 "layers: \[output, next\]" "$dir/map.yaml" | tr '\n' ' ' | grep -q "stripes: 2 *stripe_axis: N" \
      || fail "not fused in token stripes: $(cat "$dir/map.yaml")"
    "$maeri" codegen --hardware "$dir/hw.yaml" --workload "$dir/ffn.yaml" --mapping "$dir/map.yaml" -o "$dir/images" \
      > /dev/null || fail "codegen"
    "$maeri" disasm "$dir/images/ffn.output.mimg" | grep -q "token stripes 2: each iteration of the nb loop" \
      || fail "disasm: $("$maeri" disasm "$dir/images/ffn.output.mimg" | head -30)"
    "$maeri" verify --chain --hardware "$dir/hw.yaml" --workload "$dir/ffn.yaml" --mapping "$dir/map.yaml" \
      --memory both > "$dir/chain.out" || { cat "$dir/chain.out"; fail "chain"; }
    grep -q "network ffn: PASS" "$dir/chain.out" || fail "not PASS"
    grep -q "next \[fabric, fused group output-next, member 2 of 2: input from the SDM, 2 token stripes\]" \
      "$dir/chain.out" || fail "next does not run in token stripes: $(grep 'next \[fabric' "$dir/chain.out")"
    exact_group "$dir/chain.out" output-next ;;
  query_rows)
    attention_map 32
    grep -A3 "layers: \[query, scores, context, attention_output\]" "$dir/map.yaml" | tr '\n' ' ' \
      | grep -q "stripes: 4 *stripe_axis: N" || fail "not fused in token stripes: $(cat "$dir/map.yaml")"
    "$maeri" codegen --hardware "$dir/hw.yaml" --workload "$dir/attn.yaml" --mapping "$dir/map.yaml" -o "$dir/images" \
      > /dev/null || fail "codegen"
    "$maeri" disasm "$dir/images/attn.scores.mimg" | grep -q "query-row stripes 4: each iteration of the kb loop" \
      || fail "disasm: $("$maeri" disasm "$dir/images/attn.scores.mimg" | head -30)"
    # The manifest lists the members whose stripes cut their query rows; verify --manifest checks each image's flag
    # against it (a manifest that leaves one out: exit 2 naming fused.query_rows).
    python3 -c "import json, sys; g = json.load(open(sys.argv[1]))['fused_groups'][0]; \
sys.exit(0 if g.get('token_stripes') and g.get('query_rows') == ['scores', 'context'] else 1)" \
      "$dir/images/attn.manifest.json" || fail "manifest: $(cat "$dir/images/attn.manifest.json")"
    "$maeri" verify --hardware "$dir/hw.yaml" --manifest "$dir/images/attn.manifest.json" > "$dir/manifest.out" \
      && grep -q "6 of 6 runs PASS" "$dir/manifest.out" || fail "verify --manifest: $(tail -5 "$dir/manifest.out")"
    python3 -c "import json, sys; m = json.load(open(sys.argv[1])); m['fused_groups'][0]['query_rows'] = ['scores']; \
json.dump(m, open(sys.argv[2], 'w'))" "$dir/images/attn.manifest.json" "$dir/images/edited.manifest.json" || fail "edit"
    "$maeri" verify --hardware "$dir/hw.yaml" --manifest "$dir/images/edited.manifest.json" > "$dir/edited.out" 2>&1
    [ $? -eq 2 ] && grep -q "attn.context.mimg: field 'fused.query_rows'" "$dir/edited.out" \
      || fail "an edited manifest: $(head -5 "$dir/edited.out")"
    attention_chain 32
    grep -q "network attn: PASS — 24 of 24 runs" "$dir/chain.out" || fail "not PASS"
    grep -q "context \[fabric, fused group query-attention_output, member 3 of 4: operand A from the SDM, output kept in the SDM, 4 token stripes\]" \
      "$dir/chain.out" || fail "context does not stream P: $(grep 'context \[fabric' "$dir/chain.out")"
    exact_group "$dir/chain.out" query-attention_output ;;
  query_rows_ragged)
    # The same attention over 31 tokens (a prime: every split into 2 … 30 stripes leaves a ragged last block), so the
    # products' last query-row stripe has fewer rows (its own FOR kb in the image, the g0 loop inside it).
    attention_map 31
    stripes=$(grep -A3 "layers: \[query, scores, context, attention_output\]" "$dir/map.yaml" \
      | sed -n 's/.*stripes: \([0-9]*\).*/\1/p')
    [[ -n $stripes && $stripes -ge 2 && $stripes -le 16 ]] || fail "not in 2 … 16 stripes: $(cat "$dir/map.yaml")"
    "$maeri" codegen --hardware "$dir/hw.yaml" --workload "$dir/attn.yaml" --mapping "$dir/map.yaml" -o "$dir/images" \
      > /dev/null || fail "codegen"
    "$maeri" disasm "$dir/images/attn.scores.mimg" > "$dir/scores.disasm" || fail "disasm"
    grep -q "query-row stripes $stripes: each iteration of the kb loop" "$dir/scores.disasm" \
      || fail "disasm: $(head -30 "$dir/scores.disasm")"
    [[ $(grep -c "FOR kb" "$dir/scores.disasm") -eq 2 ]] || fail "not two kb loops: $(cat "$dir/scores.disasm")"
    attention_chain 31
    grep -q "network attn: PASS" "$dir/chain.out" || fail "not PASS"
    grep -q "scores \[fabric, fused group query-attention_output, member 2 of 4: .*$stripes token stripes\]" \
      "$dir/chain.out" || fail "scores does not run in query-row stripes: $(grep 'scores \[fabric' "$dir/chain.out")"
    exact_group "$dir/chain.out" query-attention_output ;;
  *) fail "unknown case $case_name" ;;
esac
