// Strict CSV reader (see csv_table.hpp).
#include "util/csv_table.hpp"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string_view>

#include "util/decimal_number.hpp"
#include "util/input_error.hpp"
#include "util/input_file.hpp"

namespace maeri::util {

std::size_t CsvTable::column(const std::string& name) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return i;
  std::string known;
  for (const std::string& c : columns) known += (known.empty() ? "" : ", ") + shown_value(c);
  throw InputError({path, 1, 0}, "", "no column named '" + shown_value(name) + "'; the columns are: " + known);
}

CsvTable parse_csv_table(const std::string& text, const std::string& path) {
  CsvTable table;
  table.path = path;
  std::vector<std::vector<std::string>> records;
  std::vector<int> lines;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false, field_started = false;
  int line = 1, record_line = 1;
  const auto end_field = [&] {
    record.push_back(field);
    field.clear();
    field_started = false;
  };
  const auto end_record = [&] {
    end_field();
    if (!(record.size() == 1 && record[0].empty())) {  // blank lines are skipped
      records.push_back(record);
      lines.push_back(record_line);
    }
    record.clear();
  };
  // A byte order mark (spreadsheets write one in front of UTF-8 CSV) is not part of the first column's name.
  const std::string_view kByteOrderMark = "\xEF\xBB\xBF";
  const std::size_t start = std::string_view(text).substr(0, kByteOrderMark.size()) == kByteOrderMark ? 3 : 0;
  for (std::size_t i = start; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    if (c == '"') {
      if (field_started)
        throw InputError({path, line, 0}, "", "a quote inside an unquoted field (quote the whole field, \"\" for \")");
      quoted = field_started = true;
    } else if (c == ',') {
      end_field();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      end_record();
      ++line;
      record_line = line;
    } else {
      field += c;
      field_started = true;
    }
  }
  if (quoted) throw InputError({path, record_line, 0}, "", "a quoted field is not closed before the end of the file");
  if (field_started || !record.empty()) end_record();
  if (records.empty()) throw InputError({path, 1, 0}, "", "expected a header row of column names; the file is empty");
  table.columns = records[0];
  for (std::size_t r = 1; r < records.size(); ++r) {
    if (records[r].size() != table.columns.size())
      throw InputError({path, lines[r], 0}, "",
                      "expected " + std::to_string(table.columns.size()) + " fields as in the header, found " +
                          std::to_string(records[r].size()));
    table.rows.push_back(std::move(records[r]));
    table.row_lines.push_back(lines[r]);
  }
  return table;
}

CsvTable load_csv_table(const std::string& path) {
  return parse_csv_table(read_input_file(path, {"a CSV table", kMaxCsvFileBytes, "kMaxCsvFileBytes"}), path);
}

std::optional<double> csv_number(const std::string& field) {
  const std::size_t first = field.find_first_not_of(' ');
  if (first == std::string::npos) return std::nullopt;
  const std::string trimmed = field.substr(first, field.find_last_not_of(' ') - first + 1);
  return decimal_number(trimmed);
}

}  // namespace maeri::util
