// Making a network plan (contracts/network_plan.hpp), once per process and before anything runs: the workload and
// the hardware loaded once, every layer (or the one chosen) mapped once — the best mappings as `maeri map` finds
// them (a whole network with its fused groups: map's own decision), or a mapping file's, its fused groups included
// when asked — and every image built once; or the images of a network manifest read and checked. What `maeri verify`, `maeri run` and calibration hand to the testbench.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "contracts/hardware.hpp"
#include "contracts/mapping_file.hpp"
#include "contracts/network.hpp"
#include "contracts/network_plan.hpp"
#include "importer/onnx_import.hpp"
#include "mapper/search/search.hpp"

namespace maeri::flow {

// A workload (YAML or ONNX) loaded once: its network, and an ONNX model's real weights and biases by tensor name
// (importer::OnnxImport::weights; empty for a YAML workload), and where the importer cut the graph: each network
// input that a skipped node's output became, with "node NAME (OP): reason". What a chained run needs.
struct LoadedWorkload {
  contracts::Network network;
  std::map<std::string, std::vector<double>> weights;
  std::map<std::string, std::string> cut_inputs;
  std::vector<importer::SkippedNode> skipped;  // the skipped and recurrent nodes, and what evaluating them in float needs
  importer::SkippedGraph skipped_graph;
};
LoadedWorkload load_workload(const std::string& path, const importer::ModelInputShapes& model_inputs);

struct PlanOptions {
  std::string workload_path;  // the network's file, named in messages
  std::string mapping_path;   // "" = search each layer's mappings
  std::string layer;          // only this layer ("" = every layer)
  int top = 1;                // searched: the best `top` mappings of each layer
  mapper::Objective objective = mapper::Objective::Runtime;
  // A network's fused groups run fused (their members' images carry a record): a mapping file's, or, when the whole
  // network is searched, the groups `maeri map` decides (flow/map_decision.hpp). false: every layer runs alone.
  bool fused_groups = false;
};

// The plan of the workload at `path` (YAML, or an ONNX model with its input sizes; importer::load_network) on
// `hardware`, as plan_network.
contracts::NetworkPlan plan_workload(const std::string& path, const importer::ModelInputShapes& model_inputs,
                                     const contracts::Hardware& hardware, const PlanOptions& options);

// The plan of `network` on `hardware`. Throws util::InputError for an unknown layer, a layer that does not fit, a
// mapping file that is not of this hardware or lacks a layer, a fused group that breaks a rule.
contracts::NetworkPlan plan_network(const contracts::Network& network, const contracts::Hardware& hardware,
                                    const PlanOptions& options);

// The plan of a decision already made and held in memory (`maeri sweep --verify`: a point's flow::map_decision):
// every layer's mapping and the fused groups as `decision` gives them, messages naming kMapDecisionSource.
contracts::NetworkPlan plan_decision(const contracts::Network& network, const contracts::Hardware& hardware,
                                     const contracts::MappingFile& decision, const std::string& workload_path);

// The plan of a manifest's images (docs/network-manifest.md): every checksum checked first; a layer whose file does
// not match, cannot be read or is not an image of this hardware becomes a run with an error (named in the report, the
// others still run). `layer`: only this one ("" = all). Throws util::InputError when the images were built for
// other hardware or no layer has the name.
contracts::NetworkPlan plan_manifest(const std::string& manifest_path, const contracts::Hardware& hardware,
                                     const std::string& layer);

}  // namespace maeri::flow
