// The HTML report of a chained run (run_report.hpp).
#include "cli/run_report.hpp"

#include <fmt/format.h>

#include <optional>

#include "cli/report_skeleton.hpp"
#include "mapper/model/cost_model.hpp"
#include "testbench/cross_check.hpp"

namespace maeri::cli {
namespace {

std::optional<double> rtl_of(const std::vector<testbench::CrossCheckRow>& rows, const std::string& metric) {
  for (const testbench::CrossCheckRow& row : rows)
    if (row.metric == metric) return row.rtl;
  return std::nullopt;
}

// The mapping the plan ran the layer with: its fused group's for a member, else its best run's.
std::optional<contracts::Mapping> planned_mapping(const contracts::NetworkPlan& plan, std::size_t layer) {
  if (const contracts::PlannedGroup* group = plan.group_of(layer)) return group->mappings[layer - group->first];
  if (const contracts::PlannedRun* run = plan.best_run(layer)) return run->mapping;
  return std::nullopt;
}

// OperatorRun::role starts "member k of n: " (testbench's member role text); the page names the role itself.
std::string role_text(const std::string& role) {
  const std::size_t after_member = role.rfind("member ", 0) == 0 ? role.find(": ") : std::string::npos;
  return after_member == std::string::npos ? role : role.substr(after_member + 2);
}

// A fabric layer's run: its mapping, role, cycle split and DRAM bytes. The RTL does not time configuration apart
// from compute: the split's configuration part is the model's (exact against the RTL's config-port writes).
void fill_fabric_run(report::Operator& entry, report::CycleSplit& cycles, const contracts::Layer& layer,
                     const contracts::Hardware& hardware, const std::optional<contracts::Mapping>& mapping,
                     const testbench::OperatorRun& run) {
  if (mapping) entry.fabric->mapping = *mapping;
  else if (const auto tile = contracts::parse_fabric_tile(run.tile)) entry.fabric->mapping.tile = *tile;
  entry.fabric->role = role_text(run.role);
  const contracts::CostReport model = mapper::evaluate(layer, hardware, entry.fabric->mapping);
  const double compute = rtl_of(run.rows, testbench::kComputeCycles).value_or(model.cycles.compute());
  cycles.configuration = model.cycles.reconfiguration;
  cycles.compute = compute - cycles.configuration;
  cycles.memory_stall = rtl_of(run.rows, testbench::kMemoryStallCycles).value_or(0);
  if (const auto dram = rtl_of(run.rows, "DRAM bytes")) entry.fabric->dram_bytes = std::int64_t(*dram);
  entry.fabric->compulsory_dram_bytes = model.compulsory_dram_bytes;
}

// The network's cycles, model against RTL: the fabric's with DRAM and the unit's, summed over the runs.
void add_cycles(const testbench::OperatorRun& run, double& model, double& rtl) {
  const std::string metric = run.where == "fabric" ? testbench::kTotalCycles : testbench::kPostProcessingCycles;
  for (const testbench::CrossCheckRow& row : run.rows)
    if (row.metric == metric) model += row.model, rtl += row.rtl;
}

}  // namespace

report::ReportData run_report(const std::string& title, const contracts::Network& network,
                              const contracts::NetworkPlan& plan, const testbench::NetworkRunResult& result) {
  report::ReportData data = report_skeleton(title, network, plan.hardware);
  double model_cycles = 0, rtl_cycles = 0;
  for (const testbench::OperatorRun& run : result.operators) {
    const std::optional<std::size_t> found = operator_named(network, run.name);
    if (!found) continue;
    const contracts::Operator& op = network.operators[*found];
    report::Operator& entry = data.operators[*found];
    report::CycleSplit cycles = entry.cycles.value_or(report::CycleSplit{});
    if (run.where == "fabric" && entry.fabric)
      fill_fabric_run(entry, cycles, network.layers[op.layer], plan.hardware, planned_mapping(plan, op.layer), run);
    else  // "unit", or "epilogue" (a fabric layer's, after it)
      cycles.unit += rtl_of(run.rows, testbench::kPostProcessingCycles).value_or(0);
    add_cycles(run, model_cycles, rtl_cycles);
    for (const testbench::CrossCheckRow& row : run.rows) entry.metrics.push_back({row.metric, row.model, row.rtl});
    entry.cycles = cycles;
    data.verdicts.push_back({fmt::format("{} ({})", run.name, run.where), run.pass, run.verdict});
  }
  for (const testbench::GroupRun& group : result.groups) add_report_group(data, network, group.name, group.members);
  data.verdicts.push_back({"network", result.pass,
                           fmt::format("{} of {} runs{}; {}", result.operators.size(), result.planned_runs,
                                       result.pass ? ", every tensor bit-exact" : "", result.quantization_summary)});
  if (!result.float_computed.empty())
    data.verdicts.push_back({"computed by the float reference", true,
                             fmt::format("the unit does not run their node; computed from the real input: {}",
                                         fmt::join(result.float_computed, "; "))});
  data.totals = {{"cycles (fabric with DRAM + unit)", model_cycles, rtl_cycles}};
  return data;
}

}  // namespace maeri::cli
