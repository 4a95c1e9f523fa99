#!/bin/bash
# CLI tests of the measurement scripts (scripts/reproduce-mrna.sh, docs/reproduction.md; scripts/measure-search.sh,
# docs/search.md) and of `maeri plot`.
#   reproduce_quick  the script's reduced grid writes every CSV and SVG; Table II's improvements equal those computed
#                    here from independent `maeri map` runs (by hand from their cycles and energies); Fig. 8's points
#                    equal `maeri map` on the same hardware written by hand.
#   measure_quick    measure-search.sh on tiny at 64 MS, 2 runs of small budgets: the model, surrogate check, explore
#                    CSVs and plot are written; every run's ratio is >= 1 (no run beats the exhaustive optimum) and
#                    its evaluations <= its budget; 2 runs per layer, method, start and budget (4 x 2 x 2 x 2 = 32 per
#                    layer); a second call reuses the model and the cached optima.
#   ffm_quick        scripts/ffm-comparison.py for GPT-2 at sequence 128 on maeri-512 and maeri-1024: 3 variants per
#                    fabric; the unfused EDP equals an independent `maeri map --no-fusion --objective edp` (cycles ×
#                    energy by hand); the fused optimum's EDP is no worse than unfused; TransFusion's policy is either
#                    costed or carries the rule that refuses it; the EDP table and its chart are written.
#   fusion_bound     scripts/fusion-bound.py on ResNet-50 / maeri-512: the bound is the sum docs/model.md derives by
#                    hand (51 324 470 compulsory + res3a 2 981 888 + 3 x 925 696 + res4a 1 806 336 + 5 x 802 816
#                    + res5a 1 204 224 = 64 108 086, 0.5542 of unfused) and map's fused decision is not below it;
#                    with outputs written at data width (docs/model.md): 51 324 470 - 2 x 1 000 (fc's outputs)
#                    + res3a 2 007 040 + 3 x 802 816 + res4a 1 003 520 + 5 x 401 408 + res5a 802 816 = 59 551 334,
#                    against the unfused 115 671 936 - 2 x 11 114 984 output elements = 93 441 968: 0.6373.
#   rank_check       scripts/rank-check.py on tiny at 64 MS, top 3: one row per fabric layer (4, tiny.yaml); each
#                    layer's first mapping's RTL cycles equal an independent `maeri verify --layer L --top 1 --memory
#                    dram`; the fastest is no slower than the first and the loss is computed from the two.
#   fusion_rtl_check scripts/fusion-rtl-check.py on tiny at 64 MS with an 8 KiB SDM: one row; its model totals equal
#                    independent `maeri map` runs (fused and --no-fusion) on a hardware file with the SDM set here by
#                    sed, the RTL totals equal the model's (the cross-check is exact), the order columns follow
#                    from the two totals, and the summary counts the row.
#   plot_bars        bars of a hand-written table: one bar per (category, series), heights proportional to the
#                    values, negative values below the zero line.
#   plot_errors      a missing column (names the columns there are), a non-number (names the line), a ragged row,
#                    a bad --where, no rows left: exit 2, no output file.
# Usage: reproduction.sh CASE MAERI SOURCE_DIR
set -u
case_name=$1 maeri=$2 source=$3
expect=$(dirname "$(readlink -f "$0")")/expect_exit.sh
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
configs=$source/configs

# row_value CSV LAYER RANK COLUMN: a field of a `maeri map --csv` table, the column found by name.
row_value() {
  awk -F, -v layer="$2" -v rank="$3" -v name="$4" '
    NR == 1 { for (i = 1; i <= NF; ++i) if ($i == name) c = i; next }
    $1 == layer && $2 == rank { print $c }' "$1"
}

case $case_name in
  reproduce_quick)
    MAERI=$maeri bash "$source/scripts/reproduce-mrna.sh" --quick "$dir/out" >"$dir/log" 2>&1 ||
      { cat "$dir/log"; fail "reproduce-mrna.sh --quick"; }
    for file in table2.csv table2_runtime.csv table2_energy.csv fig7.csv fig7.svg fig8_dn_bw.csv \
                fig8_dn_bw_runtime.svg fig8_dn_bw_energy.svg fig8_num_ms.csv fig8_num_ms_runtime.svg \
                fig8_num_ms_energy.svg; do
      [[ -s $dir/out/$file ]] || fail "$file not written"
    done
    for svg in "$dir"/out/*.svg; do
      [[ $(head -c 4 "$svg") == "<svg" && $(tail -1 "$svg") == "</svg>" ]] || fail "$svg is not a whole SVG document"
    done
    # Six Table II layers, each with two bars in Fig. 7.
    [[ $(($(wc -l <"$dir/out/fig7.csv") - 1)) -eq 6 ]] || fail "fig7.csv does not have the six Table II layers"
    [[ $(grep -c '<rect x=.*<title>' "$dir/out/fig7.svg") -eq 12 ]] || fail "fig7.svg does not have 12 bars"
    hardware=$configs/hardware/maeri-512.yaml
    workload=$configs/workloads/mrna-table2.yaml
    for objective in runtime energy; do
      "$maeri" map --single-level --hardware "$hardware" --workload "$workload" --objective $objective --csv "$dir/$objective.csv" \
        -o "$dir/$objective.yaml" >/dev/null || fail "maeri map --objective $objective"
    done
    for layer in CB3a_2 reduction_1x1 SeqCNN_FC2; do
      best=$(row_value "$dir/runtime.csv" $layer 1 cycles)
      base=$(row_value "$dir/runtime.csv" $layer baseline cycles)
      want_runtime=$(awk -v b="$best" -v a="$base" 'BEGIN { printf "%.2f", 100 * (a - b) / a }')
      best=$(row_value "$dir/energy.csv" $layer 1 energy_pj)
      base=$(row_value "$dir/energy.csv" $layer baseline energy_pj)
      want_energy=$(awk -v b="$best" -v a="$base" 'BEGIN { printf "%.2f", 100 * (a - b) / a }')
      got=$(awk -F, -v l=$layer '$1 == l { print $2 " " $3 }' "$dir/out/fig7.csv")
      [[ $got == "$want_runtime $want_energy" ]] ||
        fail "$layer: fig7.csv has '$got', independent maeri map runs give '$want_runtime $want_energy'"
    done
    # Fig. 8, DN bandwidth 32 on 512 MS: the same as `maeri map` on maeri-512 with dn_bw edited by hand.
    sed 's/^dn_bw: 512 /dn_bw: 32  /' "$hardware" >"$dir/dn32.yaml"
    grep -q '^dn_bw: 32 ' "$dir/dn32.yaml" || fail "could not edit dn_bw in $hardware"
    "$maeri" map --single-level --hardware "$dir/dn32.yaml" --workload "$workload" --layer CB3a_2 --csv "$dir/dn32.csv" \
      -o "$dir/dn32.mapping.yaml" >/dev/null || fail "maeri map on dn_bw 32"
    want=$(awk -v c="$(row_value "$dir/dn32.csv" CB3a_2 1 cycles)" 'BEGIN { printf "%.0f", c }')
    got=$(awk -F, '$1 == "32" { print $2 }' "$dir/out/fig8_dn_bw.csv")
    [[ -n $want && $got == "$want" ]] || fail "fig8_dn_bw.csv at dn_bw 32: '$got' cycles, maeri map gives '$want'"
    ;;
  measure_quick)
    arguments=(--workloads tiny --hardware maeri-64 --runs 2 --budgets 20,60 --train-samples 4 "$dir/out")
    MAERI=$maeri bash "$source/scripts/measure-search.sh" "${arguments[@]}" >"$dir/log" 2>&1 ||
      { cat "$dir/log"; fail "measure-search.sh"; }
    for file in surrogate.json surrogate-train.txt surrogate-check-maeri-64.txt surrogate-check-training-hardware.txt \
                surrogate-check-training-layers-maeri-64.txt optima.csv tiny-maeri-64.csv \
                tiny-maeri-64.runs.csv tiny-maeri-64.svg; do
      [[ -s $dir/out/$file ]] || fail "$file not written"
    done
    runs=$dir/out/tiny-maeri-64.runs.csv
    awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
      { if ($c["ratio"] < 1) { print "a run beats the optimum: " $0; bad = 1 }
        if ($c["evaluations"] > $c["budget"]) { print "a run exceeds its budget: " $0; bad = 1 }
        ++n[$c["layer"]] }
      END { for (l in n) if (n[l] != 32) { print l ": " n[l] " runs, want 32"; bad = 1 }
            if (length(n) != 4) { print length(n) " layers, want tiny'"'"'s 4"; bad = 1 }
            exit bad }' "$runs" || fail "$runs"
    cp "$dir/out/optima.csv" "$dir/optima.before"
    MAERI=$maeri bash "$source/scripts/measure-search.sh" "${arguments[@]}" >"$dir/log2" 2>&1 ||
      { cat "$dir/log2"; fail "measure-search.sh, second call"; }
    ! grep -q "surrogate for the" "$dir/log2" || fail "the second call trained the model again"
    cmp -s "$dir/optima.before" "$dir/out/optima.csv" || fail "the second call changed the cached optima"
    ;;
  fusion_bound)
    python3 "$source/scripts/fusion-bound.py" --maeri "$maeri" > "$dir/bound.log" 2>&1 \
      || fail "the script: $(cat "$dir/bound.log")"
    grep -q "bound 64108086 bytes = 0.5542 of the unfused optimum" "$dir/bound.log" || fail "bound: $(cat "$dir/bound.log")"
    grep -q "data width: bound 59551334 bytes = 0.6373 of the unfused optimum at data width (93441968 = " \
      "$dir/bound.log" || fail "bound at data width: $(cat "$dir/bound.log")"
    fused=$(sed -n 's/.*map.s fused result \([0-9]*\) = .*/\1/p' "$dir/bound.log")
    [[ -n $fused && $fused -ge 64108086 ]] || fail "map below the bound: $(cat "$dir/bound.log")" ;;
  ffm_quick)
    python3 "$source/scripts/ffm-comparison.py" --maeri "$maeri" --models gpt2 --sequences 128 --hardware 512,1024 \
      -o "$dir/ffm" > "$dir/ffm.log" 2>&1 || fail "the script: $(cat "$dir/ffm.log")"
    [[ $(wc -l < "$dir/ffm.csv") == 7 ]] || fail "not 6 rows: $(cat "$dir/ffm.csv")"
    [[ -s $dir/ffm-edp.csv && -s $dir/ffm.svg ]] || fail "no EDP table or chart"
    python3 "$source/scripts/make-transformer-workloads.py" --model gpt2 --sequence 128 -o "$dir/gpt2.yaml"
    "$maeri" map --hardware "$configs/hardware/maeri-512.yaml" --workload "$dir/gpt2.yaml" --no-fusion \
      --objective edp --json "$dir/alone.json" -o "$dir/alone.yaml" > /dev/null || fail "map"
    python3 - "$dir/ffm.csv" "$dir/alone.json" <<'PY' || fail "the CSV disagrees"
import csv, json, sys
rows = {(r["hardware"], r["variant"]): r for r in csv.DictReader(open(sys.argv[1]))}
alone = json.load(open(sys.argv[2]))
edp = alone["total_cycles"] * alone["total_energy_pj"]
assert abs(float(rows["512", "unfused"]["edp"]) - edp) <= 1e-9 * edp, (rows["512", "unfused"], edp)
for hw in ("512", "1024"):
    assert float(rows[hw, "fused_optimum"]["edp"]) <= float(rows[hw, "unfused"]["edp"]) * (1 + 1e-12), hw
    policy = rows[hw, "transfusion"]
    assert policy["edp"] or policy["note"].startswith("refused: "), policy
PY
    ;;
  rank_check)
    python3 "$source/scripts/rank-check.py" --maeri "$maeri" --hardware "$configs/hardware/maeri-64.yaml" \
      --workload "$configs/workloads/tiny.yaml" --top 3 --csv "$dir/rank.csv" > "$dir/rank.log" 2>&1 ||
      fail "the script: $(cat "$dir/rank.log")"
    grep -q "of 4 layers: #1 within 0.5 % of the RTL-fastest of its top 3" "$dir/rank.log" || fail "$(cat "$dir/rank.log")"
    for layer in conv1 fc; do
      "$maeri" verify --hardware "$configs/hardware/maeri-64.yaml" --workload "$configs/workloads/tiny.yaml" \
        --layer $layer --top 1 --memory dram --json "$dir/$layer.json" > /dev/null || fail "verify $layer"
    done
    python3 - "$dir/rank.csv" "$dir/conv1.json" "$dir/fc.json" <<'PY' || fail "the CSV disagrees"
import csv, json, sys
rows = {r["layer"]: r for r in csv.DictReader(open(sys.argv[1]))}
assert list(rows) == ["conv1", "conv2", "conv3_1x1", "fc"], list(rows)
for path in sys.argv[2:]:
    run = json.load(open(path))[0]
    rtl = next(r["rtl"] for r in run["cross_check"] if r["metric"] == "cycles (with DRAM)")
    row = rows[run["layer"]]
    assert int(row["first_rtl_cycles"]) == int(rtl), (row, rtl)
for row in rows.values():
    first, fastest = int(row["first_rtl_cycles"]), int(row["fastest_rtl_cycles"])
    assert fastest <= first and int(row["mappings"]) == 3, row
    assert abs(float(row["loss_percent"]) - 100 * (first / fastest - 1)) < 1e-3, row
PY
    ;;
  fusion_rtl_check)
    python3 "$source/scripts/fusion-rtl-check.py" --maeri "$maeri" --hardware "$configs/hardware/maeri-64.yaml" \
      --workload "$configs/workloads/tiny.yaml" --sdm-kib 8 --csv "$dir/fusion.csv" > "$dir/fusion.log" 2>&1 ||
      fail "the script: $(cat "$dir/fusion.log")"
    grep -q "^1 of 1 SDM sizes: fused never slower on the RTL where the model says it is faster" "$dir/fusion.log" ||
      fail "$(cat "$dir/fusion.log")"
    sed -E 's/^( +capacity_kib: *)[0-9]+/\18/' "$configs/hardware/maeri-64.yaml" > "$dir/sdm8.yaml"
    grep -q "^  capacity_kib: 8 " "$dir/sdm8.yaml" || fail "no 8 KiB hardware: $(grep capacity "$dir/sdm8.yaml")"
    "$maeri" map --hardware "$dir/sdm8.yaml" --workload "$configs/workloads/tiny.yaml" --json "$dir/fused.json" \
      -o "$dir/fused.yaml" > /dev/null || fail "map"
    "$maeri" map --hardware "$dir/sdm8.yaml" --workload "$configs/workloads/tiny.yaml" --no-fusion \
      --json "$dir/unfused.json" -o "$dir/unfused.yaml" > /dev/null || fail "map --no-fusion"
    python3 - "$dir/fusion.csv" "$dir/fused.json" "$dir/unfused.json" <<'PY' || fail "the CSV disagrees"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 1, rows
row = rows[0]
fused, unfused = (json.load(open(path)) for path in sys.argv[2:])
assert int(row["sdm_kib"]) == 8 and int(row["groups"]) == len(fused["fusion"]["groups"]), row
assert int(row["fused_model"]) == int(fused["total_cycles"]), (row, fused["total_cycles"])
assert int(row["unfused_model"]) == int(unfused["total_cycles"]), (row, unfused["total_cycles"])
assert row["fused_rtl"] == row["fused_model"] and row["unfused_rtl"] == row["unfused_model"], row
order = lambda a, b: "fused" if a < b else "unfused" if b < a else "equal"
assert row["model_says"] == order(int(row["fused_model"]), int(row["unfused_model"])), row
assert row["rtl_says"] == order(int(row["fused_rtl"]), int(row["unfused_rtl"])), row
PY
    ;;
  plot_bars)
    printf 'layer,gain,loss\nconv1,10,-5\n"fc,big",20,0\n' >"$dir/t.csv"
    "$expect" 0 --stdout-contains "plot: 2 rows" \
      "$maeri" plot --csv "$dir/t.csv" --x layer --y gain,loss --bars -o "$dir/t.svg" || exit 1
    [[ $(grep -c '<rect x=.*<title>' "$dir/t.svg") -eq 4 ]] || fail "expected 4 bars"
    # The y axis runs from -5 to 20 in ticks of 5 (nice steps): 420 px for 25 units, so 16.8 px per unit.
    height() { grep "<title>$1</title>" "$dir/t.svg" | sed 's/.*height="\([0-9.]*\)".*/\1/'; }
    [[ $(height "conv1 gain: 10") == "168.0" ]] || fail "conv1 gain bar is $(height "conv1 gain: 10") px, want 168.0"
    [[ $(height "fc,big gain: 20") == "336.0" ]] || fail "fc,big gain bar is $(height "fc,big gain: 20") px, want 336.0"
    [[ $(height "conv1 loss: -5") == "84.0" ]] || fail "conv1 loss bar is $(height "conv1 loss: -5") px, want 84.0"
    ;;
  plot_errors)
    printf 'x,y\n1,2\n2,abc\n' >"$dir/bad_number.csv"
    printf 'x,y\n1,2\n2\n' >"$dir/ragged.csv"
    printf 'x,y\n1,2\n' >"$dir/ok.csv"
    "$expect" 2 --stderr-contains "no column named 'z'; the columns are: x, y" \
      "$maeri" plot --csv "$dir/ok.csv" --x x --y z -o "$dir/o.svg" || exit 1
    "$expect" 2 --stderr-contains "bad_number.csv:3" \
      "$maeri" plot --csv "$dir/bad_number.csv" --x x --y y -o "$dir/o.svg" || exit 1
    "$expect" 2 --stderr-contains "expected 2 fields as in the header, found 1" \
      "$maeri" plot --csv "$dir/ragged.csv" --x x --y y -o "$dir/o.svg" || exit 1
    "$expect" 2 --stderr-contains "expected COLUMN=VALUE" \
      "$maeri" plot --csv "$dir/ok.csv" --x x --y y --where x -o "$dir/o.svg" || exit 1
    "$expect" 2 --stderr-contains "no rows to plot (after --where)" \
      "$maeri" plot --csv "$dir/ok.csv" --x x --y y --where x=7 -o "$dir/o.svg" || exit 1
    "$expect" 2 --stderr-contains "missing.csv: cannot open file for reading: No such file or directory" \
      "$maeri" plot --csv "$dir/missing.csv" --x x --y y -o "$dir/o.svg" || exit 1
    [[ ! -e $dir/o.svg ]] || fail "an output file was written"
    ;;
  *) fail "unknown case $case_name" ;;
esac
echo "PASS $case_name"
