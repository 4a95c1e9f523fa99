// libFuzzer harness: the configuration image decoder (codegen::decode_image, and so whatever validation it runs)
// on arbitrary bytes, the $readmemh reader on the same bytes as text, and what `maeri disasm` prints for an
// accepted image. Bad input must end in ImageError; an accepted image must survive encode -> decode unchanged.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "codegen/config_image.hpp"

namespace {

void check_accepted(const maeri::codegen::ConfigImage& image) {
  (void)maeri::codegen::disassemble(image);
  (void)maeri::codegen::to_json(image);
  // The writer must represent everything the reader accepts.
  const maeri::codegen::ConfigImage again = maeri::codegen::decode_image(maeri::codegen::encode_image(image), "again");
  if (!(again == image)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::uint8_t> bytes(data, data + size);
  try {
    check_accepted(maeri::codegen::decode_image(bytes, "fuzz.mimg"));
  } catch (const maeri::codegen::ImageError&) {
  }
  try {
    const std::vector<std::uint8_t> from_hex =
        maeri::codegen::from_readmemh(std::string(bytes.begin(), bytes.end()), "fuzz.hex");
    check_accepted(maeri::codegen::decode_image(from_hex, "fuzz.hex"));
  } catch (const maeri::codegen::ImageError&) {
  }
  return 0;
}
