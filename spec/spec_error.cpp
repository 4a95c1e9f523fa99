// Formats SpecError messages as "file:line:column: field 'x': problem" (the form editors and CI logs link).
#include "spec/spec_error.hpp"

#include <fmt/format.h>

namespace maeri::spec {
namespace {

std::string format_message(const SourceLocation& where, const std::string& field,
                           const std::string& problem) {
  std::string location = where.file;
  if (where.line > 0) location += fmt::format(":{}:{}", where.line, where.column);
  if (field.empty()) return fmt::format("{}: {}", location, problem);
  return fmt::format("{}: field '{}': {}", location, field, problem);
}

}  // namespace

SpecError::SpecError(SourceLocation where, std::string field, const std::string& problem)
    : std::runtime_error(format_message(where, field, problem)),
      where_(std::move(where)),
      field_(std::move(field)) {}

}  // namespace maeri::spec
