// Functional (golden) model: executes a layer's control program switch by switch and step by step — DN
// deliveries with multicast, multiplier switches with stationary weights and neighbour forwarding, the ART
// through the switch-level reduction reference, collection with partial-sum accumulation — in the hardware's
// integer widths with two's-complement wrap-around, and counts the activity the RTL counters count.
#pragma once

#include <cstdint>
#include <vector>

#include "codegen/layer_program.hpp"
#include "contracts/activity_counts.hpp"

namespace maeri::codegen {

// Tensors in row-major order: input [N][C][X][Y], weights [K][C/groups][R][S], output [N][K][X'][Y'] (a GEMM's
// A operand is the input [batch][K][M][1], its B operand the weights [N][K][1][1], its product C the output
// [batch][N][M][1]: each transposed, docs/workload-spec.md).
struct LayerTensors {
  std::vector<std::int64_t> input;
  std::vector<std::int64_t> weights;
};

// Uniform random tensors in the DATA_W signed range, reproducible from the seed (stimulus for tests and runs).
LayerTensors random_tensors(const contracts::Layer& layer, int data_width, std::uint64_t seed);

// What the functional model counts: the counts of contracts/activity_counts.hpp that the analytical model and (the
// fabric counts) the RTL count too, under the same names, and three of its own.
struct FunctionalActivity {
#define MAERI_FUNCTIONAL_COUNT(name, label, meaning) std::int64_t name = 0;
  MAERI_FABRIC_COUNTS(MAERI_FUNCTIONAL_COUNT)
  MAERI_PROGRAM_COUNTS(MAERI_FUNCTIONAL_COUNT)
#undef MAERI_FUNCTIONAL_COUNT
  std::int64_t dn_elements = 0;      // elements sent into the DN root (inputs + weights)
  std::int64_t stream_cycles = 0;    // Σ steps max(DN beats, output lane cycles, 1)
  std::int64_t weight_cycles = 0;    // Σ phases DN beats of the weights
};

struct FunctionalResult {
  std::vector<std::int64_t> output;
  FunctionalActivity activity;
};

FunctionalResult execute_layer(const LayerProgram& program, const contracts::Hardware& hardware,
                               const LayerTensors& tensors);

// Plain convolution (grouped, dilated, per-axis stride and padding) in the same arithmetic: products and sums wrap
// at acc_width bits.
std::vector<std::int64_t> reference_convolution(const contracts::Layer& layer, const LayerTensors& tensors,
                                                int acc_width);

}  // namespace maeri::codegen
