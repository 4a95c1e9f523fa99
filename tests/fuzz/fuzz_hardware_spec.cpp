// libFuzzer harness: the hardware spec loader (mapper::load_hardware, strict YAML) on arbitrary file contents.
// Bad input must end in SpecError (the CLI's exit code 2); any other exception, crash or sanitizer report is a bug.
#include <cstddef>
#include <cstdint>

#include "mapper/spec_loader.hpp"
#include "tests/fuzz/fuzz_input_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static maeri::fuzz::FuzzInputFile file(".yaml");
  const std::string& path = file.write(data, size);
  try {
    const maeri::mapper::Hardware hardware = maeri::mapper::load_hardware(path);
    (void)maeri::mapper::peek_spec_kind(path);
  } catch (const maeri::mapper::SpecError&) {
  }
  return 0;
}
