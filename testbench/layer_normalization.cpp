// Layer normalization's references and quantization (see layer_normalization.hpp).
#include "testbench/layer_normalization.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "contracts/layer_normalization.hpp"

namespace maeri::testbench {

using contracts::WideInt;

std::vector<std::int64_t> integer_layer_normalization(const contracts::Operator& op,
                                                      const contracts::QuantizedOperator& q,
                                                      const std::vector<std::int64_t>& shape,
                                                      const std::vector<std::int64_t>& x, int data_width) {
  const contracts::NormalisedRows rows = contracts::normalised_rows(shape, op.axis);
  const std::int64_t n = rows.length;
  if (std::int64_t(q.channel_multipliers.size()) != n || std::int64_t(q.channel_offsets.size()) != n)
    throw std::invalid_argument(fmt::format("operator '{}' (layer normalization): {} multipliers and {} offsets for "
                                            "rows of {}",
                                            op.name, q.channel_multipliers.size(), q.channel_offsets.size(), n));
  std::vector<std::int64_t> out(x.size());
  std::vector<std::int64_t> centred(static_cast<std::size_t>(n));
  for (std::int64_t row = 0; row < rows.rows; ++row) {
    const std::int64_t* values = x.data() + row * n;
    std::int64_t sum = 0;
    for (std::int64_t i = 0; i < n; ++i) sum += values[i];
    WideInt squares = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      centred[std::size_t(i)] = n * values[i] - sum;
      squares += WideInt(centred[std::size_t(i)]) * centred[std::size_t(i)];
    }
    const contracts::ReciprocalRoot root =
        contracts::reciprocal_root(contracts::normalisation_denominator(squares, n, q.epsilon));
    for (std::int64_t i = 0; i < n; ++i)
      out[std::size_t(row * n + i)] =
          contracts::layer_norm_output(centred[std::size_t(i)], root, q.channel_multipliers[std::size_t(i)],
                                       q.channel_offsets[std::size_t(i)], q.channel_shift, data_width);
  }
  return out;
}

std::vector<double> real_layer_normalization(const contracts::Operator& op, const std::vector<std::int64_t>& shape,
                                             const std::vector<double>& x, const std::vector<double>& scale,
                                             const std::vector<double>& shift) {
  const contracts::NormalisedRows rows = contracts::normalised_rows(shape, op.axis);
  const std::int64_t n = rows.length;
  if (std::int64_t(scale.size()) != n || std::int64_t(shift.size()) != n)
    throw std::invalid_argument(fmt::format("operator '{}' (layer normalization): {} scales and {} shifts for rows "
                                            "of {}",
                                            op.name, scale.size(), shift.size(), n));
  std::vector<double> out(x.size());
  for (std::int64_t row = 0; row < rows.rows; ++row) {
    const double* values = x.data() + row * n;
    double mean = 0, variance = 0;
    for (std::int64_t i = 0; i < n; ++i) mean += values[i];
    mean /= double(n);
    for (std::int64_t i = 0; i < n; ++i) variance += (values[i] - mean) * (values[i] - mean);
    variance /= double(n);
    const double inverse = 1 / std::sqrt(variance + op.epsilon);
    for (std::int64_t i = 0; i < n; ++i)
      out[std::size_t(row * n + i)] =
          (values[i] - mean) * inverse * scale[std::size_t(i)] + shift[std::size_t(i)];
  }
  return out;
}

void quantize_layer_normalization(const contracts::Operator& op, const RealLayerWeights& real, std::int64_t length,
                                  double input_scale, double output_scale, contracts::QuantizedOperator& q) {
  const std::vector<double>& scale = real.weights;
  const std::vector<double>& shift = real.bias;
  const double below_2_31 = 2147483647.5, offset_limit = std::ldexp(1.0, contracts::kLayerNormOffsetBits);
  const auto fits = [&](int shift_bits) {
    for (std::size_t i = 0; i < scale.size(); ++i)
      if (!(std::abs(std::ldexp(scale[i] / output_scale, shift_bits)) < below_2_31) ||
          !(std::abs(std::ldexp(shift[i] / output_scale, shift_bits)) <= offset_limit))
        return false;
    return true;
  };
  q.channel_shift = 0;
  for (int shift_bits = contracts::kLayerNormMaxShift; shift_bits > 0; --shift_bits)
    if (fits(shift_bits)) {
      q.channel_shift = shift_bits;
      break;
    }
  const auto rounded = [](double value, double limit) {
    return std::int64_t(std::llround(std::clamp(value, -limit, limit)));
  };
  q.channel_multipliers.clear();
  q.channel_offsets.clear();
  for (std::size_t i = 0; i < scale.size(); ++i) {
    q.channel_multipliers.push_back(rounded(std::ldexp(scale[i] / output_scale, q.channel_shift), 2147483647.0));
    q.channel_offsets.push_back(rounded(std::ldexp(shift[i] / output_scale, q.channel_shift), offset_limit));
  }
  const double epsilon = double(length) * double(length) * op.epsilon / (input_scale * input_scale);
  q.epsilon = rounded(epsilon, std::ldexp(1.0, 62));
}

}  // namespace maeri::testbench
