#!/bin/bash
# CLI tests of what `maeri map` prints and writes for a person and a program (docs/cli.md, "maeri map output"): on a
# network, one line per fabric layer, the totals and the fusion summary, within a screenful plus one line per layer;
# --details, the per-layer report exactly as before the table (tiny on maeri-64, timings masked); and in --json each
# layer's role — standalone or a member of a fused group, with its report in that role; whether the fused groups are
# proven, and the same decision, NOT proven, when the proof may replay nothing.
# Usage: map_report.sh CASE MAERI CONFIGS_DIR
set -u
case_name=$1 maeri=$2 configs=$3
here=$(dirname "$(readlink -f "$0")")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
hw=$configs/hardware
workloads=$configs/workloads
# The table's rows: the lines from the one after its header ("layer  shape  tile ...") to the first empty line.
table_rows() { awk '/^layer +shape +tile/ { on = 1; next } on && /^$/ { exit } on { n++ } END { print n + 0 }' "$1"; }
# A workload's fabric layers, counted from its YAML: conv and fc operators.
fabric_layers() { grep -cE 'type: (conv|fc)\b' "$1"; }

check_table() {  # WORKLOAD HARDWARE: one row per fabric layer, the totals, at most 30 lines more than the layers
  local workload=$workloads/$1.yaml out=$dir/$1.out
  "$maeri" map --hardware "$hw/$2.yaml" --workload "$workload" -o "$dir/$1.yaml" >"$out" || fail "map $1 on $2"
  local layers rows lines
  layers=$(fabric_layers "$workload") rows=$(table_rows "$out") lines=$(wc -l <"$out")
  [[ $rows -eq $layers ]] || fail "$1 on $2: $rows table rows, the workload has $layers fabric layers: $(cat "$out")"
  grep -q "^total over $layers layers: " "$out" || fail "$1 on $2: no totals line"
  grep -q "^DRAM: .* bytes, compulsory .* bytes: " "$out" || fail "$1 on $2: no DRAM against compulsory"
  grep -q "^fusion: " "$out" || fail "$1 on $2: no fusion summary"
  [[ $lines -le $((30 + layers)) ]] || fail "$1 on $2: $lines lines for $layers layers"
  echo "$1 on $2: $rows rows, $lines lines"
}

case $case_name in
  table_tiny)
    check_table tiny maeri-64
    grep -qE '^conv3_1x1 +conv 1x1 8->16 @5x5 +[0-9,]+ +conv1-fc +inner ' "$dir/tiny.out" ||
      fail "conv3_1x1's row does not show its fused group and role: $(cat "$dir/tiny.out")"
    ;;
  table_resnet50)
    check_table resnet50 maeri-512
    ;;
  details_as_before)
    # The report of every layer as `map` printed it before the table, timings masked as tools/golden.sh masks them.
    (cd "$dir" && "$maeri" map --hardware "$hw/maeri-64.yaml" --workload "$workloads/tiny.yaml" --details \
      -o map_tiny_64.yaml --json map_tiny_64.json) >"$dir/details.out" || fail "map --details"
    sed -E 's/[0-9]+\.[0-9]+ ?(s|ms)\b/T s/g; s/[0-9.]+ (mappings|MACs)\/s/R/g; s/(in|took) [0-9.]+ ?s/\1 T/g' \
      "$dir/details.out" | diff "$here/map_tiny_64.details.txt" - || fail "map --details differs from the report before"
    ;;
  proof_budget)
    # tiny on maeri-64: the fused groups proven over the members' spaces (docs/model.md, "How the fused decision is
    # proven"); with no replays allowed the proof stops at once, the decision (conv1-fc, 1,770 cycles, checked on the
    # RTL: docs/model.md "Checked on the RTL") stays, NOT proven.
    for budget in 2e7 0; do
      "$maeri" map --hardware "$hw/maeri-64.yaml" --workload "$workloads/tiny.yaml" --fusion-proof-cycles $budget \
        -o "$dir/p$budget.yaml" >"$dir/p$budget.out" || fail "map tiny --fusion-proof-cycles $budget"
      grep -q "^fusion: 1 fused group of 4 layers in all; against every layer alone: 1891 -> 1770 cycles" \
        "$dir/p$budget.out" || fail "budget $budget: not conv1-fc at 1,770 cycles: $(cat "$dir/p$budget.out")"
    done
    grep -q "^fused groups proven over the members' fused map spaces: " "$dir/p2e7.out" || fail "not proven: $(cat "$dir/p2e7.out")"
    grep -q "^fused groups NOT proven over the members' fused map spaces: [1-9][0-9]* candidate groups could still win" \
      "$dir/p0.out" || fail "proven with no replays: $(cat "$dir/p0.out")"
    ;;
  json_roles)
    # tiny on maeri-64 fuses conv1 (producer), conv2 and conv3_1x1 (inner) and fc (consumer) through the pool, the
    # residual add and the global average pool (the fused search decided by exact cycles: 1,770 fused against 1,891
    # alone, docs/model.md "Which model decides what"); fc costs less in its role than its standalone best.
    # MobileNetV2 by energy on maeri-512 fuses nearly every layer.
    command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
    "$maeri" map --hardware "$hw/maeri-64.yaml" --workload "$workloads/tiny.yaml" -o "$dir/t.yaml" --json "$dir/t.json" \
      >/dev/null || fail "map tiny"
    "$maeri" map --hardware "$hw/maeri-512.yaml" --workload "$workloads/mobilenetv2.yaml" --objective energy \
      -o "$dir/m.yaml" --json "$dir/m.json" >/dev/null || fail "map mobilenetv2"
    python3 - "$dir/t.json" "$dir/m.json" <<'PY' || fail "JSON roles"
import json, sys
tiny, mobilenet = (json.load(open(path)) for path in sys.argv[1:3])
layers = {entry["layer"]: entry for entry in tiny["layers"]}
for name, position, role in (("conv1", 0, "producer"), ("conv2", 1, "inner"), ("conv3_1x1", 2, "inner"),
                             ("fc", 3, "consumer")):
    entry = layers[name]
    group = entry["fused_group"]
    assert entry["role"] == "fused", (name, entry["role"])
    assert (group["name"], group["position"], group["members"], group["member_role"]) == \
        ("conv1-fc", position, 4, role), (name, group)
    assert group["output_in_sdm"] == (role != "consumer") and group["input_in_sdm"] == (role != "producer"), group
member = layers["fc"]
assert member["in_role"]["cycles"]["total"] < member["best"][0]["cycles"]["total"], member["in_role"]["cycles"]
assert member["in_role"]["counts"]["dram_bytes"] < member["best"][0]["counts"]["dram_bytes"]
# The network's totals are its layers' costs in their roles.
assert abs(sum(entry["in_role"]["cycles"]["total"] for entry in tiny["layers"]) - tiny["total_cycles"]) < 1e-6
fused = [entry for entry in mobilenet["layers"] if entry["role"] == "fused"]
groups = {entry["fused_group"]["name"] for entry in fused}
assert len(groups) == len(mobilenet["fusion"]["groups"]) > 0, (groups, len(mobilenet["fusion"]["groups"]))
for group in mobilenet["fusion"]["groups"]:
    members = [entry for entry in fused if entry["fused_group"]["name"] == group["name"]]
    assert [entry["layer"] for entry in members] == group["layers"], group["name"]
    assert [entry["in_role"] for entry in members] == group["members"], group["name"]
print(f"tiny: 3 fused members; mobilenetv2: {len(fused)} fused members in {len(groups)} groups")
PY
    ;;
  *) fail "unknown case $case_name" ;;
esac
