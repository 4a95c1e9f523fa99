#!/bin/bash
# CLI tests of fused groups on the RTL (docs/cosim.md, "Fused groups"): `maeri map` fuses a small inverted residual
# (tests/cli/inverted-residual.yaml) on maeri-64, and `maeri verify --chain --mapping` runs the group fused — every
# tensor bit-exact, each member and the group cross-checked with every row exact (text and JSON) — in one process, over
# --jobs, and over MPI ranks with the same outputs; a mapping file whose group breaks a rule exits 2 naming the group.
# Usage: fused_chain.sh CASE MAERI CONFIGS_DIR [MPIEXEC]   (exit 77 = skipped)
set -u
source "$(dirname "$(readlink -f "$0")")/require_mpi.sh"
case_name=$1 maeri=$2 configs=$3 mpiexec=${4:-}
here=$(dirname "$(readlink -f "$0")")
expect=$here/expect_exit.sh
hw=$configs/hardware/maeri-64.yaml
workload=$here/inverted-residual.yaml
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
pass_text="network inverted_residual: PASS — 11 of 11 runs"
group_text="fused group stem-project (stem, expand, depthwise, project; 1 stripe): every member PASS"

"$maeri" map --hardware "$hw" --workload "$workload" -o "$dir/mapping.yaml" >/dev/null || fail "map"
grep -q "^fused_groups:" "$dir/mapping.yaml" || fail "map fused nothing"
chain=(verify --chain --hardware "$hw" --workload "$workload" --mapping "$dir/mapping.yaml")

# Every row of every table (members, group) exact: the error column (fourth from the right of a row) is 0.
rows_exact() {
  awk '/^  [a-zA-Z]/ && $1 != "metric" { if ($(NF-1) != 0) { print "not exact: " $0; bad = 1 } } END { exit bad }' "$1"
}

case $case_name in
  map_verify)
    "$maeri" "${chain[@]}" --json "$dir/run.json" >"$dir/out.txt" || { cat "$dir/out.txt"; fail "verify"; }
    grep -qF "$pass_text" "$dir/out.txt" || fail "no PASS"
    grep -qF "$group_text" "$dir/out.txt" || fail "no group table"
    grep -qF "depthwise [fabric, fused group stem-project, member 3 of 4: input from the SDM, output kept in the SDM" \
      "$dir/out.txt" || fail "no member role"
    rows_exact "$dir/out.txt" || fail "a cross-check row is not exact"
    grep -q '"groups": \[' "$dir/run.json" || fail "no groups in the JSON"
    grep -q '"group": "stem-project",' "$dir/run.json" || fail "no group of a member in the JSON" ;;
  jobs)
    # The layers at once in two processes: the same report (every member's and the group's rows), the same output.
    "$maeri" "${chain[@]}" --jobs 2 --outputs "$dir/jobs" >"$dir/jobs.txt" || fail "two processes"
    grep -qF "$group_text" "$dir/jobs.txt" || fail "no group line with --jobs 2"
    "$maeri" "${chain[@]}" --outputs "$dir/one" >"$dir/one.txt" || fail "single process"
    cmp "$dir/one/add.npy" "$dir/jobs/add.npy" || fail "--jobs 2 gives other outputs"
    mask='s/\[[0-9.]+ s\]//; s/[0-9.]+ s wall.*//; s/x [0-9]+ job\(s\)/x N job(s)/'
    diff <(sed -E "$mask" "$dir/one.txt") <(sed -E "$mask" "$dir/jobs.txt") || fail "--jobs 2 reports otherwise" ;;
  mpi)
    require_mpi "$mpiexec"
    "$expect" 0 --stdout-contains "$group_text" \
      "$mpiexec" --oversubscribe --allow-run-as-root -np 2 "$maeri" "${chain[@]}" --outputs "$dir/mpi" || exit 1
    "$maeri" "${chain[@]}" --outputs "$dir/one" >/dev/null || fail "single process"
    cmp "$dir/one/add.npy" "$dir/mpi/add.npy" || fail "2 ranks give other outputs" ;;
  bad_group)
    # Three stripes, but the members' X' lies in one SDM block: the stripes rule, named with the group.
    sed 's/^    stripes: 1$/    stripes: 3/' "$dir/mapping.yaml" >"$dir/bad.yaml"
    "$expect" 2 --stderr-contains "fused_groups[0]" "$maeri" verify --chain --hardware "$hw" --workload "$workload" \
      --mapping "$dir/bad.yaml" || exit 1
    "$expect" 2 --stderr-contains "fused group 'stem-project': stripes" "$maeri" verify --chain --hardware "$hw" \
      --workload "$workload" --mapping "$dir/bad.yaml" || exit 1 ;;
  *) fail "unknown case $case_name" ;;
esac
exit 0
