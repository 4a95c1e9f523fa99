// libFuzzer harness: the strict CSV reader (maeri::util::parse_csv_table, what `maeri plot` reads) on arbitrary text.
// Bad input must end in maeri::util::InputError; an accepted table has at least the header, every row as wide as the header,
// and a line number for every row that lies within the text.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "util/csv_table.hpp"
#include "util/input_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  maeri::util::CsvTable table;
  try {
    table = maeri::util::parse_csv_table(text, "fuzz.csv");
  } catch (const maeri::util::InputError&) {
    return 0;
  }
  const int lines = 1 + int(std::count(text.begin(), text.end(), '\n')) + int(std::count(text.begin(), text.end(), '\r'));
  if (table.columns.empty() || table.rows.size() != table.row_lines.size()) __builtin_trap();
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    if (table.rows[r].size() != table.columns.size()) __builtin_trap();
    if (table.row_lines[r] < 2 || table.row_lines[r] > lines) __builtin_trap();
    for (const std::string& field : table.rows[r]) (void)maeri::util::csv_number(field);
  }
  return 0;
}
