// LayerNormalization's integer primitives (see layer_normalization.hpp).
#include "contracts/layer_normalization.hpp"

#include <fmt/format.h>

#include <cmath>

namespace maeri::contracts {

std::uint64_t integer_square_root(std::uint64_t value) {
  std::uint64_t root = 0, bit = std::uint64_t{1} << 62;  // the largest power of four a 64-bit value holds
  for (int step = 0; step < kSquareRootSteps; ++step, bit >>= 2) {
    if (value >= root + bit) {
      value -= root + bit;
      root = (root >> 1) + bit;
    } else {
      root >>= 1;
    }
  }
  return root;
}

ReciprocalRoot reciprocal_root(WideInt q) {
  int bits = 0;
  for (WideInt rest = q; rest > 0; rest >>= 1) ++bits;
  const int k = (bits + 1) / 2;
  const WideInt t = 2 * k <= 62 ? q << (62 - 2 * k) : round_shift(q, 2 * k - 62);
  const std::uint64_t root = integer_square_root(std::uint64_t(t));
  return {round_divide(WideInt(1) << 61, std::int64_t(root)), 30 + k};
}

WideInt normalisation_denominator(WideInt squares, std::int64_t n, std::int64_t epsilon) {
  const WideInt quotient = squares / n, rest = squares % n;  // round_divide on 128 bits (squares ≥ 0)
  const WideInt q = quotient + (2 * rest >= n ? 1 : 0) + epsilon;
  return q < 1 ? WideInt(1) : q;
}

InferredShape layer_normalization_shape(const Network& network, const Operator& op, const std::string& label) {
  const Tensor& input = network.tensors[op.inputs[0]];
  const std::int64_t rank = std::int64_t(input.shape.size());
  if (op.axis < 0 || op.axis >= rank)
    return {{}, fmt::format("{} normalises from axis {}; its input '{}' of shape ({}) has axes 0..{}", label, op.axis,
                            input.name, fmt::join(input.shape, ","), rank - 1)};
  if (!std::isfinite(op.epsilon) || op.epsilon < 0)
    return {{}, fmt::format("{} has epsilon {}: it must be finite and at least 0", label, op.epsilon)};
  const std::vector<std::int64_t> normalised(input.shape.begin() + op.axis, input.shape.end());
  const char* what[] = {"", "scale", "shift"};
  for (std::size_t i = 1; i < 3; ++i) {
    const Tensor& parameter = network.tensors[op.inputs[i]];
    if (parameter.shape != normalised)
      return {{}, fmt::format("{}: its {} '{}' has shape ({}), its input '{}' of shape ({}) needs ({})", label, what[i],
                              parameter.name, fmt::join(parameter.shape, ","), input.name,
                              fmt::join(input.shape, ","), fmt::join(normalised, ","))};
  }
  return {input.shape, std::nullopt};
}

NormalisedRows normalised_rows(const std::vector<std::int64_t>& shape, std::int64_t axis) {
  NormalisedRows rows;
  for (std::size_t d = 0; d < shape.size(); ++d) (std::int64_t(d) < axis ? rows.rows : rows.length) *= shape[d];
  return rows;
}

WideInt layer_norm_sum(std::int64_t centred, ReciprocalRoot root, std::int64_t multiplier, std::int64_t offset) {
  // A product, not `offset << shift`: the offset may be negative, and shifting a negative value left is undefined
  // before C++20 (UBSan reports it).
  return WideInt(centred) * root.multiplier * multiplier + WideInt(offset) * (WideInt(1) << root.shift);
}

}  // namespace maeri::contracts
