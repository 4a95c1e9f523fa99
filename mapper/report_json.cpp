// Field-by-field serialisation of CostReport (names match docs/model.md).
#include "mapper/report_json.hpp"

#include <fmt/format.h>

namespace maeri::mapper {

nlohmann::json to_json(const spec::CostReport& report) {
  const auto& c = report.counts;
  const auto& y = report.cycles;
  const auto& e = report.energy_pj;
  return {
      {"tile", {{"T_R", report.tile[spec::kDimR]}, {"T_S", report.tile[spec::kDimS]}, {"T_C", report.tile[spec::kDimC]},
                {"T_K", report.tile[spec::kDimK]}, {"T_N", report.tile[spec::kDimN]}, {"T_X", report.tile[spec::kDimX]},
                {"T_Y", report.tile[spec::kDimY]}}},
      {"vn_size", report.vn_size}, {"vn_count", report.vn_count}, {"idle_ms", report.idle_ms},
      {"weight_phases", report.weight_phases}, {"reduction_folds", report.reduction_folds},
      {"control_steps", report.control_steps}, {"dn_limited_steps", report.dn_limited_steps},
      {"rn_limited_steps", report.rn_limited_steps}, {"uses_forwarding", report.uses_forwarding},
      {"sdm_resident", report.sdm_resident},
      {"peak_utilisation", report.peak_utilisation}, {"average_utilisation", report.average_utilisation},
      {"compute_efficiency", report.compute_efficiency},
      {"cycles", {{"streaming", y.streaming}, {"weight_load", y.weight_load}, {"fill_drain", y.fill_drain},
                  {"control_overhead", y.control_overhead}, {"reconfiguration", y.reconfiguration},
                  {"memory_stall", y.memory_stall}, {"total", y.total}}},
      {"counts", {{"multiplications", c.multiplications}, {"rn_additions", c.rn_additions},
                  {"accumulation_additions", c.accumulation_additions}, {"dn_hops", c.dn_hops},
                  {"mn_operand_loads", c.mn_operand_loads}, {"mn_weight_loads", c.mn_weight_loads},
                  {"mn_forwards", c.mn_forwards}, {"rn_hops", c.rn_hops}, {"sdm_input_reads", c.sdm_input_reads},
                  {"sdm_weight_reads", c.sdm_weight_reads}, {"sdm_psum_reads", c.sdm_psum_reads},
                  {"sdm_output_writes", c.sdm_output_writes}, {"sdm_fill_writes", c.sdm_fill_writes},
                  {"dram_bytes", c.dram_bytes}, {"vn_results", c.vn_results}}},
      {"energy_pj", {{"multiply", e.multiply}, {"add", e.add}, {"dn", e.dn}, {"mn", e.mn}, {"rn", e.rn},
                     {"sdm", e.sdm}, {"dram", e.dram}, {"total", e.total}}},
  };
}

std::string csv_header() {
  return "T_R,T_S,T_C,T_K,T_N,T_X,T_Y,vn_size,vn_count,cycles,energy_pj,edp,peak_utilisation,"
         "average_utilisation,multiplications,rn_additions,accumulation_additions,dn_hops,mn_forwards,"
         "sdm_input_reads,sdm_weight_reads,sdm_psum_reads,sdm_output_writes,dram_bytes";
}

std::string csv_row(const spec::CostReport& report) {
  const auto& c = report.counts;
  return fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                     report.tile[0], report.tile[1], report.tile[2], report.tile[3], report.tile[4],
                     report.tile[5], report.tile[6], report.vn_size, report.vn_count, report.cycles.total,
                     report.energy_pj.total, report.edp(), report.peak_utilisation, report.average_utilisation,
                     c.multiplications, c.rn_additions, c.accumulation_additions, c.dn_hops, c.mn_forwards,
                     c.sdm_input_reads, c.sdm_weight_reads, c.sdm_psum_reads, c.sdm_output_writes, c.dram_bytes);
}

}  // namespace maeri::mapper
