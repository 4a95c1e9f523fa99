// libFuzzer harness: NumPy's .npy reader (util::parse_npy) and, when the first byte is odd, the .npz archive reader
// (util::read_npz_member on the rest as a file, every member by name). Bad input must end in
// maeri::util::InputError; an accepted array must hold exactly its shape's product of values, and written back
// (util::npy_bytes) it must read back to the same array.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tests/fuzz/fuzz_input_file.hpp"
#include "util/input_error.hpp"
#include "util/npy_file.hpp"

namespace {

void check_array(const maeri::util::NpyArray& array) {
  const std::size_t count = maeri::util::npy_is_integer(array.type) ? array.integers.size() : array.reals.size();
  if (std::int64_t(count) != array.elements()) __builtin_trap();
  const maeri::util::NpyArray back = maeri::util::parse_npy(maeri::util::npy_bytes(array), "round trip");
  if (back.type != array.type || back.shape != array.shape || back.integers != array.integers) __builtin_trap();
  if (back.reals.size() != array.reals.size()) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static maeri::fuzz::FuzzInputFile file(".npz");
  if (size < 1) return 0;
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    if (data[0] % 2 == 0) {
      check_array(maeri::util::parse_npy(bytes, "input.npy"));
    } else {
      const std::string& path = file.write(data + 1, size - 1);
      for (const std::string& name : maeri::util::npz_member_names(path)) {
        try {
          check_array(maeri::util::read_npz_member(path, name));
        } catch (const maeri::util::InputError&) {
        }
      }
    }
  } catch (const maeri::util::InputError&) {
  }
  return 0;
}
