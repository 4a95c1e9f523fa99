// Calibration on real co-simulation runs (the tiny network on maeri-64, SystemC + Verilated fabric with the SDM
// and DRAM models): the activity counts need no fitting, the held-out cycle error never gets worse, and a model
// file with wrong parameters is brought back to the co-simulation's cycles on layers the fit never saw.
#include <catch2/catch.hpp>

#include "codegen/image_program.hpp"
#include "mapper/spec_loader.hpp"
#include "testbench/calibration.hpp"

using namespace maeri;

TEST_CASE("calibration on co-simulated runs: exact counts, held-out error not worse, wrong parameters repaired",
          "[rtl][calibration]") {
  mapper::Hardware hardware = mapper::load_hardware(std::string(MAERI_SOURCE_DIR) + "/configs/hardware/maeri-64.yaml");
  const mapper::Network network = mapper::load_workload(std::string(MAERI_SOURCE_DIR) + "/configs/workloads/tiny.yaml");
  const auto fabric = sim::open_fabric(codegen::image_hardware_of(hardware));
  testbench::CalibrationPlan plan;
  plan.holdout = {"conv2", "fc"};
  const std::vector<testbench::CalibrationCase> cases =
      testbench::co_simulate_cases(*fabric, network, hardware, plan, nullptr);
  REQUIRE(cases.size() == 24);  // 4 layers x (3 top + 3 spread)
  for (const auto& c : cases) {
    INFO(c.layer.name << " " << mapper::to_string(c.tile));
    CHECK(c.bit_exact);
    CHECK(c.count_metrics == 13);
    CHECK(c.count_max_error_percent == 0);  // activity counts are exact without any fitting
  }
  const std::vector<mapper::FitSample> samples = testbench::fit_samples(cases);
  REQUIRE(samples.size() == 12);

  // The shipped file (the RTL's nominal values): compute cycles exact, and whatever the selection does, the
  // held-out cycles with DRAM are predicted no worse than before.
  {
    const mapper::ModelSelection selection =
        mapper::select_and_fit(hardware, samples, mapper::default_calibration_parameters());
    mapper::Hardware calibrated = hardware;
    calibrated.model = selection.fit.parameters;
    const auto before = testbench::cycle_error(cases, hardware, true, testbench::CycleMetric::Total);
    const auto after = testbench::cycle_error(cases, calibrated, true, testbench::CycleMetric::Total);
    CHECK(testbench::cycle_error(cases, hardware, true, testbench::CycleMetric::Compute).max_percent == 0);
    CHECK(before.mape_percent <= 5);  // the target for the uncalibrated model
    CHECK(after.mape_percent <= before.mape_percent);
  }

  // A file whose parameters are wrong (a 2-word config port, controller overheads, 60 % DRAM efficiency): the
  // error on the held-out layers is large before, and within 1 % after calibrating on the other two layers.
  mapper::Hardware wrong = hardware;
  wrong.model.step_overhead = 1;
  wrong.model.phase_overhead = 3;
  wrong.model.config_words_per_cycle = 2;
  wrong.model.dram_efficiency = 0.6;
  const mapper::ModelSelection selection =
      mapper::select_and_fit(wrong, samples, mapper::default_calibration_parameters());
  mapper::Hardware calibrated = wrong;
  calibrated.model = selection.fit.parameters;
  const auto before = testbench::cycle_error(cases, wrong, true, testbench::CycleMetric::Total);
  const auto after = testbench::cycle_error(cases, calibrated, true, testbench::CycleMetric::Total);
  INFO("held-out cycle MAPE " << before.mape_percent << " % before, " << after.mape_percent << " % after");
  CHECK(before.mape_percent > 20);
  CHECK(after.mape_percent <= 1);
  CHECK(calibrated.model.config_words_per_cycle == Approx(1).epsilon(0.01));  // the RTL writes one word a cycle
  CHECK(calibrated.model.step_overhead < 0.05);
  CHECK(calibrated.model.phase_overhead < 0.5);
}
