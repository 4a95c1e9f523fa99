// Formats InputError messages as "file:line:column: field 'x': problem" (the form editors and CI logs link).
#include "util/input_error.hpp"

#include <fmt/format.h>

namespace maeri::util {
namespace {

std::string format_message(const SourceLocation& where, const std::string& field,
                           const std::string& problem) {
  std::string location = where.file;
  if (where.line > 0) location += fmt::format(":{}:{}", where.line, where.column);
  if (field.empty()) return fmt::format("{}: {}", location, problem);
  return fmt::format("{}: field '{}': {}", location, field, problem);
}

}  // namespace

InputError::InputError(SourceLocation where, std::string field, const std::string& problem)
    : std::runtime_error(format_message(where, field, problem)),
      where_(std::move(where)),
      field_(std::move(field)) {}

}  // namespace maeri::util
