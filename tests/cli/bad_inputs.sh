#!/bin/bash
# CLI tests with bad input files generated on the spot (docs/cli.md, "Bad inputs the tests cover"): YAML over the
# input limits of contracts/strict_yaml.hpp, text that is not UTF-8, graphs that break the graph rules
# (docs/workload-spec.md, "Graphs"), mapping files that do not fit the workload, fused groups that break a rule. Each
# runs `maeri` through expect_exit.sh (exit code 2 and the message naming the file and the limit or reason); the
# limit cases must also finish within 10 s (before the limits, these files ran for minutes).
# Usage: bad_inputs.sh CASE MAERI CONFIGS_DIR [MAPPING_FILE]
set -u
case_name=$1 maeri=$2 configs=$3 mapping=${4:-}
expect=$(dirname "$0")/expect_exit.sh
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
file=$dir/bad.yaml

fail() { echo "FAILED: $*"; exit 1; }
source "$(dirname "$0")/time_bound.sh"
repeat() { local i; for ((i = 0; i < $2; i++)); do printf '%s' "$1"; done; }

case $case_name in
  billion_laughs)  # 10 levels of 10 aliases: 1.1·10^10 nodes once expanded, 400 bytes of text
    printf 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n' >"$file"
    for level in 1 2 3 4 5 6 7 8 9; do
      printf 'a%d: &a%d [%s*a%d]\n' $level $level "$(repeat "*a$((level - 1)),"  9)" $((level - 1)) >>"$file"
    done
    quickly 2 --stderr-contains "$file:6:38: more than 1000000 YAML nodes, counting each alias as a copy" \
      "$maeri" validate "$file" ;;
  endless_alias)
    printf 'kind: workload\nname: &n [a, *n]\n' >"$file"
    quickly 2 --stderr-contains "$file:2:14: an alias inside the node it refers to" "$maeri" validate "$file" ;;
  deep_nesting)  # 100 000 levels; the limit stops the parser at level 33
    { printf 'kind: workload\nname: w\nlayers: '; head -c 100000 /dev/zero | tr '\0' '['; head -c 100000 /dev/zero | tr '\0' ']'; echo; } >"$file"
    quickly 2 --stderr-contains "$file:3:40: mappings and lists nested more than 32 levels deep (kMaxYamlDepth" \
      "$maeri" validate "$file" ;;
  huge_file)  # 17 MiB of comments
    { echo 'kind: workload'; head -c $((17 * 1024 * 1024)) /dev/zero | tr '\0' '#'; echo; } >"$file"
    quickly 2 --stderr-contains "$file: file larger than the limit of 16777216 bytes (kMaxSpecFileBytes" \
      "$maeri" validate "$file" ;;
  endless_device)  # never ends; reading stops at the size limit
    quickly 2 --stderr-contains "/dev/zero: file larger than the limit of 16777216 bytes" "$maeri" validate /dev/zero ;;
  wide_mapping)  # 100 000 keys: the duplicate-key check used to compare every pair
    { echo 'kind: workload'; seq -f 'k%g: 1' 0 99999; } >"$file"
    quickly 2 --stderr-contains "$file:1:1: field 'name': missing required field" "$maeri" validate "$file" ;;
  long_list)  # one layer more than kMaxYamlSequenceLength
    { printf 'kind: workload\nname: w\nlayers:\n'; seq -f '  - {name: l%g, type: fc, K: 1, C: 1}' 0 16384; } >"$file"
    quickly 2 --stderr-contains "$file:4:3: field 'layers': expected a list of at most 16384 entries" \
      "$maeri" validate "$file" ;;
  non_utf8_name)  # would make --json fail (nlohmann::json refuses invalid UTF-8): rejected when the file is read
    sed 's/name: conv1,/name: conv\xff,/' "$configs/workloads/tiny.yaml" >"$file"
    "$expect" 2 --stderr-contains "$file:11:16: not valid UTF-8 text: byte 0xff" \
      "$maeri" map --hardware "$configs/hardware/maeri-64.yaml" --workload "$file" -o "$dir/m.yaml" --json "$dir/m.json" \
      || exit 1
    [[ ! -e $dir/m.json && ! -e $dir/m.yaml ]] || fail "outputs written for a rejected input" ;;
  mapping_other_shape)  # the mapping's conv1 is 3x3; this workload's conv1 is 1x1 (with the same output shape)
    sed 's/R: 3, S: 3, X: 10, Y: 10, stride: 1, padding: 1,/R: 1, S: 1, X: 10, Y: 10, stride: 1, padding: 0,/' \
      "$configs/workloads/tiny.yaml" >"$file"
    "$expect" 2 --stderr-contains "field 'layers[0].shape': the mapping is for layer 'conv1' of shape conv N=1 K=8" \
      "$maeri" verify --hardware "$configs/hardware/maeri-64.yaml" --workload "$file" --mapping "$mapping" ;;
  graph_shapes_disagree)  # tiny's residual add reading conv1's 10x10 activations instead of the pooled 5x5 ones
    sed 's/inputs: \[conv2, pool1\]/inputs: [conv2, relu1]/' "$configs/workloads/tiny.yaml" >"$file"
    "$expect" 2 --stderr-contains "$file:15:37: field 'operators[4].inputs': add 'add1' reads 'conv2' of shape (1,8,5,5) and 'relu1' of shape (1,8,10,10): the shapes do not broadcast" \
      "$maeri" map --hardware "$configs/hardware/maeri-64.yaml" --workload "$file" -o "$dir/m.yaml" --json "$dir/m.json" \
      || exit 1
    [[ ! -e $dir/m.json && ! -e $dir/m.yaml ]] || fail "outputs written for a rejected input" ;;
  graph_cycle)  # relu1 reading relu2: relu1 -> conv2 -> add1 -> relu2 -> relu1
    sed 's/name: relu1, type: relu, input: conv1/name: relu1, type: relu, input: relu2/' "$configs/workloads/tiny.yaml" >"$file"
    "$expect" 2 --stderr-contains "$file:16:12: field 'operators[5].name': the operators form a cycle through tensor 'relu2'" \
      "$maeri" validate "$file" ;;
  graph_dangling)  # the add reading a tensor no operator produces
    sed 's/inputs: \[conv2, pool1\]/inputs: [conv2, pool2]/' "$configs/workloads/tiny.yaml" >"$file"
    "$expect" 2 --stderr-contains "$file:15:37: field 'operators[4].inputs': tensor 'pool2' is produced by no operator and not declared in 'inputs'" \
      "$maeri" validate "$file" ;;
  graph_produced_twice)  # relu2 writing pool1's tensor
    sed 's/name: relu2, type: relu, input: add1/name: relu2, type: relu, input: add1, output: pool1/' "$configs/workloads/tiny.yaml" >"$file"
    "$expect" 2 --stderr-contains "$file:16:52: field 'operators[5].output': tensor 'pool1' is produced by operator 'pool1'; each tensor has one producer" \
      "$maeri" validate "$file" ;;
  mapping_tile_too_large)  # conv1's tile edited to T_K = 64 > K = 8
    sed '0,/T_K: [0-9]*/s//T_K: 64/' "$mapping" >"$file"
    "$expect" 2 --stderr-contains "field 'layers[0].tile': bound: T_K = 64 must be between 1 and K = 8" \
      "$maeri" verify --hardware "$configs/hardware/maeri-64.yaml" --workload "$configs/workloads/tiny.yaml" \
      --mapping "$file" ;;
  mapping_bad_groups)  # conv1 (1 group) with T_G = 2 added to its tile: exit 2 naming the field
    sed '0,/T_Y: \([0-9]*\)}/s//T_Y: \1, T_G: 2}/' "$mapping" >"$file"
    "$expect" 2 --stderr-contains "field 'layers[0].tile.T_G': bound: T_G = 2 must be between 1 and groups = 1" \
      "$maeri" verify --hardware "$configs/hardware/maeri-64.yaml" --workload "$configs/workloads/tiny.yaml" \
      --mapping "$file" ;;
  mapping_sdm_*)  # a two-level mapping of conv1 (tile 3,3,3,2,1,1,1) with a bad SDM level (docs/mapping.md)
    "$maeri" map --hardware "$configs/hardware/maeri-64.yaml" --workload "$configs/workloads/tiny.yaml" --layer conv1 \
      --tile 3,3,3,2,1,1,1 -o "$dir/one.yaml" >/dev/null || fail "map"
    hardware=$configs/hardware/maeri-64.yaml
    case $case_name in
      mapping_sdm_below_tile) sdm='{K: 1, C: 3, N: 1, X: 10, Y: 10, order: KCNXY}'
        message="field 'layers[0].sdm.K': SDM bound: sdm.K = 1 is smaller than the fabric tile T_K = 2" ;;
      mapping_sdm_order) sdm='{K: 4, C: 3, N: 1, X: 10, Y: 10, order: KCNYY}'
        message="field 'layers[0].sdm.order': 'KCNYY' is not a permutation of K, C, N, X, Y: Y appears twice" ;;
      mapping_sdm_capacity) sdm='{K: 8, C: 3, N: 1, X: 10, Y: 10}'
        # One block: 2·(3·12·12·2 input + 8·3·9·2 weight bytes) + 8·10·10·4 output bytes = 5792 > 1 KiB.
        sed 's/capacity_kib: [0-9]*/capacity_kib: 1/' "$hardware" >"$dir/small.yaml"
        hardware=$dir/small.yaml
        message="field 'layers[0].sdm': the tile does not fit layer 'conv1' on maeri-64: SDM capacity: one SDM block needs 2·(864 input + 432 weight bytes) + max(3200 output" ;;
      *) fail "unknown case $case_name" ;;
    esac
    sed "s/^\(    tile: .*\)\$/\1\n    sdm: $sdm/" "$dir/one.yaml" >"$file"
    grep -q 'sdm:' "$file" || fail "no sdm line inserted"
    "$expect" 2 --stderr-contains "$message" \
      "$maeri" codegen --hardware "$hardware" --mapping "$file" -o "$dir/images" || exit 1
    [[ ! -e $dir/images ]] || fail "images written for a rejected mapping" ;;
  mapping_phase_order)  # conv1's mapping with a phase order that is not one of the two (docs/mapping.md)
    "$maeri" map --hardware "$configs/hardware/maeri-64.yaml" --workload "$configs/workloads/tiny.yaml" --layer conv1 \
      --tile 3,3,1,2,1,1,1 -o "$dir/one.yaml" >/dev/null || fail "map"
    sed "s/^\(    tile: .*\)\$/\1\n    phase_order: k-outer/" "$dir/one.yaml" >"$file"
    grep -q 'phase_order:' "$file" || fail "no phase_order line inserted"
    "$expect" 2 --stderr-contains "field 'layers[0].phase_order': expected one of: folds-outer, filters-outer" \
      "$maeri" codegen --hardware "$configs/hardware/maeri-64.yaml" --mapping "$file" -o "$dir/images" || exit 1
    [[ ! -e $dir/images ]] || fail "images written for a rejected mapping" ;;
  fused_group_*)  # tiny with conv2 and conv3_1x1 fused (tests/cli/tiny-fused.mapping.yaml); each case breaks one
    # rule, which `codegen --workload` checks against the graph: exit 2 naming the group, the rule and the tensor
    cp "$(dirname "$0")/tiny-fused.mapping.yaml" "$dir/fused.yaml" || fail "copy"
    grep -q '^  - name: conv2-conv3_1x1$' "$dir/fused.yaml" || fail "tiny's mapping has no group conv2-conv3_1x1"
    hardware=$configs/hardware/maeri-64.yaml
    group="field 'fused_groups[0]': fused group 'conv2-conv3_1x1'"
    case $case_name in
      fused_group_ok) cp "$dir/fused.yaml" "$file" ;;
      fused_group_stripes)  # 5 stripes, but conv2's SDM level holds its 5 output rows in one block
        sed 's/^    stripes: 1$/    stripes: 5/' "$dir/fused.yaml" >"$file"
        message="$group: stripes: layer 'conv2' has sdm.X = 5, 1 blocks of its 5 output rows, not the group's 5 stripes (the group shares its tensor 'relu2')" ;;
      fused_group_not_consumer)  # conv1 and conv3_1x1 are not consecutive producer and consumer
        sed 's/^    layers: \[conv2, conv3_1x1\]$/    layers: [conv1, conv3_1x1]/' "$dir/fused.yaml" >"$file"
        message="$group: producer and consumer: layer 'conv3_1x1' is not the workload's layer after 'conv1'" ;;
      fused_group_capacity)  # conv2 in blocks of 2 rows: 5088 bytes, with relu2 held whole 5488 > 5 KiB
        sed 's/^\(    sdm: \){K: 8, C: 8, N: 1, X: 5, Y: 5, order: KCNXY}$/\1{K: 8, C: 8, N: 1, X: 2, Y: 5, order: KCNXY}/' \
          "$dir/fused.yaml" >"$file"
        sed 's/capacity_kib: [0-9]*/capacity_kib: 5/' "$hardware" >"$dir/small.yaml"
        hardware=$dir/small.yaml
        message="$group: SDM capacity: while layer 'conv2' runs the SDM holds its block's 5088 bytes, the shared tensors live then (tensor 'relu2' 400 bytes)" ;;
      *) fail "unknown case $case_name" ;;
    esac
    cmp -s "$file" "$dir/fused.yaml" && [[ $case_name != fused_group_ok ]] && fail "the file was not changed"
    if [[ $case_name == fused_group_ok ]]; then
      "$expect" 0 "$maeri" codegen --hardware "$hardware" --mapping "$file" \
        --workload "$configs/workloads/tiny.yaml" -o "$dir/images" || exit 1
    else
      "$expect" 2 --stderr-contains "$message" "$maeri" codegen --hardware "$hardware" --mapping "$file" \
        --workload "$configs/workloads/tiny.yaml" -o "$dir/images" || exit 1
      [[ ! -e $dir/images ]] || fail "images written for a rejected fused group"
    fi ;;
  *) fail "unknown case $case_name" ;;
esac
