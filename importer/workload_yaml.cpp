// Network → workload YAML (see workload_yaml.hpp; schema in docs/workload-spec.md).
#include "importer/workload_yaml.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <sstream>

#include "contracts/matrix_product.hpp"
#include "contracts/elementwise_pairs.hpp"
#include "contracts/strict_yaml.hpp"
#include "util/input_error.hpp"

namespace maeri::importer {
namespace {

// A per-axis field: one value when both axes agree, else [along X, along Y].
void per_axis(YAML::Emitter& out, const char* key, std::int64_t x, std::int64_t y) {
  out << YAML::Key << key << YAML::Value;
  if (x == y) {
    out << x;
  } else {
    out << YAML::Flow << YAML::BeginSeq << x << y << YAML::EndSeq;
  }
}

// The fields of a conv / fc / gemm entry after its name and type (docs/workload-spec.md).
void layer_fields(YAML::Emitter& out, const contracts::Network& network, const contracts::Layer& layer,
                  std::int64_t batch) {
  switch (layer.type) {
    case contracts::LayerType::Convolution:
      out << YAML::Key << "K" << YAML::Value << layer.K << YAML::Key << "C" << YAML::Value << layer.C;
      out << YAML::Key << "R" << YAML::Value << layer.R << YAML::Key << "S" << YAML::Value << layer.S;
      out << YAML::Key << "X" << YAML::Value << layer.X << YAML::Key << "Y" << YAML::Value << layer.Y;
      per_axis(out, "stride", layer.stride_x, layer.stride_y);
      per_axis(out, "padding", layer.padding_x, layer.padding_y);
      if (layer.dilation_x != 1 || layer.dilation_y != 1) per_axis(out, "dilation", layer.dilation_x, layer.dilation_y);
      if (layer.groups != 1) out << YAML::Key << "groups" << YAML::Value << layer.groups;
      out << YAML::Key << "X_out" << YAML::Value << layer.output_x();
      out << YAML::Key << "Y_out" << YAML::Value << layer.output_y();
      break;
    case contracts::LayerType::FullyConnected:
      out << YAML::Key << "K" << YAML::Value << layer.K << YAML::Key << "C" << YAML::Value << layer.C;
      break;
    case contracts::LayerType::Gemm:
      if (layer.N % batch != 0)
        throw util::InputError({network.name, 0, 0}, "layers." + layer.name,
                              fmt::format("GEMM batch {} is not a multiple of the workload's batch {}", layer.N,
                                          batch));
      out << YAML::Key << "M" << YAML::Value << layer.X << YAML::Key << "K" << YAML::Value << layer.C;
      out << YAML::Key << "N" << YAML::Value << layer.K;
      if (layer.N != batch) out << YAML::Key << "batch" << YAML::Value << layer.N / batch;
      if (layer.groups != 1) out << YAML::Key << "groups" << YAML::Value << layer.groups;
      break;
  }
}

const char* operator_type(const contracts::Network& network, const contracts::Operator& op) {
  switch (op.kind) {
    case contracts::OperatorKind::FabricLayer:
      return contracts::is_matrix_product(op) ? "matmul" : contracts::to_string(network.layers[op.layer].type);
    case contracts::OperatorKind::Requantize: return "requantize";
    case contracts::OperatorKind::Relu: return "relu";
    case contracts::OperatorKind::Clip: return op.clip_min == 0 && op.clip_max == 6 ? "relu6" : "clip";
    case contracts::OperatorKind::MaxPool: return "max_pool";
    case contracts::OperatorKind::AveragePool: return "average_pool";
    case contracts::OperatorKind::GlobalAveragePool: return "global_average_pool";
    case contracts::OperatorKind::Add: return "add";
    case contracts::OperatorKind::Concat: return "concat";
    case contracts::OperatorKind::Reshape: return "reshape";
    case contracts::OperatorKind::Softmax: return "softmax";
    case contracts::OperatorKind::ChannelAffine: return "channel_affine";
    case contracts::OperatorKind::Pad: return "pad";
    case contracts::OperatorKind::TableFunction: return contracts::yaml_type(op.function.function);
    case contracts::OperatorKind::Mul: return "mul";
    case contracts::OperatorKind::Sub: return "sub";
    case contracts::OperatorKind::Maximum: return "max";
    case contracts::OperatorKind::Minimum: return "min";
    case contracts::OperatorKind::Transpose: return "transpose";
    case contracts::OperatorKind::Slice: return "slice";
    case contracts::OperatorKind::Gather: return "gather";
    case contracts::OperatorKind::LayerNormalization: return "layer_normalization";
    case contracts::OperatorKind::ReduceMean: return "reduce_mean";
    case contracts::OperatorKind::ReduceSum: return "reduce_sum";
    case contracts::OperatorKind::ReduceMax: return "reduce_max";
    case contracts::OperatorKind::Resize: return "resize";
    case contracts::OperatorKind::Lookup: return "lookup";
  }
  return "?";
}

// An element-wise pair's constant operand: its tensor's name and shape (and a sub's constant_first).
void constant_operand(YAML::Emitter& out, const contracts::Network& network, const contracts::Operator& op) {
  const contracts::Tensor& constant = network.tensors[op.inputs.at(1)];
  out << YAML::Key << "constant" << YAML::Value << constant.name;
  out << YAML::Key << "constant_shape" << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (std::int64_t extent : constant.shape) out << extent;
  out << YAML::EndSeq;
  if (op.constant_first) out << YAML::Key << "constant_first" << YAML::Value << true;
}

// The parameters a table function reads.
void function_parameters(YAML::Emitter& out, const contracts::FunctionCall& call) {
  const unsigned uses = contracts::parameters_read(call.function);
  if (uses & contracts::kUsesAlpha) out << YAML::Key << "alpha" << YAML::Value << call.alpha;
  if (uses & contracts::kUsesBeta) out << YAML::Key << "beta" << YAML::Value << call.beta;
  if (uses & contracts::kUsesGamma) out << YAML::Key << "gamma" << YAML::Value << call.gamma;
}

void integer_list(YAML::Emitter& out, const char* key, const std::vector<std::int64_t>& values) {
  out << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (std::int64_t value : values) out << value;
  out << YAML::EndSeq;
}

// Transpose's perm, slice's starts / ends / steps of every axis (ONNX's form), gather's axis, indices and their shape,
// a reduction's axes and keepdims.
void layout_fields(YAML::Emitter& out, const contracts::Network& network, const contracts::Operator& op) {
  if (op.kind == contracts::OperatorKind::Transpose) integer_list(out, "perm", op.perm);
  if (op.kind == contracts::OperatorKind::Slice) {
    const std::vector<std::int64_t>& input = network.tensors[op.inputs.at(0)].shape;
    std::vector<std::int64_t> starts, ends, steps;
    for (std::size_t d = 0; d < op.slice.size() && d < input.size(); ++d) {
      starts.push_back(op.slice[d].start);
      ends.push_back(contracts::onnx_slice_end(op.slice[d], input[d]));
      steps.push_back(op.slice[d].step);
    }
    integer_list(out, "starts", starts);
    integer_list(out, "ends", ends);
    integer_list(out, "steps", steps);
  }
  if (op.kind == contracts::OperatorKind::Gather) {
    out << YAML::Key << "axis" << YAML::Value << op.axis;
    integer_list(out, "indices", op.indices);
    if (op.indices_shape.empty()) out << YAML::Key << "scalar" << YAML::Value << 1;
    else if (op.indices_shape != std::vector<std::int64_t>{std::int64_t(op.indices.size())})
      integer_list(out, "indices_shape", op.indices_shape);
  }
  if (contracts::is_reduction(op)) {
    integer_list(out, "axes", op.reduce_axes);
    if (!op.keep_dims) out << YAML::Key << "keepdims" << YAML::Value << 0;
  }
}

// A resize's modes (ONNX's names; nearest_mode only for a nearest resize) and its scales or sizes as given.
void resize_fields(YAML::Emitter& out, const contracts::ResizeForm& form) {
  out << YAML::Key << "mode" << YAML::Value << contracts::to_string(form.mode);
  out << YAML::Key << "coordinate_transformation_mode" << YAML::Value << contracts::to_string(form.coordinates);
  if (form.mode == contracts::ResizeMode::Nearest)
    out << YAML::Key << "nearest_mode" << YAML::Value << contracts::to_string(form.nearest);
  if (!form.sizes.empty()) {
    integer_list(out, "sizes", form.sizes);
  } else {
    out << YAML::Key << "scales" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (double scale : form.scales) out << YAML::Precision(17) << scale;
    out << YAML::EndSeq;
  }
}

// One entry of `operators:` (docs/workload-spec.md, "Graphs"): flatten is written as the reshape it loads as.
void operator_entry(YAML::Emitter& out, const contracts::Network& network, const contracts::Operator& op,
                    std::int64_t batch) {
  const auto name_of = [&](std::size_t tensor) { return network.tensors[tensor].name; };
  const bool fabric = op.kind == contracts::OperatorKind::FabricLayer;
  out << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << op.name;
  out << YAML::Key << "type" << YAML::Value << operator_type(network, op);
  if (contracts::is_matrix_product(op)) {  // A · B, held as (B, A)
    out << YAML::Key << "inputs" << YAML::Value << YAML::Flow << YAML::BeginSeq << name_of(op.inputs.at(1))
        << name_of(op.inputs.at(0)) << YAML::EndSeq;
  } else if (contracts::is_elementwise_pair(op.kind) || op.kind == contracts::OperatorKind::Concat) {
    out << YAML::Key << "inputs" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (std::size_t i = 0; i < contracts::activation_inputs(network, op); ++i) out << name_of(op.inputs[i]);
    out << YAML::EndSeq;
    if (contracts::activation_inputs(network, op) < op.inputs.size()) constant_operand(out, network, op);
  } else {
    out << YAML::Key << "input" << YAML::Value << name_of(op.inputs.at(0));
  }
  if (name_of(op.outputs.at(0)) != op.name) out << YAML::Key << "output" << YAML::Value << name_of(op.outputs[0]);
  if (contracts::is_matrix_product(op)) {
    if (op.product.transpose_a) out << YAML::Key << "transpose_a" << YAML::Value << true;
    if (op.product.transpose_b) out << YAML::Key << "transpose_b" << YAML::Value << true;
  } else if (fabric) {
    if (name_of(op.inputs.at(1)) != op.name + ".weights")
      out << YAML::Key << "weights" << YAML::Value << name_of(op.inputs[1]);
    if (op.inputs.size() > 2) out << YAML::Key << "bias" << YAML::Value << name_of(op.inputs[2]);
    layer_fields(out, network, network.layers[op.layer], batch);
  }
  if (op.kind == contracts::OperatorKind::Clip && operator_type(network, op) == std::string("clip"))
    out << YAML::Key << "min" << YAML::Value << op.clip_min << YAML::Key << "max" << YAML::Value << op.clip_max;
  if (op.kind == contracts::OperatorKind::MaxPool || op.kind == contracts::OperatorKind::AveragePool) {
    per_axis(out, "size", op.pool.size_x, op.pool.size_y);
    per_axis(out, "stride", op.pool.stride_x, op.pool.stride_y);
    if (op.pool.padding_x != 0 || op.pool.padding_y != 0) per_axis(out, "padding", op.pool.padding_x, op.pool.padding_y);
  }
  if ((op.kind == contracts::OperatorKind::Concat || op.kind == contracts::OperatorKind::Softmax) && op.axis != 1)
    out << YAML::Key << "axis" << YAML::Value << op.axis;
  layout_fields(out, network, op);
  if (op.kind == contracts::OperatorKind::Reshape) {
    out << YAML::Key << "shape" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (std::int64_t extent : network.tensors[op.outputs[0]].shape) out << extent;
    out << YAML::EndSeq;
  }
  if (op.kind == contracts::OperatorKind::LayerNormalization)
    out << YAML::Key << "axis" << YAML::Value << op.axis << YAML::Key << "epsilon" << YAML::Value << op.epsilon;
  if (op.kind == contracts::OperatorKind::ChannelAffine || op.kind == contracts::OperatorKind::LayerNormalization)
    out << YAML::Key << "scale" << YAML::Value << name_of(op.inputs.at(1)) << YAML::Key << "shift" << YAML::Value
        << name_of(op.inputs.at(2));
  if (op.kind == contracts::OperatorKind::Pad)
    out << YAML::Key << "pads" << YAML::Value << YAML::Flow << YAML::BeginSeq << op.pad.x_begin << op.pad.y_begin
        << op.pad.x_end << op.pad.y_end << YAML::EndSeq;
  if (op.kind == contracts::OperatorKind::TableFunction) function_parameters(out, op.function);
  if (op.kind == contracts::OperatorKind::Resize) resize_fields(out, op.resize);
  if (op.kind == contracts::OperatorKind::Lookup) {
    out << YAML::Key << "table" << YAML::Value << name_of(op.inputs.at(1));
    integer_list(out, "table_shape", network.tensors[op.inputs[1]].shape);
    out << YAML::Key << "axis" << YAML::Value << op.axis;
  }
  out << YAML::EndMap;
}

}  // namespace

std::string workload_yaml(const contracts::Network& network, const std::string& header_comment) {
  // The workload's batch is that of its convolution and FC layers (the spec gives them no batch of their own);
  // a GEMM states its own as a multiple of it.
  std::int64_t batch = 0;
  for (const contracts::Layer& layer : network.layers)
    if (layer.type != contracts::LayerType::Gemm) {
      if (batch == 0) batch = layer.N;
      if (layer.N != batch)
        throw util::InputError({network.name, 0, 0}, "layers." + layer.name,
                              fmt::format("batch {} differs from the batch {} of the layers before it: a workload "
                                          "has one batch size",
                                          layer.N, batch));
    }
  if (batch == 0) batch = 1;
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "kind" << YAML::Value << "workload";
  out << YAML::Key << "name" << YAML::Value << network.name;
  out << YAML::Key << "batch" << YAML::Value << batch;
  bool beside_fabric = false;
  for (const contracts::Operator& op : network.operators)
    beside_fabric |= op.kind != contracts::OperatorKind::FabricLayer || contracts::is_matrix_product(op);
  if (beside_fabric) {
    out << YAML::Key << "inputs" << YAML::Value << YAML::BeginSeq;
    for (std::size_t t : network.network_inputs()) {
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << network.tensors[t].name;
      out << YAML::Key << "shape" << YAML::Value << YAML::Flow << YAML::BeginSeq;
      for (std::int64_t extent : network.tensors[t].shape) out << extent;
      out << YAML::EndSeq;
      if (!network.tensors[t].cut.empty()) out << YAML::Key << "cut" << YAML::Value << network.tensors[t].cut;
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
    out << YAML::Key << "operators" << YAML::Value << YAML::BeginSeq;
    for (const contracts::Operator& op : network.operators) operator_entry(out, network, op, batch);
  } else {
    out << YAML::Key << "layers" << YAML::Value << YAML::BeginSeq;
    for (const contracts::Layer& layer : network.layers) {
      out << YAML::Flow << YAML::BeginMap;
      out << YAML::Key << "name" << YAML::Value << layer.name;
      out << YAML::Key << "type" << YAML::Value << contracts::to_string(layer.type);
      layer_fields(out, network, layer, batch);
      out << YAML::EndMap;
    }
  }
  out << YAML::EndSeq << YAML::EndMap;
  std::string text;
  std::istringstream lines(header_comment);
  for (std::string line; std::getline(lines, line);) text += "# " + line + "\n";
  text += out.c_str() + std::string("\n");
  if (text.size() > contracts::kMaxSpecFileBytes)
    throw util::InputError({"workload", 0, 0}, "",
                           fmt::format("the workload YAML would have {} bytes, more than a workload file may have "
                                       "({} bytes, kMaxSpecFileBytes, docs/cli.md: Limits); names this long come "
                                       "from the model",
                                       text.size(), contracts::kMaxSpecFileBytes));
  return text;
}

}  // namespace maeri::importer
