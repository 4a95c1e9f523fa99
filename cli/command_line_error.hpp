// The error for a bad option value on the command line: a util::InputError located at "command line" and named by
// its flag, so it reads and exits like any other bad input (exit 2, docs/cli.md); CLI11 reports what it checks itself
// (unknown options, missing arguments) with exit 1.
#pragma once

#include <string>

#include "util/input_error.hpp"

namespace maeri::cli {

inline util::InputError command_line_error(const std::string& flag, const std::string& problem) {
  return util::InputError({"command line", 0, 0}, flag, problem);
}

}  // namespace maeri::cli
