// The network part of a command's HTML report (report_skeleton.hpp).
#include "cli/report_skeleton.hpp"

namespace maeri::cli {

std::optional<std::size_t> operator_named(const contracts::Network& network, const std::string& name) {
  for (std::size_t o = 0; o < network.operators.size(); ++o)
    if (network.operators[o].name == name) return o;
  return std::nullopt;
}

report::ReportData report_skeleton(const std::string& title, const contracts::Network& network,
                                   const contracts::Hardware& hardware) {
  report::ReportData data;
  data.title = title;
  data.network = network.name;
  data.hardware = hardware;
  for (const contracts::Operator& op : network.operators) {
    report::Operator entry;
    entry.name = op.name;
    entry.kind = contracts::operator_label(op);
    for (std::size_t i = 0; i < contracts::activation_inputs(network, op); ++i)
      if (const auto producer = network.producer(op.inputs[i])) entry.inputs.push_back(*producer);
    if (op.kind == contracts::OperatorKind::FabricLayer) {
      entry.fabric.emplace();
      entry.fabric->shape = contracts::shape_text(network.layers[op.layer]);
    }
    data.operators.push_back(std::move(entry));
  }
  return data;
}

void add_report_group(report::ReportData& data, const contracts::Network& network, const std::string& name,
                      const std::vector<std::string>& members) {
  report::FusedGroup group{name, {}};
  for (const std::string& member : members)
    if (const auto o = operator_named(network, member)) group.members.push_back(*o);
  data.groups.push_back(std::move(group));
}

}  // namespace maeri::cli
