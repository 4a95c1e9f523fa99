// A CSV table read strictly (RFC 4180: comma-separated, fields optionally in double quotes with "" for a quote,
// first row = column names; a UTF-8 byte order mark in front is skipped): what `maeri plot` reads, the CSV files every subcommand writes. Errors name the file,
// the line and, for a missing column, the columns there are.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace maeri::util {

struct CsvTable {
  std::string path;  // for messages
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;  // each as wide as `columns`
  std::vector<int> row_lines;                  // the line each row starts on

  // Index of the named column; throws InputError naming the file and the columns it has.
  std::size_t column(const std::string& name) const;
};

// The parsed table takes several times the file's size in memory (a string per field); 64 MiB is hundreds of
// thousands of rows, more than a chart can show, and a device or a huge file ends here (docs/cli.md, "Limits").
inline constexpr std::size_t kMaxCsvFileBytes = std::size_t(64) << 20;

CsvTable parse_csv_table(const std::string& text, const std::string& path);
// Reads at most kMaxCsvFileBytes (util/input_file.hpp: a directory, a missing file and the limit are InputErrors).
CsvTable load_csv_table(const std::string& path);

// The whole text as a number ("1e3", "-2.5", " 7 " with spaces around), or nothing.
std::optional<double> csv_number(const std::string& field);

}  // namespace maeri::util
