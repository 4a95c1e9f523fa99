// A layer's program and image, checked against the reader's limits and the memory budget (see planned_image.hpp).
#include "codegen/planned_image.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include "codegen/image_program.hpp"
#include "util/input_error.hpp"
#include "util/input_file.hpp"
#include "util/memory_budget.hpp"

namespace maeri::codegen {
namespace {

// Products of extents as long doubles (they cannot wrap), clamped to the int64 counts of ImageWork.
std::int64_t saturated(long double value) {
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  return value >= static_cast<long double>(kMax) ? kMax : static_cast<std::int64_t>(value);
}

long double ceil_ratio(long double a, long double b) { return std::ceil(a / b); }

// One SDM dimension (contracts::SdmDim): its blocks and the fabric tiles of `tile_size` they hold in all.
struct BlockedExtent {
  long double blocks = 1, tiles = 1, tiles_per_block = 1;
};

BlockedExtent blocked(long double extent, long double block, long double tile_size) {
  BlockedExtent b;
  b.blocks = ceil_ratio(extent, block);
  const long double last = extent - (b.blocks - 1) * block;
  b.tiles = (b.blocks - 1) * ceil_ratio(block, tile_size) + ceil_ratio(last, tile_size);
  b.tiles_per_block = ceil_ratio(std::min(extent, block), tile_size);
  return b;
}

std::string layer_field(const contracts::Layer& layer) { return "layers." + layer.name; }

void refuse_breach(const ImageWork& work, const contracts::Layer& layer, const contracts::Mapping& tile,
                   const std::string& file) {
  if (const auto breach = work_limit_breach(work))
    throw util::InputError({file, 0, 0}, layer_field(layer),
                           fmt::format("layer {} under the tile {} has no image within the limits of its reader: {}",
                                       util::shown_value(layer.name), contracts::to_compact_string(tile.tile),
                                       breach->problem));
}

}  // namespace

ImageWork layer_work(const contracts::Layer& layer) {
  const long double N = layer.N, C = layer.C, X = layer.X, Y = layer.Y, K = layer.K, R = layer.R, S = layer.S;
  const long double XO = layer.output_x(), YO = layer.output_y(), GC = layer.group_channels();
  ImageWork work;
  work.input_elements = saturated(N * C * X * Y);
  work.padded_input_elements =
      saturated(N * C * (X + 2.0L * layer.padding_x) * (Y + 2.0L * layer.padding_y));
  work.weight_elements = saturated(K * GC * R * S);
  work.output_elements = saturated(N * K * XO * YO);
  work.macs = saturated(N * K * XO * YO * GC * R * S);
  return work;
}

void require_layer_within_limits(const contracts::Layer& layer, const std::string& file) {
  if (const auto breach = work_limit_breach(layer_work(layer)))
    throw util::InputError({file, 0, 0}, layer_field(layer),
                           fmt::format("layer {} has no image within the limits of its reader: {}",
                                       util::shown_value(layer.name), breach->problem));
}

ImageWork planned_work(const contracts::Layer& layer, const contracts::Mapping& tile) {
  using namespace contracts;
  const long double N = layer.N, R = layer.R, S = layer.S;
  const long double XO = layer.output_x(), YO = layer.output_y(), GC = layer.group_channels(),
                    GK = layer.group_filters();
  ImageWork work = layer_work(layer);

  // plan_layer's nest: group tiles, the SDM blocks of K, C, N, X', Y', then the R, S, C, K tiles of each block.
  const std::array<long double, kNumSdmDims> extent = {GK, GC, N, XO, YO};
  const std::array<long double, kNumSdmDims> tile_size = {static_cast<long double>(tile[kDimK]),
                                                          static_cast<long double>(tile[kDimC]),
                                                          static_cast<long double>(tile[kDimN]),
                                                          static_cast<long double>(tile[kDimX]),
                                                          static_cast<long double>(tile[kDimY])};
  std::array<BlockedExtent, kNumSdmDims> dims;
  for (int d = 0; d < kNumSdmDims; ++d) {
    const long double block = tile.sdm.blocked ? static_cast<long double>(tile.sdm.block[size_t(d)]) : extent[size_t(d)];
    dims[size_t(d)] = blocked(extent[size_t(d)], block, tile_size[size_t(d)]);
  }
  const long double group_tiles = ceil_ratio(static_cast<long double>(layer.groups),
                                             static_cast<long double>(tile.groups_per_step()));
  const long double phases = group_tiles * ceil_ratio(R, static_cast<long double>(tile[kDimR])) *
                             ceil_ratio(S, static_cast<long double>(tile[kDimS])) * dims[kSdmC].tiles *
                             dims[kSdmK].tiles * dims[kSdmN].blocks * dims[kSdmX].blocks * dims[kSdmY].blocks;
  const long double steps_per_stream =
      dims[kSdmN].tiles_per_block * dims[kSdmX].tiles_per_block * dims[kSdmY].tiles_per_block;
  work.weight_phases = saturated(phases);
  work.steps_per_stream = saturated(steps_per_stream);
  work.steps = saturated(phases * steps_per_stream);
  work.expanded_program_bytes = saturated(phases * static_cast<long double>(sizeof(WeightPhase)) +
                                          phases * steps_per_stream * static_cast<long double>(sizeof(StepOrigin)));
  return work;
}

void require_plannable(const contracts::Layer& layer, const contracts::Mapping& tile, const std::string& file) {
  const ImageWork work = planned_work(layer, tile);
  refuse_breach(work, layer, tile, file);
  const long double tensor_elements = static_cast<long double>(work.input_elements) + work.padded_input_elements +
                                      work.weight_elements + work.output_elements;
  util::require_memory(static_cast<long double>(work.expanded_program_bytes) +
                           kPlannedBytesPerTensorElement * tensor_elements,
                       file, layer_field(layer),
                       fmt::format("layer {} under the tile {} ({} weight phases, {} steps, {:.0f} tensor elements)",
                                   util::shown_value(layer.name), contracts::to_compact_string(tile.tile),
                                   work.weight_phases, work.steps, double(tensor_elements)));
}

PlannedImage plan_image(const contracts::Layer& layer, const contracts::Hardware& hardware,
                        const contracts::Mapping& tile, const std::optional<contracts::FusedMember>& fused,
                        const std::string& file) {
  require_plannable(layer, tile, file);
  PlannedImage planned{plan_layer(layer, hardware, tile), {}};
  planned.image = build_image(planned.program, hardware, fused);
  refuse_breach(image_work(planned.image), layer, tile, file);
  return planned;
}

}  // namespace maeri::codegen
