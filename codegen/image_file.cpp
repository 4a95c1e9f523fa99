// Reading .mimg files with their size bounded (see image_file.hpp).
#include "codegen/image_file.hpp"

#include <vector>

#include "codegen/image_validation.hpp"
#include "util/input_file.hpp"

namespace maeri::codegen {

ConfigImage load_image_file(const std::string& path) {
  const std::string bytes = util::read_input_file(path, {"a configuration image", kMaxImageBytes, "kMaxImageBytes"});
  return decode_image(std::vector<std::uint8_t>(bytes.begin(), bytes.end()), path);
}

}  // namespace maeri::codegen
