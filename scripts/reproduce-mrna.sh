#!/bin/bash
# Regenerates the mRNA paper's comparisons (Zhao et al., ISPASS 2019) with this toolkit's model, into a folder of
# CSV + SVG (docs/reproduction.md puts them next to the paper's figures and explains the differences):
#   table2.csv / table2_{runtime,energy}.csv   Table II: every layer's best mapping against the baseline tile
#                                              (T_R, T_S, 1, T_K, 1, 1, 1) on a 512-MS MAERI with bandwidth 512
#   fig7.csv, fig7.svg                         Fig. 7: runtime and energy improvement over the baseline per layer
#   table2_on_chip*.csv, fig7_on_chip.*        the same with DRAM out of the picture (unbounded bandwidth, no
#                                              DRAM energy), as the paper's comparison
#   fig8_dn_bw.csv, fig8_dn_bw_{runtime,energy}.svg  Fig. 8: CB3a_2 as the DN bandwidth varies (512 MS)
#   fig8_num_ms.csv, fig8_num_ms_{runtime,energy}.svg  Fig. 8: CB3a_2 as the MS count varies (bandwidth = MS count)
# Every number comes from `maeri map` (the exact optimum of the model, exact DN/RN traffic) and `maeri sweep`
# (the hardware points); the plots from `maeri plot`.
# Usage: scripts/reproduce-mrna.sh [--quick] [OUT_DIR]     (default OUT_DIR: reproduction/)
#   --quick   two points per Fig. 8 sweep instead of the full ranges (what CI runs)
# The tool: $MAERI, else build/cli/maeri, else `maeri` on PATH (an installed package).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
quick=false
out=reproduction
for argument in "$@"; do
  case $argument in
    --quick) quick=true ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    -*) echo "reproduce-mrna: unknown option '$argument' (see --help)" >&2; exit 2 ;;
    *) out=$argument ;;
  esac
done
source "$repo/scripts/find-maeri.sh"
find_maeri reproduce-mrna "$repo"
hardware=$repo/configs/hardware/maeri-512.yaml
workload=$repo/configs/workloads/mrna-table2.yaml
if $quick; then dn_bws=(32 512); ms_counts=(64 128)
else dn_bws=(8 16 32 64 128 256 512); ms_counts=(64 128 256 512 1024)
fi
mkdir -p "$out"
work=$out/work
rm -rf "$work"
mkdir -p "$work"

# column NAME FILE: the 1-based index of a CSV column, so the awk programs below read columns by name.
csv_column() { awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == name) { print i; exit } }' "$2"; }

# best_and_baseline CSV LAYER: "<best cycles> <best energy pJ> <best tile> <baseline cycles> <baseline energy pJ>
# <baseline tile>" from a `maeri map --csv` table (rank 1 and the baseline row of the layer).
best_and_baseline() {
  local csv=$1 layer=$2
  awk -F, -v layer="$layer" -v c="$(csv_column cycles "$csv")" -v e="$(csv_column energy_pj "$csv")" '
    $1 == layer && ($2 == "1" || $2 == "baseline") {
      tile = $3 "," $4 "," $5 "," $6 "," $7 "," $8 "," $9
      if ($2 == "1") { best = $c " " $e " " tile } else { base = $c " " $e " " tile }
    }
    END { if (best == "" || base == "") exit 1; print best, base }' "$csv"
}

# table2 SUFFIX HARDWARE TITLE: Table II and Fig. 7 on one hardware spec: table2SUFFIX_{runtime,energy}.csv (the
# `maeri map` tables), table2SUFFIX.csv (best by runtime / by energy against the baseline) and fig7SUFFIX.{csv,svg}.
table2() {
  local suffix=$1 spec=$2 title=$3
  for objective in runtime energy; do
    "$maeri" map --single-level --hardware "$spec" --workload "$workload" --objective "$objective" --top 1 \
      --csv "$out/table2${suffix}_$objective.csv" -o "$work/table2${suffix}_$objective.mapping.yaml" \
      >"$work/table2${suffix}_$objective.txt"
  done
  local table=$work/table2$suffix.csv fig=$work/fig7$suffix.csv layer
  echo "layer,runtime_tile,cycles,baseline_tile,baseline_cycles,runtime_improvement_pct,energy_tile,energy_pj,baseline_energy_pj,energy_improvement_pct" \
    >"$table"
  echo "layer,runtime_improvement_pct,energy_improvement_pct" >"$fig"
  for layer in $(awk -F, 'NR > 1 && $2 == "1" { print $1 }' "$out/table2${suffix}_runtime.csv"); do
    read -r rc _ rtile bc _ btile < <(best_and_baseline "$out/table2${suffix}_runtime.csv" "$layer")
    read -r _ ee etile _ be _ < <(best_and_baseline "$out/table2${suffix}_energy.csv" "$layer")
    awk -v l="$layer" -v rt="$rtile" -v rc="$rc" -v bt="$btile" -v bc="$bc" -v et="$etile" -v ee="$ee" -v be="$be" \
        -v table="$table" -v fig="$fig" 'BEGIN {
      runtime = 100 * (bc - rc) / bc; energy = 100 * (be - ee) / be
      printf "%s,\"%s\",%.0f,\"%s\",%.0f,%.2f,\"%s\",%.1f,%.1f,%.2f\n", l, rt, rc, bt, bc, runtime, et, ee, be, energy >>table
      printf "%s,%.2f,%.2f\n", l, runtime, energy >>fig }'
  done
  mv "$table" "$out/table2$suffix.csv"
  mv "$fig" "$out/fig7$suffix.csv"
  "$maeri" plot --csv "$out/fig7$suffix.csv" --x layer --y runtime_improvement_pct,energy_improvement_pct --bars \
    --title "mRNA mappings vs the baseline tile, $title" --y-label "improvement over baseline (%)" \
    -o "$out/fig7$suffix.svg" >/dev/null
}
echo "== Table II and Fig. 7 on $(basename "$hardware"), and with memory out of the picture"
table2 "" "$hardware" "$(basename "$hardware" .yaml)"
# The paper's comparison leaves DRAM out: the same fabric with a DRAM that is never the bottleneck and costs no
# energy (on-chip energy only), written by `maeri sweep` as a hardware point.
"$maeri" sweep --single-level --hardware "$hardware" --workload "$workload" --set dram.bytes_per_cycle=4096 \
  --set energy_pj.dram_byte=0 -o "$work/on_chip" >"$work/on_chip.txt"
table2 _on_chip "$work/on_chip/points/0001.yaml" "on-chip only (DRAM unbounded, no DRAM energy)"

# fig8 NAME FIELD VALUES...: CB3a_2 at each hardware point (`maeri sweep` writes the point's spec), best mapping by
# runtime against the baseline tile on that point.
fig8() {
  local name=$1 field=$2
  shift 2
  local csv=$work/fig8_$name.csv
  echo "$field,cycles,baseline_cycles,energy_uj,baseline_energy_uj,tile,baseline_tile" >"$csv"
  for value in "$@"; do
    local settings=(--set "$field=$value")
    # The MS sweep keeps the fabric's full bandwidth (dn_bw = rn_bw = num_ms), as the paper's 512 MS / BW 512.
    [[ $field == num_ms ]] && settings+=(--set "dn_bw=$value" --set "rn_bw=$value")
    local point=$work/fig8_${name}_$value
    "$maeri" sweep --single-level --hardware "$hardware" --workload "$workload" "${settings[@]}" -o "$point" >"$point.txt"
    "$maeri" map --single-level --hardware "$point/points/0001.yaml" --workload "$workload" --layer CB3a_2 --top 1 \
      --csv "$point/map.csv" -o "$point/mapping.yaml" >"$point/map.txt"
    read -r c e tile bc be btile < <(best_and_baseline "$point/map.csv" CB3a_2)
    awk -v v="$value" -v c="$c" -v bc="$bc" -v e="$e" -v be="$be" -v t="$tile" -v bt="$btile" \
      'BEGIN { printf "%s,%.0f,%.0f,%.3f,%.3f,\"%s\",\"%s\"\n", v, c, bc, e / 1e6, be / 1e6, t, bt }' >>"$csv"
  done
  mv "$csv" "$out/fig8_$name.csv"
  "$maeri" plot --csv "$out/fig8_$name.csv" --x "$field" --y cycles,baseline_cycles --lines --log-x --log-y \
    --title "CB3a_2: runtime vs $field" --y-label cycles -o "$out/fig8_${name}_runtime.svg" >/dev/null
  "$maeri" plot --csv "$out/fig8_$name.csv" --x "$field" --y energy_uj,baseline_energy_uj --lines --log-x \
    --title "CB3a_2: energy vs $field" --y-label "energy (µJ)" -o "$out/fig8_${name}_energy.svg" >/dev/null
}
echo "== Fig. 8: CB3a_2 vs DN bandwidth (${dn_bws[*]}) and MS count (${ms_counts[*]})"
fig8 dn_bw dn_bw "${dn_bws[@]}"
fig8 num_ms num_ms "${ms_counts[@]}"
rm -rf "$work"

# show CSV: a table on the terminal (quoted tiles' commas become spaces; `column` if installed).
show() {
  awk '{ line = ""; inside = 0
         for (i = 1; i <= length($0); ++i) {
           ch = substr($0, i, 1)
           if (ch == "\"") inside = !inside; else if (ch == "," && inside) line = line " "; else line = line ch
         }
         print line }' "$1" | (column -s, -t 2>/dev/null || tr , '\t')
}
echo
echo "Table II (best by runtime for cycles, best by energy for energy; improvement over the baseline tile, %):"
show "$out/table2.csv"
echo
echo "Table II on chip only (DRAM unbounded, no DRAM energy):"
show "$out/table2_on_chip.csv"
for name in dn_bw num_ms; do
  echo
  echo "Fig. 8, CB3a_2 against $name (best by runtime):"
  show "$out/fig8_$name.csv"
done
echo "wrote $out/: table2{,_on_chip}.csv table2{,_on_chip}_{runtime,energy}.csv fig7{,_on_chip}.{csv,svg} fig8_dn_bw.csv" \
     "fig8_dn_bw_{runtime,energy}.svg fig8_num_ms.csv fig8_num_ms_{runtime,energy}.svg"
