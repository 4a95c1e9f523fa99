// The decision `maeri map` makes for a whole network (see map_decision.hpp).
#include "flow/map_decision.hpp"

#include "codegen/exact_traffic.hpp"

namespace maeri::flow {

WorkloadMappingOptions map_decision_options(mapper::Objective objective, bool fusion, const std::string& workload_path) {
  WorkloadMappingOptions options;
  options.objective = objective;
  options.exact_traffic_for = codegen::exact_traffic_for;
  options.workload_path = workload_path;
  options.fusion = fusion;
  return options;
}

contracts::MappingFile map_decision(const contracts::Network& network, const contracts::Hardware& hardware,
                                    mapper::Objective objective, bool fusion, const std::string& workload_path) {
  WorkloadMappingOptions options = map_decision_options(objective, fusion, workload_path);
  options.decision_only = true;  // the mapping file alone: the reports beside the lists are not timed exactly
  WorkloadMapping mapping(network, hardware, options);
  mapping.map(network.layers, [](const MappedLayer&) {});
  return mapping.mapping_file();
}

}  // namespace maeri::flow
