#!/usr/bin/env python3
"""Writes the real values of a transformer workload's named constants (scripts/make-transformer-workloads.py) as an
.npz for `maeri verify --chain --network-weights`: `attention_scale` = 1/√d and, for a causal block, `causal_mask`
[S, L] = 0 where key j ≤ query i + (L − S) and MASK above (Hugging Face GPT-2's `masked_bias`, −10⁴, by default).
The weights, biases and LayerNorm's γ, β are left out (seeded by the run, docs/quantization.md).

  scripts/transformer-constants.py --head-size 32 --causal 32,32 -o constants.npz
  scripts/transformer-constants.py --random hidden=32,64,1,1 --seed 1 -o x.npy      # a float32 input, U(-1, 1)
  scripts/transformer-constants.py --random hidden=32,64,1,1 --padding-mask attention_mask=32,4 -o inputs.npz
"""
import argparse
import random
import struct
import zipfile


def npy_bytes(shape, values):
    """NumPy's format 1.0, little-endian float32, C order."""
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
        ", ".join(str(d) for d in shape) if len(shape) != 1 else f"{shape[0]},")
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + struct.pack(
        f"<{len(values)}f", *values)


def shape_of(text):
    return [int(d) for d in text.split(",")]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--head-size", type=int, help="d: the member attention_scale = 1/sqrt(d)")
    parser.add_argument("--causal", metavar="S,L", help="the member causal_mask [S, L] of S queries and L keys")
    parser.add_argument("--padding-mask", metavar="NAME=S,P", help="a member [1, 1, S] of zeros but its last P")
    parser.add_argument("--mask-value", type=float, default=-1e4)
    parser.add_argument("--random", metavar="NAME=d0,d1,...", action="append", default=[],
                        help="a member of this shape, float32 U(-1, 1) from --seed")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("-o", "--output", required=True, help="FILE.npz, or FILE.npy of exactly one member")
    a = parser.parse_args()
    members = {}
    if a.head_size:
        members["attention_scale"] = ([1], [a.head_size ** -0.5])
    if a.causal:
        s, keys = shape_of(a.causal)
        members["causal_mask"] = ([s, keys], [0.0 if j <= i + keys - s else a.mask_value
                                              for i in range(s) for j in range(keys)])
    if a.padding_mask:
        name, sizes = a.padding_mask.split("=")
        s, padded = shape_of(sizes)
        members[name] = ([1, 1, s], [0.0] * (s - padded) + [a.mask_value] * padded)
    rng = random.Random(a.seed)
    for item in a.random:
        name, dims = item.split("=")
        shape = shape_of(dims)
        count = 1
        for d in shape:
            count *= d
        members[name] = (shape, [rng.uniform(-1, 1) for _ in range(count)])
    if a.output.endswith(".npy"):
        if len(members) != 1:
            parser.error(f"an .npy holds one tensor, not {len(members)}")
        with open(a.output, "wb") as f:
            f.write(npy_bytes(*next(iter(members.values()))))
        return
    with zipfile.ZipFile(a.output, "w") as z:
        for name, (shape, values) in members.items():
            z.writestr(name + ".npy", npy_bytes(shape, values))


if __name__ == "__main__":
    main()
