// Shards of a layer program: independent pieces that co-simulate in separate processes (or machines) and merge
// into exactly the outputs and activity counts of one run (docs/scale-out.md).
//
// A shard is a contiguous range of filter tiles [k_begin, k_end) of the layer's filters (a grouped layer's tiles of
// every group, group after group; with T_G > 1 whole group tiles, whose phases write T_G groups' filters) with
// every weight phase of those tiles, in the
// program's order: all reduction folds of a filter tile stay in one shard (a fold after the first accumulates onto
// the partial sums of the earlier folds), and every step of a phase stays with its phase (the phase's weights are
// loaded once, and a step may take operands over the MN forwarding links from the step before it). Shards therefore
// write disjoint output channels, and each phase, step, weight load and result is played by exactly one shard:
// every per-step and per-phase activity count sums to the single run's. What is per run — configuration writes at
// a shard's start, pipeline fill and drain, memory stalls, what the SDM keeps resident — is not additive.
#pragma once

#include <cstdint>
#include <vector>

#include "codegen/layer_program.hpp"

namespace maeri::codegen {

struct ProgramShard {
  int index = 0, count = 1;      // shard `index` of `count`
  int k_begin = 0, k_end = 0;    // output channels (filters) [k_begin, k_end)
};

// At most `max_shards` shards (at least one), of as equal a number of filter tiles as possible, covering every
// filter of the layer. A layer with F filter tiles has at most F shards. Throws std::invalid_argument when
// max_shards < 1.
std::vector<ProgramShard> cut_shards(const LayerProgram& program, int max_shards);

// The filter that places a phase in a shard: where its filter tile starts (first_filter), or with T_G > 1 where
// its group tile's filters start.
int shard_filter(const contracts::Layer& layer, const contracts::Mapping& mapping, const WeightPhase& phase);

// The phases of `program` whose filter tile lies in the shard, in program order (configurations unchanged).
LayerProgram shard_program(const LayerProgram& program, const ProgramShard& shard);

// The outputs [N][K][X'][Y'] of channels [k_begin, k_end), in index order: the shard's part of `output`.
std::vector<std::int64_t> shard_outputs(const contracts::Layer& layer, const ProgramShard& shard,
                                        const std::vector<std::int64_t>& output);
// Writes a shard's part (as shard_outputs returns it) into the layer's whole output tensor.
// Throws std::invalid_argument when the sizes do not match.
void merge_shard_outputs(const contracts::Layer& layer, const ProgramShard& shard, const std::vector<std::int64_t>& part,
                         std::vector<std::int64_t>& output);

}  // namespace maeri::codegen
