#!/usr/bin/env python3
"""Writes the transformer workloads (graphs with their real semantics) from their hyperparameters, one home for
the shapes of configs/workloads/{bert-base-encoder-*, gpt2-small-*, vit-b16-block, *-h64}.yaml.

  scripts/make-transformer-workloads.py                  # rewrite the shipped files in configs/workloads
  scripts/make-transformer-workloads.py --model bert --sequence 2048 -o bert-2048.yaml   # one variant

Layout: activations are token-major, as PyTorch holds them: a sequence of S tokens of H hidden units is the tensor
(S, H, 1, 1), i.e. row-major [S][H]; every projection is a `gemm` of M = 1 batched over the S tokens (its input is
(batch, K, M, 1) = (S, H, 1, 1)), so layer normalization runs over axis 1 (the hidden units of each token). Heads
split as PyTorch's view + permute: reshape (S, H, 1, 1) -> [S, h, d], transpose [1, 0, 2] -> [h, S, d]; Q·Kᵀ is a
`matmul` of two activations with K read transposed, scaled by the constant `attention_scale` (one value, 1/√d),
masked by an additive mask, softmax along the last axis, P·V, and the heads merge by the inverse transpose and
reshape. The constants (the scale, a causal mask, LayerNorm's γ and β, weights and biases) are tensors named in the
file: a chained run takes their values by those names from `--network-weights FILE.npz` (seeded otherwise,
docs/quantization.md); scripts/transformer-constants.py writes the scale and the causal mask.
"""
import argparse
import os
import sys

# Hyperparameters, with their sources.
MODELS = {
    # J. Devlin et al., "BERT", NAACL 2019, Section 3: BERT-BASE L = 12, H = 768, A = 12, feed-forward 4H; post-LN
    # (Vaswani et al. 2017's residual then LayerNorm, ε 1e-12 as Google's code), erf-GELU; the attention mask is the padding mask, an input.
    "bert": dict(hidden=768, heads=12, ffn=3072, sequence=128, norm="post", activation="gelu", mask="input", epsilon=1e-12),
    # A. Radford et al., "Language Models are Unsupervised Multitask Learners" (GPT-2), 2019, Section 2.3 and
    # Table 2: GPT-2 small d_model = 768, 12 heads, context 1024; pre-LN (LayerNorm moved to each sub-block's input)
    # and a final LayerNorm after the last block (not part of a block); feed-forward 4·d_model with the tanh GELU
    # (Hugging Face's `gelu_new`), LayerNorm ε 1e-5; causal self-attention: an additive mask, 0 on and below the diagonal.
    "gpt2": dict(hidden=768, heads=12, ffn=3072, sequence=1024, norm="pre", activation="gelu_tanh", mask="causal", epsilon=1e-5),
    # A. Dosovitskiy et al., "An Image is Worth 16x16 Words" (ViT), ICLR 2021, Table 1 and Eq. 2-3: ViT-Base
    # D = 768, 12 heads, MLP 3072, pre-LN, GELU; at 224x224 with 16x16 patches 196 patch tokens + the class token; LayerNorm ε 1e-6 (the authors' code).
    "vit": dict(hidden=768, heads=12, ffn=3072, sequence=197, norm="pre", activation="gelu", mask="none", epsilon=1e-6),
}


def operator(**fields):
    def value(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(str(x) for x in v) + "]"
        return str(v)
    return "  - {" + ", ".join(f"{k}: {value(v)}" for k, v in fields.items()) + "}"


class Graph:
    def __init__(self, hidden, heads, ffn, epsilon):
        self.hidden, self.heads, self.ffn, self.epsilon = hidden, heads, ffn, epsilon
        self.head_size = hidden // heads
        self.inputs, self.lines = [], []

    def add(self, **fields):
        self.lines.append(operator(**fields))
        return fields.get("output", fields["name"])

    def projection(self, name, source, tokens, inputs, outputs):
        return self.add(name=name, type="gemm", input=source, M=1, K=inputs, N=outputs, batch=tokens,
                        bias=f"{name}.bias")

    def layer_norm(self, name, source):
        return self.add(name=name, type="layer_normalization", input=source, axis=1, epsilon=self.epsilon,
                        scale=f"{name}.scale", shift=f"{name}.shift")

    def heads_of(self, name, source, tokens):
        split = self.add(name=f"{name}_split", type="reshape", input=source, shape=[tokens, self.heads, self.head_size])
        return self.add(name=f"{name}_heads", type="transpose", input=split, perm=[1, 0, 2])

    def merge_heads(self, source, tokens):
        tokens_first = self.add(name="context_tokens", type="transpose", input=source, perm=[1, 0, 2])
        return self.add(name="context_merged", type="reshape", input=tokens_first, shape=[tokens, self.hidden, 1, 1])

    def attention(self, normed, tokens, keys_length, mask, past):
        """Q·Kᵀ/√d (+ mask) → softmax(−1) → ·V over `keys_length` keys; `past`: a KV cache of keys_length − tokens."""
        h = self.hidden
        # K and V first: the layers from Q to the block's end then run one after another, as a fused group's must
        # (TransFusion's policy fuses all of them, K and V apart; scripts/ffm-comparison.sh).
        k = self.heads_of("key", self.projection("key", normed, tokens, h, h), tokens)
        v = self.heads_of("value", self.projection("value", normed, tokens, h, h), tokens)
        q = self.heads_of("query", self.projection("query", normed, tokens, h, h), tokens)
        if past:
            k = self.add(name="present_key", type="concat", inputs=["past_key", k], axis=1)
            v = self.add(name="present_value", type="concat", inputs=["past_value", v], axis=1)
        scores = self.add(name="scores", type="matmul", inputs=[q, k], transpose_b=True)
        scaled = self.add(name="scaled_scores", type="mul", inputs=[scores], constant="attention_scale",
                          constant_shape=[1])
        if mask == "causal":
            scaled = self.add(name="masked_scores", type="add", inputs=[scaled], constant="causal_mask",
                              constant_shape=[tokens, keys_length])
        elif mask == "input":
            scaled = self.add(name="masked_scores", type="add", inputs=[scaled, "attention_mask"])
        probs = self.add(name="probs", type="softmax", input=scaled, axis=-1)
        context = self.add(name="context", type="matmul", inputs=[probs, v])
        return self.projection("attention_output", self.merge_heads(context, tokens), tokens, h, h)

    def feed_forward(self, source, tokens, activation):
        up = self.projection("intermediate", source, tokens, self.hidden, self.ffn)
        act = self.add(name="intermediate_act", type=activation, input=up)
        return self.projection("output", act, tokens, self.ffn, self.hidden)


def block(model, hidden, heads, ffn, sequence, cache=0):
    """The graph of one block: its inputs and operators. cache > 0: one decode step against a KV cache."""
    p = MODELS[model]
    g = Graph(hidden, heads, ffn, p["epsilon"])
    tokens = 1 if cache else sequence
    keys_length = cache + 1 if cache else sequence
    g.inputs.append(f"  - {{name: hidden, shape: [{tokens}, {hidden}, 1, 1]}}")
    if cache:
        for name in ("past_key", "past_value"):
            g.inputs.append(f"  - {{name: {name}, shape: [{heads}, {cache}, {hidden // heads}]}}")
    if p["mask"] == "input":
        g.inputs.append(f"  - {{name: attention_mask, shape: [1, 1, {sequence}]}}")
    mask = "none" if cache else p["mask"]  # one query attends to every cached key: no mask to apply
    if p["norm"] == "post":
        attended = g.attention("hidden", tokens, keys_length, mask, cache)
        residual = g.add(name="attention_residual", type="add", inputs=[attended, "hidden"])
        normed = g.layer_norm("attention_norm", residual)
        out = g.add(name="output_residual", type="add", inputs=[g.feed_forward(normed, tokens, p["activation"]), normed])
        g.layer_norm("output_norm", out)
    else:
        attended = g.attention(g.layer_norm("ln_1", "hidden"), tokens, keys_length, mask, cache)
        residual = g.add(name="attention_residual", type="add", inputs=[attended, "hidden"])
        ff = g.feed_forward(g.layer_norm("ln_2", residual), tokens, p["activation"])
        g.add(name="output_residual", type="add", inputs=[ff, residual])
    return g


def macs(hidden, ffn, tokens, keys_length):
    """Fabric MACs: Q, K, V, output projections 4·t·H², scores and context 2·t·L·H, feed-forward 2·t·H·F."""
    return tokens * (4 * hidden * hidden + 2 * keys_length * hidden + 2 * hidden * ffn)


def workload_text(model, name, title, hidden=None, heads=None, ffn=None, sequence=None, cache=0):
    p = MODELS[model]
    hidden, heads, ffn = hidden or p["hidden"], heads or p["heads"], ffn or p["ffn"]
    sequence = sequence or p["sequence"]
    g = block(model, hidden, heads, ffn, sequence, cache)
    tokens, keys_length = (1, cache + 1) if cache else (sequence, sequence)
    header = [f"# {title}",
              f"# H = {hidden}, {heads} heads of d = {hidden // heads}, feed-forward {ffn}, "
              + (f"one token against a KV cache of {cache} (past_key, past_value inputs [h, L, d]); "
                 f"present_key/value [h, L + 1, d]" if cache else f"sequence {sequence}")
              + f"; {macs(hidden, ffn, tokens, keys_length):,} fabric MACs".replace(",", " ") + ".",
              f"# Written by scripts/make-transformer-workloads.py (layout, constants and sources there): "
              f"do not edit by hand.",
              "kind: workload", f"name: {name}", "batch: 1", "inputs:"] + g.inputs + ["operators:"]
    return "\n".join(header + g.lines) + "\n"


SHIPPED = [
    # (file, model, title, options)
    ("bert-base-encoder-128", "bert", "BERT-base, one encoder layer (post-LN) at sequence 128, padding mask an input.", {}),
    ("bert-base-encoder-512", "bert", "BERT-base, one encoder layer (post-LN) at sequence 512, padding mask an input.",
     dict(sequence=512)),
    ("gpt2-small-block", "gpt2", "GPT-2 small, one decoder block (pre-LN), prefill of 1024 tokens under a causal mask.", {}),
    ("gpt2-small-decode", "gpt2", "GPT-2 small, one decoder block, one decode step: a new token against a KV cache.",
     dict(cache=1023)),
    ("vit-b16-block", "vit", "ViT-B/16, one encoder block (pre-LN) over 197 tokens (196 patches of 224x224 + class).", {}),
    # Reduced widths for the RTL (issue 42: H = 64, 2 heads, sequence 32), chained bit-exact on maeri-64.
    ("bert-encoder-h64", "bert", "A BERT encoder layer at a reduced width for the RTL.",
     dict(hidden=64, heads=2, ffn=256, sequence=32)),
    ("gpt2-block-h64", "gpt2", "A GPT-2 causal decoder block at a reduced width for the RTL.",
     dict(hidden=64, heads=2, ffn=256, sequence=32)),
    ("gpt2-decode-h64", "gpt2", "A GPT-2 decode step at a reduced width for the RTL: one token, a KV cache of 31.",
     dict(hidden=64, heads=2, ffn=256, cache=31)),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", choices=sorted(MODELS))
    parser.add_argument("--sequence", type=int)
    parser.add_argument("--cache", type=int, default=0, help="one decode step against a KV cache of this length")
    parser.add_argument("--hidden", type=int)
    parser.add_argument("--heads", type=int)
    parser.add_argument("--ffn", type=int)
    parser.add_argument("--name")
    parser.add_argument("-o", "--output", help="the workload file (with --model)")
    a = parser.parse_args()
    if a.model:
        if not a.output:
            parser.error("--model needs -o FILE")
        name = a.name or os.path.splitext(os.path.basename(a.output))[0]
        with open(a.output, "w") as f:
            f.write(workload_text(a.model, name, f"{a.model}, generated with {' '.join(sys.argv[1:])}",
                                  a.hidden, a.heads, a.ffn, a.sequence, a.cache))
        return
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "configs", "workloads")
    for file, model, title, options in SHIPPED:
        with open(os.path.join(here, file + ".yaml"), "w") as f:
            f.write(workload_text(model, file, title, **options))


if __name__ == "__main__":
    main()
