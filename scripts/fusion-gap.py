#!/usr/bin/env python3
"""Where ResNet-50's fused DRAM bytes on maeri-512 (energy objective) exceed the lower bound of
scripts/fusion-bound.py, and what each limit of the fused space costs (docs/model.md, "Fused groups"):
  1. per bottleneck block (the stem with res2a; fc with res5c), the DRAM bytes of map's decision beyond the block's
     weights read once (the image and fc's output are compulsory too), against the bound's term of that block;
  2. `maeri map` again with one limit lifted at a time: groups of 16 layers (--fusion-max-layers), each layer's
     fabric tiles from its best 32 mappings (--fusion-tiles), DRAM bytes as the objective (the hardware with
     dram_byte x 1000, so energy ranks by DRAM bytes first), and the SDM doubled (1024 KiB).

  scripts/fusion-gap.py --maeri build/cli/maeri
"""
import argparse
import importlib.util
import json
import os
import re
import subprocess
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("fusion_bound", os.path.join(HERE, "fusion-bound.py"))
bound = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bound)


def run_map(maeri, workload, hardware, extra=(), hardware_text=None):
    with tempfile.TemporaryDirectory() as work:
        if hardware_text is not None:
            hardware = os.path.join(work, "hardware.yaml")
            with open(hardware, "w") as f:
                f.write(hardware_text)
        out = os.path.join(work, "map")
        subprocess.run([maeri, "map", "--workload", workload, "--hardware", hardware, "--objective", "energy",
                        "--json", out + ".json", "-o", out + ".yaml", *extra], check=True, capture_output=True)
        with open(out + ".json") as f:
            return json.load(f)


def block_of(name):
    match = re.match(r"(res\d[a-f])_", name)
    if match:
        return match.group(1)
    return "res2a" if name == "conv1" else "res5c"  # conv1 with the first block, fc1000 with the last


def decision_bytes(result):
    """Per layer, its DRAM bytes as map decided (in its fused role, or alone)."""
    return {l["layer"]: (l["in_role"] if l.get("fused_group") else l["best"][0])["counts"]["dram_bytes"]
            for l in result["layers"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--maeri", required=True)
    a = parser.parse_args()
    setting = bound.Setting()
    workload, hardware, hardware_text = setting.workload, setting.hardware, setting.hardware_text
    data_b, acc_b, sdm = setting.data_b, setting.acc_b, setting.sdm
    with open(workload) as f:
        operators = yaml.safe_load(f)["operators"]
    layers = {op["name"]: op for op in operators if op["type"] in ("conv", "fc")}
    result = run_map(a.maeri, workload, hardware)
    fusion = result["fusion"]
    unfused = fusion["unfused"]["dram_bytes"]
    compulsory_extra = fusion["network_compulsory_dram_bytes"] - sum(bound.weights(l) * data_b for l in layers.values())
    per_layer = decision_bytes(result)
    excess = {}
    for name, layer in layers.items():
        excess[block_of(name)] = excess.get(block_of(name), 0) + per_layer[name] - bound.weights(layer) * data_b
    # A block's output (its input X for the next block) counts with the next block, as the bound's terms count it.
    order = list(excess)
    for i, name in enumerate(order[:-1]):
        last = layers.get(f"{name}_branch1") or layers[f"{name}_branch2c"]
        entry = next(l for l in result["layers"] if l["layer"] == last["name"])
        if not (entry.get("fused_group") or {}).get("output_in_sdm", False):
            moved = last["K"] * last["X_out"] * last["Y_out"] * acc_b
            excess[name] -= moved
            excess[order[i + 1]] += moved
    print(f"1. per block: map's DRAM bytes beyond its weights once vs the bound's term "
          f"(image and fc output, compulsory: {compulsory_extra};\n   a block's output written counts with the next block)")
    print(f"   {'block':<6} {'map':>10} {'bound':>10} {'gap':>10}")
    gap_total = 0
    for name, extra in excess.items():
        term = bound.block_extra({n: l for n, l in layers.items() if l["type"] == "conv"}, name, data_b, acc_b, sdm)
        gap_total += extra - term
        print(f"   {name:<6} {extra:>10} {term:>10} {extra - term:>10}")
    print(f"   total gap {gap_total - compulsory_extra} bytes; map {fusion['fused']['dram_bytes']} = "
          f"{fusion['fused']['dram_bytes'] / unfused:.4f} of unfused ({unfused})")
    print("2. one limit lifted at a time (fused DRAM bytes, of its own unfused optimum):")
    dram_first = re.sub(r"dram_byte: *([0-9.]+)", lambda m: f"dram_byte: {float(m.group(1)) * 1000}", hardware_text)
    double_sdm = re.sub(r"capacity_kib: *(\d+)", lambda m: f"capacity_kib: {2 * int(m.group(1))}", hardware_text)
    for label, extra, text in (("as shipped", (), None), ("groups of <= 16 layers", ("--fusion-max-layers", "16"), None),
                               ("fabric tiles of the best 32", ("--fusion-tiles", "32"), None),
                               ("DRAM bytes first (dram_byte x 1000)", (), dram_first),
                               ("SDM 1024 KiB", (), double_sdm)):
        f = run_map(a.maeri, workload, hardware, extra, text)["fusion"]
        print(f"   {label:<38} {f['fused']['dram_bytes']:>10} = {f['fused']['dram_bytes'] / f['unfused']['dram_bytes']:.4f} "
              f"of {f['unfused']['dram_bytes']}")


if __name__ == "__main__":
    main()
