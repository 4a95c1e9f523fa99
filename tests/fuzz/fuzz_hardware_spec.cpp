// libFuzzer harness: the hardware spec loader (contracts::load_hardware, strict YAML) on arbitrary file contents.
// Bad input must end in maeri::util::InputError (the CLI's exit code 2); any other exception, crash or sanitizer report is a bug.
#include <cstddef>
#include <cstdint>

#include "contracts/spec_loader.hpp"
#include "tests/fuzz/fuzz_input_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static maeri::fuzz::FuzzInputFile file(".yaml");
  const std::string& path = file.write(data, size);
  try {
    const maeri::contracts::Hardware hardware = maeri::contracts::load_hardware(path);
    (void)maeri::contracts::peek_spec_kind(path);
  } catch (const maeri::util::InputError&) {
  }
  return 0;
}
