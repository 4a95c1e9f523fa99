// Sharded co-simulation on the Verilated maeri-64: a layer cut into shards by filter tile, each shard played
// separately on the fabric, passed through its byte form (as it comes back from a child process or an MPI rank)
// and merged, gives bit for bit the outputs of the unsharded run (and of the reference convolution), and the
// same activity counts; only the per-run cycles differ (each shard configures and fills the fabric itself).
#include <catch2/catch.hpp>

#include "codegen/image_program.hpp"
#include "mapper/search/search.hpp"
#include "sim/fabric_session.hpp"
#include "contracts/spec_loader.hpp"
#include "testbench/shard_run.hpp"

using namespace maeri;

TEST_CASE("sharded co-simulation merges to the unsharded run bit for bit", "[rtl][shards]") {
  const contracts::Hardware hardware = contracts::load_hardware(MAERI_SOURCE_DIR "/configs/hardware/maeri-64.yaml");
  const contracts::Network network = contracts::load_workload(MAERI_SOURCE_DIR "/configs/workloads/tiny.yaml");
  auto fabric = sim::open_fabric(codegen::image_hardware_of(hardware));
  int layers_with_several_shards = 0;
  for (const contracts::Layer& layer : network.layers) {
    const contracts::Mapping tile = mapper::search(layer, hardware, {}).best.front().mapping;
    INFO("layer " << layer.name << " tile " << contracts::to_compact_string(tile.tile));
    const codegen::LayerProgram program = codegen::plan_layer(layer, hardware, tile);
    const codegen::LayerTensors tensors = codegen::random_tensors(layer, hardware.data_width, 7);
    const auto whole = testbench::co_simulate_shard(*fabric, program, codegen::cut_shards(program, 1).front(),
                                                    tensors, hardware, testbench::MemoryRuns::Both);
    const codegen::ConfigImage image = codegen::build_image(program, hardware);
    std::vector<testbench::ShardRun> runs;
    const auto shards = codegen::cut_shards(program, 3);
    layers_with_several_shards += shards.size() > 1;
    for (const codegen::ProgramShard& shard : shards) {
      // The worker's way: only the shard's phases expanded from the image; equal to cutting the whole program.
      const codegen::LayerProgram part = testbench::expand_image_shard(image, "image", shard);
      const codegen::LayerProgram cut = codegen::shard_program(program, shard);
      REQUIRE(part.phases.size() == cut.phases.size());
      for (std::size_t p = 0; p < part.phases.size(); ++p) {
        CHECK(part.phases[p].k0 == cut.phases[p].k0);
        CHECK(part.phases[p].c0 == cut.phases[p].c0);
        CHECK(part.phases[p].steps.size() == cut.phases[p].steps.size());
      }
      runs.push_back(testbench::decode_shard_run(testbench::encode_shard_run(
          testbench::co_simulate_shard(*fabric, part, shard, tensors, hardware, testbench::MemoryRuns::Both))));
    }
    const testbench::MergedRun merged = testbench::merge_shard_runs(layer, tile, hardware, tensors, 0, runs);
    const testbench::MergedRun single = testbench::merge_shard_runs(layer, tile, hardware, tensors, 0, {whole});
    CHECK(merged.result.board.pass());
    CHECK(single.result.board.pass());
    CHECK(merged.result.ideal->output == whole.ideal->output);
    CHECK(merged.result.with_memory->output == whole.with_memory->output);
    CHECK(merged.output_sha256 == single.output_sha256);
    for (const auto& counter : sim::kActivityCounters) {
      if (std::string(counter.name) == "cycles") continue;  // per run: not additive
      INFO("counter " << counter.name);
      CHECK(merged.result.ideal->counters.*counter.field == whole.ideal->counters.*counter.field);
    }
    REQUIRE(merged.result.rows.size() == single.result.rows.size());
    for (std::size_t r = 0; r < merged.result.rows.size(); ++r)
      if (testbench::exact_after_merge(merged.result.rows[r].metric)) {
        INFO("metric " << merged.result.rows[r].metric);
        CHECK(merged.result.rows[r].rtl == single.result.rows[r].rtl);
      }
    if (shards.size() > 1) CHECK(merged.result.ideal->cycles > whole.ideal->cycles);  // fill/drain per shard
  }
  CHECK(layers_with_several_shards >= 3);
}
