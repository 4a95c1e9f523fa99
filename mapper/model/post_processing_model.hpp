// The analytical model of the post-processing unit beside the fabric: the cycles, activity counts and energy of one
// operator of a network from its kind, attributes, tensor shapes and the hardware's `post_processing` section, in
// closed form (docs/model.md, "Post-processing unit"). The co-simulated unit (sim/post_processing_unit.hpp) counts
// the same quantities by running the operator; the two agree exactly (tests/rtl/test_post_processing_unit.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "contracts/hardware.hpp"
#include "contracts/network.hpp"
#include "contracts/post_processing_counts.hpp"

namespace maeri::mapper {

struct PostProcessingReport {
  contracts::PostProcessingCounts counts;
  double energy_pj = 0;
};

// The counts of `op` (its kind and attributes: pool window, concat axis) on inputs of `input_shapes` giving
// `output_shape`. A FabricLayer stands for its epilogue (bias + requantization of the accumulators): its one input
// shape is the layer's output shape. Throws std::invalid_argument when the shapes do not fit the kind (the number of
// inputs, a pool's or softmax's rank, a window with no element inside the tensor) or the unit has no lanes.
contracts::PostProcessingCounts post_processing_counts(const contracts::Operator& op,
                                                       const std::vector<std::vector<std::int64_t>>& input_shapes,
                                                       const std::vector<std::int64_t>& output_shape,
                                                       const contracts::PostProcessingSpec& unit);

// The counts and their energy (contracts::post_processing_energy_pj) on `hardware`.
PostProcessingReport evaluate_post_processing(const contracts::Operator& op,
                                              const std::vector<std::vector<std::int64_t>>& input_shapes,
                                              const std::vector<std::int64_t>& output_shape,
                                              const contracts::Hardware& hardware);

// Operator `op` of `network`, with the shapes of its tensors (a FabricLayer's epilogue: its output tensor's).
PostProcessingReport evaluate_post_processing(const contracts::Network& network, std::size_t op,
                                              const contracts::Hardware& hardware);

}  // namespace maeri::mapper
