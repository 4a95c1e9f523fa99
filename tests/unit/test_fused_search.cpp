// The fusion-aware search against a brute-force oracle (every partition of the layers into groups × every mapping
// of every member in the fused map space, each group costed and checked by the fusion model), on random chains and
// small DAGs of 2–4 layers; fused never worse than unfused; the rules of a group (fusion_model.hpp); a mapped
// network fused with exact traffic (and, every other trial, exact cycles with DRAM as map decides), its groups through
// mapping-file entries and back (network_fusion.hpp); the same oracle on small networks whose streams pass pools,
// softmax, products and matrix products.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <tuple>

#include "codegen/exact_traffic.hpp"
#include "contracts/sdm_rules.hpp"
#include "contracts/spec_loader.hpp"
#include "flow/exact_members.hpp"
#include "mapper/model/fusion_model.hpp"
#include "mapper/search/fused_search.hpp"
#include "mapper/search/network_fusion.hpp"
#include "mapper/search/search.hpp"
#include "tests/unit/mapper_fixtures.hpp"
#include "tests/unit/network_builder.hpp"

using namespace maeri;
using namespace maeri::mapper;

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

contracts::Layer tiny_conv(const std::string& name, std::int64_t K, std::int64_t C, std::int64_t R, std::int64_t X,
                           std::int64_t Y) {
  contracts::Layer layer = test::conv_layer(K, C, R, 1, X, Y, 1, (R - 1) / 2);
  layer.name = name;
  layer.padding_y = 0;
  return layer;
}

// A random chain of `count` layers, or a DAG: a residual (layer 0's output added to layer 2's) or two branches of
// the input joined by an add.
contracts::Network random_network(std::mt19937_64& rng, std::size_t count, int shape) {
  std::uniform_int_distribution<std::int64_t> channels(1, 2), rows(2, 4), columns(1, 2), taps(0, 1);
  test::NetworkBuilder builder("random");
  const std::int64_t X = rows(rng), Y = columns(rng);
  std::int64_t C = channels(rng);
  const std::size_t input = builder.input("x", {1, C, X, Y});
  std::vector<std::size_t> outputs;
  const auto layer = [&](std::size_t in, std::int64_t in_channels) {
    const std::int64_t K = channels(rng);
    const std::string name = "l" + std::to_string(outputs.size());
    outputs.push_back(builder.fabric(tiny_conv(name, K, in_channels, taps(rng) ? 3 : 1, X, Y), in));
    return K;
  };
  if (shape == 1 && count >= 3) {  // two branches of the input, added, then the rest as a chain
    const std::int64_t K = channels(rng);
    outputs.push_back(builder.fabric(tiny_conv("l0", K, C, 1, X, Y), input));
    outputs.push_back(builder.fabric(tiny_conv("l1", K, C, taps(rng) ? 3 : 1, X, Y), input));
    std::size_t sum = builder.add("sum", outputs[1], outputs[0]);
    C = K;
    while (outputs.size() < count) {
      C = layer(sum, C);
      sum = outputs.back();
    }
  } else if (shape == 2 && count >= 3) {  // a residual around layers 1 and 2
    C = layer(input, C);
    const std::size_t shortcut = builder.relu("relu0", outputs[0]);
    const std::int64_t width = C;
    C = layer(shortcut, C);
    outputs.push_back(builder.fabric(tiny_conv("l2", width, C, taps(rng) ? 3 : 1, X, Y), outputs[1]));
    std::size_t sum = builder.add("add", outputs[2], shortcut);
    C = width;
    while (outputs.size() < count) {
      C = layer(sum, C);
      sum = outputs.back();
    }
  } else {
    std::size_t in = input;
    while (outputs.size() < count) {
      C = layer(in, C);
      in = builder.relu("relu" + std::to_string(outputs.size()), outputs.back());
    }
  }
  contracts::Network network = builder.network();
  const auto violation = contracts::network_violation(network);
  INFO(violation.value_or(""));
  REQUIRE_FALSE(violation);
  return network;
}

struct Setup {
  std::vector<contracts::CostReport> standalone;
  std::vector<std::vector<contracts::FabricTile>> tiles;
};

Setup standalone_search(const contracts::Network& network, const contracts::Hardware& hardware, Objective objective,
                        int fabric_tiles) {
  Setup setup;
  for (const contracts::Layer& layer : network.layers) {
    SearchOptions options = map_search_options(objective, 8, {});
    options.threads = 1;
    const SearchResult result = search(layer, hardware, options);
    setup.standalone.push_back(result.best.front());
    setup.tiles.push_back(fusion_fabric_tiles(result.best, fabric_tiles));
  }
  return setup;
}

// (cycles, energy) of a group's mapping.
using Totals = std::pair<double, double>;

// Every legal mapping of layers first … first + count − 1 as one group by enumeration, reduced to those no other
// beats in both cycles and energy (every objective grows with both); empty when none is legal. A group of one
// layer is its standalone best. `over_budget` is set (and the case skipped) when the combinations exceed a cap.
std::vector<Totals> brute_force_group(const contracts::Network& network, const FusionGraph& graph,
                                      const contracts::Hardware& hardware, const Setup& setup, std::size_t first,
                                      std::size_t count, bool& over_budget) {
  if (count == 1) return {{setup.standalone[first].cycles.total, setup.standalone[first].energy_pj.total}};
  // Row stripes (X') and token stripes (N; a matrix product's query rows) every member offers.
  std::vector<std::pair<std::int64_t, bool>> common;
  for (bool tokens : {false, true}) {
    std::vector<std::int64_t> counts =
        stripe_counts(network.layers[first], setup.tiles[first], tokens, tokens && graph.products[first]);
    for (std::size_t i = first + 1; i < first + count; ++i) {
      const auto mine = stripe_counts(network.layers[i], setup.tiles[i], tokens, tokens && graph.products[i]);
      std::vector<std::int64_t> both;
      std::set_intersection(counts.begin(), counts.end(), mine.begin(), mine.end(), std::back_inserter(both));
      counts = both;
    }
    for (std::int64_t stripes : counts) common.emplace_back(stripes, tokens);
  }
  std::vector<Totals> front;
  for (const auto& [stripes, tokens] : common) {
    std::vector<std::vector<std::pair<contracts::Mapping, bool>>> lists(count);
    double combinations = 1;
    for (std::size_t i = 0; i < count; ++i) {
      for (const contracts::Mapping& mapping :
           fused_member_mappings(network.layers[first + i], hardware, setup.tiles[first + i], stripes, tokens,
                                 tokens && graph.products[first + i]))
        for (bool pinned : {false, true}) lists[i].emplace_back(mapping, pinned);
      combinations *= double(lists[i].size());
    }
    if (combinations == 0) continue;
    if (combinations > 3e5) {
      over_budget = true;
      return {};
    }
    std::vector<std::size_t> pick(count, 0);
    while (true) {
      FusedGroup group{first, count, stripes, {}, {}, tokens};
      for (std::size_t i = 0; i < count; ++i) {
        group.mappings.push_back(lists[i][pick[i]].first);
        group.weights_pinned.push_back(lists[i][pick[i]].second);
      }
      if (!group_violation(network, graph, hardware, group)) {
        const GroupCost cost = evaluate_group(network, graph, hardware, group);
        const Totals totals{cost.cycles, cost.energy_pj};
        const auto dominates = [](const Totals& a, const Totals& b) { return a.first <= b.first && a.second <= b.second; };
        if (std::none_of(front.begin(), front.end(), [&](const Totals& kept) { return dominates(kept, totals); })) {
          front.erase(std::remove_if(front.begin(), front.end(), [&](const Totals& kept) { return dominates(totals, kept); }),
                      front.end());
          front.push_back(totals);
        }
      }
      std::size_t i = 0;
      while (i < count && ++pick[i] == lists[i].size()) pick[i++] = 0;
      if (i == count) break;
    }
  }
  return front;
}

// Every partition into consecutive groups × every choice of a mapping per group: the best objective of the
// network's totals (for runtime and energy the sum of the groups' objectives, for EDP total cycles × total energy).
double brute_force_network(const contracts::Network& network, const FusionGraph& graph,
                           const contracts::Hardware& hardware, const Setup& setup, Objective objective,
                           bool& over_budget) {
  const std::size_t layers = network.layers.size();
  double best = kInfinity;
  for (unsigned cuts = 0; cuts < (1u << (layers - 1)); ++cuts) {
    std::vector<std::vector<Totals>> groups;
    std::size_t first = 0;
    for (std::size_t i = 1; i <= layers; ++i)
      if (i == layers || (cuts >> (i - 1) & 1u)) {
        groups.push_back(brute_force_group(network, graph, hardware, setup, first, i - first, over_budget));
        first = i;
      }
    if (std::any_of(groups.begin(), groups.end(), [](const std::vector<Totals>& group) { return group.empty(); }))
      continue;
    std::vector<std::size_t> pick(groups.size(), 0);
    while (true) {
      double cycles = 0, energy_pj = 0;
      for (std::size_t g = 0; g < groups.size(); ++g) {
        cycles += groups[g][pick[g]].first;
        energy_pj += groups[g][pick[g]].second;
      }
      best = std::min(best, objective_value(cycles, energy_pj, objective));
      std::size_t g = 0;
      while (g < groups.size() && ++pick[g] == groups[g].size()) pick[g++] = 0;
      if (g == groups.size()) break;
    }
  }
  return best;
}

}  // namespace

// One trial of a search-against-oracle test: the fused search over `network` and the brute-force optimum
// (over_budget: the brute force gave up, the trial is skipped), with the standalone setup and the graph they share.
struct OracleTrial {
  Setup setup;
  FusionGraph graph;
  NetworkFusion fusion;
  double oracle = 0;
  bool over_budget = false;
  double unfused = 0;  // the objective of every layer alone
};

OracleTrial oracle_trial(const contracts::Network& network, const contracts::Hardware& hardware, Objective objective) {
  OracleTrial trial{standalone_search(network, hardware, objective, 1), fusion_graph(network), {}, 0, false, 0};
  FusionOptions options;
  options.max_layers = 4;
  trial.fusion = fused_search(network, trial.graph, hardware, trial.setup.standalone, trial.setup.tiles, objective,
                              options);
  trial.oracle = brute_force_network(network, trial.graph, hardware, trial.setup, objective, trial.over_budget);
  double cycles = 0, energy = 0;
  for (const contracts::CostReport& report : trial.setup.standalone) {
    cycles += report.cycles.total;
    energy += report.energy_pj.total;
  }
  trial.unfused = objective_value(cycles, energy, objective);
  return trial;
}

// Every group's roles keep the image reader's rule (codegen/image_validation.cpp): a member whose output takes its
// shortcut's SDM rows keeps that output in the SDM, in a group of one stripe (dtln_model_2's group broke it).
void check_roles_readable(const FusionGraph& graph, const FusedGroup& group) {
  for (const FusedRole& role : group_roles(graph, group))
    if (role.output_over_shortcut) CHECK((role.output_in_sdm && role.stripes == 1));
}

TEST_CASE("fused search equals the brute-force oracle on random chains and DAGs of 2-4 layers", "[fusion]") {
  std::mt19937_64 rng(32);
  int checked = 0, fused_better = 0, edp_fused_better = 0, four_layers = 0, dags = 0, over_shortcut = 0;
  for (int trial = 0; trial < 60 && checked < 24; ++trial) {
    const std::size_t count = 2 + std::size_t(trial % 3);
    const int shape = trial % 4 == 3 ? 2 : trial % 4 == 2 ? 1 : 0;
    const contracts::Network network = random_network(rng, count, shape);
    contracts::Hardware hardware = test::small_hardware(4, 4, 4);
    hardware.sdm_bytes = std::int64_t(1) << (7 + trial % 4);  // 128 B … 1 KiB: the capacity rule bites
    const Objective objective = Objective(trial % 3);
    const OracleTrial run = oracle_trial(network, hardware, objective);
    if (run.over_budget) continue;
    const FusionGraph& graph = run.graph;
    const NetworkFusion& fusion = run.fusion;
    const double unfused = run.unfused;
    INFO("trial " << trial << ", " << count << " layers, objective " << to_string(objective) << ", SDM "
                  << hardware.sdm_bytes);
    CHECK(fusion.objective == Approx(run.oracle).epsilon(1e-9));
    double cycles = 0, energy = 0;
    for (std::size_t g = 0; g < fusion.groups.size(); ++g) {
      CHECK_FALSE(group_violation(network, graph, hardware, fusion.groups[g]));
      check_roles_readable(graph, fusion.groups[g]);
      for (const FusedRole& role : group_roles(graph, fusion.groups[g])) over_shortcut += role.output_over_shortcut;
      cycles += fusion.costs[g].cycles;
      energy += fusion.costs[g].energy_pj;
    }
    CHECK(objective_value(cycles, energy, objective) == Approx(fusion.objective).epsilon(1e-9));
    CHECK(fusion.objective <= unfused * (1 + 1e-12));
    if (fusion.objective < unfused * (1 - 1e-12)) {
      ++fused_better;
      edp_fused_better += objective == Objective::EnergyDelay;
    }
    ++checked;
    four_layers += count == 4;
    dags += shape != 0 && count >= 3;
  }
  CHECK(checked >= 20);
  CHECK(four_layers >= 4);
  CHECK(dags >= 4);
  CHECK(fused_better > 0);  // the oracle is not only checking the unfused partition
  CHECK(edp_fused_better > 0);  // nor, for the network's EDP, only the unfused partition
  CHECK(over_shortcut > 0);     // and an add's output over its shortcut is among the optima it checks
}

namespace {

// A random chain of 2-3 transformer-like GEMMs over `tokens` tokens (N; X = Y = 1), a relu or a residual add
// between them: what token stripes cut.
contracts::Network random_token_chain(std::mt19937_64& rng, std::size_t count) {
  std::uniform_int_distribution<std::int64_t> channels(1, 3), tokens_of(2, 6), coin(0, 1);
  test::NetworkBuilder builder("tokens");
  const std::int64_t tokens = tokens_of(rng);
  std::int64_t C = channels(rng);
  std::size_t in = builder.input("x", {tokens, C, 1, 1});
  for (std::size_t i = 0; i < count; ++i) {
    contracts::Layer layer = tiny_conv("g" + std::to_string(i), i + 1 == count || coin(rng) ? C : channels(rng), C, 1, 1, 1);
    layer.N = tokens;
    const std::size_t out = builder.fabric(layer, in);
    in = layer.K == C && coin(rng) ? builder.add("sum" + std::to_string(i), out, in)
                                   : builder.relu("relu" + std::to_string(i), out);
    C = layer.K;
  }
  contracts::Network network = builder.network();
  REQUIRE_FALSE(contracts::network_violation(network));
  return network;
}

}  // namespace

// The oracle walks token stripes (N blocks) as it walks row stripes: the search's optimum over both equals it, and
// token-striped groups are among the optima it checks.
TEST_CASE("fused search with token stripes equals the brute-force oracle on random GEMM chains", "[fusion]") {
  std::mt19937_64 rng(42);
  int checked = 0, token_groups = 0;
  for (int trial = 0; trial < 40 && checked < 16; ++trial) {
    const contracts::Network network = random_token_chain(rng, 2 + std::size_t(trial % 2));
    contracts::Hardware hardware = test::small_hardware(4, 4, 4);
    hardware.sdm_bytes = std::int64_t(64) << (trial % 4);  // 64 B … 512 B: the tokens held whole do not always fit
    const Objective objective = Objective(trial % 3);
    const OracleTrial run = oracle_trial(network, hardware, objective);
    if (run.over_budget) continue;
    INFO("trial " << trial << ", objective " << to_string(objective) << ", SDM " << hardware.sdm_bytes);
    CHECK(run.fusion.objective == Approx(run.oracle).epsilon(1e-9));
    for (const FusedGroup& group : run.fusion.groups) {
      CHECK_FALSE(group_violation(network, run.graph, hardware, group));
      token_groups += group.count > 1 && group.stripes > 1 && group.token_stripes;
    }
    ++checked;
  }
  CHECK(checked >= 12);
  CHECK(token_groups > 0);
}

TEST_CASE("fused groups follow the producer-consumer, stripes, order and capacity rules", "[fusion]") {
  test::NetworkBuilder builder("rules");
  const std::size_t x = builder.input("x", {1, 2, 4, 2});
  const std::size_t a = builder.fabric(tiny_conv("a", 2, 2, 3, 4, 2), x);
  builder.fabric(tiny_conv("b", 2, 2, 3, 4, 2), builder.relu("r", a));
  builder.fabric(tiny_conv("c", 2, 2, 1, 4, 2), x);
  const contracts::Network& network = builder.network();
  const FusionGraph graph = fusion_graph(network);
  REQUIRE(graph.edges.size() == 1);
  CHECK(graph.edges[0].tensor == "r.output");
  CHECK(group_structure_violation(network, graph, 0, 2) == std::nullopt);
  const auto unrelated = group_structure_violation(network, graph, 1, 2);
  REQUIRE(unrelated);
  CHECK_THAT(*unrelated, Catch::Contains("producer and consumer: layer 'c'"));

  contracts::Hardware hardware = test::small_hardware(4, 4, 4);
  hardware.sdm_bytes = 4096;
  contracts::Mapping mapping = contracts::single_level_mapping(contracts::FabricTile{});
  FusedGroup group{0, 2, 2, {mapping, mapping}, {false, false}};
  CHECK_THAT(*group_violation(network, graph, hardware, group), Catch::Contains("SDM level: layer 'a'"));
  mapping.sdm.blocked = true;
  mapping.sdm.block = {1, 2, 1, 2, 2};
  mapping.sdm.order = *contracts::parse_order("KCNXY");
  group.mappings = {mapping, mapping};
  CHECK_THAT(*group_violation(network, graph, hardware, group), Catch::Contains("exchange order: layer 'a'"));
  mapping.sdm.order = *contracts::parse_order("XKCNY");
  group.mappings = {mapping, mapping};
  CHECK(group_violation(network, graph, hardware, group) == std::nullopt);
  group.stripes = 4;
  CHECK_THAT(*group_violation(network, graph, hardware, group), Catch::Contains("stripes: layer 'a'"));
  group.stripes = 2;
  hardware.sdm_bytes = 230;
  CHECK_THAT(*group_violation(network, graph, hardware, group),
             Catch::Contains("SDM capacity") && Catch::Contains("tensor 'r.output'"));
  // Fused, the shared tensor's DRAM write and read are gone.
  hardware.sdm_bytes = 4096;
  const GroupCost fused = evaluate_group(network, graph, hardware, group);
  const auto alone_a = evaluate(network.layers[0], hardware, mapping), alone_b = evaluate(network.layers[1], hardware, mapping);
  CHECK(fused.reports[0].counts.dram_bytes < alone_a.counts.dram_bytes);
  CHECK(fused.reports[1].counts.dram_bytes < alone_b.counts.dram_bytes);
}

namespace {

// a → relu r → b → c, sum = c + r → d (every tensor K 2, 4 × 2); with `extra_reader` "r" or "sum", one more conv e
// after d reads that tensor.
contracts::Network residual_network(const std::string& extra_reader = "") {
  test::NetworkBuilder builder("residual");
  const std::size_t x = builder.input("x", {1, 2, 4, 2});
  const std::size_t shortcut = builder.relu("r", builder.fabric(tiny_conv("a", 2, 2, 1, 4, 2), x));
  const std::size_t b = builder.fabric(tiny_conv("b", 2, 2, 3, 4, 2), shortcut);
  const std::size_t sum = builder.add("sum", builder.fabric(tiny_conv("c", 2, 2, 1, 4, 2), b), shortcut);
  builder.fabric(tiny_conv("d", 2, 2, 1, 4, 2), sum);
  if (!extra_reader.empty()) builder.fabric(tiny_conv("e", 2, 2, 1, 4, 2), extra_reader == "r" ? shortcut : sum);
  return builder.network();
}

}  // namespace

TEST_CASE("an add's output takes the SDM rows of the shortcut it reads last, in a group of one stripe", "[fusion]") {
  const contracts::Network network = residual_network();
  const FusionGraph graph = fusion_graph(network);
  contracts::Hardware hardware = test::small_hardware(4, 4, 4);
  const std::int64_t tensor = 2 * 4 * 2 * contracts::data_bytes(hardware);  // every tensor: K 2, 4 x 2

  const GroupReservations whole = group_reservations(network, graph, hardware, 0, 4, 1, {});
  REQUIRE(whole.live_at.size() == 4);
  // While c runs: b's output and c's own, which takes r's rows (r's last reader is c's add).
  CHECK(whole.live_at[2] == 2 * tensor);
  CHECK(whole.live_at[1] == 2 * tensor);  // r and b's output
  CHECK(shortcut_taken_over(graph, 0, 4, 1, 2) == std::optional<std::size_t>(0));
  contracts::Mapping mapping = contracts::single_level_mapping(contracts::FabricTile{});
  mapping.sdm.blocked = true;
  mapping.sdm.block = {1, 2, 1, 4, 2};
  FusedGroup group{0, 4, 1, {mapping, mapping, mapping, mapping}, {}};
  const std::vector<FusedRole> roles = group_roles(graph, group);
  CHECK(roles[2].output_over_shortcut);
  CHECK_FALSE(roles[1].output_over_shortcut);
  // Not when c's output leaves the group (nothing of it to place), nor with stripes (the rows live throughout).
  CHECK_FALSE(shortcut_taken_over(graph, 0, 3, 1, 2));
  CHECK_FALSE(shortcut_taken_over(graph, 0, 4, 2, 2));
  CHECK(group_reservations(network, graph, hardware, 0, 3, 1, {}).live_at[2] == 2 * tensor);
  // Nor when a later member reads the shortcut: e reads r after c's add (left out of the group, e reads r from
  // DRAM, which a wrote when it ran, so c may take r's rows).
  const contracts::Network later = residual_network("r");
  const FusionGraph later_graph = fusion_graph(later);
  CHECK_FALSE(shortcut_taken_over(later_graph, 0, 5, 1, 2));
  CHECK(shortcut_taken_over(later_graph, 0, 4, 1, 2) == std::optional<std::size_t>(0));
  // Nor when c's output is also read after the group (e, outside): it is written to DRAM, not kept in the SDM, and
  // the image reader refuses output_over_shortcut without output_in_sdm (dtln_model_2's group wrote that image).
  const contracts::Network escaping = residual_network("sum");
  const FusionGraph escaping_graph = fusion_graph(escaping);
  CHECK_FALSE(shortcut_taken_over(escaping_graph, 0, 4, 1, 2));
  const std::vector<FusedRole> escaping_roles = group_roles(escaping_graph, group);
  CHECK_FALSE(escaping_roles[2].output_in_sdm);
  CHECK_FALSE(escaping_roles[2].output_over_shortcut);
}

TEST_CASE("fuse_network: groups re-costed with exact traffic, never worse than unfused, and back from mapping-file "
          "entries", "[fusion]") {
  std::mt19937_64 rng(7);
  int fused_groups = 0;
  for (int trial = 0; trial < 24; ++trial) {
    const contracts::Network network = random_network(rng, 2 + std::size_t(trial % 3), trial % 3);
    contracts::Hardware hardware = test::small_hardware(4, 4, 4);
    hardware.sdm_bytes = std::int64_t(1) << (8 + trial % 3);
    const Objective objective = Objective(trial % 3);
    std::vector<std::vector<contracts::CostReport>> best;
    for (const contracts::Layer& layer : network.layers) {
      SearchOptions options = map_search_options(objective, 8, codegen::exact_traffic_for(layer, hardware));
      options.threads = 1;
      best.push_back(search(layer, hardware, options).best);
    }
    FusionOptions options;
    options.max_layers = 4;
    // Every other trial decided with the exact model's cycles too (flow/exact_members), as `maeri map` decides.
    const NetworkFusionResult result =
        fuse_network(network, hardware, best, objective, codegen::exact_traffic_for, options, {},
                     trial % 2 ? flow::exact_member_timing(network, hardware) : ExactMemberTiming{});
    INFO("trial " << trial);
    CHECK(objective_value(result.fused.cycles, result.fused.energy_pj, objective) <=
          objective_value(result.unfused.cycles, result.unfused.energy_pj, objective) * (1 + 1e-12));
    double fused_sum = 0, unfused_sum = 0;
    std::size_t next = 0;
    contracts::MappingFile file{"small", 16, 4, 4, network.name, "runtime", {}, {}};
    for (const contracts::Layer& layer : network.layers) file.layers.push_back({layer, {}, 0, 0});
    for (const GroupResult& group : result.groups) {
      CHECK(group.group.first == next);
      next += group.group.count;
      fused_sum += objective_value(group.fused_totals.cycles, group.fused_totals.energy_pj, objective);
      unfused_sum += objective_value(group.unfused_totals.cycles, group.unfused_totals.energy_pj, objective);
      if (group.group.count < 2) continue;
      ++fused_groups;
      // For EDP a group is kept for the network's EDP, which it may improve while its own is worse. Otherwise it
      // ranks ahead of its layers alone: the objective, then cycles, energy, DRAM bytes (a tie keeps them alone).
      const auto rank = [&](const CostTotals& totals) {
        return std::make_tuple(objective_value(totals.cycles, totals.energy_pj, objective), totals.cycles,
                               totals.energy_pj, totals.dram_bytes);
      };
      if (objective != Objective::EnergyDelay) CHECK(rank(group.fused_totals) < rank(group.unfused_totals));
      for (std::size_t i = 0; i < group.group.count; ++i) {
        // Exact traffic: what the RTL counts, as for a layer alone.
        const auto exact = codegen::exact_traffic(network.layers[group.group.first + i], hardware, group.group.mappings[i]);
        CHECK(group.fused[i].counts.dn_traversals == exact.dn_traversals);
        file.layers[group.group.first + i].mapping = group.group.mappings[i];
      }
      const contracts::FusedGroupEntry entry = mapping_file_entry(network, group.group);
      const LoadedGroup loaded = loaded_group(network, hardware, file, entry);
      CHECK_FALSE(loaded.violation);
      CHECK(loaded.group.first == group.group.first);
      CHECK(loaded.group.weights_pinned == group.group.weights_pinned);
    }
    CHECK(next == network.layers.size());
    if (objective != Objective::EnergyDelay) CHECK(fused_sum <= unfused_sum * (1 + 1e-12));
  }
  CHECK(fused_groups > 0);
}

TEST_CASE("a mapping file's fused group that breaks a rule is named with the rule and the tensor", "[fusion]") {
  test::NetworkBuilder builder("rules");
  const std::size_t x = builder.input("x", {1, 2, 4, 2});
  const std::size_t a = builder.fabric(tiny_conv("a", 2, 2, 3, 4, 2), x);
  builder.fabric(tiny_conv("b", 2, 2, 3, 4, 2), builder.relu("r", a));
  builder.fabric(tiny_conv("c", 2, 2, 1, 4, 2), x);
  const contracts::Network& network = builder.network();
  contracts::Hardware hardware = test::small_hardware(4, 4, 4);
  hardware.sdm_bytes = 4096;
  contracts::Mapping mapping = contracts::single_level_mapping(contracts::FabricTile{});
  mapping.sdm.blocked = true;
  mapping.sdm.block = {1, 2, 1, 2, 2};
  mapping.sdm.order = *contracts::parse_order("KCNXY");
  contracts::MappingFile file{"small", 16, 4, 4, "rules", "runtime", {}, {}};
  for (const contracts::Layer& layer : network.layers) file.layers.push_back({layer, mapping, 0, 0});
  const auto violation = [&](const contracts::FusedGroupEntry& entry) {
    return loaded_group(network, hardware, file, entry).violation.value_or("");
  };
  CHECK_THAT(violation({"g", {"a", "b"}, 2, {}}),
             Catch::StartsWith("fused group 'g': exchange order: layer 'a'") && Catch::Contains("tensor 'r.output'"));
  CHECK_THAT(violation({"g", {"b", "c"}, 1, {}}), Catch::StartsWith("fused group 'g': producer and consumer"));
  CHECK_THAT(violation({"g", {"a", "c"}, 1, {}}),
             Catch::StartsWith("fused group 'g': producer and consumer: layer 'c' is not the workload's layer after 'a'"));
  file.layers[0].mapping.sdm.order = file.layers[1].mapping.sdm.order = *contracts::parse_order("XKCNY");
  CHECK(violation({"g", {"a", "b"}, 2, {}}).empty());
  hardware.sdm_bytes = 230;
  CHECK_THAT(violation({"g", {"a", "b"}, 2, {}}),
             Catch::StartsWith("fused group 'g': SDM capacity") && Catch::Contains("tensor 'r.output'"));
}

// The fabric tiles of each layer's best mappings alone (`count` of them) and, with `memory_free`, of its best
// mappings on memory_free_hardware (fuse_network's union).
std::vector<std::vector<contracts::FabricTile>> fused_space_tiles(const contracts::Network& network,
                                                                  const contracts::Hardware& hardware,
                                                                  Objective objective, int count, bool memory_free) {
  std::vector<std::vector<contracts::FabricTile>> tiles = standalone_search(network, hardware, objective, count).tiles;
  if (!memory_free) return tiles;
  const contracts::Hardware free_hardware = memory_free_hardware(hardware);
  for (std::size_t layer = 0; layer < network.layers.size(); ++layer) {
    SearchOptions options = map_search_options(objective, 8, {});
    options.threads = 1;
    for (const contracts::FabricTile& tile :
         fusion_fabric_tiles(search(network.layers[layer], free_hardware, options).best, count))
      if (std::find(tiles[layer].begin(), tiles[layer].end(), tile) == tiles[layer].end()) tiles[layer].push_back(tile);
  }
  return tiles;
}

TEST_CASE("memory-free fabric tiles join the fused space: the optimum over the union is never worse", "[fusion]") {
  // A member's shared tensors never touch DRAM, so the fabric tiles a DRAM-bound layer ranks best alone need not
  // be the best inside a group (fuse_network's memory_free lists). The fused search is exact for any tile lists
  // (the oracle test above), so over the union its optimum can only improve.
  std::mt19937_64 rng(35);
  for (int trial = 0; trial < 24; ++trial) {
    const contracts::Network network = random_network(rng, 2 + std::size_t(trial % 3), trial % 3);
    contracts::Hardware hardware = test::small_hardware(4, 4, 4);
    hardware.sdm_bytes = std::int64_t(1) << (9 + trial % 3);
    hardware.dram_bytes_per_cycle = 0.25;
    const Objective objective = Objective(trial % 3);
    const Setup setup = standalone_search(network, hardware, objective, 1);
    const FusionGraph graph = fusion_graph(network);
    FusionOptions options;
    options.max_layers = 4;
    const auto optimum = [&](bool memory_free) {
      return fused_search(network, graph, hardware, setup.standalone,
                          fused_space_tiles(network, hardware, objective, 1, memory_free), objective, options)
          .objective;
    };
    INFO("trial " << trial << ", objective " << to_string(objective));
    CHECK(optimum(true) <= optimum(false) * (1 + 1e-12));
  }
  // An inverted residual on slow DRAM (runtime): the depthwise layer alone ties at its DRAM floor, and the tile its
  // ranking keeps is slow to compute; inside the group, with its input and output in the SDM, a memory-free tile is
  // faster (MobileNetV2 on maeri-256: docs/mapping.md, "Groups in one step").
  test::NetworkBuilder builder("inverted_residual");
  const std::size_t x = builder.input("x", {1, 4, 6, 6});
  contracts::Layer expand = test::conv_layer(16, 4, 1, 1, 6, 6, 1, 0), project = test::conv_layer(4, 16, 1, 1, 6, 6, 1, 0);
  contracts::Layer depthwise = test::conv_layer(16, 16, 3, 3, 6, 6, 1, 1);
  depthwise.groups = 16;
  expand.name = "expand";
  depthwise.name = "depthwise";
  project.name = "project";
  const std::size_t e = builder.fabric(expand, x);
  const std::size_t d = builder.fabric(depthwise, builder.relu("relu_e", e));
  builder.fabric(project, builder.relu("relu_d", d));
  const contracts::Network& network = builder.network();
  REQUIRE_FALSE(contracts::network_violation(network));
  contracts::Hardware hardware = test::small_hardware(16, 16, 16);
  hardware.sdm_bytes = 64 * 1024;
  hardware.dram_bytes_per_cycle = 0.25;
  const Setup setup = standalone_search(network, hardware, Objective::Runtime, 1);
  const FusionGraph graph = fusion_graph(network);
  const auto optimum = [&](bool memory_free) {
    return fused_search(network, graph, hardware, setup.standalone,
                        fused_space_tiles(network, hardware, Objective::Runtime, 1, memory_free), Objective::Runtime,
                        FusionOptions{})
        .objective;
  };
  const double alone_tiles = optimum(false), with_union = optimum(true);
  INFO("cycles with the standalone tiles " << alone_tiles << ", with the union " << with_union);
  CHECK(with_union < alone_tiles);
}

namespace {

// A random small network whose streams pass the unit's operators (mapper/model/stream_operators.hpp): a max pool
// (a window of rows), an average pool with padding, softmax along channels (rows kept) and along X (whole), an
// element-wise product by a constant, or attention (a GEMM's output as Q·Kᵀ's operand A, softmax along the keys,
// P·V reading P as its operand A).
contracts::Network random_stream_network(std::mt19937_64& rng, int variant) {
  std::uniform_int_distribution<std::int64_t> channels(1, 2), columns(1, 2), taps(0, 1), tokens(2, 4);
  const std::int64_t X = 2 * tokens(rng), Y = columns(rng), C = channels(rng), K = channels(rng), K2 = channels(rng);
  const auto conv = [&](const std::string& name, const std::string& input, std::int64_t k, std::int64_t c,
                        std::int64_t r, std::int64_t x) {
    return fmt::format("  - {{name: {}, type: conv, input: {}, K: {}, C: {}, R: {}, S: 1, X: {}, Y: {}, stride: 1, "
                       "padding: [{}, 0], X_out: {}, Y_out: {}}}\n",
                       name, input, k, c, r, x, Y, (r - 1) / 2, x, Y);
  };
  std::string text = fmt::format("kind: workload\nname: stream{}\nbatch: 1\ninputs:\n", variant);
  const std::int64_t R = taps(rng) ? 3 : 1;
  if (variant == 4) {  // attention of S tokens, width d
    const std::int64_t S = tokens(rng), d = 2 * channels(rng);
    text += fmt::format("  - {{name: hidden, shape: [{0}, {1}, 1, 1]}}\n  - {{name: k, shape: [{0}, {1}]}}\n"
                        "  - {{name: v, shape: [{0}, {1}]}}\noperators:\n"
                        "  - {{name: query, type: gemm, input: hidden, M: 1, K: {1}, N: {1}, batch: {0}}}\n"
                        "  - {{name: q, type: reshape, input: query, shape: [{0}, {1}]}}\n"
                        "  - {{name: scores, type: matmul, inputs: [q, k], transpose_b: true}}\n"
                        "  - {{name: probs, type: softmax, input: scores, axis: -1}}\n"
                        "  - {{name: context, type: matmul, inputs: [probs, v]}}\n",
                        S, d);
    return contracts::load_workload_text(text, "attention.yaml");
  }
  text += fmt::format("  - {{name: x, shape: [1, {}, {}, {}]}}\noperators:\n", C, X, Y);
  text += conv("a", "x", K, C, R, X) + "  - {name: a_relu, type: relu, input: a}\n";
  if (variant == 0) {
    text += "  - {name: pool, type: max_pool, input: a_relu, size: [2, 1], stride: [2, 1]}\n";
    text += conv("b", "pool", K2, K, 1, X / 2) + conv("c", "b", K, K2, R, X / 2);
  } else if (variant == 1) {
    text += "  - {name: pool, type: average_pool, input: a_relu, size: [3, 1], stride: 1, padding: [1, 0]}\n";
    text += conv("b", "pool", K2, K, R, X);
  } else if (variant == 2) {
    text += "  - {name: rows, type: softmax, input: a_relu, axis: 1}\n" + conv("b", "rows", K2, K, R, X);
    text += "  - {name: whole, type: softmax, input: b, axis: 2}\n" + conv("c", "whole", K, K2, 1, X);
  } else {
    text += "  - {name: scaled, type: mul, inputs: [a_relu], constant: half, constant_shape: [1]}\n";
    text += conv("b", "scaled", K2, K, R, X);
  }
  return contracts::load_workload_text(text, "stream.yaml");
}

}  // namespace

TEST_CASE("fused search equals the brute-force oracle through pools, softmax, products and matrix products",
          "[fusion]") {
  std::mt19937_64 rng(42);
  int checked = 0, fused_better = 0, through = 0;
  for (int trial = 0; trial < 40 && checked < 20; ++trial) {
    const int variant = trial % 5;
    const contracts::Network network = random_stream_network(rng, variant);
    contracts::Hardware hardware = test::small_hardware(4, 4, 4);
    hardware.sdm_bytes = std::int64_t(1) << (7 + trial % 4);
    const Objective objective = Objective(trial % 3);
    const OracleTrial run = oracle_trial(network, hardware, objective);
    if (run.over_budget) continue;
    INFO("trial " << trial << ", variant " << variant << ", objective " << to_string(objective) << ", SDM "
                  << hardware.sdm_bytes);
    CHECK(run.fusion.objective == Approx(run.oracle).epsilon(1e-9));
    CHECK(run.fusion.objective <= run.unfused * (1 + 1e-12));
    fused_better += run.fusion.objective < run.unfused * (1 - 1e-12);
    for (const FusedGroup& group : run.fusion.groups) {
      CHECK_FALSE(group_violation(network, run.graph, hardware, group));
      check_roles_readable(run.graph, group);
      if (group.count > 1) through += 1;
    }
    ++checked;
  }
  CHECK(checked >= 15);
  CHECK(fused_better > 0);
  CHECK(through > 0);  // groups through the operators are among the optima checked
}

namespace {

// Multi-head attention of S tokens, h heads of d: the query projection, the heads split (reshape + transpose), Q·Kᵀ
// against K given per head, softmax along the keys, P·V, the heads merged and the output projection — the chain
// query-row stripes run through.
contracts::Network random_heads_network(std::mt19937_64& rng) {
  std::uniform_int_distribution<std::int64_t> heads(1, 2), width(1, 2);
  const std::int64_t S = 8, h = heads(rng), d = width(rng), H = h * d;
  const std::string text = fmt::format(
      "kind: workload\nname: heads\nbatch: 1\ninputs:\n  - {{name: hidden, shape: [{0}, {3}, 1, 1]}}\n"
      "  - {{name: k, shape: [{1}, {0}, {2}]}}\n  - {{name: v, shape: [{1}, {0}, {2}]}}\noperators:\n"
      "  - {{name: query, type: gemm, input: hidden, M: 1, K: {3}, N: {3}, batch: {0}}}\n"
      "  - {{name: q_split, type: reshape, input: query, shape: [{0}, {1}, {2}]}}\n"
      "  - {{name: q, type: transpose, input: q_split, perm: [1, 0, 2]}}\n"
      "  - {{name: scores, type: matmul, inputs: [q, k], transpose_b: true}}\n"
      "  - {{name: probs, type: softmax, input: scores, axis: -1}}\n"
      "  - {{name: context, type: matmul, inputs: [probs, v]}}\n"
      "  - {{name: merged_heads, type: transpose, input: context, perm: [1, 0, 2]}}\n"
      "  - {{name: merged, type: reshape, input: merged_heads, shape: [{0}, {3}, 1, 1]}}\n"
      "  - {{name: out, type: gemm, input: merged, M: 1, K: {3}, N: {3}, batch: {0}}}\n",
      S, h, d, H);
  return contracts::load_workload_text(text, "heads.yaml");
}

}  // namespace

// The oracle walks query-row stripes (the products' K per head, in token-striped groups through the heads' split and
// merge) as it walks token stripes: the search's optimum equals it, and each such group is legal.
TEST_CASE("fused search with query-row stripes equals the brute-force oracle on multi-head attention", "[fusion]") {
  std::mt19937_64 rng(7);
  int checked = 0, query_row_groups = 0;
  for (int trial = 0; trial < 24 && checked < 8; ++trial) {
    const contracts::Network network = random_heads_network(rng);
    contracts::Hardware hardware = test::small_hardware(4, 4, 4);
    hardware.sdm_bytes = std::int64_t(64) << (trial % 3);  // 64 B … 256 B: scores held whole do not always fit
    const Objective objective = Objective(trial % 3);
    const OracleTrial run = oracle_trial(network, hardware, objective);
    if (run.over_budget) continue;
    INFO("trial " << trial << ", objective " << to_string(objective) << ", SDM " << hardware.sdm_bytes);
    CHECK(run.fusion.objective == Approx(run.oracle).epsilon(1e-9));
    for (const FusedGroup& group : run.fusion.groups) {
      CHECK_FALSE(group_violation(network, run.graph, hardware, group));
      for (const FusedRole& role : group_roles(run.graph, group)) query_row_groups += role.query_rows;
    }
    ++checked;
  }
  CHECK(checked >= 4);
  CHECK(query_row_groups > 0);  // members in query-row stripes are among the optima checked
}

// By hand: with 8 tokens in 2 stripes, Q·Kᵀ and P·V cut their 8 query rows into 2 blocks of 4 in each head; the
// query's output stripe (4 tokens × H) is held with the transposed copy the unit makes of it (4 × H); the scores of
// a stripe are h × 4 × 8 elements.
TEST_CASE("query-row stripes: the heads' split and merge relabel rows, reservations by hand", "[fusion]") {
  std::mt19937_64 rng(1);
  contracts::Network network = random_heads_network(rng);
  const FusionGraph graph = fusion_graph(network);
  REQUIRE(graph.products[1]);
  REQUIRE(graph.products[2]);
  const auto edge = [&](std::size_t producer, std::size_t consumer) {
    for (const FusionEdge& e : graph.edges)
      if (e.producer == producer && e.consumer == consumer) return e;
    FAIL("no edge");
    return FusionEdge{};
  };
  CHECK(edge(0, 1).operand_a);
  CHECK(edge(0, 1).tokens_aligned);  // [S, H] → [S, h, d] → [h, S, d]: the tokens are Q's rows
  CHECK(edge(1, 2).tokens_aligned);  // through softmax along the keys
  CHECK(edge(2, 3).tokens_aligned);  // [h, S, d] → [S, h, d] → [S, H, 1, 1]: the tokens are N again
  const contracts::Layer& scores = network.layers[1];
  const std::int64_t h = scores.groups, H = network.layers[0].K;
  const std::vector<std::int64_t> rows{4, 4, 4, 4};
  contracts::Hardware hardware = test::small_hardware(4, 4, 4);
  const GroupReservations reserved = group_reservations(network, graph, hardware, 0, 4, 2, rows, true);
  REQUIRE_FALSE(reserved.violation);
  const std::int64_t data = contracts::data_bytes(hardware);
  REQUIRE(reserved.tensors.size() == 3);
  CHECK(reserved.tensors[0].bytes == (4 * H + 4 * H) * data);  // query's stripe and its transposed copy
  CHECK(reserved.tensors[1].bytes == h * 4 * 8 * data);        // the scores of 4 query rows of every head
  CHECK(reserved.tensors[2].bytes == (4 * H + 4 * H) * data);  // context's 4 tokens (every head) and the merged copy
}

namespace {

// (objective, cycles, energy, DRAM bytes): the order mapper::better ranks by, which sums keep.
using Rank = std::tuple<double, double, double, std::int64_t>;
Rank rank_of(double cycles, double energy_pj, std::int64_t dram_bytes, Objective objective) {
  return {objective_value(cycles, energy_pj, objective), cycles, energy_pj, dram_bytes};
}

// The best of a group of layers first … first + count − 1 by the exact model, by enumeration: every stripe count its
// members share × every mapping of every member in the fused space (the fabric tiles of its best 8) × pinned or not,
// each legal group's members costed in their roles with exact traffic and exact cycles with DRAM (the exact model's
// hooks as map uses them, flow/exact_members), ranked by (objective, cycles, energy, DRAM bytes). nullopt when no
// mapping makes a legal group; `over_budget` when the combinations exceed a cap.
std::optional<Rank> exact_brute_force_group(const contracts::Network& network, const FusionGraph& graph,
                                            const contracts::Hardware& hardware,
                                            const std::vector<std::vector<contracts::FabricTile>>& tiles,
                                            std::size_t first, std::size_t count, Objective objective,
                                            const ExactMemberTiming& timing, bool& over_budget,
                                            int& striped_legal) {
  std::vector<std::int64_t> common = stripe_counts(network.layers[first], tiles[first]);
  for (std::size_t i = first + 1; i < first + count; ++i) {
    const auto mine = stripe_counts(network.layers[i], tiles[i]);
    std::vector<std::int64_t> both;
    std::set_intersection(common.begin(), common.end(), mine.begin(), mine.end(), std::back_inserter(both));
    common = both;
  }
  std::optional<Rank> best;
  for (std::int64_t stripes : common) {
    std::vector<std::vector<std::pair<contracts::Mapping, bool>>> lists(count);
    double combinations = 1;
    for (std::size_t i = 0; i < count; ++i) {
      for (const contracts::Mapping& mapping : fused_member_mappings(network.layers[first + i], hardware, tiles[first + i], stripes))
        for (bool pinned : {false, true}) lists[i].emplace_back(mapping, pinned);
      combinations *= double(lists[i].size());
    }
    if (combinations > 2e4) {
      over_budget = true;
      return std::nullopt;
    }
    std::vector<std::size_t> pick(count, 0);
    while (combinations > 0) {
      FusedGroup group{first, count, stripes, {}, {}, false};
      for (std::size_t i = 0; i < count; ++i) {
        group.mappings.push_back(lists[i][pick[i]].first);
        group.weights_pinned.push_back(lists[i][pick[i]].second);
      }
      if (!group_violation(network, graph, hardware, group)) {
        const std::vector<FusedRole> roles = group_roles(graph, group);
        double cycles = 0, energy_pj = 0;
        std::int64_t dram_bytes = 0;
        for (std::size_t i = 0; i < count; ++i) {
          const contracts::Layer& layer = network.layers[first + i];
          contracts::CostReport report = evaluate(layer, hardware, group.mappings[i], roles[i]);
          codegen::refine_with_exact_traffic(report, layer, hardware);
          timing(group, i, report);
          cycles += report.cycles.total;
          energy_pj += report.energy_pj.total;
          dram_bytes += report.counts.dram_bytes;
        }
        const Rank rank = rank_of(cycles, energy_pj, dram_bytes, objective);
        if (!best || rank < *best) best = rank;
        striped_legal += stripes > 1;
      }
      std::size_t i = 0;
      while (i < count && ++pick[i] == lists[i].size()) pick[i++] = 0;
      if (i == count) break;
    }
  }
  return best;
}

}  // namespace

// The proof over the members' spaces (docs/model.md, "Which model decides what"): on random chains and DAGs of 2–3
// layers, `fuse_network` deciding with the exact model as `maeri map` does reports its partition proven, and that
// partition's exact totals rank equal to the best of every partition × every group's stripes, member mappings and
// pins, each timed exactly (the oracle above); no fluid estimate decides what the exact model never sees.
TEST_CASE("fused search proven over the members' spaces equals the exact brute force", "[fusion][exact]") {
  std::mt19937_64 rng(4501);
  int checked = 0, fused = 0, striped = 0, skipped = 0, striped_legal = 0;
  for (int trial = 0; trial < 120 && checked < 30; ++trial) {
    const std::size_t count = 2 + std::size_t(trial % 2);
    const contracts::Network network = random_network(rng, count, trial % 3);
    contracts::Hardware hardware = test::small_hardware(4, 4, 4);
    hardware.sdm_bytes = std::int64_t(1) << (6 + trial % 4);  // 64 B … 512 B: stripes and the capacity rule bite
    const Objective objective = trial % 2 ? Objective::Energy : Objective::Runtime;
    std::vector<std::vector<contracts::CostReport>> best;
    std::vector<std::vector<contracts::FabricTile>> tiles;
    for (const contracts::Layer& layer : network.layers) {
      SearchOptions options = map_search_options(objective, 8, codegen::exact_traffic_for(layer, hardware));
      options.threads = 1;
      best.push_back(search(layer, hardware, options).best);
      tiles.push_back(fusion_fabric_tiles(best.back(), FusionOptions{}.fabric_tiles));
    }
    const ExactMemberTiming timing = flow::exact_member_timing(network, hardware);
    FusionOptions options;
    options.max_layers = 3;
    const NetworkFusionResult result =
        fuse_network(network, hardware, best, objective, codegen::exact_traffic_for, options, {}, timing);
    // The oracle: every partition into consecutive groups, each group at its exact best (a layer alone: its
    // standalone best, as fuse_network's partitions hold it).
    const FusionGraph graph = fusion_graph(network);
    bool over_budget = false;
    std::optional<Rank> oracle;
    for (unsigned cuts = 0; cuts < (1u << (count - 1)) && !over_budget; ++cuts) {
      Rank total{0, 0, 0, 0};
      bool legal = true;
      std::size_t first = 0;
      for (std::size_t i = 1; i <= count && legal; ++i) {
        if (i < count && !(cuts >> (i - 1) & 1u)) continue;
        std::optional<Rank> group;
        if (i - first == 1) {
          const contracts::CostReport& alone = best[first].front();
          group = rank_of(alone.cycles.total, alone.energy_pj.total, alone.counts.dram_bytes, objective);
        } else {
          group = exact_brute_force_group(network, graph, hardware, tiles, first, i - first, objective, timing,
                                          over_budget, striped_legal);
        }
        legal = group.has_value();
        if (legal)
          total = {std::get<0>(total) + std::get<0>(*group), std::get<1>(total) + std::get<1>(*group),
                   std::get<2>(total) + std::get<2>(*group), std::get<3>(total) + std::get<3>(*group)};
        first = i;
      }
      if (legal && (!oracle || total < *oracle)) oracle = total;
    }
    if (over_budget) {
      ++skipped;
      continue;
    }
    INFO("trial " << trial << ", " << count << " layers, objective " << to_string(objective) << ", SDM "
                  << hardware.sdm_bytes);
    REQUIRE(oracle);
    CHECK(result.stats.proven);
    CHECK(result.stats.open_groups == 0);
    const Rank chosen = rank_of(result.fused.cycles, result.fused.energy_pj, result.fused.dram_bytes, objective);
    CHECK(std::get<0>(chosen) == Approx(std::get<0>(*oracle)).epsilon(1e-9));
    CHECK(std::get<1>(chosen) == Approx(std::get<1>(*oracle)).epsilon(1e-9));
    CHECK(std::get<2>(chosen) == Approx(std::get<2>(*oracle)).epsilon(1e-9));
    for (const GroupResult& group : result.groups) {
      fused += group.group.count > 1;
      striped += group.group.count > 1 && group.group.stripes > 1;
    }
    ++checked;
  }
  CHECK(checked >= 10);
  CHECK(fused > 0);    // the oracle is not only checking the unfused partition
  CHECK(striped_legal > 0);  // and striped groups (rows, pins) are among the mappings it times
  WARN(checked << " networks checked (" << skipped << " over the brute force's cap), " << fused
              << " fused groups chosen (" << striped << " striped); " << striped_legal
              << " legal striped group mappings timed");
}
