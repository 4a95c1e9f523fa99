// Cutting a layer program into shards by filter tile, and the shards' parts of the output (see program_shards.hpp).
#include "codegen/program_shards.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>

namespace maeri::codegen {
namespace {

// Calls visit(index) for every output index of channels [k_begin, k_end), in increasing order.
template <class Visit>
void for_each_shard_output(const contracts::Layer& layer, const ProgramShard& shard, Visit visit) {
  const std::int64_t plane = std::int64_t(layer.output_x()) * layer.output_y();
  for (std::int64_t n = 0; n < layer.N; ++n) {
    const std::int64_t first = (n * layer.K + shard.k_begin) * plane;
    const std::int64_t last = (n * layer.K + shard.k_end) * plane;
    for (std::int64_t index = first; index < last; ++index) visit(std::size_t(index));
  }
}

}  // namespace

int shard_filter(const contracts::Layer& layer, const contracts::Mapping& mapping, const WeightPhase& phase) {
  return mapping.groups_per_step() > 1 ? phase.group * int(layer.group_filters()) : first_filter(layer, phase);
}

std::vector<ProgramShard> cut_shards(const LayerProgram& program, int max_shards) {
  if (max_shards < 1) throw std::invalid_argument("cut_shards: at least one shard, asked for " +
                                                  std::to_string(max_shards));
  std::set<int> tile_starts;
  for (const WeightPhase& phase : program.phases) tile_starts.insert(shard_filter(program.layer, program.mapping, phase));
  const std::vector<int> starts(tile_starts.begin(), tile_starts.end());
  const int tiles = int(starts.size());
  const int count = std::max(1, std::min(max_shards, tiles));
  std::vector<ProgramShard> shards;
  for (int s = 0; s < count; ++s) {
    // Tiles [s·tiles/count, (s+1)·tiles/count): sizes differ by at most one.
    const int first = int(std::int64_t(s) * tiles / count), last = int(std::int64_t(s + 1) * tiles / count);
    ProgramShard shard;
    shard.index = s;
    shard.count = count;
    shard.k_begin = s == 0 || tiles == 0 ? 0 : starts[size_t(first)];
    shard.k_end = last >= tiles ? int(program.layer.K) : starts[size_t(last)];
    shards.push_back(shard);
  }
  return shards;
}

LayerProgram shard_program(const LayerProgram& program, const ProgramShard& shard) {
  LayerProgram part;
  part.layer = program.layer;
  part.mapping = program.mapping;
  part.num_ms = program.num_ms;
  part.forwarding = program.forwarding;
  part.configurations = program.configurations;
  for (const WeightPhase& phase : program.phases) {
    const int filter = shard_filter(program.layer, program.mapping, phase);
    if (filter >= shard.k_begin && filter < shard.k_end) part.phases.push_back(phase);
  }
  return part;
}

std::vector<std::int64_t> shard_outputs(const contracts::Layer& layer, const ProgramShard& shard,
                                        const std::vector<std::int64_t>& output) {
  std::vector<std::int64_t> part;
  part.reserve(size_t(layer.N) * size_t(shard.k_end - shard.k_begin) * size_t(layer.output_x()) *
               size_t(layer.output_y()));
  for_each_shard_output(layer, shard, [&](std::size_t index) { part.push_back(output.at(index)); });
  return part;
}

void merge_shard_outputs(const contracts::Layer& layer, const ProgramShard& shard, const std::vector<std::int64_t>& part,
                         std::vector<std::int64_t>& output) {
  const std::size_t expected = size_t(layer.N) * size_t(shard.k_end - shard.k_begin) * size_t(layer.output_x()) *
                               size_t(layer.output_y());
  if (part.size() != expected || output.size() != size_t(layer.output_elements()))
    throw std::invalid_argument("merge_shard_outputs: shard " + std::to_string(shard.index) + " of layer " +
                                layer.name + " has " + std::to_string(part.size()) + " outputs, expected " +
                                std::to_string(expected));
  std::size_t next = 0;
  for_each_shard_output(layer, shard, [&](std::size_t index) { output[index] = part[next++]; });
}

}  // namespace maeri::codegen
