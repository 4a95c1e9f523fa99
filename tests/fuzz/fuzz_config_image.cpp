// libFuzzer harness: the configuration image decoder (codegen::decode_image, and so whatever validation it runs)
// on arbitrary bytes, the $readmemh reader on the same bytes as text, and what `maeri disasm` prints for an
// accepted image. Bad input must end in ImageError; an accepted image must survive encode -> decode unchanged.
// A mutated image almost never carries a matching CRC-32 and size, so each input is decoded once as it is (the
// header checks) and once with its size and CRC fields recomputed (everything behind them).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "codegen/config_image.hpp"

namespace {

// Offsets of the header's CRC-32 and size fields, and where the CRC's coverage starts (docs/config-image.md).
constexpr std::size_t kCrcField = 12, kSizeField = 16, kCrcCoversFrom = 16;

std::vector<std::uint8_t> with_valid_crc(std::vector<std::uint8_t> bytes) {
  if (bytes.size() < kCrcCoversFrom + 4) return bytes;
  const auto put_u32 = [&bytes](std::size_t offset, std::uint32_t value) {
    for (std::size_t i = 0; i < 4; ++i) bytes[offset + i] = std::uint8_t(value >> (8 * i));
  };
  put_u32(kSizeField, std::uint32_t(bytes.size()));
  put_u32(kCrcField, maeri::codegen::crc32_of(bytes.data() + kCrcCoversFrom, bytes.size() - kCrcCoversFrom));
  return bytes;
}

void check_accepted(const maeri::codegen::ConfigImage& image) {
  (void)maeri::codegen::disassemble(image);
  (void)maeri::codegen::to_json(image);
  if (image.fused) (void)maeri::codegen::fused_member_text(*image.fused);
  // The writer must represent everything the reader accepts (so a rejection here is a bug, not bad input).
  maeri::codegen::ConfigImage again;
  try {
    again = maeri::codegen::decode_image(maeri::codegen::encode_image(image), "again");
  } catch (const maeri::codegen::ImageError&) {
    __builtin_trap();
  }
  if (!(again == image)) __builtin_trap();
}

void decode_and_check(const std::vector<std::uint8_t>& bytes, const std::string& source) {
  for (const std::vector<std::uint8_t>& image_bytes : {bytes, with_valid_crc(bytes)}) {
    try {
      check_accepted(maeri::codegen::decode_image(image_bytes, source));
    } catch (const maeri::codegen::ImageError&) {
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::uint8_t> bytes(data, data + size);
  decode_and_check(bytes, "fuzz.mimg");
  std::vector<std::uint8_t> from_hex;
  try {
    from_hex = maeri::codegen::from_readmemh(std::string(bytes.begin(), bytes.end()), "fuzz.hex");
  } catch (const maeri::codegen::ImageError&) {
    return 0;
  }
  decode_and_check(from_hex, "fuzz.hex");
  return 0;
}
