// The network plan (flow/network_plan.hpp, contracts/network_plan.hpp): every decision of a run made once — each
// layer's best mappings as `maeri map` finds them, in rank order, each with the image that runs it; a whole network as
// map decides it, fused groups included — and a mapping file's mappings and fused groups, checked before anything
// runs.
#include <catch2/catch.hpp>

#include "codegen/config_image.hpp"
#include "contracts/mapping_file.hpp"
#include "contracts/spec_loader.hpp"
#include "flow/layer_mappings.hpp"
#include "flow/map_decision.hpp"
#include "flow/network_plan.hpp"
#include "util/input_error.hpp"

#include "temp_file.hpp"

using namespace maeri;

namespace {

const char* const kTiny = MAERI_SOURCE_DIR "/configs/workloads/tiny.yaml";

contracts::Hardware maeri_64() { return contracts::load_hardware(MAERI_SOURCE_DIR "/configs/hardware/maeri-64.yaml"); }

}  // namespace

TEST_CASE("network plan: each layer's best mappings in rank order, each with its image", "[flow]") {
  const contracts::Hardware hardware = maeri_64();
  const contracts::Network network = contracts::load_workload(kTiny);
  flow::PlanOptions options;
  options.workload_path = kTiny;
  options.top = 2;
  const contracts::NetworkPlan plan = flow::plan_network(network, hardware, options);
  CHECK(plan.source == contracts::PlanSource::Searched);
  CHECK(plan.origin.empty());
  CHECK(plan.groups.empty());
  std::size_t run = 0;
  for (std::size_t l = 0; l < network.layers.size(); ++l) {
    const contracts::Layer& layer = network.layers[l];
    const mapper::SearchResult best = flow::best_mappings(layer, hardware, mapper::Objective::Runtime, 2);
    REQUIRE(plan.best_run(l) == &plan.runs[run]);
    for (std::size_t rank = 0; rank < best.best.size(); ++rank, ++run) {
      INFO(layer.name << " rank " << rank);
      const contracts::PlannedRun& planned = plan.runs.at(run);
      CHECK(planned.layer.name == layer.name);
      CHECK(planned.position == l);
      CHECK(planned.rank == int(rank));
      CHECK(contracts::to_string(planned.mapping) == contracts::to_string(best.best[rank].mapping));
      CHECK(planned.source == layer.name + ".mimg");
      CHECK(planned.error.empty());
      // The image as a user ships it: of this layer and mapping, alone (no fused record).
      const codegen::ConfigImage image = codegen::decode_image(planned.image, planned.source);
      CHECK(image.layer.name == layer.name);
      CHECK(contracts::to_string(image.mapping) == contracts::to_string(planned.mapping));
      CHECK(!image.fused);
    }
  }
  CHECK(run == plan.runs.size());
}

TEST_CASE("network plan: a searched whole network runs the decision `maeri map` reports, fused groups included",
          "[flow]") {
  // The expected decision is map's own (flow::WorkloadMapping with the options `maeri map` starts from), costed once
  // here and compared run by run and group by group with the plan the chained run executes.
  const contracts::Hardware hardware = maeri_64();
  const contracts::Network network = contracts::load_workload(kTiny);
  flow::WorkloadMapping mapped(network, hardware, flow::map_decision_options(mapper::Objective::Runtime, true, kTiny));
  mapped.map(network.layers, [](const flow::MappedLayer&) {});
  const contracts::MappingFile& decided = mapped.mapping_file();
  REQUIRE(!decided.fused_groups.empty());  // tiny on maeri-64 forms a fused group (map's table): a real group

  flow::PlanOptions options;
  options.workload_path = kTiny;
  options.fused_groups = true;
  const contracts::NetworkPlan plan = flow::plan_network(network, hardware, options);
  CHECK(plan.source == contracts::PlanSource::Searched);
  REQUIRE(plan.runs.size() == network.layers.size());
  for (std::size_t l = 0; l < network.layers.size(); ++l) {
    INFO(network.layers[l].name);
    CHECK(contracts::to_string(plan.runs[l].mapping) ==
          contracts::to_string(contracts::tile_for_layer(decided, "map", network.layers[l], hardware)));
    CHECK(codegen::decode_image(plan.runs[l].image, plan.runs[l].source).fused.has_value() ==
          (plan.group_of(l) != nullptr));
  }
  REQUIRE(plan.groups.size() == decided.fused_groups.size());
  for (std::size_t g = 0; g < plan.groups.size(); ++g) {
    CHECK(plan.groups[g].name == decided.fused_groups[g].name);
    CHECK(plan.groups[g].count == decided.fused_groups[g].layers.size());
  }

  // The same decision held in memory (`maeri sweep --verify`'s point): the same runs, images and groups.
  const contracts::NetworkPlan held = flow::plan_decision(network, hardware, decided, kTiny);
  REQUIRE(held.runs.size() == plan.runs.size());
  for (std::size_t r = 0; r < plan.runs.size(); ++r) {
    CHECK(held.runs[r].mapping == plan.runs[r].mapping);
    CHECK(held.runs[r].image == plan.runs[r].image);
  }
  REQUIRE(held.groups.size() == plan.groups.size());
  for (std::size_t g = 0; g < plan.groups.size(); ++g) {
    CHECK(held.groups[g].name == plan.groups[g].name);
    CHECK(held.groups[g].roles == plan.groups[g].roles);
  }

  // --no-fusion (fused_groups false): every layer alone, its own best.
  options.fused_groups = false;
  const contracts::NetworkPlan alone = flow::plan_network(network, hardware, options);
  CHECK(alone.groups.empty());
  for (const contracts::PlannedRun& run : alone.runs) CHECK(!codegen::decode_image(run.image, run.source).fused);
}

TEST_CASE("network plan: one layer, a mapping file's mappings, and the input errors before anything runs", "[flow]") {
  const contracts::Hardware hardware = maeri_64();
  const contracts::Network network = contracts::load_workload(kTiny);
  flow::PlanOptions options;
  options.workload_path = kTiny;
  options.layer = "conv2";
  const contracts::NetworkPlan one = flow::plan_network(network, hardware, options);
  REQUIRE(one.runs.size() == 1);
  CHECK(one.runs[0].layer.name == "conv2");
  CHECK(one.runs[0].position == 0);  // its place among the layers planned: the seed of its tensors

  options.layer = "no-such-layer";
  CHECK_THROWS_AS(flow::plan_network(network, hardware, options), util::InputError);

  // A mapping file that lists every layer: the plan takes its mappings, best first, and says where they came from.
  contracts::MappingFile file = contracts::mapping_file_for(hardware, network.name, "runtime");
  options.layer.clear();
  for (const contracts::Layer& layer : network.layers)
    file.layers.push_back(
        {layer, flow::best_mappings(layer, hardware, mapper::Objective::Runtime, 1).best.front().mapping, 0, 0});
  const test::TempDir directory;
  const std::string path = directory / "tiny.mapping.yaml";
  contracts::write_mapping_file(path, file);
  options.mapping_path = path;
  const contracts::NetworkPlan from_file = flow::plan_network(network, hardware, options);
  CHECK(from_file.source == contracts::PlanSource::MappingFile);
  CHECK(from_file.origin == path);
  REQUIRE(from_file.runs.size() == network.layers.size());
  for (std::size_t l = 0; l < network.layers.size(); ++l)
    CHECK(contracts::to_string(from_file.runs[l].mapping) == contracts::to_string(file.layers[l].mapping));
}
