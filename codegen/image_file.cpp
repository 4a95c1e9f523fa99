// Reading .mimg files with their size bounded (see image_file.hpp).
#include "codegen/image_file.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "codegen/image_validation.hpp"

namespace maeri::codegen {

ConfigImage load_image_file(const std::string& path) {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  if (!error && std::filesystem::is_regular_file(status)) {
    const std::uintmax_t size = std::filesystem::file_size(path, error);
    if (!error && size > kMaxImageBytes)
      throw ImageError(fmt::format("{}: the file has {} bytes, more than the largest valid image ({} bytes)", path,
                                   size, kMaxImageBytes));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ImageError(fmt::format("{}: cannot open the image file", path));
  // One byte more than any valid image, so that a longer stream (a pipe, a growing file) is still recognised.
  std::vector<std::uint8_t> bytes(kMaxImageBytes + 1);
  in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size()));
  if (in.bad()) throw ImageError(fmt::format("{}: cannot read the image file", path));
  bytes.resize(std::size_t(in.gcount()));
  if (bytes.size() > kMaxImageBytes)
    throw ImageError(fmt::format("{}: the file has more than {} bytes, the largest valid image", path,
                                 kMaxImageBytes));
  return decode_image(bytes, path);
}

}  // namespace maeri::codegen
