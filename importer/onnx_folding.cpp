// Input sizes and shape-computation folding on an ONNX graph (see onnx_folding.hpp).
#include "importer/onnx_folding.hpp"

#include <fmt/format.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "contracts/strict_yaml.hpp"
#include "importer/onnx_graph_checks.hpp"
#include "importer/onnx_inference_guards.hpp"
#include "importer/onnx_shape_completion.hpp"
#include "importer/onnx_tensor_data.hpp"
#include "util/input_error.hpp"

namespace maeri::importer {
namespace {

// The most nodes Loop unrolling may add to a graph (nested loops multiply): a crafted trip count must not exhaust
// memory before the layer count (kMaxYamlSequenceLength) is checked.
constexpr std::int64_t kMaxUnrolledNodes = std::int64_t(1) << 18;

using Dims = std::vector<std::int64_t>;

std::string dims_text(const Dims& dims) {
  std::string text;
  for (const std::int64_t dim : dims) text += (text.empty() ? "" : ",") + std::to_string(dim);
  return text;
}

std::optional<std::int64_t> product(const Dims& dims) {
  std::int64_t count = 1;
  for (const std::int64_t dim : dims) {
    if (dim < 0 || (dim > 0 && count > kMaxFoldedElements / dim)) return std::nullopt;
    count *= dim;
  }
  return count;
}

Dims row_major_strides(const Dims& dims) {
  Dims strides(dims.size(), 1);
  for (std::size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return strides;
}

// A value with the element layout of `like` (type), `dims`, elements taken from `source` at `indices`.
TensorValue gather_elements(const TensorValue& source, Dims dims, const std::vector<std::int64_t>& indices) {
  TensorValue out;
  out.type = source.type;
  out.dims = std::move(dims);
  for (const std::int64_t i : indices) {
    if (source.integral()) out.integers.push_back(source.integers[i]);
    else out.reals.push_back(source.reals[i]);
  }
  return out;
}

// Element-wise operators that fold to BOOL.
const std::set<std::string> kComparisons = {"Less", "LessOrEqual", "Greater", "GreaterOrEqual", "Equal"};
const std::set<std::string> kLogic = {"And", "Or", "Xor"};

// Thrown by an evaluator for a node whose constant inputs are inconsistent; becomes an error naming the node.
struct Inconsistent {
  std::string problem;
};
// Thrown when a node's result would be too large to compute with: the node stays in the graph.
struct TooLarge {};

Dims broadcast_dims(const Dims& a, const Dims& b) {
  Dims out(std::max(a.size(), b.size()));
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::int64_t da = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
    const std::int64_t db = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
    if (da != db && da != 1 && db != 1)
      throw Inconsistent{fmt::format("shapes ({}) and ({}) do not broadcast", dims_text(a), dims_text(b))};
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// The element of `value` (of shape `dims`) that position `index` of the broadcast shape `out` reads.
std::int64_t broadcast_source(std::int64_t index, const Dims& out, const Dims& dims) {
  const Dims out_strides = row_major_strides(out), strides = row_major_strides(dims);
  std::int64_t source = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::int64_t coordinate = (index / out_strides[i]) % out[i];
    const std::size_t offset = out.size() - dims.size();
    if (i >= offset && dims[i - offset] != 1) source += coordinate * strides[i - offset];
  }
  return source;
}

std::int64_t normalised_axis(std::int64_t axis, std::size_t rank, const char* what) {
  const std::int64_t r = std::int64_t(rank);
  if (axis < -r || axis >= r) throw Inconsistent{fmt::format("{} {} is out of range for rank {}", what, axis, rank)};
  return axis < 0 ? axis + r : axis;
}

class Folder {
 public:
  Folder(onnx::ModelProto& model, const std::string& path, std::vector<std::string>& notes)
      : model_(model), path_(path), notes_(notes) {
    for (const auto& import : model.opset_import())
      if (import.domain().empty() || import.domain() == "ai.onnx") opset_ = import.version();
  }

  void run() {
    // Unnamed nodes are named after their position before any is removed, so that layer names do not depend on
    // how many nodes in front of them folded away.
    onnx::GraphProto& graph = *model_.mutable_graph();
    for (int index = 0; index < graph.node_size(); ++index)
      if (graph.node(index).name().empty()) graph.mutable_node(index)->set_name(node_label(graph.node(index), index));
    for (int pass = 0;; ++pass) {
      infer();
      if (!fold_pass() || pass > graph.node_size() + 1) break;
    }
    infer();
    refuse_dynamic_loops();
    check_unrolled_conditions();
  }

 private:
  [[noreturn]] void fail(const onnx::NodeProto& node, const std::string& problem) const {
    throw util::InputError({path_, 0, 0}, "node " + node.name(), problem);
  }

  // An intermediate tensor annotated with a symbolic size (an exporter's, or one inference itself gave while a
  // shape computation was still unfolded) keeps it through later inference passes, even once its producer's inputs
  // are constant: dropped before each pass, inference gives the sizes it can now compute (an unrolled Loop's
  // carried state: water_gru).
  void forget_symbolic_annotations() {
    auto& annotations = *model_.mutable_graph()->mutable_value_info();
    const auto symbolic = [](const onnx::ValueInfoProto& info) {
      for (const auto& dim : info.type().tensor_type().shape().dim())
        if (!dim.has_dim_value()) return true;
      return false;
    };
    annotations.erase(std::remove_if(annotations.begin(), annotations.end(), symbolic), annotations.end());
  }

  void infer() {
    guard_onnx_shape_inference();
    forget_symbolic_annotations();
    try {
      onnx::shape_inference::InferShapes(model_);
    } catch (const std::exception& error) {
      // An exporter's annotation of an intermediate tensor may contradict what the graph computes (gtcrn's rank-0
      // shape on a Transpose's output; ONNX Runtime ignores it): inference recomputes them all without it.
      const std::string first = error.what();
      if (model_.graph().value_info_size() == 0)
        throw util::InputError({path_, 0, 0}, "graph", "ONNX shape inference failed: " + first);
      model_.mutable_graph()->clear_value_info();
      try {
        onnx::shape_inference::InferShapes(model_);
      } catch (const std::exception&) {
        throw util::InputError({path_, 0, 0}, "graph", "ONNX shape inference failed: " + first);
      }
    }
    // Shapes that inference leaves unknown (operators without a schema, an opset-9 Slice from the end), given here and
    // carried forward by inference again, a bounded number of times (each round annotates at least one node).
    for (int round = 0;
         round < model_.graph().node_size() && complete_unknown_shapes(*model_.mutable_graph(), int(opset_)); ++round) {
      try {
        onnx::shape_inference::InferShapes(model_);
      } catch (const std::exception& error) {
        throw util::InputError({path_, 0, 0}, "graph", std::string("ONNX shape inference failed: ") + error.what());
      }
    }
    shapes_.clear();
    const auto record = [&](const onnx::ValueInfoProto& value) {
      if (!value.type().has_tensor_type() || !value.type().tensor_type().has_shape()) return;
      Dims dims;
      for (const auto& dim : value.type().tensor_type().shape().dim()) {
        if (!dim.has_dim_value() || dim.dim_value() < 0) return;
        dims.push_back(dim.dim_value());
      }
      shapes_[value.name()] = dims;
    };
    const onnx::GraphProto& graph = model_.graph();
    for (const auto& value : graph.input()) record(value);
    for (const auto& value : graph.value_info()) record(value);
    for (const auto& value : graph.output()) record(value);
    initializers_.clear();
    for (int i = 0; i < graph.initializer_size(); ++i) initializers_[graph.initializer(i).name()] = i;
  }

  // The value of a constant tensor small enough to compute with, or nullptr.
  const TensorValue* constant(const std::string& name) {
    if (name.empty()) return nullptr;
    const auto cached = constants_.find(name);
    if (cached != constants_.end()) return &cached->second;
    const auto found = initializers_.find(name);
    if (found == initializers_.end()) return nullptr;
    const onnx::TensorProto& tensor = model_.graph().initializer(found->second);
    std::int64_t count = 1;
    for (const std::int64_t dim : tensor.dims()) {
      if (dim < 0 || (dim > 0 && count > kMaxFoldedElements / dim)) return nullptr;
      count *= dim;
    }
    if (tensor.data_location() == onnx::TensorProto_DataLocation_EXTERNAL) return nullptr;
    return &constants_.emplace(name, tensor_value(tensor, path_, "initializer " + name)).first->second;
  }

  const onnx::AttributeProto* attribute(const onnx::NodeProto& node, const std::string& key) const {
    for (const auto& attribute : node.attribute())
      if (attribute.name() == key) return &attribute;
    return nullptr;
  }
  std::int64_t int_attribute(const onnx::NodeProto& node, const std::string& key, std::int64_t fallback) const {
    const onnx::AttributeProto* found = attribute(node, key);
    if (!found) return fallback;
    if (found->type() != onnx::AttributeProto_AttributeType_INT)
      fail(node, fmt::format("attribute '{}': expected an integer (INT)", key));
    return found->i();
  }
  std::optional<Dims> ints_attribute(const onnx::NodeProto& node, const std::string& key) const {
    const onnx::AttributeProto* found = attribute(node, key);
    if (!found) return std::nullopt;
    if (found->type() != onnx::AttributeProto_AttributeType_INTS)
      fail(node, fmt::format("attribute '{}': expected a list of integers (INTS)", key));
    return Dims(found->ints().begin(), found->ints().end());
  }

  // Integers of a constant 0-D or 1-D input (axes, shapes, indices), or nullopt when it is not constant.
  std::optional<Dims> integer_input(const onnx::NodeProto& node, int index) {
    if (index >= node.input_size() || node.input(index).empty()) return std::nullopt;
    const TensorValue* value = constant(node.input(index));
    if (!value) return std::nullopt;
    if (!value->integral()) fail(node, fmt::format("input {} '{}' must hold integers", index, node.input(index)));
    return value->integers;
  }

  // Whether every non-empty input of `node` is a constant small enough to compute with.
  // A folded node's input `index`; a missing or empty one is the node's inconsistency, not a null dereference.
  const TensorValue& input_constant(const onnx::NodeProto& node, int index) {
    const TensorValue* value = index < node.input_size() ? constant(node.input(index)) : nullptr;
    if (!value) throw Inconsistent{fmt::format("input {} is missing", index)};
    return *value;
  }

  const TensorValue& named_constant(const std::string& name) {
    const TensorValue* value = constant(name);
    if (!value) throw Inconsistent{"an input is empty"};
    return *value;
  }

  bool constant_inputs(const onnx::NodeProto& node) {
    for (const std::string& input : node.input())
      if (!input.empty() && !constant(input)) return false;
    return true;
  }

  // One pass over the nodes in order; every node that folds becomes an initializer. Returns whether any did.
  bool fold_pass() {
    onnx::GraphProto& graph = *model_.mutable_graph();
    std::vector<onnx::NodeProto> kept;
    bool changed = false;
    for (int index = 0; index < graph.node_size(); ++index) {
      const onnx::NodeProto& node = graph.node(index);
      if (!in_default_domain(node)) {
        kept.push_back(node);
        continue;
      }
      if ((node.op_type() == "If" && inline_branch(node, kept)) || (node.op_type() == "Loop" && unroll_loop(node, kept))) {
        changed = true;
        continue;
      }
      if (node.op_type() == "Identity" && node.output_size() == 1 && initializers_.count(node.input(0)) &&
          !initializers_.count(node.output(0))) {
        // Copied as it is: Identity often stands between a shared weight and its readers, of any size.
        onnx::TensorProto copy = graph.initializer(initializers_.at(node.input(0)));
        copy.set_name(node.output(0));
        initializers_[node.output(0)] = graph.initializer_size();
        *graph.add_initializer() = std::move(copy);
        changed = true;
        continue;
      }
      if (node.op_type() == "Split" && split_constant(node)) {
        changed = true;
        continue;
      }
      std::optional<TensorValue> value;
      try {
        value = evaluate(node);
      } catch (const Inconsistent& error) {
        fail(node, fmt::format("{} on constants: {}", node.op_type(), error.problem));
      } catch (const TooLarge&) {
        value.reset();
      }
      if (!value || node.output_size() != 1 || node.output(0).empty() || initializers_.count(node.output(0))) {
        kept.push_back(node);
        continue;
      }
      initializers_[node.output(0)] = graph.initializer_size();
      *graph.add_initializer() = tensor_proto(*value, node.output(0));
      constants_[node.output(0)] = std::move(*value);
      changed = true;
    }
    if (!changed) return false;
    graph.clear_node();
    for (onnx::NodeProto& node : kept) *graph.add_node() = std::move(node);
    return true;
  }

  // A MatMul of two constant matrices (tf2onnx's recurrent cell at its first step: the initial state, zeros, times
  // the recurrent kernel), in double; other ranks are left to the graph.
  static std::optional<TensorValue> matrix_product(const TensorValue& a, const TensorValue& b) {
    if (a.dims.size() != 2 || b.dims.size() != 2 || a.dims[1] != b.dims[0] || a.integral() || b.integral())
      return std::nullopt;
    const std::int64_t m = a.dims[0], k = a.dims[1], n = b.dims[1];
    if (!product({m, k, n})) throw TooLarge{};  // bounds the work too, not only the result
    TensorValue out;
    out.type = a.type;
    out.dims = {m, n};
    out.reals.assign(std::size_t(m * n), 0.0);
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < k; ++j)
        for (std::int64_t c = 0; c < n; ++c) out.reals[std::size_t(i * n + c)] += a.reals[std::size_t(i * k + j)] * b.reals[std::size_t(j * n + c)];
    return out;
  }

  // A Split of a constant (tf2onnx's GRU cell splits its bias into the gates inside the while loop, so every
  // unrolled step has one): each output becomes an initializer. Sizes as the reader takes them (the `split`
  // attribute before opset 13, an input from 13 on, equal parts when absent); anything else is left to the reader.
  bool split_constant(const onnx::NodeProto& node) {
    const TensorValue* found = node.input_size() > 0 ? constant(node.input(0)) : nullptr;
    if (!found || found->dims.empty()) return false;
    const TensorValue whole = *found;  // the outputs join constants_ below
    const TensorValue* data = &whole;
    const std::int64_t rank = std::int64_t(data->dims.size()), parts = node.output_size();
    std::int64_t axis = int_attribute(node, "axis", 0);
    if (axis < -rank || axis >= rank || parts < 1) return false;
    if (axis < 0) axis += rank;
    const std::int64_t extent = data->dims[std::size_t(axis)];
    Dims sizes;
    if (opset_ < 13) {
      sizes = ints_attribute(node, "split").value_or(Dims{});
    } else if (node.input_size() > 1 && !node.input(1).empty()) {
      const TensorValue* given = constant(node.input(1));
      if (!given || !given->integral()) return false;
      sizes = given->integers;
    }
    if (sizes.empty())
      for (std::int64_t i = 0, each = (extent + parts - 1) / parts; i < parts; ++i)
        sizes.push_back(std::max<std::int64_t>(0, std::min(each, extent - i * each)));
    std::int64_t total = 0;
    for (const std::int64_t size : sizes) total += size < 0 ? extent + 1 : size;
    if (std::int64_t(sizes.size()) != parts || total != extent) return false;
    std::int64_t outer = 1, inner = 1;
    for (std::int64_t d = 0; d < axis; ++d) outer *= data->dims[std::size_t(d)];
    for (std::int64_t d = axis + 1; d < rank; ++d) inner *= data->dims[std::size_t(d)];
    onnx::GraphProto& graph = *model_.mutable_graph();
    std::int64_t start = 0;
    for (std::int64_t o = 0; o < parts; ++o) {
      const std::string& name = node.output(int(o));
      Dims dims = data->dims;
      dims[std::size_t(axis)] = sizes[std::size_t(o)];
      std::vector<std::int64_t> sources;
      for (std::int64_t before = 0; before < outer; ++before)
        for (std::int64_t row = start; row < start + sizes[std::size_t(o)]; ++row)
          for (std::int64_t within = 0; within < inner; ++within) sources.push_back((before * extent + row) * inner + within);
      start += sizes[std::size_t(o)];
      if (name.empty() || initializers_.count(name)) continue;
      TensorValue value = gather_elements(*data, dims, sources);
      initializers_[name] = graph.initializer_size();
      *graph.add_initializer() = tensor_proto(value, name);
      constants_[name] = std::move(value);
    }
    return true;
  }

  // An If on a constant condition is replaced by the nodes of the branch it takes, their tensors renamed under the
  // If's name (a branch may reuse a name of the outer graph), and an Identity per output.
  bool inline_branch(const onnx::NodeProto& node, std::vector<onnx::NodeProto>& kept) {
    const TensorValue* condition = node.input_size() == 1 ? constant(node.input(0)) : nullptr;
    if (!condition || condition->elements() != 1) return false;
    const bool taken = condition->real(0) != 0;
    const onnx::AttributeProto* branch = attribute(node, taken ? "then_branch" : "else_branch");
    if (!branch || branch->type() != onnx::AttributeProto_AttributeType_GRAPH)
      fail(node, fmt::format("attribute '{}': expected a graph (GRAPH)", taken ? "then_branch" : "else_branch"));
    const onnx::GraphProto& body = branch->g();
    if (body.output_size() != node.output_size())
      fail(node, fmt::format("its branch has {} outputs, the node {}", body.output_size(), node.output_size()));
    const onnx::AttributeProto* other = attribute(node, taken ? "else_branch" : "then_branch");
    notes_.push_back(fmt::format("If {}: its condition folds to {}: {} imported ({} nodes), {} not taken ({} nodes, "
                                 "neither imported nor counted)",
                                 node.name(), taken ? "true" : "false", taken ? "then_branch" : "else_branch",
                                 body.node_size(), taken ? "else_branch" : "then_branch",
                                 other && other->has_g() ? other->g().node_size() : 0));
    std::map<std::string, std::string> renamed;
    copy_subgraph(body, node.name() + "/", renamed, kept);
    for (int o = 0; o < node.output_size(); ++o)
      kept.push_back(identity(node.name() + "/output" + std::to_string(o), resolved(renamed, body.output(o).name()),
                              node.output(o)));
    return true;
  }

  // Copies a subgraph's initializers and nodes into the outer graph, every tensor the subgraph defines renamed
  // `prefix + name` (a subgraph may reuse a name of the outer graph, and a Loop's iterations reuse each other's).
  // `renamed` comes in with the names bound from outside (a Loop's state) and leaves with every renaming.
  void copy_subgraph(const onnx::GraphProto& body, const std::string& prefix,
                     std::map<std::string, std::string>& renamed, std::vector<onnx::NodeProto>& kept) {
    const auto local = [&](const std::string& name) { return renamed.emplace(name, prefix + name).first->second; };
    onnx::GraphProto& graph = *model_.mutable_graph();
    for (const onnx::TensorProto& tensor : body.initializer()) {
      onnx::TensorProto copy = tensor;
      copy.set_name(local(tensor.name()));
      *graph.add_initializer() = std::move(copy);
    }
    for (const onnx::NodeProto& inner : body.node())
      for (const std::string& output : inner.output())
        if (!output.empty()) local(output);
    for (const onnx::NodeProto& inner : body.node()) {
      onnx::NodeProto copy = inner;
      copy.set_name(prefix + (inner.name().empty() ? inner.op_type() : inner.name()));
      rename_references(copy, renamed);
      for (std::string& output : *copy.mutable_output())
        if (renamed.count(output)) output = renamed.at(output);
      kept.push_back(std::move(copy));
    }
  }

  // Renames what a node reads, also inside its own subgraphs: they see the enclosing graph's tensors by name, except
  // where they define a name themselves.
  static void rename_references(onnx::NodeProto& node, const std::map<std::string, std::string>& renamed) {
    for (std::string& input : *node.mutable_input())
      if (renamed.count(input)) input = renamed.at(input);
    for (onnx::AttributeProto& attribute : *node.mutable_attribute()) {
      if (attribute.has_g()) rename_outer_references(*attribute.mutable_g(), renamed);
      for (onnx::GraphProto& subgraph : *attribute.mutable_graphs()) rename_outer_references(subgraph, renamed);
    }
  }
  static void rename_outer_references(onnx::GraphProto& graph, std::map<std::string, std::string> renamed) {
    for (const auto& input : graph.input()) renamed.erase(input.name());
    for (const auto& tensor : graph.initializer()) renamed.erase(tensor.name());
    for (const auto& node : graph.node())
      for (const std::string& output : node.output()) renamed.erase(output);
    if (renamed.empty()) return;
    for (onnx::NodeProto& node : *graph.mutable_node()) rename_references(node, renamed);
    for (onnx::ValueInfoProto& output : *graph.mutable_output())
      if (renamed.count(output.name())) output.set_name(renamed.at(output.name()));
  }

  static std::string resolved(const std::map<std::string, std::string>& renamed, const std::string& name) {
    const auto found = renamed.find(name);
    return found == renamed.end() ? name : found->second;
  }

  static onnx::NodeProto identity(const std::string& name, const std::string& input, const std::string& output) {
    onnx::NodeProto node;
    node.set_op_type("Identity");
    node.set_name(name);
    node.add_input(input);
    node.add_output(output);
    return node;
  }

  // How many times a Loop runs, when that is fixed before run time; otherwise why not (the input or attribute
  // that makes it dynamic). Loop (opset 11+): inputs M, cond, the initial values of the N loop-carried tensors;
  // body inputs (iteration number, condition, the N carried); body outputs (condition, the N carried, the scan
  // outputs); node outputs (the N carried's final values, the scan outputs stacked along a new first axis).
  struct TripCount {
    std::optional<std::int64_t> iterations;
    std::string dynamic;  // why the count is not known, when it is not
    // The body computes its condition (tf2onnx's while loops: counter < limit and step < steps): unrolled M times,
    // and every iteration's condition but the last must then fold to true (check_unrolled_conditions).
    bool condition_computed = false;
  };
  TripCount trip_count(const onnx::NodeProto& node) {
    const onnx::GraphProto& body = loop_body(node);
    const int carried = node.input_size() - 2;
    if (carried < 0 || body.input_size() != carried + 2 || body.output_size() < carried + 1 ||
        node.output_size() != body.output_size() - 1)
      fail(node, fmt::format("a Loop of {} inputs and {} outputs with a body of {} inputs and {} outputs: expected "
                             "inputs (M, cond, N carried), body inputs (iteration, cond, N carried), body outputs "
                             "(cond, N carried, scans) and the node's outputs (N carried, scans)",
                             node.input_size(), node.output_size(), body.input_size(), body.output_size()));
    if (node.input(0).empty())
      return {std::nullopt, "it has no trip count (input 0 'M' is absent): it runs until its condition turns false "
                            "at run time"};
    const TensorValue* count = constant(node.input(0));
    if (!count)
      return {std::nullopt, fmt::format("its trip count (input 0 'M', tensor '{}') is computed at run time",
                                        node.input(0))};
    if (count->elements() != 1 || !count->integral() || count->integers[0] < 0)
      fail(node, fmt::format("input 0 'M' ('{}'): expected one integer ≥ 0", node.input(0)));
    std::int64_t iterations = count->integers[0];
    if (!node.input(1).empty()) {
      const TensorValue* initial = constant(node.input(1));
      if (!initial)
        return {std::nullopt, fmt::format("its initial condition (input 1 'cond', tensor '{}') is computed at run "
                                          "time",
                                          node.input(1))};
      if (initial->elements() != 1) fail(node, fmt::format("input 1 'cond' ('{}'): expected one value", node.input(1)));
      if (initial->real(0) == 0) iterations = 0;
    }
    return {iterations, "", !condition_stays_true(body)};
  }

  const onnx::GraphProto& loop_body(const onnx::NodeProto& node) const {
    const onnx::AttributeProto* body = attribute(node, "body");
    if (!body || body->type() != onnx::AttributeProto_AttributeType_GRAPH)
      fail(node, "attribute 'body': expected a graph (GRAPH)");
    return body->g();
  }

  // Whether a Loop body's condition output is the condition it received, or a constant true, through Identity
  // nodes: the exporters' pattern of a counted loop.
  bool condition_stays_true(const onnx::GraphProto& body) {
    std::string name = body.output(0).name();
    for (int step = 0; step <= body.node_size(); ++step) {
      if (name == body.input(1).name()) return true;
      for (const onnx::TensorProto& tensor : body.initializer())
        if (tensor.name() == name) {
          const TensorValue value = tensor_value(tensor, path_, "initializer " + name);
          return value.elements() == 1 && value.real(0) != 0;
        }
      const onnx::NodeProto* producer = nullptr;
      for (const onnx::NodeProto& inner : body.node())
        for (const std::string& output : inner.output())
          if (output == name) producer = &inner;
      if (!producer) {
        const TensorValue* outer = constant(name);
        return outer && outer->elements() == 1 && outer->real(0) != 0;
      }
      if (producer->op_type() == "Constant") {
        const auto value = constant_node(*producer);
        return value && value->elements() == 1 && value->real(0) != 0;
      }
      if (producer->op_type() != "Identity" || producer->input_size() != 1) return false;
      name = producer->input(0);
    }
    return false;
  }

  // A Loop with a fixed trip count whose body holds fabric work is replaced by that many copies of its body,
  // iteration i's tensors renamed `LOOP/i/NAME`, its iteration number and condition constants, its carried tensors
  // the previous iteration's, the final ones Identity nodes to the Loop's outputs and each scan output the
  // concatenation of the iterations' values along a new first axis (Unsqueeze, Concat). Loops without fabric work
  // stay in the graph (skipped, the graph cut); a dynamic one with fabric work is refused after folding.
  bool unroll_loop(const onnx::NodeProto& node, std::vector<onnx::NodeProto>& kept) {
    if (!holds_fabric_node(loop_body(node))) return false;
    const TripCount trip = trip_count(node);
    if (!trip.iterations) return false;
    const std::int64_t iterations = *trip.iterations;
    const onnx::GraphProto& body = loop_body(node);
    const int carried = node.input_size() - 2, scans = node.output_size() - carried;
    // Every iteration gives at least one fabric layer: more than a workload may list is refused before copying.
    if (iterations > std::int64_t(contracts::kMaxYamlSequenceLength) ||
        unrolled_nodes_ + iterations * (body.node_size() + 2) > kMaxUnrolledNodes)
      fail(node, fmt::format("input 0 'M': {} iterations of a body of {} nodes unroll into more than {} fabric layers "
                             "or {} nodes",
                             iterations, body.node_size(), contracts::kMaxYamlSequenceLength, kMaxUnrolledNodes));
    unrolled_nodes_ += iterations * (body.node_size() + 2);
    if (iterations == 0 && scans > 0) fail(node, "a trip count of 0 leaves its scan outputs empty");
    onnx::GraphProto& graph = *model_.mutable_graph();
    std::vector<std::string> state(node.input().begin() + 2, node.input().end());
    std::vector<std::vector<std::string>> scanned(static_cast<std::size_t>(scans));
    for (std::int64_t i = 0; i < iterations; ++i) {
      const std::string prefix = fmt::format("{}/{}/", node.name(), i);
      std::map<std::string, std::string> renamed;
      const auto bind_constant = [&](const std::string& name, std::int32_t type, std::int64_t value) {
        if (name.empty()) return;
        TensorValue constant;
        constant.type = type;
        constant.integers = {value};
        renamed[name] = prefix + name;
        *graph.add_initializer() = tensor_proto(constant, prefix + name);
      };
      bind_constant(body.input(0).name(), onnx::TensorProto_DataType_INT64, i);
      bind_constant(body.input(1).name(), onnx::TensorProto_DataType_BOOL, 1);
      for (int j = 0; j < carried; ++j)
        if (!body.input(2 + j).name().empty()) renamed[body.input(2 + j).name()] = state[std::size_t(j)];
      copy_subgraph(body, prefix, renamed, kept);
      for (int j = 0; j < carried; ++j) state[std::size_t(j)] = resolved(renamed, body.output(1 + j).name());
      if (trip.condition_computed && i + 1 < iterations)
        unrolled_conditions_.push_back({node.name(), i, resolved(renamed, body.output(0).name())});
      for (int k = 0; k < scans; ++k) scanned[std::size_t(k)].push_back(resolved(renamed, body.output(1 + carried + k).name()));
    }
    for (int j = 0; j < carried; ++j)
      if (!node.output(j).empty())
        kept.push_back(identity(fmt::format("{}/output{}", node.name(), j), state[std::size_t(j)], node.output(j)));
    for (int k = 0; k < scans; ++k) {
      if (node.output(carried + k).empty()) continue;
      onnx::NodeProto stack;
      stack.set_op_type("Concat");
      stack.set_name(fmt::format("{}/scan{}", node.name(), k));
      set_int(stack, "axis", 0);
      const std::string axes = fmt::format("{}/scan{}/axes", node.name(), k);
      if (opset_ >= 13) *graph.add_initializer() = tensor_proto(make_integers({1}, {0}), axes);
      for (std::int64_t i = 0; i < iterations; ++i) {
        onnx::NodeProto unsqueeze;
        unsqueeze.set_op_type("Unsqueeze");
        unsqueeze.set_name(fmt::format("{}/{}/scan{}", node.name(), i, k));
        unsqueeze.add_input(scanned[std::size_t(k)][std::size_t(i)]);
        if (opset_ >= 13) unsqueeze.add_input(axes);
        else set_ints(unsqueeze, "axes", {0});
        unsqueeze.add_output(unsqueeze.name());
        stack.add_input(unsqueeze.name());
        kept.push_back(std::move(unsqueeze));
      }
      stack.add_output(node.output(carried + k));
      kept.push_back(std::move(stack));
    }
    return true;
  }

  // After folding: the condition each unrolled iteration of a Loop computed for the next must be a constant true —
  // else the loop's trip count depends on run-time values, or it stops before M, and the unrolled layers are wrong.
  void check_unrolled_conditions() {
    for (const UnrolledCondition& condition : unrolled_conditions_) {
      const TensorValue* value = constant(condition.tensor);
      const std::string where = fmt::format("Loop around fabric work: its body's condition after iteration {} "
                                            "(tensor '{}')", condition.iteration, condition.tensor);
      if (!value)
        throw util::InputError({path_, 0, 0}, "node " + condition.loop,
                               where + " is computed from run-time values: its trip count is not known before it "
                                       "runs, so its layers cannot be counted");
      if (value->elements() != 1 || value->real(0) == 0)
        throw util::InputError({path_, 0, 0}, "node " + condition.loop,
                               fmt::format("{} is {}: the loop stops before its trip count M, which the importer does "
                                           "not unroll",
                                           where, value->elements() != 1 ? "not one value" : "false"));
    }
  }

  // After folding: a Loop that still hides fabric work has a dynamic trip count; its layers cannot be counted.
  void refuse_dynamic_loops() {
    for (const onnx::NodeProto& node : model_.graph().node()) {
      if (!in_default_domain(node) || node.op_type() != "Loop" || !holds_fabric_node(loop_body(node))) continue;
      fail(node, fmt::format("Loop with a dynamic trip count around fabric work (Conv, Gemm, MatMul, LSTM, …): {}; "
                             "only a loop with a constant M and a constant or absent cond unrolls into layers (give "
                             "the model's dynamic input sizes with --input-shape NAME=d0,d1,… or --batch N when M "
                             "comes from them)",
                             trip_count(node).dynamic));
    }
  }

  static void set_int(onnx::NodeProto& node, const std::string& key, std::int64_t value) {
    onnx::AttributeProto* attribute = node.add_attribute();
    attribute->set_name(key);
    attribute->set_type(onnx::AttributeProto_AttributeType_INT);
    attribute->set_i(value);
  }
  static void set_ints(onnx::NodeProto& node, const std::string& key, const Dims& values) {
    onnx::AttributeProto* attribute = node.add_attribute();
    attribute->set_name(key);
    attribute->set_type(onnx::AttributeProto_AttributeType_INTS);
    for (const std::int64_t value : values) attribute->add_ints(value);
  }

  static TensorValue make_integers(Dims dims, std::vector<std::int64_t> values) {
    TensorValue value;
    value.type = onnx::TensorProto_DataType_INT64;
    value.dims = std::move(dims);
    value.integers = std::move(values);
    return value;
  }

  // The node's single output as a constant, or nullopt when it does not fold (not a shape computation, or an input
  // that is not constant).
  std::optional<TensorValue> evaluate(const onnx::NodeProto& node) {
    const std::string& op = node.op_type();
    if (op == "Constant") return constant_node(node);
    if (op == "Shape" || op == "Size") {
      if (node.input_size() < 1) return std::nullopt;
      // A folded tensor (an initializer) has no annotation of its own: its dims are its shape (gtcrn's Shape of an
      // index tensor computed from Ranges).
      const auto folded = initializers_.find(node.input(0));
      if (!shapes_.count(node.input(0)) && folded == initializers_.end()) return std::nullopt;
      const onnx::TensorProto* initializer =
          folded == initializers_.end() ? nullptr : &model_.graph().initializer(folded->second);
      const Dims dims = shapes_.count(node.input(0)) ? shapes_.at(node.input(0))
                                                      : Dims(initializer->dims().begin(), initializer->dims().end());
      if (op == "Size") {
        std::int64_t count = 1;
        for (const std::int64_t dim : dims) count *= dim;
        return make_integers({}, {count});
      }
      const std::int64_t rank = std::int64_t(dims.size());
      std::int64_t start = int_attribute(node, "start", 0), end = int_attribute(node, "end", rank);
      if (start < 0) start += rank;
      if (end < 0) end += rank;
      start = std::clamp<std::int64_t>(start, 0, rank);
      end = std::clamp<std::int64_t>(end, start, rank);
      return make_integers({end - start}, Dims(dims.begin() + start, dims.begin() + end));
    }
    static const std::set<std::string> foldable = {"Gather", "Unsqueeze", "Squeeze", "Concat", "Slice", "Cast",
                                                   "Reshape", "Expand", "ConstantOfShape", "Range", "Identity",
                                                   "Transpose",
                                                   "Add", "Sub", "Mul", "Div", "Floor", "Max", "Min", "Not",
                                                   "MatMul", "Where"};
    if ((!foldable.count(op) && !kComparisons.count(op) && !kLogic.count(op)) || node.input_size() == 0 ||
        !constant_inputs(node))
      return std::nullopt;
    const TensorValue& data = input_constant(node, 0);
    if (op == "Identity") return data;
    if (op == "Floor") {
      TensorValue out = data;
      for (double& number : out.reals) number = std::floor(number);
      return out;
    }
    if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || kComparisons.count(op) || kLogic.count(op))
      return binary(node, data, input_constant(node, 1));
    if (op == "Max" || op == "Min") return variadic(node);
    if (op == "Where") return where(data, input_constant(node, 1), input_constant(node, 2));
    if (op == "MatMul") return matrix_product(data, input_constant(node, 1));
    if (op == "Not") {
      if (!data.integral()) throw Inconsistent{"Not of a non-boolean tensor"};
      TensorValue out = data;
      for (std::int64_t& value : out.integers) value = value == 0;
      return out;
    }
    if (op == "Cast") return cast(node, data);
    if (op == "Gather") return gather(node, data);
    if (op == "Unsqueeze" || op == "Squeeze") return squeeze(node, data);
    if (op == "Concat") return concat(node);
    if (op == "Slice") return slice(node, data);
    if (op == "Reshape") return reshape(node, data);
    if (op == "Transpose") {
      if (!data.integral()) return std::nullopt;  // a weight's layout change is the importer's, not a shape's
      return transpose(node, data);
    }
    if (op == "Expand") return expand(node, data);
    if (op == "ConstantOfShape") return constant_of_shape(node, data);
    return range(node);
  }

  std::optional<TensorValue> constant_node(const onnx::NodeProto& node) {
    if (node.attribute_size() != 1) return std::nullopt;
    const onnx::AttributeProto& value = node.attribute(0);
    TensorValue out;
    if (value.name() == "value" && value.type() == onnx::AttributeProto_AttributeType_TENSOR)
      return tensor_value(value.t(), path_, "node " + node.name());
    if (value.name() == "value_int" && value.type() == onnx::AttributeProto_AttributeType_INT)
      return make_integers({}, {value.i()});
    if (value.name() == "value_ints" && value.type() == onnx::AttributeProto_AttributeType_INTS)
      return make_integers({value.ints_size()}, Dims(value.ints().begin(), value.ints().end()));
    out.type = onnx::TensorProto_DataType_FLOAT;
    if (value.name() == "value_float" && value.type() == onnx::AttributeProto_AttributeType_FLOAT) {
      out.reals = {value.f()};
      return out;
    }
    if (value.name() == "value_floats" && value.type() == onnx::AttributeProto_AttributeType_FLOATS) {
      out.dims = {value.floats_size()};
      out.reals.assign(value.floats().begin(), value.floats().end());
      return out;
    }
    if (value.name() == "value" || value.name() == "value_int" || value.name() == "value_ints" ||
        value.name() == "value_float" || value.name() == "value_floats")
      fail(node, fmt::format("attribute '{}' has the wrong type", value.name()));
    return std::nullopt;  // sparse and string constants are left to the graph
  }

  // Element-wise on constants with broadcasting: arithmetic, Max and Min keep A's type; comparisons and logic give
  // BOOL (tf2onnx writes a while loop's condition as And(Less(c1, c2), …) of constants). Integers are compared and
  // combined as integers, never through a double.
  TensorValue binary(const onnx::NodeProto& node, const TensorValue& a, const TensorValue& b) {
    const std::string& op = node.op_type();
    const Dims dims = broadcast_dims(a.dims, b.dims);
    const auto count = product(dims);
    if (!count) throw TooLarge{};
    const bool boolean = kComparisons.count(op) || kLogic.count(op);
    const bool integral = a.integral() && b.integral();
    TensorValue out;
    out.type = boolean ? onnx::TensorProto_DataType_BOOL : a.type;
    out.dims = dims;
    for (std::int64_t i = 0; i < *count; ++i) {
      const std::int64_t ia = broadcast_source(i, dims, a.dims), ib = broadcast_source(i, dims, b.dims);
      if (boolean) {
        out.integers.push_back(integral ? relation(op, a.integers[ia], b.integers[ib]) : relation(op, a.real(ia), b.real(ib)));
      } else if (out.integral()) {
        const std::int64_t x = a.integral() ? a.integers[ia] : std::int64_t(a.reals[ia]);
        const std::int64_t y = b.integral() ? b.integers[ib] : std::int64_t(b.reals[ib]);
        if (op == "Div" && y == 0) throw Inconsistent{"an integer division by zero"};
        out.integers.push_back(arithmetic(op, x, y));
      } else {
        out.reals.push_back(arithmetic(op, a.real(ia), b.real(ib)));
      }
    }
    return out;
  }

  // Where(condition, X, Y) on constants, the three broadcast together: PyTorch's slice assignment (x[..., a:b] = y,
  // a ScatterND) computes its indices' Expand shape as Where(Equal(shape, -1), ones, shape) (gtcrn).
  static TensorValue where(const TensorValue& condition, const TensorValue& x, const TensorValue& y) {
    if (x.integral() != y.integral()) throw Inconsistent{"X and Y of different types"};
    const Dims dims = broadcast_dims(broadcast_dims(condition.dims, x.dims), y.dims);
    const auto count = product(dims);
    if (!count) throw TooLarge{};
    TensorValue out;
    out.type = x.type;
    out.dims = dims;
    for (std::int64_t i = 0; i < *count; ++i) {
      const bool chosen = condition.real(broadcast_source(i, dims, condition.dims)) != 0;
      const TensorValue& from = chosen ? x : y;
      const std::int64_t source = broadcast_source(i, dims, from.dims);
      if (out.integral()) out.integers.push_back(from.integers[source]);
      else out.reals.push_back(from.reals[source]);
    }
    return out;
  }

  template <class T>
  static T arithmetic(const std::string& op, T x, T y) {
    if (op == "Add") return x + y;
    if (op == "Sub") return x - y;
    if (op == "Mul") return x * y;
    if (op == "Max") return std::max(x, y);
    if (op == "Min") return std::min(x, y);
    return x / y;
  }

  template <class T>
  static std::int64_t relation(const std::string& op, T x, T y) {
    if (op == "Less") return x < y;
    if (op == "LessOrEqual") return x <= y;
    if (op == "Greater") return x > y;
    if (op == "GreaterOrEqual") return x >= y;
    if (op == "Equal") return x == y;
    if (op == "And") return x != 0 && y != 0;
    if (op == "Or") return x != 0 || y != 0;
    return (x != 0) != (y != 0);  // Xor
  }

  // Max and Min take any number of inputs: folded pairwise, left to right.
  TensorValue variadic(const onnx::NodeProto& node) {
    TensorValue out = input_constant(node, 0);
    for (int i = 1; i < node.input_size(); ++i) out = binary(node, out, input_constant(node, i));
    return out;
  }

  TensorValue cast(const onnx::NodeProto& node, const TensorValue& data) {
    const std::int64_t to = int_attribute(node, "to", -1);
    if (!onnx::TensorProto_DataType_IsValid(int(to)) || to == onnx::TensorProto_DataType_UNDEFINED ||
        to == onnx::TensorProto_DataType_STRING)
      fail(node, fmt::format("attribute 'to': {} is not a numeric ONNX data type", to));
    TensorValue out;
    out.type = std::int32_t(to);
    out.dims = data.dims;
    for (std::int64_t i = 0; i < data.elements(); ++i) {
      if (!out.integral()) {
        out.reals.push_back(data.real(i));
      } else if (to == onnx::TensorProto_DataType_BOOL) {
        out.integers.push_back(data.real(i) != 0);
      } else if (data.integral()) {
        out.integers.push_back(data.integers[i]);
      } else {
        const double number = std::trunc(data.reals[i]);
        if (!(std::fabs(number) < 9.2e18)) throw Inconsistent{"a value that does not fit the integer type"};
        out.integers.push_back(std::int64_t(number));
      }
    }
    return out;
  }

  TensorValue gather(const onnx::NodeProto& node, const TensorValue& data) {
    if (data.dims.empty()) throw Inconsistent{"gathering from a scalar"};
    const std::int64_t axis = normalised_axis(int_attribute(node, "axis", 0), data.dims.size(), "axis");
    const TensorValue& indices = input_constant(node, 1);
    if (!indices.integral()) throw Inconsistent{"the indices are not integers"};
    Dims dims(data.dims.begin(), data.dims.begin() + axis);
    dims.insert(dims.end(), indices.dims.begin(), indices.dims.end());
    dims.insert(dims.end(), data.dims.begin() + axis + 1, data.dims.end());
    if (!product(dims)) throw TooLarge{};
    std::int64_t outer = 1, inner = 1;
    for (std::int64_t i = 0; i < axis; ++i) outer *= data.dims[i];
    for (std::size_t i = axis + 1; i < data.dims.size(); ++i) inner *= data.dims[i];
    const std::int64_t extent = data.dims[axis];
    std::vector<std::int64_t> sources;
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t index : indices.integers) {
        if (index < -extent || index >= extent)
          throw Inconsistent{fmt::format("index {} is out of range for a dimension of {}", index, extent)};
        if (index < 0) index += extent;
        for (std::int64_t i = 0; i < inner; ++i) sources.push_back((o * extent + index) * inner + i);
      }
    return gather_elements(data, dims, sources);
  }

  std::optional<TensorValue> squeeze(const onnx::NodeProto& node, const TensorValue& data) {
    std::optional<Dims> axes = opset_ >= 13 ? integer_input(node, 1) : ints_attribute(node, "axes");
    TensorValue out = data;
    if (node.op_type() == "Unsqueeze") {
      if (!axes) throw Inconsistent{"no axes"};
      const std::size_t rank = data.dims.size() + axes->size();
      Dims normalised;
      for (const std::int64_t axis : *axes) normalised.push_back(normalised_axis(axis, rank, "axis"));
      std::sort(normalised.begin(), normalised.end());
      if (std::adjacent_find(normalised.begin(), normalised.end()) != normalised.end()) throw Inconsistent{"an axis twice"};
      for (const std::int64_t axis : normalised) out.dims.insert(out.dims.begin() + axis, 1);
      return out;
    }
    Dims kept;
    std::set<std::int64_t> removed;
    if (axes)
      for (const std::int64_t axis : *axes) removed.insert(normalised_axis(axis, data.dims.size(), "axis"));
    for (std::size_t i = 0; i < data.dims.size(); ++i) {
      const bool listed = removed.count(std::int64_t(i)) > 0;
      if (listed && data.dims[i] != 1) throw Inconsistent{fmt::format("dimension {} is {}, not 1", i, data.dims[i])};
      if (!(listed || (!axes && data.dims[i] == 1))) kept.push_back(data.dims[i]);
    }
    out.dims = kept;
    return out;
  }

  TensorValue concat(const onnx::NodeProto& node) {
    const TensorValue& first = input_constant(node, 0);
    if (first.dims.empty()) throw Inconsistent{"concatenating scalars"};
    const std::int64_t axis = normalised_axis(int_attribute(node, "axis", 0), first.dims.size(), "axis");
    Dims dims = first.dims;
    dims[axis] = 0;
    for (const std::string& input : node.input()) {
      const TensorValue& part = named_constant(input);
      if (part.dims.size() != first.dims.size()) throw Inconsistent{"inputs of different ranks"};
      for (std::size_t i = 0; i < dims.size(); ++i)
        if (std::int64_t(i) != axis && part.dims[i] != first.dims[i])
          throw Inconsistent{fmt::format("inputs of shapes ({}) and ({})", dims_text(first.dims), dims_text(part.dims))};
      dims[axis] += part.dims[axis];
    }
    if (!product(dims)) throw TooLarge{};
    TensorValue out;
    out.type = first.type;
    out.dims = dims;
    std::int64_t outer = 1;
    for (std::int64_t i = 0; i < axis; ++i) outer *= dims[i];
    for (std::int64_t o = 0; o < outer; ++o)
      for (const std::string& input : node.input()) {
        const TensorValue& part = named_constant(input);
        const std::int64_t block = part.elements() / std::max<std::int64_t>(outer, 1);
        for (std::int64_t i = 0; i < block; ++i) {
          if (out.integral()) out.integers.push_back(part.integral() ? part.integers[o * block + i] : std::int64_t(part.reals[o * block + i]));
          else out.reals.push_back(part.real(o * block + i));
        }
      }
    return out;
  }

  std::optional<TensorValue> slice(const onnx::NodeProto& node, const TensorValue& data) {
    std::optional<Dims> starts, ends, axes, steps;
    if (opset_ >= 10) {
      starts = integer_input(node, 1);
      ends = integer_input(node, 2);
      axes = integer_input(node, 3);
      steps = integer_input(node, 4);
    } else {
      starts = ints_attribute(node, "starts");
      ends = ints_attribute(node, "ends");
      axes = ints_attribute(node, "axes");
    }
    if (!starts || !ends || starts->size() != ends->size()) throw Inconsistent{"starts and ends of different lengths"};
    const std::size_t rank = data.dims.size();
    Dims begin(rank, 0), stride(rank, 1), count = data.dims;
    for (std::size_t i = 0; i < starts->size(); ++i) {
      const std::int64_t axis = axes ? normalised_axis(axes->at(i), rank, "axis") : std::int64_t(i);
      if (axis >= std::int64_t(rank)) throw Inconsistent{"more starts than dimensions"};
      const std::int64_t extent = data.dims[axis];
      const std::int64_t step = steps && i < steps->size() ? steps->at(i) : 1;
      if (step == 0) throw Inconsistent{"a step of 0"};
      // ONNX Slice: negative positions count from the end, then clamp to [0, extent] (forward) or, going
      // backwards, the start to [0, extent − 1] and the end to [−1, extent − 1].
      const auto clamp = [&](std::int64_t at, bool is_start) {
        if (at < 0) at = at < -extent ? -extent - 1 : at + extent;  // saturates INT64_MIN-style ends without overflow
        if (step > 0) return std::clamp<std::int64_t>(at, 0, extent);
        return std::clamp<std::int64_t>(at, is_start ? 0 : -1, extent - 1);
      };
      const std::int64_t first = clamp(starts->at(i), true), last = clamp(ends->at(i), false);
      begin[axis] = first;
      stride[axis] = step;
      count[axis] = step > 0 ? std::max<std::int64_t>(0, (last - first + step - 1) / step)
                             : std::max<std::int64_t>(0, (first - last - step - 1) / -step);
    }
    const auto elements = product(count);
    if (!elements) throw TooLarge{};
    const Dims source_strides = row_major_strides(data.dims), out_strides = row_major_strides(count);
    std::vector<std::int64_t> sources;
    for (std::int64_t i = 0; i < *elements; ++i) {
      std::int64_t source = 0;
      for (std::size_t d = 0; d < rank; ++d)
        source += (begin[d] + ((i / out_strides[d]) % count[d]) * stride[d]) * source_strides[d];
      sources.push_back(source);
    }
    return gather_elements(data, count, sources);
  }

  TensorValue reshape(const onnx::NodeProto& node, const TensorValue& data) {
    const TensorValue& target = input_constant(node, 1);
    if (!target.integral()) throw Inconsistent{"the target shape is not integers"};
    const bool allow_zero = int_attribute(node, "allowzero", 0) != 0;
    Dims dims = target.integers;
    std::int64_t known = 1, unknown = -1;
    for (std::size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] == 0 && !allow_zero) {
        if (i >= data.dims.size()) throw Inconsistent{"a 0 beyond the input's rank"};
        dims[i] = data.dims[i];
      }
      if (dims[i] == -1) {
        if (unknown >= 0) throw Inconsistent{"two -1 in the target shape"};
        unknown = std::int64_t(i);
      } else if (dims[i] < 0) {
        throw Inconsistent{fmt::format("a negative dimension {}", dims[i])};
      } else {
        known *= dims[i];
      }
    }
    if (unknown >= 0) {
      if (known == 0 || data.elements() % known) throw Inconsistent{fmt::format("({}) elements do not fill ({})", data.elements(), dims_text(target.integers))};
      dims[unknown] = data.elements() / known;
    }
    if (product(dims) != data.elements())
      throw Inconsistent{fmt::format("{} elements reshaped to ({})", data.elements(), dims_text(dims))};
    TensorValue out = data;
    out.dims = dims;
    return out;
  }

  // PyTorch writes F.pad's pads as a computed list: ConstantOfShape, Concat, Reshape to (n, 2), a reversing Slice,
  // Transpose, Reshape (gtcrn): the Transpose must fold for the Pad's pads to be constants.
  TensorValue transpose(const onnx::NodeProto& node, const TensorValue& data) {
    const std::int64_t rank = std::int64_t(data.dims.size());
    Dims perm = ints_attribute(node, "perm").value_or(Dims{});
    if (perm.empty())
      for (std::int64_t axis = rank; axis-- > 0;) perm.push_back(axis);
    if (std::int64_t(perm.size()) != rank) throw Inconsistent{fmt::format("perm has {} axes for a rank-{} input", perm.size(), rank)};
    Dims dims, seen(rank, 0);
    for (const std::int64_t axis : perm) {
      if (axis < 0 || axis >= rank || seen[axis]++) throw Inconsistent{fmt::format("perm ({}) is not a permutation", dims_text(perm))};
      dims.push_back(data.dims[axis]);
    }
    const Dims source_strides = row_major_strides(data.dims), out_strides = row_major_strides(dims);
    std::vector<std::int64_t> sources;
    for (std::int64_t i = 0; i < data.elements(); ++i) {
      std::int64_t source = 0;
      for (std::int64_t d = 0; d < rank; ++d) source += ((i / out_strides[d]) % dims[d]) * source_strides[perm[d]];
      sources.push_back(source);
    }
    return gather_elements(data, dims, sources);
  }

  TensorValue expand(const onnx::NodeProto& node, const TensorValue& data) {
    const TensorValue& target = input_constant(node, 1);
    if (!target.integral()) throw Inconsistent{"the target shape is not integers"};
    const Dims dims = broadcast_dims(data.dims, target.integers);
    const auto count = product(dims);
    if (!count) throw TooLarge{};
    std::vector<std::int64_t> sources;
    for (std::int64_t i = 0; i < *count; ++i) sources.push_back(broadcast_source(i, dims, data.dims));
    return gather_elements(data, dims, sources);
  }

  TensorValue constant_of_shape(const onnx::NodeProto& node, const TensorValue& shape) {
    if (!shape.integral()) throw Inconsistent{"the shape is not integers"};
    const auto count = product(shape.integers);
    if (!count) throw TooLarge{};
    TensorValue fill;
    fill.type = onnx::TensorProto_DataType_FLOAT;
    fill.reals = {0.0};
    if (const onnx::AttributeProto* value = attribute(node, "value")) {
      if (value->type() != onnx::AttributeProto_AttributeType_TENSOR)
        fail(node, "attribute 'value': expected a one-element tensor (TENSOR)");
      fill = tensor_value(value->t(), path_, "node " + node.name());
      if (fill.elements() != 1) fail(node, "attribute 'value': expected a one-element tensor");
    }
    return gather_elements(fill, shape.integers, std::vector<std::int64_t>(std::size_t(*count), 0));
  }

  TensorValue range(const onnx::NodeProto& node) {
    if (node.input_size() != 3) throw Inconsistent{"Range takes start, limit and delta"};
    const TensorValue &start = input_constant(node, 0), &limit = input_constant(node, 1), &delta = input_constant(node, 2);
    if (start.elements() != 1 || limit.elements() != 1 || delta.elements() != 1) throw Inconsistent{"inputs that are not scalars"};
    if (delta.real(0) == 0) throw Inconsistent{"a delta of 0"};
    const double steps = std::ceil((limit.real(0) - start.real(0)) / delta.real(0));
    if (!(steps <= double(kMaxFoldedElements))) throw TooLarge{};
    const std::int64_t count = std::max<std::int64_t>(0, std::int64_t(steps));
    TensorValue out;
    out.type = start.type;
    out.dims = {count};
    for (std::int64_t i = 0; i < count; ++i) {
      if (out.integral()) out.integers.push_back(start.integers[0] + i * delta.integers[0]);
      else out.reals.push_back(start.real(0) + double(i) * delta.real(0));
    }
    return out;
  }

  onnx::ModelProto& model_;
  std::string path_;
  std::vector<std::string>& notes_;  // what folding did that the import report shows (an If's branch not taken)
  std::int64_t opset_ = 1;
  std::map<std::string, Dims> shapes_;          // fully known shapes, from the last inference
  std::map<std::string, int> initializers_;     // initializer name → index in the graph
  std::map<std::string, TensorValue> constants_;  // the values read or folded so far
  std::int64_t unrolled_nodes_ = 0;               // nodes Loop unrolling added so far
  struct UnrolledCondition {
    std::string loop;    // the Loop node
    std::int64_t iteration = 0;
    std::string tensor;  // the condition that iteration computed for the next, in the unrolled graph
  };
  std::vector<UnrolledCondition> unrolled_conditions_;
};

}  // namespace

namespace {

// Paddle2ONNX writes a dynamic dimension as dim_value −1 (ONNX's dim_param or an empty dimension): such a value is
// made unknown in the graph's inputs, outputs and value_info, so that shape inference and the sizes given fill it.
void forget_negative_dimensions(onnx::GraphProto& graph) {
  for (auto* values : {graph.mutable_input(), graph.mutable_output(), graph.mutable_value_info()})
    for (onnx::ValueInfoProto& value : *values) {
      if (!value.type().has_tensor_type() || !value.type().tensor_type().has_shape()) continue;
      for (auto& dim : *value.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim())
        if (dim.has_dim_value() && dim.dim_value() < 0) dim.clear_dim_value();
    }
}

}  // namespace

void apply_input_shapes(onnx::ModelProto& model, const ModelInputShapes& sizes, const std::string& path) {
  onnx::GraphProto& graph = *model.mutable_graph();
  forget_negative_dimensions(graph);
  std::set<std::string> initializers;
  for (const auto& tensor : graph.initializer()) initializers.insert(tensor.name());
  std::set<std::string> used;
  for (onnx::ValueInfoProto& input : *graph.mutable_input()) {
    if (initializers.count(input.name()) || !input.type().has_tensor_type()) continue;
    onnx::TensorShapeProto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
    const auto given = sizes.shapes.find(input.name());
    if (given != sizes.shapes.end()) {
      used.insert(input.name());
      const std::string field = "--input-shape " + input.name();
      if (input.type().tensor_type().has_shape() && shape->dim_size() != int(given->second.size()))
        throw util::InputError({path, 0, 0}, field,
                               fmt::format("the input has rank {}, the option gives {} sizes", shape->dim_size(),
                                           given->second.size()));
      if (!input.type().tensor_type().has_shape())
        for (std::size_t i = 0; i < given->second.size(); ++i) shape->add_dim();
      for (int i = 0; i < shape->dim_size(); ++i) {
        onnx::TensorShapeProto_Dimension* dim = shape->mutable_dim(i);
        if (dim->has_dim_value() && dim->dim_value() != given->second[i])
          throw util::InputError({path, 0, 0}, field,
                                 fmt::format("dimension {} is fixed at {} in the model, the option gives {}", i,
                                             dim->dim_value(), given->second[i]));
        dim->set_dim_value(given->second[i]);
      }
    } else if (sizes.batch > 0 && shape->dim_size() > 0 && !shape->dim(0).has_dim_value()) {
      shape->mutable_dim(0)->set_dim_value(sizes.batch);
    }
  }
  for (const auto& [name, dims] : sizes.shapes)
    if (!used.count(name)) {
      std::string inputs;
      for (const auto& input : graph.input())
        if (!initializers.count(input.name())) inputs += (inputs.empty() ? "" : ", ") + input.name();
      throw util::InputError({path, 0, 0}, "--input-shape " + name,
                             fmt::format("the model has no input '{}' (its inputs: {})", name, inputs));
    }
}

void fold_shape_computations(onnx::ModelProto& model, const std::string& path, std::vector<std::string>& notes) {
  Folder(model, path, notes).run();
}

}  // namespace maeri::importer
