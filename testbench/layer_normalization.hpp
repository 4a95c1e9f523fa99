// Layer normalization in the testbench: its integer and float references (plain loops written from
// docs/quantization.md, "Layer normalization", on the primitives of contracts/layer_normalization.hpp) and its
// quantization. Internal to testbench/: network_reference.cpp and quantization.cpp dispatch to them.
#pragma once

#include <cstdint>
#include <vector>

#include "contracts/network.hpp"
#include "contracts/quantized_network.hpp"
#include "testbench/network_reference.hpp"

namespace maeri::testbench {

// Layer normalization on integers: `x` of `shape` normalised over the axes from op.axis on with the quantized
// operator's multipliers, offsets, shift and epsilon term.
std::vector<std::int64_t> integer_layer_normalization(const contracts::Operator& op,
                                                      const contracts::QuantizedOperator& q,
                                                      const std::vector<std::int64_t>& shape,
                                                      const std::vector<std::int64_t>& x, int data_width);

// Layer normalization on reals: (x − mean) / √(variance + ε) · scale + shift per row (the population variance, as
// ONNX), `scale` and `shift` one value per normalised element.
std::vector<double> real_layer_normalization(const contracts::Operator& op, const std::vector<std::int64_t>& shape,
                                             const std::vector<double>& x, const std::vector<double>& scale,
                                             const std::vector<double>& shift);

// The quantized parameters of a layer normalization with real scale γ (`real.weights`) and shift β (`real.bias`), one
// per normalised element,
// between tensors of `input_scale` and `output_scale`, rows of `length`: m_i = round(γ_i / s_out · 2^G), b_i =
// round(β_i / s_out · 2^G) at the largest G ≤ kLayerNormMaxShift where every |m_i| < 2^31 and |b_i| ≤
// 2^kLayerNormOffsetBits (clamped there at G = 0), e = round(length² · ε / s_in²) clamped to 2^62.
void quantize_layer_normalization(const contracts::Operator& op, const RealLayerWeights& real, std::int64_t length,
                                  double input_scale, double output_scale, contracts::QuantizedOperator& q);

}  // namespace maeri::testbench
