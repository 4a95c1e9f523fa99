// Field-by-field serialisation of CostReport (names match docs/model.md): one list of the report's fields
// (for_each_field) that the JSON writer and reader both walk, and one list of the CSV's columns.
#include "mapper/model/report_json.hpp"

#include <fmt/format.h>

#include <iterator>

namespace maeri::mapper {

namespace {

// The JSON keys of the fabric tile sizes, in the order of the tile's dimensions (the mapping file's keys).
const char* const kTileKeys[contracts::kNumTileDims] = {"T_R", "T_S", "T_C", "T_K", "T_N", "T_X", "T_Y"};
// T_G, written only when it is not 1 (reports of ungrouped layers keep their form) and read as 1 when absent.
const char* const kGroupsKey = "T_G";

// Calls visit(section, key, field) for every number and flag of the report: `section` is the JSON object that holds
// the key ("cycles", "counts", "energy_pj"), or nullptr for the top level. Report is CostReport for the reader and
// const CostReport for the writer, so both see the same list. The tile, its SDM level and its phase order have
// forms of their own, and dram_ratio is derived (to_json).
template <class Report, class Visit>
void for_each_field(Report& report, Visit&& visit) {
  visit(nullptr, "compulsory_dram_bytes", report.compulsory_dram_bytes);
  visit(nullptr, "vn_size", report.vn_size);
  visit(nullptr, "vn_count", report.vn_count);
  visit(nullptr, "idle_ms", report.idle_ms);
  visit(nullptr, "reduction_folds", report.reduction_folds);
  visit(nullptr, "dn_limited_steps", report.dn_limited_steps);
  visit(nullptr, "rn_limited_steps", report.rn_limited_steps);
  visit(nullptr, "uses_forwarding", report.uses_forwarding);
  visit(nullptr, "sdm_resident", report.sdm_resident);
  visit(nullptr, "peak_utilisation", report.peak_utilisation);
  visit(nullptr, "average_utilisation", report.average_utilisation);
  visit(nullptr, "compute_efficiency", report.compute_efficiency);
  auto& cycles = report.cycles;
  visit("cycles", "streaming", cycles.streaming);
  visit("cycles", "weight_load", cycles.weight_load);
  visit("cycles", "phase_overlap", cycles.phase_overlap);
  visit("cycles", "fill_drain", cycles.fill_drain);
  visit("cycles", "control_overhead", cycles.control_overhead);
  visit("cycles", "reconfiguration", cycles.reconfiguration);
  visit("cycles", "memory_stall", cycles.memory_stall);
  visit("cycles", "total", cycles.total);
#define MAERI_COUNT_FIELD(name, label, meaning) visit("counts", #name, report.counts.name);
  MAERI_ACTIVITY_COUNTS(MAERI_COUNT_FIELD)
#undef MAERI_COUNT_FIELD
  auto& energy = report.energy_pj;
  visit("energy_pj", "multiply", energy.multiply);
  visit("energy_pj", "add", energy.add);
  visit("energy_pj", "dn", energy.dn);
  visit("energy_pj", "mn", energy.mn);
  visit("energy_pj", "rn", energy.rn);
  visit("energy_pj", "sdm", energy.sdm);
  visit("energy_pj", "dram", energy.dram);
  visit("energy_pj", "total", energy.total);
}

// The SDM level (docs/mapping.md): null for a single-level mapping.
nlohmann::json sdm_json(const contracts::SdmLevel& sdm) {
  if (!sdm.blocked) return nullptr;
  nlohmann::json json;
  for (int dim = 0; dim < contracts::kNumSdmDims; ++dim) json[contracts::sdm_dim_key(dim)] = sdm.block[size_t(dim)];
  json["order"] = contracts::order_text(sdm.order);
  return json;
}

// A column of the CSV: its header and its value in a report's row.
struct CsvColumn {
  const char* name;
  std::string (*value)(const contracts::CostReport&);
};

#define MAERI_CSV_COLUMN(name, expression) \
  { name, [](const contracts::CostReport& report) { return fmt::format("{}", expression); } }
#define MAERI_CSV_COUNT(count) MAERI_CSV_COLUMN(#count, report.counts.count)

const CsvColumn kCsvColumns[] = {
    MAERI_CSV_COLUMN("T_R", report.mapping[contracts::kDimR]),
    MAERI_CSV_COLUMN("T_S", report.mapping[contracts::kDimS]),
    MAERI_CSV_COLUMN("T_C", report.mapping[contracts::kDimC]),
    MAERI_CSV_COLUMN("T_K", report.mapping[contracts::kDimK]),
    MAERI_CSV_COLUMN("T_N", report.mapping[contracts::kDimN]),
    MAERI_CSV_COLUMN("T_X", report.mapping[contracts::kDimX]),
    MAERI_CSV_COLUMN("T_Y", report.mapping[contracts::kDimY]),
    MAERI_CSV_COLUMN("vn_size", report.vn_size),
    MAERI_CSV_COLUMN("vn_count", report.vn_count),
    MAERI_CSV_COLUMN("cycles", report.cycles.total),
    MAERI_CSV_COLUMN("energy_pj", report.energy_pj.total),
    MAERI_CSV_COLUMN("edp", report.edp()),
    MAERI_CSV_COLUMN("peak_utilisation", report.peak_utilisation),
    MAERI_CSV_COLUMN("average_utilisation", report.average_utilisation),
    MAERI_CSV_COUNT(multiplications),
    MAERI_CSV_COUNT(additions),
    MAERI_CSV_COUNT(accumulation_additions),
    MAERI_CSV_COUNT(dn_traversals),
    MAERI_CSV_COUNT(mn_forwards),
    MAERI_CSV_COUNT(sdm_input_reads),
    MAERI_CSV_COUNT(sdm_weight_reads),
    MAERI_CSV_COUNT(sdm_psum_reads),
    MAERI_CSV_COUNT(sdm_output_writes),
    MAERI_CSV_COUNT(dram_bytes),
};

// Where the T_G column sits when a table has it: right after the fabric tile's seven sizes.
constexpr std::size_t kGroupsColumnAfter = contracts::kNumTileDims;
const CsvColumn kGroupsColumn = MAERI_CSV_COLUMN(kGroupsKey, report.mapping.groups_per_step());

#undef MAERI_CSV_COUNT
#undef MAERI_CSV_COLUMN

// The table's columns in order: kCsvColumns with, when asked, kGroupsColumn after the tile's sizes.
template <class Visit>
void for_each_csv_column(bool with_group_tile, Visit&& visit) {
  for (std::size_t i = 0; i < std::size(kCsvColumns); ++i) {
    if (with_group_tile && i == kGroupsColumnAfter) visit(kGroupsColumn);
    visit(kCsvColumns[i]);
  }
}

}  // namespace

nlohmann::json to_json(const contracts::CostReport& report) {
  nlohmann::json json;
  json["tile"] = nlohmann::json::object();
  for (int dim = 0; dim < contracts::kNumTileDims; ++dim) json["tile"][kTileKeys[dim]] = report.mapping[dim];
  if (report.mapping.groups_per_step() != 1) json["tile"][kGroupsKey] = report.mapping.groups_per_step();
  json["sdm"] = sdm_json(report.mapping.sdm);
  json["phase_order"] = contracts::phase_order_text(report.mapping.phase_order);
  for_each_field(report, [&json](const char* section, const char* key, const auto& field) {
    (section ? json[section] : json)[key] = field;
  });
  json["dram_ratio"] = report.compulsory_dram_bytes > 0 ? static_cast<double>(report.counts.dram_bytes) /
                                                              static_cast<double>(report.compulsory_dram_bytes)
                                                        : 0.0;
  return json;
}

contracts::CostReport cost_report_from_json(const nlohmann::json& json) {
  contracts::CostReport report;
  const nlohmann::json& tile = json.at("tile");
  for (int dim = 0; dim < contracts::kNumTileDims; ++dim)
    report.mapping[dim] = tile.at(kTileKeys[dim]).get<std::int64_t>();
  report.mapping.tile.groups = tile.value(kGroupsKey, std::int64_t{1});
  if (!json.at("sdm").is_null()) {
    const nlohmann::json& sdm = json.at("sdm");
    report.mapping.sdm.blocked = true;
    for (int dim = 0; dim < contracts::kNumSdmDims; ++dim)
      report.mapping.sdm.block[size_t(dim)] = sdm.at(contracts::sdm_dim_key(dim)).get<std::int64_t>();
    report.mapping.sdm.order = contracts::parse_order(sdm.at("order").get<std::string>()).value_or(contracts::kDefaultSdmOrder);
  }
  report.mapping.phase_order =
      contracts::parse_phase_order(json.at("phase_order").get<std::string>()).value_or(contracts::kDefaultPhaseOrder);
  for_each_field(report, [&json](const char* section, const char* key, auto& field) {
    (section ? json.at(section) : json).at(key).get_to(field);
  });
  return report;
}

std::string csv_header(bool with_group_tile) {
  std::string header;
  for_each_csv_column(with_group_tile, [&](const CsvColumn& column) {
    header += (header.empty() ? "" : ",") + std::string(column.name);
  });
  return header;
}

std::string csv_row(const contracts::CostReport& report, bool with_group_tile) {
  std::string row;
  for_each_csv_column(with_group_tile, [&](const CsvColumn& column) {
    row += (row.empty() ? "" : ",") + column.value(report);
  });
  return row;
}

}  // namespace maeri::mapper
