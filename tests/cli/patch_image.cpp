// maeri_patch_image IN OUT FIELD VALUE [FIELD VALUE …]: writes a copy of the configuration image IN with the named
// fields (names of tests/unit/image_bytes.hpp, e.g. layer.stride, program[0].operand[2], layer.name[0]) set to
// the given values and the size and CRC recomputed, so that the CLI tests can hand `maeri` images that only the
// semantic checks reject. Exit 0 on success, 1 with a message otherwise.
#include <cstdint>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "image_bytes.hpp"

int main(int argc, char** argv) {
  if (argc < 5 || argc % 2 != 1) {
    std::cerr << "usage: maeri_patch_image IN OUT FIELD VALUE [FIELD VALUE ...]\n";
    return 1;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << argv[1] << ": cannot open\n";
    return 1;
  }
  std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  try {
    const std::vector<std::uint8_t> original = bytes;  // field positions are those of the unedited image
    for (int i = 3; i + 1 < argc; i += 2) {
      const auto field = maeri::test::find_image_field(original, argv[i]);
      if (!field) {
        std::cerr << argv[1] << ": no field '" << argv[i] << "'\n";
        return 1;
      }
      maeri::test::put_field(bytes, *field, std::stoull(argv[i + 1], nullptr, 0));
    }
    maeri::test::reseal(bytes);
  } catch (const std::exception& error) {
    std::cerr << argv[1] << ": " << error.what() << '\n';
    return 1;
  }
  std::ofstream out(argv[2], std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  if (!out) {
    std::cerr << argv[2] << ": cannot write\n";
    return 1;
  }
  return 0;
}
