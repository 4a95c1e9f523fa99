// The ship-and-run chain for one mapping (see co_simulation.hpp).
#include "testbench/co_simulation.hpp"

#include <string>

#include "codegen/exact_traffic.hpp"
#include "codegen/image_program.hpp"
#include "mapper/model/cost_model.hpp"
#include "timing/memory_replay.hpp"

namespace maeri::testbench {

MemoryRuns memory_runs_named(const std::string& name) {
  return name == "ideal" ? MemoryRuns::Ideal : name == "dram" ? MemoryRuns::Dram : MemoryRuns::Both;
}

CoSimulation co_simulate(sim::FabricSession& fabric, const contracts::Layer& layer, const contracts::Mapping& tile,
                         const contracts::Hardware& hardware, std::uint64_t seed, MemoryRuns runs) {
  CoSimulation result;
  const std::string source = layer.name + ".mimg";
  const std::vector<std::uint8_t> bytes =
      codegen::encode_image(codegen::build_image(codegen::plan_layer(layer, hardware, tile), hardware));
  result.image_bytes = bytes.size();
  const codegen::LayerProgram program = codegen::expand_image(codegen::decode_image(bytes, source), source);
  const codegen::LayerTensors tensors = codegen::random_tensors(layer, hardware.data_width, seed);
  const std::vector<std::int64_t> reference = codegen::reference_convolution(layer, tensors, hardware.acc_width);
  if (runs != MemoryRuns::Dram) result.ideal = fabric.run(program, tensors);
  if (runs != MemoryRuns::Ideal) result.with_memory = fabric.run_with_memory(program, tensors, hardware);
  score_and_cross_check(result, layer, tile, hardware, tensors, reference);
  return result;
}

void score_and_cross_check(CoSimulation& result, const contracts::Layer& layer, const contracts::Mapping& tile,
                           const contracts::Hardware& hardware, const codegen::LayerTensors& tensors,
                           const std::vector<std::int64_t>& reference) {
  if (result.ideal) result.board = score_outputs(layer, reference, result.ideal->output);
  if (result.with_memory && (!result.ideal || result.board.pass()))
    result.board = score_outputs(layer, reference, result.with_memory->output);
  contracts::CostReport model = mapper::evaluate(layer, hardware, tile);
  codegen::refine_with_exact_traffic(model, layer, hardware);
  if (result.with_memory) timing::refine_with_memory_replay(model, codegen::plan_layer(layer, hardware, tile), tensors, hardware);
  result.rows = cross_check(model, {result.ideal ? &*result.ideal : nullptr,
                                    result.with_memory ? &*result.with_memory : nullptr},
                            hardware);
}

}  // namespace maeri::testbench
