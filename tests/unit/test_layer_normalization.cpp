// LayerNormalization's integer primitives (contracts/layer_normalization.hpp) against values worked out by hand, and
// the integer reference of a layer normalization against the float one on a real row.
#include <catch2/catch.hpp>

#include <cmath>

#include "contracts/layer_normalization.hpp"
#include "testbench/layer_normalization.hpp"

using namespace maeri::contracts;

TEST_CASE("integer square root: the floor of √v, exact at the 64-bit extremes", "[contracts][layer_norm]") {
  CHECK(integer_square_root(0) == 0);
  CHECK(integer_square_root(15) == 3);
  CHECK(integer_square_root(16) == 4);
  CHECK(integer_square_root(999999999999ULL) == 999999);  // 10^12 − 1: just below 10^6 squared
  CHECK(integer_square_root(~std::uint64_t{0}) == 4294967295ULL);  // (2^32 − 1)² ≤ 2^64 − 1 < 2^64
}

TEST_CASE("reciprocal root: r / 2^R is 1 / √Q to 31 bits", "[contracts][layer_norm]") {
  // Q = 4: k = 2 (bitlen 3), t = 4 · 2^58 = 2^60, √t = 2^30, r = 2^61 / 2^30 = 2^31, R = 32: 2^31 / 2^32 = 1/2.
  const ReciprocalRoot four = reciprocal_root(4);
  CHECK(four.multiplier == std::int64_t{1} << 31);
  CHECK(four.shift == 32);
  // Q = 56 (the unit test's row): 1 / √56 = 0.1336306…
  const ReciprocalRoot q56 = reciprocal_root(56);
  CHECK(std::abs(double(q56.multiplier) / std::ldexp(1.0, q56.shift) - 1 / std::sqrt(56.0)) < 1e-9);
  // Wider than 62 bits: Q = 2^80, 1 / √Q = 2^−40.
  const ReciprocalRoot wide = reciprocal_root(WideInt(1) << 80);
  CHECK(double(wide.multiplier) / std::ldexp(1.0, wide.shift) == std::ldexp(1.0, -40));
}

TEST_CASE("layer normalization: the integer reference follows the float one on a real row", "[testbench][layer_norm]") {
  // One row of 5 at s_in = 0.011 (reals −0.5 … 1.3), γ = (1, 2, 0.5, 1, −1), β = (0, 0.1, 0, −0.2, 0), ε = 1e-5,
  // s_out = 4 / 127: every output integer is the float reference on the dequantized input, rounded (half a step;
  // the reciprocal root's 31 bits and ε's rounding move it by far less).
  Operator op;
  op.name = "ln";
  op.kind = OperatorKind::LayerNormalization;
  op.axis = 1;
  op.epsilon = 1e-5;
  const std::vector<double> reals{-0.5, 0.2, 0.7, 1.3, 0.05}, gamma{1, 2, 0.5, 1, -1}, beta{0, 0.1, 0, -0.2, 0};
  const double s_in = 0.011, s_out = 4.0 / 127;
  std::vector<std::int64_t> integers;
  std::vector<double> dequantized;
  for (double r : reals) {
    integers.push_back(std::llround(r / s_in));
    dequantized.push_back(double(integers.back()) * s_in);
  }
  QuantizedOperator q;
  maeri::testbench::quantize_layer_normalization(op, {gamma, beta}, 5, s_in, s_out, q);
  const auto out = maeri::testbench::integer_layer_normalization(op, q, {1, 5}, integers, 8);
  const auto expected = maeri::testbench::real_layer_normalization(op, {1, 5}, dequantized, gamma, beta);
  for (std::size_t i = 0; i < 5; ++i) CHECK(std::abs(double(out[i]) * s_out - expected[i]) <= 0.501 * s_out);
}
