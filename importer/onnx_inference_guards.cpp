// The rank guards around ONNX's convolution and pooling shape inference (see onnx_inference_guards.hpp).
#include "importer/onnx_inference_guards.hpp"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>

#include <cstddef>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace maeri::importer {

namespace {

struct GuardedOperator {
  const char* name;
  int data_input;    // the tensor whose rank N + 2 sets the spatial dimensions
  int weight_input;  // -1: none; its rank must equal the data's
};

// A spatial attribute's length must be the input's spatial rank (pads: twice that).
void check_spatial_attribute(onnx::InferenceContext& context, const char* name, std::size_t per_axis,
                             std::size_t spatial) {
  const onnx::AttributeProto* attribute = context.getAttribute(name);
  if (!attribute) return;
  const std::size_t length = std::size_t(attribute->ints_size());
  if (length != per_axis * spatial)
    fail_shape_inference("attribute '", name, "' has ", length, " values for an input of ", spatial,
                         " spatial dimensions (expected ", per_axis * spatial, ")");
}

void check_ranks(onnx::InferenceContext& context, const GuardedOperator& op) {
  if (context.getNumInputs() <= std::size_t(op.data_input) || !onnx::hasInputShape(context, std::size_t(op.data_input)))
    return;
  const int rank = context.getInputType(std::size_t(op.data_input))->tensor_type().shape().dim_size();
  if (rank < 3) fail_shape_inference("input ", op.data_input, " has rank ", rank, "; expected 3 or more (N, C, spatial…)");
  if (op.weight_input >= 0 && context.getNumInputs() > std::size_t(op.weight_input) &&
      onnx::hasInputShape(context, std::size_t(op.weight_input))) {
    const int weight_rank = context.getInputType(std::size_t(op.weight_input))->tensor_type().shape().dim_size();
    if (weight_rank != rank)
      fail_shape_inference("the weights (input ", op.weight_input, ") have rank ", weight_rank, ", the data (input ",
                           op.data_input, ") rank ", rank, "; they must agree");
  }
  const std::size_t spatial = std::size_t(rank - 2);
  check_spatial_attribute(context, "kernel_shape", 1, spatial);
  check_spatial_attribute(context, "strides", 1, spatial);
  check_spatial_attribute(context, "dilations", 1, spatial);
  check_spatial_attribute(context, "pads", 2, spatial);
  check_spatial_attribute(context, "output_padding", 1, spatial);
  check_spatial_attribute(context, "output_shape", 1, spatial);
}

void install_guards() {
  static const std::vector<GuardedOperator> guarded = {
      {"Conv", 0, 1},        {"ConvTranspose", 0, 1}, {"ConvInteger", 0, 1}, {"QLinearConv", 0, 3},
      {"MaxPool", 0, -1},    {"AveragePool", 0, -1},  {"LpPool", 0, -1},     {"MaxUnpool", 0, -1},
  };
  const int newest = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map().at(onnx::ONNX_DOMAIN).second;
  for (const GuardedOperator& op : guarded) {
    // Schema(name, v) is the registry's own object for the newest version ≤ v: visiting every v reaches each once.
    std::set<const onnx::OpSchema*> seen;
    for (int version = 1; version <= newest; ++version) {
      const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(op.name, version);
      if (!schema || !seen.insert(schema).second) continue;
      onnx::InferenceFunction original = schema->GetTypeAndShapeInferenceFunction();
      if (!original) continue;
      // The registry hands out const schemas, but owns them as mutable objects for the process's lifetime.
      const_cast<onnx::OpSchema*>(schema)->TypeAndShapeInferenceFunction(
          [op, original = std::move(original)](onnx::InferenceContext& context) {
            check_ranks(context, op);
            original(context);
          });
    }
  }
}

}  // namespace

void guard_onnx_shape_inference() {
  static std::once_flag once;
  std::call_once(once, install_guards);
}

}  // namespace maeri::importer
