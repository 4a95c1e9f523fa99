// Decimal numbers in text (see decimal_number.hpp).
#include "util/decimal_number.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <system_error>

namespace maeri::util {

std::optional<double> decimal_number(std::string_view text) {
  if (text.empty()) return std::nullopt;
  const char* const end = text.data() + text.size();
  double value = 0;
  // chars_format::general takes neither a leading '+' nor "0x"; it does take "inf" and "nan", refused below.
  const auto [stop, error] = std::from_chars(text.data(), end, value, std::chars_format::general);
  if (stop != end) return std::nullopt;
  if (error == std::errc::result_out_of_range)
    value = std::strtod(std::string(text).c_str(), nullptr);  // underflow: the nearest double; overflow: infinite
  else if (error != std::errc{})
    return std::nullopt;
  if (!std::isfinite(value)) return std::nullopt;
  return value;
}

}  // namespace maeri::util
