#!/bin/bash
# CLI tests of bad files and names (docs/cli.md, "Bad inputs the tests cover"): a fabric cache folder that holds
# other files, names that would become paths, readers given devices, FIFOs, folders and missing files, malformed
# optimum caches, messages that must name the field that differs, shorten long values and name CR-only line
# endings. Each runs `maeri` through expect_exit.sh; the device and FIFO cases must also end within 10 s (they used
# to read without end or hang).
# Usage: bad_files.sh CASE MAERI CONFIGS_DIR
set -u
case_name=$1 maeri=$2 configs=$3
expect=$(dirname "$0")/expect_exit.sh
hw64=$configs/hardware/maeri-64.yaml tiny=$configs/workloads/tiny.yaml
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1

fail() { echo "FAILED: $*"; exit 1; }
source "$(dirname "$0")/time_bound.sh"
# tiny.yaml with the workload's name replaced (YAML double-quoted: "\0" is a NUL byte).
named() { sed "s|^name: tiny|name: \"$1\"|" "$tiny" >"$2"; }
images() { "$maeri" codegen --hardware "$hw64" --workload "$tiny" -o img >/dev/null || fail "codegen failed"; }
explore_with_cache() {
  printf 'key,optimum,exhaustive\n%s\n' "$1" >cache.csv
  "$expect" 2 --stderr-contains "$2" "$maeri" explore --hardware "$hw64" --workload "$tiny" --layer fc \
    --methods random --budgets 10 --runs 1 -o ex --optimum-cache cache.csv || exit 1
}

case $case_name in
  fabric_clean_foreign)  # the cache's own entries go, the user's stay
    key=m64-dn16-rn16-d16-a32-c64-0123456789abcdef
    mkdir -p cache/proj cache/$key cache/.build-$key-123
    echo data >cache/notes.txt; touch cache/.cfg cache/$key.lock cache/$key.failed.log
    echo "key $key" >cache/$key/manifest.txt  # a fabric the cache made names its key in its manifest
    MAERI_FABRIC_CACHE=$dir/cache "$expect" 0 --stdout-contains \
      "left alone 3 entries the fabric cache did not make: .cfg, notes.txt, proj/" "$maeri" fabric clean || exit 1
    [[ -f cache/notes.txt && -d cache/proj && -f cache/.cfg ]] || fail "a user's file was removed"
    [[ $(ls -A cache | wc -l) -eq 3 ]] || fail "the cache's own entries were left: $(ls -A cache)" ;;
  fabric_list_no_home)
    "$expect" 2 --stderr-contains "no fabric cache directory: set MAERI_FABRIC_CACHE, XDG_CACHE_HOME or HOME" \
      env -u HOME -u XDG_CACHE_HOME -u MAERI_FABRIC_CACHE "$maeri" fabric list ;;
  map_name_parent)  # map's default output name; was written two folders up
    named "../../evil" evil.yaml; mkdir -p a/b; cd a/b || exit 1
    "$expect" 0 --stdout-contains "_._.._evil.maeri-64.mapping.yaml" "$maeri" map --hardware "$hw64" \
      --workload ../../evil.yaml --layer fc || exit 1
    [[ -f _._.._evil.maeri-64.mapping.yaml ]] || fail "no mapping file in the working folder"
    [[ -z $(find "$dir" -name '*evil.maeri-64*' ! -path "$dir/a/b/*") ]] || fail "a file was written outside" ;;
  map_name_absolute)
    named "$dir/abs" abs.yaml; mkdir -p work; cd work || exit 1
    "$expect" 0 "$maeri" map --hardware "$hw64" --workload ../abs.yaml --layer fc || exit 1
    [[ ! -e $dir/abs.maeri-64.mapping.yaml ]] || fail "written at the absolute path"
    [[ $(ls) == *_abs.maeri-64.mapping.yaml ]] || fail "no mapping file in the working folder: $(ls)" ;;
  map_name_nul)  # was written as "a" (the name cut at the NUL), and errors were cut there too
    named 'a\\0b' nul.yaml
    "$expect" 0 "$maeri" map --hardware "$hw64" --workload nul.yaml --layer fc || exit 1
    [[ -f a_b.maeri-64.mapping.yaml ]] || fail "expected a_b.maeri-64.mapping.yaml: $(ls)"
    sed 's|name: conv1,|name: "c\\0d",|; s|input: conv1}|input: "c\\0d"}|' "$tiny" >nullayer.yaml
    "$expect" 2 --stderr-contains "has no layer 'conv9' (it has: c\\x00d, conv2" "$maeri" map --hardware "$hw64" \
      --workload nullayer.yaml --layer conv9 ;;
  import_device)  # a .onnx that is a link to /dev/zero: read without end before
    ln -s /dev/zero z.onnx
    quickly 2 --stderr-contains "z.onnx: is a character device, not a regular file (expected an ONNX model)" \
      "$maeri" import z.onnx -o z.yaml ;;
  import_fifo)  # a FIFO nobody writes to: hung before
    mkfifo f.onnx
    quickly 2 --stderr-contains "f.onnx: is a FIFO (named pipe), not a regular file (expected an ONNX model)" \
      "$maeri" import f.onnx -o z.yaml ;;
  import_directory)  # said "not an ONNX model"
    mkdir m.onnx
    "$expect" 2 --stderr-contains "m.onnx: is a directory (expected an ONNX model)" "$maeri" import m.onnx -o z.yaml ;;
  import_missing)
    "$expect" 2 --stderr-contains "no.onnx: cannot open file for reading: No such file or directory" \
      "$maeri" import no.onnx -o z.yaml ;;
  plot_device)
    quickly 2 --stderr-contains "/dev/zero: file larger than the limit of 67108864 bytes (kMaxCsvFileBytes" \
      "$maeri" plot --csv /dev/zero --x a --y b -o p.svg ;;
  plot_directory)  # said "the file is empty"
    mkdir t.csv
    "$expect" 2 --stderr-contains "t.csv: is a directory (expected a CSV table)" \
      "$maeri" plot --csv t.csv --x a --y b -o p.svg ;;
  plot_missing)
    "$expect" 2 --stderr-contains "no.csv: cannot open file for reading: No such file or directory" \
      "$maeri" plot --csv no.csv --x a --y b -o p.svg ;;
  verify_manifest_device)  # exit 4 (bad_alloc) before
    quickly 2 --stderr-contains "/dev/zero: is a character device, not a regular file (expected a network manifest" \
      "$maeri" verify --hardware "$hw64" --manifest /dev/zero ;;
  verify_manifest_directory)  # said "not JSON"
    mkdir m.json
    "$expect" 2 --stderr-contains "m.json: is a directory (expected a network manifest" \
      "$maeri" verify --hardware "$hw64" --manifest m.json ;;
  manifest_image_device)  # an image that is a link to /dev/zero: hashing never ended
    images; rm img/tiny.conv2.mimg; ln -s /dev/zero img/tiny.conv2.mimg
    quickly 2 --stdout-contains "img/tiny.conv2.mimg: is a character device, not a regular file (expected a configuration image)" \
      "$maeri" verify --hardware "$hw64" --manifest img/tiny.manifest.json ;;
  manifest_other_parameters)  # said "built for maeri-64 (64 MS), not for maeri-64"
    images; sed 's/^dn_bw: .*/dn_bw: 8/' "$hw64" >dn8.yaml
    "$expect" 2 --stderr-contains "the images were built for maeri-64, not for maeri-64: dn_bw 16 (images) vs 8 (hardware)" \
      "$maeri" verify --hardware dn8.yaml --manifest img/tiny.manifest.json ;;
  optimum_cache_text)  # exit 4, "internal error: stod", before
    explore_with_cache "x,y,1" "cache.csv:2:3: field 'optimum': expected a positive, finite number (the objective's optimum), found 'y'" ;;
  optimum_cache_overflow)
    explore_with_cache "k,1e999,1" "cache.csv:2:3: field 'optimum': expected a positive, finite number (the objective's optimum), found '1e999'" ;;
  optimum_cache_empty)
    explore_with_cache "k,,1" "cache.csv:2:3: field 'optimum': expected a positive, finite number (the objective's optimum), found ''" ;;
  optimum_cache_exhaustive)
    explore_with_cache "k,5,yes" "cache.csv:2:5: field 'exhaustive': expected 0 or 1, found 'yes'" ;;
  optimum_cache_short_row)
    explore_with_cache "k5" "cache.csv:2:1: expected a row 'key,optimum,exhaustive'" ;;
  surrogate_model_directory)  # exit 4, "basic_filebuf::underflow … Is a directory", before
    mkdir model
    "$expect" 2 --stderr-contains "model: is a directory (expected a surrogate model (JSON))" "$maeri" map \
      --hardware "$hw64" --workload "$tiny" --layer fc --search surrogate --model model -o m.yaml ;;
  long_value)  # a 5000-byte value was printed whole
    printf 'kind: hardware\nname: x\nnum_ms: %s\n' "$(head -c 5000 /dev/zero | tr '\0' a)" >long.yaml
    "$expect" 2 --stderr-contains "… (5000 bytes)" "$maeri" validate long.yaml || exit 1
    [[ $("$maeri" validate long.yaml 2>&1 | wc -c) -lt 400 ]] || fail "the message is not short" ;;
  cr_line_endings)  # said "the file is empty"
    tr '\n' '\r' <"$tiny" >cr.yaml
    "$expect" 2 --stderr-contains "cr.yaml: lines end in CR alone (classic Mac OS line endings)" \
      "$maeri" validate cr.yaml ;;
  *) fail "unknown case $case_name" ;;
esac
