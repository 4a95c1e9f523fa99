// Well-formed UTF-8 (RFC 3629): the one check for text that ends up in JSON, YAML and file names, which all need
// valid Unicode (spec files, configuration images, names imported from ONNX models).
#pragma once

#include <cstddef>
#include <string_view>

namespace maeri::util {

// Byte offset of the first byte that does not belong to well-formed UTF-8 (no overlong forms, no surrogates,
// nothing above U+10FFFF), or text.size() when all of it is well-formed.
std::size_t first_invalid_utf8(std::string_view text);

inline bool is_valid_utf8(std::string_view text) { return first_invalid_utf8(text) == text.size(); }

}  // namespace maeri::util
