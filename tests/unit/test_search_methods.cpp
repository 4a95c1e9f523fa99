// The heuristic searches (mapper/search/search_method.hpp): every move of the map space (mapper/mapspace/map_space.hpp)
// gives a mapping of the space, a mapping outside it is told why, every method finds the
// exhaustive optimum of small spaces given enough budget, a fixed seed reproduces a run, the budget is never
// exceeded; the surrogate's gradient matches finite differences, it fits a known function and round-trips through
// its file; warm start's similarity and carried mappings.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <iterator>
#include <random>

#include "mapper/model/cost_model.hpp"
#include "mapper/mapspace/sdm_space.hpp"
#include "mapper/search/search_method.hpp"
#include "mapper/search/surrogate_model.hpp"
#include "mapper/search/warm_start.hpp"
#include "util/input_error.hpp"
#include "contracts/spec_loader.hpp"
#include "tests/unit/mapper_fixtures.hpp"
#include "tests/unit/temp_file.hpp"

using namespace maeri;
using mapper::SearchMethodKind;

namespace {

std::string config(const std::string& relative) { return std::string(MAERI_SOURCE_DIR) + "/configs/" + relative; }

contracts::Hardware two_level_hardware() {
  contracts::Hardware hardware = test::small_hardware(16, 4, 4);
  hardware.sdm_bytes = 2048;
  return hardware;
}

// The layers of the exhaustive joint-search test (test_sdm_level.cpp): small enough to search exhaustively.
std::vector<contracts::Layer> small_layers() {
  return {test::conv_layer(4, 3, 3, 3, 6, 6, 1, 1), test::conv_layer(6, 4, 1, 1, 5, 4), test::fc_layer(12, 10)};
}

// A depthwise layer (C = K = groups = 12, 3×3, 2×2 outputs) and a grouped one (4 groups of 2 channels and 3
// filters): their spaces have T_G as an eighth dimension.
std::vector<contracts::Layer> grouped_layers() {
  contracts::Layer depthwise = test::conv_layer(12, 12, 3, 3, 4, 4);
  depthwise.groups = 12;
  contracts::Layer grouped = test::conv_layer(12, 8, 3, 3, 5, 5, 1, 1);
  grouped.groups = 4;
  return {depthwise, grouped};
}

mapper::HeuristicOptions options_for(std::uint64_t budget, std::uint64_t seed) {
  mapper::HeuristicOptions options;
  options.objective = mapper::Objective::EnergyDelay;
  options.budget = budget;
  options.seed = seed;
  options.two_level = true;
  return options;
}

const mapper::SurrogateModel& small_surrogate() {
  static const mapper::SurrogateModel model = [] {
    const auto samples = mapper::sample_surrogate_data(small_layers(), {two_level_hardware()},
                                                       mapper::Objective::EnergyDelay, true, 400, 3);
    mapper::SurrogateTraining training;
    training.hidden = 16;
    training.epochs = 30;
    return mapper::SurrogateModel::train(samples, mapper::Objective::EnergyDelay, true, training);
  }();
  return model;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

TEST_CASE("Map space: random mappings, neighbours, crossovers and projections are legal", "[search]") {
  const contracts::Hardware hardware = two_level_hardware();
  std::vector<contracts::Layer> layers = small_layers();
  layers.push_back(test::conv_layer(32, 24, 3, 3, 14, 14, 1, 1));
  for (const contracts::Layer& layer : grouped_layers()) layers.push_back(layer);
  for (const contracts::Layer& layer : layers) {
    for (const bool two_level : {false, true}) {
      const mapper::MapSpace space(layer, hardware, two_level);
      // T_G moves only for a grouped layer, over the divisors of its groups.
      CHECK(space.dims() == (layer.groups > 1 ? mapper::kNumSpaceDims : contracts::kNumTileDims));
      for (const std::int64_t size : space.sizes(mapper::kSpaceGroups)) CHECK(layer.groups % size == 0);
      CHECK(space.sizes(mapper::kSpaceGroups).size() == (layer.groups == 12 ? 6u : layer.groups == 4 ? 3u : 1u));
      std::mt19937_64 rng(11);
      std::uniform_real_distribution<double> any(-2.0, 8.0);
      int blocked = 0, side_by_side = 0;
      for (int i = 0; i < 300; ++i) {
        const contracts::Mapping a = space.random(rng), b = space.random(rng);
        mapper::RelaxedMapping point{};
        for (double& x : point) x = any(rng);
        contracts::Mapping planned = a, swapped = a;
        contracts::SdmOrder order = a.sdm.order;
        std::shuffle(order.begin(), order.end(), rng);
        space.plan_sdm(planned, order);
        space.swap_roles(swapped, i % contracts::kNumSdmDims, (i / contracts::kNumSdmDims) % contracts::kNumSdmDims, rng);
        for (const contracts::Mapping& tile : {a, space.neighbour(a, rng), space.crossover(a, b, rng), space.project(point),
                                       space.project(space.relax(a)), planned, swapped}) {
          INFO(contracts::to_string(tile));
          REQUIRE(space.violation(tile) == std::nullopt);
          CHECK((two_level || !tile.sdm.blocked));
          blocked += tile.sdm.blocked;
          side_by_side += tile.groups_per_step() > 1;
          // One name per cost: the SDM order is its class's representative, as the exhaustive search costs it.
          if (tile.sdm.blocked)
            CHECK(tile.sdm.order == mapper::canonical_sdm_order(
                                        contracts::sdm_trips(contracts::layer_extents(layer), tile.sdm.block), tile.sdm.order));
        }
        // Projecting a mapping's own relaxation gives it back.
        CHECK(space.project(space.relax(a)) == a);
        // A filled mapping (warm start's variant) is legal and maps at least as many multiplier switches.
        const contracts::Mapping full_mapping = space.filled(a, rng);
        REQUIRE(space.violation(full_mapping) == std::nullopt);
        CHECK(full_mapping.mapped_ms() >= a.mapped_ms());
        // A filled fabric tile fits Eq. 1, and no dimension can take its next larger size and still fit.
        contracts::Mapping wide = a;
        space.fill_fabric(wide, -1, rng);
        REQUIRE(wide.mapped_ms() <= hardware.num_ms);
        for (int d = 0; d < space.dims(); ++d) {
          const auto& sizes = space.sizes(d);  // descending
          const std::int64_t size = mapper::space_size(wide, d);
          const auto at = std::find(sizes.begin(), sizes.end(), size);
          REQUIRE(at != sizes.end());
          if (at != sizes.begin())
            CHECK(wide.mapped_ms() / size * *(at - 1) > hardware.num_ms);
        }
        // A filled SDM level fits, and no block can grow one candidate further and still fit.
        if (a.sdm.blocked) {
          contracts::Mapping full = a;
          space.fill_sdm(full, rng, i % 2 == 0);
          REQUIRE(mapper::sdm_fits(layer, hardware, full));
          const auto candidates = mapper::sdm_candidates(layer, full);
          for (int d = 0; d < contracts::kNumSdmDims; ++d) {
            const auto& list = candidates.blocks[size_t(d)];
            const auto at = std::find(list.begin(), list.end(), full.sdm.block[size_t(d)]);
            REQUIRE(at != list.end());
            if (at + 1 == list.end()) continue;
            contracts::Mapping grown = full;
            grown.sdm.block[size_t(d)] = *(at + 1);
            CHECK_FALSE(mapper::sdm_fits(layer, hardware, grown));
          }
        }
      }
      if (two_level) CHECK(blocked > 0);
      CHECK((side_by_side > 0) == (layer.groups > 1));
    }
  }
}

TEST_CASE("Map space: a mapping outside the space is told the rule it breaks", "[search]") {
  const contracts::Hardware hardware = two_level_hardware();
  const contracts::Layer layer = test::conv_layer(4, 3, 3, 3, 6, 6, 1, 1);  // X' = Y' = 6
  const mapper::MapSpace two_level(layer, hardware, true), single_level(layer, hardware, false);
  std::mt19937_64 rng(5);
  contracts::Mapping tile = single_level.random(rng);
  REQUIRE(single_level.violation(tile) == std::nullopt);
  // A rule of every mapping (contracts::mapping_violation): Eq. 1.
  contracts::Mapping over = tile;
  over[contracts::kDimX] = over[contracts::kDimY] = 6;
  over[contracts::kDimK] = 3;
  REQUIRE(over.mapped_ms() > hardware.num_ms);
  CHECK(single_level.violation(over).value().rfind("Eq. 1", 0) == 0);
  // The space's own rules: T_X' = 4 folds X' = 6 twice, as the smaller fold-minimal 3 does.
  contracts::Mapping unfolded = contracts::single_level_mapping(contracts::FabricTile{});
  unfolded[contracts::kDimX] = 4;
  CHECK(contracts::mapping_violation(layer, hardware, unfolded) == std::nullopt);
  CHECK(single_level.violation(unfolded).value() ==
        "fold-minimal: T_X' = 4 folds its dimension as often as the smaller 3 (the space holds only the smallest size "
        "of each fold count)");
  // An SDM level: none in the single-level space; in the two-level space its blocks must be candidates.
  contracts::Mapping blocked = two_level.random(rng);
  while (!blocked.sdm.blocked) blocked = two_level.random(rng);
  REQUIRE(two_level.violation(blocked) == std::nullopt);
  CHECK(single_level.violation(blocked).value() == "single level: the space has no SDM level");
}

// Expected values: the exhaustive optima of VGG16 conv2_1 and conv3_1 on maeri-256 by EDP (`maeri map --objective
// edp`; `maeri explore` on vgg16 at 256 MS), and the runs of simulated annealing that ended in the local optimum
// named below (the runs CSV of that explore, before these moves existed).
TEST_CASE("Map space: the SDM plan and the role swap reach the optima that steps cannot", "[search]") {
  const contracts::Hardware hardware = contracts::load_hardware(config("hardware/maeri-256.yaml"));
  const contracts::Network vgg16 = contracts::load_workload(config("workloads/vgg16.yaml"));
  const auto layer = [&](const std::string& name) {
    return *std::find_if(vgg16.layers.begin(), vgg16.layers.end(), [&](const contracts::Layer& l) { return l.name == name; });
  };
  const auto mapping = [](const contracts::Layer& of, std::array<std::int64_t, contracts::kNumTileDims> fabric,
                          std::array<std::int64_t, contracts::kNumSdmDims> blocks, const std::string& order) {
    contracts::Mapping tile;
    for (int d = 0; d < contracts::kNumTileDims; ++d) tile[d] = fabric[size_t(d)];
    tile.sdm.blocked = true;
    tile.sdm.block = blocks;
    // The order as the map space names it: its class's representative (loops of one trip go anywhere).
    tile.sdm.order = mapper::canonical_sdm_order(contracts::sdm_trips(contracts::layer_extents(of), blocks),
                                                 *contracts::parse_order(order));
    return tile;
  };
  std::mt19937_64 rng(3);

  // conv2_1's optimum holds B_K at T_K (K innermost) and balances X' and Y' (each of 4 … 112 alone costs 9-17 %
  // more); planning the SDM level for its order from the optimum's fabric tile gives exactly it.
  const mapper::MapSpace conv2_1(layer("conv2_1"), hardware, true);
  contracts::Mapping planned = mapping(layer("conv2_1"), {1, 3, 16, 5, 1, 1, 1}, {65, 64, 1, 8, 16}, "KCNXY");
  conv2_1.plan_sdm(planned, *contracts::parse_order("CNXYK"));
  CHECK(planned == mapping(layer("conv2_1"), {1, 3, 16, 5, 1, 1, 1}, {5, 64, 1, 28, 28}, "CNXYK"));

  // conv3_1 (C = 128, K = 256): 6 of 20 annealing runs ended 10.5 % above the optimum, in its mirror image across
  // C and K. Swapping the roles of K and C takes that mapping to the optimum's fabric tile and loop order.
  const mapper::MapSpace conv3_1(layer("conv3_1"), hardware, true);
  contracts::Mapping mirrored = mapping(layer("conv3_1"), {3, 3, 4, 7, 1, 1, 1}, {7, 128, 1, 4, 56}, "CNXKY");
  conv3_1.swap_roles(mirrored, contracts::kSdmK, contracts::kSdmC, rng);
  REQUIRE(contracts::mapping_violation(layer("conv3_1"), hardware, mirrored) == std::nullopt);
  const contracts::Mapping optimum = mapping(layer("conv3_1"), {3, 3, 7, 4, 1, 1, 1}, {64, 7, 1, 14, 56}, "KNXCY");
  for (int d = 0; d < contracts::kNumTileDims; ++d) CHECK(mirrored[d] == optimum[d]);
  CHECK(mirrored.sdm.order == optimum.sdm.order);
  CHECK(mirrored.sdm.block[contracts::kSdmC] == 7);
}

TEST_CASE("Search methods: each finds the exhaustive optimum of small spaces with enough budget", "[search]") {
  const contracts::Hardware hardware = two_level_hardware();
  for (const contracts::Layer& layer : small_layers()) {
    mapper::HeuristicOptions exhaustive = options_for(std::uint64_t(1) << 40, 1);
    const auto optimum = mapper::run_search(SearchMethodKind::Exhaustive, layer, hardware, exhaustive);
    REQUIRE(optimum.exhaustive_complete);
    for (const SearchMethodKind method :
         {SearchMethodKind::Random, SearchMethodKind::Annealing, SearchMethodKind::Genetic, SearchMethodKind::Surrogate}) {
      INFO(mapper::to_string(method) << " on K=" << layer.K << " C=" << layer.C);
      mapper::HeuristicOptions options = options_for(6000, 5);
      options.surrogate = &small_surrogate();
      const auto found = mapper::run_search(method, layer, hardware, options);
      REQUIRE(!found.best.empty());
      CHECK(found.best.front().edp() == optimum.best.front().edp());
    }
  }
}

TEST_CASE("Search methods: T_G is in the heuristics' space; each finds a grouped layer's optimum, T_G > 1 on the "
          "depthwise one", "[search][groups]") {
  // The depthwise layer on 64 MS, full DN bandwidth (no input is multicast across groups) and DRAM fast enough
  // that compute decides: one group's step holds at most 4 of its 3×3 windows (its 2×2 outputs), so its optimum is
  // T_G > 1. The grouped layer on the 16 MS of the other tests (on 64, random search needs more than the budget).
  contracts::Hardware wide = test::small_hardware(64, 64, 64);
  wide.sdm_bytes = 8192;
  wide.dram_bytes_per_cycle = 64;
  for (const contracts::Layer& layer : grouped_layers()) {
    const contracts::Hardware hardware = layer.groups == layer.C ? wide : two_level_hardware();
    mapper::HeuristicOptions exhaustive = options_for(std::uint64_t(1) << 40, 1);
    const auto optimum = mapper::run_search(SearchMethodKind::Exhaustive, layer, hardware, exhaustive);
    REQUIRE(optimum.exhaustive_complete);
    if (layer.groups == layer.C) CHECK(optimum.best.front().mapping.groups_per_step() > 1);
    for (const SearchMethodKind method :
         {SearchMethodKind::Random, SearchMethodKind::Annealing, SearchMethodKind::Genetic, SearchMethodKind::Surrogate}) {
      INFO(mapper::to_string(method) << " on groups=" << layer.groups);
      mapper::HeuristicOptions options = options_for(6000, 5);
      options.surrogate = &small_surrogate();  // trained on ungrouped layers: T_G only through the mapped share
      const auto found = mapper::run_search(method, layer, hardware, options);
      REQUIRE(!found.best.empty());
      CHECK(found.best.front().edp() == optimum.best.front().edp());
      CHECK(found.best.front().mapping.groups_per_step() == optimum.best.front().mapping.groups_per_step());
    }
  }
}

TEST_CASE("Search methods: a fixed seed reproduces the run; the budget is never exceeded", "[search]") {
  const contracts::Hardware hardware = test::small_hardware(64, 8, 8);
  const contracts::Layer layer = test::conv_layer(32, 24, 3, 3, 14, 14, 1, 1);
  for (const SearchMethodKind method :
       {SearchMethodKind::Random, SearchMethodKind::Annealing, SearchMethodKind::Genetic, SearchMethodKind::Surrogate}) {
    INFO(mapper::to_string(method));
    for (const std::uint64_t budget : {1u, 7u, 250u}) {
      mapper::HeuristicOptions options = options_for(budget, 42);
      options.surrogate = &small_surrogate();  // trained on other layers and hardware: still a valid model
      const auto first = mapper::run_search(method, layer, hardware, options);
      const auto second = mapper::run_search(method, layer, hardware, options);
      CHECK(first.evaluations == budget);  // the space is far larger than the budget
      REQUIRE(first.evaluated.size() == second.evaluated.size());
      for (std::size_t i = 0; i < first.evaluated.size(); ++i) CHECK(first.evaluated[i].mapping == second.evaluated[i].mapping);
      CHECK(first.trace == second.trace);
      options.seed = 43;
      if (budget == 250) CHECK(mapper::run_search(method, layer, hardware, options).trace != first.trace);
    }
  }
  // The counter itself refuses the evaluation past the budget.
  mapper::Evaluator evaluator(layer, hardware, mapper::Objective::Runtime, 1);
  contracts::Mapping tile;
  evaluator.cost(tile);
  CHECK(evaluator.exhausted());
  CHECK_NOTHROW(evaluator.cost(tile));  // known: costs nothing
  tile[contracts::kDimK] = 2;
  CHECK_THROWS_AS(evaluator.cost(tile), std::logic_error);
  CHECK(evaluator.used() == 1);
}

TEST_CASE("Surrogate: gradient equals finite differences; fits a known function", "[search]") {
  const contracts::Hardware hardware = two_level_hardware();
  const contracts::Layer layer = small_layers().front();
  const mapper::SurrogateModel& model = small_surrogate();
  const mapper::MapSpace space(layer, hardware, true);
  std::mt19937_64 rng(9);
  for (int i = 0; i < 5; ++i) {
    const mapper::RelaxedMapping point = space.relax(space.random(rng));
    mapper::RelaxedMapping gradient{};
    const double value = model.predict_with_gradient(layer, hardware, point, gradient);
    CHECK(value == Approx(model.predict(mapper::surrogate_features(layer, hardware, point))).epsilon(1e-12));
    // An ungrouped layer's features do not depend on T_G: no gradient step moves it.
    CHECK(gradient[mapper::kRelaxedGroups] == 0.0);
    for (int j = 0; j < mapper::kRelaxedSize; ++j) {
      // Central differences: the network is smooth (tanh), so the error is O(h²) ≈ 1e-8 relative.
      const double h = 1e-4;
      mapper::RelaxedMapping up = point, down = point;
      up[size_t(j)] += h;
      down[size_t(j)] -= h;
      const double numeric = (model.predict(mapper::surrogate_features(layer, hardware, up)) -
                              model.predict(mapper::surrogate_features(layer, hardware, down))) / (2 * h);
      CHECK(gradient[size_t(j)] == Approx(numeric).margin(1e-6).epsilon(1e-5));
    }
  }
  // A grouped layer's T_G enters the mapped share: its gradient is that feature's, as finite differences give it.
  const contracts::Layer depthwise = grouped_layers().front();
  const mapper::MapSpace grouped_space(depthwise, hardware, true);
  for (int i = 0; i < 5; ++i) {
    const mapper::RelaxedMapping point = grouped_space.relax(grouped_space.random(rng));
    mapper::RelaxedMapping gradient{};
    model.predict_with_gradient(depthwise, hardware, point, gradient);
    const double h = 1e-4;
    mapper::RelaxedMapping up = point, down = point;
    up[mapper::kRelaxedGroups] += h;
    down[mapper::kRelaxedGroups] -= h;
    const double numeric = (model.predict(mapper::surrogate_features(depthwise, hardware, up)) -
                            model.predict(mapper::surrogate_features(depthwise, hardware, down))) / (2 * h);
    CHECK(gradient[mapper::kRelaxedGroups] != 0.0);
    CHECK(gradient[mapper::kRelaxedGroups] == Approx(numeric).margin(1e-6).epsilon(1e-5));
  }
  // A known smooth function of the features: y = 0.5·f0 − 0.25·f1² + sin(f2), the other features noise; the
  // fit's mean absolute error is below a tenth of the spread of y (standard deviation ≈ 0.9 over these inputs).
  mapper::SurrogateSamples samples;
  std::mt19937_64 data_rng(5);
  std::uniform_real_distribution<double> uniform(-1.5, 1.5);
  const std::size_t n = mapper::surrogate_feature_names().size();
  for (int i = 0; i < 2000; ++i) {
    std::vector<double> f(n, 0.0);
    for (double& x : f) x = uniform(data_rng);
    samples.features.push_back(f);
    samples.log_objective.push_back(0.5 * f[0] - 0.25 * f[1] * f[1] + std::sin(f[2]));
  }
  mapper::SurrogateTraining training;
  training.hidden = 32;
  training.epochs = 80;
  const auto fit = mapper::SurrogateModel::train(samples, mapper::Objective::EnergyDelay, true, training);
  CHECK(fit.error(samples).second < 0.09);
  CHECK(fit.rank_correlation(samples) > 0.99);
  // By hand: targets that reverse the fit's order within one pair give a rank correlation of −1.
  mapper::SurrogateSamples reversed;
  for (int i = 0; i < 5; ++i) {
    reversed.features.push_back(samples.features[size_t(i)]);
    reversed.log_objective.push_back(-fit.predict(samples.features[size_t(i)]));
    reversed.pair.push_back(0);
  }
  CHECK(fit.rank_correlation(reversed) == Approx(-1.0).epsilon(1e-12));
}

TEST_CASE("Surrogate: the file round-trips exactly; a model of another space is refused", "[search]") {
  const mapper::SurrogateModel& model = small_surrogate();
  test::TempDir folder;
  const std::string path = folder / "surrogate.json";
  model.save(path);
  const mapper::SurrogateModel loaded = mapper::SurrogateModel::load(path);
  const contracts::Hardware hardware = two_level_hardware();
  const contracts::Layer layer = small_layers()[1];
  const mapper::MapSpace space(layer, hardware, true);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 20; ++i) {
    const auto features = mapper::surrogate_features(layer, hardware, space.relax(space.random(rng)));
    CHECK(loaded.predict(features) == model.predict(features));  // bit-exact: JSON keeps 17 significant digits
  }
  CHECK(loaded.fingerprint() == mapper::surrogate_fingerprint(mapper::Objective::EnergyDelay, true));
  CHECK_NOTHROW(loaded.require_space(mapper::Objective::EnergyDelay, true, path));
  CHECK_THROWS_WITH(loaded.require_space(mapper::Objective::Runtime, false, path),
                    Catch::Contains("trained for the two-level space with objective edp") &&
                        Catch::Contains("single-level with objective runtime"));
  // A file whose features are not this build's is refused at load.
  std::string text = read_text(path);
  text.replace(text.find("log2 extent R"), 13, "log2 extent Q");
  write_text(path, text);
  CHECK_THROWS_WITH(mapper::SurrogateModel::load(path), Catch::Contains("another feature set"));
  write_text(path, "{\"format\": \"maeri-surrogate\", \"version\": 99}");
  CHECK_THROWS_WITH(mapper::SurrogateModel::load(path), Catch::Contains("expected version 1, found 99"));
  // Scales of zero (features divided by zero: every prediction nan) are refused at load, so `check` fails too.
  model.save(path);
  nlohmann::json document = nlohmann::json::parse(read_text(path));
  for (auto& scale : document["input_scale"]) scale = 0.0;
  write_text(path, document.dump());
  CHECK_THROWS_WITH(mapper::SurrogateModel::load(path),
                    Catch::Contains("field 'input_scale': expected positive scales (features are divided by them), "
                                    "found 0.000000 for feature"));
  model.save(path);
  document = nlohmann::json::parse(read_text(path));
  document["output_scale"] = -1.0;
  write_text(path, document.dump());
  CHECK_THROWS_WITH(mapper::SurrogateModel::load(path), Catch::Contains("field 'output_scale'"));
}

TEST_CASE("Warm start: similarity over layer shape, the source layer, carried mappings", "[search]") {
  const contracts::Layer a = test::conv_layer(64, 64, 3, 3, 30, 30, 1, 1);   // X' = Y' = 30
  const contracts::Layer b = test::conv_layer(128, 64, 3, 3, 30, 30, 1, 1);  // K doubled: distance 1
  const contracts::Layer c = test::conv_layer(256, 256, 3, 3, 16, 16, 1, 1); // K ×4, C ×4, X'=Y'=16
  CHECK(mapper::layer_distance(a, b) == 1.0);
  // Groups count too: 4 groups of a's extents (C/4 = K/4 = 64) are log2 4 = 2 away from it.
  contracts::Layer a_grouped = test::conv_layer(256, 256, 3, 3, 30, 30, 1, 1);
  a_grouped.groups = 4;
  CHECK(mapper::layer_distance(a, a_grouped) == 2.0);
  // By hand: log2(256/64) = 2 for K and C, log2(30/16) for X' and Y'.
  const double xy = std::log2(30.0 / 16.0);
  CHECK(mapper::layer_distance(a, c) == Approx(std::sqrt(4 + 4 + 2 * xy * xy)).epsilon(1e-15));
  std::vector<mapper::SearchedLayer> history = {{b, {}}, {c, {}}};
  CHECK(mapper::warm_start_source(history, a, mapper::WarmStart::Previous) == &history[1]);
  CHECK(mapper::warm_start_source(history, a, mapper::WarmStart::Similar) == &history[0]);
  CHECK(mapper::warm_start_source(history, a, mapper::WarmStart::None) == nullptr);
  CHECK(mapper::warm_start_source({}, a, mapper::WarmStart::Similar) == nullptr);
  // Carried from c to a: sizes kept (clamped) and fold counts kept.
  contracts::Mapping tile;
  tile.tile.size = {3, 3, 16, 8, 1, 4, 1};
  history[1].best = {tile};
  const auto carried = mapper::carry_mappings(history[1], a);
  REQUIRE(carried.size() == 2);
  CHECK(carried[0].tile.size == std::array<std::int64_t, 7>{3, 3, 16, 8, 1, 4, 1});
  // Folds of c: C 256/16 = 16 → 64/16 = 4; K 256/8 = 32 → ⌈64/32⌉ = 2; X' 16/4 = 4 → ⌈30/4⌉ = 8;
  // Y' 16/1 = 16 → ⌈30/16⌉ = 2.
  CHECK(carried[1].tile.size == std::array<std::int64_t, 7>{3, 3, 4, 2, 1, 8, 2});
  // What a layer leaves to later ones: the best mapping of each of the 5 best fabric tiles. Seven fabric tiles,
  // two SDM variants each; by construction tile t's variants cost 10 + t and 10.5 + t cycles (energy 1), so by
  // hand the learnt mappings are the cheaper variant of tiles 0…4, in that order.
  std::vector<contracts::CostReport> costed;
  for (int t = 6; t >= 0; --t)
    for (const std::int64_t block : {std::int64_t(4), std::int64_t(2)}) {
      contracts::CostReport report;
      report.mapping.tile.size = {3, 3, 1 + t, 8, 1, 4, 1};
      report.mapping.sdm.blocked = true;
      report.mapping.sdm.block[0] = block;
      report.cycles.total = 10 + t + (block == 4 ? 0.5 : 0.0);
      report.energy_pj.total = 1;
      costed.push_back(report);
    }
  // Fabric tiles that differ in T_G alone are distinct tiles.
  {
    std::vector<contracts::CostReport> by_groups(2, costed.back());
    by_groups[1].mapping.tile.groups = 2;
    by_groups[1].cycles.total += 1;
    CHECK(mapper::best_of_fabric_tiles(by_groups, mapper::Objective::EnergyDelay, 5).size() == 2);
  }
  const auto learnt = mapper::learnt_mappings(costed, mapper::Objective::EnergyDelay);
  REQUIRE(learnt.size() == mapper::kLearntFabricTiles);
  for (std::size_t t = 0; t < learnt.size(); ++t) {
    CHECK(learnt[t].tile.size[contracts::kDimC] == std::int64_t(1 + t));
    CHECK(learnt[t].sdm.block[0] == 2);
  }
  // Reduced per run first (what explore and map keep), the learnt mappings are those of all runs together: checked
  // on 50 random splits of 400 random reports over 12 fabric tiles.
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<contracts::CostReport> all, reduced;
    std::vector<std::vector<contracts::CostReport>> runs(4);
    for (int i = 0; i < 400; ++i) {
      contracts::CostReport report;
      report.mapping.tile.size = {3, 3, 1 + std::int64_t(rng() % 12), 8, 1, 4, 1};
      report.mapping.sdm.blocked = true;
      report.mapping.sdm.block[0] = 1 + std::int64_t(i);  // every report a distinct mapping
      report.cycles.total = double(1 + rng() % 1000);
      report.energy_pj.total = 1;
      all.push_back(report);
      runs[rng() % runs.size()].push_back(report);
    }
    for (const auto& run : runs)
      for (const auto& report : mapper::best_of_fabric_tiles(run, mapper::Objective::EnergyDelay,
                                                             mapper::kLearntFabricTiles))
        reduced.push_back(report);
    CHECK(mapper::learnt_mappings(reduced, mapper::Objective::EnergyDelay) ==
          mapper::learnt_mappings(all, mapper::Objective::EnergyDelay));
  }
  CHECK(mapper::parse_warm_start("similar") == mapper::WarmStart::Similar);
  CHECK(mapper::parse_warm_start("nearest") == std::nullopt);
}
