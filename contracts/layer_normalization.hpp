// The integer primitives of LayerNormalization (docs/quantization.md, "Layer normalization"): each row's centred
// values, its reciprocal square root by an exact integer square root, and the affine of one element. Their one
// home: the integer reference (testbench/network_reference.cpp) and the post-processing unit (sim/) call them.
//
// A row of n integers x_i (scale s_in): S = Σ x_i, d_i = n·x_i − S (n times x_i − mean, exact), V = Σ d_i²,
// Q = max(1, round_divide(V, n) + e) with e = round(n² · ε / s_in²) (so Q = n²·(variance + ε) in units of s_in²,
// and d_i / √Q is the normalised value); r ≈ 2^R / √Q (ReciprocalRoot); out_i = saturate(round_shift(d_i · r · m_i
// + b_i · 2^R, R + G)) with m_i ≈ γ_i / s_out · 2^G and b_i ≈ β_i / s_out · 2^G.
#pragma once

#include <cstdint>
#include <string>

#include "contracts/network.hpp"
#include "contracts/quantized_network.hpp"

namespace maeri::contracts {

// ⌊√v⌋ of a 64-bit unsigned value by the digit-by-digit method: kSquareRootSteps steps, each one comparison and
// one subtraction (what the unit counts).
inline constexpr int kSquareRootSteps = 32;
std::uint64_t integer_square_root(std::uint64_t value);

// r ≈ 2^shift / √Q for Q ≥ 1, with r in [2^30, 2^31]: k = ⌈bitlen(Q) / 2⌉, t = Q normalised to [2^60, 2^62] (Q ·
// 2^(62 − 2k), or round_shift(Q, 2k − 62) when 2k > 62), r = round_divide(2^61, ⌊√t⌋), shift = 30 + k.
struct ReciprocalRoot {
  std::int64_t multiplier = 0;
  int shift = 0;
};
ReciprocalRoot reciprocal_root(WideInt q);

// Q of a row: max(1, round_divide(V, n) + e), V = Σ d_i² (`squares`), n the row's length, e the epsilon term.
WideInt normalisation_denominator(WideInt squares, std::int64_t n, std::int64_t epsilon);

// One output: saturate(round_shift(d · r · m + b · 2^R, R + G)).
WideInt layer_norm_sum(std::int64_t centred, ReciprocalRoot root, std::int64_t multiplier, std::int64_t offset);
inline std::int64_t layer_norm_output(std::int64_t centred, ReciprocalRoot root, std::int64_t multiplier,
                                      std::int64_t offset, int shift, int data_width) {
  return saturate(round_shift(layer_norm_sum(centred, root, multiplier, offset), root.shift + shift), data_width);
}

// The output shape of a layer normalization (its input's), or why it does not fit: an axis outside the rank, a
// scale or shift not of the input's shape from the axis on, an ε that is negative or not finite.
InferredShape layer_normalization_shape(const Network& network, const Operator& op, const std::string& label);

// The row of a layer normalization whose input has `shape`: its rows are the elements from `axis` on.
struct NormalisedRows {
  std::int64_t rows = 1, length = 1;
};
NormalisedRows normalised_rows(const std::vector<std::int64_t>& shape, std::int64_t axis);

// The quantizer's limits that keep every product within 128 bits: |m_i| < 2^31, |b_i| ≤ 2^kLayerNormOffsetBits,
// G ≤ kLayerNormMaxShift (R ≤ 30 + 41 for rows of at most 2^24 values of 16 bits).
inline constexpr int kLayerNormOffsetBits = 48;
inline constexpr int kLayerNormMaxShift = 40;

}  // namespace maeri::contracts
