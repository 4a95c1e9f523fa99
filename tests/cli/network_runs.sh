#!/bin/bash
# CLI tests of whole networks (docs/network-manifest.md, docs/scale-out.md): codegen writes a manifest that verify
# accepts; a corrupted image is named and the other layers are still verified; layer names cannot escape the output
# folder; a sharded run (--jobs, or MPI ranks) equals the unsharded one bit for bit; a shard past its time limit is
# named and the report still written; a rank that dies mid-job (MPI) is named by rank 0, which still writes the
# report, and mpirun exits non-zero.
# Usage: network_runs.sh CASE MAERI CONFIGS_DIR [MPIEXEC]   (exit 77 = skipped)
set -u
source "$(dirname "$(readlink -f "$0")")/require_mpi.sh"
case_name=$1 maeri=$2 configs=$3 mpiexec=${4:-}
here=$(dirname "$0")
expect=$here/expect_exit.sh
hw=$configs/hardware/maeri-64.yaml
tiny=$configs/workloads/tiny.yaml
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
compare() { cmake -DA="$1" -DB="$2" -P "$here/compare_verify_json.cmake" || fail "$2 differs from $1"; }

case $case_name in
  manifest)
    "$maeri" codegen --hardware "$hw" --workload "$tiny" -o "$dir/images" >/dev/null || fail "codegen"
    [[ -f $dir/images/tiny.manifest.json ]] || fail "no manifest"
    "$expect" 0 --stdout-contains "4 of 4 runs PASS" \
      "$maeri" verify --hardware "$hw" --manifest "$dir/images/tiny.manifest.json" --json "$dir/m.json" || exit 1
    # codegen without a mapping file builds the images of `maeri map`'s decision: the same runs as its mapping file.
    "$maeri" map --hardware "$hw" --workload "$tiny" -o "$dir/map.yaml" >/dev/null || fail "map"
    "$maeri" verify --hardware "$hw" --workload "$tiny" --mapping "$dir/map.yaml" --json "$dir/w.json" >/dev/null ||
      fail "verify workload"
    compare "$dir/w.json" "$dir/m.json" ;;
  manifest_checksum)
    "$maeri" codegen --hardware "$hw" --workload "$tiny" -o "$dir/images" >/dev/null || fail "codegen"
    # One byte of conv2's image changed: its checksum no longer matches.
    printf '\x01' | dd of="$dir/images/tiny.conv2.mimg" bs=1 seek=100 conv=notrunc status=none
    "$expect" 2 --stdout-contains "checksum mismatch: $dir/images/tiny.conv2.mimg has SHA-256" \
      "$maeri" verify --hardware "$hw" --manifest "$dir/images/tiny.manifest.json" --json "$dir/m.json" || exit 1
    [[ $(grep -c '"result": "PASS"' "$dir/m.json") == 3 ]] || fail "the other three layers were not verified"
    grep -q '"result": "FAIL"' "$dir/m.json" || fail "conv2 not reported as FAIL" ;;
  layer_names)
    cat >"$dir/evil.yaml" <<'YAML'
kind: workload
name: ../evil
batch: 1
layers:
  - {name: ../x, type: fc, K: 4, C: 8}
  - {name: _._x, type: fc, K: 4, C: 8}
  - {name: /tmp/abs, type: fc, K: 2, C: 8}
YAML
    mkdir "$dir/out"
    "$maeri" codegen --hardware "$hw" --workload "$dir/evil.yaml" -o "$dir/out/images" >/dev/null || fail "codegen"
    [[ -z $(find "$dir" -name '*.mimg' -not -path "$dir/out/images/*") ]] || fail "an image escaped the -o folder"
    for f in _._evil._._x.mimg _._evil._._x-2.mimg _._evil._tmp_abs.mimg _._evil.manifest.json; do
      [[ -f $dir/out/images/$f ]] || fail "missing $f: $(ls "$dir/out/images")"
    done
    "$expect" 0 --stdout-contains "3 of 3 runs PASS" \
      "$maeri" verify --hardware "$hw" --manifest "$dir/out/images/_._evil.manifest.json" || exit 1 ;;
  jobs_equal_single)
    "$maeri" verify --hardware "$hw" --workload "$tiny" --json "$dir/single.json" >/dev/null || fail "unsharded"
    "$expect" 0 --stdout-contains "shards, 1 rank(s) x 2 job(s)" \
      "$maeri" verify --hardware "$hw" --workload "$tiny" --jobs 2 --shards 3 --json "$dir/jobs.json" || exit 1
    compare "$dir/single.json" "$dir/jobs.json" ;;
  mpi_equal_single)
    require_mpi "$mpiexec"
    "$maeri" verify --hardware "$hw" --workload "$tiny" --json "$dir/single.json" >/dev/null || fail "unsharded"
    "$expect" 0 --stdout-contains "2 rank(s) x 1 job(s)" \
      "$mpiexec" --oversubscribe --allow-run-as-root -np 2 \
      "$maeri" verify --hardware "$hw" --workload "$tiny" --json "$dir/mpi.json" --csv "$dir/mpi.csv" || exit 1
    compare "$dir/single.json" "$dir/mpi.json"
    [[ $(head -1 "$dir/mpi.csv") == "layer,tile,result,metric,model,rtl,error,error_percent" ]] || fail "CSV header" ;;
  mpi_rank_dies)
    require_mpi "$mpiexec"
    # Rank 1 is killed once it starts its first shard (VGG16 conv1_1 in 8 shards: each takes about a second, long
    # enough for the wrapper to see it); Open MPI keeps the other ranks running only with
    # orte_abort_on_non_zero_status 0 (docs/scale-out.md). Rank 0 waits --rank-timeout for rank 1, then reports.
    "$expect" nonzero --stdout-contains "rank 1 did not report this task" \
      "$mpiexec" --oversubscribe --allow-run-as-root --mca orte_abort_on_non_zero_status 0 -np 2 \
      "$here/rank_dies.sh" "$maeri" verify --hardware "$hw" --workload "$configs/workloads/vgg16.yaml" \
      --layer conv1_1 --memory ideal --shards 8 --rank-timeout 3 --json "$dir/lost.json" || exit 1
    # Rank 0's own shards were verified and reported next to the lost ones.
    grep -q '"result": "FAIL"' "$dir/lost.json" || fail "no report written"
    grep -q 'did not report this task' "$dir/lost.json" || fail "the lost shards are not named in the report" ;;
  shard_timeout)
    # A limit no shard can meet: every shard is killed and named, the report is still written, exit 3.
    "$expect" 3 --stdout-contains "timed out after 1e-06 s (killed)" \
      "$maeri" verify --hardware "$hw" --workload "$tiny" --layer conv1 --timeout 0.000001 --json "$dir/t.json" || exit 1
    grep -q '"result": "FAIL"' "$dir/t.json" || fail "no report written" ;;
  *) fail "unknown case $case_name" ;;
esac
echo "ok: $case_name"
