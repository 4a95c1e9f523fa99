// A network quantized to the hardware's integers: the integer weights, biases, requantization multipliers and
// shifts, clip bounds, softmax and activation tables every operator runs with, and the real scale of every tensor.
// Produced by the quantizer (testbench/quantization.hpp) from float weights and a calibration input; read by the
// integer reference of the whole network, the post-processing unit of the co-simulation and the chained runs. The
// rules are docs/quantization.md; the integer primitives below are their one home.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "contracts/network.hpp"

namespace maeri::contracts {

// real value ≈ scale · integer, symmetric (no zero point). Integers of a data tensor lie in
// [−(2^(data_width−1) − 1), 2^(data_width−1) − 1].
struct TensorQuantization {
  double scale = 1;
};

// A real multiplier as an integer multiplier and a right shift: real ≈ multiplier · 2^−shift, 0 ≤ multiplier < 2^31,
// 0 ≤ shift ≤ 62 (docs/quantization.md, "Requantization").
struct Requantization {
  std::int64_t multiplier = 1;
  int shift = 0;
};

struct QuantizedOperator {
  // FabricLayer: weights [K][C/groups][R][S] in the data range (symmetric per output channel), the bias per output
  // channel at the accumulator's scale (input scale · weight scale of the channel; zeros when the layer has none),
  // and per output channel the requantization from the accumulator to the output tensor's scale. A matrix product
  // (contracts/matrix_product.hpp) has no weights here (its operand A comes at run time, at its tensor's scale), a
  // zero bias and one requantization s_A·s_B / s_out for every filter.
  std::vector<std::int64_t> weights;
  std::vector<std::int64_t> bias;
  std::vector<Requantization> output;  // FabricLayer: one per output channel; Requantize: one
  // Add, Concat: one multiplier per input, one shift for all: out = saturate(round_shift(Σ xᵢ·multiplierᵢ, shift));
  // Sub, Maximum, Minimum likewise with −, max, min for Σ (contracts::rescaled_pair).
  std::vector<std::int64_t> input_multipliers;
  int input_shift = 0;
  // Clip: the bounds on the input's integers (round(clip_min / scale), round(clip_max / scale), within the range).
  std::int64_t clip_min = 0, clip_max = 0;
  // Softmax: exp_table[d] ≈ exp_one · exp(−d · input scale) for d = max − x; beyond the table the term is 0.
  std::vector<std::int64_t> exp_table;
  // ChannelAffine: per channel c (axis 1) a signed multiplier and an offset at one shift, out = channel_affine(x,
  // channel_multipliers[c], channel_offsets[c], channel_shift): multiplier ≈ scale_c · s_in / s_out · 2^shift
  // (|multiplier| < 2^31), offset = round(shift_c / s_out · 2^shift).
  std::vector<std::int64_t> channel_multipliers, channel_offsets;
  int channel_shift = 0;
  // TableFunction: the output integer of every input integer x ∈ [−L, L], at activation_table[x + L]
  // (2L + 1 entries; activation_lookup).
  std::vector<std::int64_t> activation_table;
  // Mul: the requantization of the product a · b to the output's scale (s_a · s_b / s_out; multiply_requantized).
  Requantization product;
  // Add, Sub, Maximum, Minimum, Mul with a constant operand (their second input is a constant tensor): its integers
  // at its own scale (max |c| / L), row-major in `constant_shape` (its tensor's shape), broadcast like a tensor.
  std::vector<std::int64_t> constant;
  std::vector<std::int64_t> constant_shape;
  // LayerNormalization: per normalised element i the multiplier m_i ≈ γ_i / s_out · 2^G and offset b_i ≈ β_i / s_out ·
  // 2^G in channel_multipliers, channel_offsets, G in channel_shift; the epsilon term e = round(n² · ε / s_in²)
  // (contracts/layer_normalization.hpp).
  std::int64_t epsilon = 0;
};

struct QuantizedNetwork {
  Network network;
  int data_width = 16;
  int acc_width = 32;
  std::vector<TensorQuantization> tensors;     // one per Network::tensors entry (constants: 1, unused)
  std::vector<QuantizedOperator> operators;    // one per Network::operators entry
};

// ---- integer primitives (docs/quantization.md): the one definition of each rounding and saturation rule ----

// 128-bit intermediates (GCC and Clang), so that products of AW-bit sums and 31-bit multipliers never wrap.
__extension__ typedef __int128 WideInt;
__extension__ typedef unsigned __int128 WideUnsigned;

// Largest integer of a data tensor: 2^(data_width−1) − 1 (the range is symmetric).
constexpr std::int64_t data_limit(int data_width) { return (std::int64_t{1} << (data_width - 1)) - 1; }

// Clamps to [−data_limit, data_limit].
constexpr std::int64_t saturate(WideInt value, int data_width) {
  const std::int64_t limit = data_limit(data_width);
  return value > limit ? limit : value < -limit ? -limit : std::int64_t(value);
}

// value · 2^−shift rounded to nearest, ties away from zero (shift 0: value).
constexpr WideInt round_shift(WideInt value, int shift) {
  if (shift == 0) return value;
  const WideInt half = WideInt(1) << (shift - 1);
  return value >= 0 ? (value + half) >> shift : -((-value + half) >> shift);
}

// numerator / denominator rounded to nearest, ties away from zero (denominator > 0).
constexpr std::int64_t round_divide(WideInt numerator, std::int64_t denominator) {
  return numerator >= 0 ? std::int64_t((numerator + denominator / 2) / denominator)
                        : -std::int64_t((-numerator + denominator / 2) / denominator);
}

// Two's-complement wrap to `width` bits, sign-extended (what an acc_width register holds).
constexpr std::int64_t wrap_signed(WideInt value, int width) {
  const WideUnsigned mask = (width >= 64) ? ~(WideUnsigned)0 >> 64 : ((WideUnsigned)1 << width) - 1;
  WideUnsigned bits = (WideUnsigned)value & mask;
  if (width < 64 && (bits >> (width - 1)) & 1) bits |= ~mask;
  return std::int64_t(std::uint64_t(bits));
}

// The largest sum an acc_width-bit register holds: 2^(acc_width − 1) − 1. A fabric sum (bias included) of larger
// magnitude wraps (docs/quantization.md, "Accumulator headroom").
constexpr std::int64_t accumulator_limit(int acc_width) {
  return acc_width >= 64 ? INT64_MAX : (std::int64_t{1} << (acc_width - 1)) - 1;
}

// The fabric layer's epilogue for one output: saturate(round_shift(wrap(acc + bias) · multiplier, shift)).
constexpr std::int64_t requantize_accumulator(std::int64_t accumulator, std::int64_t bias, Requantization r,
                                              int acc_width, int data_width) {
  const std::int64_t sum = wrap_signed(WideInt(accumulator) + bias, acc_width);
  return saturate(round_shift(WideInt(sum) * r.multiplier, r.shift), data_width);
}

// The channel affine of one element: saturate(round_shift(x · multiplier + offset, shift)).
constexpr std::int64_t channel_affine(std::int64_t x, std::int64_t multiplier, std::int64_t offset, int shift,
                                      int data_width) {
  return saturate(round_shift(WideInt(x) * multiplier + offset, shift), data_width);
}

// TableFunction: the output integer of `x` (in [−L, L]) from the operator's activation_table.
inline std::int64_t activation_lookup(const std::vector<std::int64_t>& table, std::int64_t x, int data_width) {
  return table[std::size_t(x + data_limit(data_width))];
}

// Mul: saturate(round_shift(a · b · multiplier, shift)); a · b · multiplier < 2^(2·DW + 31) never wraps in 128 bits.
constexpr std::int64_t multiply_requantized(std::int64_t a, std::int64_t b, Requantization r, int data_width) {
  return saturate(round_shift(WideInt(a) * b * r.multiplier, r.shift), data_width);
}

// The nearest Requantization of a positive real multiplier: multiplier in [2^30, 2^31) where the shift range allows.
Requantization requantization_of(double real_multiplier);

}  // namespace maeri::contracts
