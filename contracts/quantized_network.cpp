// Requantization multipliers from real multipliers (docs/quantization.md, "Requantization").
#include "contracts/quantized_network.hpp"

#include <cmath>
#include <stdexcept>

namespace maeri::contracts {

Requantization requantization_of(double real_multiplier) {
  if (!(real_multiplier > 0) || !std::isfinite(real_multiplier))
    throw std::invalid_argument("requantization_of: the multiplier must be positive and finite");
  // frexp: real = fraction · 2^exponent with fraction in [0.5, 1); multiplier = fraction · 2^31 in [2^30, 2^31).
  int exponent = 0;
  const double fraction = std::frexp(real_multiplier, &exponent);
  int shift = 31 - exponent;
  double scaled = std::ldexp(fraction, 31);
  if (shift < 0) return {(std::int64_t{1} << 31) - 1, 0};  // saturates: the largest multiplier at shift 0
  if (shift > 62) {
    scaled = std::ldexp(scaled, 62 - shift);
    shift = 62;
  }
  auto multiplier = std::int64_t(std::llround(scaled));
  if (multiplier == (std::int64_t{1} << 31)) {  // rounding carried into bit 31
    if (shift == 0) return {multiplier - 1, 0};
    multiplier >>= 1;
    --shift;
  }
  return {multiplier, shift};
}

}  // namespace maeri::contracts
