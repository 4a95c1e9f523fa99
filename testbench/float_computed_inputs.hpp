// Tensors the unit cannot compute, computed by the float reference from the real input (never seeded): where the
// importer skipped a node (importer::OnnxImport::skipped: an operator the post-processing unit does not run), its
// output is a network input of the toolkit's network; a chained run computes it from the run's real input by running
// the float reference up to the node's inputs and evaluating the node in double precision
// (importer/onnx_node_evaluation.hpp). The integer run then reads it quantized, like any network input; the report
// lists those tensors as "computed by the float reference".
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "contracts/network.hpp"
#include "importer/onnx_import.hpp"
#include "testbench/network_reference.hpp"

namespace maeri::testbench {

// The skipped nodes of an ONNX model and what evaluating them needs (empty for a YAML workload).
struct SkippedNodes {
  std::vector<importer::SkippedNode> nodes;
  importer::SkippedGraph graph;
};

// The network inputs a skipped node of an operator the float reference evaluates writes (by index into
// Network::tensors), each with "node NAME (OP)".
std::map<std::size_t, std::string> float_computed_inputs(const contracts::Network& network, const SkippedNodes& skipped);

// Fills `values[i]` (the values of `inputs`, Network::network_inputs()) of every input of `computed` that is still
// empty: the float reference run operator by operator from the inputs that are given and the skipped nodes evaluated
// as their inputs become known. Throws util::InputError (file `workload_path`) naming an input it cannot compute
// and why (a node reading a tensor the toolkit's network does not hold, a node it cannot evaluate).
void compute_float_inputs(const contracts::Network& network, const std::vector<RealLayerWeights>& weights,
                          const std::vector<std::size_t>& inputs, const std::map<std::size_t, std::string>& computed,
                          const SkippedNodes& skipped, const std::string& workload_path,
                          std::vector<std::vector<double>>& values);

}  // namespace maeri::testbench
