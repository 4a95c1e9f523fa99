// Writes the ONNX models of issue 43's hostile-model CLI tests (tests/cli/hostile_models.sh) into a folder, with the
// ONNX C++ API (tests/unit/onnx_models.hpp). Each is a small valid graph around one defect:
//   non-finite parameters (item 4): bn-negative-variance, bn-nan-mean, bn-zero-variance (σ² = ε = 0) — each once
//   folded into the conv before it (bn-*-folded) and once as a channel affine after a ReLU — mul-nan-channel (a Mul
//   by a per-channel constant holding NaN), mul-nan-tensor (a Mul by a whole-tensor constant holding NaN: an
//   element-wise pair whose constant reaches the run's weights), gemm-alpha-nan;
//   workloads the loader refuses (item 3c): hardsigmoid-huge-alpha (3e38), matmul-1d (two 1-D tensors), pad-2-24 and
//   pad-2-40 (a Pad past kMaxLayerDimension), maxpool-1d-kernel-over-input, maxpool-pads-kernel (pads = kernel);
//   and tiny.yaml's tensors with non-finite or overflowing values (items 4 and 5): input-nan.npy, input-inf.npy
//   (image (1, 3, 10, 10), a NaN at element 17, +inf at element 5), input-huge.npy (every value 1.5e308: finite, but
//   conv1's sums overflow a double), weights-nan.npz (conv1.weights (8, 3, 3, 3), NaN at element 40),
//   calibration-inf.npz (two samples, +inf in the second).
// Usage: maeri_make_hostile_models FOLDER
#include <cmath>
#include <cstdint>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "onnx_models.hpp"
#include "util/npy_file.hpp"

using maeri::test::OnnxModelBuilder;

namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();

// image 1×3×6×6 → conv (4 filters, 3×3, pads 1) → [relu] → BatchNormalization → output; `relu`: the BN follows a
// ReLU and becomes a channel affine, else it folds into the conv.
void write_batch_norm(const std::string& path, bool relu, std::vector<float> mean, std::vector<float> variance,
                      float epsilon) {
  OnnxModelBuilder model("bn");
  model.input("image", {1, 3, 6, 6});
  std::vector<float> weights(4 * 3 * 9);
  for (std::size_t i = 0; i < weights.size(); ++i) weights[i] = float(int(i % 7) - 3) / 10;
  model.weight("conv.weight", {4, 3, 3, 3}, weights);
  OnnxModelBuilder::set_ints(model.node("Conv", "conv", {"image", "conv.weight"}, "c"), "pads", {1, 1, 1, 1});
  std::string input = "c";
  if (relu) {
    model.node("Relu", "relu", {"c"}, "r");
    input = "r";
  }
  model.weight("bn.gamma", {4}, {1.0f, 0.5f, 2.0f, 1.5f});
  model.weight("bn.beta", {4}, {0.0f, 0.1f, -0.1f, 0.2f});
  model.weight("bn.mean", {4}, mean);
  model.weight("bn.var", {4}, variance);
  OnnxModelBuilder::set_float(model.node("BatchNormalization", "bn", {input, "bn.gamma", "bn.beta", "bn.mean", "bn.var"},
                                         "y"),
                              "epsilon", epsilon);
  model.output("y");
  model.write(path);
}

// image 1×4×6×6 → conv 1×1 → relu → Mul by `constant` of shape `dims` → output.
void write_mul(const std::string& path, const std::vector<std::int64_t>& dims, const std::vector<float>& constant) {
  OnnxModelBuilder model("mul");
  model.input("image", {1, 4, 6, 6});
  model.weight("conv.weight", {4, 4, 1, 1}, std::vector<float>(16, 0.25f));
  model.node("Conv", "conv", {"image", "conv.weight"}, "c");
  model.node("Relu", "relu", {"c"}, "r");
  model.weight("factor", dims, constant);
  model.node("Mul", "scale", {"r", "factor"}, "y");
  model.output("y");
  model.write(path);
}

void write_nonfinite_models(const std::string& folder) {
  const std::vector<float> mean{0.1f, 0.2f, 0.0f, -0.1f}, variance{1.0f, 0.5f, 2.0f, 0.25f};
  for (const bool relu : {false, true}) {
    const std::string suffix = relu ? ".onnx" : "-folded.onnx";
    write_batch_norm(folder + "/bn-negative-variance" + suffix, relu, mean, {1.0f, -0.5f, 2.0f, 0.25f}, 1e-5f);
    write_batch_norm(folder + "/bn-nan-mean" + suffix, relu, {0.1f, kNaN, 0.0f, -0.1f}, variance, 1e-5f);
    write_batch_norm(folder + "/bn-zero-variance" + suffix, relu, mean, {1.0f, 0.5f, 0.0f, 0.25f}, 0.0f);
  }
  write_mul(folder + "/mul-nan-channel.onnx", {1, 4, 1, 1}, {1.0f, kNaN, 0.5f, 2.0f});
  std::vector<float> whole(4 * 6 * 6, 0.5f);
  whole[77] = kNaN;
  write_mul(folder + "/mul-nan-tensor.onnx", {1, 4, 6, 6}, whole);
  OnnxModelBuilder gemm("gemm");
  gemm.input("x", {1, 8});
  gemm.weight("w", {8, 4}, std::vector<float>(32, 0.25f));
  OnnxModelBuilder::set_float(gemm.node("Gemm", "fc", {"x", "w"}, "y"), "alpha", kNaN);
  gemm.output("y");
  gemm.write(folder + "/gemm-alpha-nan.onnx");
}

// image 1×3×6×6 → conv 3×3 → `op` → output: the one node the loader refuses.
void write_after_conv(const std::string& path, const std::string& op, const std::function<void(onnx::NodeProto&)>& set,
                      const std::vector<std::int64_t>& image = {1, 3, 6, 6}, int opset = 13) {
  OnnxModelBuilder model("hostile", opset);
  model.input("image", image);
  std::vector<std::int64_t> kernel{4, image[1]};
  kernel.resize(image.size(), 1);  // 1×1, or 1 for a 1-D input
  model.weight("conv.weight", kernel, std::vector<float>(std::size_t(4 * image[1]), 0.25f));
  model.node("Conv", "conv", {"image", "conv.weight"}, "c");
  set(model.node(op, "bad", {"c"}, "y"));
  model.output("y");
  model.write(path);
}

void write_unloadable_models(const std::string& folder) {
  write_after_conv(folder + "/hardsigmoid-huge-alpha.onnx", "HardSigmoid", [](onnx::NodeProto& node) {
    OnnxModelBuilder::set_float(node, "alpha", 3e38f);
  });
  write_after_conv(folder + "/maxpool-1d-kernel-over-input.onnx", "MaxPool", [](onnx::NodeProto& node) {
    OnnxModelBuilder::set_ints(node, "kernel_shape", {9});  // over the input's 6, within its padded 10
    OnnxModelBuilder::set_ints(node, "pads", {2, 2});
  }, {1, 3, 6});
  write_after_conv(folder + "/maxpool-pads-kernel.onnx", "MaxPool", [](onnx::NodeProto& node) {
    OnnxModelBuilder::set_ints(node, "kernel_shape", {2, 2});
    OnnxModelBuilder::set_ints(node, "pads", {2, 2, 2, 2});
  });
  for (const auto& [name, pad] : {std::pair{"pad-2-24", (std::int64_t{1} << 24) + 1},
                                  {"pad-2-40", std::int64_t{1} << 40}}) {
    OnnxModelBuilder model("pad");
    model.input("image", {1, 3, 6, 6});
    model.integers("border", {8}, {0, 0, pad, 0, 0, 0, pad, 0});
    model.node("Pad", "pad", {"image", "border"}, "p");
    model.weight("conv.weight", {4, 3, 1, 1}, std::vector<float>(12, 0.25f));
    model.node("Conv", "conv", {"p", "conv.weight"}, "y");
    model.output("y");
    model.write(folder + "/" + name + ".onnx");
  }
  OnnxModelBuilder matmul("matmul_1d");
  matmul.input("a", {8});
  matmul.weight("b", {8}, std::vector<float>(8, 0.5f));
  matmul.node("MatMul", "dot", {"a", "b"}, "y");
  matmul.output("y");
  matmul.write(folder + "/matmul-1d.onnx");
}

// Reals of `shape`, 0.1·((i mod 7) − 3) each, but `value` at `at`.
maeri::util::NpyArray reals(const std::vector<std::int64_t>& shape, std::size_t at, double value) {
  maeri::util::NpyArray array;
  array.type = maeri::util::NpyType::Float64;
  array.shape = shape;
  std::size_t count = 1;
  for (const std::int64_t extent : shape) count *= std::size_t(extent);
  for (std::size_t i = 0; i < count; ++i) array.reals.push_back(0.1 * (int(i % 7) - 3));
  if (at < count) array.reals[at] = value;
  return array;
}

void write_nonfinite_tensors(const std::string& folder) {
  using maeri::util::npy_bytes;
  const std::vector<std::int64_t> image{1, 3, 10, 10};
  maeri::util::write_npy_file(folder + "/input-nan.npy", reals(image, 17, std::nan("")));
  maeri::util::write_npy_file(folder + "/input-inf.npy", reals(image, 5, HUGE_VAL));
  maeri::util::NpyArray huge = reals(image, 300, 0);
  for (double& value : huge.reals) value = 1.5e308;
  maeri::util::write_npy_file(folder + "/input-huge.npy", huge);
  std::ofstream(folder + "/weights-nan.npz", std::ios::binary)
      << maeri::util::npz_archive_bytes({{"conv1.weights.npy", npy_bytes(reals({8, 3, 3, 3}, 40, std::nan("")))}});
  std::ofstream(folder + "/calibration-inf.npz", std::ios::binary) << maeri::util::npz_archive_bytes(
      {{"a.npy", npy_bytes(reals(image, 300, 0))}, {"b.npy", npy_bytes(reals(image, 99, -HUGE_VAL))}});
}

// A Loop of `trips` iterations (a constant trip count: the importer unrolls it) around a recurrent cell
// h ← tanh(h·W) on a (1, 8) state; W is 0.1·((i mod 7) − 3), or all zeros (a layer whose weights are all 0).
void write_long_loop(const std::string& path, std::int64_t trips, bool zero_weights) {
  OnnxModelBuilder model("long loop");
  model.input("h0", {1, 8});
  std::vector<float> weights(64, 0.0f);
  if (!zero_weights)
    for (std::size_t i = 0; i < weights.size(); ++i) weights[i] = 0.1f * float(int(i % 7) - 3);
  model.weight("W", {8, 8}, weights);
  model.integers("n", {}, {trips});
  onnx::GraphProto body = maeri::test::loop_body({"i", "keep", "h"}, {"go_on", "h_next"});
  maeri::test::body_node(body, "MatMul", "cell", {"h", "W"}, "hw");
  maeri::test::body_node(body, "Tanh", "gate", {"hw"}, "h_next");
  maeri::test::body_node(body, "Identity", "continue", {"keep"}, "go_on");
  onnx::NodeProto& loop = model.node("Loop", "steps", {"n", "", "h0"}, "h_final");
  OnnxModelBuilder::set_graph(loop, "body", body);
  model.output("h_final");
  model.write(path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " FOLDER\n";
    return 1;
  }
  write_nonfinite_models(argv[1]);
  write_unloadable_models(argv[1]);
  write_nonfinite_tensors(argv[1]);
  write_long_loop(std::string(argv[1]) + "/loop-4096.onnx", 4096, false);
  write_long_loop(std::string(argv[1]) + "/loop-zero-weights.onnx", 3, true);
  return 0;
}
