// SDM-level candidates, distinct orders and the capacity test of the walk (see sdm_space.hpp).
#include "mapper/mapspace/sdm_space.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "util/integer_math.hpp"
#include "contracts/sdm_rules.hpp"

namespace maeri::mapper {

std::vector<std::int64_t> sdm_block_candidates(std::int64_t extent, std::int64_t fabric, bool output_dim) {
  const std::int64_t tiles = util::ceil_div(extent, fabric);
  std::vector<std::int64_t> blocks;
  for (std::int64_t m = 1; m <= tiles; ++m) {
    if (tiles % m) continue;
    const std::int64_t block = std::min(extent, fabric * m);
    const std::int64_t last = extent % block;
    if (output_dim && last != 0 && last < fabric) continue;
    blocks.push_back(block);
  }
  return blocks;
}

SdmCandidates sdm_candidates(const contracts::Layer& layer, const contracts::Mapping& tile) {
  const auto extents = contracts::layer_extents(layer);
  SdmCandidates candidates;
  for (int d = 0; d < contracts::kNumSdmDims; ++d) {
    const int dim = contracts::sdm_tile_dim(d);
    candidates.blocks[size_t(d)] = sdm_block_candidates(extents[size_t(dim)], tile[dim], d >= contracts::kSdmN);
  }
  return candidates;
}

std::uint64_t sdm_tile_count(const contracts::Layer& layer, const contracts::Mapping& tile) {
  const SdmCandidates candidates = sdm_candidates(layer, tile);
  std::uint64_t count = 1;
  for (const auto& blocks : candidates.blocks) count *= blocks.size();
  return count;
}

bool sdm_fits(const contracts::Layer& layer, const contracts::Hardware& hardware, const contracts::Mapping& tile) {
  return contracts::sdm_working_set(layer, hardware, tile).total() <= hardware.sdm_bytes;
}

}  // namespace maeri::mapper
