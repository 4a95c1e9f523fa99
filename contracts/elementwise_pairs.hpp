// The binary element-wise operators (Add, Sub, Maximum, Minimum, Mul) between two tensors, or between a tensor and a
// constant operand the operator holds as a parameter: ONNX's (numpy's) multidirectional broadcasting of their shapes
// and the integer rule of the rescaled ones, the one home of each (docs/quantization.md, "Element-wise pairs";
// docs/workload-spec.md, "Graphs").
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "contracts/network.hpp"
#include "contracts/quantized_network.hpp"

namespace maeri::contracts {

// Add, Sub, Maximum, Minimum, Mul.
bool is_elementwise_pair(OperatorKind kind);

// The shape of `a` and `b` broadcast together (ONNX's multidirectional broadcasting: shapes aligned on their last
// axis, missing leading axes of extent 1, each axis equal or 1 on one side), or nullopt when they do not broadcast.
std::optional<std::vector<std::int64_t>> broadcast_shape(const std::vector<std::int64_t>& a,
                                                         const std::vector<std::int64_t>& b);

// Which element of an input of shape `input` (broadcastable to `output`) the output's row-major element i reads.
class BroadcastIndex {
 public:
  BroadcastIndex(const std::vector<std::int64_t>& input, const std::vector<std::int64_t>& output);
  std::int64_t operator()(std::int64_t i) const;

 private:
  std::vector<std::int64_t> output_, strides_;  // per output axis, the input's stride (0 where it broadcasts)
  bool same_ = true;                            // the input has the output's shape: i itself
};

// Add, Sub, Maximum, Minimum on two data integers a (the first operand) and b (the second), each rescaled to the
// output's scale by its multiplier at the common shift: saturate(round_shift(a·m_a ∘ b·m_b, shift)), ∘ being +, −
// (b·m_b − a·m_a when `constant_first`: a constant minus a tensor), max or min.
std::int64_t rescaled_pair(OperatorKind kind, std::int64_t a, std::int64_t b, const QuantizedOperator& q,
                           bool constant_first, int data_width);

}  // namespace maeri::contracts
