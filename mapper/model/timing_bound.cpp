// The lower bound on exact cycles with DRAM (see timing_bound.hpp).
#include "mapper/model/timing_bound.hpp"

#include <algorithm>
#include <cmath>

#include "contracts/config_bus.hpp"
#include "contracts/sdm_rules.hpp"

namespace maeri::mapper {

namespace {

bool whole(double value) { return value == std::floor(value); }

// What rounding the fabric timing to whole cycles (timing::FabricTiming::of: the pipeline latency rounded, the
// configuration words per cycle rounded up) and the overheads the replay leaves out can take off its ideal-memory
// cycles against the report's compute cycles: nothing with whole parameters and non-negative overheads.
double rounding_slack(const contracts::CostReport& report, const contracts::Hardware& hardware) {
  const contracts::ModelParameters& p = hardware.model;
  const double configuration =
      double(contracts::configuration_words(hardware.num_ms, hardware.config_bw)) / p.config_words_per_cycle;
  double slack = 0;
  if (!whole(configuration) || !whole(contracts::pipeline_latency(hardware)))
    slack += 2.0 * double(report.counts.configurations);
  slack += std::max(0.0, -p.step_overhead) * double(report.counts.fires);
  slack += std::max(0.0, -p.phase_overhead) * double(report.counts.weight_phases);
  return slack;
}

}  // namespace

double exact_cycles_lower_bound(const contracts::CostReport& report, const contracts::Hardware& hardware) {
  const double compute = report.cycles.compute();
  const double bandwidth = hardware.dram_bytes_per_cycle * hardware.model.dram_efficiency;
  if (!(bandwidth > 0)) return compute;
  if (report.counts.dram_bytes <= 0) return compute;
  // Every request is made after the channel's clock in its cycle, so nothing crosses in the first cycle; the margin
  // covers the rounding of the channel's credit, a sum of fractional rates.
  const auto cycles_to_move = [&](double bytes) { return std::ceil(bytes / bandwidth - 1e-6); };
  const double latency = double(hardware.dram_latency_cycles);
  // Startup: the first event, the first phase's weights (a full tile's: T_G·T_K·T_R·T_S·T_C, the first request),
  // starts when they have crossed and arrived, the ideal replay after the first configuration's words; every later
  // event of the ideal replay is timed from it, so the whole run moves by the difference at least.
  const contracts::Mapping& tile = report.mapping;
  const double first_weight_bytes = double(tile.groups_per_step() * tile[contracts::kDimK] * tile[contracts::kDimR] *
                                           tile[contracts::kDimS] * tile[contracts::kDimC] * contracts::data_bytes(hardware));
  const double configuration = std::ceil(
      double(contracts::configuration_words(hardware.num_ms, hardware.config_bw)) / hardware.model.config_words_per_cycle);
  const double startup = std::max(0.0, 1 + cycles_to_move(first_weight_bytes) + latency - configuration);
  double channel = 1 + cycles_to_move(double(report.counts.dram_bytes));
  // The fills are read bytes: the last of them arrives the latency after it crossed, and the event that waits for it
  // takes a cycle more.
  const double fill_bytes = double(report.counts.sdm_fill_writes * contracts::data_bytes(hardware));
  if (fill_bytes > 0)
    channel = std::max(channel, 2 + latency + cycles_to_move(fill_bytes));
  return std::max(compute + startup, channel - rounding_slack(report, hardware));
}

double member_cycles_lower_bound(const contracts::CostReport& report, const contracts::Hardware& hardware) {
  const double compute = report.cycles.compute();
  const double bandwidth = hardware.dram_bytes_per_cycle * hardware.model.dram_efficiency;
  if (!(bandwidth > 0) || report.counts.dram_bytes <= 0) return compute;
  const double channel = 1 + std::ceil(double(report.counts.dram_bytes) / bandwidth - 1e-6);
  return std::max(compute, channel - rounding_slack(report, hardware));
}

void set_cycles_to_timing_bound(contracts::CostReport& report, const contracts::Hardware& hardware) {
  const double compute = report.cycles.compute();
  const double bound = exact_cycles_lower_bound(report, hardware);
  report.cycles.memory_stall = bound - compute;
  report.cycles.total = bound;
  report.compute_efficiency = double(report.counts.useful_multiplications) / (double(hardware.num_ms) * bound);
}

}  // namespace maeri::mapper
