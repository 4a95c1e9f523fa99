// Co-simulation of a design point's best mappings (see sweep_verification.hpp).
#include "testbench/sweep_verification.hpp"

#include "codegen/config_image.hpp"
#include "sim/fabric_session.hpp"

namespace maeri::testbench {

flow::PointRtlCheck check_point_on_rtl(const flow::DesignPoint& point, const contracts::Network& network,
                                         MemoryRuns runs, std::uint64_t seed) {
  flow::PointRtlCheck check;
  const std::unique_ptr<sim::FabricSession> fabric = sim::open_fabric(codegen::image_hardware_of(point.hardware));
  for (std::size_t l = 0; l < network.layers.size() && l < point.best.size(); ++l) {
    const contracts::Layer& layer = network.layers[l];
    // Seeds per layer as `maeri verify` gives them, so a failing layer can be replayed there.
    const CoSimulation run = co_simulate(*fabric, layer, point.best[l].mapping, point.hardware, seed + 1000 * l, runs);
    flow::LayerRtlCheck result;
    result.layer = layer.name;
    result.pass = run.board.pass();
    result.outputs = run.board.compared;
    result.mismatches = run.board.mismatches;
    result.summary = run.board.summary();
    result.counts_exact = true;
    for (const CrossCheckRow& row : run.rows) {
      if (row.kind == RowKind::ActivityCount && row.error() != 0) result.counts_exact = false;
      if (row.metric == kComputeCycles) {
        result.model_compute_cycles = row.model;
        result.rtl_compute_cycles = row.rtl;
      }
    }
    check.layers.push_back(result);
  }
  return check;
}

}  // namespace maeri::testbench
