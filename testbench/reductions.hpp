// ReduceMean, ReduceSum and ReduceMax in the testbench: their integer and float references over the groups
// contracts::reduction_groups gives (docs/quantization.md). Internal to testbench/: network_reference.cpp dispatches
// to them.
#pragma once

#include <cstdint>
#include <vector>

#include "contracts/network.hpp"
#include "contracts/quantized_network.hpp"

namespace maeri::testbench {

// On integers: mean round_divide(Σ, size); sum saturate(round_shift(Σ · multiplier, shift)) with the operator's one
// requantization (q.output[0], s_in / s_out); max the largest.
std::vector<std::int64_t> integer_reduction(const contracts::Operator& op, const contracts::QuantizedOperator& q,
                                            const std::vector<std::int64_t>& shape,
                                            const std::vector<std::int64_t>& x, int data_width);

// On reals: the mean, the sum, the maximum of each group.
std::vector<double> real_reduction(const contracts::Operator& op, const std::vector<std::int64_t>& shape,
                                   const std::vector<double>& x);

}  // namespace maeri::testbench
