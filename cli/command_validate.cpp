// `maeri validate FILE...`: loads hardware or workload specs with full checking and summarises them.
#include <fmt/format.h>

#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/model_input_options.hpp"
#include "importer/network_loader.hpp"
#include "contracts/matrix_product.hpp"
#include "contracts/spec_loader.hpp"

namespace maeri::cli {
namespace {

void summarise_hardware(const contracts::Hardware& hardware, const std::string& path) {
  fmt::print("{}: OK: hardware '{}': {} multiplier switches, dn_bw {}, rn_bw {}, {}-bit data, {}-bit "
             "accumulators\n",
             path, hardware.name, hardware.num_ms, hardware.dn_bw, hardware.rn_bw, hardware.data_width,
             hardware.acc_width);
}

void summarise_workload(const contracts::Network& network, const std::string& path) {
  fmt::print("{}: OK: workload '{}': {} layers, {} MACs\n", path, network.name, network.layers.size(),
             network.total_macs());
  fmt::print("  {:<16} {:<4} {:>3} {:>6} {:>7} {:>3} {:>3} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5} {:>14}\n",
             "layer", "type", "N", "K", "C", "R", "S", "X", "Y", "str", "pad", "dil", "grp", "X'", "Y'", "MACs");
  const auto pair = [](std::int64_t x, std::int64_t y) { return x == y ? fmt::format("{}", x) : fmt::format("{}x{}", x, y); };
  for (const auto& layer : network.layers) {
    fmt::print("  {:<16} {:<4} {:>3} {:>6} {:>7} {:>3} {:>3} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5} {:>14}\n",
               layer.name, contracts::to_string(layer.type), layer.N, layer.K, layer.C, layer.R, layer.S,
               layer.X, layer.Y, pair(layer.stride_x, layer.stride_y), pair(layer.padding_x, layer.padding_y),
               pair(layer.dilation_x, layer.dilation_y), layer.groups, layer.output_x(), layer.output_y(),
               layer.macs());
  }
}

// The parameters a table function reads, as validate lists them: " 0.2x+0.5" (hard sigmoid, hard swish), " alpha=0.01".
std::string function_parameters(const contracts::FunctionCall& call) {
  const unsigned uses = contracts::parameters_read(call.function);
  if ((uses & contracts::kUsesAlpha) && (uses & contracts::kUsesBeta)) return fmt::format(" {}x+{}", call.alpha, call.beta);
  std::string text;
  if (uses & contracts::kUsesAlpha) text += fmt::format(" alpha={}", call.alpha);
  if (uses & contracts::kUsesGamma) text += fmt::format(" gamma={}", call.gamma);
  return text;
}

// A graph's operators beside the fabric matter to its runs (what the post-processing unit does between layers), so
// a workload with any lists every operator with the tensors it reads and writes; a chain prints its layers only.
void summarise_graph(const contracts::Network& network) {
  bool beside_fabric = false;
  for (const contracts::Operator& op : network.operators)
    beside_fabric |= op.kind != contracts::OperatorKind::FabricLayer || contracts::is_matrix_product(op);
  if (!beside_fabric) return;
  const auto names = [&](const std::vector<std::size_t>& tensors) {
    std::vector<std::string> listed;
    for (std::size_t t : tensors) listed.push_back(network.tensors[t].name);
    return fmt::format("{}", fmt::join(listed, ", "));
  };
  std::vector<std::string> inputs;
  for (std::size_t t : network.network_inputs())
    inputs.push_back(fmt::format("{} ({})", network.tensors[t].name, fmt::join(network.tensors[t].shape, ",")));
  fmt::print("  graph: {} operators; inputs {}\n", network.operators.size(), fmt::join(inputs, ", "));
  fmt::print("  {:<24} {:<20} {:<40} {}\n", "operator", "kind", "reads", "writes");
  for (const contracts::Operator& op : network.operators) {
    std::string kind = contracts::operator_label(op);
    if (op.kind == contracts::OperatorKind::FabricLayer)
      kind = contracts::is_matrix_product(op) ? "matmul" : contracts::to_string(network.layers[op.layer].type);
    if (op.kind == contracts::OperatorKind::Clip) kind += fmt::format(" [{}, {}]", op.clip_min, op.clip_max);
    if (op.kind == contracts::OperatorKind::MaxPool || op.kind == contracts::OperatorKind::AveragePool)
      kind += op.pool.stride_x == op.pool.stride_y
                  ? fmt::format(" {}x{}/{}", op.pool.size_x, op.pool.size_y, op.pool.stride_x)
                  : fmt::format(" {}x{}/{}x{}", op.pool.size_x, op.pool.size_y, op.pool.stride_x, op.pool.stride_y);
    if (op.kind == contracts::OperatorKind::Pad)
      kind += fmt::format(" [{}, {}, {}, {}]", op.pad.x_begin, op.pad.y_begin, op.pad.x_end, op.pad.y_end);
    if (op.kind == contracts::OperatorKind::TableFunction) kind += function_parameters(op.function);
    if (op.constant_first) kind += " (constant first)";
    const contracts::Tensor& output = network.tensors[op.outputs[0]];
    const std::vector<std::size_t> reads =
        contracts::is_matrix_product(op) ? std::vector<std::size_t>{op.inputs[1], op.inputs[0]} : op.inputs;  // A, B
    fmt::print("  {:<24} {:<20} {:<40} {} ({})\n", op.name, kind, names(reads), output.name,
               fmt::join(output.shape, ","));
  }
}

int run_validate(const std::vector<std::string>& files, const importer::ModelInputShapes& sizes) {
  int status = kExitOk;
  for (const auto& path : files) {
    try {
      if (!importer::is_onnx_path(path) && contracts::peek_spec_kind(path) == contracts::SpecKind::Hardware) {
        summarise_hardware(contracts::load_hardware(path), path);
      } else {
        const contracts::Network network = importer::load_network(path, sizes);
        summarise_workload(network, path);
        summarise_graph(network);
      }
    } catch (const util::InputError& error) {
      std::cerr << "error: " << error.what() << '\n';
      status = kExitBadInput;
    }
  }
  return status;
}

}  // namespace

void add_validate_command(CLI::App& app, Action& action) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto sizes = std::make_shared<importer::ModelInputShapes>();
  CLI::App* command = app.add_subcommand(
      "validate", "Check hardware or workload YAML files or ONNX models (every field, range and derived size)");
  command->add_option("files", *files, "YAML files (kind: hardware or kind: workload) or ONNX models (.onnx)")->required();
  add_model_input_options(command, *sizes);
  command->footer("Example: maeri validate configs/hardware/maeri-64.yaml configs/workloads/tiny.yaml");
  command->callback([files, sizes, &action] { action = [files, sizes] { return run_validate(*files, *sizes); }; });
}

}  // namespace maeri::cli
