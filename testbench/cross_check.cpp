// Model-vs-co-simulation comparison rows (see cross_check.hpp).
#include "testbench/cross_check.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "mapper/model/cost_model.hpp"

namespace maeri::testbench {

double CrossCheckRow::error_percent() const {
  if (rtl == 0) return model == 0 ? 0 : 100;
  return 100.0 * (model - rtl) / std::fabs(rtl);
}

std::string CrossCheckRow::error_percent_text() const {
  return relative_error_defined() ? fmt::format("{:.2f}%", error_percent()) : "n/a";
}

std::vector<CrossCheckRow> cross_check(const contracts::CostReport& model, const CoSimRuns& runs,
                                       const contracts::Hardware& hardware) {
  const sim::RtlLayerRun* fabric_run = runs.ideal_memory ? runs.ideal_memory : runs.with_memory;
  if (!fabric_run) throw std::invalid_argument("cross_check needs at least one co-simulation run");
  if (runs.with_memory && !runs.with_memory->memory)
    throw std::invalid_argument("cross_check: the memory run carries no memory counts");
  const contracts::ActivityCounts& c = model.counts;
  const sim::Counters& r = fabric_run->counters;
  // Energy from what the co-simulation counted; what it does not count (multiplier loads, accumulation, and SDM
  // and DRAM without the memory run) is taken from the model, so the energy difference is the counted
  // activities' difference.
  contracts::ActivityCounts measured = c;

  std::vector<CrossCheckRow> rows;
  const double compute = model.cycles.compute();
  if (runs.ideal_memory) rows.push_back({kComputeCycles, compute, double(runs.ideal_memory->cycles), RowKind::Cycles});
  if (runs.with_memory) {
    const timing::MemoryRun& memory = *runs.with_memory->memory;
    rows.push_back({kTotalCycles, model.cycles.total, double(runs.with_memory->cycles), RowKind::Cycles});
    // What the memory costs: the memory run's cycles beyond the ideal run's (the stalls the controller counted can
    // be more, where a stall overlaps a wait for the collector's fire spacing), or the counted stalls without an
    // ideal run.
    const double stall = runs.ideal_memory ? double(runs.with_memory->cycles) - double(runs.ideal_memory->cycles)
                                           : double(memory.stall_cycles);
    rows.push_back({kMemoryStallCycles, model.cycles.memory_stall, stall, RowKind::Cycles});
  }
  // The fabric counts have the same names in the model and the RTL counters.
#define MAERI_FABRIC_ROW(name, label, meaning)                   \
  rows.push_back({label, double(c.name), double(r.name)});       \
  measured.name = std::int64_t(r.name);
  MAERI_FABRIC_COUNTS(MAERI_FABRIC_ROW)
#undef MAERI_FABRIC_ROW
  if (runs.with_memory) {
    const timing::MemoryRun& memory = *runs.with_memory->memory;
    using Counts = contracts::ActivityCounts;
    const std::pair<std::int64_t Counts::*, std::uint64_t> memory_counts[] = {
        {&Counts::dram_bytes, memory.dram.bytes_read + memory.dram.bytes_written},
        {&Counts::sdm_fill_writes, memory.sdm.fill_writes},
        {&Counts::sdm_input_reads, memory.sdm.input_reads},
        {&Counts::sdm_weight_reads, memory.sdm.weight_reads},
        {&Counts::sdm_psum_reads, memory.sdm.psum_reads},
        {&Counts::sdm_output_writes, memory.sdm.output_writes},
    };
    for (const auto& [field, counted] : memory_counts) {
      rows.push_back({contracts::activity_count(field).label, double(c.*field), double(counted)});
      measured.*field = std::int64_t(counted);
    }
  }
  rows.push_back(
      {"energy pJ", model.energy_pj.total, contracts::energy_of(measured, hardware.energy_pj).total, RowKind::Energy});
  return rows;
}

std::vector<CrossCheckRow> post_processing_cross_check(const contracts::PostProcessingCounts& model,
                                                       const contracts::PostProcessingCounts& unit,
                                                       const contracts::Hardware& hardware) {
  std::vector<CrossCheckRow> rows;
  rows.push_back({kPostProcessingCycles, double(model.cycles), double(unit.cycles), RowKind::Cycles});
#define MAERI_POST_PROCESSING_ROW(name, label, meaning) rows.push_back({label, double(model.name), double(unit.name)});
  MAERI_POST_PROCESSING_COUNTS(MAERI_POST_PROCESSING_ROW)
#undef MAERI_POST_PROCESSING_ROW
  rows.push_back({"PPU energy pJ", contracts::post_processing_energy_pj(model, hardware.energy_pj),
                  contracts::post_processing_energy_pj(unit, hardware.energy_pj), RowKind::Energy});
  return rows;
}

std::string cross_check_table(const std::vector<CrossCheckRow>& rows) {
  std::string table = fmt::format("  {:<20} {:>14} {:>14} {:>12} {:>9}\n", "metric", "model", "co-sim", "error", "error %");
  for (const CrossCheckRow& row : rows)
    table += fmt::format("  {:<20} {:>14.0f} {:>14.0f} {:>12.0f} {:>9}\n", row.metric, row.model, row.rtl, row.error(),
                         row.error_percent_text());
  return table;
}

}  // namespace maeri::testbench
