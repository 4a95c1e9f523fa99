#!/bin/bash
# CLI test of `maeri map --mapping FILE` (docs/cli.md): a given mapping file's decision costed, not searched.
# - map's own decision (the BERT layer at H 64 on maeri-64, energy objective: one fused group of 8 products), costed
#   again from its mapping file: the same totals and the same group cost in the JSON (what map reported is what the
#   file costs);
# - the unfused decision (--no-fusion) costed from its file: map --no-fusion's totals;
# - TransFusion's group (every product but K and V) on the unfused mappings, members without an SDM level: exit 2,
#   the error naming the file, fused_groups[0], the group and the rule, as codegen names it; no file written.
# Usage: map_given_mapping.sh MAERI CONFIGS_DIR
set -u
maeri=$1 configs=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
hw=$configs/hardware/maeri-64.yaml
workload=$configs/workloads/bert-encoder-h64.yaml
same_totals() {
  python3 - "$1" "$2" <<'PY' || fail "totals differ: $1 $2"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for key in ("total_cycles", "total_energy_pj", "total_dram_bytes"):
    assert a[key] == b[key], (key, a[key], b[key])
if "fusion" in a:
    assert a["fusion"]["fused"] == b["fusion"]["fused"], (a["fusion"]["fused"], b["fusion"]["fused"])
    assert [g["layers"] for g in a["fusion"]["groups"]] == [g["layers"] for g in b["fusion"]["groups"]]
PY
}
"$maeri" map --hardware "$hw" --workload "$workload" --objective energy -o "$dir/fused.yaml" --json "$dir/fused.json" \
  > /dev/null || fail "map"
"$maeri" map --hardware "$hw" --workload "$workload" --objective energy --mapping "$dir/fused.yaml" \
  --json "$dir/fused-given.json" > "$dir/given.out" || fail "map --mapping (fused)"
grep -q "the mapping file $dir/fused.yaml costed (no search)" "$dir/given.out" || fail "header: $(head -1 "$dir/given.out")"
same_totals "$dir/fused.json" "$dir/fused-given.json"
"$maeri" map --hardware "$hw" --workload "$workload" --objective energy --no-fusion -o "$dir/unfused.yaml" \
  --json "$dir/unfused.json" > /dev/null || fail "map --no-fusion"
"$maeri" map --hardware "$hw" --workload "$workload" --objective energy --mapping "$dir/unfused.yaml" \
  --json "$dir/unfused-given.json" > /dev/null || fail "map --mapping (unfused)"
python3 -c "
import json, sys
a, b = json.load(open('$dir/unfused.json')), json.load(open('$dir/unfused-given.json'))
for key in ('total_cycles', 'total_energy_pj', 'total_dram_bytes'): assert a[key] == b[key], (key, a[key], b[key])
" || fail "unfused totals differ"
{ cat "$dir/unfused.yaml"
  printf 'fused_groups:\n  - name: transfusion\n    layers: [query, scores, context, attention_output, intermediate, output]\n    stripes: 1\n'
} > "$dir/policy.yaml"
"$maeri" map --hardware "$hw" --workload "$workload" --mapping "$dir/policy.yaml" -o "$dir/out.yaml" \
  > /dev/null 2> "$dir/err"
rc=$?
[ $rc -eq 2 ] || fail "exit $rc, expected 2: $(cat "$dir/err")"
grep -q "policy.yaml: field 'fused_groups\[0\]': fused group 'transfusion': SDM level: layer 'query' has no SDM level" \
  "$dir/err" || fail "message: $(cat "$dir/err")"
[ ! -e "$dir/out.yaml" ] || fail "a refused mapping wrote $dir/out.yaml"
echo "map --mapping: PASS"
