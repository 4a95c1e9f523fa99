#!/bin/bash
# CLI tests of co-simulation on given tensors (docs/cosim.md, "Tensors from NumPy files"): `maeri verify --input
# --weights --output` on tiny's conv1 writes the RTL's output, equal byte for byte to the reference convolution that
# maeri_make_npy_files wrote; .npz members by name; sharded over --jobs and MPI ranks the output and report equal the
# single process's; a given expected output that differs is a failed check (exit 3); every bad file exits 2 naming
# the file and field, and leaves no output.
# Usage: tensor_runs.sh CASE MAERI CONFIGS_DIR NPY_DIR [MPIEXEC]   (exit 77 = skipped)
set -u
source "$(dirname "$(readlink -f "$0")")/require_mpi.sh"
case_name=$1 maeri=$2 configs=$3 npy=$4 mpiexec=${5:-}
here=$(dirname "$0")
expect=$here/expect_exit.sh
hw=$configs/hardware/maeri-64.yaml
tiny=$configs/workloads/tiny.yaml
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
compare() { cmake -DA="$1" -DB="$2" -P "$here/compare_verify_json.cmake" || fail "$2 differs from $1"; }
conv1=(--hardware "$hw" --workload "$tiny" --layer conv1)
# A bad file: exit 2, the message, and no output file.
refused() {
  local message=$1; shift
  "$expect" 2 --stderr-contains "$message" "$maeri" verify "${conv1[@]}" "$@" --output "$dir/out.npy" \
    --json "$dir/out.json" || exit 1
  [[ ! -e $dir/out.npy && ! -e $dir/out.json ]] || fail "an output was written"
}

case $case_name in
  given_equals_reference)
    "$expect" 0 --stdout-contains "input $npy/input.npy, weights $npy/weights.npy" \
      "$maeri" verify "${conv1[@]}" --input "$npy/input.npy" --weights "$npy/weights.npy" --output "$dir/out.npy" \
      || exit 1
    cmp "$dir/out.npy" "$npy/expected.npy" || fail "the RTL's output differs from the reference convolution" ;;
  npz_members)
    # The weights' member by the layer's name, the input's named after the colon.
    "$expect" 0 --stdout-contains "PASS (800 outputs bit-exact)" \
      "$maeri" verify "${conv1[@]}" --input "$npy/tensors.npz:input" --weights "$npy/tensors.npz" \
      --expected "$npy/expected.npy" --output "$dir/out.npy" || exit 1
    cmp "$dir/out.npy" "$npy/expected.npy" || fail "output differs" ;;
  expected_mismatch)
    "$expect" 3 --stdout-contains "FAIL" \
      "$maeri" verify "${conv1[@]}" --input "$npy/input.npy" --weights "$npy/weights.npy" \
      --expected "$npy/wrong_expected.npy" --output "$dir/out.npy" --json "$dir/out.json" || exit 1
    grep -q '"mismatches": 1,' "$dir/out.json" || fail "not one mismatch: $(grep mismatches "$dir/out.json")"
    # The RTL's output is still written: it is what the fabric computed, for the engineer to look at.
    cmp "$dir/out.npy" "$npy/expected.npy" || fail "output differs" ;;
  jobs_equal_single)
    "$maeri" verify "${conv1[@]}" --input "$npy/input.npy" --weights "$npy/weights.npy" --json "$dir/single.json" \
      >/dev/null || fail "unsharded"
    "$expect" 0 --stdout-contains "shards, 1 rank(s) x 2 job(s)" \
      "$maeri" verify "${conv1[@]}" --input "$npy/input.npy" --weights "$npy/weights.npy" --jobs 2 --shards 3 \
      --json "$dir/jobs.json" --output "$dir/jobs.npy" || exit 1
    compare "$dir/single.json" "$dir/jobs.json"
    cmp "$dir/jobs.npy" "$npy/expected.npy" || fail "sharded output differs" ;;
  mpi_equal_single)
    require_mpi "$mpiexec"
    "$maeri" verify "${conv1[@]}" --input "$npy/input.npy" --weights "$npy/weights.npy" --json "$dir/single.json" \
      >/dev/null || fail "unsharded"
    "$expect" 0 --stdout-contains "2 rank(s) x 1 job(s)" \
      "$mpiexec" --oversubscribe --allow-run-as-root -np 2 \
      "$maeri" verify "${conv1[@]}" --input "$npy/input.npy" --weights "$npy/weights.npy" --json "$dir/mpi.json" \
      --output "$dir/mpi.npy" || exit 1
    compare "$dir/single.json" "$dir/mpi.json"
    cmp "$dir/mpi.npy" "$npy/expected.npy" || fail "MPI output differs" ;;
  bad_big_endian)
    refused "big_endian.npy: field 'descr': '>i2' is big-endian" --input "$npy/big_endian.npy" ;;
  bad_fortran)
    refused "fortran.npy: field 'fortran_order': True: the array is in Fortran (column-major) order" \
      --input "$npy/fortran.npy" ;;
  bad_header)
    refused "bad_header.npy: field 'header': unknown key 'dtype'" --weights "$npy/bad_header.npy" ;;
  bad_truncated)
    refused "truncated.npy: field 'data': 599 bytes of data, but the shape (1, 3, 10, 10) of <i2 needs 600 (truncated)" \
      --input "$npy/truncated.npy" ;;
  bad_oversized)
    refused "oversized.npy: field 'data': 602 bytes of data, but the shape (1, 3, 10, 10) of <i2 needs 600 (oversized)" \
      --input "$npy/oversized.npy" ;;
  bad_floats)
    refused "floats.npy: field 'descr': <f4 holds floats; the fabric takes integers" --input "$npy/floats.npy" ;;
  bad_wrong_shape)
    refused "wrong_shape.npy: field 'shape': (1, 4, 10, 10), but the layer needs (1, 3, 10, 10)" \
      --input "$npy/wrong_shape.npy" ;;
  bad_out_of_range)
    refused "out_of_range.npy: field 'data': value 32768 at flat index 3 does not fit 16 signed bits" \
      --input "$npy/out_of_range.npy" ;;
  bad_member)
    refused "tensors.npz: field 'member': no member 'conv2' (the archive has: input, conv1)" \
      --weights "$npy/tensors.npz:conv2" ;;
  bad_two_layers)
    "$expect" 2 --stderr-contains "tensor files are of one layer, but the runs are of layers 'conv1' and 'conv2'" \
      "$maeri" verify --hardware "$hw" --workload "$tiny" --input "$npy/input.npy" --output "$dir/out.npy" || exit 1
    [[ ! -e $dir/out.npy ]] || fail "an output was written" ;;
  *) fail "unknown case $case_name" ;;
esac
echo "ok: $case_name"
