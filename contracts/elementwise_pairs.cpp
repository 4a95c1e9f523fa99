// Broadcasting and the integer rule of the binary element-wise operators (see elementwise_pairs.hpp).
#include "contracts/elementwise_pairs.hpp"

#include <algorithm>
#include <stdexcept>

namespace maeri::contracts {

bool is_elementwise_pair(OperatorKind kind) {
  return kind == OperatorKind::Add || kind == OperatorKind::Sub || kind == OperatorKind::Maximum ||
         kind == OperatorKind::Minimum || kind == OperatorKind::Mul;
}

std::optional<std::vector<std::int64_t>> broadcast_shape(const std::vector<std::int64_t>& a,
                                                         const std::vector<std::int64_t>& b) {
  const std::size_t rank = std::max(a.size(), b.size());
  std::vector<std::int64_t> shape(rank, 1);
  for (std::size_t d = 0; d < rank; ++d) {
    const std::int64_t x = d + a.size() >= rank ? a[d + a.size() - rank] : 1;
    const std::int64_t y = d + b.size() >= rank ? b[d + b.size() - rank] : 1;
    if (x != y && x != 1 && y != 1) return std::nullopt;
    shape[d] = x == 1 ? y : x;
  }
  return shape;
}

BroadcastIndex::BroadcastIndex(const std::vector<std::int64_t>& input, const std::vector<std::int64_t>& output)
    : output_(output), strides_(output.size(), 0), same_(input == output) {
  if (input.size() > output.size()) throw std::invalid_argument("BroadcastIndex: the input has a higher rank");
  std::int64_t stride = 1;
  for (std::size_t k = input.size(); k-- > 0;) {
    const std::size_t d = k + output.size() - input.size();
    if (input[k] != 1 && input[k] != output[d])
      throw std::invalid_argument("BroadcastIndex: the input does not broadcast to the output");
    strides_[d] = input[k] == 1 ? 0 : stride;
    stride *= input[k];
  }
}

std::int64_t BroadcastIndex::operator()(std::int64_t i) const {
  if (same_) return i;
  std::int64_t index = 0;
  for (std::size_t d = output_.size(); d-- > 0;) {
    index += (i % output_[d]) * strides_[d];
    i /= output_[d];
  }
  return index;
}

std::int64_t rescaled_pair(OperatorKind kind, std::int64_t a, std::int64_t b, const QuantizedOperator& q,
                           bool constant_first, int data_width) {
  const WideInt x = WideInt(a) * q.input_multipliers.at(0), y = WideInt(b) * q.input_multipliers.at(1);
  WideInt combined = 0;
  switch (kind) {
    case OperatorKind::Add: combined = x + y; break;
    case OperatorKind::Sub: combined = constant_first ? y - x : x - y; break;
    case OperatorKind::Maximum: combined = std::max(x, y); break;
    case OperatorKind::Minimum: combined = std::min(x, y); break;
    default: throw std::invalid_argument("rescaled_pair: not an add, sub, max or min");
  }
  return saturate(round_shift(combined, q.input_shift), data_width);
}

}  // namespace maeri::contracts
