// The post-processing unit's analytical model on cases counted by hand, and the hardware spec's post_processing
// section and energies: the default of a file without them, explicit values, and energy of the counts.
#include <catch2/catch.hpp>

#include <string>

#include "contracts/spec_loader.hpp"
#include "mapper/model/post_processing_model.hpp"

using namespace maeri::contracts;
using maeri::mapper::post_processing_counts;

namespace {

Operator operator_of(OperatorKind kind) {
  Operator op;
  op.name = "op";
  op.kind = kind;
  return op;
}

}  // namespace

TEST_CASE("post-processing model: element-wise kinds stream lanes elements per cycle", "[model][post_processing]") {
  const PostProcessingSpec unit{3, 2};
  // 4 accumulators at 3 lanes: 2 beats, then a latency of 2; each one bias addition, one product, one shift and a
  // two-sided saturation.
  const PostProcessingCounts epilogue =
      post_processing_counts(operator_of(OperatorKind::FabricLayer), {{1, 2, 1, 2}}, {1, 2, 1, 2}, unit);
  CHECK(epilogue.cycles == 4);
  CHECK(epilogue.elements_read == 4);
  CHECK(epilogue.elements_written == 4);
  CHECK(epilogue.additions == 4);
  CHECK(epilogue.multiplications == 4);
  CHECK(epilogue.shifts == 4);
  CHECK(epilogue.comparisons == 8);
  // An add reads both inputs: 7 outputs at 3 lanes are 3 beats.
  const PostProcessingCounts add = post_processing_counts(operator_of(OperatorKind::Add), {{7}, {7}}, {7}, unit);
  CHECK(add.cycles == 5);
  CHECK(add.elements_read == 14);
  CHECK(add.multiplications == 14);
  CHECK(add.additions == 7);
  // Reshape moves nothing.
  const PostProcessingCounts reshape =
      post_processing_counts(operator_of(OperatorKind::Reshape), {{1, 2, 2, 2}}, {1, 8}, unit);
  CHECK(reshape.cycles == 0);
  CHECK(reshape.elements_read == 0);
}

TEST_CASE("post-processing model: pools pipeline planes through a read and a write stage", "[model][post_processing]") {
  Operator pool = operator_of(OperatorKind::MaxPool);
  pool.pool.size_x = pool.pool.size_y = pool.pool.stride_x = pool.pool.stride_y = 2;
  // Two 4x4 planes at 4 lanes: plane 0 is read in cycles 1-4 and written in cycle 5, plane 1 read in 5-8 and
  // written in 9; latency 1: 10 cycles. Every 2x2 window has 3 comparisons: 2 planes x 4 windows x 3.
  const PostProcessingCounts counts = post_processing_counts(pool, {{1, 2, 4, 4}}, {1, 2, 2, 2}, {4, 1});
  CHECK(counts.cycles == 10);
  CHECK(counts.elements_read == 32);
  CHECK(counts.elements_written == 8);
  CHECK(counts.comparisons == 24);
  // 3x3 windows, stride 2, padding 1 on a 3x3 plane: each of the 4 windows holds 4 elements inside the tensor.
  Operator average = operator_of(OperatorKind::AveragePool);
  average.pool = {3, 3, 2, 2, 1, 1};
  const PostProcessingCounts mean = post_processing_counts(average, {{1, 1, 3, 3}}, {1, 1, 2, 2}, {4, 3});
  CHECK(mean.cycles == 3 + 1 + 3);
  CHECK(mean.additions == 12);
  CHECK(mean.divisions == 4);
  // A window entirely in the padding has nothing to pool.
  average.pool = {1, 1, 1, 1, 1, 1};
  CHECK_THROWS_AS(post_processing_counts(average, {{1, 1, 2, 2}}, {1, 1, 4, 4}, {4, 3}), std::invalid_argument);
}

TEST_CASE("post-processing model: softmax rows pass three stages", "[model][post_processing]") {
  // 2 rows of 3 classes at 2 lanes: 2 beats per stage, (2 + 2) x 2 beats, latency 1.
  const PostProcessingCounts counts =
      post_processing_counts(operator_of(OperatorKind::Softmax), {{1, 3, 1, 2}}, {1, 3, 1, 2}, {2, 1});
  CHECK(counts.cycles == 9);
  CHECK(counts.comparisons == 4);
  CHECK(counts.additions == 10);
  CHECK(counts.lookups == 6);
  CHECK(counts.divisions == 6);
}

TEST_CASE("post-processing section: default lanes = rn_bw, latency 4; explicit values; energies", "[spec][post_processing]") {
  const std::string base = R"(kind: hardware
name: hw
num_ms: 64
dn_bw: 16
rn_bw: 8
data_width: 16
acc_width: 32
clock_mhz: 200
sdm: {capacity_kib: 64}
dram: {bytes_per_cycle: 16, latency_cycles: 100}
energy_pj: {multiply: 0.8, add: 0.1, dn_hop: 0.15, mn_hop: 0.05, rn_hop: 0.3, mn_forward: 0.05, sdm_read: 5,
            sdm_write: 5, dram_byte: 160)";
  const Hardware old = hardware_from_yaml(YAML::Load(base + "}\n"), "old.yaml");
  CHECK(old.post_processing.lanes == 8);
  CHECK(old.post_processing.latency == kDefaultPostProcessingLatency);
  CHECK(old.energy_pj.ppu_multiply == EnergyTable{}.ppu_multiply);

  const Hardware given =
      hardware_from_yaml(YAML::Load(base + ", ppu_divide: 2}\npost_processing: {lanes: 3, latency: 0}\n"), "new.yaml");
  CHECK(given.post_processing.lanes == 3);
  CHECK(given.post_processing.latency == 0);
  CHECK(given.energy_pj.ppu_divide == 2);

  // Energy: 10 reads and 5 writes at the SDM's 5 pJ, 5 divisions at 2 pJ.
  PostProcessingCounts counts;
  counts.elements_read = 10;
  counts.elements_written = 5;
  counts.divisions = 5;
  CHECK(post_processing_energy_pj(counts, given.energy_pj) == Approx(85));

  for (const char* name : {"maeri-64", "maeri-256", "maeri-512", "maeri-1024"}) {
    const Hardware shipped = load_hardware(std::string(MAERI_SOURCE_DIR) + "/configs/hardware/" + name + ".yaml");
    CHECK(shipped.post_processing.lanes == shipped.rn_bw);
  }
}
