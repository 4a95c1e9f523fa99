// How a mapping uses the SDM (prefetch buffer). Single-level mappings: whether the layer's data stays resident,
// and how the capacity is split between the stream buffer (prefetched inputs, weights, partial sums read back)
// and the output buffer (results waiting for DRAM, or the whole partial-sum array). Mappings with an SDM level:
// what each tensor's blocks cost in DRAM traffic under the SDM loop order. One rule shared by the analytical model
// (DRAM bytes) and the co-simulation's SDM model; docs/model.md, "Memory" and "SDM level".
#pragma once

#include <array>
#include <cstdint>

#include "contracts/hardware.hpp"
#include "util/integer_math.hpp"
#include "contracts/layer.hpp"
#include "contracts/sdm_rules.hpp"
#include "contracts/tile.hpp"

namespace maeri::contracts {

struct SdmBudget {
  bool blocked = false;              // the mapping has an SDM level: block traffic (sdm_block_traffic)
  bool resident = false;             // inputs and weights are fetched from DRAM exactly once
  bool psums_in_sdm = false;         // resident with several reduction folds: partial sums never leave the SDM
  bool writes_in_last_fold = false;  // and the results go to DRAM only in the program's last fold (folds outer;
                                     // filters outer: in each filter tile's last fold, spread over the run)
  std::int64_t output_buffer_bytes = 0;
  std::int64_t stream_buffer_bytes = 0;  // capacity minus the output buffer (never negative)
  std::int64_t resident_bytes = 0;       // what residency needs: output buffer + one channel slice (filters outer:
                                         // the group's channels) + one phase's weights
  std::int64_t touched_inputs = 0;       // padded input elements some window reads (each fetched once if resident)
};


SdmBudget sdm_budget(const Layer& layer, const Hardware& hardware, const Mapping& tile);

// Padded input elements some output's window reads: N·C·span(X', R)·span(Y', S).
std::int64_t touched_inputs(const Layer& layer);

// The algorithmic minimum of DRAM traffic: every touched input and every weight read once, every output written
// once (docs/model.md, "SDM level").
std::int64_t compulsory_dram_bytes(const Layer& layer, const Hardware& hardware);

// Blocks per SDM dimension of an SDM tile, for the layer's extents (layer_extents).
inline std::array<std::int64_t, kNumSdmDims> sdm_trips(
    const std::array<std::int64_t, kNumTileDims>& extents,
    const std::array<std::int64_t, kNumSdmDims>& block) {
  std::array<std::int64_t, kNumSdmDims> trips{};
  for (int d = 0; d < kNumSdmDims; ++d)
    trips[size_t(d)] = util::ceil_div(extents[size_t(sdm_tile_dim(d))], block[size_t(d)]);
  return trips;
}

// DRAM traffic of a mapping with an SDM level (docs/model.md, "SDM level"). A tensor's block stays in the SDM
// while only loops it does not depend on advance, so it is fetched again once per iteration of every such loop
// outside the innermost loop it depends on (loops of one block are ignored).
struct SdmBlockTraffic {
  std::array<std::int64_t, kNumSdmDims> trips{};  // blocks per SDM dimension
  std::int64_t input_fills = 0;   // input elements read from DRAM (halos of neighbouring blocks included)
  std::int64_t weight_fills = 0;  // weight elements read from DRAM
  std::int64_t output_visits = 0; // times each output's block is brought in: written back that often, read
                                  // back (partial sums) one time less
  std::int64_t output_blocks = 0; // N·X'·Y' blocks: each repeats every weight phase of its K, C blocks
};
SdmBlockTraffic sdm_block_traffic(const Layer& layer, const Mapping& tile);

}  // namespace maeri::contracts
