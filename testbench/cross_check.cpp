// Model-vs-RTL comparison rows (see cross_check.hpp).
#include "testbench/cross_check.hpp"

#include <cmath>

#include "mapper/cost_model.hpp"

namespace maeri::testbench {

double CrossCheckRow::error_percent() const {
  if (rtl == 0) return model == 0 ? 0 : 100;
  return 100.0 * (model - rtl) / std::fabs(rtl);
}

std::vector<CrossCheckRow> cross_check(const mapper::CostReport& model, const sim::RtlLayerRun& rtl,
                                       const mapper::Hardware& hardware) {
  const mapper::ActivityCounts& c = model.counts;
  const sim::Counters& r = rtl.counters;
  // Energy from the RTL's counters; what the fabric does not count (SDM, DRAM, multiplier loads,
  // accumulation) is taken from the model, so the energy difference is the counted activities' difference.
  mapper::ActivityCounts measured = c;
  measured.multiplications = std::int64_t(r.multiplications);
  measured.rn_additions = std::int64_t(r.additions);
  measured.mn_forwards = std::int64_t(r.mn_forwards);
  measured.dn_hops = std::int64_t(r.dn_traversals);
  measured.rn_hops = std::int64_t(r.rn_traversals);
  const double measured_energy = mapper::energy_of(measured, hardware.energy_pj).total;
  return {
      {"cycles (compute)", model.cycles.total - model.cycles.memory_stall, double(rtl.cycles)},
      {"steps (fires)", double(model.control_steps), double(r.fires)},
      {"multiplications", double(c.multiplications), double(r.multiplications)},
      {"RN additions", double(c.rn_additions), double(r.additions)},
      {"MN forwards", double(c.mn_forwards), double(r.mn_forwards)},
      {"DN traversals", double(c.dn_hops), double(r.dn_traversals)},
      {"RN traversals", double(c.rn_hops), double(r.rn_traversals)},
      {"RN outputs", double(c.rn_outputs), double(r.results)},
      {"energy pJ", model.energy_pj.total, measured_energy},
  };
}

}  // namespace maeri::testbench
