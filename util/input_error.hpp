// InputError: the one exception type for bad user input (YAML specs, mapping files, CLI values).
// It carries where the problem is (file, line, column, field) so every message can name them.
#pragma once

#include <stdexcept>
#include <string>

namespace maeri::util {

struct SourceLocation {
  std::string file;
  int line = 0;    // 1-based; 0 when unknown (e.g. the file could not be opened)
  int column = 0;  // 1-based; 0 when unknown
};

class InputError : public std::runtime_error {
 public:
  InputError(SourceLocation where, std::string field, const std::string& problem);

  const SourceLocation& where() const { return where_; }
  const std::string& field() const { return field_; }

 private:
  SourceLocation where_;
  std::string field_;
};

}  // namespace maeri::util
