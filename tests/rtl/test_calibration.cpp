// Calibration on real co-simulation runs (the tiny network on maeri-64, SystemC + Verilated fabric with the SDM
// and DRAM models): the activity counts need no fitting, the held-out cycle error never gets worse, and a model
// file with wrong parameters is brought back to the co-simulation's cycles on layers the fit never saw; and which
// cases a budget of co-simulated cycles admits.
#include <catch2/catch.hpp>

#include <algorithm>

#include "codegen/image_program.hpp"
#include "contracts/spec_loader.hpp"
#include "calibration/calibration.hpp"
#include "calibration/hardware_calibration.hpp"
#include "mapper/model/cost_model.hpp"

using namespace maeri;

namespace {

struct Calibrated {
  contracts::Hardware hardware;
  calibration::CycleError before, after;  // held-out cycles with DRAM
};

// Selects and fits the default parameters on the fitting cases, starting from `start`.
Calibrated calibrate(const contracts::Hardware& start, const std::vector<calibration::CalibrationCase>& cases) {
  Calibrated result{start, {}, {}};
  result.hardware = calibration::calibrate_hardware(start, cases, calibration::default_calibration_parameters(),
                                                    /*select=*/true, /*min_gain=*/0.1)
                        .calibrated;
  result.before = calibration::cycle_error(cases, start, {true}, calibration::CycleMetric::Total);
  result.after = calibration::cycle_error(cases, result.hardware, {true}, calibration::CycleMetric::Total);
  return result;
}

}  // namespace

TEST_CASE("calibration on co-simulated runs: exact counts, held-out error not worse, wrong parameters repaired",
          "[rtl][calibration]") {
  const contracts::Hardware hardware = contracts::load_hardware(std::string(MAERI_SOURCE_DIR) + "/configs/hardware/maeri-64.yaml");
  const contracts::Network network = contracts::load_workload(std::string(MAERI_SOURCE_DIR) + "/configs/workloads/tiny.yaml");
  const auto fabric = sim::open_fabric(codegen::image_hardware_of(hardware));
  calibration::CalibrationPlan plan;
  plan.holdout = {"conv2", "fc"};
  const std::vector<calibration::CalibrationCase> cases = calibration::co_simulate_cases(
      *fabric, network, hardware, calibration::planned_cases(network, hardware, plan), nullptr);
  REQUIRE(cases.size() == 24);  // 4 layers x (3 top + 3 spread)
  for (const auto& c : cases) {
    INFO(c.layer.name << " " << contracts::to_string(c.mapping));
    CHECK(c.bit_exact);
    CHECK(c.count_metrics == 13);
    CHECK(c.count_max_error_percent == 0);  // activity counts are exact without any fitting
  }
  REQUIRE(calibration::fit_samples(cases).size() == 12);

  // The shipped file (the RTL's nominal values): compute cycles exact, and whatever the selection does, the
  // held-out cycles with DRAM are predicted no worse than before.
  CHECK(calibration::cycle_error(cases, hardware, {true}, calibration::CycleMetric::Compute).max_percent == 0);
  const Calibrated shipped = calibrate(hardware, cases);
  CHECK(shipped.before.mape_percent <= 5);  // target: the uncalibrated model within 5 % on held-out layers
  CHECK(shipped.after.mape_percent <= shipped.before.mape_percent);

  // A file whose parameters are wrong (controller overheads, 60 % DRAM efficiency): the
  // error on the held-out layers is large before, and within 1 % after calibrating on the other two layers.
  contracts::Hardware wrong = hardware;
  wrong.model.step_overhead = 1;
  wrong.model.phase_overhead = 3;
  wrong.model.dram_efficiency = 0.6;
  const Calibrated repaired = calibrate(wrong, cases);
  INFO("held-out cycle MAPE " << repaired.before.mape_percent << " % before, " << repaired.after.mape_percent
                              << " % after");
  CHECK(repaired.before.mape_percent > 20);
  CHECK(repaired.after.mape_percent <= 1);
  CHECK(repaired.hardware.model.step_overhead < 0.05);
  CHECK(repaired.hardware.model.phase_overhead < 0.5);
}

TEST_CASE("a calibration budget takes every layer's best mapping first, then the next round, within the cycles",
          "[calibration]") {
  const contracts::Hardware hardware = contracts::load_hardware(std::string(MAERI_SOURCE_DIR) + "/configs/hardware/maeri-64.yaml");
  const contracts::Network network = contracts::load_workload(std::string(MAERI_SOURCE_DIR) + "/configs/workloads/tiny.yaml");
  calibration::CalibrationPlan plan;
  const std::vector<calibration::PlannedCase> all = calibration::planned_cases(network, hardware, plan);
  REQUIRE(all.size() == 24);  // 4 layers x (3 top + 3 spread), layer by layer
  // A case costs its predicted compute cycles plus cycles with DRAM (it runs twice).
  const auto cost = [&](const calibration::PlannedCase& c) {
    const contracts::CostReport report = mapper::evaluate(network.layers[c.layer], hardware, c.mapping);
    return report.cycles.compute() + report.cycles.total;
  };
  double first_round = 0;
  for (std::size_t l = 0; l < 4; ++l) first_round += cost(all[6 * l]);

  // The first round's cycles (and half a cycle, for rounding): each layer's best mapping, nothing of the next round.
  plan.budget_cycles = first_round + 0.5;
  const std::vector<calibration::PlannedCase> round = calibration::planned_cases(network, hardware, plan);
  REQUIRE(round.size() == 4);
  for (std::size_t l = 0; l < 4; ++l) {
    CHECK(round[l].layer == l);
    CHECK(round[l].origin == "top 1");
    CHECK(contracts::to_string(round[l].mapping) == contracts::to_string(all[6 * l].mapping));
    CHECK(round[l].seed == all[6 * l].seed);  // the same tensors as without a budget
  }
  // Enough for every case: the plan without a budget; less than the cheapest case: nothing.
  double everything = 0, cheapest = 1e300;
  for (const auto& c : all) everything += cost(c), cheapest = std::min(cheapest, cost(c));
  plan.budget_cycles = everything + 0.5;
  CHECK(calibration::planned_cases(network, hardware, plan).size() == 24);
  plan.budget_cycles = cheapest * 0.999;
  CHECK(calibration::planned_cases(network, hardware, plan).empty());
}
