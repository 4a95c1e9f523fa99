// Fusion of a mapped network, what `maeri map` does after the layers' own searches unless --no-fusion: the optimal
// fused search (fused_search.hpp) over the layers' standalone results, each chosen group re-costed with exact DN/RN
// traffic as single layers are ranked and split back into its layers when that makes it no better than unfused, and
// the fused-vs-unfused comparison per group and for the network against its compulsory DRAM bytes (docs/mapping.md
// and docs/model.md, "Fused groups").
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "contracts/cost_report.hpp"
#include "contracts/hardware.hpp"
#include "contracts/mapping_file.hpp"
#include "contracts/network.hpp"
#include "mapper/search/fused_search.hpp"

namespace maeri::mapper {

struct CostTotals {
  double cycles = 0, energy_pj = 0;
  std::int64_t dram_bytes = 0;
  double edp() const { return cycles * energy_pj; }  // pJ·cycles
  void add(const contracts::CostReport& report);
  void add(const CostTotals& other);
  void remove(const CostTotals& other);
};

struct GroupResult {
  FusedGroup group;
  std::vector<contracts::CostReport> fused;  // per member in its role, with exact traffic
  CostTotals fused_totals, unfused_totals;   // unfused: the members' standalone best mappings
};

struct NetworkFusionResult {
  std::vector<GroupResult> groups;  // the partition, in layer order; a group of one is its layer's standalone best
  CostTotals fused, unfused;
  std::int64_t compulsory_dram_bytes = 0;  // the network's (network_compulsory_dram_bytes)
  FusedSearchStats stats;
  std::size_t split_back = 0;  // groups the search chose that exact traffic made no better than their layers alone
};

// Gives member `member` of a group (its report in its role, with exact traffic) its exact cycles with DRAM in that
// role — its stripe pieces replayed with the group's SDM reservations (flow/exact_members.hpp), what the mapper
// cannot call — and says whether it replayed them (false: the same member timed before). Empty: the members keep the
// fluid estimate.
using ExactMemberTiming =
    std::function<bool(const FusedGroup& group, std::size_t member, contracts::CostReport& report)>;

// `best[i]` is layer i's standalone search result, best first, with exact traffic (at least one entry; the fused
// space takes the distinct fabric tiles of its first `options.fabric_tiles`). `memory_free[i]`, when given (one
// list per layer), is the same search on memory_free_hardware: its first `options.fabric_tiles` distinct fabric
// tiles join the fused space too. A member's shared tensors never touch DRAM, so the standalone ranking of a
// DRAM-bound layer — ties at its DRAM floor, broken by energy — can hide the tiles that are fastest inside a group
// (MobileNetV2's depthwise layers on maeri-256: docs/mapping.md, "Groups in one step").
NetworkFusionResult fuse_network(const contracts::Network& network, const contracts::Hardware& hardware,
                                 const std::vector<std::vector<contracts::CostReport>>& best, Objective objective,
                                 const contracts::ExactTrafficFor& exact_traffic_for, const FusionOptions& options,
                                 const std::vector<std::vector<contracts::CostReport>>& memory_free = {},
                                 const ExactMemberTiming& exact_members = {});

// A given partition costed, not searched (`maeri map --mapping FILE`): `groups` are the file's fused groups (each
// legal: loaded_group), every other layer runs alone in `given[layer]`, the report of its given mapping. Each group's
// members are costed in their roles with exact traffic as fuse_network reports them; a group's unfused totals are
// its members' given mappings alone.
NetworkFusionResult given_fusion(const contracts::Network& network, const contracts::Hardware& hardware,
                                 const std::vector<contracts::CostReport>& given, const std::vector<FusedGroup>& groups,
                                 const contracts::ExactTrafficFor& exact_traffic_for,
                                 const ExactMemberTiming& exact_members = {});

// The hardware without DRAM cost: unbounded bandwidth, no latency, no energy per DRAM byte (the rest unchanged).
contracts::Hardware memory_free_hardware(const contracts::Hardware& hardware);

// A group's entry in a mapping file: its first layer's name joined to its last's, the members, stripes, pins.
contracts::FusedGroupEntry mapping_file_entry(const contracts::Network& network, const FusedGroup& group);

// The group a mapping file's entry describes, with its members' mappings from the file, or why it breaks a rule of
// fused groups (fusion_model.hpp: group_violation), the message naming the group.
struct LoadedGroup {
  FusedGroup group;
  std::optional<std::string> violation;
};
LoadedGroup loaded_group(const contracts::Network& network, const contracts::Hardware& hardware,
                         const contracts::MappingFile& file, const contracts::FusedGroupEntry& entry);

}  // namespace maeri::mapper
