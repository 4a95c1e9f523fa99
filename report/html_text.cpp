// Text helpers of the HTML report (html_text.hpp).
#include "report/html_text.hpp"

#include <fmt/format.h>

#include <cmath>

#include "util/svg_chart.hpp"

namespace maeri::report {

std::string escaped(const std::string& text) {
  std::string out;
  for (const char c : util::xml_escape(text)) {
    if (c == '\'') out += "&#39;";
    else out += c;
  }
  return out;
}

std::string short_label(const std::string& text, std::size_t max_chars) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool continuation = (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80;
    if (continuation) continue;
    if (chars == max_chars) return text.substr(0, i) + "\u2026";
    ++chars;
  }
  return text;
}

std::string number_text(double value) {
  if (!std::isfinite(value)) return "—";
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    const auto whole = static_cast<long long>(std::fabs(value));
    std::string digits = std::to_string(whole), grouped;
    for (std::size_t i = 0; i < digits.size(); ++i) {
      if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
      grouped += digits[i];
    }
    return (value < 0 ? "-" : "") + grouped;
  }
  std::string text = fmt::format("{:.3f}", value);
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text;
}

std::string vn_colour(int vn) {
  return fmt::format("hsl({},70%,{}%)", (vn * 137) % 360, vn % 2 == 0 ? 52 : 66);
}

}  // namespace maeri::report
