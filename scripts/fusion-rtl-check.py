#!/usr/bin/env python3
"""Whether a fused mapping is never slower on the RTL than `--no-fusion` when the model says it is faster (issue 45's
fusion check; docs/model.md, "Which model decides what"): for a workload on a fabric whose SDM capacity is set to each
of the given sizes, `maeri verify --chain --memory dram` runs the network as `maeri map` decides it (fused groups)
and with --no-fusion, and this script sums the fabric layers' cycles with DRAM, model and RTL, of each run.

Prints one line per SDM size: the fused groups formed, the fused and unfused totals (model, RTL), which the model
says is faster and which the RTL says, and whether they agree (the same order, or equal). --csv writes the rows. It
measures; it does not fail on a disagreement (exit 0 unless a command fails or a run does not PASS).

Usage: scripts/fusion-rtl-check.py --hardware H --workload W [--sdm-kib 8,16,32,64] [--csv OUT.csv] [--maeri PATH]
The tool: --maeri, else $MAERI, else build/cli/maeri, else `maeri` on PATH.
"""
import argparse
import csv
import json
import os
import re
import sys
import tempfile

from maeri_tool import find_maeri, run

CYCLES = "cycles (with DRAM)"
FIELDS = ["sdm_kib", "groups", "fused_model", "fused_rtl", "unfused_model", "unfused_rtl", "model_says", "rtl_says",
          "agree"]


def with_sdm(hardware, kib, scratch):
    """A copy of the hardware YAML whose SDM capacity is `kib` KiB (its `sdm: capacity_kib:` line replaced)."""
    with open(hardware) as file:
        text = file.read()
    changed, count = re.subn(r"(?m)^(\s+capacity_kib:\s*)[0-9]+", lambda m: m.group(1) + str(kib), text, count=1)
    if count != 1:
        sys.exit(f"fusion-rtl-check: {hardware}: no `capacity_kib:` line under `sdm:` to set")
    path = os.path.join(scratch, f"sdm-{kib}.yaml")
    with open(path, "w") as file:
        file.write(changed)
    return path


def chained_run(maeri, hardware, workload, fused, scratch):
    """(groups, model cycles, RTL cycles): the fabric layers' cycles with DRAM summed over a chained run."""
    path = os.path.join(scratch, "run.json")
    command = [maeri, "verify", "--chain", "--hardware", hardware, "--workload", workload, "--memory", "dram",
               "--json", path] + ([] if fused else ["--no-fusion"])
    run(command, "fusion-rtl-check")
    with open(path) as file:
        outcome = json.load(file)
    if outcome["result"] != "PASS":
        sys.exit(f"fusion-rtl-check: `{' '.join(command)}`: {outcome['result']}")
    model = rtl = 0.0
    for operator in outcome["operators"]:
        if operator["where"] != "fabric":
            continue
        row = next(row for row in operator["cross_check"] if row["metric"] == CYCLES)
        model += row["model"]
        rtl += row["rtl"]
    return len(outcome.get("groups") or []), model, rtl


def faster(fused, unfused):
    return "fused" if fused < unfused else "unfused" if unfused < fused else "equal"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hardware", required=True)
    parser.add_argument("--workload", required=True)
    parser.add_argument("--sdm-kib", default="8,16,32,64", help="SDM capacities to try, KiB, comma-separated")
    parser.add_argument("--csv")
    parser.add_argument("--maeri")
    args = parser.parse_args()
    maeri = find_maeri(args.maeri, "fusion-rtl-check")
    sizes = [int(size) for size in args.sdm_kib.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        print(f"{'SDM KiB':>7} {'groups':>6} {'fused model':>12} {'fused RTL':>10} {'unfused model':>13} "
              f"{'unfused RTL':>11}  model says  RTL says  agree")
        for kib in sizes:
            hardware = with_sdm(args.hardware, kib, scratch)
            groups, fused_model, fused_rtl = chained_run(maeri, hardware, args.workload, True, scratch)
            _, unfused_model, unfused_rtl = chained_run(maeri, hardware, args.workload, False, scratch)
            model_says, rtl_says = faster(fused_model, unfused_model), faster(fused_rtl, unfused_rtl)
            row = dict(zip(FIELDS, [kib, groups, int(fused_model), int(fused_rtl), int(unfused_model),
                                    int(unfused_rtl), model_says, rtl_says, "yes" if model_says == rtl_says else "no"]))
            rows.append(row)
            print(f"{kib:>7} {groups:>6} {row['fused_model']:>12} {row['fused_rtl']:>10} {row['unfused_model']:>13} "
                  f"{row['unfused_rtl']:>11}  {model_says:<10}  {rtl_says:<8}  {row['agree']}", flush=True)
    slower = [row for row in rows if row["model_says"] == "fused" and row["fused_rtl"] > row["unfused_rtl"]]
    print(f"{len(rows) - len(slower)} of {len(rows)} SDM sizes: fused never slower on the RTL where the model says "
          f"it is faster; the order agrees in {sum(row['agree'] == 'yes' for row in rows)} of {len(rows)}")
    if args.csv:
        with open(args.csv, "w", newline="") as file:
            writer = csv.DictWriter(file, fieldnames=FIELDS)
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
