// A layer's runs on given tensors through NetworkVerification (the library under `maeri verify --input/--weights`
// and the chained runs): cut into shards, co-simulated in child processes on the Verilated maeri-64, merged on "rank
// 0"; the merged output equals codegen::reference_convolution of the given tensors bit for bit, and the verdict is
// against the caller's reference when one is given.
#include <catch2/catch.hpp>

#include "codegen/functional_model.hpp"
#include "contracts/spec_loader.hpp"
#include "flow/network_plan.hpp"
#include "testbench/network_verification.hpp"
#include "util/process_pool.hpp"

#include "child_processes.hpp"

using namespace maeri;

namespace {

using test::ChildProcesses;  // tests/rtl/child_processes.hpp

testbench::NetworkVerificationOptions conv1_options() {
  testbench::NetworkVerificationOptions options;
  options.hardware_path = MAERI_SOURCE_DIR "/configs/hardware/maeri-64.yaml";
  options.memory = testbench::MemoryRuns::Ideal;
  options.shards = 3;
  return options;
}

// Layer conv1 of tiny, its best mapping as `maeri map` finds it.
contracts::NetworkPlan conv1_plan() {
  flow::PlanOptions options;
  options.workload_path = MAERI_SOURCE_DIR "/configs/workloads/tiny.yaml";
  options.layer = "conv1";
  return flow::plan_workload(options.workload_path, {},
                             contracts::load_hardware(MAERI_SOURCE_DIR "/configs/hardware/maeri-64.yaml"), options);
}

}  // namespace

TEST_CASE("runs on given tensors: the merged output is their reference convolution, a caller's reference decides",
          "[rtl][tensors]") {
  const contracts::Hardware hardware = contracts::load_hardware(MAERI_SOURCE_DIR "/configs/hardware/maeri-64.yaml");
  const contracts::Network network = contracts::load_workload(MAERI_SOURCE_DIR "/configs/workloads/tiny.yaml");
  const contracts::Layer& conv1 = network.layers.at(0);
  REQUIRE(conv1.name == "conv1");
  // Activations as a ReLU leaves them (zeros and small non-negative values), unlike seeded uniform noise.
  codegen::LayerTensors tensors = codegen::random_tensors(conv1, hardware.data_width, 99);
  for (std::int64_t& value : tensors.input) value = value < 0 ? 0 : value % 64;
  const std::vector<std::int64_t> reference = codegen::reference_convolution(conv1, tensors, hardware.acc_width);

  ChildProcesses runner;
  int runs = 0;
  const auto count = [&](const testbench::VerifiedRun& run) {
    CHECK(run.errors.empty());
    ++runs;
  };
  {
    testbench::NetworkVerification verification(conv1_plan(), conv1_options(), true);
    verification.use_tensors("conv1", tensors);
    verification.keep_output();
    verification.cut_shards(runner);
    CHECK(verification.shards() == 3);
    verification.run(runner, count, false);
    CHECK(verification.passed() == 1);
    CHECK(verification.output_tensor() == reference);
  }
  {
    // The caller's reference with one value off: the run fails, and the output is still the fabric's.
    std::vector<std::int64_t> wrong = reference;
    wrong[17] += 1;
    testbench::NetworkVerification verification(conv1_plan(), conv1_options(), true);
    verification.use_tensors("conv1", tensors, wrong);
    verification.keep_output();
    verification.cut_shards(runner);
    verification.run(runner, count, false);
    CHECK(verification.failed() == 1);
    CHECK(verification.output_tensor() == reference);
  }
  CHECK(runs == 2);

  testbench::NetworkVerification verification(conv1_plan(), conv1_options(), true);
  CHECK_THROWS_AS(verification.use_tensors("fc", tensors), std::invalid_argument);
  codegen::LayerTensors short_input = tensors;
  short_input.input.pop_back();
  CHECK_THROWS_AS(verification.use_tensors("conv1", short_input), std::invalid_argument);
}
