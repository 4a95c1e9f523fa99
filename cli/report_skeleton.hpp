// What every command's HTML report starts from (docs/report.md): the network's operators in graph order with their
// activation edges (weights are not drawn), each fabric layer with its shape, and the fused groups by operator.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "contracts/hardware.hpp"
#include "contracts/network.hpp"
#include "report/report_data.hpp"

namespace maeri::cli {

report::ReportData report_skeleton(const std::string& title, const contracts::Network& network,
                                   const contracts::Hardware& hardware);

// The operator named `name` (its index in network.operators); nullopt when there is none.
std::optional<std::size_t> operator_named(const contracts::Network& network, const std::string& name);

// A fused group of named layers, as the operators that run them; a name not in the network is left out.
void add_report_group(report::ReportData& data, const contracts::Network& network, const std::string& name,
                      const std::vector<std::string>& members);

}  // namespace maeri::cli
