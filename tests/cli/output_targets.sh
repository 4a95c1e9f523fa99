#!/bin/bash
# CLI tests of output paths that must be refused or cannot be written (docs/cli.md, "Bad inputs the tests cover"):
# each case sets up its target in a fresh temporary folder, runs `maeri` through expect_exit.sh (exit code and
# message), then checks that nothing was replaced and no temporary (*.tmp.*) was left behind.
# Usage: output_targets.sh CASE MAERI HARDWARE_YAML WORKLOAD_YAML
set -u
case_name=$1 maeri=$2 hardware=$3 workload=$4
expect=$(dirname "$0")/expect_exit.sh
dir=$(mktemp -d)
trap 'chmod -R u+w "$dir"; rm -rf "$dir"' EXIT
map_fc=("$maeri" map --hardware "$hardware" --workload "$workload" --layer fc)  # one small layer: quick

fail() { echo "FAILED: $*"; exit 1; }
no_temporaries() {
  local left
  left=$(find "$dir" -name '*.tmp.*')
  [[ -z $left ]] || fail "temporary files left behind: $left"
}

case $case_name in
  dev_null)  # as root, rename() would replace the device with a regular file
    "$expect" 2 --stderr-contains "/dev/null: refusing to replace a character device" "${map_fc[@]}" -o /dev/null || exit 1
    [[ -c /dev/null ]] || fail "/dev/null is no longer a character device"
    "$expect" 2 --stderr-contains "/dev/null: refusing to replace a character device" "${map_fc[@]}" \
      -o "$dir/m.yaml" --json /dev/null || exit 1
    [[ -c /dev/null && ! -e $dir/m.yaml ]] || fail "/dev/null replaced or mapping file written before the check" ;;
  symlink)
    echo kept >"$dir/target"
    ln -s "$dir/target" "$dir/link"
    "$expect" 2 --stderr-contains "$dir/link: refusing to replace a symbolic link" "${map_fc[@]}" -o "$dir/link" || exit 1
    [[ -L $dir/link && $(cat "$dir/target") == kept ]] || fail "the link or its target changed" ;;
  fifo)
    mkfifo "$dir/pipe"
    "$expect" 2 --stderr-contains "$dir/pipe: refusing to replace a FIFO (named pipe)" "${map_fc[@]}" --csv "$dir/pipe" || exit 1
    [[ -p $dir/pipe ]] || fail "the FIFO was replaced" ;;
  directory)
    mkdir "$dir/out"
    "$expect" 2 --stderr-contains "$dir/out: refusing to replace a directory" "${map_fc[@]}" -o "$dir/out" || exit 1
    [[ -d $dir/out ]] || fail "the directory was replaced" ;;
  under_regular_file)  # ENOTDIR, for root too
    echo kept >"$dir/file"
    "$expect" 2 --stderr-contains "$dir/file/m.yaml: cannot write the output file: Not a directory" \
      "${map_fc[@]}" -o "$dir/file/m.yaml" || exit 1
    [[ $(cat "$dir/file") == kept ]] || fail "the regular file changed" ;;
  codegen_dir_under_regular_file)
    echo kept >"$dir/file"
    "$expect" 2 --stderr-contains "$dir/file/images: cannot create the output directory: Not a directory" \
      "$maeri" codegen --hardware "$hardware" --workload "$workload" --layer fc -o "$dir/file/images" || exit 1
    [[ $(cat "$dir/file") == kept ]] || fail "the regular file changed" ;;
  read_only_dir)  # root ignores permission bits: the /proc cases cover an impossible place for root
    if [[ $(id -u) -eq 0 ]]; then echo "skipped: running as root"; exit 77; fi
    mkdir "$dir/ro" && chmod 555 "$dir/ro"
    "$expect" 2 --stderr-contains "cannot create the output file in '$dir/ro': Permission denied" \
      "${map_fc[@]}" -o "$dir/ro/m.yaml" || exit 1 ;;
  disk_full)  # writes fail part-way (EFBIG past `ulimit -f`, like a full disk); SIGXFSZ ignored so maeri sees it.
    # Output goes through a pipe, which the limit does not cover (expect_exit.sh would capture it in a file).
    message=$( (trap '' XFSZ; ulimit -f 1; exec "$maeri" map --hardware "$hardware" --workload "$workload" --top 20 \
      -o "$dir/m.yaml" --json "$dir/big.json") 2>&1 >/dev/null)
    status=$?
    [[ $status -eq 2 ]] || fail "expected exit code 2, got $status: $message"
    failed=$(sed -n 's/^error: \(.*\): cannot write the output file: File too large$/\1/p' <<<"$message")
    [[ -n $failed ]] || fail "no 'cannot write the output file: File too large' error: $message"
    [[ ! -e $failed ]] || fail "a half-written $failed is left" ;;
  *) fail "unknown case $case_name" ;;
esac
no_temporaries
