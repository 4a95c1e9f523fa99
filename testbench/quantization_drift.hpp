// Where quantization loses a model's meaning (docs/quantization.md, "Drift"): every tensor whose integer result,
// dequantized, drifts from the float reference — cosine similarity below 0.99, or a channel (axis 1) off by more than
// a tenth of its range and by more than two steps of the tensor's scale — and a one-element tensor's agreement as an
// error (absolute and relative), since the cosine of two single values is only their signs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "contracts/quantized_network.hpp"
#include "testbench/network_reference.hpp"

namespace maeri::testbench {

inline constexpr double kDriftCosine = 0.99;          // below it a tensor drifts
inline constexpr double kDriftChannelFraction = 0.1;  // a channel off by more than this part of its range drifts,
inline constexpr double kDriftChannelSteps = 2;       // when that is also more than this many steps of the tensor's
                                                      // scale (a channel only a few steps wide is per-tensor
                                                      // resolution, not drift)

// One tensor's agreement of s·q with the float reference r.
struct TensorAgreement {
  std::size_t tensor = 0;
  double cosine_similarity = 1;  // 1 when both are all zero, 0 when only one is
  double max_abs_error = 0;      // max |s·q − r|
  double relative_error = 0;     // max_abs_error / max |r| (max_abs_error when r is all zero)
  // The channel (axis 1; the whole tensor for rank < 2) whose max |s·q − r| is the largest part of its range
  // max r − min r, and that part.
  std::int64_t worst_channel = 0;
  double channel_error = 0, channel_range = 0;
  double scale = 0;  // the tensor's
  bool one_element() const;
  // cosine < kDriftCosine or a channel's error > 0.1 · its range; one element: relative error > 0.1
  bool drifts() const;
  bool channel_off() const;  // the worst channel is off by > 0.1 of its range and > 2 steps
  std::int64_t elements = 0;
};

TensorAgreement tensor_agreement(const contracts::QuantizedNetwork& network, std::size_t tensor,
                                 const std::vector<std::int64_t>& integers, const std::vector<double>& reals);

// drifting_tensors' rule on one computed tensor (not a network input): its agreement when it drifts; nothing for a
// constant, a tensor not computed (empty) or one whose sizes differ.
std::optional<TensorAgreement> tensor_drift(const contracts::QuantizedNetwork& network, std::size_t tensor,
                                            const std::vector<std::int64_t>& integers, const std::vector<double>& reals);

// Every computed tensor (not the network's inputs, not constants) that drifts, in tensor order.
std::vector<TensorAgreement> drifting_tensors(const contracts::QuantizedNetwork& network, const IntegerTensors& integers,
                                              const RealTensors& reals);

// "'name': cosine 0.951, channel 3 off by 0.42 of its range 1.7" or, for one element, "'name': 0.1234 against
// 0.1240 (|error| 6e-4, relative 5e-3)".
std::string agreement_text(const contracts::QuantizedNetwork& network, const TensorAgreement& agreement);

}  // namespace maeri::testbench
