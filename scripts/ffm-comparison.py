#!/usr/bin/env python3
"""The FFM paper's transformer comparison (Andrulis et al., "Fast and Fusiest"), reproduced on MAERI: for the GPT-2
small block and the BERT-base layer (scripts/make-transformer-workloads.py) on maeri-512 and maeri-1024 at sequence
lengths 128 … 4096, the DRAM bytes, energy, cycles and EDP of
  (a) unfused        `maeri map --no-fusion --objective edp`: every layer alone, its own best;
  (b) transfusion    TransFusion's fixed policy, every Einsum fused but K and V: the unfused mapping file with one
                     fused group [query … output] (docs/mapping.md, "Fused groups"), costed by
                     `maeri map --mapping FILE` (which checks it as codegen does) when the toolkit's fusion rules
                     admit it, otherwise the row carries the rule that refuses it (the group is connected: streams
                     pass softmax, transposes and reshapes, and Q·Kᵀ, P·V read their operand A from the group; what
                     refuses it is its members' mappings alone, without an SDM level, and at these sizes the
                     tensors a group of one stripe holds whole, larger than the SDM: token stripes are not in the
                     fused space);
  (c) fused_optimum  `maeri map --objective edp`: the fused groups map finds, the network's EDP its objective.
Writes OUTPUT.csv (one row per model, hardware, sequence and variant), OUTPUT-edp.csv (EDP relative to unfused,
one row per sequence) and its chart OUTPUT.svg (`maeri plot`).

  scripts/ffm-comparison.py --maeri build/cli/maeri -o ffm-comparison     # ffm-comparison{.csv,-edp.csv,.svg}
  scripts/ffm-comparison.py --maeri build/cli/maeri --sequences 128,256 --hardware 512 -o quick
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = os.path.join(HERE, "..", "configs")
MODELS = {"gpt2": "gpt2", "bert": "bert"}
# TransFusion's policy on the block's fabric layers (the workload lists K and V first so that the rest is a run).
POLICY_GROUP = ["query", "scores", "context", "attention_output", "intermediate", "output"]
FIELDS = ["model", "hardware", "sequence", "variant", "dram_bytes", "energy_pj", "cycles", "edp", "map_seconds",
          "note"]


def run(command):
    started = time.time()
    done = subprocess.run(command, capture_output=True, text=True)
    return done, time.time() - started


def totals(json_path):
    with open(json_path) as f:
        d = json.load(f)
    return dict(dram_bytes=d["total_dram_bytes"], energy_pj=d["total_energy_pj"], cycles=d["total_cycles"],
                edp=d["total_energy_pj"] * d["total_cycles"])


def mapped(maeri, hardware, workload, work, tag, extra):
    out = os.path.join(work, tag)
    done, seconds = run([maeri, "map", "--hardware", hardware, "--workload", workload, "--objective", "edp",
                         "--json", out + ".json", "-o", out + ".yaml"] + extra)
    if done.returncode != 0:
        return dict(note=f"map failed: {done.stderr.strip()[-300:]}", map_seconds=round(seconds, 2)), None
    return dict(totals(out + ".json"), map_seconds=round(seconds, 2)), out + ".yaml"


def policy(maeri, hardware, workload, unfused_mapping, work):
    """(b): the unfused mapping with TransFusion's group, costed by `maeri map --mapping` (refused as codegen
    refuses it)."""
    with open(unfused_mapping) as f:
        text = f.read().rstrip("\n")
    path = os.path.join(work, "transfusion.yaml")
    with open(path, "w") as f:
        f.write(text + "\nfused_groups:\n  - name: transfusion\n    layers: [" + ", ".join(POLICY_GROUP)
                + "]\n    stripes: 1\n")
    json_path = os.path.join(work, "transfusion.json")
    done, _ = run([maeri, "map", "--hardware", hardware, "--workload", workload, "--objective", "edp", "--mapping",
                   path, "--json", json_path])
    if done.returncode != 0:
        reason = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"
        return dict(note="refused: " + reason.split("fused group 'transfusion': ")[-1])
    return totals(json_path)


def chart(maeri, rows, prefix):
    """EDP relative to unfused against the sequence length, one series per model × hardware × fused variant that was
    costed: PREFIX-edp.csv (one row per sequence) drawn by `maeri plot` into PREFIX.svg."""
    unfused = {(r["model"], r["hardware"], r["sequence"]): r.get("edp") for r in rows if r["variant"] == "unfused"}
    table, columns = {}, []
    for r in rows:
        base = unfused.get((r["model"], r["hardware"], r["sequence"]))
        if r["variant"] == "unfused" or r.get("edp") in (None, "") or not base:
            continue
        column = f'{r["model"]}_{r["hardware"]}_{r["variant"]}'
        if column not in columns:
            columns.append(column)
        table.setdefault(r["sequence"], {})[column] = r["edp"] / base
    with open(prefix + "-edp.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["sequence"] + columns)
        for sequence in sorted(table):
            writer.writerow([sequence] + [table[sequence].get(c, "") for c in columns])
    if columns:
        subprocess.run([maeri, "plot", "--csv", prefix + "-edp.csv", "--x", "sequence", "--y", ",".join(columns),
                        "--lines", "--log-x", "--title", "EDP relative to unfused (FFM's comparison on MAERI)",
                        "--x-label", "sequence length", "--y-label", "EDP / unfused EDP", "-o", prefix + ".svg"],
                       check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--maeri", required=True, help="the maeri binary")
    parser.add_argument("--hardware", default="512,1024", help="num_ms of configs/hardware/maeri-N.yaml")
    parser.add_argument("--sequences", default="128,256,512,1024,2048,4096")
    parser.add_argument("--models", default="gpt2,bert")
    parser.add_argument("-o", "--output", required=True, help="prefix of OUTPUT.csv and OUTPUT.svg")
    a = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for model in a.models.split(","):
            for sequence in (int(s) for s in a.sequences.split(",")):
                workload = os.path.join(work, f"{model}-{sequence}.yaml")
                subprocess.run([sys.executable, os.path.join(HERE, "make-transformer-workloads.py"), "--model",
                                MODELS[model], "--sequence", str(sequence), "-o", workload], check=True)
                for num_ms in a.hardware.split(","):
                    hardware = os.path.join(CONFIGS, "hardware", f"maeri-{num_ms}.yaml")
                    key = dict(model=model, hardware=int(num_ms), sequence=sequence)
                    unfused, unfused_mapping = mapped(a.maeri, hardware, workload, work, "unfused", ["--no-fusion"])
                    rows.append(dict(key, variant="unfused", **unfused))
                    rows.append(dict(key, variant="transfusion",
                                     **(policy(a.maeri, hardware, workload, unfused_mapping, work)
                                        if unfused_mapping else dict(note="no unfused mapping"))))
                    fused, _ = mapped(a.maeri, hardware, workload, work, "fused", [])
                    rows.append(dict(key, variant="fused_optimum", **fused))
                    print(f"{model} maeri-{num_ms} S={sequence}: unfused EDP {unfused.get('edp', '-'):.4g}, "
                          f"fused {fused.get('edp', float('nan')):.4g} ({fused.get('map_seconds')} s); "
                          f"transfusion: {rows[-2].get('note')}", flush=True)
    with open(a.output + ".csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    chart(a.maeri, rows, a.output)
    print(f"wrote {a.output}.csv, {a.output}-edp.csv and {a.output}.svg")


if __name__ == "__main__":
    main()
