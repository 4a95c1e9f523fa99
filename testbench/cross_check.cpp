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
  measured.multiplications = std::int64_t(r.multiplications);
  measured.rn_additions = std::int64_t(r.additions);
  measured.mn_forwards = std::int64_t(r.mn_forwards);
  measured.dn_hops = std::int64_t(r.dn_traversals);
  measured.rn_hops = std::int64_t(r.rn_traversals);

  std::vector<CrossCheckRow> rows;
  const double compute = model.cycles.compute();
  if (runs.ideal_memory) rows.push_back({kComputeCycles, compute, double(runs.ideal_memory->cycles), RowKind::Cycles});
  if (runs.with_memory) {
    const sim::MemoryRun& memory = *runs.with_memory->memory;
    rows.push_back({kTotalCycles, model.cycles.total, double(runs.with_memory->cycles), RowKind::Cycles});
    rows.push_back({kMemoryStallCycles, model.cycles.memory_stall, double(memory.stall_cycles), RowKind::Cycles});
  }
  rows.insert(rows.end(), {
                              {"steps (fires)", double(model.control_steps), double(r.fires)},
                              {"multiplications", double(c.multiplications), double(r.multiplications)},
                              {"RN additions", double(c.rn_additions), double(r.additions)},
                              {"MN forwards", double(c.mn_forwards), double(r.mn_forwards)},
                              {"DN traversals", double(c.dn_hops), double(r.dn_traversals)},
                              {"RN traversals", double(c.rn_hops), double(r.rn_traversals)},
                              {"RN outputs", double(c.rn_outputs), double(r.results)},
                          });
  if (runs.with_memory) {
    const sim::MemoryRun& memory = *runs.with_memory->memory;
    const double dram_bytes = double(memory.dram.bytes_read + memory.dram.bytes_written);
    rows.insert(rows.end(), {
                                {"DRAM bytes", double(c.dram_bytes), dram_bytes},
                                {"SDM fill writes", double(c.sdm_fill_writes), double(memory.sdm.fill_writes)},
                                {"SDM input reads", double(c.sdm_input_reads), double(memory.sdm.input_reads)},
                                {"SDM weight reads", double(c.sdm_weight_reads), double(memory.sdm.weight_reads)},
                                {"SDM psum reads", double(c.sdm_psum_reads), double(memory.sdm.psum_reads)},
                                {"SDM output writes", double(c.sdm_output_writes), double(memory.sdm.output_writes)},
                            });
    measured.dram_bytes = std::int64_t(dram_bytes);
    measured.sdm_fill_writes = std::int64_t(memory.sdm.fill_writes);
    measured.sdm_input_reads = std::int64_t(memory.sdm.input_reads);
    measured.sdm_weight_reads = std::int64_t(memory.sdm.weight_reads);
    measured.sdm_psum_reads = std::int64_t(memory.sdm.psum_reads);
    measured.sdm_output_writes = std::int64_t(memory.sdm.output_writes);
  }
  rows.push_back(
      {"energy pJ", model.energy_pj.total, contracts::energy_of(measured, hardware.energy_pj).total, RowKind::Energy});
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
