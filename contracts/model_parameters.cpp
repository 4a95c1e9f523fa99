// The named model parameters, their ranges and meanings (see model_parameters.hpp).
#include "contracts/model_parameters.hpp"

#include <stdexcept>

namespace maeri::contracts {

const std::vector<ModelParameterInfo>& model_parameter_table() {
  static const std::vector<ModelParameterInfo> table = {
      {"dn_level_latency", &ModelParameters::dn_level_latency, 0, 1e6, "cycles per distribution-network level"},
      {"mn_latency", &ModelParameters::mn_latency, 0, 1e6, "cycles through a multiplier switch"},
      {"rn_level_latency", &ModelParameters::rn_level_latency, 0, 1e6, "cycles per reduction-network level"},
      {"collect_latency", &ModelParameters::collect_latency, 0, 1e6, "cycles onto the output lanes"},
      {"step_overhead", &ModelParameters::step_overhead, 0, 1e6, "extra cycles per control step"},
      {"phase_overhead", &ModelParameters::phase_overhead, 0, 1e6, "extra cycles per weight phase"},
      {"config_words_per_cycle", &ModelParameters::config_words_per_cycle, 0.001, 1e6, "config-port words/cycle"},
      {"dram_efficiency", &ModelParameters::dram_efficiency, 0.01, 1, "fraction of peak DRAM bandwidth achieved"},
      {"memory_contention", &ModelParameters::memory_contention, 0, 1, "0 = compute/DRAM overlap, 1 = they add"},
      {"dram_row_bytes", &ModelParameters::dram_row_bytes, 0, 1 << 20, "bytes of a DRAM row (0 = no rows)"},
      {"dram_row_miss", &ModelParameters::dram_row_miss, 0, 1e4, "cycles lost entering a DRAM row"},
      {"dram_turnaround", &ModelParameters::dram_turnaround, 0, 1e4, "cycles lost per DRAM read/write switch"},
  };
  return table;
}

const ModelParameterInfo& model_parameter(const std::string& name) {
  std::string known;
  for (const ModelParameterInfo& info : model_parameter_table()) {
    if (name == info.name) return info;
    known += (known.empty() ? "" : ", ") + std::string(info.name);
  }
  throw std::invalid_argument("unknown model parameter '" + name + "' (known: " + known + ")");
}

}  // namespace maeri::contracts
