// Writing output files atomically: contents go to a temporary beside the target, then rename(),
// so a failure never leaves a half-written file behind.
#pragma once

#include <string>

namespace maeri::spec {

// Throws SpecError naming the path when the file cannot be written.
void write_file_atomically(const std::string& path, const std::string& contents);

}  // namespace maeri::spec
