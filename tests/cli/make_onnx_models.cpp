// Writes the ONNX models of the `maeri import` CLI tests into a folder, built with the ONNX C++ API
// (tests/unit/onnx_models.hpp): small.onnx (a grouped conv, a depthwise conv, ReLU, max pool, flatten and a Gemm
// classifier, batch 1), gated.onnx (cut at an Elu), classifier.onnx, bn-cnn.onnx (batch normalizations after
// ReLUs), gates.onnx (SiLU, an SE block, HardSwish), dynamic.onnx (a symbolic batch), asymmetric.onnx (a conv with
// pads [0, 0, 1, 1]), asymmetric-pool.onnx (a max pool with pads [0, 0, 1, 1]), padded.onnx (zero borders) and
// not-onnx.onnx (YAML text); and the bad models of tests/cli/bad_models.sh, named after the defect each carries
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
    OnnxModelBuilder model("deep");  // 5000 1×1 convolutions, more layers than a workload file may list
    model.input("t0", {1, 1, 1, 1});
    model.weight("w", {1, 1, 1, 1});
    for (int i = 0; i < 5000; ++i)
      model.node("Conv", "conv" + std::to_string(i), {"t" + std::to_string(i), "w"}, "t" + std::to_string(i + 1));
    model.output("t5000");
    model.write(folder + "/bad-5000-layers.onnx");
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
    model.node("Conv", std::string(10 * 1024 * 1024, 'n'), {"x", "w"}, "y");
    model.output("y");
    model.write(folder + "/bad-10mb-name.onnx");
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
    // An activation the post-processing unit does not run (Elu): the importer cuts the graph there, so the layer
    // after it reads a second network input — a chained run takes both (network_chain.sh, several_inputs).
    OnnxModelBuilder model("gated");
    model.input("image", {1, 3, 8, 8});
    model.weight("w1", {4, 3, 3, 3});
    auto& conv1 = model.node("Conv", "conv1", {"image", "w1"}, "c1");
    OnnxModelBuilder::set_ints(conv1, "pads", {1, 1, 1, 1});
    model.node("Elu", "gate", {"c1"}, "g");
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
  {
    OnnxModelBuilder model("asymmetric_pool");  // a pooling window pads both sides alike: still refused
    model.input("x", {1, 3, 8, 8});
    auto& pool = model.node("MaxPool", "pool_same", {"x"}, "p");
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
