// The post-processing unit's counts: one list (MAERI_POST_PROCESSING_COUNTS) of what the unit beside the fabric
// does for one operator of a network — elements in and out and its operations by kind — from which the analytical
// model's prediction (mapper/model/post_processing_model.hpp), the co-simulated unit's counters
// (sim/post_processing_unit.hpp) and the model-vs-unit cross-check rows (testbench/cross_check.hpp) are made.
// A separate report from ActivityCounts / CostReport, which describe one mapping of one fabric layer: the unit runs
// per operator (a fabric layer's epilogue included) and has no mapping. docs/model.md, "Post-processing unit".
#pragma once

#include <cstdint>

#include "contracts/hardware.hpp"

namespace maeri::contracts {

// X(name, label, meaning); `label` is how the cross-check table prints the count.
#define MAERI_POST_PROCESSING_COUNTS(X)                                                                         \
  X(elements_read, "PPU elements read", "elements the unit reads from the SDM (both inputs of an add)")          \
  X(elements_written, "PPU elements written", "elements the unit writes to the SDM")                            \
  X(additions, "PPU additions", "additions and subtractions: bias, window and row sums, residuals, max - x")     \
  X(multiplications, "PPU multiplications", "products with a requantization multiplier, softmax's e * L, a mul's a * b") \
  X(shifts, "PPU shifts", "rounding right shifts of products (round_shift)")                                    \
  X(comparisons, "PPU comparisons", "max steps, ReLU, and each side of a clamp (clip, saturation)")              \
  X(divisions, "PPU divisions", "rounded divisions (round_divide): average pools, softmax")                      \
  X(lookups, "PPU lookups", "reads of softmax's exponential table and of the sigmoid / tanh / hard sigmoid tables")

struct PostProcessingCounts {
  std::int64_t cycles = 0;  // from the first beat to the last result (0 when the operator moves no data)
#define MAERI_POST_PROCESSING_FIELD(name, label, meaning) std::int64_t name = 0;
  MAERI_POST_PROCESSING_COUNTS(MAERI_POST_PROCESSING_FIELD)
#undef MAERI_POST_PROCESSING_FIELD
};

// Energy in picojoules of what the unit did: its reads and writes at the SDM's energies, its operations at the
// energy table's ppu_* entries.
inline double post_processing_energy_pj(const PostProcessingCounts& counts, const EnergyTable& table) {
  const auto pj = [](std::int64_t count, double each) { return static_cast<double>(count) * each; };
  return pj(counts.elements_read, table.sdm_read) + pj(counts.elements_written, table.sdm_write) +
         pj(counts.additions, table.ppu_add) + pj(counts.multiplications, table.ppu_multiply) +
         pj(counts.shifts, table.ppu_shift) + pj(counts.comparisons, table.ppu_compare) +
         pj(counts.divisions, table.ppu_divide) + pj(counts.lookups, table.ppu_lookup);
}

}  // namespace maeri::contracts
