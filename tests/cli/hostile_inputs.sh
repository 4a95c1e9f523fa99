#!/bin/bash
# CLI tests of issue 43's hostile inputs (docs/cli.md, "Bad inputs the tests cover", cli_hostile_CASE): inputs that
# used to cost gigabytes, pass silently, write what their reader refuses or print whole, each now refused (or
# accepted) as its case's comment says — quickly, with a short message naming the file, writing nothing.
# Usage: hostile_inputs.sh CASE MAERI CONFIGS_DIR NPY_DIR   (the files of maeri_make_npy_files)
set -u
case_name=$1 maeri=$2 configs=$3 npy=$4
here=$(dirname "$(readlink -f "$0")")
expect=$here/expect_exit.sh
hw=$configs/hardware/maeri-64.yaml
tiny=$configs/workloads/tiny.yaml
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fail() { echo "FAILED: $*"; exit 1; }
source "$here/time_bound.sh"
chain=(verify --chain --hardware "$hw" --workload "$tiny" --memory ideal)
# Refused within 10 s of CPU and a 1 GiB address space (the old reader needed 1.2 GB), with a message under 600
# bytes, writing nothing.
# ASan reserves terabytes of address space for its shadow memory, so an ASan build (scripts/sanitize.sh) would fail
# at start under the limit: there, only the CPU limit applies (ASan itself reports an allocation past its own limit).
address_limit=1048576
if ldd "$maeri" 2>/dev/null | grep -q libasan; then address_limit=unlimited; fi
bounded() {
  local message=$1; shift
  (ulimit -v "$address_limit" && quickly 2 --stderr-contains "$message" "$maeri" "$@" --json "$dir/out.json") || exit 1
  [[ ! -e $dir/out.json ]] || fail "an output was written"
  [[ $("$maeri" "$@" 2>&1 >/dev/null | wc -c) -lt 600 ]] || fail "the message is not short"
}
# A fabric key's form (sim/fabric_cache.hpp: parameters, then 16 hex digits).
key=m64-dn16-rn16-d16-a32-c64-0123456789abcdef

case $case_name in
  npz_bomb_network_input)
    bounded "bomb.npz:image: field 'shape': (134217728,), but the network input 'image' needs (1, 3, 10, 10)" \
      "${chain[@]}" --network-input "$npy/bomb.npz" ;;
  npz_bomb_network_weights)
    bounded "bomb_weights.npz:conv1.weights: field 'shape': (134217728,), but tensor 'conv1.weights' needs (8, 3, 3, 3)" \
      "${chain[@]}" --network-weights "$npy/bomb_weights.npz" ;;
  npz_bomb_layer_input)
    bounded "bomb.npz:image: field 'shape': (134217728,), but the layer needs (1, 3, 10, 10)" \
      verify --hardware "$hw" --workload "$tiny" --layer conv1 --input "$npy/bomb.npz:image" ;;
  npz_directory_lie)
    bounded "directory_lie.npz:image: field 'data': 604 bytes of data (its directory entry says 732 bytes), but the shape (1, 3, 10, 10) of <i2 needs 600 (oversized)" \
      "${chain[@]}" --network-input "$npy/directory_lie.npz" ;;
  npz_empty_weights)  # was exit 0, every weight seeded
    bounded "empty.npz: the file is empty (0 bytes): not a .npz (zip) archive" \
      "${chain[@]}" --network-weights "$npy/empty.npz" ;;
  npz_duplicate_members)  # said "File already exists"
    bounded "duplicate.npz: field 'member': two members are named 'image.npy'" \
      "${chain[@]}" --network-input "$npy/duplicate.npz" ;;
  npz_long_member_name)  # the 60,000-byte name was printed whole
    bounded "long_member.npz:mmmmmmmmmm" "${chain[@]}" --network-input "$npy/long_member.npz"
    "$maeri" "${chain[@]}" --network-input "$npy/long_member.npz" 2>&1 | grep -q "… (60000 bytes): field 'shape': (0,)" \
      || fail "the member's name is not cut" ;;
  network_input_dtypes)  # f2, u8 and bool were refused, though docs/cosim.md says any numeric dtype
    for dtype in f2 u8 bool; do
      "$expect" 0 --stdout-contains "network tiny: PASS" "$maeri" "${chain[@]}" --network-input "$npy/input_$dtype.npy" \
        || fail "--network-input of $dtype"
    done ;;
  codegen_long_group_name)  # wrote images disasm refused ("fused.flags is 0x67": the u16 length wrapped)
    name=$(head -c 65536 /dev/zero | tr '\0' g)
    sed "s|conv2-conv3_1x1|$name|" "$here/tiny-fused-stripes.mapping.yaml" >long.mapping.yaml
    "$expect" 2 --stderr-contains "cannot write the image: fused.group 'gggg" \
      --stderr-contains "(65536 bytes)' is 65536 bytes; an image holds names of at most 65535 bytes" \
      "$maeri" codegen --hardware "$hw" --workload "$tiny" --mapping long.mapping.yaml -o img || exit 1
    [[ $("$maeri" codegen --hardware "$hw" --workload "$tiny" --mapping long.mapping.yaml -o img 2>&1 >/dev/null \
         | wc -c) -lt 600 ]] || fail "the message is not short"
    # At the limit the images are written, and every one decodes.
    sed "s|conv2-conv3_1x1|${name:1}|" "$here/tiny-fused-stripes.mapping.yaml" >limit.mapping.yaml
    "$maeri" codegen --hardware "$hw" --workload "$tiny" --mapping limit.mapping.yaml -o limit >/dev/null \
      || fail "codegen at the limit"
    for image in limit/*.mimg; do
      "$maeri" disasm "$image" >/dev/null || fail "disasm refused $image"
    done ;;
  fabric_clean_user_folder)  # was removed, "removed 1 fabric"
    mkdir -p cache/$key && echo mine >cache/$key/notes.txt
    MAERI_FABRIC_CACHE=$dir/cache "$expect" 0 --stdout-contains "removed 0 fabrics" \
      --stdout-contains "left alone 1 entry the fabric cache did not make: $key/" "$maeri" fabric clean || exit 1
    [[ -f cache/$key/notes.txt ]] || fail "the user's folder was removed"
    MAERI_FABRIC_CACHE=$dir/cache "$expect" 0 --stdout-contains ": 0 fabrics" "$maeri" fabric list || exit 1 ;;
  fabric_killed_build)  # a killed builder's folder was invisible to fabric list
    sleep 0 & dead=$!; wait $dead  # a process id that no longer runs
    mkdir -p cache/.build-$key-$dead/model && head -c 2000000 /dev/zero >cache/.build-$key-$dead/model/part.o
    MAERI_FABRIC_CACHE=$dir/cache "$expect" 0 \
      --stdout-contains ".build-$key-$dead (2.0 MB: left by build process $dead, which is gone; maeri fabric clean removes it)" \
      "$maeri" fabric list || exit 1
    MAERI_FABRIC_CACHE=$dir/cache "$expect" 0 --stdout-contains "removed 0 fabrics" "$maeri" fabric clean || exit 1
    [[ ! -e cache/.build-$key-$dead ]] || fail "the killed build's folder is still there" ;;
  plot_long_value)  # a 100,000-byte cell was quoted whole
    { echo "x,y"; echo "1,$(head -c 100000 /dev/zero | tr '\0' v)"; } >long.csv
    "$expect" 2 --stderr-contains "field 'y': expected a number, found 'vvvv" --stderr-contains "… (100000 bytes)'" \
      "$maeri" plot --csv long.csv --x x --y y -o p.svg || exit 1
    [[ $("$maeri" plot --csv long.csv --x x --y y -o p.svg 2>&1 | wc -c) -lt 400 ]] || fail "the message is not short"
    printf 'x,y\n1,\xff\xfe2\n' >latin.csv  # bytes that are not UTF-8 are escaped
    "$expect" 2 --stderr-contains "found '\\xff\\xfe2'" "$maeri" plot --csv latin.csv --x x --y y -o p.svg || exit 1 ;;
  plot_subnormal)  # 5e-324 said "expected a number"
    printf 'x,y\n1,5e-324\n2,1\n' >tiny.csv
    "$expect" 0 --stdout-contains "plot: 2 rows" "$maeri" plot --csv tiny.csv --x x --y y -o p.svg || exit 1 ;;
  optimum_cache_below_minimum)  # an optimum of 1 cycle gave ratios of 10^8, exit 0
    explore=(explore --hardware "$hw" --workload "$tiny" --layer fc --methods random --budgets 10 --runs 1 -o ex
             --optimum-cache cache.csv)
    "$maeri" "${explore[@]}" >/dev/null || fail "the first explore"
    printf '\xef\xbb\xbf' | cat - cache.csv >bom.csv  # a byte order mark made the header a row
    "$expect" 0 --stdout-contains "(from bom.csv)" "$maeri" "${explore[@]/cache.csv/bom.csv}" || exit 1
    sed -i 's/,[^,]*,\([01]\)$/,1,\1/' cache.csv
    "$expect" 2 --stderr-contains "cache.csv:2:1: field 'optimum': 1 is below the algorithmic minimum" \
      "$maeri" "${explore[@]}" || exit 1 ;;
  *) fail "unknown case $case_name" ;;
esac
echo "ok: $case_name"
