#!/bin/bash
# The HTML report in a real browser: headless Chromium renders a report; the DOM it built must hold every operator's
# section, the network graph, the fabric drawings with their switches coloured by VN, no script element, and its
# screenshot must not be blank.
#   sample  the sample report written by maeri_make_report_page (tests/unit/report_sample.hpp): the hostile layer name
#           stays text
#   run     `maeri run --report` (the main job's page): tiny's 4 fabric layers and 7 unit operators, run as `maeri map`
#           decides — conv3_1x1 and fc in one fused group (through the global average pool); the switches in a VN
#           are VN size x #VN of each layer's tile as map's table prints it (conv1 27 x 2, conv2 8 x 8, conv3_1x1
#           4 x 16, fc 20 x 3: 242 of 4 x 64, 14 idle), the same as the map case's page
#   map     `maeri map --report` of tiny on maeri-64: conv3_1x1 and fc in one fused group (map's table), each
#           layer's tile in its role (27 x 2, 8 x 8, 4 x 16, 20 x 3: 242 switches in VNs, 14 idle)
# Usage: report_in_browser.sh CASE PROGRAM WORK_DIR (PROGRAM: maeri_make_report_page or maeri). Exit 77 (skip) when
# no Chromium is installed.
set -euo pipefail
case_name=$1
program=$2
work=$3
browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $browser ]]; then
  echo "SKIP: no chromium on PATH (scripts/setup.sh installs Debian's chromium)"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work"
case $case_name in
  sample) "$program" "$work/report.html" ;;
  run) (cd "$work" && "$program" run --report report.html >run.log) || { cat "$work/run.log"; exit 1; } ;;
  map)
    configs=$(dirname "$(readlink -f "$0")")/../../configs
    (cd "$work" && "$program" map --hardware "$configs/hardware/maeri-64.yaml" --workload "$configs/workloads/tiny.yaml" \
       -o tiny.mapping.yaml --report report.html >map.log) || { cat "$work/map.log"; exit 1; } ;;
  *) echo "unknown case $case_name"; exit 1 ;;
esac
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
render() {
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$profile" "$@" \
    2>>"$work/chromium.log"
}
render --dump-dom "file://$work/report.html" >"$work/dom.html"
render --screenshot="$work/report.png" --window-size=1200,900 "file://$work/report.html" >/dev/null

failed=0
expect() {  # expect COUNT PATTERN: the DOM holds PATTERN exactly COUNT times
  local found
  found=$(grep -o -- "$2" "$work/dom.html" | wc -l || true)
  if [[ $found -ne $1 ]]; then
    echo "FAIL: the DOM holds '$2' $found times, expected $1"
    failed=1
  fi
}
case $case_name in
  sample)
    expect 3 '<section class="layer"'
    expect 2 '<section class="unit-op"'
    expect 1 '<svg class="network-graph"'
    expect 3 '<svg class="fabric"'
    expect 1 '<svg class="cycle-bars"'
    expect 1 '<svg class="dram-bars"'
    expect 5 '<g class="node '
    expect 2 'class="group-box"'
    expect 118 'class="ms vn"'   # 2 VNs of 9, 1 of 36, 4 of 16
    expect 74 'class="ms idle"'  # 46 + 28 + 0
    expect 25 'class="ms vn" data-vn="1"'  # conv1's second VN (9) and the fc layer's (16)
    expect 1 '<h3>fc&lt;script&gt;alert'  # the hostile name is the heading's text
    ;;
  run)
    expect 4 '<section class="layer"'
    expect 7 '<section class="unit-op"'
    expect 1 '<svg class="network-graph"'
    expect 4 '<svg class="fabric"'
    expect 11 '<g class="node '
    expect 1 'class="group-box"'
    expect 198 'class="ms vn"'   # map's tiles on 64 MS: 54 (3,3,3,2) + 64 (1,1,8,8) + 64 (1,1,8,4,·,·,2) + 16 (1,1,8,2)
    expect 58 'class="ms idle"'  # 10 + 0 + 0 + 48
    ;;
  map)
    expect 4 '<section class="layer"'
    expect 7 '<section class="unit-op"'
    expect 11 '<g class="node '
    expect 1 'class="group-box"'
    expect 198 'class="ms vn"'   # map's tiles on 64 MS: 54 (3,3,3,2) + 64 (1,1,8,8) + 64 (1,1,8,4,·,·,2) + 16 (1,1,8,2)
    expect 58 'class="ms idle"'  # 10 + 0 + 0 + 48
    ;;
esac
expect 0 '<script'
[[ $failed -eq 0 ]] || exit 1

python3 - "$work/report.png" <<'PY'
# Decode the PNG by hand (zlib + the five row filters) and count its colours: a blank render has one.
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    if kind == b"IHDR":
        width, height, depth, colour_type = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + length
assert depth == 8 and colour_type in (2, 6), f"unexpected PNG format {depth}/{colour_type}"
bpp = 3 if colour_type == 2 else 4
raw, stride = zlib.decompress(idat), width * bpp
previous, colours, coloured = bytearray(stride), set(), 0
for y in range(height):
    kind, row = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        left = row[i - bpp] if i >= bpp else 0
        up, up_left = previous[i], previous[i - bpp] if i >= bpp else 0
        if kind == 1: row[i] = (row[i] + left) & 255
        elif kind == 2: row[i] = (row[i] + up) & 255
        elif kind == 3: row[i] = (row[i] + ((left + up) >> 1)) & 255
        elif kind == 4:
            p = left + up - up_left
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
            row[i] = (row[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else up_left)) & 255
    for x in range(0, stride, bpp):
        pixel = bytes(row[x:x + 3])
        colours.add(pixel)
        if max(pixel) - min(pixel) > 60: coloured += 1
    previous = row
print(f"screenshot {width}x{height}: {len(colours)} colours, {coloured} saturated pixels")
if len(colours) < 16 or coloured < 500:
    sys.exit("FAIL: the screenshot is (nearly) blank")
PY
echo "report_in_browser: DOM and screenshot as expected"
