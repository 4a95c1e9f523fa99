// The post-processing model's closed form of the row-wise kinds (layer normalization, the reductions),
// internal to mapper/model/: post_processing_model.cpp dispatches to it. docs/model.md, "Post-processing unit".
#pragma once

#include <cstdint>
#include <vector>

#include "contracts/network.hpp"
#include "contracts/post_processing_counts.hpp"

namespace maeri::mapper {

// Layer normalization on an input of `shape`: R rows of n (contracts::normalised_rows), each through three stages
// of ⌈n/P⌉ beats (read + sum; centre + square + sum, then the row's denominator and reciprocal root; scale, offset,
// shift, saturate + write). Fills `c` and returns the beats.
std::int64_t layer_normalization_counts(const contracts::Operator& op, const std::vector<std::int64_t>& shape,
                                        std::int64_t lanes, contracts::PostProcessingCounts& c);

// A reduction on an input of `shape` to `output_shape`: one group of g = elements / outputs per output, through
// ⌈g/P⌉ beats of read + sum (maximum: compare) and 1 beat of divide (mean) / requantize (sum) + write. Fills `c` and
// returns the beats.
std::int64_t reduction_counts(const contracts::Operator& op, const std::vector<std::int64_t>& shape,
                              const std::vector<std::int64_t>& output_shape, std::int64_t lanes,
                              contracts::PostProcessingCounts& c);

}  // namespace maeri::mapper
