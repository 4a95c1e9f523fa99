// Checks on an ONNX graph before shape inference (see onnx_graph_checks.hpp).
#include "importer/onnx_graph_checks.hpp"

#include <fmt/format.h>
#include <onnx/defs/schema.h>

#include <cstdint>
#include <limits>
#include <set>
#include <unordered_map>
#include <vector>

#include "contracts/layer.hpp"
#include "util/input_error.hpp"

namespace maeri::importer {
namespace {

using AttributeType = onnx::AttributeProto_AttributeType;

struct AttributeRule {
  const char* op;  // nullptr: every operator of the default domain
  const char* name;
  AttributeType type;
  std::size_t count;  // values of a list (INTS); 0: any number
  std::int64_t min = 0, max = 0;
  std::vector<std::string> words = {};  // the values a STRING may take
};

constexpr std::int64_t kNoLimit = std::numeric_limits<std::int64_t>::max();
constexpr AttributeType kInt = onnx::AttributeProto_AttributeType_INT;
constexpr AttributeType kInts = onnx::AttributeProto_AttributeType_INTS;
constexpr AttributeType kString = onnx::AttributeProto_AttributeType_STRING;

// The first rule that names a node's operator wins over the rules for every operator.
const std::vector<AttributeRule>& attribute_rules() {
  static const std::vector<AttributeRule> rules = {
      // What the importer reads, in the ranges of the Layer it becomes (a 1-D or 2-D convolution: the importer
      // checks the counts against the input's rank).
      {"Conv", "group", kInt, 0, 1, contracts::kMaxLayerDimension},
      {"Conv", "kernel_shape", kInts, 0, 1, contracts::kMaxLayerDimension},
      {"Conv", "strides", kInts, 0, 1, contracts::kMaxStride},
      {"Conv", "dilations", kInts, 0, 1, contracts::kMaxDilation},
      {"Conv", "pads", kInts, 0, 0, contracts::kMaxLayerDimension},
      {"ConvTranspose", "group", kInt, 0, 1, contracts::kMaxLayerDimension},
      {"ConvTranspose", "strides", kInts, 0, 1, contracts::kMaxStride},
      {"ConvTranspose", "dilations", kInts, 0, 1, contracts::kMaxDilation},
      {"ConvTranspose", "pads", kInts, 0, 0, contracts::kMaxLayerDimension},
      {"ConvTranspose", "output_padding", kInts, 0, 0, contracts::kMaxStride},
      {"LSTM", "hidden_size", kInt, 0, 1, contracts::kMaxLayerDimension},
      {"GRU", "hidden_size", kInt, 0, 1, contracts::kMaxLayerDimension},
      {"RNN", "hidden_size", kInt, 0, 1, contracts::kMaxLayerDimension},
      {"MaxPool", "pads", kInts, 0, 0, contracts::kMaxLayerDimension},
      {"AveragePool", "pads", kInts, 0, 0, contracts::kMaxLayerDimension},
      {"Conv", "auto_pad", kString, 0, 0, 0, {"NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"}},
      {"Gemm", "transA", kInt, 0, 0, 1},
      {"Gemm", "transB", kInt, 0, 0, 1},
      // What shape inference divides by, on pooling, ConvTranspose, DepthToSpace and the rest.
      {nullptr, "strides", kInts, 0, 1, kNoLimit},
      {nullptr, "dilations", kInts, 0, 1, kNoLimit},
      {nullptr, "kernel_shape", kInts, 0, 1, kNoLimit},
      {nullptr, "blocksize", kInt, 0, 1, kNoLimit},
  };
  return rules;
}

const AttributeRule* rule_for(const std::string& op, const std::string& name) {
  const AttributeRule* general = nullptr;
  for (const AttributeRule& rule : attribute_rules()) {
    if (rule.name != name) continue;
    if (rule.op == nullptr) {
      if (!general) general = &rule;
    } else if (rule.op == op) {
      return &rule;
    }
  }
  return general;
}

const char* type_name(AttributeType type) {
  switch (type) {
    case onnx::AttributeProto_AttributeType_FLOAT: return "a float (FLOAT)";
    case onnx::AttributeProto_AttributeType_INT: return "an integer (INT)";
    case onnx::AttributeProto_AttributeType_STRING: return "a string (STRING)";
    case onnx::AttributeProto_AttributeType_FLOATS: return "a list of floats (FLOATS)";
    case onnx::AttributeProto_AttributeType_INTS: return "a list of integers (INTS)";
    case onnx::AttributeProto_AttributeType_STRINGS: return "a list of strings (STRINGS)";
    case onnx::AttributeProto_AttributeType_UNDEFINED: return "no type (UNDEFINED)";
    default: return "a tensor, graph or other non-scalar value";
  }
}

std::string range_text(std::int64_t min, std::int64_t max) {
  return max == kNoLimit ? fmt::format(">= {}", min) : fmt::format("in [{}, {}]", min, max);
}

// The problem with `attribute` under `rule`, or "" when it obeys it.
std::string attribute_problem(const onnx::AttributeProto& attribute, const AttributeRule& rule) {
  std::string expected;
  if (rule.type == kInt) expected = fmt::format("an integer {}", range_text(rule.min, rule.max));
  if (rule.type == kInts)
    expected = fmt::format("a list of {}integers {}", rule.count ? std::to_string(rule.count) + " " : "",
                           range_text(rule.min, rule.max));
  if (rule.type == kString) {
    for (const std::string& word : rule.words) expected += (expected.empty() ? "" : ", ") + word;
    expected = "one of " + expected;
  }
  // A value of another type sits in another field: read as an integer it would be 0 (group = 2.0 read as 0).
  if (attribute.type() != rule.type)
    return fmt::format("expected {}, found {}", expected, type_name(attribute.type()));
  if (rule.type == kInt && (attribute.i() < rule.min || attribute.i() > rule.max))
    return fmt::format("expected {}, found {}", expected, attribute.i());
  if (rule.type == kInts) {
    std::string values;
    bool in_range = true;
    for (const std::int64_t value : attribute.ints()) {
      values += (values.empty() ? "" : ", ") + std::to_string(value);
      in_range = in_range && value >= rule.min && value <= rule.max;
    }
    const bool counted = rule.count == 0 || std::size_t(attribute.ints_size()) == rule.count;
    if (!in_range || !counted || attribute.ints_size() == 0) return fmt::format("expected {}, found [{}]", expected, values);
  }
  if (rule.type == kString) {
    for (const std::string& word : rule.words)
      if (attribute.s() == word) return "";
    return fmt::format("expected {}, found '{}'", expected, attribute.s());
  }
  return "";
}

}  // namespace

std::string node_label(const onnx::NodeProto& node, int index) {
  return node.name().empty() ? fmt::format("{}#{}", node.op_type(), index) : node.name();
}

bool in_default_domain(const onnx::NodeProto& node) { return node.domain().empty() || node.domain() == "ai.onnx"; }

bool becomes_fabric_layer(const std::string& op_type) {
  static const std::set<std::string> fabric = {"Conv", "ConvTranspose", "Gemm", "MatMul",
                                               "Einsum", "LSTM", "GRU", "RNN"};
  return fabric.count(op_type) > 0;
}

bool holds_fabric_node(const onnx::GraphProto& graph) {
  for (const onnx::NodeProto& node : graph.node()) {
    if (in_default_domain(node) && becomes_fabric_layer(node.op_type())) return true;
    for (const onnx::AttributeProto& attribute : node.attribute()) {
      if (attribute.type() == onnx::AttributeProto_AttributeType_GRAPH && holds_fabric_node(attribute.g())) return true;
      for (const onnx::GraphProto& subgraph : attribute.graphs())
        if (holds_fabric_node(subgraph)) return true;
    }
  }
  return false;
}

void check_graph_before_inference(const onnx::GraphProto& graph, std::int64_t opset, const std::string& path) {
  const auto fail = [&](const onnx::NodeProto& node, int index, const std::string& problem) {
    throw util::InputError({path, 0, 0}, "node " + node_label(node, index), problem);
  };
  std::unordered_map<std::string, int> producer;  // tensor → the node that writes it
  for (int index = 0; index < graph.node_size(); ++index)
    for (const std::string& output : graph.node(index).output())
      if (!output.empty()) producer.emplace(output, index);
  for (int index = 0; index < graph.node_size(); ++index) {
    const onnx::NodeProto& node = graph.node(index);
    for (const std::string& input : node.input()) {
      const auto written = producer.find(input);
      if (written == producer.end() || written->second < index) continue;
      fail(node, index,
           written->second == index
               ? fmt::format("it reads its own output '{}' (a cycle; an ONNX graph is acyclic)", input)
               : fmt::format("it reads '{}', which node {} after it writes (an ONNX graph is acyclic and sorted)",
                             input, node_label(graph.node(written->second), written->second)));
    }
    if (!in_default_domain(node)) continue;  // shape inference and the importer leave custom operators alone
    // Shape inference reads an operator's required inputs without checking that they are there (a MaxPool of no
    // input was a SIGSEGV in onnx::convPoolShapeInference).
    if (const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(node.op_type(), int(opset), "")) {
      if (node.input_size() < schema->min_input() || node.input_size() > schema->max_input() ||
          node.output_size() < schema->min_output() || node.output_size() > schema->max_output())
        fail(node, index, fmt::format("{} inputs and {} outputs: {} (opset {}) takes {}…{} inputs and {}…{} outputs",
                                      node.input_size(), node.output_size(), node.op_type(), opset,
                                      schema->min_input(), schema->max_input(), schema->min_output(),
                                      schema->max_output()));
      for (int i = 0; i < node.input_size() && std::size_t(i) < schema->inputs().size(); ++i)
        if (node.input(i).empty() && schema->inputs()[std::size_t(i)].GetOption() == onnx::OpSchema::Single)
          fail(node, index, fmt::format("its required input {} ('{}') is empty", i, schema->inputs()[std::size_t(i)].GetName()));
    }
    std::set<std::string> seen;
    for (const onnx::AttributeProto& attribute : node.attribute()) {
      if (!seen.insert(attribute.name()).second)
        fail(node, index, fmt::format("attribute '{}' appears twice", attribute.name()));
      const AttributeRule* rule = rule_for(node.op_type(), attribute.name());
      if (!rule) continue;
      const std::string problem = attribute_problem(attribute, *rule);
      if (!problem.empty()) fail(node, index, fmt::format("attribute '{}': {}", attribute.name(), problem));
    }
    // A window's lists describe the same spatial axes: shape inference indexes one by the length of another.
    std::size_t axes = 0;
    for (const onnx::AttributeProto& attribute : node.attribute()) {
      const bool per_axis = attribute.name() == "kernel_shape" || attribute.name() == "strides" ||
                            attribute.name() == "dilations" || attribute.name() == "output_padding";
      const bool per_side = attribute.name() == "pads";
      if (attribute.type() != kInts || (!per_axis && !per_side)) continue;
      const std::size_t count = std::size_t(attribute.ints_size()) / (per_side ? 2 : 1);
      if ((per_side && attribute.ints_size() % 2) || (axes && count != axes))
        fail(node, index, fmt::format("attribute '{}' has {} values, which disagrees with the node's other window "
                                      "attributes ({} spatial axes{})",
                                      attribute.name(), attribute.ints_size(), axes ? axes : count,
                                      per_side ? ", two pads each" : ""));
      axes = count;
    }
    for (const onnx::AttributeProto& attribute : node.attribute()) {
      if (attribute.type() == onnx::AttributeProto_AttributeType_GRAPH)
        check_graph_before_inference(attribute.g(), opset, path);
      for (const onnx::GraphProto& subgraph : attribute.graphs()) check_graph_before_inference(subgraph, opset, path);
    }
  }
}

}  // namespace maeri::importer
