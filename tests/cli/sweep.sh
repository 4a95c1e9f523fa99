#!/bin/bash
# CLI tests of `maeri sweep` (docs/sweep.md): a small grid equals independent `maeri map` runs point by point (each
# point's hardware file, written by the sweep, mapped on its own: tiles, fused groups, totals; --no-fusion against
# `map --no-fusion`); an invalid point is named, the others still run and are written, exit 2 (0 with
# --skip-invalid); an empty grid is refused. With 2 MPI ranks, the sweep's outputs equal a single process's byte for
# byte. --verify: a fused point's decision co-simulated equals an independent `maeri verify --chain` of the point's
# hardware file, an unfused point's layers independent `maeri verify` runs (outputs compared, compute cycles of model
# and RTL); a point past --timeout is ERROR, exit 3.
# Usage: sweep.sh CASE MAERI CONFIGS_DIR [MPIEXEC]   (exit 77 = skipped)
set -u
source "$(dirname "$(readlink -f "$0")")/require_mpi.sh"
case_name=$1 maeri=$2 configs=$3 mpiexec=${4:-}
expect=$(dirname "$(readlink -f "$0")")/expect_exit.sh
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
sweep=("$maeri" sweep --hardware "$configs/hardware/maeri-64.yaml" --workload "$configs/workloads/tiny.yaml")

case $case_name in
  matches_map|matches_map_no_fusion)
    fusion=(); [[ $case_name == matches_map_no_fusion ]] && fusion=(--no-fusion)
    "$expect" 0 --stdout-contains "4 points: 4 evaluated, 0 invalid" \
      "${sweep[@]}" --set num_ms=32,64 --set dn_bw=8,16 --objective runtime "${fusion[@]}" -o "$dir/out" || exit 1
    for file in sweep.csv sweep_layers.csv sweep.json pareto.svg runtime_vs_num_ms.svg energy_vs_dn_bw.svg; do
      [[ -s $dir/out/$file ]] || fail "$file not written"
    done
    fused_points=0
    for point in 1 2 3 4; do
      spec=$(printf '%s/out/points/%04d.yaml' "$dir" "$point")
      "$maeri" map --hardware "$spec" --workload "$configs/workloads/tiny.yaml" --objective runtime "${fusion[@]}" \
        -o "$dir/m$point.yaml" --json "$dir/m$point.json" >/dev/null || fail "maeri map of point $point"
      # Totals: map's JSON ("total_cycles": C, "total_energy_pj": E) against sweep.csv (point,"label",num_ms,dn_bw,
      # status,cycles,energy_pj,...), compared as numbers (both print the shortest exact decimal of the double).
      for pair in "total_cycles 6" "total_energy_pj 7"; do
        set -- $pair
        from_map=$(sed -n "s/^  \"$1\": \([0-9.e+-]*\),\{0,1\}\$/\1/p" "$dir/m$point.json")
        from_sweep=$(awk -F, -v p="$point" -v c="$2" '$1 == p { print $c }' "$dir/out/sweep.csv")
        awk -v a="$from_map" -v b="$from_sweep" 'BEGIN { exit !(a != "" && a + 0 == b + 0) }' ||
          fail "point $point: $1 is ${from_map:-missing} in maeri map, ${from_sweep:-missing} in the sweep"
      done
      # Each layer's tile is the one `maeri map` chose (mapping file "tile: {T_R: 3, ...}", in layer order).
      map_tiles=$(grep 'tile: {' "$dir/m$point.yaml" | sed 's/[^0-9,]//g')
      sweep_tiles=$(awk -F, -v p="$point" '$1 == p { printf "%s,%s,%s,%s,%s,%s,%s\n", $3,$4,$5,$6,$7,$8,$9 }' \
        "$dir/out/sweep_layers.csv")
      [[ -n $map_tiles && $map_tiles == "$sweep_tiles" ]] ||
        fail "point $point: tiles differ: map $map_tiles, sweep $sweep_tiles"
      # Fused groups: the mapping file's ("  - name: G" then "    layers: [a, b]") as layer=group pairs, against
      # sweep_layers.csv's group column (12th: point,layer,7 tile fields,cycles,energy_pj,group).
      map_groups=$(awk '/^fused_groups:/ { on = 1 } on && /^  - name:/ { g = $3 }
        on && /^    layers:/ { gsub(/[][,]/, " "); for (i = 2; i <= NF; ++i) print $i "=" g }' "$dir/m$point.yaml" | sort)
      sweep_groups=$(awk -F, -v p="$point" '$1 == p && $12 != "" { print $2 "=" $12 }' "$dir/out/sweep_layers.csv" | sort)
      [[ $map_groups == "$sweep_groups" ]] ||
        fail "point $point: fused groups differ: map '${map_groups//$'\n'/ }', sweep '${sweep_groups//$'\n'/ }'"
      [[ -n $map_groups ]] && fused_points=$((fused_points + 1))
    done
    # The grid exercises fusion: map fuses tiny at 3 of these 4 points today (its "fusion:" line); --no-fusion at none.
    if [[ $case_name == matches_map_no_fusion ]]; then
      [[ $fused_points == 0 ]] || fail "$fused_points points have fused groups under --no-fusion"
    else
      [[ $fused_points -ge 1 ]] || fail "no point has a fused group: the sweep does not exercise fusion"
    fi ;;
  invalid_point)
    "$expect" 2 --stdout-contains "invalid: point 2 (num_ms=32 dn_bw=64)" \
      "${sweep[@]}" --set num_ms=32,64 --set dn_bw=16,64 -o "$dir/out" || exit 1
    grep -q '^2,"num_ms=32 dn_bw=64",32,64,invalid' "$dir/out/sweep.csv" || fail "invalid point not in sweep.csv"
    [[ $(grep -c ',ok,' "$dir/out/sweep.csv") == 3 ]] || fail "the three valid points are not all in sweep.csv"
    "$expect" 0 --stdout-contains "3 evaluated, 1 invalid" \
      "${sweep[@]}" --set num_ms=32,64 --set dn_bw=16,64 --skip-invalid -o "$dir/out2" || exit 1 ;;
  empty_grid)
    "$expect" 2 --stderr-contains "empty grid" "${sweep[@]}" -o "$dir/out" || exit 1
    "$expect" 2 --stderr-contains "'kind'" "${sweep[@]}" --grid "$configs/workloads/tiny.yaml" -o "$dir/out" || exit 1 ;;
  mpi_equal_single)
    require_mpi "$mpiexec"
    grid=(--set num_ms=8:64:x2 --set dn_bw=4,16 --skip-invalid)  # 8 points; dn_bw 16 > num_ms 8 is invalid
    # Same relative output folder in both runs (invalid points' messages name their point files).
    mkdir "$dir/single" "$dir/mpi"
    (cd "$dir/single" && "${sweep[@]}" "${grid[@]}" -o out >/dev/null) || fail "single-process sweep"
    (cd "$dir/mpi" && "$expect" 0 --stdout-contains "2 rank(s)" \
      "$mpiexec" --oversubscribe --allow-run-as-root -np 2 "${sweep[@]}" "${grid[@]}" -o out) || exit 1
    for file in sweep.csv sweep_layers.csv sweep.json pareto.svg runtime_vs_num_ms.svg points/0001.yaml points/0008.yaml; do
      cmp -s "$dir/single/out/$file" "$dir/mpi/out/$file" || fail "$file differs between 1 process and 2 MPI ranks"
    done ;;
  verify)
    # Two points on the prebuilt 64-MS fabric (the grid changes an energy, not the fabric); runtime, as verify ranks.
    # map's decision fuses (cli_sweep_matches_map), so each point runs chained: compared with `verify --chain`.
    "$expect" 0 --stdout-contains "2 of 2 points pass" \
      "${sweep[@]}" --set energy_pj.multiply=0.8,1.6 --objective runtime --verify --jobs 2 -o "$dir/out" || exit 1
    [[ $(grep -c ',PASS$' "$dir/out/sweep.csv") == 2 ]] || fail "sweep.csv: both points should be PASS"
    grep -q '"group"' "$dir/out/sweep.json" || fail "sweep.json: the points have no fused group"
    "$maeri" verify --chain --hardware "$dir/out/points/0001.yaml" --workload "$configs/workloads/tiny.yaml" \
      --json "$dir/chain.json" >/dev/null || fail "maeri verify --chain of point 1"
    for layer in conv1 conv2 conv3_1x1 fc; do
      # The chain's JSON (docs/cosim.md): per operator "operator", "where", "result" and its "cross_check" rows
      # {"metric": "cycles (compute)", "model": M, "rtl": R}.
      want=$(python3 -c 'import json, sys
run = json.load(open(sys.argv[1]))
op = [o for o in run["operators"] if o["operator"] == sys.argv[2] and o["where"] == "fabric"][0]
row = [r for r in op["cross_check"] if r["metric"] == "cycles (compute)"][0]
print("%s,%g,%g" % (op["result"], row["model"], row["rtl"]))' "$dir/chain.json" "$layer") ||
        fail "chain.json has no fabric run of $layer"
      got=$(awk -F, -v l=$layer '$1 == 1 && $2 == l { printf "%s,%g,%g", $13, $17, $18 }' "$dir/out/sweep_layers.csv")
      [[ -n $want && $got == "$want" ]] || fail "$layer: sweep has '$got', maeri verify --chain gives '$want'"
    done
    "$expect" 3 --stdout-contains "timed out" \
      "${sweep[@]}" --set energy_pj.multiply=0.8 --verify --timeout 0.001 -o "$dir/late" || exit 1
    grep -q ',ERROR$' "$dir/late/sweep.csv" || fail "the timed-out point is not ERROR in sweep.csv" ;;
  verify_no_fusion)
    "$expect" 0 --stdout-contains "2 of 2 points pass" \
      "${sweep[@]}" --set energy_pj.multiply=0.8,1.6 --objective runtime --no-fusion --verify --jobs 2 -o "$dir/out" ||
      exit 1
    [[ $(grep -c ',PASS$' "$dir/out/sweep.csv") == 2 ]] || fail "sweep.csv: both points should be PASS"
    "$maeri" verify --hardware "$dir/out/points/0001.yaml" --workload "$configs/workloads/tiny.yaml" \
      --csv "$dir/verify.csv" >/dev/null || fail "maeri verify of point 1"
    for layer in conv1 conv2 conv3_1x1 fc; do
      # verify.csv: layer,"tile",result,metric,model,rtl,error,error_percent (the tile quoted with commas inside).
      want=$(grep "^$layer,.*,PASS,cycles (compute)," "$dir/verify.csv" | awk -F, '{ print $(NF-3) "," $(NF-2) }')
      got=$(awk -F, -v l=$layer '$1 == 1 && $2 == l { print $13 "," $17 "," $18 }' "$dir/out/sweep_layers.csv")
      [[ -n $want && $got == "PASS,$want" ]] || fail "$layer: sweep has '$got', maeri verify gives 'PASS,$want'"
    done ;;
  *) fail "unknown case $case_name" ;;
esac
echo PASS
