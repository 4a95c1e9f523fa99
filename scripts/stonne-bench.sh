#!/usr/bin/env bash
# A paired benchmark of the co-simulation against STONNE (the public cycle-level MAERI simulator,
# github.com/stonne-simulator/stonne): the same conv layers with the same tile on the same MAERI (64 multiplier
# switches, dn_bw 8, rn_bw 8), `maeri verify --memory ideal` (Verilated RTL, every output checked) against
# `stonne -CONV`, run in turn (A B A B …, so both see the same machine load), each run's CPU time (user + system
# of the whole process, /usr/bin/time) recorded. Prints per layer both tools' median CPU seconds, STONNE's cycle
# count and ours, and the ratio (ours / STONNE's: below 1 is faster). A benchmark, not a test.
#
#   scripts/stonne-bench.sh STONNE_GIT_DIR [RUNS]
#     STONNE_GIT_DIR  a git directory of STONNE's repository (a clone's .git, or a bare mirror); its HEAD's
#                     stonne/ folder is exported and built with its own Makefile (make -C stonne)
#     RUNS            runs of each tool per layer (default 5)
#   MAERI=path/to/maeri (default: build/cli/maeri of this checkout); WORK=directory (default: a new temporary one;
#   a WORK where STONNE was built before is reused); LAYERS="32 64" (default) chooses the layers by C = K.
# The 64-MS fabric with dn_bw 8 is not prebuilt: the first maeri run builds it into the fabric cache (untimed).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
git_dir="${1:?usage: scripts/stonne-bench.sh STONNE_GIT_DIR [RUNS]}"
runs="${2:-5}"
maeri="${MAERI:-$here/build/cli/maeri}"
work="${WORK:-$(mktemp -d /tmp/stonne-bench.XXXXXX)}"
[ -x "$maeri" ] || { echo "stonne-bench: no maeri at $maeri (build it, or set MAERI)" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "stonne-bench: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }

# The hardware both tools model, the tile both use (T_R T_S T_C T_K T_N T_X' T_Y' = 3 3 1 2 1 1 2: 4 VNs of 9 switches;
# STONNE needs each tile size to divide its dimension and one switch more per VN, tile product + VNs <= num_ms), and
# the layers (3×3, stride 1, no padding — STONNE
# has none — so a 30×30 input gives 28×28 outputs): C = K = 32 and 64.
num_ms=64 dn_bw=8 rn_bw=8
tile=(3 3 1 2 1 1 2)
read -r -a layers <<<"${LAYERS:-32 64}"  # LAYERS="32": only C = K = 32

mkdir -p "$work"
if [ -x "$work/stonne/stonne" ]; then  # a WORK of an earlier call: its build is reused
  echo "stonne-bench: STONNE already built in $work/stonne"
else
  echo "stonne-bench: building STONNE ($(git --git-dir="$git_dir" log -1 --format='%h %s' HEAD)) in $work/stonne"
  git --git-dir="$git_dir" archive HEAD stonne | tar -x -C "$work"
  make -C "$work/stonne" -j"$(nproc)" >"$work/stonne-build.log" 2>&1 || {
    echo "stonne-bench: STONNE's build failed, see $work/stonne-build.log" >&2
    exit 1
  }
fi

sed -e "s/^name: .*/name: maeri-64-dn8/" -e "s/^dn_bw: .*/dn_bw: $dn_bw/" -e "s/^rn_bw: .*/rn_bw: $rn_bw/" \
  -e "s/^  lanes: .*/  lanes: $rn_bw/" "$here/configs/hardware/maeri-64.yaml" >"$work/hardware.yaml"

# CPU seconds (user + system) of one command, its output appended to $work/runs.log.
cpu_seconds() {
  /usr/bin/time -f "%U %S" -o "$work/time.txt" "$@" >>"$work/runs.log" 2>&1
  awk '{ print $1 + $2 }' "$work/time.txt"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf "%-22s %12s %12s %12s %12s %8s\n" layer "maeri CPU s" "STONNE CPU s" "maeri cycles" "STONNE cyc." ratio
for channels in "${layers[@]}"; do
  name="conv3x3_c${channels}"
  cat >"$work/$name.yaml" <<EOF
kind: workload
name: $name
batch: 1
layers:
  - {name: $name, type: conv, K: $channels, C: $channels, R: 3, S: 3, X: 30, Y: 30, stride: 1, padding: 0, X_out: 28, Y_out: 28}
EOF
  cat >"$work/$name.mapping.yaml" <<EOF
kind: mapping
hardware: {name: maeri-64-dn8, num_ms: $num_ms, dn_bw: $dn_bw, rn_bw: $rn_bw}
workload: $name
objective: runtime
layers:
  - name: $name
    shape: {type: conv, N: 1, K: $channels, C: $channels, R: 3, S: 3, X: 30, Y: 30, stride_x: 1, stride_y: 1, padding_x: 0, padding_y: 0, dilation_x: 1, dilation_y: 1, groups: 1}
    tile: {T_R: ${tile[0]}, T_S: ${tile[1]}, T_C: ${tile[2]}, T_K: ${tile[3]}, T_N: ${tile[4]}, T_X: ${tile[5]}, T_Y: ${tile[6]}}
    predicted_cycles: 0
    predicted_energy_pj: 0
EOF
  ours=("$maeri" verify --hardware "$work/hardware.yaml" --workload "$work/$name.yaml" --mapping "$work/$name.mapping.yaml"
        --memory ideal --json "$work/$name.json")
  theirs=("$work/stonne/stonne" -CONV -layer_name="$name" -R=3 -S=3 -C="$channels" -G=1 -K="$channels" -N=1 -X=30 -Y=30
          -strides=1 -T_R="${tile[0]}" -T_S="${tile[1]}" -T_C="${tile[2]}" -T_G=1 -T_K="${tile[3]}" -T_N="${tile[4]}"
          -T_X_="${tile[5]}" -T_Y_="${tile[6]}" -num_ms=$num_ms -dn_bw=$dn_bw -rn_bw=$rn_bw)
  # Warm-up, untimed: builds the fabric on first use, checks both tools accept the layer.
  "${ours[@]}" >"$work/$name.maeri.txt" 2>&1 || { echo "stonne-bench: maeri failed, see $work/$name.maeri.txt" >&2; exit 1; }
  (cd "$work" && "${theirs[@]}") >"$work/$name.stonne.txt" 2>&1 || {
    echo "stonne-bench: STONNE failed, see $work/$name.stonne.txt" >&2
    exit 1
  }
  : >"$work/$name.ours" && : >"$work/$name.theirs"
  for ((run = 0; run < runs; ++run)); do
    cpu_seconds "${ours[@]}" >>"$work/$name.ours"
    (cd "$work" && cpu_seconds "${theirs[@]}") >>"$work/$name.theirs"
  done
  ours_cpu=$(median <"$work/$name.ours")
  theirs_cpu=$(median <"$work/$name.theirs")
  ours_cycles=$(python3 -c 'import json, sys
rows = json.load(open(sys.argv[1]))[0]["cross_check"]
print(next(int(r["rtl"]) for r in rows if r["metric"] == "cycles (compute)"))' "$work/$name.json" || echo "?")
  # STONNE's newest statistics file of the layer (one per run; under pipefail a pipe that stops reading early fails,
  # so one file is read whole).
  stats=$(ls -t "$work"/output_stats_layer_"$name"_*.txt 2>/dev/null | head -n 1 || true)
  theirs_cycles=$( { [ -n "$stats" ] && grep -m1 -o '"N_cycles" *: *[0-9]*' "$stats" | grep -o '[0-9]*$'; } || echo "?")
  printf "%-22s %12.3f %12.3f %12s %12s %8.3f\n" "$name" "$ours_cpu" "$theirs_cpu" "$ours_cycles" "$theirs_cycles" \
    "$(awk -v a="$ours_cpu" -v b="$theirs_cpu" 'BEGIN { print a / b }')"
done
echo "(median of $runs alternating runs each; CPU = user + system seconds of the whole process; files in $work)"
