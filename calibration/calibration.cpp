// Calibration case selection, co-simulation and model-error measurement (see calibration.hpp).
#include "calibration/calibration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <set>

#include "codegen/functional_model.hpp"
#include "codegen/layer_program.hpp"
#include "flow/calibration_mappings.hpp"
#include "mapper/model/cost_model.hpp"
#include "mapper/search/search.hpp"
#include "timing/memory_plan.hpp"
#include "timing/memory_replay.hpp"
#include "testbench/co_simulation.hpp"
#include "testbench/cross_check.hpp"

namespace maeri::calibration {

CalibrationCase co_simulate_case(sim::FabricSession& fabric, const contracts::Layer& layer, const contracts::Mapping& tile,
                                 const contracts::Hardware& hardware, std::uint64_t seed) {
  CalibrationCase result;
  result.layer = layer;
  result.mapping = tile;
  const auto program = std::make_shared<const codegen::LayerProgram>(codegen::plan_layer(layer, hardware, tile));
  const auto plan = std::make_shared<const timing::MemoryPlan>(
      timing::plan_memory(*program, hardware, codegen::random_tensors(layer, hardware.data_width, seed)));
  result.predict_total = [layer, tile, program, plan](const contracts::Hardware& parameters) {
    contracts::CostReport report = mapper::evaluate(layer, parameters, tile);
    timing::refine_with_memory_replay(report, *program, *plan, parameters);
    return report.cycles.total;
  };
  result.model = mapper::evaluate(layer, hardware, tile);
  timing::refine_with_memory_replay(result.model, *program, *plan, hardware);
  const testbench::CoSimulation run = testbench::co_simulate(fabric, layer, tile, hardware, seed);
  result.bit_exact = run.board.pass();
  result.rtl_compute_cycles = double(run.ideal->cycles);
  result.rtl_total_cycles = double(run.with_memory->cycles);
  for (const testbench::CrossCheckRow& row : run.rows) {
    if (row.kind != testbench::RowKind::ActivityCount) continue;
    ++result.count_metrics;
    result.count_max_error_percent = std::max(result.count_max_error_percent, std::fabs(row.error_percent()));
  }
  return result;
}

namespace {

// The cases a budget admits: taken in rounds (the t-th case of every layer in round t), each only while its
// predicted cycles fit what is left; returned layer by layer, in the plan's order.
std::vector<PlannedCase> within_budget(const contracts::Network& network, const contracts::Hardware& hardware,
                                       const std::vector<std::vector<PlannedCase>>& per_layer, double budget) {
  std::vector<std::vector<bool>> taken(per_layer.size());
  std::size_t rounds = 0;
  for (std::size_t l = 0; l < per_layer.size(); ++l) {
    taken[l].assign(per_layer[l].size(), false);
    rounds = std::max(rounds, per_layer[l].size());
  }
  double left = budget;
  for (std::size_t t = 0; t < rounds; ++t)
    for (std::size_t l = 0; l < per_layer.size(); ++l) {
      if (t >= per_layer[l].size()) continue;
      const contracts::CostReport report = mapper::evaluate(network.layers[l], hardware, per_layer[l][t].mapping);
      const double cost = report.cycles.compute() + report.cycles.total;
      if (cost > left) continue;
      left -= cost;
      taken[l][t] = true;
    }
  std::vector<PlannedCase> planned;
  for (std::size_t l = 0; l < per_layer.size(); ++l)
    for (std::size_t t = 0; t < per_layer[l].size(); ++t)
      if (taken[l][t]) planned.push_back(per_layer[l][t]);
  return planned;
}

}  // namespace

std::vector<PlannedCase> planned_cases(const contracts::Network& network, const contracts::Hardware& hardware,
                                       const CalibrationPlan& plan) {
  std::vector<std::vector<PlannedCase>> per_layer(network.layers.size());
  for (std::size_t l = 0; l < network.layers.size(); ++l) {
    const contracts::Layer& layer = network.layers[l];
    const auto tiles = flow::calibration_mappings(layer, hardware, plan.top, plan.spread, plan.seed + l, plan.max_cycles);
    for (std::size_t t = 0; t < tiles.size(); ++t)
      per_layer[l].push_back({l, tiles[t].first, tiles[t].second,
                              network.layers.size() == 1 ? t % 2 == 1 : plan.holdout.count(layer.name) > 0,
                              plan.seed + 1000 * l + t});
  }
  if (plan.budget_cycles > 0) return within_budget(network, hardware, per_layer, plan.budget_cycles);
  std::vector<PlannedCase> planned;
  for (const std::vector<PlannedCase>& cases : per_layer) planned.insert(planned.end(), cases.begin(), cases.end());
  return planned;
}

std::vector<CalibrationCase> co_simulate_cases(sim::FabricSession& fabric, const contracts::Network& network,
                                               const contracts::Hardware& hardware,
                                               const std::vector<PlannedCase>& planned, const CaseDone& progress) {
  std::vector<CalibrationCase> cases;
  for (const PlannedCase& p : planned) {
    const auto start = std::chrono::steady_clock::now();
    CalibrationCase c = co_simulate_case(fabric, network.layers.at(p.layer), p.mapping, hardware, p.seed);
    c.origin = p.origin;
    c.holdout = p.holdout;
    cases.push_back(std::move(c));
    if (progress)
      progress(cases.back(), std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
               cases.size());
  }
  return cases;
}

std::vector<calibration::FitSample> fit_samples(const std::vector<CalibrationCase>& cases) {
  std::vector<calibration::FitSample> samples;
  for (const CalibrationCase& c : cases)
    if (!c.holdout) samples.push_back({c.layer, c.mapping, c.rtl_total_cycles, c.predict_total});
  return samples;
}

namespace {

double predicted(const CalibrationCase& c, const contracts::Hardware& hardware, CycleMetric metric) {
  if (metric == CycleMetric::Total && c.predict_total) return c.predict_total(hardware);
  const contracts::CostReport report = mapper::evaluate(c.layer, hardware, c.mapping);
  return metric == CycleMetric::Total ? report.cycles.total : report.cycles.compute();
}

}  // namespace

bool is_memory_bound(const CalibrationCase& c) { return c.rtl_total_cycles >= kMemoryBoundRatio * c.rtl_compute_cycles; }

CycleError cycle_error(const std::vector<CalibrationCase>& cases, const contracts::Hardware& hardware,
                       CaseSubset subset, CycleMetric metric) {
  CycleError error;
  double sum = 0;
  for (const CalibrationCase& c : cases) {
    if (c.holdout != subset.holdout || (subset.memory_bound_only && !is_memory_bound(c))) continue;
    const double measured = metric == CycleMetric::Total ? c.rtl_total_cycles : c.rtl_compute_cycles;
    const double percent = 100 * std::fabs(predicted(c, hardware, metric) - measured) / measured;
    sum += percent;
    error.max_percent = std::max(error.max_percent, percent);
    ++error.cases;
  }
  error.mape_percent = error.cases ? sum / error.cases : 0;
  return error;
}

namespace {

// Ranks with ties averaged (1-based), for Spearman's coefficient.
std::vector<double> ranks(const std::vector<double>& values) {
  std::vector<size_t> order(values.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return values[a] < values[b]; });
  std::vector<double> rank(values.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    for (size_t k = i; k <= j; ++k) rank[order[k]] = double(i + j) / 2 + 1;
    i = j + 1;
  }
  return rank;
}

double pearson(const std::vector<double>& a, const std::vector<double>& b) {
  const double n = double(a.size());
  double ma = 0, mb = 0;
  for (size_t i = 0; i < a.size(); ++i) ma += a[i] / n, mb += b[i] / n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 1;
}

}  // namespace

RankChange rank_change(const contracts::Layer& layer, const contracts::Hardware& before, const contracts::Hardware& after,
                       int k) {
  const auto top = [&](const contracts::Hardware& hardware) {
    return mapper::search(layer, hardware, {mapper::Objective::Runtime, k, 0}).best;
  };
  const auto best_before = top(before), best_after = top(after);
  std::map<std::string, contracts::Mapping> candidates;
  std::set<std::string> in_before;
  for (const auto& report : best_before) {
    candidates[contracts::to_string(report.mapping)] = report.mapping;
    in_before.insert(contracts::to_string(report.mapping));
  }
  int common = 0;
  for (const auto& report : best_after) {
    candidates[contracts::to_string(report.mapping)] = report.mapping;
    common += int(in_before.count(contracts::to_string(report.mapping)));
  }
  RankChange change;
  change.k = int(std::min(best_before.size(), best_after.size()));
  change.top_k_overlap = change.k ? double(common) / change.k : 1;
  std::vector<double> cycles_before, cycles_after;
  for (const auto& [name, tile] : candidates) {
    cycles_before.push_back(mapper::evaluate(layer, before, tile).cycles.total);
    cycles_after.push_back(mapper::evaluate(layer, after, tile).cycles.total);
  }
  change.spearman = cycles_before.size() > 1 ? pearson(ranks(cycles_before), ranks(cycles_after)) : 1;
  return change;
}

std::string calibration_csv(const std::vector<CalibrationCase>& cases, const contracts::Hardware& before,
                            const contracts::Hardware& after) {
  std::string csv =
      "layer,tile,origin,split,bit_exact,cosim_total_cycles,model_before,model_after,error_before_percent,"
      "error_after_percent,cosim_compute_cycles,model_compute_cycles,count_metrics,count_max_error_percent\n";
  for (const CalibrationCase& c : cases) {
    const double b = predicted(c, before, CycleMetric::Total), a = predicted(c, after, CycleMetric::Total);
    csv += fmt::format("{},\"{}\",{},{},{},{},{},{},{:.4f},{:.4f},{},{},{},{}\n", c.layer.name,
                       contracts::to_compact_string(c.mapping.tile), c.origin, c.holdout ? "holdout" : "fit",
                       c.bit_exact ? "yes" : "no", c.rtl_total_cycles, b, a,
                       100 * (b - c.rtl_total_cycles) / c.rtl_total_cycles,
                       100 * (a - c.rtl_total_cycles) / c.rtl_total_cycles, c.rtl_compute_cycles,
                       predicted(c, before, CycleMetric::Compute), c.count_metrics, c.count_max_error_percent);
  }
  return csv;
}

}  // namespace maeri::calibration
