// Internal to importer/onnx_node_evaluation*.cpp: one skipped node being evaluated (its NodeProto parsed, its inputs'
// values) and the helpers both families use: attributes, inputs, the declared output shape, broadcasting.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "importer/onnx_import.hpp"

namespace maeri::importer::evaluation {

using Dims = std::vector<std::int64_t>;

struct Step {
  const onnx::NodeProto& proto;
  const SkippedNode& node;
  const std::vector<const RealArray*>& inputs;
  const SkippedGraph& graph;

  [[noreturn]] void fail(const std::string& problem) const;
  const RealArray& input(int index) const;                 // required: fails when left out
  const RealArray* optional_input(int index) const;        // nullptr when left out
  const onnx::AttributeProto* attribute(const std::string& key) const;
  std::int64_t integer(const std::string& key, std::int64_t fallback) const;
  double real(const std::string& key, double fallback) const;
  std::optional<Dims> integers(const std::string& key) const;
  std::optional<Dims> declared_shape(int output) const;     // the shape the model gives output `output`
  std::int64_t axis_in(std::int64_t axis, std::size_t rank) const;  // a negative axis counted from the end, checked
};

std::int64_t elements(const Dims& shape);
Dims strides(const Dims& shape);  // row-major
// ONNX's multidirectional broadcast of `shapes`; fails through `step` when they do not broadcast.
Dims broadcast(const Step& step, const std::vector<Dims>& shapes);
// For every element of `out` (row-major), the index of the element of `in` (right-aligned, broadcast) it reads.
std::vector<std::int64_t> broadcast_sources(const Dims& in, const Dims& out);

// The layout family (onnx_node_evaluation_layout.cpp): nullopt when `op` is not one of it.
std::optional<std::vector<RealArray>> evaluate_layout(const Step& step, const std::string& op);
bool is_layout_operator(const std::string& op);

// The recurrent family (onnx_node_evaluation_recurrent.cpp): LSTM, GRU, RNN — Y, Y_h, Y_c, then per direction and
// processed step the unrolled layers' inputs x_t and h_{t−1} (as the layers read them: (1, C, batch, 1)).
std::vector<RealArray> evaluate_recurrent(const Step& step);

}  // namespace maeri::importer::evaluation
