// Writes the ONNX models of the `maeri import` CLI tests into a folder, built with the ONNX C++ API
// (tests/unit/onnx_models.hpp): small.onnx (a grouped conv, a depthwise conv, ReLU, max pool, flatten and a Gemm
// classifier, batch 1), gated.onnx (cut at a Sign), classifier.onnx, bn-cnn.onnx (batch normalizations
// after ReLUs), gates.onnx (SiLU, an SE block, HardSwish), elementwise.onnx (table functions and broadcast binary
// operators), resize.onnx (Resize in its forms, a max pool with asymmetric pads), attention-one-head.onnx and
// attention-two-heads.onnx (matrix products of two activations), transformer-encoder.onnx, transformer-decoder.onnx,
// attention-broadcast.onnx, attention-hf-mask.onnx, token-embedding.onnx, scalar-token.onnx
// (tests/cli/make_transformer_onnx_models.cpp),
// dynamic.onnx (a
// symbolic batch), asymmetric.onnx (a conv with pads [0, 0, 1, 1]), asymmetric-pool.onnx (an average pool with pads
// [0, 0, 1, 1]), padded.onnx (zero borders), float-nodes.onnx (CumSum and Sign, computed by the float reference),
// rounding.onnx (Floor, Ceil, Round and ThresholdedRelu on the unit), streaming-layout.onnx (reflect and edge Pads,
// InstanceNormalization, ScatterND cache updates, a pad list computed as PyTorch writes it), slice-assignment.onnx
// (a ScatterND whose indices PyTorch computes with Where/Expand chains, folded at import), coreml-operators.onnx
// (ImageScaler, Crop, Affine and a ConvTranspose output_shape beyond its unpadded output, at opset 7) and not-onnx.onnx (YAML text); and the bad models of tests/cli/bad_models.sh, named after the defect each carries
// (bad-*.onnx), and if-input.onnx (an If on a run-time input).
// Usage: maeri_make_onnx_models FOLDER
#include <cstdint>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "make_transformer_onnx_models.hpp"
#include "onnx_models.hpp"

using maeri::test::OnnxModelBuilder;

namespace {

// A one-Conv model (input x 1×3×9×9, weight w 4×3×3×3) whose node `attributes` changes.
void write_bad_conv(const std::string& path, const std::function<void(onnx::NodeProto&)>& attributes) {
  OnnxModelBuilder::write_one_conv(path, "conv", {1, 3, 9, 9}, {4, 3, 3, 3}, attributes);
}

// An If on a run-time input (a bool flag `wide`, as models branch on a sample rate): its then_branch is a 3×3 Conv
// with ReLU (4·3·9·64 = 6912 MACs), its else_branch a 1×1 Conv (4·3·64 = 768 MACs), both reading the outer image
// and outer weights. Imported only with --input-value wide=1 or wide=0 (cli_import_if_input_value_*).
void write_if_on_input(const std::string& path) {
  OnnxModelBuilder model("branched");
  model.input("image", {1, 3, 8, 8});
  onnx::ValueInfoProto* flag = model.graph().add_input();
  flag->set_name("wide");
  flag->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto_DataType_BOOL);
  flag->mutable_type()->mutable_tensor_type()->mutable_shape();
  model.weight("w_wide", {4, 3, 3, 3});
  model.weight("w_narrow", {4, 3, 1, 1});
  const auto branch = [](const std::string& name, const std::vector<onnx::NodeProto>& nodes, const std::string& out) {
    onnx::GraphProto graph;
    graph.set_name(name);
    for (const onnx::NodeProto& node : nodes) *graph.add_node() = node;
    onnx::ValueInfoProto* output = graph.add_output();
    output->set_name(out);
    output->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto_DataType_FLOAT);
    return graph;
  };
  onnx::NodeProto wide_conv, wide_relu, narrow_conv;
  wide_conv.set_op_type("Conv");
  wide_conv.set_name("wide_conv");
  for (const char* input : {"image", "w_wide"}) wide_conv.add_input(input);
  wide_conv.add_output("wide_c");
  OnnxModelBuilder::set_ints(wide_conv, "pads", {1, 1, 1, 1});
  wide_relu.set_op_type("Relu");
  wide_relu.set_name("wide_relu");
  wide_relu.add_input("wide_c");
  wide_relu.add_output("wide_out");
  narrow_conv.set_op_type("Conv");
  narrow_conv.set_name("narrow_conv");
  for (const char* input : {"image", "w_narrow"}) narrow_conv.add_input(input);
  narrow_conv.add_output("narrow_out");
  auto& choose = model.node("If", "choose", {"wide"}, "features");
  OnnxModelBuilder::set_graph(choose, "then_branch", branch("then", {wide_conv, wide_relu}, "wide_out"));
  OnnxModelBuilder::set_graph(choose, "else_branch", branch("else", {narrow_conv}, "narrow_out"));
  model.output("features");
  model.write(path);
}

// Models that crashed the importer or that it imported into workloads the loader refuses (issue 34).
void write_bad_models(const std::string& folder) {
  using Node = onnx::NodeProto;
  write_bad_conv(folder + "/bad-stride-0-0.onnx", [](Node& conv) { OnnxModelBuilder::set_ints(conv, "strides", {0, 0}); });
  write_bad_conv(folder + "/bad-stride-0-1.onnx", [](Node& conv) { OnnxModelBuilder::set_ints(conv, "strides", {0, 1}); });
  write_bad_conv(folder + "/bad-same-stride-0.onnx", [](Node& conv) {
    OnnxModelBuilder::set_string(conv, "auto_pad", "SAME_UPPER");
    OnnxModelBuilder::set_ints(conv, "strides", {0, 0});
  });
  write_bad_conv(folder + "/bad-negative-pads.onnx", [](Node& conv) {
    // 9 + 2·pad − 3 = INT64_MIN, and INT64_MIN / −1 traps.
    const std::int64_t pad = -((std::int64_t{1} << 62) + 3);
    OnnxModelBuilder::set_ints(conv, "pads", {pad, pad, pad, pad});
    OnnxModelBuilder::set_ints(conv, "strides", {-1, -1});
  });
  {
    OnnxModelBuilder model("domain");  // the default domain by its long name, which shape inference does not know
    model.import_domain("ai.onnx", 13);
    model.input("x", {1, 3, 9, 9});
    model.weight("w", {4, 3, 3, 3});
    auto& conv = model.node("Conv", "conv", {"x", "w"}, "y");
    conv.set_domain("ai.onnx");
    OnnxModelBuilder::set_ints(conv, "strides", {0, 0});
    model.output("y");
    model.write(folder + "/bad-domain-stride-0.onnx");
  }
  write_bad_conv(folder + "/bad-dilation-0.onnx", [](Node& conv) { OnnxModelBuilder::set_ints(conv, "dilations", {0, 1}); });
  write_bad_conv(folder + "/bad-strides-int.onnx", [](Node& conv) { OnnxModelBuilder::set_int(conv, "strides", 2); });
  write_bad_conv(folder + "/bad-pads-span.onnx", [](Node& conv) { OnnxModelBuilder::set_ints(conv, "pads", {3, 3, 3, 3}); });
  OnnxModelBuilder::write_one_conv(folder + "/bad-group-float.onnx", "conv", {1, 4, 8, 8}, {4, 2, 3, 3},
                                   [](Node& conv) { OnnxModelBuilder::set_float(conv, "group", 2.0f); });
  {
    OnnxModelBuilder model("own_output");  // y = Conv(y, w): a cycle of one node
    model.weight("w", {3, 3, 1, 1});
    model.node("Conv", "conv", {"y", "w"}, "y");
    model.output("y", {1, 3, 8, 8});
    model.write(folder + "/bad-own-output.onnx");
  }
  {
    OnnxModelBuilder model("batch_zero");
    model.input("a", {0, 4, 5});
    model.weight("b", {5, 3});
    model.node("MatMul", "matmul", {"a", "b"}, "c");
    model.output("c");
    model.write(folder + "/bad-matmul-batch-0.onnx");
  }
  {
    OnnxModelBuilder model("batch_overflow");  // 2 · 2^62 products overflow int64
    model.input("a", {std::int64_t{1} << 62, 2, 4, 5});
    model.input("b", {std::int64_t{1} << 62, 2, 5, 3});
    model.node("MatMul", "matmul", {"a", "b"}, "c");
    model.output("c");
    model.write(folder + "/bad-matmul-batch-overflow.onnx");
  }
  {
    OnnxModelBuilder model("deep");  // 20000 1×1 convolutions, more layers than a workload file may list (16384)
    model.input("t0", {1, 1, 1, 1});
    model.weight("w", {1, 1, 1, 1});
    for (int i = 0; i < 20000; ++i)
      model.node("Conv", "conv" + std::to_string(i), {"t" + std::to_string(i), "w"}, "t" + std::to_string(i + 1));
    model.output("t20000");
    model.write(folder + "/bad-20000-layers.onnx");
  }
  for (const auto& [file, graph, node] : {std::tuple{"node-name", "node_name", "conv\xff"},
                                         std::tuple{"graph-name", "graph\xff", "conv"}}) {
    OnnxModelBuilder model(graph);
    model.input("x", {1, 3, 8, 8});
    model.weight("w", {4, 3, 3, 3});
    model.node("Conv", node, {"x", "w"}, "y");
    model.output("y");
    model.write(folder + "/bad-" + file + "-not-utf8.onnx");
  }
  {
    OnnxModelBuilder model("long_name");
    model.input("x", {1, 3, 8, 8});
    model.weight("w", {4, 3, 3, 3});
    model.node("Conv", std::string(20 * 1024 * 1024, 'n'), {"x", "w"}, "y");
    model.output("y");
    model.write(folder + "/bad-20mb-name.onnx");
  }
  {
    OnnxModelBuilder model("pool");  // a node the importer skips, with an attribute shape inference divides by
    model.input("x", {1, 3, 8, 8});
    auto& pool = model.node("MaxPool", "pool", {"x"}, "p");
    OnnxModelBuilder::set_ints(pool, "kernel_shape", {2, 2});
    OnnxModelBuilder::set_ints(pool, "strides", {0, 0});
    model.weight("w", {4, 3, 1, 1});
    model.node("Conv", "conv", {"p", "w"}, "y");
    model.output("y");
    model.write(folder + "/bad-pool-stride-0.onnx");
  }
}

// Initializer values drawn from a model's own fixed stream: U(centre − spread, centre + spread).
class SeededValues {
 public:
  explicit SeededValues(unsigned seed) : generator_(seed) {}
  std::vector<float> operator()(std::size_t count, float spread, float centre = 0) {
    std::uniform_real_distribution<float> uniform(centre - spread, centre + spread);
    std::vector<float> drawn(count);
    for (float& value : drawn) value = uniform(generator_);
    return drawn;
  }

 private:
  std::mt19937 generator_;
};

// The classifier head of the chained-run models: global average pool of `input` (8 channels), flatten, a Gemm of
// 10 classes with bias (transB) and a softmax, the model's output; then the model is written to `path`.
void write_with_classifier_head(OnnxModelBuilder& model, SeededValues& values, const std::string& input,
                                const std::string& path) {
  model.node("GlobalAveragePool", "gap", {input}, "gap_out");
  model.node("Flatten", "flatten", {"gap_out"}, "features");
  model.weight("fc.weight", {10, 8}, values(80, 0.6f));
  model.weight("fc.bias", {10}, values(10, 0.1f));
  auto& fc = model.node("Gemm", "fc", {"features", "fc.weight", "fc.bias"}, "logits");
  OnnxModelBuilder::set_int(fc, "transB", 1);
  model.node("Softmax", "softmax", {"logits"}, "probabilities");
  model.output("probabilities");
  model.write(path);
}

// A small classifier as PyTorch exports one, with its own weights (seeded, fixed): conv + bias + BatchNormalization
// (folded by the importer) + ReLU, a max pool, a residual block (conv, ReLU, conv, add, ReLU), a global average pool,
// flatten, a Gemm classifier with bias (transB) and a softmax. The chained-run target of issue 30 runs it on the
// RTL with these weights (tests/cli/network_chain.sh, onnx_top1); classifier-batch.onnx is the same model with a
// symbolic batch, as exporters write it (onnx_batch runs it with --batch).
void write_classifier(const std::string& path, std::int64_t batch) {
  SeededValues values(2026);
  OnnxModelBuilder model("classifier");
  model.input("image", {batch, 3, 16, 16});
  model.weight("stem.weight", {8, 3, 3, 3}, values(8 * 3 * 9, 0.35f));
  model.weight("stem.bias", {8}, values(8, 0.1f));
  auto& stem = model.node("Conv", "stem", {"image", "stem.weight", "stem.bias"}, "stem_out");
  OnnxModelBuilder::set_ints(stem, "pads", {1, 1, 1, 1});
  model.weight("bn.gamma", {8}, values(8, 0.2f, 1.0f));
  model.weight("bn.beta", {8}, values(8, 0.1f));
  model.weight("bn.mean", {8}, values(8, 0.1f));
  model.weight("bn.var", {8}, values(8, 0.2f, 0.8f));
  model.node("BatchNormalization", "bn", {"stem_out", "bn.gamma", "bn.beta", "bn.mean", "bn.var"}, "bn_out");
  model.node("Relu", "stem_relu", {"bn_out"}, "stem_act");
  auto& pool = model.node("MaxPool", "pool", {"stem_act"}, "pooled");
  OnnxModelBuilder::set_ints(pool, "kernel_shape", {2, 2});
  OnnxModelBuilder::set_ints(pool, "strides", {2, 2});
  for (const char* conv : {"block.conv1", "block.conv2"}) {
    model.weight(std::string(conv) + ".weight", {8, 8, 3, 3}, values(8 * 8 * 9, 0.15f));
    model.weight(std::string(conv) + ".bias", {8}, values(8, 0.05f));
  }
  auto& conv1 = model.node("Conv", "block.conv1", {"pooled", "block.conv1.weight", "block.conv1.bias"}, "b1");
  OnnxModelBuilder::set_ints(conv1, "pads", {1, 1, 1, 1});
  model.node("Relu", "block.relu1", {"b1"}, "b1_act");
  auto& conv2 = model.node("Conv", "block.conv2", {"b1_act", "block.conv2.weight", "block.conv2.bias"}, "b2");
  OnnxModelBuilder::set_ints(conv2, "pads", {1, 1, 1, 1});
  model.node("Add", "block.add", {"b2", "pooled"}, "sum");
  model.node("Relu", "block.relu2", {"sum"}, "block_out");
  write_with_classifier_head(model, values, "block_out", path);
}

// A hand-written PyTorch CNN whose batch normalizations follow the ReLUs, so none folds into the layer before it:
// Conv → Relu → BatchNormalization → MaxPool → Conv → Relu → BatchNormalization → GlobalAveragePool → Flatten →
// Gemm → Relu → BatchNormalization (BatchNorm1d: the columns) → Gemm → Softmax, with its own weights (seeded,
// fixed). Each BatchNormalization imports as a channel affine (tests/cli/network_chain.sh, onnx_channel_affine).
void write_batch_norm_cnn(const std::string& path) {
  SeededValues values(2027);
  const auto batch_norm = [&](OnnxModelBuilder& model, const std::string& name, std::size_t channels,
                              const std::string& input, const std::string& output) {
    model.weight(name + ".gamma", {std::int64_t(channels)}, values(channels, 0.3f, 1.0f));
    model.weight(name + ".beta", {std::int64_t(channels)}, values(channels, 0.2f));
    model.weight(name + ".mean", {std::int64_t(channels)}, values(channels, 0.2f, 0.3f));
    model.weight(name + ".var", {std::int64_t(channels)}, values(channels, 0.3f, 0.6f));
    model.node("BatchNormalization", name, {input, name + ".gamma", name + ".beta", name + ".mean", name + ".var"},
               output);
  };
  OnnxModelBuilder model("bn_cnn");
  model.input("image", {1, 3, 12, 12});
  model.weight("conv1.weight", {8, 3, 3, 3}, values(8 * 3 * 9, 0.35f));
  model.weight("conv1.bias", {8}, values(8, 0.1f));
  OnnxModelBuilder::set_ints(model.node("Conv", "conv1", {"image", "conv1.weight", "conv1.bias"}, "c1"), "pads",
                             {1, 1, 1, 1});
  model.node("Relu", "relu1", {"c1"}, "r1");
  batch_norm(model, "bn1", 8, "r1", "n1");
  auto& pool = model.node("MaxPool", "pool", {"n1"}, "p1");
  OnnxModelBuilder::set_ints(pool, "kernel_shape", {2, 2});
  OnnxModelBuilder::set_ints(pool, "strides", {2, 2});
  model.weight("conv2.weight", {16, 8, 3, 3}, values(16 * 8 * 9, 0.15f));
  model.weight("conv2.bias", {16}, values(16, 0.05f));
  OnnxModelBuilder::set_ints(model.node("Conv", "conv2", {"p1", "conv2.weight", "conv2.bias"}, "c2"), "pads",
                             {1, 1, 1, 1});
  model.node("Relu", "relu2", {"c2"}, "r2");
  batch_norm(model, "bn2", 16, "r2", "n2");
  model.node("GlobalAveragePool", "gap", {"n2"}, "g");
  model.node("Flatten", "flatten", {"g"}, "features");
  model.weight("fc1.weight", {12, 16}, values(12 * 16, 0.4f));
  model.weight("fc1.bias", {12}, values(12, 0.1f));
  OnnxModelBuilder::set_int(model.node("Gemm", "fc1", {"features", "fc1.weight", "fc1.bias"}, "h"), "transB", 1);
  model.node("Relu", "relu3", {"h"}, "h_act");
  batch_norm(model, "bn3", 12, "h_act", "h_norm");
  model.weight("fc2.weight", {10, 12}, values(10 * 12, 0.5f));
  model.weight("fc2.bias", {10}, values(10, 0.1f));
  OnnxModelBuilder::set_int(model.node("Gemm", "fc2", {"h_norm", "fc2.weight", "fc2.bias"}, "logits"), "transB", 1);
  model.node("Softmax", "softmax", {"logits"}, "probabilities");
  model.output("probabilities");
  model.write(path);
}

// Zero borders as TensorFlow and Keras export them, with its own weights (seeded, fixed): a "SAME" convolution of
// stride 2 (pads [0, 0, 1, 1]: a Pad operator of the excess before the conv), ReLU, a Keras ZeroPadding2D ((1, 0),
// (0, 1)) as an ONNX Pad node, a valid conv, ReLU, global average pool, flatten, a Gemm classifier and a softmax.
// The chained run's target of the zero-padding operator (tests/cli/network_chain.sh, onnx_pad).
void write_padded(const std::string& path) {
  SeededValues values(2027);
  OnnxModelBuilder model("padded");
  model.input("image", {1, 3, 16, 16});
  model.weight("same.weight", {8, 3, 3, 3}, values(8 * 3 * 9, 0.35f));
  model.weight("same.bias", {8}, values(8, 0.1f));
  auto& same = model.node("Conv", "same", {"image", "same.weight", "same.bias"}, "same_out");  // 16x16 → 8x8
  OnnxModelBuilder::set_ints(same, "strides", {2, 2});
  OnnxModelBuilder::set_ints(same, "pads", {0, 0, 1, 1});
  model.node("Relu", "same_relu", {"same_out"}, "same_act");
  model.integers("border", {8}, {0, 0, 1, 0, 0, 0, 0, 1});  // H: 1 before, W: 1 after → 9x9
  model.node("Pad", "zero_padding", {"same_act", "border"}, "bordered");
  model.weight("valid.weight", {8, 8, 3, 3}, values(8 * 8 * 9, 0.15f));
  model.weight("valid.bias", {8}, values(8, 0.05f));
  model.node("Conv", "valid", {"bordered", "valid.weight", "valid.bias"}, "valid_out");  // 9x9 → 7x7
  model.node("Relu", "valid_relu", {"valid_out"}, "valid_act");
  write_with_classifier_head(model, values, "valid_act", path);
}

// The gates of modern vision models with their own weights (seeded, fixed): a conv stem with bias and SiLU
// (Sigmoid, Mul), a squeeze-and-excitation block (GAP, 1×1 conv + bias, ReLU, 1×1 conv + bias, Sigmoid, Mul by
// the gate), a 3×3 conv with HardSwish, GAP, flatten, a Gemm classifier and a softmax (network_chain.sh, onnx_gates).
void write_gates(const std::string& path) {
  SeededValues values(2027);
  OnnxModelBuilder model("gates", 14);  // HardSwish is opset 14
  model.input("image", {1, 3, 12, 12});
  model.weight("stem.weight", {8, 3, 3, 3}, values(8 * 3 * 9, 0.4f));
  model.weight("stem.bias", {8}, values(8, 0.1f));
  auto& stem = model.node("Conv", "stem", {"image", "stem.weight", "stem.bias"}, "stem_out");
  OnnxModelBuilder::set_ints(stem, "pads", {1, 1, 1, 1});
  model.node("Sigmoid", "stem.sigmoid", {"stem_out"}, "stem_gate");
  model.node("Mul", "stem.silu", {"stem_out", "stem_gate"}, "stem_act");
  model.node("GlobalAveragePool", "se.squeeze", {"stem_act"}, "se_pooled");
  model.weight("se.reduce.weight", {4, 8, 1, 1}, values(4 * 8, 0.6f));
  model.weight("se.reduce.bias", {4}, values(4, 0.1f));
  model.node("Conv", "se.reduce", {"se_pooled", "se.reduce.weight", "se.reduce.bias"}, "se_reduced");
  model.node("Relu", "se.relu", {"se_reduced"}, "se_act");
  model.weight("se.expand.weight", {8, 4, 1, 1}, values(8 * 4, 0.6f));
  model.weight("se.expand.bias", {8}, values(8, 0.1f));
  model.node("Conv", "se.expand", {"se_act", "se.expand.weight", "se.expand.bias"}, "se_expanded");
  model.node("Sigmoid", "se.gate", {"se_expanded"}, "se_gate");
  model.node("Mul", "se.scale", {"stem_act", "se_gate"}, "se_out");
  model.weight("conv.weight", {8, 8, 3, 3}, values(8 * 8 * 9, 0.2f));
  model.weight("conv.bias", {8}, values(8, 0.1f));
  auto& conv = model.node("Conv", "conv", {"se_out", "conv.weight", "conv.bias"}, "conv_out");
  OnnxModelBuilder::set_ints(conv, "pads", {1, 1, 1, 1});
  OnnxModelBuilder::set_ints(conv, "strides", {2, 2});
  model.node("HardSwish", "conv.hardswish", {"conv_out"}, "conv_act");
  write_with_classifier_head(model, values, "conv_act", path);
}

// One attention head as PyTorch exports it at batch 1 without the head split (issue 42): x [8, 16] projected to q,
// k, v by MatMuls with their own weights (q's carry the 1/√16 scale), kᵀ by a Transpose of the last two axes,
// scores = MatMul(q, kᵀ) [8, 8], Softmax(−1), context = MatMul(probs, v) [8, 16] and the output projection. Both
// attention MatMuls multiply two activations; the Transpose folds into the scores' operand.
void write_attention_one_head(const std::string& path) {
  SeededValues values(2042);
  OnnxModelBuilder model("attention_one_head");
  model.input("x", {8, 16});
  for (const char* projection : {"q", "k", "v"}) {
    model.weight(std::string("w_") + projection, {16, 16}, values(16 * 16, projection[0] == 'q' ? 0.1f : 0.4f));
    model.node("MatMul", std::string(projection) + "_proj", {"x", std::string("w_") + projection}, projection);
  }
  OnnxModelBuilder::set_ints(model.node("Transpose", "k_transpose", {"k"}, "k_t"), "perm", {1, 0});
  model.node("MatMul", "scores", {"q", "k_t"}, "s");
  OnnxModelBuilder::set_int(model.node("Softmax", "softmax", {"s"}, "p"), "axis", -1);
  model.node("MatMul", "context", {"p", "v"}, "c");
  model.weight("w_o", {16, 16}, values(16 * 16, 0.4f));
  model.node("MatMul", "out_proj", {"c", "w_o"}, "y");
  model.output("y");
  model.write(path);
}

// The per-head batched form of two heads (issue 42): q, k, v given as [1, 2, 8, 4] (batch, heads, sequence, d),
// kᵀ = Transpose(k, perm [0, 1, 3, 2]), scores = MatMul(q, kᵀ) [1, 2, 8, 8], the softmax of each row through a
// reshape to (16, 8) and Softmax(axis 1) (the unit's axis; the reshape back gives [1, 2, 8, 8]), and context =
// MatMul(probs, v) [1, 2, 8, 4], each head its own operands.
void write_attention_two_heads(const std::string& path) {
  OnnxModelBuilder model("attention_two_heads");
  for (const char* operand : {"q", "k", "v"}) model.input(operand, {1, 2, 8, 4});
  OnnxModelBuilder::set_ints(model.node("Transpose", "k_transpose", {"k"}, "k_t"), "perm", {0, 1, 3, 2});
  model.node("MatMul", "scores", {"q", "k_t"}, "s");
  model.integers("rows", {2}, {16, 8});
  model.node("Reshape", "to_rows", {"s", "rows"}, "s_rows");
  OnnxModelBuilder::set_int(model.node("Softmax", "softmax", {"s_rows"}, "p_rows"), "axis", 1);
  model.integers("heads", {4}, {1, 2, 8, 8});
  model.node("Reshape", "to_heads", {"p_rows", "heads"}, "p");
  model.node("MatMul", "context", {"p", "v"}, "c");
  model.output("c");
  model.write(path);
}

// Element-wise operators of real exports with their own weights (seeded, fixed), every one imported with no cut:
// table functions (LeakyRelu, Selu, Erf, Sigmoid, Pow 2, Sqrt, Neg, Exp, Log, Softsign, Elu, Softplus, Tanh), binary
// operators broadcast against constants of odd shapes (Sub by a (8, 1, 1), Div by a (1, 1, 10), Min by a (5)
// constant; 1 − x with the constant first), Paddle's HardSwish x·clip(x + 3, 0, 6)/6, PyTorch's GELU decomposition
// x·(1 + erf(x/√2))·0.5, a Max of a (1, 8, 1, 1) tensor and a (1, 8, 5, 5) one, a Div of two tensors, a Mul of
// (1, 8, 5, 5) by a (1, 1, 5, 5) tensor, then the classifier head (network_chain.sh, onnx_elementwise).
void write_elementwise(const std::string& path) {
  SeededValues values(2041);
  OnnxModelBuilder model("elementwise");
  const auto scalar = [&](const std::string& name, float value) { model.weight(name, {}, {value}); };
  model.input("image", {1, 3, 10, 10});
  model.weight("stem.weight", {8, 3, 3, 3}, values(8 * 3 * 9, 0.4f));
  model.weight("stem.bias", {8}, values(8, 0.1f));
  OnnxModelBuilder::set_ints(model.node("Conv", "stem", {"image", "stem.weight", "stem.bias"}, "s"), "pads",
                             {1, 1, 1, 1});
  OnnxModelBuilder::set_float(model.node("LeakyRelu", "leaky", {"s"}, "a1"), "alpha", 0.1f);
  model.weight("centre", {8, 1, 1}, values(8, 0.2f));
  model.node("Sub", "centred", {"a1", "centre"}, "a2");
  model.weight("spread", {1, 1, 10}, values(10, 0.5f, 1.0f));
  model.node("Div", "spread_out", {"a2", "spread"}, "a3");
  model.node("Selu", "selu", {"a3"}, "a4");
  scalar("three", 3), scalar("zero", 0), scalar("six", 6);  // Paddle's HardSwish: x · clip(x + 3, 0, 6) / 6
  model.node("Add", "hswish.add", {"a4", "three"}, "h1");
  model.node("Clip", "hswish.clip", {"h1", "zero", "six"}, "h2");
  model.node("Mul", "hswish.mul", {"a4", "h2"}, "h3");
  model.node("Div", "hswish.div", {"h3", "six"}, "a5");
  model.weight("conv.weight", {8, 8, 3, 3}, values(8 * 8 * 9, 0.2f));
  model.weight("conv.bias", {8}, values(8, 0.1f));
  auto& conv = model.node("Conv", "conv", {"a5", "conv.weight", "conv.bias"}, "c2");
  OnnxModelBuilder::set_ints(conv, "pads", {1, 1, 1, 1});
  OnnxModelBuilder::set_ints(conv, "strides", {2, 2});
  scalar("sqrt2", 1.41421356f), scalar("one", 1), scalar("half", 0.5f);  // PyTorch's GELU
  model.node("Div", "gelu.div", {"c2", "sqrt2"}, "g1");
  model.node("Erf", "gelu.erf", {"g1"}, "g2");
  model.node("Add", "gelu.add", {"g2", "one"}, "g3");
  model.node("Mul", "gelu.mul", {"c2", "g3"}, "g4");
  model.node("Mul", "gelu.half", {"g4", "half"}, "g5");
  model.node("GlobalAveragePool", "squeeze", {"g5"}, "p");
  model.node("Sigmoid", "gate", {"p"}, "ps");
  model.node("Sub", "complement", {"one", "ps"}, "q");  // 1 − sigmoid: the constant first
  model.node("Max", "floor_by_gate", {"q", "g5"}, "m");  // (1, 8, 1, 1) and (1, 8, 5, 5)
  model.weight("ceiling", {5}, values(5, 0.3f, 1.0f));
  model.node("Min", "ceiling_min", {"m", "ceiling"}, "mn");
  scalar("two", 2), scalar("epsilon", 1e-3f);
  model.node("Pow", "square", {"mn", "two"}, "sq");
  model.node("Add", "plus_epsilon", {"sq", "epsilon"}, "sq_eps");
  model.node("Sqrt", "root", {"sq_eps"}, "rt");
  model.node("Div", "normalised", {"mn", "rt"}, "dv");  // two tensors: a reciprocal, then a product
  model.node("Neg", "negated", {"dv"}, "ng");
  model.node("Exp", "exp", {"ng"}, "ex");
  model.node("Add", "exp_plus_one", {"ex", "one"}, "ex1");
  model.node("Log", "log", {"ex1"}, "lg");
  model.node("Softsign", "softsign", {"lg"}, "ss");
  model.node("Elu", "elu", {"ss"}, "el");
  model.node("Softplus", "softplus", {"el"}, "sp");
  model.weight("mask.weight", {1, 8, 1, 1}, values(8, 0.5f));
  model.node("Conv", "mask", {"sp", "mask.weight"}, "mk");  // (1, 1, 5, 5)
  model.node("Tanh", "mask_tanh", {"mk"}, "mt");
  model.node("Mul", "masked", {"sp", "mt"}, "masked_out");  // (1, 8, 5, 5) by (1, 1, 5, 5)
  write_with_classifier_head(model, values, "masked_out", path);
}

// The data-movement and row-wise operators of detectors and transformers, on odd shapes with negative axes and its
// own weights (seeded, fixed): a conv with bias and ReLU (1×6×9×7), a Transpose to NHWC, a Slice of W backwards by
// 2 (axis −2: columns 6, 4, 2, 0), a Gather of rows 8, 0, 3, 3, −4 along H, a Split of the channels into 2 and 4
// joined back the other way round by a Concat (axis −1), a MatMul by a constant 6×5 on the last axis and a Softmax
// along axis −1 (network_chain.sh, onnx_layout).
void write_layout(const std::string& path) {
  SeededValues values(2027);
  OnnxModelBuilder model("layout", 13);
  model.input("image", {1, 3, 9, 7});
  model.weight("conv.weight", {6, 3, 3, 3}, values(6 * 3 * 9, 0.4f));
  model.weight("conv.bias", {6}, values(6, 0.1f));
  auto& conv = model.node("Conv", "conv", {"image", "conv.weight", "conv.bias"}, "conv_out");
  OnnxModelBuilder::set_ints(conv, "pads", {1, 1, 1, 1});
  model.node("Relu", "relu", {"conv_out"}, "features");
  OnnxModelBuilder::set_ints(model.node("Transpose", "to_nhwc", {"features"}, "nhwc"), "perm", {0, 2, 3, 1});
  model.integers("starts", {1}, {-1});
  model.integers("ends", {1}, {-(std::int64_t{1} << 62)});
  model.integers("axes", {1}, {-2});
  model.integers("steps", {1}, {-2});
  model.node("Slice", "reverse_w", {"nhwc", "starts", "ends", "axes", "steps"}, "reversed");  // 1×9×4×6
  model.integers("rows", {5}, {8, 0, 3, 3, -4});
  OnnxModelBuilder::set_int(model.node("Gather", "pick_h", {"reversed", "rows"}, "picked"), "axis", 1);  // 1×5×4×6
  model.integers("halves", {2}, {2, 4});
  auto& split = model.node("Split", "split_c", {"picked", "halves"}, "first_two");  // 1×5×4×2 and 1×5×4×4
  split.add_output("last_four");
  OnnxModelBuilder::set_int(split, "axis", -1);
  OnnxModelBuilder::set_int(model.node("Concat", "swap_c", {"last_four", "first_two"}, "swapped"), "axis", -1);
  model.weight("head.weight", {6, 5}, values(6 * 5, 0.5f));
  model.node("MatMul", "head", {"swapped", "head.weight"}, "logits");  // 1×5×4×5
  OnnxModelBuilder::set_int(model.node("Softmax", "scores", {"logits"}, "probabilities"), "axis", -1);
  model.output("probabilities");
  model.write(path);
}

// A softmax as opset 11 defines it (the axes from `axis` on flattened into one row): a 1×1 conv (1×4×3×5) and a
// Softmax of axis 2, whose rows are the 3·5 values of each channel (network_chain.sh, onnx_layout).
void write_softmax_opset11(const std::string& path) {
  SeededValues values(2027);
  OnnxModelBuilder model("softmax_opset11", 11);
  model.input("image", {1, 3, 3, 5});
  model.weight("conv.weight", {4, 3, 1, 1}, values(4 * 3, 0.6f));
  model.node("Conv", "conv", {"image", "conv.weight"}, "conv_out");
  OnnxModelBuilder::set_int(model.node("Softmax", "spatial", {"conv_out"}, "probabilities"), "axis", 2);
  model.output("probabilities");
  model.write(path);
}

// Layer normalization as transformers export it, with its own weights (seeded, fixed), on tokens (1, 6, 10): a
// projection MatMul to 12, a LayerNormalization node (opset 17, axis −1, γ and β), a projection to 8, the decomposed
// form PyTorch exported before opset 17 (ReduceMean, Sub, Pow 2, ReduceMean, Add ε, Sqrt, Div, Mul γ, Add β), a
// projection to 8, the decomposed form with Mul(d, d) and no γ or β, a Softmax along −1 and a ReduceMean over the
// tokens (network_chain.sh, onnx_layer_norm).
void write_layer_norm(const std::string& path) {
  SeededValues values(2027);
  OnnxModelBuilder model("layer_norm", 17);
  model.input("tokens", {1, 6, 10});
  model.weight("in.weight", {10, 12}, values(10 * 12, 0.5f));
  model.node("MatMul", "in", {"tokens", "in.weight"}, "hidden");
  model.weight("ln1.scale", {12}, values(12, 0.3f, 1.0f));
  model.weight("ln1.bias", {12}, values(12, 0.2f));
  auto& ln1 = model.node("LayerNormalization", "ln1", {"hidden", "ln1.scale", "ln1.bias"}, "normed1");
  OnnxModelBuilder::set_float(ln1, "epsilon", 1e-5f);
  model.weight("mid.weight", {12, 8}, values(12 * 8, 0.5f));
  model.node("MatMul", "mid", {"normed1", "mid.weight"}, "mid_out");
  const auto decomposed = [&](const std::string& prefix, const std::string& x, bool pow, bool affine) {
    OnnxModelBuilder::set_ints(model.node("ReduceMean", prefix + ".mean", {x}, prefix + "_mean"), "axes", {-1});
    model.node("Sub", prefix + ".centre", {x, prefix + "_mean"}, prefix + "_centred");
    if (pow) {
      model.weight(prefix + ".two", {}, {2.0f});
      model.node("Pow", prefix + ".square", {prefix + "_centred", prefix + ".two"}, prefix + "_squares");
    } else {
      model.node("Mul", prefix + ".square", {prefix + "_centred", prefix + "_centred"}, prefix + "_squares");
    }
    OnnxModelBuilder::set_ints(model.node("ReduceMean", prefix + ".variance", {prefix + "_squares"}, prefix + "_variance"),
                               "axes", {-1});
    model.weight(prefix + ".epsilon", {}, {1e-5f});
    model.node("Add", prefix + ".add_epsilon", {prefix + "_variance", prefix + ".epsilon"}, prefix + "_shifted");
    model.node("Sqrt", prefix + ".root", {prefix + "_shifted"}, prefix + "_deviation");
    model.node("Div", prefix + ".normalise", {prefix + "_centred", prefix + "_deviation"}, prefix + "_normalised");
    if (!affine) return prefix + "_normalised";
    model.weight(prefix + ".gamma", {8}, values(8, 0.3f, 1.0f));
    model.node("Mul", prefix + ".scale", {prefix + "_normalised", prefix + ".gamma"}, prefix + "_scaled");
    model.weight(prefix + ".beta", {8}, values(8, 0.2f));
    model.node("Add", prefix + ".shift", {prefix + "_scaled", prefix + ".beta"}, prefix + "_out");
    return prefix + "_out";
  };
  const std::string normed2 = decomposed("ln2", "mid_out", true, true);
  model.weight("out.weight", {8, 8}, values(8 * 8, 0.5f));
  model.node("MatMul", "out", {normed2, "out.weight"}, "out_hidden");
  const std::string normed3 = decomposed("ln3", "out_hidden", false, false);
  OnnxModelBuilder::set_int(model.node("Softmax", "scores", {normed3}, "probabilities"), "axis", -1);
  auto& pool = model.node("ReduceMean", "pool_tokens", {"probabilities"}, "pooled");  // (1, 8): a reduction
  OnnxModelBuilder::set_ints(pool, "axes", {1});
  OnnxModelBuilder::set_int(pool, "keepdims", 0);
  model.output("pooled");
  model.write(path);
}

// Resize in each of ONNX's forms the unit runs, between convolutions with their own weights (seeded, fixed), on
// 1×2×5×4: a nearest ×2 with asymmetric coordinates rounded down (Paddle's and TensorFlow's upsampling), a PRelu
// of one slope per channel, a linear
// resize to sizes 15×6 with half_pixel coordinates (PyTorch's bilinear), a linear one by scales 0.5×1.5 with
// align_corners, a nearest one to 4×7 with pytorch_half_pixel coordinates and round_prefer_ceil, a conv, then a 2×2
// max pool of stride 2 with TensorFlow's SAME pads [0, 0, 1, 1] and a 3×3 one with ceil_mode (network_chain.sh,
// onnx_resize; the ONNX Runtime oracle).
void write_resize(const std::string& path) {
  SeededValues values(2027);
  OnnxModelBuilder model("resize", 13);
  model.input("image", {1, 2, 5, 4});
  const auto conv = [&](const std::string& name, const std::string& x, const std::string& y) {
    model.weight(name + ".weight", {4, name == "conv1" ? 2 : 4, 3, 3}, values(4 * (name == "conv1" ? 2 : 4) * 9, 0.4f));
    model.weight(name + ".bias", {4}, values(4, 0.1f));
    OnnxModelBuilder::set_ints(model.node("Conv", name, {x, name + ".weight", name + ".bias"}, y), "pads", {1, 1, 1, 1});
  };
  const auto resize = [&](const std::string& name, const std::string& x, const std::string& y, const std::string& mode,
                          const std::string& coordinates, const std::vector<float>& scales,
                          const std::vector<std::int64_t>& sizes) {
    if (!scales.empty()) model.weight(name + ".scales", {std::int64_t(scales.size())}, scales);
    if (!sizes.empty()) model.integers(name + ".sizes", {std::int64_t(sizes.size())}, sizes);
    std::vector<std::string> inputs{x, "", name + ".scales"};
    if (!sizes.empty()) inputs = {x, "", "", name + ".sizes"};
    auto& node = model.node("Resize", name, inputs, y);
    OnnxModelBuilder::set_string(node, "mode", mode);
    OnnxModelBuilder::set_string(node, "coordinate_transformation_mode", coordinates);
    return &node;
  };
  conv("conv1", "image", "c1");
  auto* up = resize("up_nearest", "c1", "r1", "nearest", "asymmetric", {1, 1, 2, 2}, {});  // 1×4×10×8
  OnnxModelBuilder::set_string(*up, "nearest_mode", "floor");
  model.weight("prelu1.slope", {4, 1, 1}, {0.25f, -0.5f, 0.1f, 1.5f});  // a slope per channel (palm detectors)
  model.node("PRelu", "prelu1", {"r1", "prelu1.slope"}, "a1");
  resize("up_linear", "a1", "r2", "linear", "half_pixel", {}, {1, 4, 15, 6});  // 1×4×15×6
  conv("conv2", "r2", "c2");
  resize("corners", "c2", "r3", "linear", "align_corners", {1, 1, 0.5f, 1.5f}, {});  // 1×4×7×9
  auto* ceil = resize("ceil", "r3", "r4", "nearest", "pytorch_half_pixel", {}, {1, 4, 4, 7});
  OnnxModelBuilder::set_string(*ceil, "nearest_mode", "round_prefer_ceil");
  conv("conv3", "r4", "c3");  // 1×4×4×7
  auto& same = model.node("MaxPool", "pool_same", {"c3"}, "p1");  // 1×4×2×4: a −∞ border after the last row, column
  OnnxModelBuilder::set_ints(same, "kernel_shape", {2, 2});
  OnnxModelBuilder::set_ints(same, "strides", {2, 2});
  OnnxModelBuilder::set_ints(same, "pads", {0, 0, 1, 1});
  auto& ceil_pool = model.node("MaxPool", "pool_ceil", {"r4"}, "p2");  // 4×7 → ⌈(4 − 3) / 2⌉ + 1 = 2, ⌈(7 − 3) / 2⌉ + 1 = 3
  OnnxModelBuilder::set_ints(ceil_pool, "kernel_shape", {3, 3});
  OnnxModelBuilder::set_ints(ceil_pool, "strides", {2, 2});
  OnnxModelBuilder::set_int(ceil_pool, "ceil_mode", 1);
  model.output("p1");
  model.output("p2");
  model.write(path);
}

// Operators the post-processing unit does not run between convolutions (seeded weights, fixed), on 1×3×8×8: a
// running sum along the rows (CumSum, axis 3), then a Sign (−1, 0, 1) of the second convolution's output: the
// importer cuts the graph at each, and a chained run computes both cut tensors by the float reference from the real
// input (testbench/float_computed_inputs.hpp; network_chain.sh, onnx_float_nodes; the ONNX Runtime oracle).
void write_float_nodes(const std::string& path) {
  SeededValues values(2029);
  OnnxModelBuilder model("float_nodes", 13);
  model.input("image", {1, 3, 8, 8});
  const auto conv = [&](const std::string& name, const std::string& x, const std::string& y, std::int64_t channels,
                        float spread) {
    model.weight(name + ".weight", {4, channels, 3, 3}, values(std::size_t(4 * channels * 9), spread));
    model.weight(name + ".bias", {4}, values(4, 0.1f));
    OnnxModelBuilder::set_ints(model.node("Conv", name, {x, name + ".weight", name + ".bias"}, y), "pads", {1, 1, 1, 1});
  };
  conv("conv1", "image", "c1", 3, 0.4f);
  model.integers("rows", {}, {3});
  model.node("CumSum", "running", {"c1", "rows"}, "s1");  // along Y: s1[..., y] = Σ_{j ≤ y} c1[..., j]
  conv("conv2", "s1", "c2", 4, 0.6f);
  model.node("Sign", "signs", {"c2"}, "r2");
  conv("conv3", "r2", "c3", 4, 0.4f);
  model.node("Relu", "relu3", {"c3"}, "out");
  model.output("out");
  model.write(path);
}

// The rounding functions and ThresholdedRelu as table functions of the unit (seeded weights, fixed), on 1×3×8×8:
// conv1 (outputs of a few units) → Floor → conv2 → ThresholdedRelu (α 0.3) → conv3 → Round (halves to even), and
// conv2's output → Ceil, a second output. The whole graph runs on the unit (no cut); the ONNX Runtime oracle checks
// the float reference and the integer result against ONNX Runtime's.
void write_rounding(const std::string& path) {
  SeededValues values(2043);
  OnnxModelBuilder model("rounding", 13);
  model.input("image", {1, 3, 8, 8});
  const auto conv = [&](const std::string& name, const std::string& x, const std::string& y, std::int64_t channels,
                        float spread) {
    model.weight(name + ".weight", {4, channels, 3, 3}, values(std::size_t(4 * channels * 9), spread));
    model.weight(name + ".bias", {4}, values(4, 0.5f));
    OnnxModelBuilder::set_ints(model.node("Conv", name, {x, name + ".weight", name + ".bias"}, y), "pads", {1, 1, 1, 1});
  };
  conv("conv1", "image", "c1", 3, 1.5f);
  model.node("Floor", "floor", {"c1"}, "f1");
  conv("conv2", "f1", "c2", 4, 0.3f);
  OnnxModelBuilder::set_float(model.node("ThresholdedRelu", "gate", {"c2"}, "g2"), "alpha", 0.3f);
  model.node("Ceil", "ceil", {"c2"}, "ceiled");
  conv("conv3", "g2", "c3", 4, 1.0f);
  model.node("Round", "round", {"c3"}, "rounded");
  model.output("rounded");
  model.output("ceiled");
  model.write(path);
}

// Layout operators that become gathers and concatenations of constant indices on the unit (seeded weights, fixed):
// image 1×3×8×8 → conv1 (pads 1) → a reflection Pad of 2 before and 1 after X and Y, its pads computed as PyTorch's
// F.pad writes them (ConstantOfShape → Concat → Reshape (−1, 2) → reversing Slice → Transpose → Reshape → Cast,
// folded at import: [0, 0, 2, 2, 0, 0, 1, 1]) → 1×4×11×11 → InstanceNormalization → an edge Pad of 1 on X →
// 1×4×13×11 → conv2 → 1×4×11×9 ("features", through a ReLU); a streaming cache input 3×4×11×9 gets conv2's output
// at index [1] (ScatterND, k = 1), then channels 0 and 1 of it at blocks [0, 3] and [2, 1] (k = 2): "cache_out".
void write_streaming_layout(const std::string& path) {
  SeededValues values(2057);
  OnnxModelBuilder model("streaming_layout", 13);
  model.input("image", {1, 3, 8, 8});
  model.input("cache", {3, 4, 11, 9});
  model.weight("conv1.weight", {4, 3, 3, 3}, values(4 * 3 * 9, 0.4f));
  OnnxModelBuilder::set_ints(model.node("Conv", "conv1", {"image", "conv1.weight"}, "c1"), "pads", {1, 1, 1, 1});
  onnx::TensorProto zero;
  zero.set_data_type(onnx::TensorProto_DataType_INT64);
  zero.add_dims(1);
  zero.add_int64_data(0);
  model.integers("pad.count", {1}, {4});
  OnnxModelBuilder::set_tensor(model.node("ConstantOfShape", "pad.zeros", {"pad.count"}, "pad.z"), "value", zero);
  model.integers("pad.given", {4}, {2, 1, 2, 1});  // (begin, end) of the last axis, then of the one before
  OnnxModelBuilder::set_int(model.node("Concat", "pad.concat", {"pad.given", "pad.z"}, "pad.all"), "axis", 0);
  model.integers("pad.pairs", {2}, {-1, 2});
  model.node("Reshape", "pad.reshape", {"pad.all", "pad.pairs"}, "pad.rows");
  model.integers("pad.starts", {1}, {-1});
  model.integers("pad.ends", {1}, {INT64_MIN});
  model.integers("pad.axes", {1}, {0});
  model.integers("pad.steps", {1}, {-1});
  model.node("Slice", "pad.reverse", {"pad.rows", "pad.starts", "pad.ends", "pad.axes", "pad.steps"}, "pad.reversed");
  OnnxModelBuilder::set_ints(model.node("Transpose", "pad.transpose", {"pad.reversed"}, "pad.columns"), "perm", {1, 0});
  model.integers("pad.flat", {1}, {-1});
  model.node("Reshape", "pad.flatten", {"pad.columns", "pad.flat"}, "pad.list");
  OnnxModelBuilder::set_int(model.node("Cast", "pad.cast", {"pad.list"}, "pad.pads"), "to", 7);
  OnnxModelBuilder::set_string(model.node("Pad", "reflect", {"c1", "pad.pads"}, "p1"), "mode", "reflect");
  model.weight("norm.scale", {4}, {1.5f, 0.5f, -1.0f, 2.0f});
  model.weight("norm.bias", {4}, {0.1f, -0.2f, 0.3f, 0.0f});
  model.node("InstanceNormalization", "norm", {"p1", "norm.scale", "norm.bias"}, "n1");
  model.integers("edge.pads", {8}, {0, 0, 1, 0, 0, 0, 1, 0});
  OnnxModelBuilder::set_string(model.node("Pad", "edge", {"n1", "edge.pads"}, "p2"), "mode", "edge");
  model.weight("conv2.weight", {4, 4, 3, 3}, values(4 * 4 * 9, 0.3f));
  model.node("Conv", "conv2", {"p2", "conv2.weight"}, "c2");
  model.node("Relu", "relu2", {"c2"}, "features");
  model.integers("cache.frame", {1, 1}, {1});
  model.node("ScatterND", "cache.write", {"cache", "cache.frame", "c2"}, "cache1");
  model.integers("channels.starts", {1}, {0});
  model.integers("channels.ends", {1}, {2});
  model.integers("channels.axes", {1}, {1});
  model.node("Slice", "channels", {"c2", "channels.starts", "channels.ends", "channels.axes"}, "c2_first");
  model.integers("planes.shape", {3}, {2, 11, 9});
  model.node("Reshape", "planes", {"c2_first", "planes.shape"}, "planes");
  model.integers("cache.blocks", {2, 2}, {0, 3, 2, 1});
  model.node("ScatterND", "cache.blocks_write", {"cache1", "cache.blocks", "planes"}, "cache_out");
  model.output("features");
  model.output("cache_out");
  model.write(path);
}


// A slice assignment as PyTorch exports it (cache[:, :, :, 2:6] = column, gtcrn's cache updates): ScatterND whose
// indices are computed, not stored — per axis a constant index list Expand-ed to the update's shape, that shape
// computed as Where(Equal(shape, ConstantOfShape(4)·(−1)), ConstantOfShape(4), shape) (−1 entries become 1), then
// Unsqueeze(−1) and Concat along the last axis — all folded at import into constant indices (1, 2, 4, 4, 4).
// image 1×3×4×1 → 1×1 conv → c 1×2×4×1 ("features" through a ReLU), c Expand-ed to 1×2×4×4 (the value broadcast
// along its last axis: gathers on the unit) and written into cache 1×2×4×8 at columns 2 … 5: "cache_out".
void write_slice_assignment(const std::string& path) {
  SeededValues values(4099);
  OnnxModelBuilder model("slice_assignment", 13);
  model.input("image", {1, 3, 4, 1});
  model.input("cache", {1, 2, 4, 8});
  model.weight("conv.weight", {2, 3, 1, 1}, values(2 * 3, 0.8f));
  model.node("Conv", "conv", {"image", "conv.weight"}, "c");
  model.node("Relu", "relu", {"c"}, "features");
  onnx::TensorProto one;
  one.set_data_type(onnx::TensorProto_DataType_INT64);
  one.add_dims(1);
  one.add_int64_data(1);
  model.integers("index.rank", {1}, {4});
  OnnxModelBuilder::set_tensor(model.node("ConstantOfShape", "index.ones", {"index.rank"}, "ones"), "value", one);
  model.integers("index.minus_one", {}, {-1});
  model.node("Mul", "index.negate", {"ones", "index.minus_one"}, "minus_ones");
  model.integers("index.shape", {4}, {1, 2, 4, 4});
  model.node("Equal", "index.equal", {"index.shape", "minus_ones"}, "unknown");
  model.node("Where", "index.where", {"unknown", "ones", "index.shape"}, "expand_shape");
  const std::vector<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>> axes = {
      {{1, 1, 1, 1}, {0}}, {{2, 1, 1}, {0, 1}}, {{4, 1}, {0, 1, 2, 3}}, {{4}, {2, 3, 4, 5}}};
  model.integers("index.last", {1}, {-1});
  std::vector<std::string> columns;
  for (std::size_t axis = 0; axis < axes.size(); ++axis) {
    const std::string name = "index.axis" + std::to_string(axis);
    model.integers(name, axes[axis].first, axes[axis].second);
    model.node("Expand", name + ".expand", {name, "expand_shape"}, name + ".expanded");
    model.node("Unsqueeze", name + ".unsqueeze", {name + ".expanded", "index.last"}, name + ".column");
    columns.push_back(name + ".column");
  }
  OnnxModelBuilder::set_int(model.node("Concat", "index.concat", columns, "indices"), "axis", -1);
  model.node("Expand", "broadcast", {"c", "index.shape"}, "columns");
  model.node("ScatterND", "cache.write", {"cache", "indices", "columns"}, "cache_out");
  model.output("features");
  model.output("cache_out");
  model.write(path);
}


// The experimental operators CoreML converters write at opset 7 (OnnxMLTools' fast neural style): image 1×3×6×6 →
// ImageScaler (scale 0.5, a bias per channel) → 3×3 conv (no pads) → 1×4×4×4 → ConvTranspose stride 2, auto_pad
// VALID, output_shape 10×10 (one beyond the unpadded 2·3 + 3 = 9: ONNX Runtime adds it at the end) → 1×2×10×10 →
// Crop border (left 1, top 2, right 0, bottom 1) → 1×2×7×9 → Affine (alpha 2, beta −0.5): "styled".
void write_coreml_operators(const std::string& path) {
  SeededValues values(1201);
  OnnxModelBuilder model("coreml_operators", 7);
  model.input("image", {1, 3, 6, 6});
  auto& scaler = model.node("ImageScaler", "scaler", {"image"}, "scaled");
  OnnxModelBuilder::set_float(scaler, "scale", 0.5f);
  onnx::AttributeProto* bias = scaler.add_attribute();
  bias->set_name("bias");
  bias->set_type(onnx::AttributeProto_AttributeType_FLOATS);
  for (const float value : {-0.25f, 0.5f, 0.1f}) bias->add_floats(value);
  model.weight("conv.weight", {4, 3, 3, 3}, values(4 * 3 * 9, 0.4f));
  model.weight("conv.bias", {4}, values(4, 0.2f));
  model.node("Conv", "conv", {"scaled", "conv.weight", "conv.bias"}, "c");
  model.weight("up.weight", {4, 2, 3, 3}, values(4 * 2 * 9, 0.4f));
  model.weight("up.bias", {2}, {0.3f, -0.2f});
  auto& up = model.node("ConvTranspose", "up", {"c", "up.weight", "up.bias"}, "u");
  OnnxModelBuilder::set_ints(up, "strides", {2, 2});
  OnnxModelBuilder::set_ints(up, "kernel_shape", {3, 3});
  OnnxModelBuilder::set_string(up, "auto_pad", "VALID");
  OnnxModelBuilder::set_ints(up, "output_shape", {10, 10});
  OnnxModelBuilder::set_ints(model.node("Crop", "crop", {"u"}, "cropped"), "border", {1, 2, 0, 1});
  auto& affine = model.node("Affine", "affine", {"cropped"}, "styled");
  OnnxModelBuilder::set_float(affine, "alpha", 2.0f);
  OnnxModelBuilder::set_float(affine, "beta", -0.5f);
  model.output("styled");
  model.write(path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: maeri_make_onnx_models FOLDER\n";
    return 1;
  }
  const std::string folder = argv[1];
  {
    OnnxModelBuilder model("small_cnn");
    model.input("image", {1, 4, 10, 10});
    model.weight("w1", {8, 2, 3, 3});  // 2 groups of 2 channels and 4 filters: 10×10 → 10×10 with pads 1
    auto& conv1 = model.node("Conv", "conv1", {"image", "w1"}, "c1");
    OnnxModelBuilder::set_int(conv1, "group", 2);
    OnnxModelBuilder::set_ints(conv1, "pads", {1, 1, 1, 1});
    model.node("Relu", "relu1", {"c1"}, "r1");
    model.weight("w2", {8, 1, 3, 3});  // depthwise, stride 2, dilation 2, pads 2: (10 + 4 − 5)/2 + 1 = 5
    auto& conv2 = model.node("Conv", "depthwise", {"r1", "w2"}, "c2");
    OnnxModelBuilder::set_int(conv2, "group", 8);
    OnnxModelBuilder::set_ints(conv2, "strides", {2, 2});
    OnnxModelBuilder::set_ints(conv2, "dilations", {2, 2});
    OnnxModelBuilder::set_ints(conv2, "pads", {2, 2, 2, 2});
    auto& pool = model.node("MaxPool", "pool", {"c2"}, "p");
    OnnxModelBuilder::set_ints(pool, "kernel_shape", {5, 5});
    model.node("Flatten", "flatten", {"p"}, "f");
    model.weight("fc_w", {8, 6});
    model.node("Gemm", "classifier", {"f", "fc_w"}, "logits");
    model.output("logits");
    model.write(folder + "/small.onnx");
  }
  {
    // An element-wise function the post-processing unit does not run (Sign): the importer cuts the graph there, so
    // the layer after it reads a second network input — a chained run takes both (network_chain.sh, several_inputs).
    OnnxModelBuilder model("gated");
    model.input("image", {1, 3, 8, 8});
    model.weight("w1", {4, 3, 3, 3});
    auto& conv1 = model.node("Conv", "conv1", {"image", "w1"}, "c1");
    OnnxModelBuilder::set_ints(conv1, "pads", {1, 1, 1, 1});
    model.node("Sign", "gate", {"c1"}, "g");
    model.weight("w2", {6, 4, 3, 3});
    model.node("Conv", "conv2", {"g", "w2"}, "c2");
    model.node("Relu", "relu2", {"c2"}, "r2");
    model.node("GlobalAveragePool", "gap", {"r2"}, "p");
    model.node("Flatten", "flatten", {"p"}, "f");
    model.weight("fc_w", {6, 5});
    model.node("MatMul", "fc", {"f", "fc_w"}, "logits");
    model.output("logits");
    model.write(folder + "/gated.onnx");
  }
  write_if_on_input(folder + "/if-input.onnx");
  write_classifier(folder + "/classifier.onnx", 1);
  write_classifier(folder + "/classifier-batch.onnx", -1);
  write_batch_norm_cnn(folder + "/bn-cnn.onnx");
  write_padded(folder + "/padded.onnx");
  write_gates(folder + "/gates.onnx");
  write_attention_one_head(folder + "/attention-one-head.onnx");
  write_attention_two_heads(folder + "/attention-two-heads.onnx");
  write_elementwise(folder + "/elementwise.onnx");
  write_layout(folder + "/layout.onnx");
  write_softmax_opset11(folder + "/softmax-opset11.onnx");
  write_layer_norm(folder + "/layer-norm.onnx");
  maeri::test::write_transformer_encoder(folder + "/transformer-encoder.onnx");
  maeri::test::write_transformer_decoder(folder + "/transformer-decoder.onnx");
  maeri::test::write_attention_broadcast(folder + "/attention-broadcast.onnx");
  maeri::test::write_attention_hf_mask(folder + "/attention-hf-mask.onnx");
  maeri::test::write_token_embedding(folder + "/token-embedding.onnx");
  maeri::test::write_scalar_token(folder + "/scalar-token.onnx");
  write_resize(folder + "/resize.onnx");
  write_float_nodes(folder + "/float-nodes.onnx");
  write_rounding(folder + "/rounding.onnx");
  write_streaming_layout(folder + "/streaming-layout.onnx");
  write_slice_assignment(folder + "/slice-assignment.onnx");
  write_coreml_operators(folder + "/coreml-operators.onnx");
  {
    // An average pool's window pads both sides alike (padding not counted): still refused. A max pool's asymmetric
    // pads run (resize.onnx).
    OnnxModelBuilder model("asymmetric_pool");
    model.input("x", {1, 3, 8, 8});
    auto& pool = model.node("AveragePool", "pool_same", {"x"}, "p");
    OnnxModelBuilder::set_ints(pool, "kernel_shape", {2, 2});
    OnnxModelBuilder::set_ints(pool, "pads", {0, 0, 1, 1});
    model.weight("w", {4, 3, 1, 1});
    model.node("Conv", "conv", {"p", "w"}, "y");
    model.output("y");
    model.write(folder + "/asymmetric-pool.onnx");
  }
  OnnxModelBuilder::write_one_conv(folder + "/dynamic.onnx", "conv", {-1, 3, 8, 8}, {4, 3, 3, 3});
  OnnxModelBuilder::write_one_conv(folder + "/asymmetric.onnx", "conv_same", {1, 3, 8, 8}, {4, 3, 3, 3},
                                   [](onnx::NodeProto& conv) { OnnxModelBuilder::set_ints(conv, "pads", {0, 0, 1, 1}); });
  std::ofstream(folder + "/not-onnx.onnx") << "kind: workload\nname: w\n";
  write_bad_models(folder);
  return 0;
}
