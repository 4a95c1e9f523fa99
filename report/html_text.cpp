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

namespace {

std::string grouped_digits(long long whole) {
  const std::string digits = std::to_string(whole);
  std::string grouped;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
    grouped += digits[i];
  }
  return grouped;
}

}  // namespace

std::string number_text(double value) {
  if (!std::isfinite(value) || std::fabs(value) >= 1e15) return fmt::format("{:.6g}", value);
  // Up to 3 decimals below 1000, one above (a cycle count's fraction of a cycle says nothing there).
  std::string fraction = fmt::format(std::fabs(value) < 1000 ? "{:.3f}" : "{:.1f}", std::fabs(value));
  const std::string whole = fraction.substr(0, fraction.find('.'));
  fraction.erase(0, whole.size());
  while (!fraction.empty() && (fraction.back() == '0' || fraction.back() == '.')) fraction.pop_back();
  const bool negative = value < 0 && (std::stoll(whole) != 0 || !fraction.empty());
  return (negative ? "-" : "") + grouped_digits(std::stoll(whole)) + fraction;
}

std::string vn_colour(int vn) {
  return fmt::format("hsl({},70%,{}%)", (vn * 137) % 360, vn % 2 == 0 ? 52 : 66);
}

}  // namespace maeri::report
