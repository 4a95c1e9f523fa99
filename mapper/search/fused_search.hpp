// The optimal fusion-aware search over a network (the FFM approach; docs/mapping.md, "Fused groups"): partial
// mappings per layer and role, grouped by compatibility (stripes, rows per stripe, what the layer reads from and
// leaves in the SDM), pruned within a group only when another is no worse in cycles, energy, working set and pinned
// weights; joined along the layers of each candidate group with the shared tensors' reservations; the best
// partition of the network into groups by dynamic programming over consecutive layers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "contracts/cost_report.hpp"
#include "contracts/hardware.hpp"
#include "contracts/network.hpp"
#include "contracts/tile.hpp"
#include "mapper/model/fusion_model.hpp"
#include "mapper/search/objective.hpp"

namespace maeri::mapper {

struct FusionOptions {
  // Per layer, the fused map space takes the fabric tiles of its best `fabric_tiles` two-level mappings (the
  // standalone search's list), with every SDM level of theirs that fits the group's stripes.
  int fabric_tiles = 8;
  // And the fabric tiles of its best `memory_free_tiles` mappings on the hardware without DRAM cost
  // (network_fusion.hpp, memory_free_hardware) when its best mapping alone waits for DRAM; 0: none. 2: MobileNetV2
  // (runtime) fuses on maeri-256 / 512 / 1024 to 1 447 851 / 658 113 / 348 228 cycles in a 1.9 / 4.3 / 25 s fused
  // search; 0 gives 1 601 322 / 680 678 / 363 192 (0.2–0.3 s); 3 gives 1 375 086 on maeri-256 but takes 403 s on
  // maeri-1024 (38.8 M joins), 8 takes 42 s on maeri-512.
  int memory_free_tiles = 2;
  // The longest group tried. 10: ResNet-50's last stage (10 layers) is one group (8 cut it in two); 24 made
  // GoogLeNet's fused search on maeri-1024 take over 120 s (12: 32 s, 10: 12 s).
  std::size_t max_layers = 10;
  // A fixed fusion policy instead of the search's choice of groups: exactly these consecutive layers (by name) form
  // one group and every other layer runs alone; the search still picks the group's stripes and mappings (the best by
  // the objective). Empty: the search decides. fused_search throws std::invalid_argument naming the layers when they
  // are not consecutive layers of the network or no mapping of theirs makes a legal group.
  std::vector<std::string> fixed_group;
  // The proof replays members of at most this many cycles in all; past it every member's best is the best found, not
  // proven (docs/model.md, "Which model decides what"). A replay's time grows with its cycles: 2·10⁷ keeps `maeri
  // map` of the heavy networks on maeri-64 within 15 s (ResNet-50's members there replay 2 M cycles each, ~0.2 s);
  // ResNet-50 on maeri-512 needs 5.6·10⁷ to be proven (+3 s).
  double proof_budget_cycles = 2e7;
};

// The SDM levels of the fused map space of one layer for `stripes` (1: any SDM level; more: X' — N with token
// stripes, K per group with query-row stripes (a matrix product in token stripes) — in exactly that many blocks,
// that loop outermost): visit(mapping with its SDM tile, the orders to cost), like for_each_sdm_tile.
void for_each_fused_sdm_tile(const contracts::Layer& layer, const contracts::Hardware& hardware,
                             const std::vector<contracts::FabricTile>& fabric_tiles, std::int64_t stripes,
                             bool token_stripes, bool query_rows,
                             const std::function<void(const contracts::Mapping&,
                                                      const std::vector<contracts::SdmOrder>&)>& visit);
// Every mapping of that space, with each phase order that can change its cost (what the brute-force oracle walks).
std::vector<contracts::Mapping> fused_member_mappings(const contracts::Layer& layer,
                                                      const contracts::Hardware& hardware,
                                                      const std::vector<contracts::FabricTile>& fabric_tiles,
                                                      std::int64_t stripes, bool token_stripes = false,
                                                      bool query_rows = false);
// The stripe counts the layer's fused space offers (1 and the X' block counts of its SDM tile candidates; with
// token_stripes the N block counts above 1, with query_rows too the K-per-group block counts above 1), ascending.
std::vector<std::int64_t> stripe_counts(const contracts::Layer& layer,
                                        const std::vector<contracts::FabricTile>& fabric_tiles,
                                        bool token_stripes = false, bool query_rows = false);

// The proof's budgets (docs/model.md, "Which model decides what"): a candidate group of more contexts (each member's
// rows per stripe and pin) is left unsolved, and a member's best after this many replays in one context is the best
// found, not proven. 256: ResNet-50's fc1000 as the last member of a group needs 87 replays on maeri-512.
constexpr std::size_t kFusedContextBudget = 1024;
constexpr std::size_t kFusedMemberReplayBudget = 256;

struct FusedSearchStats {
  std::uint64_t made = 0;    // partial mappings costed (layer mapping × role)
  std::uint64_t pruned = 0;  // dropped as dominated within their compatibility group, or over the SDM when joined
  std::uint64_t joined = 0;  // partial group mappings made by joining
  std::uint64_t groups = 0;  // (consecutive layers, stripes) candidate groups joined
  std::uint64_t options = 0;  // fused mappings of candidate groups (their fronts) offered to the partition
  std::uint64_t traffic_costed = 0;  // of them costed with exact traffic (the rest ruled out by their bounds)
  std::uint64_t timed = 0;           // of them timed by the exact model (the rest ruled out by their bounds)
  // The proof over the members' map spaces (sum objectives with exact costs; docs/model.md, "Which model decides
  // what"): one-stripe groups whose bound could win solved member by member (`solved_groups`, with `member_timed`
  // member mappings timed exactly), groups left whose bound could still win (`open_groups`: striped, or a member's
  // timing budget spent), and whether the partition is proven optimal over the fused map space.
  std::uint64_t solved_groups = 0, member_timed = 0, open_groups = 0;
  double member_replayed_cycles = 0;  // the cycles of the member mappings replayed, what the proof's budget counts
  double proof_budget_cycles = 0;     // FusionOptions::proof_budget_cycles
  bool proven = false;
  double seconds = 0;
};

// A candidate group's totals over its members.
struct GroupTotals {
  double cycles = 0, energy_pj = 0;
  std::int64_t dram_bytes = 0;
};

// A member's exact cycles with DRAM, and whether they were replayed for it (false: timed before, as part of another
// group): what the proof's budget counts.
struct MemberCycles {
  double cycles = 0;
  bool replayed = false;
};

// The exact model's costs of a candidate group's mapping, with which the partition is decided when given
// (network_fusion.hpp builds them; docs/model.md, "Which model decides what"): `traffic`, its members in their
// roles with exact DN/RN traffic (energy and DRAM bytes exact; cycles still the fluid estimate), and `cycles`, its
// exact cycles with DRAM (every member's stripe pieces replayed in its role). Each group mapping is costed only when
// a proven lower bound does not rule it out: the members' compute cycles and DRAM bytes over the bandwidth
// (member_cycles_lower_bound), their energy without DN/RN traversals, then their exact energy.
struct ExactGroupCosts {
  std::function<GroupTotals(const FusedGroup&)> traffic;
  std::function<double(const FusedGroup&)> cycles;
  // The same for one member of the group (its mapping group.mappings[member], the others' ignored): what the proof
  // over a one-stripe group's member spaces costs member by member (its members' costs are independent: the shared
  // tensors live while each runs do not depend on the others' mappings).
  std::function<GroupTotals(const FusedGroup&, std::size_t)> member_traffic;
  std::function<MemberCycles(const FusedGroup&, std::size_t)> member_cycles;
};

struct NetworkFusion {
  std::vector<FusedGroup> groups;  // the partition, in layer order; a group of one layer is its standalone mapping
  std::vector<GroupCost> costs;
  // The objective of the partition's total cycles and energy: the sum of the groups' objectives for runtime and
  // energy, the network's cycles × energy for EDP (not the sum of the groups' EDPs, which would punish fusing).
  double objective = 0;
  FusedSearchStats stats;
};

// `standalone[i]` is layer i's best mapping alone (the one-layer groups), `fabric_tiles[i]` its fused space's tiles.
// The partition is the best by the objective, then cycles, energy and DRAM bytes (mapper::better's order; a tie
// keeps the layers alone): by `exact`'s costs when given (the standalone reports then being exact too), else by the
// fluid estimate of the members in their roles.
NetworkFusion fused_search(const contracts::Network& network, const FusionGraph& graph,
                           const contracts::Hardware& hardware, const std::vector<contracts::CostReport>& standalone,
                           const std::vector<std::vector<contracts::FabricTile>>& fabric_tiles, Objective objective,
                           const FusionOptions& options, const ExactGroupCosts& exact = {});

// The distinct fabric tiles of a standalone search's list, best first, at most `count`.
std::vector<contracts::FabricTile> fusion_fabric_tiles(const std::vector<contracts::CostReport>& best, int count);

}  // namespace maeri::mapper
