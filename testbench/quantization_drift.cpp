// Drift of the integer results from the float reference (see quantization_drift.hpp).
#include "testbench/quantization_drift.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace maeri::testbench {

bool TensorAgreement::one_element() const { return elements == 1; }

bool TensorAgreement::drifts() const {
  if (one_element()) return !(relative_error <= kDriftChannelFraction);  // so does a NaN error
  if (channel_off()) return true;
  return !(cosine_similarity >= kDriftCosine);  // a NaN cosine drifts
}

bool TensorAgreement::channel_off() const {
  return channel_range > 0 && channel_error > kDriftChannelFraction * channel_range &&
         channel_error > kDriftChannelSteps * scale;
}

namespace {

// Per channel (axis 1): max |s·q − r| and max r − min r; a tensor of rank < 2 is one channel.
void channel_errors(const contracts::Tensor& shape, const std::vector<double>& dequantized,
                    const std::vector<double>& reals, TensorAgreement& agreement) {
  const std::int64_t channels = shape.shape.size() >= 2 ? std::max<std::int64_t>(shape.shape[1], 1) : 1;
  std::int64_t inner = 1;
  for (std::size_t d = 2; d < shape.shape.size(); ++d) inner *= shape.shape[d];
  std::vector<double> error(std::size_t(channels), 0.0), low(std::size_t(channels), INFINITY),
      high(std::size_t(channels), -INFINITY);
  for (std::size_t i = 0; i < reals.size(); ++i) {
    const std::size_t c = std::size_t((std::int64_t(i) / std::max<std::int64_t>(inner, 1)) % channels);
    error[c] = std::max(error[c], std::abs(dequantized[i] - reals[i]));
    low[c] = std::min(low[c], reals[i]);
    high[c] = std::max(high[c], reals[i]);
  }
  double worst = -1;
  for (std::size_t c = 0; c < error.size(); ++c) {
    const double range = high[c] - low[c];
    const double part = range > 0 ? error[c] / range : 0.0;
    if (part > worst) {
      worst = part;
      agreement.worst_channel = std::int64_t(c);
      agreement.channel_error = error[c];
      agreement.channel_range = range > 0 ? range : 0.0;
    }
  }
}

}  // namespace

TensorAgreement tensor_agreement(const contracts::QuantizedNetwork& network, std::size_t tensor,
                                 const std::vector<std::int64_t>& integers, const std::vector<double>& reals) {
  TensorAgreement agreement;
  agreement.tensor = tensor;
  agreement.elements = std::int64_t(reals.size());
  const double scale = network.tensors[tensor].scale;
  agreement.scale = scale;
  std::vector<double> dequantized;
  double max_r = 0;
  for (std::size_t i = 0; i < reals.size(); ++i) {
    const double q = scale * double(integers[i]), r = reals[i];
    dequantized.push_back(q);
    agreement.max_abs_error = std::max(agreement.max_abs_error, std::abs(q - r));
    max_r = std::max(max_r, std::abs(r));
  }
  agreement.cosine_similarity = cosine_similarity(dequantized, reals);
  agreement.relative_error = max_r > 0 ? agreement.max_abs_error / max_r : agreement.max_abs_error;
  channel_errors(network.network.tensors[tensor], dequantized, reals, agreement);
  return agreement;
}

std::optional<TensorAgreement> tensor_drift(const contracts::QuantizedNetwork& network, std::size_t tensor,
                                            const std::vector<std::int64_t>& integers, const std::vector<double>& reals) {
  if (network.network.tensors[tensor].constant || reals.empty() || integers.size() != reals.size()) return std::nullopt;
  TensorAgreement agreement = tensor_agreement(network, tensor, integers, reals);
  if (!agreement.drifts()) return std::nullopt;
  return agreement;
}

std::vector<TensorAgreement> drifting_tensors(const contracts::QuantizedNetwork& network, const IntegerTensors& integers,
                                              const RealTensors& reals) {
  const contracts::Network& graph = network.network;
  const std::vector<std::size_t> inputs = graph.network_inputs();
  std::vector<TensorAgreement> drifting;
  for (std::size_t t = 0; t < graph.tensors.size() && t < integers.size() && t < reals.size(); ++t) {
    if (std::count(inputs.begin(), inputs.end(), t)) continue;
    if (std::optional<TensorAgreement> drift = tensor_drift(network, t, integers[t], reals[t])) drifting.push_back(*drift);
  }
  return drifting;
}

std::string agreement_text(const contracts::QuantizedNetwork& network, const TensorAgreement& a) {
  const std::string& name = network.network.tensors[a.tensor].name;
  if (a.one_element())
    return fmt::format("'{}': one value, |error| {:.3g} (relative {:.3g})", name, a.max_abs_error, a.relative_error);
  std::string text = fmt::format("'{}': cosine {:.4f}", name, a.cosine_similarity);
  if (a.channel_off())
    text += fmt::format(", channel {} off by {:.3g} of its range {:.3g}", a.worst_channel, a.channel_error,
                        a.channel_range);
  return text;
}

}  // namespace maeri::testbench
