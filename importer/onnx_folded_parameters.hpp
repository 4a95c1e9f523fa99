// The parameters the importer computes from a model's constants — a BatchNormalization's scale γ/√(σ²+ε) and shift
// β − μ·γ/√(σ²+ε), a per-channel constant a Mul or Add folds into a layer or becomes a channel affine — must be
// finite: a NaN or an infinity there would reach the chained run's weights (issue 43, item 4: a negative variance,
// a NaN mean, σ² = ε = 0 or a Mul by NaN passed silently). One home for the rule and its message, called by the
// folding into a layer and by the channel affine beside the fabric alike.
#pragma once

#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace maeri::importer {

// Fills `scale` and `shift` (one per channel) from γ, β, μ, σ² (inputs 1–4 of `node`) and ε; returns "" or why they
// are not finite numbers, naming the input tensor, the channel and its value.
std::string batch_normalization_affine(const onnx::NodeProto& node, const std::vector<double>& gamma,
                                       const std::vector<double>& beta, const std::vector<double>& mean,
                                       const std::vector<double>& variance, double epsilon, std::vector<double>& scale,
                                       std::vector<double>& shift);

// "" when every value of the constant `tensor` is finite, else which element is not.
std::string nonfinite_constant(const std::string& tensor, const std::vector<double>& values);

}  // namespace maeri::importer
