#!/usr/bin/env python3
"""Whether `maeri map`'s first mapping of each layer is the fastest of its top N on the RTL (the ranking check of
docs/model.md): for every fabric layer of a workload, `maeri verify --layer L --top N --memory dram` co-simulates the
layer's N best mappings as the mapper ranks them, with the SDM/DRAM models, and this script compares their cycles.

Prints one line per layer (the first mapping's co-simulated cycles, the fastest of the N and its rank, the loss of
the first against it, the largest model error among the N) and a summary: in how many layers the first is within
--tolerance percent of the fastest. --csv writes the rows. It measures; it does not fail on a loss (exit 0 unless a
command fails).

Usage: scripts/rank-check.py --hardware H --workload W [--top 8] [--layers L1,L2,...] [--tolerance 0.5]
                             [--csv OUT.csv] [--maeri PATH]
The tool: --maeri, else $MAERI, else build/cli/maeri, else `maeri` on PATH.
"""
import argparse
import csv
import json
import os
import sys
import tempfile

from maeri_tool import find_maeri, run

CYCLES = "cycles (with DRAM)"


def fabric_layers(maeri, hardware, workload, scratch):
    path = os.path.join(scratch, "map.json")
    run([maeri, "map", "--hardware", hardware, "--workload", workload, "--no-fusion", "--json", path], "rank-check")
    with open(path) as file:
        return [entry["layer"] for entry in json.load(file)["layers"]]


def ranked_runs(maeri, hardware, workload, layer, top, scratch):
    """(model cycles, RTL cycles) of the layer's top mappings, in the mapper's order."""
    path = os.path.join(scratch, "verify.json")
    run([maeri, "verify", "--hardware", hardware, "--workload", workload, "--layer", layer, "--top", str(top),
         "--memory", "dram", "--json", path], "rank-check")
    with open(path) as file:
        runs = json.load(file)
    cycles = []
    for entry in runs:
        row = next((row for row in entry["cross_check"] if row["metric"] == CYCLES), None)
        if row is None:
            sys.exit(f"rank-check: verify's JSON for layer {layer} has no '{CYCLES}' row")
        cycles.append((row["model"], row["rtl"]))
    return cycles


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hardware", required=True)
    parser.add_argument("--workload", required=True)
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument("--layers", help="comma-separated layer names (default: every fabric layer)")
    parser.add_argument("--tolerance", type=float, default=0.5, help="percent (default 0.5)")
    parser.add_argument("--csv")
    parser.add_argument("--maeri")
    args = parser.parse_args()
    maeri = find_maeri(args.maeri, "rank-check")
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        layers = args.layers.split(",") if args.layers else fabric_layers(maeri, args.hardware, args.workload, scratch)
        for layer in layers:
            cycles = ranked_runs(maeri, args.hardware, args.workload, layer, args.top, scratch)
            rtl = [r for _, r in cycles]
            fastest = min(range(len(rtl)), key=lambda i: (rtl[i], i))
            loss = 100.0 * (rtl[0] / rtl[fastest] - 1.0)
            model_error = max(abs(m / r - 1.0) * 100.0 for m, r in cycles)
            rows.append({"layer": layer, "mappings": len(rtl), "first_rtl_cycles": int(rtl[0]),
                         "fastest_rtl_cycles": int(rtl[fastest]), "fastest_rank": fastest + 1,
                         "loss_percent": round(loss, 3), "largest_model_error_percent": round(model_error, 3)})
            print(f"{layer}: #1 {int(rtl[0])} cycles on the RTL, fastest #{fastest + 1} {int(rtl[fastest])} "
                  f"(#1 loses {loss:.2f} %), of {len(rtl)}; model error up to {model_error:.2f} %", flush=True)
    if args.csv:
        with open(args.csv + ".partial", "w", newline="") as file:
            writer = csv.DictWriter(file, fieldnames=list(rows[0].keys()))
            writer.writeheader()
            writer.writerows(rows)
        os.replace(args.csv + ".partial", args.csv)
    within = sum(1 for row in rows if row["loss_percent"] <= args.tolerance)
    worst = max(rows, key=lambda row: row["loss_percent"])
    print(f"{within} of {len(rows)} layers: #1 within {args.tolerance} % of the RTL-fastest of its top {args.top}; "
          f"worst loss {worst['loss_percent']:.2f} % ({worst['layer']})")


if __name__ == "__main__":
    main()
