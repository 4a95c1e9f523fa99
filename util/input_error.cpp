// Formats InputError messages as "file:line:column: field 'x': problem" (the form editors and CI logs link).
#include "util/input_error.hpp"

#include <fmt/format.h>

namespace maeri::util {
namespace {

std::string format_message(const SourceLocation& where, const std::string& field,
                           const std::string& problem) {
  std::string location = where.file;
  if (where.line > 0) location += fmt::format(":{}:{}", where.line, where.column);
  std::string message = field.empty() ? fmt::format("{}: {}", location, problem)
                                      : fmt::format("{}: field '{}': {}", location, field, problem);
  // what() is a C string: a NUL from the input (a name "a\0b") would end the message there.
  for (std::size_t at = message.find('\0'); at != std::string::npos; at = message.find('\0', at))
    message.replace(at, 1, "\\x00");
  return message;
}

}  // namespace

InputError::InputError(SourceLocation where, std::string field, const std::string& problem)
    : std::runtime_error(format_message(where, field, problem)),
      where_(std::move(where)),
      field_(std::move(field)) {}

}  // namespace maeri::util
