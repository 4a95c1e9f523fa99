// Energy from activity counts, and exact traffic entering a report (see cost_report.hpp).
#include "contracts/cost_report.hpp"

namespace maeri::contracts {

EnergyBreakdown energy_of(const ActivityCounts& counts, const EnergyTable& table) {
  EnergyBreakdown energy;
  const auto pj = [](std::int64_t count, double each) { return static_cast<double>(count) * each; };
  energy.multiply = pj(counts.multiplications, table.multiply);
  energy.add = pj(counts.additions + counts.accumulation_additions, table.add);
  energy.dn = pj(counts.dn_traversals, table.dn_hop);
  energy.mn = pj(counts.mn_operand_loads + counts.mn_weight_loads, table.mn_hop) +
              pj(counts.mn_forwards, table.mn_forward);
  energy.rn = pj(counts.rn_traversals, table.rn_hop);
  energy.sdm = pj(counts.sdm_input_reads + counts.sdm_weight_reads + counts.sdm_psum_reads, table.sdm_read) +
               pj(counts.sdm_output_writes + counts.sdm_fill_writes, table.sdm_write);
  energy.dram = pj(counts.dram_bytes, table.dram_byte);
  energy.total = energy.multiply + energy.add + energy.dn + energy.mn + energy.rn + energy.sdm + energy.dram;
  return energy;
}

void set_traffic(CostReport& report, std::int64_t dn_traversals, std::int64_t rn_traversals,
                 const Hardware& hardware) {
  report.counts.dn_traversals = dn_traversals;
  report.counts.rn_traversals = rn_traversals;
  report.energy_pj = energy_of(report.counts, hardware.energy_pj);
}

}  // namespace maeri::contracts
