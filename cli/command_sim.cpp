// `maeri sim IMAGE`: runs one configuration image on the Verilated fabric it was built for, with input and
// weight tensors from files or seeded random ones, checks every output against a reference convolution and
// prints the RTL's cycles and activity counters. Given the hardware spec, it runs the image a second time with the
// SDM/DRAM models of that spec, checks those outputs too, and prints the model-vs-co-simulation cross-check.
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "codegen/exact_traffic.hpp"
#include "codegen/image_file.hpp"
#include "codegen/image_program.hpp"
#include "util/atomic_file.hpp"
#include "mapper/model/cost_model.hpp"
#include "contracts/spec_loader.hpp"
#include "sim/fabric_session.hpp"
#include "testbench/cross_check.hpp"
#include "testbench/scoreboard.hpp"
#include "testbench/stimulus.hpp"

namespace maeri::cli {
namespace {

struct SimOptions {
  std::string image;
  std::string hardware;
  std::string inputs;
  std::string weights;
  std::uint64_t seed = 1;
  std::string output;
  std::string trace;
};

int run_sim(const SimOptions& options) {
  for (const std::string* output : {&options.output, &options.trace})  // fail before co-simulating
    if (!output->empty()) util::check_output_path(*output);
  const codegen::ConfigImage image = codegen::load_image_file(options.image);
  std::optional<contracts::Hardware> hardware;
  if (!options.hardware.empty()) {
    hardware = contracts::load_hardware(options.hardware);
    codegen::check_image_matches(image, *hardware, options.image);
  }
  const contracts::Layer& layer = image.layer;
  codegen::LayerTensors tensors = codegen::random_tensors(layer, image.hardware.data_width, options.seed);
  if (!options.inputs.empty())
    tensors.input = testbench::read_tensor_file(options.inputs, size_t(layer.input_elements()),
                                                image.hardware.data_width, "--inputs");
  if (!options.weights.empty())
    tensors.weights = testbench::read_tensor_file(options.weights, size_t(layer.weight_elements()),
                                                  image.hardware.data_width, "--weights");

  std::unique_ptr<sim::FabricSession> fabric;
  try {
    fabric = sim::open_fabric(image.hardware, 100000, options.trace);
  } catch (const std::invalid_argument& error) {
    throw codegen::ImageError(options.image + ": " + error.what());
  }
  const codegen::LayerProgram program = codegen::expand_image(image, options.image);
  const sim::RtlLayerRun rtl = fabric->run(program, tensors);
  const std::vector<std::int64_t> reference = codegen::reference_convolution(layer, tensors, image.hardware.acc_width);
  testbench::Scoreboard board = testbench::score_outputs(layer, reference, rtl.output);
  std::optional<sim::RtlLayerRun> with_memory;
  if (hardware) {
    with_memory = fabric->run_with_memory(program, tensors, *hardware);
    if (board.pass()) board = testbench::score_outputs(layer, reference, with_memory->output);
  }

  fmt::print("image {} on {}: layer {}, tile {}\n{}\n", options.image, fabric->model_name(), layer.name,
             contracts::to_compact_string(image.mapping.tile), board.summary());
  const sim::Counters& c = rtl.counters;
  fmt::print("RTL: {} cycles, {} steps, {} multiplications, {} additions, {} MN forwards, {} DN traversals, "
             "{} RN traversals, {} results\n",
             rtl.cycles, c.fires, c.multiplications, c.additions, c.mn_forwards, c.dn_traversals, c.rn_traversals,
             c.results);
  if (with_memory) {
    const timing::MemoryRun& m = *with_memory->memory;
    fmt::print("with SDM/DRAM ({}): {} cycles, {} memory stall cycles, {} DRAM bytes read, {} written, peak SDM "
               "{} + {} bytes\n",
               m.resident ? "resident" : "streaming", with_memory->cycles, m.stall_cycles, m.dram.bytes_read,
               m.dram.bytes_written, m.sdm.peak_stream_bytes, m.sdm.peak_output_bytes);
  }
  if (hardware) {
    contracts::CostReport model = mapper::evaluate(layer, *hardware, image.mapping);
    codegen::refine_with_exact_traffic(model, layer, *hardware);
    fmt::print("{}", testbench::cross_check_table(testbench::cross_check(model, {&rtl, &*with_memory}, *hardware)));
  }
  if (!options.output.empty())
    util::write_file_atomically(
        options.output, testbench::tensor_text(rtl.output, fmt::format("output of layer {}: [N={}][K={}][X'={}][Y'={}]",
                                                                       layer.name, layer.N, layer.K, layer.output_x(),
                                                                       layer.output_y())));
  return board.pass() ? kExitOk : kExitCheckFailed;
}

}  // namespace

void add_sim_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<SimOptions>();
  CLI::App* command = app.add_subcommand(
      "sim", "Run a configuration image on the Verilated fabric, check it bit-exactly, print the RTL counters");
  command->add_option("image", options->image, "configuration image (.mimg)")->required()->check(CLI::ExistingFile);
  command->add_option("--hardware", options->hardware, "check the image against this spec, also run it with that spec's SDM/DRAM, cross-check the model");
  // Tensor files are checked by their reader (exit 2 with the OS's reason or "is a directory"), not by CLI11 (exit 1).
  command->add_option("--inputs", options->inputs, "input tensor [N][C][X][Y] as whitespace-separated integers");
  command->add_option("--weights", options->weights, "weight tensor [K][C][R][S] as whitespace-separated integers");
  command->add_option("--seed", options->seed, "seed of the random tensors not given as files")->capture_default_str();
  command->add_option("--output", options->output, "write the output tensor [N][K][X'][Y'] as text");
  command->add_option("--trace", options->trace, "write a VCD of the whole fabric (view with gtkwave)");
  command->callback([options, &action] { action = [options] { return run_sim(*options); }; });
}

}  // namespace maeri::cli
