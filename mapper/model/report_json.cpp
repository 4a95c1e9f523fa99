// Field-by-field serialisation of CostReport (names match docs/model.md).
#include "mapper/model/report_json.hpp"

#include <fmt/format.h>

namespace maeri::mapper {

namespace {

// The SDM level (docs/mapping.md): null for a single-level mapping.
nlohmann::json sdm_json(const contracts::SdmLevel& sdm) {
  if (!sdm.blocked) return nullptr;
  nlohmann::json json;
  for (int dim = 0; dim < contracts::kNumSdmDims; ++dim) json[contracts::sdm_dim_key(dim)] = sdm.block[size_t(dim)];
  json["order"] = contracts::order_text(sdm.order);
  return json;
}

}  // namespace

nlohmann::json to_json(const contracts::CostReport& report) {
  const auto& c = report.counts;
  const auto& y = report.cycles;
  const auto& e = report.energy_pj;
  return {
      {"sdm", sdm_json(report.mapping.sdm)},
      {"phase_order", contracts::phase_order_text(report.mapping.phase_order)},
      {"compulsory_dram_bytes", report.compulsory_dram_bytes},
      {"dram_ratio", report.compulsory_dram_bytes > 0 ? static_cast<double>(c.dram_bytes) /
                                                            static_cast<double>(report.compulsory_dram_bytes)
                                                      : 0.0},
      {"tile", {{"T_R", report.mapping[contracts::kDimR]}, {"T_S", report.mapping[contracts::kDimS]}, {"T_C", report.mapping[contracts::kDimC]},
                {"T_K", report.mapping[contracts::kDimK]}, {"T_N", report.mapping[contracts::kDimN]}, {"T_X", report.mapping[contracts::kDimX]},
                {"T_Y", report.mapping[contracts::kDimY]}}},
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

contracts::CostReport cost_report_from_json(const nlohmann::json& json) {
  contracts::CostReport report;
  const nlohmann::json& tile = json.at("tile");
  const char* const tile_keys[contracts::kNumTileDims] = {"T_R", "T_S", "T_C", "T_K", "T_N", "T_X", "T_Y"};
  for (int dim = 0; dim < contracts::kNumTileDims; ++dim) report.mapping[dim] = tile.at(tile_keys[dim]).get<std::int64_t>();
  if (json.contains("sdm") && !json.at("sdm").is_null()) {
    const nlohmann::json& sdm = json.at("sdm");
    report.mapping.sdm.blocked = true;
    for (int dim = 0; dim < contracts::kNumSdmDims; ++dim)
      report.mapping.sdm.block[size_t(dim)] = sdm.at(contracts::sdm_dim_key(dim)).get<std::int64_t>();
    report.mapping.sdm.order = contracts::parse_order(sdm.at("order").get<std::string>()).value_or(contracts::kDefaultSdmOrder);
  }
  if (json.contains("phase_order"))
    report.mapping.phase_order =
        contracts::parse_phase_order(json.at("phase_order").get<std::string>()).value_or(contracts::kDefaultPhaseOrder);
  if (json.contains("compulsory_dram_bytes")) json.at("compulsory_dram_bytes").get_to(report.compulsory_dram_bytes);
  json.at("vn_size").get_to(report.vn_size);
  json.at("vn_count").get_to(report.vn_count);
  json.at("idle_ms").get_to(report.idle_ms);
  json.at("weight_phases").get_to(report.weight_phases);
  json.at("reduction_folds").get_to(report.reduction_folds);
  json.at("control_steps").get_to(report.control_steps);
  json.at("dn_limited_steps").get_to(report.dn_limited_steps);
  json.at("rn_limited_steps").get_to(report.rn_limited_steps);
  json.at("uses_forwarding").get_to(report.uses_forwarding);
  json.at("sdm_resident").get_to(report.sdm_resident);
  json.at("peak_utilisation").get_to(report.peak_utilisation);
  json.at("average_utilisation").get_to(report.average_utilisation);
  json.at("compute_efficiency").get_to(report.compute_efficiency);
  const nlohmann::json& y = json.at("cycles");
  y.at("streaming").get_to(report.cycles.streaming);
  y.at("weight_load").get_to(report.cycles.weight_load);
  y.at("fill_drain").get_to(report.cycles.fill_drain);
  y.at("control_overhead").get_to(report.cycles.control_overhead);
  y.at("reconfiguration").get_to(report.cycles.reconfiguration);
  y.at("memory_stall").get_to(report.cycles.memory_stall);
  y.at("total").get_to(report.cycles.total);
  const nlohmann::json& c = json.at("counts");
  contracts::ActivityCounts& counts = report.counts;
  c.at("multiplications").get_to(counts.multiplications);
  c.at("rn_additions").get_to(counts.rn_additions);
  c.at("accumulation_additions").get_to(counts.accumulation_additions);
  c.at("dn_hops").get_to(counts.dn_hops);
  c.at("mn_operand_loads").get_to(counts.mn_operand_loads);
  c.at("mn_weight_loads").get_to(counts.mn_weight_loads);
  c.at("mn_forwards").get_to(counts.mn_forwards);
  c.at("rn_hops").get_to(counts.rn_hops);
  c.at("sdm_input_reads").get_to(counts.sdm_input_reads);
  c.at("sdm_weight_reads").get_to(counts.sdm_weight_reads);
  c.at("sdm_psum_reads").get_to(counts.sdm_psum_reads);
  c.at("sdm_output_writes").get_to(counts.sdm_output_writes);
  c.at("sdm_fill_writes").get_to(counts.sdm_fill_writes);
  c.at("dram_bytes").get_to(counts.dram_bytes);
  c.at("vn_results").get_to(counts.vn_results);
  const nlohmann::json& e = json.at("energy_pj");
  e.at("multiply").get_to(report.energy_pj.multiply);
  e.at("add").get_to(report.energy_pj.add);
  e.at("dn").get_to(report.energy_pj.dn);
  e.at("mn").get_to(report.energy_pj.mn);
  e.at("rn").get_to(report.energy_pj.rn);
  e.at("sdm").get_to(report.energy_pj.sdm);
  e.at("dram").get_to(report.energy_pj.dram);
  e.at("total").get_to(report.energy_pj.total);
  return report;
}

std::string csv_header() {
  return "T_R,T_S,T_C,T_K,T_N,T_X,T_Y,vn_size,vn_count,cycles,energy_pj,edp,peak_utilisation,"
         "average_utilisation,multiplications,rn_additions,accumulation_additions,dn_hops,mn_forwards,"
         "sdm_input_reads,sdm_weight_reads,sdm_psum_reads,sdm_output_writes,dram_bytes";
}

std::string csv_row(const contracts::CostReport& report) {
  const auto& c = report.counts;
  return fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                     report.mapping[0], report.mapping[1], report.mapping[2], report.mapping[3], report.mapping[4],
                     report.mapping[5], report.mapping[6], report.vn_size, report.vn_count, report.cycles.total,
                     report.energy_pj.total, report.edp(), report.peak_utilisation, report.average_utilisation,
                     c.multiplications, c.rn_additions, c.accumulation_additions, c.dn_hops, c.mn_forwards,
                     c.sdm_input_reads, c.sdm_weight_reads, c.sdm_psum_reads, c.sdm_output_writes, c.dram_bytes);
}

}  // namespace maeri::mapper
