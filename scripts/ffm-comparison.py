#!/usr/bin/env python3
"""The FFM paper's transformer comparison (Andrulis et al., "Fast and Fusiest"), reproduced on MAERI: for the GPT-2
small block and the BERT-base layer (scripts/make-transformer-workloads.py) on maeri-512 and maeri-1024 at sequence
lengths 128 … 4096, the DRAM bytes, energy, cycles and EDP of
  (a) unfused        `maeri map --no-fusion --objective edp`: every layer alone, its own best;
  (b) transfusion    TransFusion's fixed policy, every Einsum fused but K and V: `maeri map --fuse
                     query,scores,context,attention_output,intermediate,output --objective edp`, the layers of
                     that one group fused and every other alone, map picking the group's stripes and mappings (token
                     stripes through the head split and merge, the products in query-row stripes; docs/mapping.md,
                     "Fused groups"); a policy the fusion rules refuse carries the rule in its note;
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


def policy(maeri, hardware, workload, work):
    """(b): TransFusion's group fixed (`maeri map --fuse`), its stripes and mappings the best by EDP."""
    result, _ = mapped(maeri, hardware, workload, work, "transfusion", ["--fuse", ",".join(POLICY_GROUP)])
    if "note" in result:
        result["note"] = "refused: " + result["note"].split("field '--fuse': ")[-1]
    return result


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
    # A series with a sequence the policy was refused at is in the CSV, not on the chart (plot reads numbers only).
    columns = [c for c in columns if all(c in table[sequence] for sequence in table)]
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
                    unfused, _ = mapped(a.maeri, hardware, workload, work, "unfused", ["--no-fusion"])
                    rows.append(dict(key, variant="unfused", **unfused))
                    rows.append(dict(key, variant="transfusion", **policy(a.maeri, hardware, workload, work)))
                    fused, _ = mapped(a.maeri, hardware, workload, work, "fused", [])
                    rows.append(dict(key, variant="fused_optimum", **fused))
                    policy_row = rows[-2]
                    print(f"{model} maeri-{num_ms} S={sequence}: unfused EDP {unfused.get('edp', float('nan')):.4g}, "
                          f"transfusion {policy_row.get('edp', float('nan')):.4g} {policy_row.get('note', '')}, "
                          f"fused {fused.get('edp', float('nan')):.4g} ({fused.get('map_seconds')} s)", flush=True)
    with open(a.output + ".csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    chart(a.maeri, rows, a.output)
    print(f"wrote {a.output}.csv, {a.output}-edp.csv and {a.output}.svg")


if __name__ == "__main__":
    main()
