// Fusion of a mapped network: the fused search, the exact re-costing of its groups, the comparison with unfused,
// and fused groups to and from mapping files (network_fusion.hpp).
#include "mapper/search/network_fusion.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "mapper/model/cost_model.hpp"

namespace maeri::mapper {

void CostTotals::add(const contracts::CostReport& report) {
  cycles += report.cycles.total;
  energy_pj += report.energy_pj.total;
  dram_bytes += report.counts.dram_bytes;
}

void CostTotals::add(const CostTotals& other) {
  cycles += other.cycles;
  energy_pj += other.energy_pj;
  dram_bytes += other.dram_bytes;
}

void CostTotals::remove(const CostTotals& other) {
  cycles -= other.cycles;
  energy_pj -= other.energy_pj;
  dram_bytes -= other.dram_bytes;
}

contracts::Hardware memory_free_hardware(const contracts::Hardware& hardware) {
  contracts::Hardware free = hardware;
  free.dram_bytes_per_cycle = 1e15;  // every transfer takes no time (the fluid model divides by it)
  free.dram_latency_cycles = 0;
  free.dram_device.reset();
  free.energy_pj.dram_byte = 0;
  return free;
}

namespace {

// The fused map space of each layer: its standalone best (the one-layer group) and the fabric tiles its fused
// mappings take (of its best mappings, and of its best without DRAM cost).
struct FusionSpace {
  std::vector<contracts::CostReport> standalone;
  std::vector<std::vector<contracts::FabricTile>> tiles;
};

// A matrix product's query-row stripes are K blocks of each group, each a multiple of T_K (the last one possibly
// ragged): at long sequences a stripe of the scores (h · B_K · S elements) fits the SDM only with few query rows.
// Each tile also enters the space with T_K lowered to the largest divisor of K/groups below it (stripes of equal
// blocks), then halved down to 1.
void add_query_row_tiles(const contracts::Layer& layer, std::vector<contracts::FabricTile>& tiles) {
  const std::int64_t rows = layer.group_filters();
  const std::size_t count = tiles.size();
  for (std::size_t i = 0; i < count; ++i) {
    contracts::FabricTile tile = tiles[i];
    std::int64_t t_k = tile.size[contracts::kDimK];
    while (rows % t_k != 0) --t_k;
    for (; t_k >= 1; t_k = t_k > 1 && rows % (t_k / 2) == 0 ? t_k / 2 : 0) {
      tile.size[contracts::kDimK] = t_k;
      if (std::find(tiles.begin(), tiles.end(), tile) == tiles.end()) tiles.push_back(tile);
    }
  }
}

FusionSpace fusion_space(const contracts::Network& network, const FusionGraph& graph,
                         const std::vector<std::vector<contracts::CostReport>>& best, const FusionOptions& options,
                         const std::vector<std::vector<contracts::CostReport>>& memory_free) {
  FusionSpace space;
  for (std::size_t layer = 0; layer < best.size(); ++layer) {
    space.standalone.push_back(best[layer].front());
    space.tiles.push_back(fusion_fabric_tiles(best[layer], options.fabric_tiles));
    auto& tiles = space.tiles.back();
    if (!memory_free.empty())
      for (const contracts::FabricTile& tile : fusion_fabric_tiles(memory_free[layer], options.memory_free_tiles))
        if (std::find(tiles.begin(), tiles.end(), tile) == tiles.end()) tiles.push_back(tile);
    if (graph.products[layer]) add_query_row_tiles(network.layers[layer], tiles);
  }
  return space;
}

GroupResult layer_alone(const std::vector<contracts::CostReport>& standalone, std::size_t layer) {
  GroupResult single{FusedGroup{layer, 1, 1, {standalone[layer].mapping}, {false}}, {standalone[layer]}, {}, {}};
  single.fused_totals.add(standalone[layer]);
  single.unfused_totals = single.fused_totals;
  return single;
}

// Member `i` of a group in its role with exact traffic.
contracts::CostReport member_with_exact_traffic(const contracts::Network& network, const FusionGraph& graph,
                                                const contracts::Hardware& hardware, const FusedGroup& group,
                                                std::size_t i, const contracts::ExactTrafficFor& exact_traffic_for) {
  const contracts::Layer& layer = network.layers[group.first + i];
  contracts::CostReport report = evaluate(layer, hardware, group.mappings[i], group_roles(graph, group)[i]);
  if (exact_traffic_for) exact_traffic_for(layer, hardware)(report);
  return report;
}

// A group's members in their roles with exact traffic.
std::vector<contracts::CostReport> members_with_exact_traffic(const contracts::Network& network, const FusionGraph& graph,
                                                              const contracts::Hardware& hardware,
                                                              const FusedGroup& group,
                                                              const contracts::ExactTrafficFor& exact_traffic_for) {
  std::vector<contracts::CostReport> members;
  for (std::size_t i = 0; i < group.count; ++i)
    members.push_back(member_with_exact_traffic(network, graph, hardware, group, i, exact_traffic_for));
  return members;
}

// Every member given its exact cycles with DRAM in its role.
void time_members(const FusedGroup& group, std::vector<contracts::CostReport>& members,
                  const ExactMemberTiming& exact_members) {
  for (std::size_t i = 0; i < members.size(); ++i) exact_members(group, i, members[i]);
}

GroupTotals totals_of(const contracts::CostReport& report) {
  return {report.cycles.total, report.energy_pj.total, report.counts.dram_bytes};
}

GroupTotals totals_of(const std::vector<contracts::CostReport>& members) {
  GroupTotals totals;
  for (const contracts::CostReport& report : members) {
    totals.cycles += report.cycles.total;
    totals.energy_pj += report.energy_pj.total;
    totals.dram_bytes += report.counts.dram_bytes;
  }
  return totals;
}

// The exact costs the fused search decides with: exact traffic, then the members timed in their roles.
ExactGroupCosts exact_group_costs(const contracts::Network& network, const FusionGraph& graph,
                                  const contracts::Hardware& hardware,
                                  const contracts::ExactTrafficFor& exact_traffic_for,
                                  const ExactMemberTiming& exact_members) {
  ExactGroupCosts costs;
  if (!exact_traffic_for) return costs;  // the fluid estimate decides
  costs.traffic = [&network, &graph, &hardware, exact_traffic_for](const FusedGroup& group) {
    return totals_of(members_with_exact_traffic(network, graph, hardware, group, exact_traffic_for));
  };
  costs.member_traffic = [&network, &graph, &hardware, exact_traffic_for](const FusedGroup& group, std::size_t i) {
    return totals_of(member_with_exact_traffic(network, graph, hardware, group, i, exact_traffic_for));
  };
  if (exact_members) {
    costs.cycles = [&network, &graph, &hardware, exact_traffic_for, exact_members](const FusedGroup& group) {
      std::vector<contracts::CostReport> members =
          members_with_exact_traffic(network, graph, hardware, group, exact_traffic_for);
      time_members(group, members, exact_members);
      return totals_of(members).cycles;
    };
    costs.member_cycles = [&network, &graph, &hardware, exact_traffic_for, exact_members](const FusedGroup& group,
                                                                                          std::size_t i) {
      contracts::CostReport report = member_with_exact_traffic(network, graph, hardware, group, i, exact_traffic_for);
      const bool replayed = exact_members(group, i, report);
      return MemberCycles{report.cycles.total, replayed};
    };
  }
  return costs;
}

// A group of the search's partition with its members costed exactly (traffic, and cycles with DRAM when
// `exact_members` is given), as reported and compared.
GroupResult exact_group(const contracts::Network& network, const FusionGraph& graph, const contracts::Hardware& hardware,
                        const FusedGroup& group, const std::vector<contracts::CostReport>& standalone,
                        const contracts::ExactTrafficFor& exact_traffic_for, const ExactMemberTiming& exact_members) {
  if (group.count == 1) return layer_alone(standalone, group.first);
  GroupResult fused{group, members_with_exact_traffic(network, graph, hardware, group, exact_traffic_for), {}, {}};
  if (exact_members) time_members(group, fused.fused, exact_members);
  for (std::size_t i = 0; i < group.count; ++i) {
    fused.fused_totals.add(fused.fused[i]);
    fused.unfused_totals.add(standalone[group.first + i]);
  }
  return fused;
}

// Whether `fused` beats `unfused` under the objective: the objective, then cycles, energy and DRAM bytes (the order of
// mapper::better), so under the runtime objective a group that costs no cycles and saves DRAM traffic stays fused.
bool fused_is_better(const CostTotals& fused, const CostTotals& unfused, Objective objective) {
  const double fused_value = objective_value(fused.cycles, fused.energy_pj, objective),
               unfused_value = objective_value(unfused.cycles, unfused.energy_pj, objective);
  if (fused_value != unfused_value) return fused_value < unfused_value;
  if (fused.cycles != unfused.cycles) return fused.cycles < unfused.cycles;
  if (fused.energy_pj != unfused.energy_pj) return fused.energy_pj < unfused.energy_pj;
  return fused.dram_bytes < unfused.dram_bytes;
}

// Which groups go back to their layers alone. A group stays fused only when that makes the objective better than
// its layers alone (fused_is_better: ties by cycles, energy, DRAM bytes): for runtime and energy the group's own
// totals decide; for EDP the network's, with the other
// groups as chosen so far (in layer order, each split lowering it), and the whole network split back if even then
// not better than unfused.
std::vector<bool> groups_to_split(const std::vector<GroupResult>& chosen, CostTotals network_totals,
                                  const std::vector<contracts::CostReport>& standalone, Objective objective) {
  std::vector<bool> split(chosen.size(), false);
  for (std::size_t g = 0; g < chosen.size(); ++g) {
    const GroupResult& group = chosen[g];
    if (group.group.count == 1) continue;
    CostTotals with_layers = network_totals;
    with_layers.remove(group.fused_totals);
    with_layers.add(group.unfused_totals);
    split[g] = objective == Objective::EnergyDelay ? !fused_is_better(network_totals, with_layers, objective)
                                                   : !fused_is_better(group.fused_totals, group.unfused_totals, objective);
    if (split[g]) network_totals = with_layers;
  }
  CostTotals unfused_totals;
  for (const contracts::CostReport& report : standalone) unfused_totals.add(report);
  if (objective == Objective::EnergyDelay && !fused_is_better(network_totals, unfused_totals, objective))
    split.assign(chosen.size(), true);
  return split;
}

}  // namespace

NetworkFusionResult fuse_network(const contracts::Network& network, const contracts::Hardware& hardware,
                                 const std::vector<std::vector<contracts::CostReport>>& best, Objective objective,
                                 const contracts::ExactTrafficFor& exact_traffic_for, const FusionOptions& options,
                                 const std::vector<std::vector<contracts::CostReport>>& memory_free,
                                 const ExactMemberTiming& exact_members) {
  if (!memory_free.empty() && memory_free.size() != best.size())
    throw std::invalid_argument("fuse_network: one memory-free list per layer");
  const FusionGraph graph = fusion_graph(network);
  const FusionSpace space = fusion_space(network, graph, best, options, memory_free);
  const std::vector<contracts::CostReport>& standalone = space.standalone;
  const NetworkFusion fusion = fused_search(network, graph, hardware, standalone, space.tiles, objective, options,
                                            exact_group_costs(network, graph, hardware, exact_traffic_for, exact_members));
  NetworkFusionResult result;
  result.stats = fusion.stats;
  result.compulsory_dram_bytes = network_compulsory_dram_bytes(network, hardware);
  std::vector<GroupResult> chosen;
  CostTotals network_totals;
  for (const FusedGroup& group : fusion.groups) {
    chosen.push_back(exact_group(network, graph, hardware, group, standalone, exact_traffic_for, exact_members));
    network_totals.add(chosen.back().fused_totals);
  }
  // A fixed policy (FusionOptions::fixed_group) keeps its group even where its layers alone would do better.
  const std::vector<bool> split = options.fixed_group.empty()
                                      ? groups_to_split(chosen, network_totals, standalone, objective)
                                      : std::vector<bool>(chosen.size(), false);
  for (std::size_t g = 0; g < chosen.size(); ++g) {
    if (!split[g] || chosen[g].group.count == 1) {
      result.groups.push_back(std::move(chosen[g]));
      continue;
    }
    ++result.split_back;
    for (std::size_t i = 0; i < chosen[g].group.count; ++i)
      result.groups.push_back(layer_alone(standalone, chosen[g].group.first + i));
  }
  for (const GroupResult& group : result.groups) {
    for (const contracts::CostReport& report : group.fused) result.fused.add(report);
    for (std::size_t i = 0; i < group.group.count; ++i) result.unfused.add(standalone[group.group.first + i]);
  }
  return result;
}

NetworkFusionResult given_fusion(const contracts::Network& network, const contracts::Hardware& hardware,
                                 const std::vector<contracts::CostReport>& given, const std::vector<FusedGroup>& groups,
                                 const contracts::ExactTrafficFor& exact_traffic_for,
                                 const ExactMemberTiming& exact_members) {
  if (given.size() != network.layers.size()) throw std::invalid_argument("given_fusion: one report per layer");
  const FusionGraph graph = fusion_graph(network);
  NetworkFusionResult result;
  result.compulsory_dram_bytes = network_compulsory_dram_bytes(network, hardware);
  std::vector<const FusedGroup*> starting_at(network.layers.size(), nullptr);
  for (const FusedGroup& group : groups) starting_at.at(group.first) = &group;
  for (std::size_t layer = 0; layer < network.layers.size();) {
    const FusedGroup* group = starting_at[layer];
    result.groups.push_back(group ? exact_group(network, graph, hardware, *group, given, exact_traffic_for, exact_members)
                                  : layer_alone(given, layer));
    layer += group ? group->count : 1;
  }
  for (const GroupResult& group : result.groups) {
    result.fused.add(group.fused_totals);
    result.unfused.add(group.unfused_totals);
  }
  return result;
}

contracts::FusedGroupEntry mapping_file_entry(const contracts::Network& network, const FusedGroup& group) {
  contracts::FusedGroupEntry entry;
  entry.name = network.layers[group.first].name + "-" + network.layers[group.first + group.count - 1].name;
  entry.stripes = group.stripes;
  entry.token_stripes = group.token_stripes && group.stripes > 1;
  for (std::size_t i = 0; i < group.count; ++i) {
    entry.layers.push_back(network.layers[group.first + i].name);
    if (i < group.weights_pinned.size() && group.weights_pinned[i]) entry.pinned_weights.push_back(entry.layers.back());
  }
  return entry;
}

LoadedGroup loaded_group(const contracts::Network& network, const contracts::Hardware& hardware,
                         const contracts::MappingFile& file, const contracts::FusedGroupEntry& entry) {
  LoadedGroup loaded;
  FusedGroup& group = loaded.group;
  const auto index_of = [&](const std::string& name) {
    return std::size_t(std::find_if(network.layers.begin(), network.layers.end(),
                                    [&](const contracts::Layer& layer) { return layer.name == name; }) -
                       network.layers.begin());
  };
  const auto fail = [&](const std::string& problem) {
    loaded.violation = fmt::format("fused group '{}': {}", entry.name, problem);
    return loaded;
  };
  group.first = index_of(entry.layers.front());
  group.count = entry.layers.size();
  group.stripes = entry.stripes;
  group.token_stripes = entry.token_stripes;
  for (std::size_t i = 0; i < entry.layers.size(); ++i) {
    const std::string& name = entry.layers[i];
    const std::size_t index = index_of(name);
    if (index == network.layers.size()) return fail(fmt::format("the workload has no layer '{}'", name));
    if (index != group.first + i)
      return fail(fmt::format("producer and consumer: layer '{}' is not the workload's layer after '{}' (a group's "
                              "layers run one after another, in the workload's order)",
                              name, i == 0 ? name : entry.layers[i - 1]));
    const auto mapped = std::find_if(file.layers.begin(), file.layers.end(),
                                     [&](const contracts::LayerMapping& layer) { return layer.layer.name == name; });
    if (mapped == file.layers.end()) return fail(fmt::format("the mapping file maps no layer '{}'", name));
    group.mappings.push_back(mapped->mapping);
    group.weights_pinned.push_back(std::find(entry.pinned_weights.begin(), entry.pinned_weights.end(), name) !=
                                   entry.pinned_weights.end());
  }
  if (const auto violation = group_violation(network, fusion_graph(network), hardware, group)) return fail(*violation);
  return loaded;
}

}  // namespace maeri::mapper
