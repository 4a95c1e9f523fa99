// libFuzzer harness: the hardware spec loader (spec::load_hardware, strict YAML) on arbitrary file contents.
// Bad input must end in SpecError (the CLI's exit code 2); any other exception, crash or sanitizer report is a bug.
#include <cstddef>
#include <cstdint>

#include "spec/spec_loader.hpp"
#include "tests/fuzz/fuzz_input_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static maeri::fuzz::FuzzInputFile file(".yaml");
  const std::string& path = file.write(data, size);
  try {
    const maeri::spec::Hardware hardware = maeri::spec::load_hardware(path);
    (void)maeri::spec::peek_spec_kind(path);
  } catch (const maeri::spec::SpecError&) {
  }
  return 0;
}
