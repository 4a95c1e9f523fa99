#!/bin/bash
# CLI tests of the heuristic searches (docs/search.md): `maeri map --search` finds the exhaustive search's best EDP
# on tiny's layers with enough budget and reproduces itself for a seed, and holds a depthwise layer's groups side by
# side (T_G, also in the CSV; bit-exact on the RTL with the model's cycles); `maeri surrogate train` writes a model
# that `map` uses and that a search of another space refuses (exit 2); `maeri explore` writes its CSVs and plot, never
# spends more than a budget, never reports a run better than the optimum, and gives the same runs on any thread
# count.
# Usage: search.sh CASE MAERI CONFIGS_DIR
set -u
case_name=$1 maeri=$2 configs=$3
expect=$(dirname "$(readlink -f "$0")")/expect_exit.sh
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
hw=$configs/hardware/maeri-64.yaml
tiny=$configs/workloads/tiny.yaml
map=("$maeri" map --hardware "$hw" --workload "$tiny" --two-level --objective edp)
# "total_cycles" and "total_energy_pj" of a map JSON file.
totals() { sed -n 's/^  "total_\(cycles\|energy_pj\)": \([0-9.e+-]*\),\{0,1\}$/\2/p' "$1" | tr '\n' ' '; }

case $case_name in
  map_methods)
    # Layers whose optimum these budgets find (with 2 × 1500 evaluations random search misses conv2's optimum and,
    # since map ranks by exact cycles with DRAM, conv3_1x1's: 230 cycles for its costed mappings' best, 228 exhaustive).
    for pair in "conv2 sa" "conv2 ga" "conv3_1x1 sa"; do
      set -- $pair
      "${map[@]}" --layer $1 -o "$dir/exhaustive.yaml" --json "$dir/exhaustive.json" >/dev/null || fail "exhaustive map"
      "$expect" 0 --stdout-contains "$2 search, 2 run(s) of at most 1500 evaluations" \
        "${map[@]}" --layer $1 --search $2 --budget 1500 --runs 2 --seed 3 -o "$dir/$2.yaml" --json "$dir/$2.json" ||
        exit 1
      [[ $(totals "$dir/$2.json") == "$(totals "$dir/exhaustive.json")" ]] ||
        fail "$1, $2: totals $(totals "$dir/$2.json") differ from the exhaustive search's $(totals "$dir/exhaustive.json")"
    done
    ;;
  map_groups)
    # T_G in a heuristic search and in the CSV: the depthwise layer's list holds mappings with groups side by side
    # (ranked by exact cycles, its #1 may hold one group), in a T_G column after T_Y; the CSV of a workload without
    # grouped layers keeps its columns.
    "$maeri" map --hardware "$hw" --workload "$configs/workloads/mobilenetv2.yaml" --layer block16_depthwise \
      --search sa --budget 300 --csv "$dir/dw.csv" -o "$dir/dw.yaml" >/dev/null || fail "depthwise map"
    head -1 "$dir/dw.csv" | grep -q '^layer,rank,T_R,T_S,T_C,T_K,T_N,T_X,T_Y,T_G,vn_size,' ||
      fail "no T_G column after T_Y: $(head -1 "$dir/dw.csv")"
    awk -F, 'NR > 1 && $10 > 1 { found = 1 } END { exit !found }' "$dir/dw.csv" ||
      fail "no mapping of the depthwise layer's list has T_G > 1: $(sed -n 2p "$dir/dw.csv")"
    # The mapping file names T_G when its mapping holds several groups (T_G = 1 is the default it leaves out).
    if awk -F, '$2 == "1" && $10 > 1 { found = 1 } END { exit !found }' "$dir/dw.csv"; then
      grep -q 'T_G: ' "$dir/dw.yaml" || fail "the mapping file lacks T_G"
    else
      grep -q 'T_G: ' "$dir/dw.yaml" && fail "the mapping file names T_G for a mapping of one group"
    fi
    # That mapping on the RTL with DRAM: bit-exact, and its cycles with DRAM are the model's (the memory replay).
    "$expect" 0 --stdout-contains "largest cycle error: compute 0.00%, with DRAM 0.00%" \
      "$maeri" verify --hardware "$hw" --workload "$configs/workloads/mobilenetv2.yaml" --mapping "$dir/dw.yaml" \
      --layer block16_depthwise --memory both || exit 1
    "${map[@]}" --search ga --budget 50 --csv "$dir/tiny.csv" -o "$dir/tiny.yaml" >/dev/null || fail "tiny map"
    head -1 "$dir/tiny.csv" | grep -q '^layer,rank,T_R,T_S,T_C,T_K,T_N,T_X,T_Y,vn_size,' ||
      fail "tiny's CSV columns changed: $(head -1 "$dir/tiny.csv")"
    ;;
  map_reproducible)
    for run in 1 2; do
      "${map[@]}" --search sa --budget 200 --seed 9 --warm-start similar -o "$dir/sa$run.yaml" >/dev/null || fail "run $run"
    done
    cmp -s "$dir/sa1.yaml" "$dir/sa2.yaml" || fail "two runs with seed 9 wrote different mappings"
    ;;
  surrogate)
    "$expect" 0 --stdout-contains "training error" \
      "$maeri" surrogate train --hardware "$hw" --workload "$tiny" --samples 200 -o "$dir/model.json" || exit 1
    grep -q '"format": "maeri-surrogate"' "$dir/model.json" || fail "model file lacks its format"
    "$expect" 0 --stdout-contains "surrogate search, 1 run(s) of at most 300 evaluations" \
      "${map[@]}" --details --search surrogate --model "$dir/model.json" --budget 300 -o "$dir/s.yaml" || exit 1
    "$expect" 2 --stderr-contains "trained for the two-level space with objective edp; this search is two-level with objective runtime" \
      "$maeri" map --hardware "$hw" --workload "$tiny" --two-level --search surrogate --model "$dir/model.json" \
      -o "$dir/r.yaml" || exit 1
    "$expect" 2 --stderr-contains "needs a model file" "${map[@]}" --search surrogate -o "$dir/r.yaml" || exit 1
    "$expect" 0 --stdout-contains "mean |ln predicted - ln model|" \
      "$maeri" surrogate check --model "$dir/model.json" --hardware "$configs/hardware/maeri-256.yaml" \
      --workload "$tiny" --samples 50 || exit 1
    echo '{"format": "maeri-surrogate", "version": 7}' > "$dir/old.json"
    "$expect" 2 --stderr-contains "expected version 1, found 7" \
      "${map[@]}" --search surrogate --model "$dir/old.json" -o "$dir/r.yaml" || exit 1
    ;;
  explore)
    "$maeri" explore --hardware "$hw" --workload "$tiny" --methods random,sa,ga --budgets 20,150 --runs 3 \
      --warm-start previous --pareto --optimum-cache "$dir/optima.csv" -o "$dir/x" >"$dir/x.out" 2>&1 ||
      { cat "$dir/x.out"; fail "explore"; }
    grep -qF "summary: $dir/x.csv" "$dir/x.out" || fail "explore does not name its summary"
    # The workload's warm-start totals are the sums of the summary's per-layer medians at the largest budget over
    # the layers after the first (each has the previous layer as its source): recomputed here from x.csv.
    for method in random sa ga; do
      want=$(awk -F, -v m=$method 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
        $c["method"] == m && $c["warm_start"] == "previous" && $c["budget"] == 150 && $c["layer"] != "conv1" {
          cold += $c["cold_median_samples_to_99.5"]; warm += $c["median_samples_to_99.5"]; ++n }
        END { printf "%d layers cold %.0f warm %.0f", n, cold, warm }' "$dir/x.csv")
      got=$(grep -E "^  $method +[0-9]+ layers" "$dir/x.out" | sed 's/^ *[a-z]* *//; s/  */ /g; s/ (.*//')
      [[ $got == "$want" ]] || fail "explore's warm-start total for $method: '$got', from x.csv '$want'"
    done
    for file in x.csv x.runs.csv x.svg x.pareto.csv optima.csv; do [[ -s $dir/$file ]] || fail "$file not written"; done
    # 4 layers × 3 methods × (cold, warm) × 2 budgets × 3 runs; evaluations (column 7) never above the budget (4).
    [[ $(tail -n +2 "$dir/x.runs.csv" | wc -l) == 144 ]] || fail "expected 144 runs in x.runs.csv"
    awk -F, 'NR > 1 && $7 > $4 { bad = 1 } END { exit bad }' "$dir/x.runs.csv" || fail "a run exceeded its budget"
    # Best found ≥ the optimum (ratio column 11 ≥ 1).
    awk -F, 'NR > 1 && $11 < 1 { bad = 1 } END { exit bad }' "$dir/x.runs.csv" || fail "a run beat the optimum"
    grep -q '<svg' "$dir/x.svg" || fail "x.svg is not SVG"
    # The cached optima are reused: the second run does no exhaustive search.
    "$expect" 0 --stdout-contains "(from $dir/optima.csv)" \
      "$maeri" explore --hardware "$hw" --workload "$tiny" --layer conv1 --methods ga --budgets 10 --runs 1 \
      --optimum-cache "$dir/optima.csv" -o "$dir/y" || exit 1
    # The same runs on one thread and on two (every run seeded on its own): equal but for the seconds column.
    for threads in 1 2; do
      "$maeri" explore --hardware "$hw" --workload "$tiny" --layer conv2 --methods sa,ga --budgets 50 --runs 4 \
        --threads $threads --optimum-cache "$dir/optima.csv" -o "$dir/t$threads" >/dev/null || fail "threads $threads"
      cut -d, -f1-14 "$dir/t$threads.runs.csv" > "$dir/t$threads.cut"
    done
    cmp -s "$dir/t1.cut" "$dir/t2.cut" || fail "explore on 1 and 2 threads gave different runs"
    # A cached optimum that a run beats was made by another model: explore stops and names the file.
    awk -F, 'BEGIN { OFS = "," } NR > 1 { $2 = "1e300" } { print }' "$dir/optima.csv" > "$dir/stale.csv"
    "$expect" 2 --stderr-contains "stale.csv: field 'optimum'" \
      "$maeri" explore --hardware "$hw" --workload "$tiny" --layer conv1 --methods ga --budgets 10 --runs 1 \
      --optimum-cache "$dir/stale.csv" -o "$dir/s" || exit 1
    "$expect" 2 --stderr-contains "unknown method 'hill'" \
      "$maeri" explore --hardware "$hw" --workload "$tiny" --methods hill -o "$dir/z" || exit 1
    ;;
  *) fail "unknown case $case_name" ;;
esac
