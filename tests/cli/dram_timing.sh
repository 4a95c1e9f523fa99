#!/bin/bash
# CLI test of the co-simulated DRAM device (`dram.timing`, docs/hardware-spec.md "DRAM timing"): maeri-64 with the
# hbm2 preset verifies tiny's fc layer bit-exactly, its JSON counts row misses and a refresh (the layer runs longer
# than one 3.9 µs refresh interval at 100 MHz, 390 cycles), and the model's replay, which runs the same device,
# predicts the cycles with DRAM exactly (0.00 %: docs/model.md "Memory timing") — before the replay knew the device
# this row was off.
# Usage: dram_timing.sh MAERI CONFIGS_DIR
set -u
maeri=$1 configs=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
# At 100 MHz a refresh interval is 390 cycles, shorter than fc's run whichever mapping map ranks first.
sed -e 's/^  latency_cycles: \(.*\)$/  latency_cycles: \1\n  timing: hbm2/' -e 's/^clock_mhz: .*/clock_mhz: 100/' \
  "$configs/hardware/maeri-64.yaml" >"$dir/hbm2.yaml"
grep -q '^  timing: hbm2' "$dir/hbm2.yaml" || fail "could not add the timing preset"
"$maeri" verify --hardware "$dir/hbm2.yaml" --workload "$configs/workloads/tiny.yaml" --layer fc \
  --json "$dir/v.json" >"$dir/out.txt" 2>&1 || { cat "$dir/out.txt"; fail "verify exited $?"; }
cat "$dir/out.txt"
grep -q "PASS (10 outputs bit-exact)" "$dir/out.txt" || fail "fc is not bit-exact"
misses=$(grep -o '"dram_row_misses": [0-9]*' "$dir/v.json" | grep -o '[0-9]*$')
refreshes=$(grep -o '"dram_refreshes": [0-9]*' "$dir/v.json" | grep -o '[0-9]*$')
[[ -n $misses && $misses -gt 0 ]] || fail "no row misses counted ($misses)"
[[ -n $refreshes && $refreshes -gt 0 ]] || fail "no refresh counted ($refreshes)"
grep -E "^  cycles \(with DRAM\)" "$dir/out.txt" | grep -q " 0\.00%" || fail "the model does not predict the device's cycles exactly"
echo "row misses $misses, refreshes $refreshes"
