#!/bin/bash
# CLI tests of bad models and bad values (docs/cli.md, "Bad inputs the tests cover", issue 34 part B): ONNX models
# whose attributes crashed the importer or shape inference (SIGFPE) or that it imported into workloads the loader
# refuses; plots of values no axis can place; integers spelled +64, 064 or !!str 64 and second YAML documents;
# empty option values; a mapping file's objective; explore's output prefix; tensor files that are folders. Each runs
# `maeri` through expect_exit.sh (exit code and the message); import cases also check that no workload was written.
# Usage: bad_models.sh CASE MAERI CONFIGS_DIR ONNX_MODELS_DIR [MAPPING_FILE] [IMAGE]
set -u
case_name=$1 maeri=$2 configs=$3 models=$4 mapping=${5:-} image=${6:-}
expect=$(dirname "$0")/expect_exit.sh
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
hardware=$configs/hardware/maeri-64.yaml
tiny=$configs/workloads/tiny.yaml

fail() { echo "FAILED: $*"; exit 1; }
# `maeri import` of models/bad-MODEL.onnx: exit 2 with the message, and no workload file left.
refused_import() {
  "$expect" 2 --stderr-contains "$2" "$maeri" import "$models/bad-$1.onnx" -o "$dir/imported.yaml" || exit 1
  [[ ! -e $dir/imported.yaml ]] || fail "a workload was written for a refused model"
}
# `maeri plot` of a CSV table x,y with the given rows.
plot() { printf 'x,y\n' >"$dir/t.csv"; printf '%s\n' "$@" >>"$dir/t.csv"; }

case $case_name in
  onnx_stride_0_0) refused_import stride-0-0 "field 'node conv': attribute 'strides': expected a list of integers in [1, 1024], found [0, 0]" ;;
  onnx_stride_0_1) refused_import stride-0-1 "field 'node conv': attribute 'strides': expected a list of integers in [1, 1024], found [0, 1]" ;;
  onnx_same_stride_0) refused_import same-stride-0 "field 'node conv': attribute 'strides': expected a list of integers in [1, 1024], found [0, 0]" ;;
  onnx_negative_pads) refused_import negative-pads "field 'node conv': attribute 'pads': expected a list of integers in [0, 16777216], found [-4611686018427387907," ;;
  onnx_domain_stride_0) refused_import domain-stride-0 "field 'node conv': attribute 'strides': expected a list of integers in [1, 1024], found [0, 0]" ;;
  onnx_pool_stride_0) refused_import pool-stride-0 "field 'node pool': attribute 'strides': expected a list of integers >= 1, found [0, 0]" ;;
  onnx_dilation_0) refused_import dilation-0 "field 'node conv': attribute 'dilations': expected a list of integers in [1, 64], found [0, 1]" ;;
  onnx_group_float) refused_import group-float "field 'node conv': attribute 'group': expected an integer in [1, 16777216], found a float (FLOAT)" ;;
  onnx_strides_int) refused_import strides-int "field 'node conv': attribute 'strides': expected a list of integers in [1, 1024], found an integer (INT)" ;;
  onnx_own_output) refused_import own-output "field 'node conv': it reads its own output 'y' (a cycle" ;;
  onnx_matmul_batch_0) refused_import matmul-batch-0 "field 'node matmul': a batch dimension of 0" ;;
  onnx_matmul_batch_overflow) refused_import matmul-batch-overflow "field 'node matmul': a batch of more than 4096 products" ;;
  onnx_pads_span) refused_import pads-span "field 'node conv': the Conv layer it gives is not valid: padding: expected padding smaller than the dilated filter ((R-1)*dilation_x+1 = 3, (S-1)*dilation_y+1 = 3), found 3x3" ;;
  onnx_20000_layers) refused_import 20000-layers "field 'graph': more than 16384 fabric layers: more layers than a workload may list (kMaxYamlSequenceLength" ;;
  onnx_node_name_not_utf8) refused_import node-name-not-utf8 "field 'node #0 (Conv)': the node's name is not valid UTF-8 text: byte 0xff at offset 4" ;;
  onnx_graph_name_not_utf8) refused_import graph-name-not-utf8 "field 'graph': the graph's name is not valid UTF-8 text: byte 0xff at offset 5" ;;
  onnx_20mb_name) refused_import 20mb-name "more than a workload file may have (16777216 bytes, kMaxSpecFileBytes" ;;
  onnx_map_stride_0)  # map reads the model through the same importer
    "$expect" 2 --stderr-contains "attribute 'strides': expected a list of integers in [1, 1024], found [0, 0]" \
      "$maeri" map --hardware "$hardware" --workload "$models/bad-stride-0-0.onnx" -o "$dir/m.yaml" ;;
  plot_huge)  # ran away to 9 GB in 30 s
    plot 64,1e308 128,1.7976931348623157e308
    "$expect" 2 --stderr-contains "t.csv:2:0: field 'y': 1e+308 cannot be plotted: expected a magnitude of at most 1e+300" \
      timeout 20 "$maeri" plot --csv "$dir/t.csv" --x x --y y -o "$dir/h.svg" || exit 1
    [[ ! -e $dir/h.svg ]] || fail "an SVG was written" ;;
  plot_plus_minus_huge)  # exited 0 with -nan coordinates
    plot 64,1e308 128,-1e308
    "$expect" 2 --stderr-contains "field 'y': 1e+308 cannot be plotted" \
      timeout 20 "$maeri" plot --csv "$dir/t.csv" --x x --y y -o "$dir/h.svg" ;;
  plot_log_tiny)  # the magnitude limit mirrored on a log axis (10^-324 would be an axis end of 0)
    plot 1,1e-305 2,1
    "$expect" 2 --stderr-contains "on the logarithmic axis, positive values of at least 1e-300" \
      timeout 20 "$maeri" plot --csv "$dir/t.csv" --x x --y y --log-y -o "$dir/h.svg" ;;
  plot_ulps_apart)  # two values one ulp apart: a tick step below the doubles' resolution
    plot 1,1 2,1.0000000000000002
    "$expect" 0 timeout 20 "$maeri" plot --csv "$dir/t.csv" --x x --y y -o "$dir/h.svg" || exit 1
    ! grep -q nan "$dir/h.svg" || fail "nan in the SVG" ;;
  plot_bom)  # a UTF-8 byte order mark in front of the first column's name
    printf '\xef\xbb\xbfx,y\n1,2\n2,3\n' >"$dir/t.csv"
    "$expect" 0 --stdout-contains "plot: 2 rows" "$maeri" plot --csv "$dir/t.csv" --x x --y y -o "$dir/h.svg" ;;
  plot_long_title)  # centred and wider than the chart, it was cut at both edges: now two lines of 14 px or less
    plot 1,2 2,3
    title="$(printf 'word%d ' $(seq 1 30))end"
    "$expect" 0 "$maeri" plot --csv "$dir/t.csv" --x x --y y --title "$title" -o "$dir/h.svg" || exit 1
    lines=$(grep -c 'text-anchor="middle" font-size="1[0-4]"' "$dir/h.svg")
    [[ $lines == 2 ]] || fail "expected the title on two lines, found $lines"
    grep -q 'word1 ' "$dir/h.svg" && grep -q ' end<' "$dir/h.svg" || fail "the title lost a word"
    awk -F'font-size="' '/text-anchor="middle" font-size="1[0-4]"/ { size = $2 + 0; text = $0;
        sub(/.*">/, "", text); sub(/<\/text>.*/, "", text);
        if (length(text) * 0.6 * size > 700) { print "too wide: " text; exit 1 } }' "$dir/h.svg" || exit 1 ;;
  hardware_plus_sign)
    sed 's/^num_ms: 64/num_ms: +64/' "$hardware" >"$dir/h.yaml"
    "$expect" 2 --stderr-contains "field 'num_ms': expected an integer in [2, 65536], found '+64' (integers are written in plain decimal digits" \
      "$maeri" show --hardware "$dir/h.yaml" ;;
  hardware_leading_zero)
    sed 's/^num_ms: 64/num_ms: 064/' "$hardware" >"$dir/h.yaml"
    "$expect" 2 --stderr-contains "found '064' (integers are written in plain decimal digits: no '+', no leading zeros)" \
      "$maeri" show --hardware "$dir/h.yaml" ;;
  hardware_str_tag)
    sed 's/^num_ms: 64/num_ms: !!str 64/' "$hardware" >"$dir/h.yaml"
    "$expect" 2 --stderr-contains "found '64' (tagged tag:yaml.org,2002:str: not an integer)" \
      "$maeri" show --hardware "$dir/h.yaml" ;;
  second_document)
    { cat "$hardware"; printf -- '---\nkind: workload\n'; } >"$dir/h.yaml"
    "$expect" 2 --stderr-contains "h.yaml:$(( $(wc -l <"$hardware") + 1 )):1: a second YAML document: a spec file holds one" \
      "$maeri" show --hardware "$dir/h.yaml" ;;
  map_empty_tile)
    "$expect" 1 --stderr-contains "--tile: expected a value, found ''" \
      "$maeri" map --hardware "$hardware" --workload "$tiny" --layer conv1 --tile '' ;;
  map_empty_order)
    "$expect" 1 --stderr-contains "--order: expected a value, found ''" \
      "$maeri" map --hardware "$hardware" --workload "$tiny" --layer conv1 --tile 3,3,3,2,1,1,1 --sdm 4,3,1,10,10 --order '' ;;
  map_empty_phase_order)
    "$expect" 1 --stderr-contains "--phase-order: expected a value, found ''" \
      "$maeri" map --hardware "$hardware" --workload "$tiny" --layer conv1 --tile 3,3,1,2,1,1,1 --phase-order '' ;;
  mapping_objective)
    sed 's/^objective: .*/objective: speed/' "$mapping" >"$dir/m.yaml"
    grep -q 'objective: speed' "$dir/m.yaml" || fail "no objective line replaced"
    "$expect" 2 --stderr-contains "field 'objective': expected one of: runtime, energy, edp, found 'speed'" \
      "$maeri" codegen --hardware "$hardware" --mapping "$dir/m.yaml" -o "$dir/images" ;;
  explore_dev_null)  # created /dev/null.svg and /dev/null.csv
    [[ ! -e /dev/null.svg && ! -e /dev/null.csv ]] || fail "/dev/null.svg or /dev/null.csv exists before the test"
    "$expect" 2 --stderr-contains "/dev/null: is a character device: it is the prefix of the output files' names" \
      "$maeri" explore --hardware "$hardware" --workload "$tiny" --methods random --budgets 10 --runs 1 -o /dev/null || exit 1
    [[ ! -e /dev/null.svg && ! -e /dev/null.csv ]] || fail "/dev/null.svg or /dev/null.csv was created" ;;
  optimum_nan | optimum_negative)  # found / optimum became nan, or a negative "improvement"
    [[ $case_name == optimum_nan ]] && value=nan || value=-5
    printf 'key,optimum,exhaustive\nmaeri-64/64MS/x/runtime/two-level/conv,%s,1\n' "$value" >"$dir/optima.csv"
    "$expect" 2 --stderr-contains "optima.csv:2:40: field 'optimum': expected a positive, finite number (the objective's optimum), found '$value'" \
      "$maeri" explore --hardware "$hardware" --workload "$tiny" --layer fc --methods random --budgets 4 --runs 1 \
      --optimum-cache "$dir/optima.csv" -o "$dir/e" ;;
  sim_weights_directory)
    "$expect" 2 --stderr-contains "$dir: field '--weights': is a directory (expected a tensor file)" \
      "$maeri" sim "$image" --weights "$dir" ;;
  sim_weights_missing)
    "$expect" 2 --stderr-contains "$dir/absent.txt: field '--weights': cannot open the tensor file" \
      "$maeri" sim "$image" --weights "$dir/absent.txt" ;;
  *) fail "unknown case $case_name" ;;
esac
