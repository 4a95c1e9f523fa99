// The layout family of a skipped node's float evaluation (onnx_node_evaluation.hpp): the same elements in another
// shape or order (Reshape and its kin, Transpose, Concat, Expand, Gather, ScatterND) and what works along an axis (Softmax,
// LogSoftmax, the reductions, ArgMax/ArgMin, CumSum), as ONNX's docs/Operators.md defines them.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "importer/onnx_node_evaluation_steps.hpp"

namespace maeri::importer::evaluation {
namespace {

// The values as they are, in the shape the model declares for the output (Reshape, Flatten, Squeeze, Unsqueeze).
RealArray reshaped(const Step& step) {
  const auto shape = step.declared_shape(0);
  if (!shape || elements(*shape) != std::int64_t(step.input(0).values.size()))
    step.fail("the model declares no output shape holding its input's elements");
  return {*shape, step.input(0).values};
}

RealArray transposed(const Step& step) {
  const RealArray& in = step.input(0);
  Dims perm(in.shape.size());
  for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = std::int64_t(perm.size() - 1 - i);
  if (const auto given = step.integers("perm")) perm = *given;
  if (perm.size() != in.shape.size()) step.fail("perm's length is not the input's rank");
  RealArray out;
  for (const std::int64_t axis : perm) out.shape.push_back(in.shape.at(std::size_t(step.axis_in(axis, perm.size()))));
  const Dims in_strides = strides(in.shape), out_strides = strides(out.shape);
  out.values.resize(in.values.size());
  for (std::int64_t o = 0; o < std::int64_t(out.values.size()); ++o) {
    std::int64_t source = 0;
    for (std::size_t i = 0; i < perm.size(); ++i)
      source += (o / out_strides[i]) % out.shape[i] * in_strides[std::size_t(perm[i])];
    out.values[std::size_t(o)] = in.values[std::size_t(source)];
  }
  return out;
}

RealArray concatenated(const Step& step) {
  const RealArray& first = step.input(0);
  const std::int64_t axis = step.axis_in(step.integer("axis", 0), first.shape.size());
  const std::int64_t outer = elements(Dims(first.shape.begin(), first.shape.begin() + axis));
  RealArray out{first.shape, {}};
  out.shape[std::size_t(axis)] = 0;
  for (std::size_t i = 0; i < step.node.inputs.size(); ++i) out.shape[std::size_t(axis)] += step.input(int(i)).shape.at(std::size_t(axis));
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::size_t i = 0; i < step.node.inputs.size(); ++i) {
      const RealArray& part = step.input(int(i));
      const std::size_t block = part.values.size() / std::size_t(std::max<std::int64_t>(outer, 1));
      out.values.insert(out.values.end(), part.values.begin() + std::ptrdiff_t(std::size_t(o) * block),
                        part.values.begin() + std::ptrdiff_t(std::size_t(o + 1) * block));
    }
  return out;
}

RealArray expanded(const Step& step) {
  const RealArray& in = step.input(0);
  Dims target;
  for (const double extent : step.input(1).values) target.push_back(std::int64_t(extent));
  RealArray out{broadcast(step, {in.shape, target}), {}};
  for (const std::int64_t source : broadcast_sources(in.shape, out.shape)) out.values.push_back(in.values[std::size_t(source)]);
  return out;
}

RealArray gathered(const Step& step) {
  const RealArray& in = step.input(0);
  const RealArray& indices = step.input(1);
  const std::int64_t axis = step.axis_in(step.integer("axis", 0), in.shape.size());
  const std::int64_t extent = in.shape[std::size_t(axis)];
  const std::int64_t outer = elements(Dims(in.shape.begin(), in.shape.begin() + axis));
  const std::int64_t inner = elements(Dims(in.shape.begin() + axis + 1, in.shape.end()));
  RealArray out{Dims(in.shape.begin(), in.shape.begin() + axis), {}};
  out.shape.insert(out.shape.end(), indices.shape.begin(), indices.shape.end());
  out.shape.insert(out.shape.end(), in.shape.begin() + axis + 1, in.shape.end());
  for (std::int64_t o = 0; o < outer; ++o)
    for (const double given : indices.values) {
      std::int64_t index = std::int64_t(given);
      if (index < -extent || index >= extent) step.fail(fmt::format("index {} is outside [−{}, {})", index, extent, extent));
      if (index < 0) index += extent;
      const auto begin = in.values.begin() + std::ptrdiff_t((o * extent + index) * inner);
      out.values.insert(out.values.end(), begin, begin + std::ptrdiff_t(inner));
    }
  return out;
}

// The reduced axes: the attribute (before opset 18; ReduceSum before 13) or the second input; none given = all.
std::set<std::int64_t> reduced_axes(const Step& step, std::size_t rank) {
  Dims axes;
  if (const auto given = step.integers("axes")) axes = *given;
  else if (const RealArray* input = step.optional_input(1))
    for (const double axis : input->values) axes.push_back(std::int64_t(axis));
  std::set<std::int64_t> chosen;
  for (const std::int64_t axis : axes) chosen.insert(step.axis_in(axis, rank));
  if (chosen.empty() && !step.integer("noop_with_empty_axes", 0))
    for (std::size_t axis = 0; axis < rank; ++axis) chosen.insert(std::int64_t(axis));
  return chosen;
}

// Every group of elements that `axes` reduce, visited in the output's order: visit(output index, input indices).
template <typename Visit>
Dims for_each_group(const Dims& shape, const std::set<std::int64_t>& axes, bool keep, Visit visit) {
  Dims out_shape, kept_shape;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const bool reduced = axes.count(std::int64_t(i)) != 0;
    if (!reduced) out_shape.push_back(shape[i]);
    else if (keep) out_shape.push_back(1);
    kept_shape.push_back(reduced ? 1 : shape[i]);
  }
  const Dims in_strides = strides(shape), kept_strides = strides(kept_shape);
  std::vector<std::vector<std::int64_t>> groups(std::size_t(elements(kept_shape)));
  for (std::int64_t e = 0; e < elements(shape); ++e) {
    std::int64_t group = 0;
    for (std::size_t i = 0; i < shape.size(); ++i)
      if (!axes.count(std::int64_t(i))) group += (e / in_strides[i]) % shape[i] * kept_strides[i];
    groups[std::size_t(group)].push_back(e);
  }
  for (std::size_t g = 0; g < groups.size(); ++g) visit(g, groups[g]);
  return out_shape;
}

RealArray reduced(const Step& step, const std::string& op) {
  const RealArray& in = step.input(0);
  RealArray out;
  const bool keep = step.integer("keepdims", 1) != 0;
  out.shape = for_each_group(in.shape, reduced_axes(step, in.shape.size()), keep,
                             [&](std::size_t, const std::vector<std::int64_t>& group) {
    double result = op == "ReduceMax" ? -INFINITY : op == "ReduceMin" ? INFINITY : op == "ReduceProd" ? 1 : 0;
    for (const std::int64_t e : group) {
      const double x = in.values[std::size_t(e)];
      if (op == "ReduceMax") result = std::max(result, x);
      else if (op == "ReduceMin") result = std::min(result, x);
      else if (op == "ReduceProd") result *= x;
      else result += op == "ReduceL2" ? x * x : x;
    }
    if (op == "ReduceMean") result /= double(std::max<std::size_t>(group.size(), 1));
    if (op == "ReduceL2") result = std::sqrt(result);
    out.values.push_back(result);
  });
  return out;
}

// Softmax and LogSoftmax along `axis` (opset 13 on), or over the axes from `axis` on (before 13: the input as a
// matrix, the axes before `axis` its rows).
RealArray softmax(const Step& step, bool logarithm) {
  const RealArray& in = step.input(0);
  const bool coerced = step.graph.opset < 13;
  const std::int64_t axis = step.axis_in(step.integer("axis", coerced ? 1 : -1), in.shape.size());
  std::set<std::int64_t> axes = {axis};
  for (std::int64_t a = axis + 1; coerced && a < std::int64_t(in.shape.size()); ++a) axes.insert(a);
  RealArray out{in.shape, std::vector<double>(in.values.size())};
  for_each_group(in.shape, axes, true, [&](std::size_t, const std::vector<std::int64_t>& group) {
    double largest = -INFINITY, sum = 0;
    for (const std::int64_t e : group) largest = std::max(largest, in.values[std::size_t(e)]);
    for (const std::int64_t e : group) sum += std::exp(in.values[std::size_t(e)] - largest);
    for (const std::int64_t e : group) {
      const double shifted = in.values[std::size_t(e)] - largest;
      out.values[std::size_t(e)] = logarithm ? shifted - std::log(sum) : std::exp(shifted) / sum;
    }
  });
  return out;
}

RealArray arg_extreme(const Step& step, bool maximum) {
  const RealArray& in = step.input(0);
  const std::int64_t axis = step.axis_in(step.integer("axis", 0), in.shape.size());
  const bool last = step.integer("select_last_index", 0) != 0;
  RealArray out;
  out.shape = for_each_group(in.shape, {axis}, step.integer("keepdims", 1) != 0,
                             [&](std::size_t, const std::vector<std::int64_t>& group) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < group.size(); ++i) {
      const double x = in.values[std::size_t(group[i])], b = in.values[std::size_t(group[best])];
      if (maximum ? (x > b || (last && x == b)) : (x < b || (last && x == b))) best = i;
    }
    out.values.push_back(double(best));
  });
  return out;
}

RealArray cumulative_sum(const Step& step) {
  const RealArray& in = step.input(0);
  const std::int64_t axis = step.axis_in(std::int64_t(step.input(1).values.at(0)), in.shape.size());
  const bool exclusive = step.integer("exclusive", 0) != 0, reverse = step.integer("reverse", 0) != 0;
  RealArray out{in.shape, std::vector<double>(in.values.size())};
  for_each_group(in.shape, {axis}, true, [&](std::size_t, const std::vector<std::int64_t>& group) {
    double sum = 0;
    for (std::size_t k = 0; k < group.size(); ++k) {
      const std::size_t e = std::size_t(group[reverse ? group.size() - 1 - k : k]);
      if (exclusive) out.values[e] = sum;
      sum += in.values[e];
      if (!exclusive) out.values[e] = sum;
    }
  });
  return out;
}

// ScatterND (reduction none): the data with the slices the index tuples (the indices' last axis) name replaced by
// the updates, in order (a streaming model's cache update).
RealArray scattered(const Step& step) {
  const RealArray& data = step.input(0);
  const RealArray& indices = step.input(1);
  const RealArray& updates = step.input(2);
  const auto* reduction = step.attribute("reduction");
  if (reduction && reduction->s() != "none") step.fail("a reduction other than 'none'");
  if (indices.shape.empty()) step.fail("its indices have no axis");
  const std::size_t depth = std::size_t(indices.shape.back());
  if (depth > data.shape.size()) step.fail("an index tuple longer than the data's rank");
  const Dims data_strides = strides(data.shape);
  const std::int64_t slice = elements(Dims(data.shape.begin() + std::ptrdiff_t(depth), data.shape.end()));
  RealArray out = data;
  const std::size_t tuples = depth ? indices.values.size() / depth : 0;
  if (std::int64_t(updates.values.size()) != std::int64_t(tuples) * slice) step.fail(fmt::format("its {} updates ({}) do not fit its indices ({}; {} tuples of {} of data ({}): {} each)", updates.values.size(), fmt::join(updates.shape, ", "), fmt::join(indices.shape, ", "), tuples, depth, fmt::join(data.shape, ", "), slice));
  for (std::size_t u = 0; u < tuples; ++u) {
    std::int64_t offset = 0;
    for (std::size_t i = 0; i < depth; ++i) {
      std::int64_t index = std::int64_t(indices.values[u * depth + i]);
      if (index < 0) index += data.shape[i];
      if (index < 0 || index >= data.shape[i]) step.fail(fmt::format("index {} outside axis {}", index, i));
      offset += index * data_strides[i];
    }
    std::copy_n(updates.values.begin() + std::ptrdiff_t(u * std::size_t(slice)), slice,
                out.values.begin() + std::ptrdiff_t(offset));
  }
  return out;
}

}  // namespace

bool is_layout_operator(const std::string& op) {
  static const std::set<std::string> operators = {
      "Reshape",   "Flatten",   "Squeeze",    "Unsqueeze",  "Transpose", "Concat",   "Expand",   "Gather",
      "Softmax",   "LogSoftmax", "ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL2",
      "ArgMax",    "ArgMin",    "CumSum",    "ScatterND"};
  return operators.count(op) != 0;
}

std::optional<std::vector<RealArray>> evaluate_layout(const Step& step, const std::string& op) {
  if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze") return std::vector{reshaped(step)};
  if (op == "Transpose") return std::vector{transposed(step)};
  if (op == "Concat") return std::vector{concatenated(step)};
  if (op == "Expand") return std::vector{expanded(step)};
  if (op == "Gather") return std::vector{gathered(step)};
  if (op == "Softmax" || op == "LogSoftmax") return std::vector{softmax(step, op == "LogSoftmax")};
  if (op.rfind("Reduce", 0) == 0) return std::vector{reduced(step, op)};
  if (op == "ArgMax" || op == "ArgMin") return std::vector{arg_extreme(step, op == "ArgMax")};
  if (op == "CumSum") return std::vector{cumulative_sum(step)};
  if (op == "ScatterND") return std::vector{scattered(step)};
  return std::nullopt;
}

}  // namespace maeri::importer::evaluation
