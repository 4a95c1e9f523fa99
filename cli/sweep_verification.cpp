// Co-simulation of a design point's best mappings (see sweep_verification.hpp).
#include "cli/sweep_verification.hpp"

#include "codegen/config_image.hpp"
#include "sim/fabric_session.hpp"

namespace maeri::cli {

bool PointRtlCheck::pass() const {
  if (!error.empty() || layers.empty()) return false;
  for (const LayerRtlCheck& layer : layers)
    if (!layer.pass || !layer.counts_exact) return false;
  return true;
}

std::string PointRtlCheck::status() const { return !error.empty() ? "ERROR" : pass() ? "PASS" : "FAIL"; }

testbench::MemoryRuns memory_runs_named(const std::string& name) {
  return name == "ideal" ? testbench::MemoryRuns::Ideal
         : name == "dram" ? testbench::MemoryRuns::Dram
                          : testbench::MemoryRuns::Both;
}

PointRtlCheck check_point_on_rtl(const mapper::DesignPoint& point, const contracts::Network& network,
                                 testbench::MemoryRuns runs, std::uint64_t seed) {
  PointRtlCheck check;
  const std::unique_ptr<sim::FabricSession> fabric = sim::open_fabric(codegen::image_hardware_of(point.hardware));
  for (std::size_t l = 0; l < network.layers.size() && l < point.best.size(); ++l) {
    const contracts::Layer& layer = network.layers[l];
    // Seeds per layer as `maeri verify` gives them, so a failing layer can be replayed there.
    const testbench::CoSimulation run =
        testbench::co_simulate(*fabric, layer, point.best[l].mapping, point.hardware, seed + 1000 * l, runs);
    LayerRtlCheck result;
    result.layer = layer.name;
    result.pass = run.board.pass();
    result.outputs = run.board.compared;
    result.mismatches = run.board.mismatches;
    result.summary = run.board.summary();
    result.counts_exact = true;
    for (const testbench::CrossCheckRow& row : run.rows) {
      if (row.kind == testbench::RowKind::ActivityCount && row.error() != 0) result.counts_exact = false;
      if (row.metric == testbench::kComputeCycles) {
        result.model_compute_cycles = row.model;
        result.rtl_compute_cycles = row.rtl;
      }
    }
    check.layers.push_back(result);
  }
  return check;
}

nlohmann::json to_json(const PointRtlCheck& check) {
  nlohmann::json layers = nlohmann::json::array();
  for (const LayerRtlCheck& l : check.layers)
    layers.push_back({{"layer", l.layer},
                      {"pass", l.pass},
                      {"outputs", l.outputs},
                      {"mismatches", l.mismatches},
                      {"counts_exact", l.counts_exact},
                      {"model_compute_cycles", l.model_compute_cycles ? nlohmann::json(*l.model_compute_cycles) : nullptr},
                      {"rtl_compute_cycles", l.rtl_compute_cycles ? nlohmann::json(*l.rtl_compute_cycles) : nullptr},
                      {"summary", l.summary}});
  nlohmann::json json = {{"status", check.status()}, {"layers", layers}};
  if (!check.error.empty()) json["error"] = check.error;
  return json;
}

PointRtlCheck point_rtl_check_from_json(const nlohmann::json& json) {
  PointRtlCheck check;
  check.error = json.value("error", std::string());
  for (const nlohmann::json& l : json.at("layers")) {
    LayerRtlCheck layer;
    layer.layer = l.at("layer").get<std::string>();
    layer.pass = l.at("pass").get<bool>();
    layer.outputs = l.at("outputs").get<std::int64_t>();
    layer.mismatches = l.at("mismatches").get<std::int64_t>();
    layer.counts_exact = l.at("counts_exact").get<bool>();
    if (!l.at("model_compute_cycles").is_null()) layer.model_compute_cycles = l.at("model_compute_cycles").get<double>();
    if (!l.at("rtl_compute_cycles").is_null()) layer.rtl_compute_cycles = l.at("rtl_compute_cycles").get<double>();
    layer.summary = l.at("summary").get<std::string>();
    check.layers.push_back(layer);
  }
  return check;
}

}  // namespace maeri::cli
