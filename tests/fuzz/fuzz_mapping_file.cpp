// libFuzzer harness: the mapping file reader (contracts::load_mapping_file, strict YAML, tiles re-checked against
// Eq. 1) on arbitrary file contents, and the writer on what it accepted: a file the reader accepts must be written
// back in a form the reader accepts again with the same contents. Bad input must end in maeri::util::InputError.
#include <cstddef>
#include <cstdint>

#include "contracts/mapping_file.hpp"
#include "util/input_error.hpp"
#include "tests/fuzz/fuzz_input_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static maeri::fuzz::FuzzInputFile file(".yaml");
  static maeri::fuzz::FuzzInputFile rewritten(".yaml");
  const std::string& path = file.write(data, size);
  maeri::contracts::MappingFile mapping;
  try {
    mapping = maeri::contracts::load_mapping_file(path);
  } catch (const maeri::util::InputError&) {
    return 0;
  }
  const std::string text = maeri::contracts::emit_mapping_file(mapping);
  const maeri::contracts::MappingFile again = maeri::contracts::load_mapping_file(
      rewritten.write(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
  if (again.layers.size() != mapping.layers.size() || again.num_ms != mapping.num_ms) __builtin_trap();
  for (std::size_t i = 0; i < mapping.layers.size(); ++i) {
    if (!(again.layers[i].mapping == mapping.layers[i].mapping)) __builtin_trap();
    // Like a workload's layers, a mapping's layers must have computable derived sizes (UBSan checks the products).
    const maeri::contracts::Layer& layer = mapping.layers[i].layer;
    if (layer.macs() < 1 || layer.input_elements() < 1 || layer.weight_elements() < 1 || layer.output_elements() < 1)
      __builtin_trap();
  }
  return 0;
}
