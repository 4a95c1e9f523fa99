#!/bin/bash
# CLI tests of fused groups in images and the network manifest (docs/config-image.md, format version 7;
# docs/network-manifest.md): `codegen --mapping --workload` records each member's group and role in its image and
# lists the group in the manifest; `disasm` (text and --json) shows the record and marks the stripe loop; a manifest
# whose group disagrees with an image's record fails that layer naming the image, the group and the field (exit 2).
# The mapping: tests/cli/tiny-fused-stripes.mapping.yaml (tiny's conv2 and conv3_1x1 in 5 stripes, conv2 pinned).
# Usage: fused_images.sh CASE MAERI CONFIGS_DIR
set -u
case_name=$1 maeri=$2 configs=$3
here=$(dirname "$0")
expect=$here/expect_exit.sh
hw=$configs/hardware/maeri-64.yaml
tiny=$configs/workloads/tiny.yaml
mapping=$here/tiny-fused-stripes.mapping.yaml
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
images=$dir/images
group="group 'conv2-conv3_1x1'"

"$expect" 0 --stdout-contains "(4 layers, 1 fused groups)" \
  "$maeri" codegen --hardware "$hw" --mapping "$mapping" --workload "$tiny" -o "$images" --json || exit 1
case $case_name in
  codegen_disasm)
    "$expect" 0 --stdout-contains "(format version 7)" "$maeri" disasm "$images/tiny.conv2.mimg" || exit 1
    "$maeri" disasm "$images/tiny.conv2.mimg" --hardware "$hw" >"$dir/conv2.txt" || fail "disasm conv2"
    for text in "fused     member 1 of 2 of $group" "input  read from DRAM" \
                "output kept in the SDM for the group's later members" \
                "stripes 5: each iteration of the xb loop is one stripe, after which the controller yields the fabric" \
                "weights pinned in the SDM across the stripes" \
                "   0  FOR xb = 0 .. 4 step 1   (5 iterations)   <- stripe loop: one stripe per iteration"; do
      grep -qF -- "$text" "$dir/conv2.txt" || fail "disasm of conv2 lacks: $text"
    done
    "$maeri" disasm "$images/tiny.conv3_1x1.mimg" >"$dir/conv3.txt" || fail "disasm conv3_1x1"
    for text in "fused     member 2 of 2 of $group" "input  from the SDM" "output written to DRAM" \
                "weights fetched from DRAM again for every stripe"; do
      grep -qF -- "$text" "$dir/conv3.txt" || fail "disasm of conv3_1x1 lacks: $text"
    done
    "$maeri" disasm "$images/tiny.conv1.mimg" | grep -q fused && fail "conv1 is in no group, but its image has a record"
    "$maeri" disasm --json "$images/tiny.conv2.mimg" >"$dir/conv2.json" || fail "disasm --json"
    cmp -s "$dir/conv2.json" "$images/tiny.conv2.json" || fail "disasm --json differs from codegen --json"
    for text in '"format_version": 7' '"group": "conv2-conv3_1x1"' '"stripes": 5' '"weights_pinned": true' \
                '"stripe_loop": true'; do
      grep -qF -- "$text" "$dir/conv2.json" || fail "disasm --json lacks: $text"
    done
    for text in '"version": 2' '"fused_groups"' '"pinned_weights": [' '"tensor": "relu2"' '"reads": "input"'; do
      grep -qF -- "$text" "$images/tiny.manifest.json" || fail "the manifest lacks: $text"
    done
    # Without the workload the roles are unknown: the images are built alone, with a note.
    "$expect" 0 --stderr-contains "without --workload" \
      "$maeri" codegen --hardware "$hw" --mapping "$mapping" -o "$dir/alone" || exit 1
    "$maeri" disasm "$dir/alone/tiny.conv2.mimg" | grep -q "format version 7" && fail "an image without a role is version 7"
    grep -q fused_groups "$dir/alone/tiny.manifest.json" && fail "a manifest without roles lists groups"
    true ;;
  manifest_disagrees)
    # The manifest says 4 stripes; conv2's image (checksum intact) records 5.
    sed -i 's/"stripes": 5/"stripes": 4/' "$images/tiny.manifest.json"
    grep -q '"stripes": 4' "$images/tiny.manifest.json" || fail "the manifest was not changed"
    "$expect" 2 --stdout-contains "$images/tiny.conv2.mimg: field 'fused.stripes': $group: the image records 5, the manifest's group gives 4" \
      "$maeri" verify --hardware "$hw" --manifest "$images/tiny.manifest.json" --layer conv2 || exit 1 ;;
  *) fail "unknown case $case_name" ;;
esac
