// libFuzzer harness: the workload spec loader (contracts::load_workload, strict YAML; flat files and graphs, whose
// seeds are the shipped workloads) on arbitrary file contents, then the derived shape of every accepted layer and the
// graph rule on the accepted network. Bad input must end in maeri::util::InputError; anything else is a bug.
#include <cstddef>
#include <cstdint>

#include "contracts/spec_loader.hpp"
#include "tests/fuzz/fuzz_input_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static maeri::fuzz::FuzzInputFile file(".yaml");
  const std::string& path = file.write(data, size);
  try {
    const maeri::contracts::Network network = maeri::contracts::load_workload(path);
    // The loader promises that later stages can trust a Layer: every derived size must be positive and computable
    // (UBSan reports an int64 overflow in any of them).
    for (const maeri::contracts::Layer& layer : network.layers) {
      if (layer.output_x() < 1 || layer.output_y() < 1 || layer.macs() < 1 || layer.input_elements() < 1 ||
          layer.weight_elements() < 1 || layer.output_elements() < 1)
        __builtin_trap();
    }
    if (network.total_macs() < 1) __builtin_trap();
    if (maeri::contracts::network_violation(network)) __builtin_trap();  // the loader builds only well-formed graphs
  } catch (const maeri::util::InputError&) {
  }
  return 0;
}
