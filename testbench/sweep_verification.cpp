// Co-simulation of a design point's decision (see sweep_verification.hpp).
#include "testbench/sweep_verification.hpp"

#include "codegen/config_image.hpp"
#include "flow/network_plan.hpp"
#include "sim/fabric_session.hpp"
#include "testbench/network_run.hpp"
#include "util/input_error.hpp"
#include "util/task_runner.hpp"

namespace maeri::testbench {
namespace {

// The model's activity counts against the RTL's, and the compute cycles of both, from a run's cross-check rows.
void read_rows(flow::LayerRtlCheck& check, const std::vector<CrossCheckRow>& rows) {
  check.counts_exact = true;
  for (const CrossCheckRow& row : rows) {
    if (row.kind == RowKind::ActivityCount && row.error() != 0) check.counts_exact = false;
    if (row.metric == kComputeCycles) {
      check.model_compute_cycles = row.model;
      check.rtl_compute_cycles = row.rtl;
    }
  }
}

// Every layer alone on the point's fabric, with the tensors `maeri verify` seeds for it.
flow::PointRtlCheck check_layers_alone(const flow::DesignPoint& point, const contracts::Network& network,
                                       MemoryRuns runs, std::uint64_t seed) {
  flow::PointRtlCheck check;
  const std::unique_ptr<sim::FabricSession> fabric = sim::open_fabric(codegen::image_hardware_of(point.hardware));
  for (std::size_t l = 0; l < network.layers.size() && l < point.chosen.size(); ++l) {
    const contracts::Layer& layer = network.layers[l];
    // Seeds per layer as `maeri verify` gives them, so a failing layer can be replayed there.
    const CoSimulation run = co_simulate(*fabric, layer, point.chosen[l].mapping, point.hardware, seed + 1000 * l, runs);
    flow::LayerRtlCheck result;
    result.layer = layer.name;
    result.pass = run.board.pass();
    result.outputs = run.board.compared;
    result.mismatches = run.board.mismatches;
    result.summary = run.board.summary();
    read_rows(result, run.rows);
    check.layers.push_back(result);
  }
  return check;
}

// The whole network chained as `maeri verify --chain --mapping` runs the point's decision: seeded weights and input,
// every tensor the fabric and the unit produce compared with the integer reference, fused groups run fused.
flow::PointRtlCheck check_chained(const flow::DesignPoint& point, const contracts::Network& network, MemoryRuns runs,
                                  std::uint64_t seed, const std::string& workload_path) {
  flow::PointRtlCheck check;
  NetworkRunOptions options;
  options.layers.hardware_path = point.hardware.name;
  options.layers.seed = seed;
  options.layers.memory = runs;
  options.layers.shards = 1;
  options.workload_path = workload_path;
  try {
    const PreparedNetwork prepared = prepare_network_run(network, point.hardware, {}, options, true);
    const contracts::NetworkPlan plan = flow::plan_decision(prepared.network(), point.hardware, point.decision,
                                                            workload_path);
    util::InProcessRunner runner;
    const NetworkRunResult result =
        execute_network_run(prepared, plan, options, runner, [](const NetworkRunResult&, const OperatorRun&) {}, false);
    for (const contracts::Layer& layer : network.layers) {
      flow::LayerRtlCheck layer_check;
      layer_check.layer = layer.name;
      layer_check.summary = "not run: the chain stopped at an earlier tensor that differs";
      for (const OperatorRun& run : result.operators)
        if (run.where == "fabric" && run.name == layer.name) {
          layer_check.pass = run.pass;
          layer_check.outputs = run.compared;
          layer_check.mismatches = run.differing;
          layer_check.summary = run.verdict;
          read_rows(layer_check, run.rows);
        }
      check.layers.push_back(layer_check);
    }
  } catch (const util::InputError& error) {
    check.error = error.what();
  }
  return check;
}

}  // namespace

flow::PointRtlCheck check_point_on_rtl(const flow::DesignPoint& point, const contracts::Network& network,
                                       MemoryRuns runs, std::uint64_t seed, const std::string& workload_path) {
  if (point.decision.fused_groups.empty()) return check_layers_alone(point, network, runs, seed);
  return check_chained(point, network, runs, seed, workload_path);
}

}  // namespace maeri::testbench
