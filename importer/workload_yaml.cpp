// Network → workload YAML (see workload_yaml.hpp; schema in docs/workload-spec.md).
#include "importer/workload_yaml.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <sstream>

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
  out << YAML::Key << "layers" << YAML::Value << YAML::BeginSeq;
  for (const contracts::Layer& layer : network.layers) {
    out << YAML::Flow << YAML::BeginMap;
    out << YAML::Key << "name" << YAML::Value << layer.name;
    out << YAML::Key << "type" << YAML::Value << contracts::to_string(layer.type);
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
        break;
    }
    out << YAML::EndMap;
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
