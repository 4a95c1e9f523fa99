// The HTML report of `maeri map` (map_report.hpp).
#include "cli/map_report.hpp"

#include <fmt/format.h>

#include "cli/report_skeleton.hpp"
#include "mapper/model/post_processing_model.hpp"

namespace maeri::cli {
namespace {

// A fabric layer's model in its role: its mapping, rows, cycle split and DRAM bytes.
void fill_from_model(report::Operator& entry, report::CycleSplit& cycles, const flow::ChosenLayer& chosen) {
  const contracts::CostReport& model = chosen.report;
  entry.fabric->mapping = model.mapping;
  if (chosen.fused)
    entry.fabric->role = fmt::format("{}, member {} of {}", flow::member_role(chosen.fused->role),
                                     chosen.fused->position + 1, chosen.fused->members);
  entry.metrics = {{"cycles", model.cycles.total, {}},
                   {"memory stall cycles", model.cycles.memory_stall, {}},
                   {"reconfiguration cycles", model.cycles.reconfiguration, {}},
                   {"multiplications", double(model.counts.multiplications), {}},
                   {"DRAM bytes", double(model.counts.dram_bytes), {}},
                   {"energy pJ", model.energy_pj.total, {}},
                   {"average utilisation %", 100 * model.average_utilisation, {}}};
  entry.fabric->dram_bytes = model.counts.dram_bytes;
  entry.fabric->compulsory_dram_bytes = model.compulsory_dram_bytes;
  cycles.compute = model.cycles.total - model.cycles.memory_stall - model.cycles.reconfiguration;
  cycles.memory_stall = model.cycles.memory_stall;
  cycles.configuration = model.cycles.reconfiguration;
}

}  // namespace

report::ReportData map_report(const contracts::Network& network, const contracts::Hardware& hardware,
                              const flow::WorkloadMapping& mapping) {
  report::ReportData data = report_skeleton("maeri map", network, hardware);
  for (std::size_t o = 0; o < network.operators.size(); ++o) {
    const contracts::Operator& op = network.operators[o];
    report::CycleSplit cycles;
    // The post-processing unit's model: a fabric layer's epilogue, or the whole operator beside the fabric.
    cycles.unit = double(mapper::evaluate_post_processing(network, o, hardware).counts.cycles);
    if (op.kind == contracts::OperatorKind::FabricLayer)
      for (const flow::ChosenLayer& chosen : mapping.chosen())
        if (chosen.layer.name == network.layers[op.layer].name) fill_from_model(data.operators[o], cycles, chosen);
    data.operators[o].cycles = cycles;
  }
  for (const contracts::FusedGroupEntry& group : mapping.mapping_file().fused_groups)
    add_report_group(data, network, group.name, group.layers);
  const flow::WorkloadTotals& totals = mapping.totals();
  data.totals = {{"cycles", totals.cycles, {}},
                 {"energy pJ", totals.energy_pj, {}},
                 {"DRAM bytes", double(totals.dram_bytes), {}},
                 {"compulsory DRAM bytes", double(totals.compulsory_dram_bytes), {}}};
  return data;
}

}  // namespace maeri::cli
