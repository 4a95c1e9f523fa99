// Folded parameters that must be finite (see onnx_folded_parameters.hpp).
#include "importer/onnx_folded_parameters.hpp"

#include <fmt/format.h>

#include <cmath>

namespace maeri::importer {

std::string nonfinite_constant(const std::string& tensor, const std::vector<double>& values) {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i]))
      return fmt::format("constant '{}' holds {} at element {}: a folded parameter must be a finite number", tensor,
                         values[i], i);
  return "";
}

std::string batch_normalization_affine(const onnx::NodeProto& node, const std::vector<double>& gamma,
                                       const std::vector<double>& beta, const std::vector<double>& mean,
                                       const std::vector<double>& variance, double epsilon, std::vector<double>& scale,
                                       std::vector<double>& shift) {
  const std::vector<double>* inputs[] = {&gamma, &beta, &mean, &variance};
  for (int i = 0; i < 4; ++i) {
    const std::string reason = nonfinite_constant(node.input(i + 1), *inputs[i]);
    if (!reason.empty()) return "input " + reason;
  }
  if (!std::isfinite(epsilon) || epsilon < 0)
    return fmt::format("attribute 'epsilon': expected a finite number >= 0, found {}", epsilon);
  for (std::size_t c = 0; c < scale.size() && c < gamma.size(); ++c) {
    const double spread = variance[c] + epsilon;
    if (!(spread > 0))
      return fmt::format("channel {}: the variance '{}' {} plus epsilon {} is {}: γ/√(σ²+ε) needs σ²+ε > 0 (a "
                         "variance is never negative; σ² = ε = 0 divides by zero)",
                         c, node.input(4), variance[c], epsilon, spread);
    scale[c] = gamma[c] / std::sqrt(spread);
    shift[c] = beta[c] - mean[c] * scale[c];
    if (!std::isfinite(scale[c]) || !std::isfinite(shift[c]))
      return fmt::format("channel {}: the folded scale {} and shift {} are not both finite (γ {}, β {}, μ {}, σ²+ε {})",
                         c, scale[c], shift[c], gamma[c], beta[c], mean[c], spread);
  }
  return "";
}

}  // namespace maeri::importer
