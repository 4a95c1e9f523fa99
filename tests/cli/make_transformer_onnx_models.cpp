// The transformer blocks of the `maeri import` tests, written as PyTorch / Hugging Face export them (issue 42), with
// their own weights (seeded, fixed): transformer-encoder.onnx (a BERT layer) and transformer-decoder.onnx (a GPT-2
// block), attention-broadcast.onnx (operands whose leading axes broadcast) and attention-hf-mask.onnx (Hugging Face's
// extended attention mask from an integer input), token-embedding.onnx (a token embedding: a constant table indexed by
// run-time token ids). Called by maeri_make_onnx_models (tests/cli/make_onnx_models.cpp).
#include "make_transformer_onnx_models.hpp"

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "onnx_models.hpp"

namespace maeri::test {
namespace {

constexpr std::int64_t kSequence = 8, kHidden = 16, kHeads = 2, kHeadSize = kHidden / kHeads, kFeedForward = 32;

// A transformer block under construction: the model and its fixed stream of initializer values.
struct Block {
  OnnxModelBuilder model;
  std::mt19937 generator;

  std::vector<float> values(std::size_t count, float spread, float centre = 0) {
    std::uniform_real_distribution<float> uniform(centre - spread, centre + spread);
    std::vector<float> drawn(count);
    for (float& value : drawn) value = uniform(generator);
    return drawn;
  }
  void scalar(const std::string& name, float value) { model.weight(name, {}, {value}); }

  // nn.Linear on [B, S, in]: MatMul by the transposed weight [in, out], then Add of the bias (out).
  std::string linear(const std::string& name, const std::string& x, std::int64_t in, std::int64_t out) {
    model.weight(name + ".weight", {in, out}, values(static_cast<std::size_t>(in * out), 1.2f / std::sqrt(float(in))));
    model.weight(name + ".bias", {out}, values(static_cast<std::size_t>(out), 0.1f));
    model.node("MatMul", name + ".matmul", {x, name + ".weight"}, name + "_mm");
    model.node("Add", name + ".add", {name + "_mm", name + ".bias"}, name + "_out");
    return name + "_out";
  }

  // view(B, S, h, d).permute(0, 2, 1, 3): Reshape then Transpose into [B, h, S, d]; `keys` adds Hugging Face's
  // key.transpose(-1, -2), a second Transpose of the last two axes ([B, h, d, S]).
  std::string heads(const std::string& name, const std::string& x, bool keys) {
    model.integers(name + ".shape", {4}, {1, kSequence, kHeads, kHeadSize});
    model.node("Reshape", name + ".view", {x, name + ".shape"}, name + "_view");
    OnnxModelBuilder::set_ints(model.node("Transpose", name + ".permute", {name + "_view"}, name + "_heads"), "perm",
                               {0, 2, 1, 3});
    if (!keys) return name + "_heads";
    OnnxModelBuilder::set_ints(model.node("Transpose", name + ".transpose", {name + "_heads"}, name + "_t"), "perm",
                               {0, 1, 3, 2});
    return name + "_t";
  }

  // softmax(Q·Kᵀ / √d + mask)·V, heads merged back to [B, S, H] (permute(0, 2, 1, 3) + reshape), then the output
  // projection. `scale_by_mul`: Mul by 1/√d (newer exports) instead of Div by √d.
  std::string attention(const std::string& q, const std::string& k, const std::string& v, const std::string& mask,
                        bool scale_by_mul) {
    model.node("MatMul", "attention.scores", {heads("query", q, false), heads("key", k, true)}, "scores");
    if (scale_by_mul) {
      scalar("attention.scale", 1.0f / std::sqrt(float(kHeadSize)));
      model.node("Mul", "attention.scale_mul", {"scores", "attention.scale"}, "scaled");
    } else {
      scalar("attention.root_d", std::sqrt(float(kHeadSize)));
      model.node("Div", "attention.scale_div", {"scores", "attention.root_d"}, "scaled");
    }
    model.node("Add", "attention.mask", {"scaled", mask}, "masked");
    OnnxModelBuilder::set_int(model.node("Softmax", "attention.softmax", {"masked"}, "probs"), "axis", -1);
    model.node("MatMul", "attention.context", {"probs", heads("value", v, false)}, "context");
    OnnxModelBuilder::set_ints(model.node("Transpose", "attention.merge", {"context"}, "context_tokens"), "perm",
                               {0, 2, 1, 3});
    model.integers("attention.merged_shape", {3}, {1, kSequence, kHidden});
    model.node("Reshape", "attention.merge_view", {"context_tokens", "attention.merged_shape"}, "context_merged");
    return linear("attention.output", "context_merged", kHidden, kHidden);
  }

  std::string layer_norm_node(const std::string& name, const std::string& x) {
    model.weight(name + ".weight", {kHidden}, values(kHidden, 0.2f, 1.0f));
    model.weight(name + ".bias", {kHidden}, values(kHidden, 0.1f));
    auto& node = model.node("LayerNormalization", name, {x, name + ".weight", name + ".bias"}, name + "_out");
    OnnxModelBuilder::set_float(node, "epsilon", 1e-12f);
    OnnxModelBuilder::set_int(node, "axis", -1);
    return name + "_out";
  }

  // LayerNorm as PyTorch exported it before opset 17: ReduceMean, Sub, Pow 2, ReduceMean, Add ε, Sqrt, Div, Mul γ,
  // Add β.
  std::string layer_norm_decomposed(const std::string& name, const std::string& x) {
    OnnxModelBuilder::set_ints(model.node("ReduceMean", name + ".mean", {x}, name + "_mean"), "axes", {-1});
    model.node("Sub", name + ".centre", {x, name + "_mean"}, name + "_centred");
    scalar(name + ".two", 2.0f);
    model.node("Pow", name + ".square", {name + "_centred", name + ".two"}, name + "_squares");
    OnnxModelBuilder::set_ints(model.node("ReduceMean", name + ".variance", {name + "_squares"}, name + "_variance"),
                               "axes", {-1});
    scalar(name + ".epsilon", 1e-5f);
    model.node("Add", name + ".add_epsilon", {name + "_variance", name + ".epsilon"}, name + "_shifted");
    model.node("Sqrt", name + ".root", {name + "_shifted"}, name + "_deviation");
    model.node("Div", name + ".normalise", {name + "_centred", name + "_deviation"}, name + "_normalised");
    model.weight(name + ".weight", {kHidden}, values(kHidden, 0.2f, 1.0f));
    model.node("Mul", name + ".scale", {name + "_normalised", name + ".weight"}, name + "_scaled");
    model.weight(name + ".bias", {kHidden}, values(kHidden, 0.1f));
    model.node("Add", name + ".shift", {name + "_scaled", name + ".bias"}, name + "_out");
    return name + "_out";
  }

  // nn.GELU() (erf) as exported: x · (1 + erf(x / √2)) · 0.5.
  std::string gelu_erf(const std::string& name, const std::string& x) {
    scalar(name + ".sqrt2", std::sqrt(2.0f));
    scalar(name + ".one", 1.0f);
    scalar(name + ".half", 0.5f);
    model.node("Div", name + ".div", {x, name + ".sqrt2"}, name + "_scaled");
    model.node("Erf", name + ".erf", {name + "_scaled"}, name + "_erf");
    model.node("Add", name + ".add", {name + "_erf", name + ".one"}, name + "_sum");
    model.node("Mul", name + ".mul", {x, name + "_sum"}, name + "_product");
    model.node("Mul", name + ".half_mul", {name + "_product", name + ".half"}, name + "_out");
    return name + "_out";
  }

  // Hugging Face GPT-2's gelu_new as exported: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
  std::string gelu_tanh(const std::string& name, const std::string& x) {
    scalar(name + ".three", 3.0f);
    scalar(name + ".coefficient", 0.044715f);
    scalar(name + ".root_two_over_pi", std::sqrt(2.0f / 3.14159265f));
    scalar(name + ".one", 1.0f);
    scalar(name + ".half", 0.5f);
    model.node("Mul", name + ".half_x", {name + ".half", x}, name + "_half_x");
    model.node("Pow", name + ".cube", {x, name + ".three"}, name + "_cube");
    model.node("Mul", name + ".scaled_cube", {name + "_cube", name + ".coefficient"}, name + "_scaled_cube");
    model.node("Add", name + ".inner_sum", {x, name + "_scaled_cube"}, name + "_inner");
    model.node("Mul", name + ".inner_scale", {name + "_inner", name + ".root_two_over_pi"}, name + "_argument");
    model.node("Tanh", name + ".tanh", {name + "_argument"}, name + "_tanh");
    model.node("Add", name + ".add_one", {name + "_tanh", name + ".one"}, name + "_sum");
    model.node("Mul", name + ".mul", {name + "_half_x", name + "_sum"}, name + "_out");
    return name + "_out";
  }
};

}  // namespace

// A BERT encoder layer (post-LN) as Hugging Face's BertLayer exports at opset 17: x [1, 8, 16] and the additive
// padding mask [1, 1, 1, 8] (a graph input, as BERT's extended attention mask), separate Q, K, V nn.Linear, heads by
// view + permute (K transposed again), Q·Kᵀ / √d by Div, + mask, Softmax(−1), ·V, heads merged, output projection,
// residual, LayerNormalization, feed-forward 16 → 32 with erf-GELU → 16, residual, LayerNormalization.
void write_transformer_encoder(const std::string& path) {
  Block b{OnnxModelBuilder("transformer_encoder", 17), std::mt19937(2042)};
  b.model.input("x", {1, kSequence, kHidden});
  b.model.input("attention_mask", {1, 1, 1, kSequence});
  const std::string q = b.linear("query", "x", kHidden, kHidden);
  const std::string k = b.linear("key", "x", kHidden, kHidden);
  const std::string v = b.linear("value", "x", kHidden, kHidden);
  const std::string attended = b.attention(q, k, v, "attention_mask", false);
  b.model.node("Add", "attention.residual", {attended, "x"}, "attention_sum");
  const std::string normed = b.layer_norm_node("attention.norm", "attention_sum");
  const std::string act = b.gelu_erf("gelu", b.linear("intermediate", normed, kHidden, kFeedForward));
  b.model.node("Add", "output.residual", {b.linear("output", act, kFeedForward, kHidden), normed}, "output_sum");
  b.model.output(b.layer_norm_node("output.norm", "output_sum"));
  b.model.write(path);
}

// A GPT-2 decoder block (pre-LN) as exported at opset 13: x [1, 8, 16], LayerNorm decomposed, the fused c_attn
// projection 16 → 48 split into Q, K, V, heads, Q·Kᵀ · (1/√d) by Mul, + a constant causal mask [1, 1, 8, 8] (0 on
// and below the diagonal, −10⁴ above: GPT-2's masked_bias), Softmax(−1), ·V, heads merged, c_proj, residual,
// LayerNorm, feed-forward 16 → 32 with gelu_new (tanh) → 16, residual.
void write_transformer_decoder(const std::string& path) {
  Block b{OnnxModelBuilder("transformer_decoder", 13), std::mt19937(2043)};
  b.model.input("x", {1, kSequence, kHidden});
  const std::string qkv = b.linear("c_attn", b.layer_norm_decomposed("ln_1", "x"), kHidden, 3 * kHidden);
  b.model.integers("c_attn.split", {3}, {kHidden, kHidden, kHidden});
  auto& split = b.model.node("Split", "c_attn.split_qkv", {qkv, "c_attn.split"}, "q");
  split.add_output("k");
  split.add_output("v");
  OnnxModelBuilder::set_int(split, "axis", 2);
  std::vector<float> causal(static_cast<std::size_t>(kSequence * kSequence));
  for (std::int64_t i = 0; i < kSequence; ++i)
    for (std::int64_t j = 0; j < kSequence; ++j)
      causal[static_cast<std::size_t>(i * kSequence + j)] = j <= i ? 0.0f : -1e4f;
  b.model.weight("causal_mask", {1, 1, kSequence, kSequence}, causal);
  const std::string attended = b.attention("q", "k", "v", "causal_mask", true);
  b.model.node("Add", "attention.residual", {attended, "x"}, "attention_sum");
  const std::string normed = b.layer_norm_decomposed("ln_2", "attention_sum");
  const std::string act = b.gelu_tanh("gelu", b.linear("mlp.c_fc", normed, kHidden, kFeedForward));
  b.model.node("Add", "output.residual", {b.linear("mlp.c_proj", act, kFeedForward, kHidden), "attention_sum"},
               "y");
  b.model.output("y");
  b.model.write(path);
}

// Multi-query attention (one key and value head shared by every query head), whose MatMuls broadcast their leading
// axes as numpy does: q [1, 2, 8, 4] (two heads) by kᵀ = Transpose(k [1, 1, 8, 4]) [1, 1, 4, 8], Softmax(−1), then
// by v given as [8, 4] (rank 2: a missing leading axis and a head axis of 1).
void write_attention_broadcast(const std::string& path) {
  OnnxModelBuilder model("attention_broadcast");
  model.input("q", {1, 2, 8, 4});
  model.input("k", {1, 1, 8, 4});
  model.input("v", {8, 4});
  OnnxModelBuilder::set_ints(model.node("Transpose", "k_transpose", {"k"}, "k_t"), "perm", {0, 1, 3, 2});
  model.node("MatMul", "scores", {"q", "k_t"}, "s");
  OnnxModelBuilder::set_int(model.node("Softmax", "softmax", {"s"}, "p"), "axis", -1);
  model.node("MatMul", "context", {"p", "v"}, "c");
  model.output("c");
  model.write(path);
}

// Hugging Face's extended attention mask as BERT exports it: an int64 attention_mask [1, 8] (1 keep, 0 padding),
// Unsqueeze to [1, 1, 1, 8], Cast to float, (1 − mask) · −10⁴, added to the scores Q·Kᵀ of q, k [1, 2, 8, 4] (K's
// Transpose folded), Softmax(−1), ·V.
void write_attention_hf_mask(const std::string& path) {
  OnnxModelBuilder model("attention_hf_mask");
  for (const char* operand : {"q", "k", "v"}) model.input(operand, {1, 2, 8, 4});
  onnx::ValueInfoProto* mask = model.graph().add_input();
  mask->set_name("attention_mask");
  mask->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto_DataType_INT64);
  for (const std::int64_t dim : {1, 8})
    mask->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(dim);
  OnnxModelBuilder::set_ints(model.node("Transpose", "k_transpose", {"k"}, "k_t"), "perm", {0, 1, 3, 2});
  model.node("MatMul", "scores", {"q", "k_t"}, "s");
  model.integers("mask.axes", {2}, {1, 2});
  model.node("Unsqueeze", "mask.unsqueeze", {"attention_mask", "mask.axes"}, "mask_4d");
  OnnxModelBuilder::set_int(model.node("Cast", "mask.cast", {"mask_4d"}, "mask_float"), "to",
                            onnx::TensorProto_DataType_FLOAT);
  model.weight("mask.one", {}, {1.0f});
  model.node("Sub", "mask.invert", {"mask.one", "mask_float"}, "mask_inverted");
  model.weight("mask.minimum", {}, {-1e4f});
  model.node("Mul", "mask.scale", {"mask_inverted", "mask.minimum"}, "mask_additive");
  model.node("Add", "mask.add", {"s", "mask_additive"}, "masked");
  OnnxModelBuilder::set_int(model.node("Softmax", "softmax", {"masked"}, "p"), "axis", -1);
  model.node("MatMul", "context", {"p", "v"}, "c");
  model.output("c");
  model.write(path);
}

// A token embedding as PyTorch's nn.Embedding exports it: int64 input_ids [1, 6] → Gather(table [50, 16], axis 0)
// → [1, 6, 16], plus a learned position embedding [6, 16], then a MatMul by [16, 4]. Seeded values, fixed.
void write_token_embedding(const std::string& path) {
  Block b{OnnxModelBuilder("token_embedding"), std::mt19937(41)};
  onnx::ValueInfoProto* ids = b.model.graph().add_input();
  ids->set_name("input_ids");
  ids->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto_DataType_INT64);
  for (const std::int64_t dim : {1, 6}) ids->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(dim);
  b.model.weight("embedding.weight", {50, kHidden}, b.values(50 * kHidden, 1.0f));
  b.model.node("Gather", "embedding", {"embedding.weight", "input_ids"}, "tokens");
  b.model.weight("position.weight", {6, kHidden}, b.values(6 * kHidden, 0.3f));
  b.model.node("Add", "positions", {"tokens", "position.weight"}, "embedded");
  b.model.weight("projection.weight", {kHidden, 4}, b.values(kHidden * 4, 0.5f));
  b.model.node("MatMul", "projection", {"embedded", "projection.weight"}, "y");
  b.model.output("y");
  b.model.write(path);
}

void write_scalar_token(const std::string& path) {
  Block b{OnnxModelBuilder("scalar_token"), std::mt19937(43)};
  onnx::ValueInfoProto* token = b.model.graph().add_input();
  token->set_name("token");
  token->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto_DataType_INT64);
  token->mutable_type()->mutable_tensor_type()->mutable_shape();  // rank 0: one id, no axes
  b.model.weight("embedding.weight", {12, kHidden}, b.values(12 * kHidden, 1.0f));
  b.model.node("Gather", "embedding", {"embedding.weight", "token"}, "row");
  b.model.integers("batch_axis", {1}, {0});
  b.model.node("Unsqueeze", "as_batch", {"row", "batch_axis"}, "embedded");
  b.model.weight("projection.weight", {kHidden, 4}, b.values(kHidden * 4, 0.5f));
  b.model.node("MatMul", "projection", {"embedded", "projection.weight"}, "y");
  b.model.output("y");
  b.model.write(path);
}

}  // namespace maeri::test
