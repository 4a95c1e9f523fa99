// Reading a configuration image file (.mimg) for every tool that loads one: the file's size is checked against
// the largest valid image, kMaxImageBytes, before a byte is read (a pipe is read up to that size; util/input_file),
// then decode_image decodes and validates it. Throws util::InputError when the file cannot be read or is too
// large, ImageError when its contents are not a valid image; both name the file.
#pragma once

#include <string>

#include "codegen/config_image.hpp"

namespace maeri::codegen {

ConfigImage load_image_file(const std::string& path);

}  // namespace maeri::codegen
