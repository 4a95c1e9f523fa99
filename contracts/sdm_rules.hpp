// The rules an SDM level must satisfy (docs/mapping.md, "SDM level"): each block between the fabric tile and the
// layer, a multiple of the fabric tile, no N/X'/Y' block smaller than one fabric tile, and the capacity rule
// (one block's working set, double-buffered reads, fits the SDM). Also the byte sizes and the window span that
// the capacity rule, the analytical model and the co-simulation share.
#pragma once

#include <cstdint>
#include <numeric>
#include <optional>
#include <string>

#include "contracts/fused_role.hpp"
#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"
#include "contracts/sdm_level.hpp"
#include "contracts/tile.hpp"

namespace maeri::contracts {

std::int64_t data_bytes(const Hardware& hardware);         // ⌈data_width / 8⌉
std::int64_t accumulator_bytes(const Hardware& hardware);  // ⌈acc_width / 8⌉

// Distinct input rows (or columns) touched by `outputs` consecutive outputs of a filter slice of `filter` taps
// `dilation` apart: the size of {o·stride + t·dilation : o < outputs, t < filter} (docs/model.md, "Window span").
// With g = gcd(stride, dilation), stride' = stride/g and dilation' = dilation/g, two pairs (o, t) and (o', t')
// land on the same row exactly when o − o' = j·dilation' and t' − t = j·stride'; counting each row at its pair
// of smallest o leaves outputs·filter − max(0, outputs − dilation')·max(0, filter − stride'). For dilation 1
// this is the overlap rule (outputs − 1)·stride + filter when stride ≤ filter, outputs·filter otherwise.
// Inline: the search calls it for every tile it costs.
constexpr std::int64_t window_span(std::int64_t outputs, std::int64_t filter, std::int64_t stride,
                                   std::int64_t dilation) {
  const std::int64_t common = dilation == 1 ? 1 : std::gcd(stride, dilation);
  const std::int64_t stride_steps = stride / common, dilation_steps = dilation / common;
  const std::int64_t overlap_outputs = outputs > dilation_steps ? outputs - dilation_steps : 0;
  const std::int64_t overlap_taps = filter > stride_steps ? filter - stride_steps : 0;
  return outputs * filter - overlap_outputs * overlap_taps;
}

// Results land in a staging area that covers what the fabric's pipeline can still deliver after a fire (rn_bw
// results a cycle for the fire-to-result latency) plus a double buffer of one step's results.
std::int64_t staging_bytes(const Hardware& hardware, const Mapping& tile);

// One SDM block's data (the first block, which is the largest), in bytes.
struct SdmWorkingSet {
  std::int64_t inputs = 0, weights = 0, outputs = 0, staging = 0;
  // Reads are prefetched while the previous block computes (double-buffered); outputs (partial sums of the
  // block) stay in place, or the staging area if that is larger.
  std::int64_t total() const { return 2 * (inputs + weights) + (outputs > staging ? outputs : staging); }
};
SdmWorkingSet sdm_working_set(const Layer& layer, const Hardware& hardware, const Mapping& tile);

// Why the tile's SDM level is illegal, naming the broken rule and the field; nullopt if legal or absent. The
// capacity rule is checked only when hardware.sdm_bytes > 0 (a mapping file alone does not know the SDM size).
std::optional<std::string> sdm_violation(const Layer& layer, const Hardware& hardware, const Mapping& tile);

// The SDM dimension a member's stripes cut: N with token stripes (K with query-row stripes: a matrix product's
// query rows), X' otherwise (FusedRole::token_stripes, FusedRole::query_rows).
inline int stripe_dim(bool token_stripes, bool query_rows = false) {
  return token_stripes && query_rows ? kSdmK : token_stripes ? kSdmN : kSdmX;
}
inline int stripe_dim(const FusedRole& role) { return stripe_dim(role.token_stripes, role.query_rows); }
// What a member's stripes cut: its N (tokens), its K/groups (query rows of each head) or its X' (output rows).
std::int64_t stripe_extent(const Layer& layer, bool token_stripes, bool query_rows = false);
inline std::int64_t stripe_extent(const Layer& layer, const FusedRole& role) {
  return stripe_extent(layer, role.token_stripes, role.query_rows);
}
// "tokens (N)", "query rows (K per group)" or "output rows", for messages.
const char* stripe_extent_name(bool token_stripes, bool query_rows = false);

// Why a layer's mapping cannot run as a member of a fused group in `role` (docs/mapping.md, "Fused groups"), naming
// the rule and the layer: every member has an SDM level; with stripes > 1 its X' (N with token stripes) is in exactly
// `stripes` SDM blocks and that loop is the outermost SDM loop with more than one trip (the controller's stripe is one iteration of that loop);
// a member whose output feeds the group writes it final (no partial sums through DRAM); pinned weights need
// stripes > 1 and all of the member's weights in one SDM block. `output_feeds_group`: a member of the group reads
// this layer's output (true whenever role.output_in_sdm; an output that also goes to DRAM has output_in_sdm false).
// nullopt when the mapping can take the role. Shared by the model (mapper::member_violation) and the images
// (codegen's validation of a member's record).
std::optional<std::string> fused_member_violation(const Layer& layer, const Mapping& mapping, const FusedRole& role,
                                                  bool output_feeds_group);

}  // namespace maeri::contracts
