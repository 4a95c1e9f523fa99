#!/usr/bin/env python3
"""The lower bound on ResNet-50's fused DRAM bytes on maeri-512 that docs/model.md ("Fused groups") quotes, from the
workload's shapes, the hardware's SDM and data width and two `maeri map --json` runs (the network's compulsory bytes,
the unfused optimum under the energy objective). Streams pass pools (docs/mapping.md, "Fused groups"), so the terms
that remain are the residual inputs X no group can hold:
  (b) each identity block of res4 (b-f): X written and read back (2·X), or shared with X's producer — with one stripe
      X, the 3x3 layer's input and output do not fit the SDM together; with s >= 2 stripes the block's weights come
      s times but for what is pinned next to X's rows;
  (c) each of res3b-d (X larger than the SDM): X written and read back, or s >= 2 stripes refetching the weights
      but for what is pinned next to X's rows.

  scripts/fusion-bound.py --maeri build/cli/maeri
"""
import argparse
import json
import math
import os
import subprocess
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = os.path.join(HERE, "..", "configs")


def mapped(maeri, workload, hardware, extra):
    with tempfile.TemporaryDirectory() as work:
        out = os.path.join(work, "map")
        subprocess.run([maeri, "map", "--workload", workload, "--hardware", hardware, "--objective", "energy",
                        "--json", out + ".json", "-o", out + ".yaml"] + extra, check=True, capture_output=True)
        with open(out + ".json") as f:
            return json.load(f)


def block(layers, name):
    """The bottleneck block `name`: X's bytes per element, X's elements and rows, and its three layers' weights."""
    a, b, c = (layers[f"{name}_branch2{s}"] for s in "abc")
    weights = sum(l["K"] * l["C"] * l.get("R", 1) * l.get("S", 1) for l in (a, b, c))
    return dict(x=a["C"] * a["X"] * a["Y"], rows=a["X"], row=a["C"] * a["Y"], weights=weights,
                inner=b["C"] * b["X"] * b["Y"] + b["K"] * b["X_out"] * b["Y_out"])


def least_extra(blk, data_b, sdm):
    """The fewest extra bytes of block `blk`: X written once and read once, or held in s >= 2 stripes."""
    written = 2 * blk["x"] * data_b
    if (blk["x"] + blk["inner"]) * data_b <= sdm:
        return 0  # one stripe fits: the bound has no term here
    striped = min((s - 1) * max(0, blk["weights"] * data_b - max(0, sdm - blk["row"] * data_b * math.ceil(blk["rows"] / s)))
                  for s in range(2, blk["rows"] + 1))
    return min(written, striped)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--maeri", required=True)
    a = parser.parse_args()
    workload = os.path.join(CONFIGS, "workloads", "resnet50.yaml")
    hardware = os.path.join(CONFIGS, "hardware", "maeri-512.yaml")
    with open(hardware) as f:
        hw = yaml.safe_load(f)
    data_b, sdm = math.ceil(hw["data_width"] / 8), hw["sdm"]["capacity_kib"] * 1024
    with open(workload) as f:
        layers = {op["name"]: op for op in yaml.safe_load(f)["operators"] if op["type"] == "conv"}
    fusion = mapped(a.maeri, workload, hardware, [])["fusion"]
    # Every layer alone at its standalone best, as `maeri map` compares its fused result with.
    compulsory, unfused, fused = (fusion["network_compulsory_dram_bytes"], fusion["unfused"]["dram_bytes"],
                                  fusion["fused"]["dram_bytes"])
    res4 = [least_extra(block(layers, f"res4{b}"), data_b, sdm) for b in "bcdef"]
    res3 = [least_extra(block(layers, f"res3{b}"), data_b, sdm) for b in "bcd"]
    bound = compulsory + sum(res4) + sum(res3)
    print(f"compulsory {compulsory}; res4 b-f {res4}; res3 b-d {res3}")
    print(f"bound {bound} bytes = {bound / unfused:.3f} of the unfused optimum under energy ({unfused}); "
          f"map's fused result {fused} = {fused / unfused:.3f}")


if __name__ == "__main__":
    main()
