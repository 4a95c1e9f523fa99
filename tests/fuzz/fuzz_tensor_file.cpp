// libFuzzer harness: the tensor file reader (testbench::read_tensor_file) on arbitrary file contents. The first two
// bytes choose the data width (2..32 bits, the hardware spec's range) and the expected value count (0..255); the
// rest is the file. Bad input must end in maeri::util::InputError; an accepted file must hold exactly the expected count of values
// that fit the width.
#include <cstddef>
#include <cstdint>

#include "util/input_error.hpp"
#include "testbench/stimulus.hpp"
#include "tests/fuzz/fuzz_input_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static maeri::fuzz::FuzzInputFile file(".txt");
  if (size < 2) return 0;
  const int data_width = 2 + data[0] % 31;
  const std::size_t expected_count = data[1];
  const std::string& path = file.write(data + 2, size - 2);
  try {
    const std::vector<std::int64_t> values =
        maeri::testbench::read_tensor_file(path, expected_count, data_width, "--inputs");
    if (values.size() != expected_count) __builtin_trap();
    const std::int64_t half = std::int64_t(1) << (data_width - 1);
    for (const std::int64_t value : values) {
      if (value < -half || value >= half) __builtin_trap();
    }
  } catch (const maeri::util::InputError&) {
  }
  return 0;
}
