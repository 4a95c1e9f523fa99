// libFuzzer harness: the .npz reader (util::NpzArchive::member) against members whose header, directory entry and
// data disagree — issue 43's shape/size lies. The input is a control byte, two bytes of an expected shape, then the
// member's bytes (a .npy file); the harness stores or deflates it as "m.npy", and when the control byte asks,
// changes the size the directory declares by −32 … +31 bytes (tests/unit/zip_lies.hpp). The reader must refuse
// with an InputError or return exactly what the header declared: as many values as the shape's product, the expected
// shape when one was given, and an array that writes back (npy_bytes) to a file that reads back the same.
// Control byte: bit 0 deflate, bit 1 expect the shape (d1, d2) of the next two bytes, bits 2-7 the size change + 32
// (32: none).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "tests/fuzz/fuzz_input_file.hpp"
#include "tests/unit/zip_lies.hpp"
#include "util/input_error.hpp"
#include "util/npy_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static maeri::fuzz::FuzzInputFile file(".npz");
  if (size < 3) return 0;
  const bool deflated = data[0] & 1, expect = data[0] & 2;
  const int size_change = int(data[0] >> 2) - 32;
  const std::string member(reinterpret_cast<const char*>(data) + 3, size - 3);
  std::string archive = maeri::util::npz_archive_bytes({{"m.npy", member}}, deflated);
  if (size_change != 0 && std::int64_t(member.size()) + size_change >= 0)
    archive = maeri::test::with_declared_size(archive, std::uint32_t(std::int64_t(member.size()) + size_change));
  std::optional<maeri::util::NpyExpectation> expected;
  if (expect) expected = maeri::util::NpyExpectation{{data[1], data[2]}, "the harness"};
  try {
    const std::string& path = file.write(reinterpret_cast<const std::uint8_t*>(archive.data()), archive.size());
    const maeri::util::NpyArray array = maeri::util::NpzArchive(path).member("m", expected);
    const std::size_t count = maeri::util::npy_is_integer(array.type) ? array.integers.size() : array.reals.size();
    if (std::int64_t(count) != array.elements()) __builtin_trap();
    if (expected && array.shape != expected->shape) __builtin_trap();
    const maeri::util::NpyArray back = maeri::util::parse_npy(maeri::util::npy_bytes(array), "round trip");
    if (back.type != array.type || back.shape != array.shape || back.integers != array.integers) __builtin_trap();
  } catch (const maeri::util::InputError&) {
  }
  return 0;
}
