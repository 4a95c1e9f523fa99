// Functional (golden) model: executes a layer's control program switch by switch and step by step — DN
// deliveries with multicast, multiplier switches with stationary weights and neighbour forwarding, the ART
// through the switch-level reduction reference, collection with partial-sum accumulation — in the hardware's
// integer widths with two's-complement wrap-around, and counts the activity the RTL counters count.
#pragma once

#include <cstdint>
#include <vector>

#include "codegen/layer_program.hpp"

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

struct FunctionalActivity {
  std::int64_t configurations = 0;  // fabric (re)configurations
  std::int64_t weight_phases = 0;
  std::int64_t steps = 0;
  std::int64_t multiplications = 0;  // active multiplier switches × fires (idle VNs of edge steps included)
  std::int64_t mn_forwards = 0;
  std::int64_t rn_additions = 0;
  std::int64_t rn_traversals = 0;
  std::int64_t dn_elements = 0;      // elements sent into the DN root (inputs + weights)
  std::int64_t dn_traversals = 0;
  std::int64_t fabric_results = 0;   // results leaving the collector (every configured VN, every step)
  std::int64_t collected_results = 0;  // results that belong to an output (used VNs)
  std::int64_t accumulation_additions = 0;
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
