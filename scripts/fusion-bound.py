#!/usr/bin/env python3
"""The lower bound on ResNet-50's fused DRAM bytes on maeri-512 that docs/model.md ("Fused groups") quotes, from the
workload's shapes, the hardware's SDM, data and accumulator widths and one `maeri map --json` run (the network's
compulsory bytes, the unfused optimum under the energy objective). The fusion rules it rests on
(mapper/model/fusion_model.cpp): a group is consecutive layers and every tensor between two of its members is shared
(held in the SDM); with one stripe a shared tensor is held whole from its producer to its last reader, with s >= 2
stripes every shared tensor holds at least one stripe of its rows (ceil(X'/s) rows of its producer) for the whole
group; weights come once per stripe but for what is pinned, and pins stay for the whole group (relaxed here to any
part of a layer's weights); an output leaving its group is written at accumulator width and read at data width; an
add reads its shortcut from DRAM at no cost; working sets are taken as 0. Per bottleneck block, the fewest extra
bytes on its input tensor X (written, read) or its own weights (fetched again), each term on different bytes:
  identity blocks (res3b-d, res4b-f): X written (X at accumulator width; 2a reads it, or shares it with X's producer),
      or X held: X's producer and the block in one group, one stripe if X, 2b's input and output fit, else s stripes
      with X's, 2b's input and output rows live and the block's weights refetched but for what is pinned;
  projection blocks (res3a, res4a, res5a): the same with both readers of X (2a, and the strided 1x1 branch1 reading
      a quarter of X), the rows of X and 2a's output live, and the four layers' weights.
The same bound with outputs requantized on their way out (written at data width, as a post-processing unit on the
output path would write them), against the unfused optimum in that convention: every layer alone writes each of its
outputs once, so that optimum moves (accumulator - data) bytes less per output of every fabric layer (the energy of
every mapping of a layer drops by the same amount, so the same mappings stay optimal).

  scripts/fusion-bound.py --maeri build/cli/maeri
"""
import argparse
import itertools
import json
import math
import os
import subprocess
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = os.path.join(HERE, "..", "configs")


def mapped(maeri, workload, hardware):
    with tempfile.TemporaryDirectory() as work:
        out = os.path.join(work, "map")
        subprocess.run([maeri, "map", "--workload", workload, "--hardware", hardware, "--objective", "energy",
                        "--json", out + ".json", "-o", out + ".yaml"], check=True, capture_output=True)
        with open(out + ".json") as f:
            return json.load(f)


def weights(layer):
    return layer["K"] * layer["C"] * layer.get("R", 1) * layer.get("S", 1)


def rows_of(layer):
    """A layer's output: (rows X', bytes-per-element-free row size K * Y')."""
    return layer["X_out"], layer["K"] * layer["Y_out"]


def most_pinned(layer_weights, budget, whole_pins):
    """The most weight bytes pinned in `budget`: any part of the layers' weights, or (whole_pins, as the fused space
    pins) whole layers only."""
    if not whole_pins:
        return min(sum(layer_weights), max(0, budget))
    return max((sum(subset) for n in range(len(layer_weights) + 1)
                for subset in itertools.combinations(layer_weights, n) if sum(subset) <= budget), default=0)


def striped_refetch(live_rows, layer_weights, data_b, sdm, max_stripes, whole_pins=False):
    """The fewest weight bytes fetched again over s >= 2 stripes: `live_rows` are (rows, elements per row) of the
    tensors live throughout, `layer_weights` the elements of each layer's weights; infeasible stripe counts (live rows
    beyond the SDM) are skipped."""
    best = math.inf
    weight_bytes = [w * data_b for w in layer_weights]
    for s in range(2, max_stripes + 1):
        live = sum(math.ceil(rows / s) * row * data_b for rows, row in live_rows)
        if live <= sdm:
            best = min(best, (s - 1) * (sum(weight_bytes) - most_pinned(weight_bytes, sdm - live, whole_pins)))
    return best


def block_extra(layers, name, data_b, acc_b, sdm, whole_pins=False):
    """The fewest extra bytes of bottleneck block `name` (see the docstring); `whole_pins`: pins of whole layers only."""
    a, b, c = (layers[f"{name}_branch2{s}"] for s in "abc")
    projection = layers.get(f"{name}_branch1")
    x_rows, x_row = a["X"], a["C"] * a["Y"]
    x = x_rows * x_row
    a_rows, a_row = rows_of(a)
    b_rows, b_row = rows_of(b)
    own = [weights(l) for l in (a, b, c)] + ([weights(projection)] if projection else [])
    max_stripes = min(rows_of(l)[0] for l in (a, b, c))
    # 2a shares X with X's producer (X written for its other reader): 2a's output spilled, or held with X.
    a_fits = (x + a_rows * a_row) * data_b <= sdm
    share_a = min(0 if a_fits else striped_refetch([(x_rows, x_row), (a_rows, a_row)], [weights(a)], data_b, sdm,
                                                  max_stripes, whole_pins),
                  a_rows * a_row * (acc_b + data_b))
    if projection:
        touched = projection["C"] * projection["X_out"] * projection["Y_out"]  # the strided 1x1 reads these
        written = x * acc_b + min(x * data_b, touched * data_b + share_a)
        held = striped_refetch([(x_rows, x_row), (a_rows, a_row)], own, data_b, sdm, max_stripes, whole_pins)
        if (x + a_rows * a_row) * data_b <= sdm:
            held = 0  # one stripe might fit: no term
    else:
        written = x * acc_b + min(x * data_b, share_a)
        live = [(x_rows, x_row), (a_rows, a_row), (b_rows, b_row)]
        held = 0 if sum(r * w for r, w in live) * data_b <= sdm else striped_refetch(live, own, data_b, sdm, max_stripes,
                                                                                      whole_pins)
    return min(written, held)


class Setting:
    """ResNet-50 on maeri-512, the shipped files: their paths, the hardware spec's text, and the sizes the bound
    uses (data and accumulator bytes, SDM bytes)."""

    def __init__(self):
        self.workload = os.path.join(CONFIGS, "workloads", "resnet50.yaml")
        self.hardware = os.path.join(CONFIGS, "hardware", "maeri-512.yaml")
        with open(self.hardware) as f:
            self.hardware_text = f.read()
        hw = yaml.safe_load(self.hardware_text)
        self.data_b, self.acc_b = math.ceil(hw["data_width"] / 8), math.ceil(hw["acc_width"] / 8)
        self.sdm = hw["sdm"]["capacity_kib"] * 1024


def fabric_output_elements(operators):
    """Every output element of the fabric layers (conv, fc) of the workload, and of its fc layer alone (fc1000,
    whose output the final softmax makes the network's output)."""
    conv = sum(op["K"] * op["X_out"] * op["Y_out"] for op in operators if op["type"] == "conv")
    fc = sum(op["K"] for op in operators if op["type"] == "fc")
    return conv + fc, fc


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--maeri", required=True)
    a = parser.parse_args()
    setting = Setting()
    workload, hardware = setting.workload, setting.hardware
    data_b, acc_b, sdm = setting.data_b, setting.acc_b, setting.sdm
    with open(workload) as f:
        operators = yaml.safe_load(f)["operators"]
    layers = {op["name"]: op for op in operators if op["type"] == "conv"}
    fusion = mapped(a.maeri, workload, hardware)["fusion"]
    compulsory, unfused, fused = (fusion["network_compulsory_dram_bytes"], fusion["unfused"]["dram_bytes"],
                                  fusion["fused"]["dram_bytes"])
    blocks = [f"res{stage}{b}" for stage, count in ((2, 3), (3, 4), (4, 6), (5, 3)) for b in "abcdef"[:count]]
    terms = {name: block_extra(layers, name, data_b, acc_b, sdm) for name in blocks}
    bound = compulsory + sum(terms.values())
    print(f"compulsory {compulsory}; per block: " + ", ".join(f"{n} {t}" for n, t in terms.items() if t))
    print(f"bound {bound} bytes = {bound / unfused:.4f} of the unfused optimum under energy ({unfused}); "
          f"map's fused result {fused} = {fused / unfused:.3f}")
    # The same with pins of whole layers, as the fused space pins: what pinning part of a layer could gain at most.
    whole = compulsory + sum(block_extra(layers, name, data_b, acc_b, sdm, True) for name in blocks)
    print(f"with pins of whole layers only: {whole} bytes = {whole / unfused:.4f}")
    # Outputs requantized on their way out: written at data width, in the fused and in the unfused mappings alike.
    outputs, network_outputs = fabric_output_elements(operators)
    unfused_data = unfused - (acc_b - data_b) * outputs
    terms_data = {name: block_extra(layers, name, data_b, data_b, sdm) for name in blocks}
    bound_data = compulsory - (acc_b - data_b) * network_outputs + sum(terms_data.values())
    print(f"outputs written at data width: per block: " + ", ".join(f"{n} {t}" for n, t in terms_data.items() if t))
    print(f"outputs written at data width: bound {bound_data} bytes = {bound_data / unfused_data:.4f} of the unfused "
          f"optimum at data width ({unfused_data} = {unfused} - {acc_b - data_b} x {outputs} output elements)")


if __name__ == "__main__":
    main()
